#!/usr/bin/env bash
# As root the command keeps only the capabilities ordinary file work needs;
# the rest are gone from the bounding set too. Device nodes cannot be made
# (MAKE_CHAR/MAKE_BLOCK are never granted, CAP_MKNOD is dropped). Where
# cordon lacks CAP_SETPCAP (inside another cordon run, or setpriv without
# it) the bounding set stays, but the command still holds only the kept
# set (no_new_privs); where capset is refused, "auto" runs with the gap
# capabilities_not_reduced and "required" refuses.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
is_root || skip_all "needs root (running as $(id -un)); the unprivileged run has no capabilities to drop"

caps() { # caps FIELD: the hex mask of a capability set of a confined command
	(cd "$WS" && crun -- sh -c "grep '^$1:' /proc/self/status" | awk '{print $2}')
}
has() { [ $(((0x$1 >> $2) & 1)) -eq 1 ]; }

for set in CapBnd CapEff CapPrm; do
	m=$(caps "$set")
	for drop in 2:DAC_READ_SEARCH 5:KILL 12:NET_ADMIN 13:NET_RAW 16:SYS_MODULE 17:SYS_RAWIO \
		19:SYS_PTRACE 21:SYS_ADMIN 22:SYS_BOOT 25:SYS_TIME 27:MKNOD 29:AUDIT_WRITE \
		30:AUDIT_CONTROL 38:PERFMON 39:BPF 8:SETPCAP 31:SETFCAP 9:LINUX_IMMUTABLE; do
		! has "$m" "${drop%%:*}"
		ok $? "$set: CAP_${drop#*:} dropped"
	done
	for keep in 0:CHOWN 1:DAC_OVERRIDE 3:FOWNER 6:SETGID 7:SETUID 10:NET_BIND_SERVICE; do
		has "$m" "${keep%%:*}"
		ok $? "$set: CAP_${keep#*:} kept"
	done
done
is "$(caps CapAmb)" 0000000000000000 "no ambient capabilities"
is "$(cd "$WS" && crun -- sh -c 'grep ^NoNewPrivs: /proc/self/status' | awk '{print $2}')" 1 "no_new_privs is set"

rm -f "$T/s.json"
(cd "$WS" && crun --status-file "$T/s.json" -- mknod "$WS/sda" b 8 0) 2>/dev/null
[ ! -e "$WS/sda" ]
ok $? "mknod of a block device in the workspace is refused"
is "$(json_field "$T/s.json" status '"capabilities" in e["layers"]')" true "layer capabilities reported"
(cd "$WS" && crun -- mknod "$WS/null2" c 1 3) 2>/dev/null
[ ! -e "$WS/null2" ]
ok $? "mknod of a character device in the workspace is refused"
(cd "$WS" && crun --sandbox off -- mknod "$WS/sda" b 8 0)
[ -b "$WS/sda" ]
ok $? "control: unconfined root can make it"
rm -f "$WS/sda"

# /proc/sys: each try in a UTS namespace of its own, so the domain name
# written is never the machine's. The control runs first (unconfined, the
# name changes); then, confined, the name is the same before and after and
# the command left its marker after the attempt (cordon ran it).
f=/proc/sys/kernel/domainname
# sys_write MODE: the domain name before and after a run in MODE that
# writes a new one.
sys_write() {
	rm -f "$WS/ran"
	(cd "$WS" && unshare --uts -- sh -c 'cat "$1"
		"$2" run --state-dir "$3" --sandbox "$4" -- sh -c "echo cordon-t0090 >$1; echo ran >ran"
		cat "$1"' sh "$f" "$CORDON" "$STATE" "$1") 2>/dev/null
}
got=$(unshare --uts true 2>&1 && sys_write off)
if [ "$(sed -n 2p <<<"$got")" != cordon-t0090 ]; then
	skip "control: unconfined root cannot write $f here ($(tr '\n' ' ' <<<"$got"))"
	skip "root cannot write $f confined: not checked, the control could not change it"
else
	ok 0 "control: unconfined root can write $f"
	got=$(sys_write auto)
	if [ "$(cat "$WS/ran" 2>/dev/null)" != ran ]; then
		ok 1 "root cannot write $f confined (cordon did not run the command)"
	else
		is "$(sed -n 2p <<<"$got")" "$(sed -n 1p <<<"$got")" "root cannot write $f confined (unchanged)"
	fi
fi

# chattr +i needs CAP_LINUX_IMMUTABLE: gone, even inside the workspace.
echo x >"$WS/imm"
(cd "$WS" && crun -- chattr +i imm) 2>/dev/null
if lsattr "$WS/imm" 2>/dev/null | cut -c1-16 | grep -q i; then
	chattr -i "$WS/imm"
	ok 1 "chattr +i refused (CAP_LINUX_IMMUTABLE dropped)"
else
	ok 0 "chattr +i refused (CAP_LINUX_IMMUTABLE dropped)"
fi

# ---- cordon inside cordon, and cordon without CAP_SETPCAP ----
DENY=$HELPERS/seccomp-deny
# The capabilities cordon keeps: CHOWN, DAC_OVERRIDE, FOWNER, SETGID,
# SETUID, NET_BIND_SERVICE, IPC_LOCK, SYS_CHROOT, LEASE (src/linux/caps.c).
KEPT=$((0x100444cb))
kept_only() { [ $((0x$1 & ~KEPT)) -eq 0 ]; }
field() { grep "^$1:" "$2" | awk '{print $2}'; }
ev() { json_field "$T/s.json" "$@"; }

# cordon whose runs ignore the hint that a refusal is likely: their first
# child is the trial (tests/helpers/cordon-first-child.c).
FIRST=$HELPERS/cordon-first-child
# cordon_for WAY: the cordon program for WAY ("" or first-child).
cordon_for() { if [ "$1" = first-child ]; then echo "$FIRST"; else echo "$CORDON"; fi; }

# inner MODE [WAY]: a cordon run inside a cordon run, its status on the
# outer run's kept fd 3. The inner workspace is $WS/in: $WS is writable
# for the outer run, not for the inner one.
inner() {
	local mode=$1 inner_cordon
	inner_cordon=$(cordon_for "${2:-}")
	rm -rf "$WS/in" "$WS/escaped" "$T/s.json"
	mkdir -p "$WS/in"
	(cd "$WS/in" && crun -w "$WS" --keep-fd 3 -- "$inner_cordon" run --sandbox "$mode" \
		--state-dir "$WS/inner-state" --status-fd 3 -- sh -c \
		'grep ^Cap /proc/self/status > caps; echo x > ../escaped; echo ran >> marker; exit 7') \
		3>"$T/s.json" 2>"$T/err"
}
for how in "auto" "required" "auto first-child"; do
	read -r mode way <<<"$how"
	inner "$mode" "$way"
	is "$?" 7 "nested ($how): the exit status is the command's"
	is "$(cat "$WS/in/marker" 2>/dev/null)" ran "nested ($how): the command ran once"
	is "$(ev status 'e["applied"]')" true "nested ($how): the start event says applied"
	is "$(ev status '"capabilities" in e["layers"] and "capabilities_not_reduced" not in e["gaps"]')" \
		true "nested ($how): capabilities reported as reduced"
	m=$(field CapEff "$WS/in/caps")
	kept_only "${m:-ffff}"
	ok $? "nested ($how): the command holds only the kept capabilities (CapEff $m)"
	[ ! -e "$WS/escaped" ]
	ok $? "nested ($how): the inner Landlock layer holds (no write outside its workspace)"
	is "$(ev exit 'e["exit_code"]')" 7 "nested ($how): the exit event has the command's status"
done

# cordon as root without CAP_SETPCAP: PR_CAPBSET_DROP is refused, the rest
# of root's capabilities stay in the bounding set.
if ! command -v setpriv >/dev/null; then
	skip "no setpriv here: cordon without CAP_SETPCAP not tried"
else
	nopcap() { setpriv --bounding-set -setpcap "$@"; }
	b=$(nopcap grep ^CapBnd: /proc/self/status | awk '{print $2}')
	has "$b" 21 && ! has "$b" 8
	ok $? "control: without CAP_SETPCAP, CAP_SYS_ADMIN stays in the bounding set ($b)"
	echo x >"$WS/imm"
	nopcap chattr +i "$WS/imm" && lsattr "$WS/imm" | cut -c1-16 | grep -q i
	ok $? "control: root without CAP_SETPCAP can chattr +i"
	chattr -i "$WS/imm"
	for how in "auto" "required" "auto nons" "required nons"; do
		read -r mode ns <<<"$how"
		wrap=()
		[ -n "$ns" ] && wrap=("$DENY" "$ns" --)
		rm -f "$T/s.json" "$WS/caps" "$WS/marker"
		(cd "$WS" && nopcap "${wrap[@]}" "$CORDON" run --sandbox "$mode" --state-dir "$STATE" \
			--status-file "$T/s.json" -- sh -c \
			'grep ^Cap /proc/self/status > caps; chattr +i imm; echo ran >> marker; exit 7') \
			2>/dev/null
		is "$?" 7 "no CAP_SETPCAP ($how): the command runs, its exit status"
		is "$(cat "$WS/marker" 2>/dev/null)" ran "no CAP_SETPCAP ($how): the command ran once"
		is "$(ev status 'e["applied"] and "capabilities" in e["layers"]')" true \
			"no CAP_SETPCAP ($how): applied, capabilities reported"
		m=$(field CapEff "$WS/caps")
		kept_only "${m:-ffff}" && kept_only "$(field CapPrm "$WS/caps")"
		ok $? "no CAP_SETPCAP ($how): the command holds only the kept capabilities (CapEff $m)"
		if lsattr "$WS/imm" | cut -c1-16 | grep -q i; then
			chattr -i "$WS/imm"
			ok 1 "no CAP_SETPCAP ($how): chattr +i refused"
		else
			ok 0 "no CAP_SETPCAP ($how): chattr +i refused"
		fi
	done
fi

# capset refused (seccomp-deny nocapset): root's capabilities cannot be
# reduced at all. The probe says so; "auto" runs with the gap and the
# command really keeps them; "required" refuses.
rm -f "$T/s.json"
"$DENY" nocapset -- "$CORDON" probe --json >"$T/s.json"
is "$("$PY" -c 'import json,sys; e=json.load(open(sys.argv[1])); print(e["available"], "capabilities" in e["layers"], "capabilities_not_reduced" in e["gaps"])' "$T/s.json")" \
	"True False True" "capset refused: the probe reports the gap, not the layer"
"$DENY" nocapset -- "$CORDON" probe | grep -q '^gaps .*capabilities_not_reduced'
ok $? "capset refused: cordon probe lists the gap"
for how in "auto" "auto first-child"; do
	read -r mode way <<<"$how"
	rm -f "$T/s.json" "$WS/caps" "$WS/marker"
	(cd "$WS" && "$DENY" nocapset -- "$(cordon_for "$way")" run --state-dir "$STATE" \
		--status-file "$T/s.json" -- sh -c \
		'grep ^Cap /proc/self/status > caps; chattr +i imm; echo ran >> marker; exit 7') 2>"$T/err"
	is "$?" 7 "capset refused ($how): the command runs, its exit status"
	is "$(cat "$WS/marker" 2>/dev/null)" ran "capset refused ($how): the command ran once"
	is "$(ev status '[e["applied"], "capabilities" in e["layers"], "capabilities_not_reduced" in e["gaps"]]')" \
		"[true, false, true]" "capset refused ($how): applied, the gap reported, not the layer"
	has "$(field CapEff "$WS/caps")" 21
	ok $? "capset refused ($how): the gap is true: the command holds CAP_SYS_ADMIN"
	lsattr "$WS/imm" | cut -c1-16 | grep -q i
	ok $? "capset refused ($how): the gap is true: chattr +i works"
	chattr -i "$WS/imm"
done
for how in "required" "required first-child"; do
	read -r mode way <<<"$how"
	rm -f "$T/s.json" "$WS/marker"
	(cd "$WS" && "$DENY" nocapset -- "$(cordon_for "$way")" run --sandbox "$mode" \
		--state-dir "$STATE" --status-file "$T/s.json" -- sh -c 'echo ran >> marker') 2>"$T/err"
	is "$?" 125 "capset refused ($how): refused, exit 125"
	[ ! -e "$WS/marker" ]
	ok $? "capset refused ($how): the command did not run"
	is "$(ev status '[e["applied"], e["reason"], e["cause"]]')" \
		'[false, "bash_sandbox_unavailable", "capabilities_not_reducible"]' \
		"capset refused ($how): the event says why"
	is "$(grep -c '^cordon: ' "$T/err")" 1 "capset refused ($how): one line on stderr"
done

done_testing

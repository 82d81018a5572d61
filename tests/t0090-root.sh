#!/usr/bin/env bash
# As root the command keeps only the capabilities ordinary file work needs;
# the rest are gone from the bounding set too. Device nodes cannot be made
# (MAKE_CHAR/MAKE_BLOCK are never granted, CAP_MKNOD is dropped).
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

# /proc/sys: write back the current value, so the control changes nothing.
f=/proc/sys/kernel/domainname
cur=$(cat "$f")
(cd "$WS" && crun -- sh -c "echo '$cur' > $f") 2>/dev/null
is "$?" 2 "root cannot write /proc/sys confined (sh reports the refused redirection)"
if (echo "$cur" >"$f") 2>/dev/null; then
	ok 0 "control: unconfined root can write $f"
else
	skip "/proc/sys is read-only here even for root"
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

done_testing

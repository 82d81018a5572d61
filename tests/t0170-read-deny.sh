#!/usr/bin/env bash
# Read-deny: the user's secrets (the default list, under $HOME) and
# --deny-read paths are unreadable by the confined command with the mount
# layer: directly, through a symlink or a hard link in the workspace, a
# renamed parent, /proc/self/root, python, a recursive grep. What stays
# readable stays readable (~/.ssh's known_hosts, config, *.pub; ~/.gitconfig,
# the workspace, /etc). Without the mount layer, the Landlock read layer:
# the same attack finds nothing; a denied path inside the workspace is the
# gap secrets_readable (refused in "required" when explicit), and so is a
# way too long to grant (the rule bound) or one the caller cannot list.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock
DENY=$HELPERS/seccomp-deny

# The fixture home: every default entry holds a token of its own
# (directories a file inside it), plus what must stay readable.
# An entry under the runtime dir lies in the test's own; a pattern's
# "*" is a tool's directory of its own.
export XDG_RUNTIME_DIR=$T/run
n=0
dirs=" ~/.ssh ~/.aws ~/.gnupg ~/.config/gh ~/.mozilla/firefox ~/.kube ~/.password-store "
while read -r entry; do
	# A file a tool's variable places (t0171 puts them there).
	case $entry in '$XDG_RUNTIME_DIR/'*) ;; '$'*) continue ;; esac
	n=$((n + 1))
	case $entry in
	'$XDG_RUNTIME_DIR/'*) p=$XDG_RUNTIME_DIR/${entry#'$XDG_RUNTIME_DIR/'} ;;
	*) p=$HOME/${entry#\~/} ;;
	esac
	case $p in */\*/*) p="${p%%/\**}/some-tool-$n/${p#*\*/}" ;; esac
	tok="SECRET-TOKEN-$n-x"
	if [ "${dirs#* "$entry" }" != "$dirs" ]; then
		mkdir -p "$p"
		echo "$tok" >"$p/key"
	else
		mkdir -p "$(dirname "$p")"
		echo "$tok" >"$p"
	fi
done < <("$CORDON" probe --json | "$PY" -c 'import json,sys; print("\n".join(json.load(sys.stdin)["default_deny_read"]))')
ok $((n < 30)) "the default list has at least 30 entries ($n)"
echo "known-hosts-ok" >"$HOME/.ssh/known_hosts"
echo "ssh-config-ok" >"$HOME/.ssh/config"
echo "ssh-pub-ok" >"$HOME/.ssh/id_ed25519.pub"
ln -s key "$HOME/.ssh/sneaky.pub" # a .pub link to the key stays denied
ln "$HOME/.ssh/key" "$HOME/.ssh/known_hosts2" # so does the key under a kept name
echo "gitconfig-ok" >"$HOME/.gitconfig"
echo "notes-ok" >"$HOME/notes.txt"
echo "ENV-SECRET-in-ws" >"$WS/.env"
# One per line: some have spaces (~/Library/Application Support/...).
secret_files=$(grep -rl SECRET-TOKEN "$HOME" "$XDG_RUNTIME_DIR" | sort)


# attack: every way to read the secrets, all output on stdout, copies
# into the workspace.
cat >"$T/attack.sh" <<'EOF'
IFS='
'
for f in $SECRETS; do
	cat "$f"
	"$PY" -c 'import sys; print(open(sys.argv[1]).read())' "$f"
	ln -s "$f" "lnk.$$" && cat "lnk.$$"; rm -f "lnk.$$"
	ln "$f" "hard.$$" 2>/dev/null && cat "hard.$$"
	cat "/proc/self/root$f"
	cp "$f" "copy.$$" 2>/dev/null
done
grep -r SECRET-TOKEN "$HOME" "$XDG_RUNTIME_DIR"
mv "$HOME/.ssh" "$HOME/.ssh-moved" && cat "$HOME"/.ssh-moved/*
(cd "$HOME/.ssh" && cat key ../.aws/key)
cat .env
true
EOF

attack() { # attack OUTFILE RUN-ARGS...
	local out=$1
	shift
	rm -f "$WS"/copy.* "$WS"/hard.* "$T/s.json"
	(cd "$WS" && SECRETS="$secret_files" PY="$PY" "$@" -- sh "$T/attack.sh") >"$out" 2>&1
}

# Control: unconfined, the attack finds every token.
attack "$T/off.out" crun --sandbox off
got=$(grep -o 'SECRET-TOKEN-[0-9]*-x' "$T/off.out" | sort -u | wc -l)
is "$got" "$n" "control: unconfined, the attack reads all $n tokens"
mv "$HOME/.ssh-moved" "$HOME/.ssh" # the control's rename undone
rm -f "$WS"/copy.* "$WS"/hard.*

attack "$T/in.out" crun --status-file "$T/s.json" --deny-read .env
if [ "$(json_field "$T/s.json" status '"read_deny" in e["layers"]')" = true ]; then
	leaked=$(grep -o 'SECRET-TOKEN-[0-9]*-x' "$T/in.out" | sort -u | wc -l)
	is "$leaked" 0 "confined: no token in any output"
	grep -rq SECRET-TOKEN "$WS"
	ok $((1 - $?)) "confined: no token in any workspace file"
	grep -q ENV-SECRET-in-ws "$T/in.out"
	ok $((1 - $?)) "--deny-read .env: its content is not read"
	while read -r f; do
		grep -q "SECRET-TOKEN" "$f" || { ok 1 "the secret $f is unchanged"; }
	done <<<"$secret_files"
	ok 0 "every secret file is still there, unchanged"
	[ -d "$HOME/.ssh" ] && [ ! -e "$HOME/.ssh-moved" ]
	ok $? "\$HOME/.ssh was not renamed away"
	is "$(json_field "$T/s.json" status '[d["readable"] for d in e["read_denied"] if d["path"].endswith("/.ssh")][0]')" \
		'["config", "id_ed25519.pub", "known_hosts"]' "read_denied: ~/.ssh keeps config, *.pub, known_hosts (no link)"
	is "$(json_field "$T/s.json" status 'all(d["enforced"] for d in e["read_denied"])')" true \
		"read_denied: every entry enforced"
	is "$(json_field "$T/s.json" status '[d["explicit"] for d in e["read_denied"] if d["path"].endswith("/.env")]')" \
		'[true]' "read_denied: .env listed as explicit"
	# What stays readable.
	out=$(cd "$WS" && crun -- sh -c 'cat ~/.ssh/known_hosts ~/.ssh/config ~/.ssh/id_ed25519.pub ~/.gitconfig ~/notes.txt /etc/hostname >/dev/null && cat ~/.ssh/known_hosts ~/.ssh/config ~/.ssh/id_ed25519.pub ~/.gitconfig ~/notes.txt' 2>&1)
	is "$(echo "$out" | tr '\n' ' ')" "known-hosts-ok ssh-config-ok ssh-pub-ok gitconfig-ok notes-ok " \
		"ssh carve-outs, ~/.gitconfig, an ordinary home file and /etc stay readable"
	if out=$(cd "$WS" && crun -- sh -c 'echo x >~/.netrc' 2>&1); then
		false
	else
		grep -q SECRET-TOKEN "$HOME/.netrc"
	fi
	ok $? "a covered file cannot be written, the original is unchanged ($out)"
	# Taking entries back.
	out=$(cd "$WS" && crun --allow-read "$HOME/.aws" -- cat "$HOME/.aws/key" 2>&1)
	case $out in SECRET-TOKEN-*) ok 0 "--allow-read ~/.aws: readable again" ;; *) ok 1 "--allow-read ~/.aws: readable again ($out)" ;; esac
	ln -s "$HOME/.aws" "$WS/vendor-data"
	(cd "$WS" && crun --allow-read ./vendor-data -- cat "$HOME/.aws/key") >"$T/out" 2>&1
	is "$?" 125 "--allow-read through a symlink in the workspace (a planted trap): refused (exit 125)"
	! grep -q SECRET-TOKEN "$T/out"
	ok $? "... and nothing read"
	rm -f "$WS/vendor-data"
	out=$(cd "$WS" && crun --no-default-deny-read -- cat "$HOME/.netrc" 2>&1)
	case $out in SECRET-TOKEN-*) ok 0 "--no-default-deny-read: readable" ;; *) ok 1 "--no-default-deny-read: readable ($out)" ;; esac
	(cd "$WS" && crun --allow-read "$HOME/.aws/key" -- true) >/dev/null 2>"$T/err"
	is "$?" 125 "--allow-read inside a denied tree: refused (exit 125)"
	grep -q "stays denied" "$T/err"
	ok $? "... and says why"
	(cd "$WS" && crun --deny-read "$WS/no-such" -- true) >/dev/null 2>&1
	is "$?" 125 "--deny-read of a missing path: refused (exit 125)"
	(cd "$WS" && crun --allow-read "$HOME/.aws/not-there" -- true) >/dev/null 2>&1
	is "$?" 125 "--allow-read of a missing path inside a denied tree: refused (exit 125)"
	# Started from below a covered directory (outside the workspace): the
	# command starts in the workspace, never on what the cover hides;
	# named with --cwd, it is refused.
	out=$(cd "$HOME/.aws" && crun -w "$WS" -- sh -c 'cat key; cat /proc/self/cwd/key; pwd -P' 2>&1)
	case $out in *SECRET-TOKEN*) ok 1 "started inside ~/.aws: its files stay unreadable ($out)" ;; *"$WS") ok 0 "started inside ~/.aws: the command starts in the workspace, the files stay unreadable" ;; *) ok 1 "started inside ~/.aws: where? ($out)" ;; esac
	out=$(cd "$WS" && crun --cwd "$HOME/.aws" -- sh -c 'echo RAN; cat key' 2>&1)
	is "$?:$out" "125:cordon: the working directory $HOME/.aws lies in $HOME/.aws, which the command may not read (the default deny-read list); give another with --cwd" \
		"--cwd ~/.aws: refused (exit 125), one line, nothing run"
	# Started in a working directory deleted before the run, below a
	# covered file's directory: the command starts in the workspace, and
	# ".." never reaches the file past its cover.
	mkdir -p "$WS/app/build" && echo "APP-ENV-SECRET" >"$WS/app/.env"
	# (.env is an agent-configuration name: one made within a tick of the
	# clock before a run counts as the run's, and is moved aside.)
	sleep 0.05
	out=$(cd "$WS/app/build" && rmdir "$WS/app/build" && crun -w "$WS" --deny-read "$WS/app/.env" -- sh -c 'cat ../.env app/.env 2>/dev/null; pwd -P' 2>&1)
	is "$out" "$WS" "started in a deleted directory beside a covered file: the command starts in the workspace, the file unreadable"
	out=$(cd "$WS/app" && crun -w "$WS" --sandbox off -- sh -c 'cat .env' 2>&1)
	is "$out" "APP-ENV-SECRET" "control: the file is there and readable without the cover"
	rm -rf "$WS/app"
	# A relative HOME: the secrets under what the command's tools take it
	# for, from where the command starts (--cwd here).
	rel=$(basename "$HOME")
	out=$(cd "$(dirname "$HOME")" && HOME=./$rel crun -w "$WS" --cwd . -- sh -c 'cat "$HOME/.netrc"' 2>&1)
	case $out in *SECRET-TOKEN*) ok 1 "a relative HOME: its secrets stay unreadable ($out)" ;; *) ok 0 "a relative HOME: its secrets stay unreadable" ;; esac
	out=$(cd "$(dirname "$HOME")" && HOME=./$rel crun -w "$WS" --cwd . --sandbox off -- sh -c 'cat "$HOME/.netrc"' 2>&1)
	case $out in *SECRET-TOKEN*) ok 0 "control: through the relative HOME the file is there" ;; *) ok 1 "control: through the relative HOME the file is there ($out)" ;; esac
	# ... by default from the workspace, when cordon's directory lies
	# outside it: HOME=../relhome is $T/relhome for the command, not
	# $OUT/relhome (cordon's directory is $OUT/elsewhere).
	mkdir -p "$T/relhome/.aws" "$OUT/elsewhere"
	echo "REL-HOME-SECRET" >"$T/relhome/.aws/key"
	out=$(cd "$OUT/elsewhere" && HOME=../relhome crun -w "$WS" -- sh -c 'cat "$HOME/.aws/key"' 2>&1)
	case $out in *REL-HOME-SECRET*) ok 1 "a relative HOME, from the workspace: its secrets stay unreadable ($out)" ;; *) ok 0 "a relative HOME, from the workspace: its secrets stay unreadable" ;; esac
	out=$(cd "$OUT/elsewhere" && HOME=../relhome crun -w "$WS" --sandbox off -- sh -c 'cat "$HOME/.aws/key"' 2>&1)
	is "$out" "REL-HOME-SECRET" "control: from the workspace, the relative HOME leads to the file"
	rm -rf "$T/relhome" "$OUT/elsewhere"
	# An explicit --deny-read of a name ~/.ssh keeps wins.
	out=$(cd "$WS" && crun --deny-read "$HOME/.ssh/known_hosts" -- cat "$HOME/.ssh/known_hosts" 2>&1)
	case $out in *known-hosts-ok*) ok 1 "--deny-read ~/.ssh/known_hosts: not kept readable" ;; *) ok 0 "--deny-read ~/.ssh/known_hosts: not kept readable" ;; esac
	# A denied file inside the workspace: its directory cannot be moved
	# away for a decoy the next run would cover.
	mkdir -p "$WS/sub"
	echo "SUB-ENV-SECRET" >"$WS/sub/.env"
	(cd "$WS" && crun --deny-read sub/.env -- sh -c 'mv sub sub.old; mkdir -p sub; echo decoy >sub/.env') >/dev/null 2>&1
	[ -f "$WS/sub/.env" ] && grep -q SUB-ENV-SECRET "$WS/sub/.env" && [ ! -e "$WS/sub.old" ]
	ok $? "--deny-read sub/.env: sub cannot be renamed away, the file is unchanged"
	ln "$WS/sub/.env" "$WS/.env-link"
	(cd "$WS" && crun --deny-read sub/.env -- true) >/dev/null 2>&1
	is "$?" 125 "--deny-read of a file with a second hard link: refused (exit 125)"
	rm -f "$WS/.env-link"
	# A default entry that holds the workspace stays readable, and says so.
	rm -f "$T/s.json"
	(cd "$HOME/.config/gh" && crun -w . --status-file "$T/s.json" -- true) >/dev/null 2>&1
	is "$(json_field "$T/s.json" status '[d["enforced"] for d in e["read_denied"] if d["path"].endswith("/.config/gh")] + ["secrets_readable" in e["gaps"]]')" \
		'[false, true]' "a default entry holding the workspace: listed, not enforced, gap secrets_readable"
else
	if [ "${CORDON_MUST_WORK:-0}" = 1 ]; then
		ok 1 "the mount layer must cover secrets here (CORDON_MUST_WORK=1)"
	else
		skip "no mount layer here: secrets are not covered"
	fi
fi

# The docs list the table the code holds, entry for entry.
for doc in "$TOP/docs/cli-reference.en.md" "$TOP/docs/cli-reference.ja.md"; do
	if [ ! -f "$doc" ]; then
		skip "the default list in ${doc##*/}: no docs in this copy of the tree"
		continue
	fi
	missing=$("$CORDON" probe --json | "$PY" -c '
import json, sys
doc = open(sys.argv[1], encoding="utf-8").read()
print(" ".join(p for p in json.load(sys.stdin)["default_deny_read"] if "`%s`" % p not in doc))' "$doc")
	is "$missing" "" "${doc##*/} lists every entry of the default deny-read list"
done

# The man page's DESCRIPTION says what this file shows (it said reads
# were not restricted): the secrets and the --deny-read paths are not
# readable when confined.
if [ -f "$TOP/man/cordon.1" ]; then
	desc=$(sed -n '/^\.SH DESCRIPTION/,/^\.SH OPTIONS/p' "$TOP/man/cordon.1" | tr '\n' ' ')
	! grep -qi 'reads[^.]*are not restricted\.' <<<"$desc" && grep -q "secrets" <<<"$desc" &&
		grep -q 'deny\\-read' <<<"$desc"
	ok $? "the man page's DESCRIPTION says the secrets and --deny-read paths are unreadable"
else
	skip "the man page: no docs in this copy of the tree"
fi

# Without the mount layer: the Landlock read layer grants reads on
# everything beside the ways to the denied paths.
lrun() { "$DENY" nons -- "$CORDON" run --state-dir "$STATE" "$@"; }
attack "$T/ll.out" lrun --status-file "$T/s.json" --deny-read .env
if [ "$(json_field "$T/s.json" status '"mount_namespace" not in e["layers"] and "read_deny" in e["layers"]')" = true ]; then
	leaked=$(grep -o 'SECRET-TOKEN-[0-9]*-x' "$T/ll.out" | sort -u | wc -l)
	is "$leaked" 0 "landlock: no token in any output"
	grep -rq SECRET-TOKEN "$WS"
	ok $((1 - $?)) "landlock: no token in any workspace file"
	left=$(grep -rl SECRET-TOKEN "$HOME" "$XDG_RUNTIME_DIR" | sort)
	is "$left" "$secret_files" "landlock: every secret file is still there, unchanged"
	[ -d "$HOME/.ssh" ] && [ ! -e "$HOME/.ssh-moved" ]
	ok $? "landlock: \$HOME/.ssh was not renamed away"
	is "$(json_field "$T/s.json" status 'sorted(set(d["by"] for d in e["read_denied"] if not d["path"].endswith("/.env")))')" \
		'["landlock"]' "landlock: every entry of the home is enforced by landlock"
	is "$(json_field "$T/s.json" status '[d["enforced"] for d in e["read_denied"] if d["path"].endswith("/.env")] + ["secrets_readable" in e["gaps"]]')" \
		'[false, true]' "landlock: the workspace's .env (a writable tree's inside) is not enforced: gap secrets_readable"
	out=$(cd "$WS" && lrun -- sh -c 'cat ~/.ssh/known_hosts ~/.ssh/config ~/.ssh/id_ed25519.pub ~/.gitconfig ~/notes.txt /etc/hostname >/dev/null && cat ~/.ssh/known_hosts ~/.ssh/config ~/.ssh/id_ed25519.pub ~/.gitconfig ~/notes.txt && ls /usr >/dev/null && echo usr-ok' 2>&1)
	is "$(echo "$out" | tr '\n' ' ')" "known-hosts-ok ssh-config-ok ssh-pub-ok gitconfig-ok notes-ok usr-ok " \
		"landlock: ssh carve-outs, ~/.gitconfig, a home file, /etc and /usr stay readable"
	! (cd "$WS" && lrun -- ls "$HOME") >/dev/null 2>&1
	ok $? "landlock: the home, on the way to the secrets, cannot be listed (documented)"
	out=$(cd "$HOME/.aws" && lrun -w "$WS" -- sh -c 'cat key; cat /proc/self/cwd/key' 2>&1)
	case $out in *SECRET-TOKEN*) ok 1 "landlock: started inside ~/.aws: its files stay unreadable ($out)" ;; *) ok 0 "landlock: started inside ~/.aws: its files stay unreadable" ;; esac
	out=$(cd "$WS" && lrun --cwd "$HOME/.aws" -- sh -c 'echo RAN; cat key' 2>&1)
	is "$?:$out" "125:cordon: the working directory $HOME/.aws lies in $HOME/.aws, which the command may not read (the default deny-read list); give another with --cwd" \
		"landlock: --cwd ~/.aws: refused (exit 125), one line, nothing run"
	# A secret made during the run in a directory on the way: unreadable.
	rm -f "$WS/ready" "$WS/go"
	(cd "$WS" && lrun -- sh -c 'touch ready; while [ ! -e go ]; do sleep 0.05; done; cat ~/.late-secret') >"$T/late.out" 2>&1 &
	late=$!
	for _ in $(seq 1 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	echo LATE-SECRET-x >"$HOME/.late-secret"
	touch "$WS/go"
	wait "$late"
	grep -q LATE-SECRET "$T/late.out"
	ok $((1 - $?)) "landlock: a file made in the home during the run is unreadable"
	rm -f "$HOME/.late-secret"
	# --deny-read outside the writable set: enforced, so required runs.
	echo "OUTSIDE-SECRET-x" >"$T/outside-secret"
	rm -f "$T/s.json"
	out=$(cd "$WS" && lrun --sandbox required --status-file "$T/s.json" --deny-read "$T/outside-secret" -- cat "$T/outside-secret" 2>&1)
	rc=$?
	case $out in *OUTSIDE-SECRET*) ok 1 "landlock, required: --deny-read of an outside file holds ($out)" ;; *) ok $((rc == 125)) "landlock, required: --deny-read of an outside file runs and holds" ;; esac
	is "$(json_field "$T/s.json" status '[d["by"] for d in e["read_denied"] if d["explicit"]]')" '["landlock"]' \
		"landlock: the explicit entry says by landlock"
	# A home of many entries is as protected as a small one: no bound
	# on the rules (there was one, past which the key was readable).
	mkdir "$T/bighome"
	cp -a "$HOME/.ssh" "$T/bighome/"
	(cd "$T/bighome" && for i in $(seq 1 6000); do : >"f$i"; done && mkdir d1 && echo D1-OK >d1/x)
	rm -f "$T/s.json"
	out=$(cd "$WS" && HOME=$T/bighome lrun --status-file "$T/s.json" -- sh -c 'cat "$1/.ssh/key"; cat "$1/f5999" "$1/d1/x"' sh "$T/bighome" 2>&1)
	case $out in *SECRET-TOKEN-*) ok 1 "landlock: a home of 6000 entries: the key stays unreadable ($out)" ;; *D1-OK*) ok 0 "landlock: a home of 6000 entries: the key stays unreadable, its other entries readable" ;; *) ok 1 "landlock: a home of 6000 entries: its other entries stay readable ($out)" ;; esac
	is "$(json_field "$T/s.json" status '["secrets_readable" in e["gaps"], all(d["enforced"] for d in e["read_denied"] if "bighome" in d["path"])]')" \
		'[false, true]' "landlock: a home of 6000 entries: no gap, every entry enforced"
	(cd "$WS" && HOME=$T/bighome lrun --sandbox required --deny-read "$T/outside-secret" -- true) >/dev/null 2>&1
	is "$?" 0 "landlock: a home of 6000 entries, required, explicit --deny-read: runs"
	rm -rf "$T/bighome"
	# A directory on the way the caller cannot list: not built, said.
	if is_root; then
		skip "an unlistable directory on the way: root lists every directory"
	else
		mkdir -p "$T/shut/in"
		echo "SHUT-SECRET-x" >"$T/shut/in/secret"
		chmod 311 "$T/shut"
		rm -f "$T/s.json"
		(cd "$WS" && lrun --status-file "$T/s.json" --deny-read "$T/shut/in/secret" -- true) >/dev/null 2>&1
		is "$(json_field "$T/s.json" status '["secrets_readable" in e["gaps"], any(d["enforced"] for d in e["read_denied"])]')" \
			'[true, false]' "landlock: a directory on the way that cannot be listed: not built, gap secrets_readable"
		chmod 755 "$T/shut"
	fi
else
	if [ "${CORDON_MUST_WORK:-0}" = 1 ]; then
		ok 1 "the Landlock read layer must hold here (CORDON_MUST_WORK=1)"
	else
		skip "no Landlock read layer here: $(json_field "$T/s.json" status 'e["layers"]')"
	fi
fi

# A disk the caller can read holds every secret raw: a loop device of the
# test's own (root only) over a file with a token. With the mount layer
# it is covered (an empty file in its place); without it the Landlock
# read layer does not cover devices: the gap block_devices_readable says
# so.
if ! is_root; then
	for c in "control: the loop device reads" "mount layer: a readable disk is covered" \
		"... no gap" "no mount layer: the disk reads, and the gap block_devices_readable says so"; do
		skip "$c: needs root (a loop device of the test's own)"
	done
elif ! command -v losetup >/dev/null 2>&1 || ! { head -c 65536 /dev/zero >"$T/disk.img" &&
	LOOP=$(losetup -f --show "$T/disk.img" 2>"$T/losetup.err"); }; then
	for c in "control: the loop device reads" "mount layer: a readable disk is covered" \
		"... no gap" "no mount layer: the disk reads, and the gap block_devices_readable says so"; do
		skip "$c: no loop device can be made here ($(head -c 100 "$T/losetup.err" 2>/dev/null))"
	done
else
	trap 'losetup -d "$LOOP" 2>/dev/null; cleanup' EXIT
	printf 'DISK-SECRET-TOKEN' | dd of="$LOOP" conv=notrunc status=none 2>/dev/null
	is "$(head -c 17 "$LOOP")" DISK-SECRET-TOKEN "control: the loop device $LOOP reads the token"
	rm -f "$T/s.json"
	out=$( (cd "$WS" && crun --status-file "$T/s.json" -- head -c 17 "$LOOP") 2>&1)
	is "$out" "" "mount layer: a readable disk is covered (an empty file in its place)"
	is "$(json_field "$T/s.json" status '"block_devices_readable" in e["gaps"]')" false "... no gap"
	rm -f "$T/s.json"
	out=$( (cd "$WS" && "$DENY" nons -- "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" \
		-- head -c 17 "$LOOP") 2>&1)
	is "$out/$(json_field "$T/s.json" status '"block_devices_readable" in e["gaps"]')" \
		"DISK-SECRET-TOKEN/true" "no mount layer: the disk reads, and the gap block_devices_readable says so"
	losetup -d "$LOOP"
	trap cleanup EXIT
fi

# A device that reads what the user types or sees (a console's screen or
# input: /dev/vcs1, /dev/tty0, /dev/console...): one of the test's own, a
# pty whose slave is bound over such a name in a mount namespace of the
# helper's (root only; the machine's /dev is untouched), with a line typed
# into it. With the mount layer it is covered; without it the gap
# capture_devices_readable says so.
CAP=("$PY" "$TOP/tests/helpers/capdev.py" wrap CAPTURE-SECRET-LINE --)
capnames=("control: the capture device reads the line typed into it"
	"mount layer: a readable capture device is covered" "... no gap"
	"no mount layer: the device reads, and the gap capture_devices_readable says so"
	"--no-default-deny-read: left readable, no gap"
	"--allow-read DEVICE: that one left readable"
	"the caller's own terminal (on fd 0): never covered"
	"a console the caller only writes to (fd 1): covered"
	"a device gone between the start and the command: the command runs")
if ! is_root; then
	for c in "${capnames[@]}"; do
		skip "$c: needs root (a pty bound over a device name in a mount namespace of the test's own)"
	done
elif ! out=$("${CAP[@]}" sh -c 'timeout 5 head -n1 "$CAPDEV"' 2>"$T/capdev.err") ||
	[ "$out" != CAPTURE-SECRET-LINE ]; then
	for c in "${capnames[@]}"; do
		skip "$c: no capture device of the test's own here ($(head -c 120 "$T/capdev.err"))"
	done
else
	is "$out" CAPTURE-SECRET-LINE "${capnames[0]}"
	rm -f "$T/s.json"
	out=$( (cd "$WS" && "${CAP[@]}" "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" \
		-- sh -c 'timeout 5 head -n1 "$CAPDEV"') 2>&1)
	is "$out" "" "${capnames[1]} (an empty file in its place)"
	is "$(json_field "$T/s.json" status '"capture_devices_readable" in e["gaps"]')" false "${capnames[2]}"
	rm -f "$T/s.json"
	out=$( (cd "$WS" && "${CAP[@]}" "$DENY" nons -- "$CORDON" run --state-dir "$STATE" \
		--status-file "$T/s.json" -- sh -c 'timeout 5 head -n1 "$CAPDEV"') 2>&1)
	is "$out/$(json_field "$T/s.json" status '"capture_devices_readable" in e["gaps"]')" \
		"CAPTURE-SECRET-LINE/true" "${capnames[3]}"
	rm -f "$T/s.json"
	out=$( (cd "$WS" && "${CAP[@]}" "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" \
		--no-default-deny-read -- sh -c 'timeout 5 head -n1 "$CAPDEV"') 2>&1)
	is "$out/$(json_field "$T/s.json" status '"capture_devices_readable" in e["gaps"]')" \
		"CAPTURE-SECRET-LINE/false" "${capnames[4]}"
	out=$( (cd "$WS" && "${CAP[@]}" sh -c '"$0" run --state-dir "$1" --allow-read "$CAPDEV" \
		-- sh -c "timeout 5 head -n1 \"\$CAPDEV\""' "$CORDON" "$STATE") 2>&1)
	is "$out" CAPTURE-SECRET-LINE "${capnames[5]}"
	out=$( (cd "$WS" && "${CAP[@]}" sh -c '"$0" run --state-dir "$1" -- stat -c %F "$CAPDEV" <"$CAPDEV"' \
		"$CORDON" "$STATE") 2>&1)
	is "$out" "character special file" "${capnames[6]}"
	# A console the caller only writes to (a service logging to it) is
	# no terminal of its: what is typed there stays covered.
	out=$( (cd "$WS" && "${CAP[@]}" sh -c '"$0" run --state-dir "$1" -- sh -c \
		"timeout 5 head -n1 \"\$CAPDEV\" >&2; stat -c %F \"\$CAPDEV\" >&2" </dev/null >>"$CAPDEV"' \
		"$CORDON" "$STATE") 2>&1)
	is "$out" "regular empty file" "${capnames[7]}"
	# Unplugged between the run's start and its first command (the
	# library: begin lists it, then it is gone): the command still runs.
	vdev=""
	for n in tty5 tty6 vcs1; do [ -c "/dev/$n" ] && vdev=/dev/$n && break; done
	if [ -z "$vdev" ]; then
		skip "${capnames[8]}: no device here to unplug (tty5, tty6, vcs1)"
	else
		# A sanitized library (make asan) needs its runtime loaded first.
		asanrt=$(ldd "$TOP/$B/libcordon.so" 2>/dev/null | awk '/libasan/ { print $3 }')
		out=$( (cd "$WS" && "$PY" "$TOP/tests/helpers/capdev.py" wrap --placeholder --name console X -- \
			env ${asanrt:+LD_PRELOAD="$asanrt" ASAN_OPTIONS=detect_leaks=0} \
			"$PY" "$TOP/tests/helpers/libvanish.py" "$TOP/$B/libcordon.so" "$STATE" "$vdev" -- \
			sh -c 'exit 7') 2>&1)
		is "$out" "exit 7" "${capnames[8]} ($vdev)"
	fi
fi

# The same device in other places: a console nobody has opened yet
# (tty2: no vcs2; its getty starts when the user switches to it), a
# container's console (a pty bound over an empty regular file, as runc
# and LXC make /dev/console), and one whose pty has the same number as
# the caller's terminal in another devpts instance (the caller's own
# terminal is never covered: it must be told from this one).
for v in "--name tty2:a console not opened yet (tty2)" \
	"--placeholder --name console:a container's console (bound over a regular file)" \
	"--twin --name console:a pty with the caller's terminal's number, from another devpts"; do
	opts=${v%%:*} what=${v#*:}
	# shellcheck disable=SC2086 # opts are words
	if ! is_root; then
		skip "$what: covered: needs root"
	elif ! out=$("$PY" "$TOP/tests/helpers/capdev.py" wrap $opts CAPTURE-SECRET-LINE -- \
		sh -c 'timeout 5 head -n1 "$CAPDEV"' 2>"$T/capdev.err") || [ "$out" != CAPTURE-SECRET-LINE ]; then
		skip "$what: covered: no such device of the test's own here ($(head -c 120 "$T/capdev.err"))"
	else
		# shellcheck disable=SC2086
		out=$( (cd "$WS" && "$PY" "$TOP/tests/helpers/capdev.py" wrap $opts CAPTURE-SECRET-LINE -- \
			"$CORDON" run --state-dir "$STATE" -- sh -c 'timeout 5 head -n1 "$CAPDEV"; stat -c %F "$CAPDEV"') 2>&1)
		is "$out" "regular empty file" "$what: covered (control: the line reads)"
	fi
done

# The kernel's consoles (a serial console ttyS0 on a server, where an
# admin logs in) are covered too: seen by what the name is inside, never
# by reading the machine's console.
kcons=""
kc=()
read -r -a kc </sys/class/tty/console/active 2>/dev/null
for n in "${kc[@]}"; do
	case $n in */* | "") continue ;; esac
	if [ -c "/dev/$n" ] && [ -r "/dev/$n" ] && [ "$(stat -Lc %t:%T "/dev/$n")" != "$(stat -Lc %t:%T /dev/stdin 2>/dev/null)" ]; then
		kcons=/dev/$n
		break
	fi
done
if [ -z "$kcons" ]; then
	skip "the kernel's console is covered: no readable console device here (not root, or none)"
else
	is "$(stat -c %F "$kcons")/$( (cd "$WS" && crun -- stat -c %F "$kcons") 2>&1)" \
		"character special file/regular empty file" "the kernel's console $kcons is covered (an empty file in its place)"
fi

# Explicit --deny-read inside a writable tree without the mount layer:
# refused in required mode.
rm -f "$WS/ran"
(cd "$WS" && "$DENY" nons -- "$CORDON" run --state-dir "$STATE" --sandbox required --deny-read .env -- touch ran) >/dev/null 2>&1
is "$?" 125 "no mount layer, required, explicit --deny-read inside the workspace: refused (exit 125)"
[ ! -e "$WS/ran" ]
ok $? "... and the command did not run"

done_testing

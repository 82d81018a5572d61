#!/usr/bin/env bash
# Inherited fds above 2 are closed before exec unless named by --keep-fd
# (an open fd is a write path Landlock does not see); the environment
# follows design section 5.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

make_fixture "$OUT/log"
before=$(snapshot "$OUT/log")
(cd "$WS" && crun -- sh -c 'echo evil >&5; echo evil > /proc/self/fd/5; ls /proc/self/fd > fds' 5>>"$OUT/log" 6<"$OUT" 2>/dev/null)
unchanged "an inherited write fd is closed" "$OUT/log" "$before"
is "$(sort -n "$WS/fds" | tr '\n' ' ')" "0 1 2 3 " "only 0-2 (and ls's own dir fd) are open in the command"

(cd "$WS" && crun -- sh -c 'cd /proc/self/fd/6 && echo evil > new' 6<"$OUT") 2>/dev/null
[ ! -e "$OUT/new" ]
ok $? "an inherited directory fd is closed too"

rm -f "$T/s.json"
(cd "$WS" && crun --keep-fd 5 --status-file "$T/s.json" -- sh -c 'echo kept >&5' 5>>"$OUT/log")
is "$?:$(tail -n 1 "$OUT/log")" "0:kept" "--keep-fd 5: the named fd stays usable"
is "$(json_field "$T/s.json" status '"kept_fds_not_restricted" in e["gaps"]')" true \
	"--keep-fd is reported as a gap"

# The status fd itself is not leaked to the command.
(cd "$WS" && crun --status-fd 7 -- sh -c 'test -e /proc/self/fd/7 && echo leaked || echo closed' 7>"$T/st") >"$T/o"
is "$(cat "$T/o")" closed "the status fd does not reach the command"
is "$(grep -c bash_sandbox "$T/st")" 2 "two events on the status fd"
# A status reader that has gone away: the exit event's write fails with
# EPIPE, and the SIGPIPE it raises must not kill cordon.
rm -f "$T/rc"
(cd "$WS" && crun --status-fd 3 -- sh -c 'sleep 0.3; exit 3' 3>&1 >/dev/null 2>/dev/null
	echo $? >"$T/rc") | true
is "$(cat "$T/rc")" 3 "a status reader that went away: the command's status, no SIGPIPE death"
# A reader gone before the run began: both events are lost, which cordon
# says once on stderr; the command runs and its status is the run's.
(cd "$WS" && "$PY" -c 'import os, sys
r, w = os.pipe()
os.close(r)
os.dup2(w, 3)
os.execv(sys.argv[1], sys.argv[1:])' "$CORDON" run --state-dir "$STATE" --status-fd 3 -- \
	sh -c 'echo ran >"$0"; exit 3' "$WS/ran") 2>"$T/err"
is "$?:$(cat "$WS/ran")" "3:ran" "a status reader gone from the start: the command ran, its status"
is "$(grep -c 'cordon: warning: cannot write the status events to fd 3 (Broken pipe: its reader has gone)' "$T/err"):$(wc -l <"$T/err")" \
	"1:1" "... and one warning line on stderr for the two events lost"
(cd "$WS" && crun --status-file /dev/full -- sh -c 'exit 4') 2>"$T/err"
is "$?:$(wc -l <"$T/err")" "4:1" "a status file that cannot be written (/dev/full): the command's status, one line"
grep -q "^cordon: warning: cannot write the status events to /dev/full (No space left on device)" "$T/err"
ok $? "... saying why ($(cat "$T/err"))"

# fds 0-2 that point outside the writable set (design: side doors).
has_mount_layer() { crun --status-fd 3 -- true 3>&1 >/dev/null 2>/dev/null | grep -q '"mount_namespace"'; }
make_fixture "$OUT/in" "stdin content"
mkdir -p "$OUT/dir" && touch -d '2001-02-03 04:05:06' "$OUT/dir"
before_in=$(snapshot "$OUT/in")
before_dir=$(snapshot "$OUT/dir")
if has_mount_layer; then
	out=$(cd "$WS" && crun -- "$PY" -c '
import os, sys
data = sys.stdin.read().strip()
for what, f in (("fchmod", lambda: os.fchmod(0, 0o666)), ("futimens", lambda: os.utime(0, None)),
                ("setxattr", lambda: os.setxattr(0, "user.cordon", b"x")),
                ("proc", lambda: os.chmod("/proc/self/fd/0", 0o666))):
    try:
        f(); print(what, "went through")
    except OSError as e:
        print(what, e.errno)
print(data)' <"$OUT/in" 2>&1)
	is "$out" "$(printf 'fchmod 30\nfutimens 30\nsetxattr 30\nproc 30\nstdin content')" \
		"stdin, an outside file: readable, its metadata refused (EROFS)"
	unchanged "stdin, an outside file" "$OUT/in" "$before_in"
else
	skip "no mount layer here: an outside file on fd 0 keeps its metadata changeable (metadata_outside_not_restricted)"
fi
# fd 0 on a file that a private mount of the run hides from the command's
# view (the machine's /tmp, /dev/shm, the home under --scratch-home):
# reopened before the mount hides it, so its metadata stays the machine's
# and the read goes on where the caller's left it. The home outside /tmp
# gives the run its own /tmp (t0190).
META='import os, sys
data = sys.stdin.read().strip()
for what, f in (("fchmod", lambda: os.fchmod(0, 0o666)), ("futimens", lambda: os.utime(0, None)),
                ("fchown", lambda: os.fchown(0, os.getuid(), os.getgid())),
                ("setxattr", lambda: os.setxattr(0, "user.cordon", b"x"))):
    try:
        f(); print(what, "went through")
    except OSError as e:
        print(what, e.errno)
print(data)'
refused=$(printf 'fchmod 30\nfutimens 30\nfchown 30\nsetxattr 30\nsecond line')
hrun() { (cd "$WS" && HOME=/nonexistent "$CORDON" run --state-dir "$STATE" --no-caches "$@"); }
layers_gaps=$(hrun --status-fd 3 -- true 3>&1 >/dev/null 2>/dev/null | "$PY" -c 'import json,sys; e=json.loads(sys.stdin.readline()); print(" ".join(e["layers"]))')
if [[ " $layers_gaps " == *" private_tmp "* ]]; then
	printf 'first line\nsecond line\n' >"$OUT/in-tmp"
	touch -d '2001-02-03 04:05:06' "$OUT/in-tmp"
	before=$(snapshot "$OUT/in-tmp")
	rm -f "$T/s.json"
	out=$({ read -r _; hrun --status-file "$T/s.json" -- "$PY" -c "$META"; } <"$OUT/in-tmp" 2>&1 | cat)
	is "$out" "$refused" "stdin, a file in the machine's /tmp (the run's /tmp is private): the rest of it read, its metadata refused (EROFS)"
	unchanged "stdin, a file in the machine's /tmp" "$OUT/in-tmp" "$before"
	is "$(json_field "$T/s.json" status '["stdio_metadata_not_restricted" in e["gaps"], "private_tmp" in e["layers"]]')" \
		"[false, true]" "... and no stdio_metadata_not_restricted gap (the run had its own /tmp)"
	LIB=$TOP/$B/libcordon.so
	if [ -e "$LIB" ]; then
		out=$( (cd "$WS" && HOME=/nonexistent LD_PRELOAD=$(ldd "$LIB" 2>/dev/null | awk '/libasan/ { print $3 }') \
			ASAN_OPTIONS=detect_leaks=0 "$PY" "$TOP/tests/helpers/libspawns.py" "$LIB" "$STATE" -- true \
			--then "$PY" -c 'import os; os.fchmod(0, 0o666)') <"$OUT/in-tmp" 2>&1)
		is "$(echo "$out" | grep -c '^exit 1$'):$(echo "$out" | grep -c 'Errno 30')" "1:1" \
			"a library run's second spawn, fd 0 in the machine's /tmp: its metadata refused too"
		unchanged "... the file" "$OUT/in-tmp" "$before"
	else
		skip "a library run's second spawn: no $LIB"
	fi
else
	skip "stdin in the machine's /tmp: no private /tmp here"
fi
if [[ " $layers_gaps " == *" mount_namespace "* ]]; then
	shm=/dev/shm/cordon-t-$$-$RANDOM
	if printf 'first line\nsecond line\n' >"$shm" 2>/dev/null; then
		before=$(snapshot "$shm")
		out=$({ read -r _; hrun -- "$PY" -c "$META"; } <"$shm" 2>&1 | cat)
		is "$out" "$refused" "stdin, a file in the machine's /dev/shm (the run's is private): read, its metadata refused"
		unchanged "stdin, a file in the machine's /dev/shm" "$shm" "$before"
		rm -f "$shm"
	else
		skip "stdin in the machine's /dev/shm: cannot make a file there"
	fi
	mkdir -p "$HOME" && printf 'first line\nsecond line\n' >"$HOME/in-home"
	before=$(snapshot "$HOME/in-home")
	out=$( (cd "$WS" && { read -r _; crun --scratch-home -- "$PY" -c "$META"; } <"$HOME/in-home") 2>&1 | cat)
	is "$out" "$refused" "stdin, a file in the home under --scratch-home: read (it started), its metadata refused"
	unchanged "stdin, a file in the home under --scratch-home" "$HOME/in-home" "$before"
else
	skip "stdin in /dev/shm and the scratch home: no mount layer here"
fi
out=$(cd "$WS" && crun -- sh -c 'readlink /proc/self/fd/0; touch /proc/self/fd/0/new; chmod 0777 /proc/self/fd/0/.' <"$OUT/dir" 2>/dev/null)
is "$(echo "$out" | head -n 1)" /dev/null "stdin, an outside directory: replaced by /dev/null"
unchanged "stdin, an outside directory" "$OUT/dir" "$before_dir"
(cd "$WS" && crun -- sh -c "$PY -c 'import os, sys; print(os.readlink(\"/proc/self/fd/1\"), file=sys.stderr)'; chmod 0777 /proc/self/fd/1/." 1<"$OUT/dir" 2>"$T/o")
is "$(head -n 1 "$T/o")" /dev/null "stdout, an outside directory: replaced by /dev/null"
unchanged "stdout, an outside directory" "$OUT/dir" "$before_dir"
rm -f "$T/s.json"
(cd "$WS" && crun --status-file "$T/s.json" -- echo to-outside >"$OUT/o")
is "$(cat "$OUT/o")" to-outside "stdout, an outside file: the output goes there"
if has_mount_layer; then
	is "$(json_field "$T/s.json" status '"stdio_metadata_not_restricted" in e["gaps"]')" true \
		"... and its metadata gap is reported"
else
	skip "no mount layer: metadata_outside_not_restricted covers it"
fi
rm -f "$T/s.json"
(cd "$WS" && crun --status-file "$T/s.json" -- echo inside >"$WS/o" 2>"$WS/e" </dev/null)
is "$(json_field "$T/s.json" status '"stdio_metadata_not_restricted" in e["gaps"]')" false \
	"stdio inside the writable set or devices: no gap"
# The host's /dev/shm (the command's is its own) is reopened before the
# private one hides it (above); a deleted file cannot be reopened: it
# stays, the start event says stdio_metadata_not_restricted, and the run
# works.
shm=/dev/shm/cordon-t0070-$$
if [ -d /dev/shm ] && echo shm-in >"$shm" 2>/dev/null; then
	out=$(cd "$WS" && crun -- cat <"$shm")
	is "$?:$out" "0:shm-in" "stdin from the host's /dev/shm: still read"
	rm -f "$shm"
else
	skip "/dev/shm is not writable here"
fi
exec 8<"$OUT/in"
rm "$OUT/in"
rm -f "$T/s.json"
out=$(cd "$WS" && crun --status-file "$T/s.json" -- cat <&8 2>&1)
is "$?:$out" "0:stdin content" "stdin, a deleted outside file: still read"
if has_mount_layer; then
	is "$(json_field "$T/s.json" status '"stdio_metadata_not_restricted" in e["gaps"]')" true \
		"... and, not reopened, its metadata gap is reported"
else
	skip "no mount layer: metadata_outside_not_restricted covers it"
fi
exec 8<&-

# Devices and named FIFOs on fds 0-2 are reopened through the command's
# read-only view: their metadata cannot change (the host's /dev/null as
# root, the caller's terminal). The device and the FIFO here are the
# test's own, in $OUT.
mkfifo "$OUT/fifo"
chmod 0644 "$OUT/fifo"
before_fifo=$(snapshot "$OUT/fifo")
if has_mount_layer; then
	exec 7<>"$OUT/fifo" # a reader, so the writer's open does not wait
	out=$(cd "$WS" && crun -- "$PY" -c '
import os, sys
try:
    os.fchmod(1, 0o600); print("fchmod went through", file=sys.stderr)
except OSError as e:
    print(e.errno, file=sys.stderr)
print("through the fifo")' 2>&1 >"$OUT/fifo")
	read -r got <&7
	exec 7<&-
	is "$out|$got" "30|through the fifo" "stdout, an outside FIFO: written through, its metadata refused (EROFS)"
	unchanged "stdout, an outside FIFO" "$OUT/fifo" "$before_fifo"
	if is_root && mknod "$OUT/null" c 1 3 2>/dev/null; then
		chmod 0666 "$OUT/null"
		before_null=$(snapshot "$OUT/null")
		out=$(cd "$WS" && crun -- "$PY" -c '
import os, sys
r = []
for what, f in (("fchmod", lambda: os.fchmod(0, 0o600)), ("fchown", lambda: os.fchown(0, 1, 1)),
                ("utime", lambda: os.utime(0, (1, 1)))):
    try:
        f(); r.append(what + " went through")
    except OSError as e:
        r.append(what + " " + str(e.errno))
print(", ".join(r), repr(sys.stdin.read()))' <"$OUT/null")
		is "$out" "fchmod 30, fchown 30, utime 30 ''" "stdin, a device outside (as root): readable, its metadata refused"
		unchanged "stdin, a device outside" "$OUT/null" "$before_null"
	else
		skip "a device node of the test's own needs root (mknod)"
	fi
else
	skip "no mount layer here: devices and FIFOs on fds 0-2 keep their metadata changeable (metadata_outside_not_restricted)"
fi
# An O_PATH fd on stdio (a path, no file): replaced by /dev/null.
ln -s "$OUT/in" "$OUT/link0"
out=$(cd "$WS" && "$PY" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_PATH | os.O_NOFOLLOW)
os.dup2(fd, 0)
os.execvp(sys.argv[2], sys.argv[2:])' "$OUT/link0" "$CORDON" run --state-dir "$STATE" -- readlink /proc/self/fd/0)
is "$out" /dev/null "stdin, an O_PATH fd (a symlink outside): replaced by /dev/null"

# Environment.
export TMPDIR=/inherited/tmp KEEP_ME=yes OTHER=other LC_ALL=C.UTF-8
(cd "$WS" && crun -- sh -c 'echo "$TMPDIR|$KEEP_ME|$OTHER"') >"$T/o"
case $(cat "$T/o") in
"$STATE"/runs/*"|yes|other") ok 0 "TMPDIR is the run's dir; the rest passes" ;;
*) ok 1 "TMPDIR is the run's dir; the rest passes"; diag "$(cat "$T/o")" ;;
esac
(cd "$WS" && env -i PATH="$PATH" HOME="$HOME" LC_ALL=C.UTF-8 KEEP_ME=yes OTHER=s \
	TMPDIR=/inherited "$CORDON" run --state-dir "$STATE" --no-caches --clean-env -- env) >"$T/o"
names=$(cut -d= -f1 "$T/o" | sort | tr '\n' ' ')
is "$names" "CORDON_RUN_ID HOME LC_ALL PATH TMPDIR " \
	"--clean-env passes only the allow-list (+ cordon's TMPDIR and CORDON_RUN_ID)"
# With the caches, what --clean-env adds is exactly the variables cordon
# set to move a missing cache (the start event names each).
(cd "$WS" && env -i PATH="$PATH" HOME="$HOME" LC_ALL=C.UTF-8 KEEP_ME=yes \
	"$CORDON" run --state-dir "$STATE" --status-file "$T/ce.json" --clean-env -- env) >"$T/o"
extra=$(cut -d= -f1 "$T/o" | grep -vxE 'CORDON_RUN_ID|HOME|LC_ALL|PATH|TMPDIR' | sort | tr '\n' ' ')
set_vars=$(json_field "$T/ce.json" status '" ".join(sorted({c["variable"] for c in (e["caches"] or []) if c["variable"]}))')
is "$extra" "${set_vars:+$set_vars }" "--clean-env with caches: beyond the allow-list, only the variables the start event says cordon set"
(cd "$WS" && crun --clean-env --env KEEP_ME --env NEW=v -- sh -c 'echo "${KEEP_ME-unset}|$NEW|${OTHER-unset}"') >"$T/o"
is "$(cat "$T/o")" "yes|v|unset" "--env NAME passes, --env NAME=VALUE sets, the rest stays out"
(cd "$WS" && crun --env TMPDIR="$WS" -- sh -c 'echo "$TMPDIR"') >"$T/o"
is "$(cat "$T/o")" "$WS" "an explicit --env TMPDIR=... wins"
(cd "$WS" && crun --clean-env --env TMPDIR -- sh -c 'echo "$TMPDIR"') >"$T/o"
is "$(cat "$T/o")" "/inherited/tmp" "an explicit --env TMPDIR passes the caller's"
(cd "$WS" && crun --env KEEP_ME=one --env KEEP_ME=two -- sh -c 'env | grep -c ^KEEP_ME=; echo $KEEP_ME') >"$T/o"
is "$(tr '\n' ' ' <"$T/o")" "1 two " "the last --env for a name wins, no duplicates"

# Secrets in the environment: with the default deny-read list, the names
# of cordon_default_deny_env() stay out of the command's environment; the
# start event names them, never their values. An environment of the
# test's own (env -i), so that the caller's has no say.
tok=cordon-env-secret-$$
senv() { # replaces the (sub)shell it runs in
	exec env -i PATH="$PATH" HOME="$HOME" LC_ALL=C.UTF-8 GITHUB_TOKEN="$tok-gh" \
		ANTHROPIC_API_KEY="$tok-ant" TOKENIZERS_PARALLELISM=false \
		SSH_AUTH_SOCK=/nonexistent/agent.sock GPG_TTY=/dev/null "$@"
}
shown() { # "ran:" when the command printed its env, then what it shows of the secrets
	grep -q -x TOKENIZERS_PARALLELISM=false "$T/o" && printf 'ran: '
	grep -o -e "$tok-[a-z]*" -e GITHUB_TOKEN -e ANTHROPIC_API_KEY "$T/o" | LC_ALL=C sort | tr '\n' ' '
}
removed() { json_field "$T/s.json" status 'e["env_removed"]'; }
senv_run() { # senv_run CORDON-ARGS... -- CMD...: output in $T/o, events in $T/s.json
	rm -f "$T/s.json"
	(cd "$WS" && senv "$CORDON" run --state-dir "$STATE" --status-file "$T/s.json" "$@") >"$T/o"
}

senv_run --sandbox off -- env
is "$(shown)" "ran: ANTHROPIC_API_KEY GITHUB_TOKEN $tok-ant $tok-gh " \
	"control (--sandbox off): both secrets reach the command, names and values"
is "$(removed)" "[]" "--sandbox off: env_removed is empty"
senv_run -- env
is "$(shown)" "ran: " "confined: neither GITHUB_TOKEN nor ANTHROPIC_API_KEY reaches the command, nor their values"
is "$(grep -c -x -e TOKENIZERS_PARALLELISM=false -e SSH_AUTH_SOCK=/nonexistent/agent.sock \
	-e GPG_TTY=/dev/null -e LC_ALL=C.UTF-8 -e "HOME=$HOME" "$T/o")" 5 \
	"TOKENIZERS_PARALLELISM, SSH_AUTH_SOCK, GPG_TTY, LC_ALL, HOME pass"
is "$(removed)" '["GITHUB_TOKEN", "ANTHROPIC_API_KEY"]' "the start event lists the removed names"
is "$(json_field "$T/s.json" status 'e["applied"]')" true "(confinement applied)"
is "$(grep -c -e "$tok" "$T/s.json")" 0 "the status file holds no value of a secret"
# Nor from another process of the user that holds them (Landlock's
# ptrace rule covers /proc/PID/environ).
senv sleep 60 &
holder=$!
senv_run --sandbox off -- sh -c 'tr "\0" "\n" <"$1"' sh "/proc/$holder/environ"
is "$(shown)" "ran: ANTHROPIC_API_KEY GITHUB_TOKEN $tok-ant $tok-gh " \
	"control (--sandbox off): /proc/PID/environ of a process holding them shows them"
senv_run -- sh -c 'tr "\0" "\n" <"$1"' sh "/proc/$holder/environ" 2>/dev/null
is "$(shown)" "" "confined: /proc/PID/environ of that process shows nothing"
kill "$holder"
wait "$holder" 2>/dev/null
senv_run --env GITHUB_TOKEN -- env
is "$(shown)" "ran: GITHUB_TOKEN $tok-gh " "--env GITHUB_TOKEN passes that one (its value), not the other"
is "$(removed)" '["ANTHROPIC_API_KEY"]' "--env GITHUB_TOKEN: only ANTHROPIC_API_KEY is listed removed"
senv_run --env GITHUB_TOKEN=given -- sh -c 'echo "$GITHUB_TOKEN"'
is "$(cat "$T/o")" given "--env GITHUB_TOKEN=VALUE sets it"
senv_run --clean-env --env GITHUB_TOKEN --env TOKENIZERS_PARALLELISM -- env
is "$(shown)" "ran: GITHUB_TOKEN $tok-gh " "--clean-env --env GITHUB_TOKEN passes it"
senv_run --no-default-deny-read -- env
is "$(shown)" "ran: ANTHROPIC_API_KEY GITHUB_TOKEN $tok-ant $tok-gh " "--no-default-deny-read passes every secret"
is "$(removed)" "[]" "--no-default-deny-read: env_removed is empty"
# auto without Landlock (the kernel calls fail ENOSYS): unconfined, yet
# the environment is the one a confined run gets.
rm -f "$T/s.json"
(cd "$WS" && senv "$HELPERS/seccomp-deny" enosys -- "$CORDON" run --state-dir "$STATE" \
	--status-file "$T/s.json" -- env) >"$T/o" 2>"$T/err"
is "$(json_field "$T/s.json" status 'e["applied"]')" false "(auto without Landlock: unconfined)"
is "$(shown)" "ran: " "auto, unconfined: the secrets stay out all the same"
is "$(removed)" '["GITHUB_TOKEN", "ANTHROPIC_API_KEY"]' "auto, unconfined: the start event lists them"
is "$(grep -c -e "$tok" "$T/s.json" "$T/err" | tr '\n' ' ')" "$T/s.json:0 $T/err:0 " \
	"auto, unconfined: no value in the status file nor on stderr"

# The 24 secret names an attacker's review found reaching the command
# (issue 35): npm's and Gradle's camelCase keys, more words, and git's
# configuration carrying an HTTP header or a credential.
secret_env=(
	"npm_config__authToken=$tok-1" "NPM_CONFIG__AUTHTOKEN=$tok-2"
	"npm_config_//registry.npmjs.org/:_authToken=$tok-3" "npm_config__auth=$tok-4"
	"ORG_GRADLE_PROJECT_signingKey=$tok-5" "ORG_GRADLE_PROJECT_signingPassword=$tok-6"
	"ORG_GRADLE_PROJECT_mavenCentralPassword=$tok-7" "ORG_GRADLE_PROJECT_githubToken=$tok-8"
	"GPG_PASSPHRASE=$tok-9" "AZURE_DEVOPS_EXT_PAT=$tok-10" "GH_PAT=$tok-11"
	"RAILS_MASTER_KEY=$tok-12" "SECRET_KEY_BASE=$tok-13" "DOCKER_AUTH_CONFIG=$tok-14"
	"AZURE_STORAGE_CONNECTION_STRING=$tok-15" "APPLICATIONINSIGHTS_CONNECTION_STRING=$tok-16"
	"SUPABASE_JWT=$tok-17" "SENTRY_DSN=https://$tok-18@o1.ingest.sentry.io/1"
	"GIT_CONFIG_PARAMETERS='http.extraheader'='AUTHORIZATION: basic $tok-19'"
	"GIT_CONFIG_COUNT=2" "GIT_CONFIG_KEY_0=safe.directory" "GIT_CONFIG_VALUE_0=*"
	"GIT_CONFIG_KEY_1=http.https://example.invalid/.extraHeader"
	"GIT_CONFIG_VALUE_1=Authorization: Bearer $tok-24"
)
names24=$(printf '%s\n' "${secret_env[@]}" | cut -d= -f1 | tr '\n' ' ')
rm -f "$T/s.json"
(cd "$WS" && env -i PATH="$PATH" HOME="$HOME" "${secret_env[@]}" "$CORDON" run --state-dir "$STATE" \
	--sandbox off -- env) >"$T/o"
got=0
for v in "${secret_env[@]}"; do
	grep -q -F -x -e "$v" "$T/o" && got=$((got + 1))
done
is "$got" 24 "control (--sandbox off): the 24 variables reach the command"
(cd "$WS" && env -i PATH="$PATH" HOME="$HOME" "${secret_env[@]}" "$CORDON" run --state-dir "$STATE" \
	--status-file "$T/s.json" -- env) >"$T/o"
got=""
for v in "${secret_env[@]}"; do
	grep -q -F -x -e "$v" "$T/o" && got="$got ${v%%=*}"
done
is "$got:$(grep -c -e "$tok" "$T/o")" ":0" "confined: none of the 24 names reaches the command, nor any value"
is "$(json_field "$T/s.json" status '" ".join(e["env_removed"]) + " "')" "$names24" \
	"the start event lists the 24 names removed"
is "$(grep -c -e "$tok" "$T/s.json")" 0 "... and none of their values"
rm -f "$T/s.json"
(cd "$WS" && env -i PATH="$PATH" HOME="$HOME" GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory \
	GIT_CONFIG_VALUE_0='*' "$CORDON" run --state-dir "$STATE" -- sh -c 'git config --get safe.directory') >"$T/o" 2>&1
is "$(cat "$T/o")" "*" "git's configuration without a secret (safe.directory) still reaches git"

done_testing

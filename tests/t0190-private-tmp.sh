#!/usr/bin/env bash
# A private /tmp and /var/tmp: with the mount layer the run's temp dir is
# bound on both, so programs that write /tmp by name (tmpfile(3), Lua's
# os.tmpname, scripts) work; nothing of the machine's /tmp is visible
# inside and nothing written there reaches it; a library run's spawns
# share it; without the mount layer the gap tmp_shared_read_only says so.
# The test's dir, its workspace, home and state dir in the machine's /tmp.
CORDON_T_BASE=/tmp
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
need_landlock

# The helper is copied into the workspace: a program in the machine's /tmp
# is not visible inside.
cp "$HELPERS/tmpwrite" "$WS/tmpwrite"
TW=$WS/tmpwrite
# The test's home (in /tmp here) is shown read-only in the run's own /tmp
# (t0191). Here the home is elsewhere and no cache is made for it: nothing
# of $T but the workspace and the state dir is there.
prun() { (cd "$WS" && HOME=/nonexistent "$CORDON" run --state-dir "$STATE" --no-caches "$@"); }
# A sanitized library's runtime must come first (make asan).
asan_rt() { ldd "$TOP/$B/libcordon.so" 2>/dev/null | awk '/libasan/ { print $3 }'; }
# Unique names in the machine's temp dirs, removed at the end.
u=cordon-ptmp-$$-$RANDOM
OUTSIDE=("/tmp/$u.outside" "/tmp/$u.a" "/var/tmp/$u.b" "/tmp/$u.lua" "/tmp/$u.lib" "/tmp/$u.in")
trap 'rm -f "${OUTSIDE[@]}"; cleanup' EXIT

LAYERS=$("$CORDON" probe --json | "$PY" -c 'import json,sys; print(" ".join(json.load(sys.stdin)["layers"]))')
case " $LAYERS " in
*" mount_namespace "*) ;;
*) skip_all "no mount layer here ($LAYERS)" ;;
esac

# ---- the command writes /tmp and /var/tmp by name ---------------------------
out=$(prun --status-file "$T/s.json" -- "$TW" "$u.a" "$u.b" 2>&1)
is "$out" ok "tmpfile(3), /tmp/NAME and /var/tmp/NAME work confined"
[ ! -e "/tmp/$u.a" ] && [ ! -e "/var/tmp/$u.b" ]
ok $? "nothing written to /tmp or /var/tmp inside reaches the machine's"
is "$(json_field "$T/s.json" status 'e["private_tmp"] and [p["path"] for p in e["private_tmp"]]')" \
	'["/tmp", "/var/tmp"]' "the status event lists the private /tmp and /var/tmp"
is "$(json_field "$T/s.json" status '[p["source"] == e["tmpdir"] for p in e["private_tmp"]]')" \
	'[true, true]' "each is the run's temp dir"
is "$(json_field "$T/s.json" status '[w for w in e["writable"] if w in ("/tmp", "/var/tmp")]')" \
	'["/tmp", "/var/tmp"]' "the writable list shows them"
is "$(json_field "$T/s.json" status '"private_tmp" in e["layers"] and "tmp_shared_read_only" not in e["gaps"]')" \
	true "the layer private_tmp is listed, the gap is not"
[ ! -e "$(json_field "$T/s.json" status 'e["tmpdir"]')" ]
ok $? "the private /tmp is removed with the run"

# The control: unconfined the same program writes the machine's /tmp.
out=$(prun --sandbox off -- "$TW" "$u.a" "$u.b" 2>&1)
[ "$out" = ok ] && [ -e "/tmp/$u.a" ] && [ -e "/var/tmp/$u.b" ]
ok $? "control: unconfined, it writes the machine's /tmp and /var/tmp"
rm -f "/tmp/$u.a" "/var/tmp/$u.b"

# ---- the machine's /tmp is not visible inside --------------------------------
echo secret-of-another-process >"/tmp/$u.outside"
before=$(snapshot "/tmp/$u.outside")
out=$(prun -- sh -c "cat /tmp/$u.outside 2>/dev/null || echo absent; ls -A /tmp | grep -c '^$u' ;
	echo mine > /tmp/$u.outside && cat /tmp/$u.outside" 2>&1)
is "$(echo "$out" | tr '\n' ' ')" "absent 0 mine " \
	"a file of the machine's /tmp is invisible; the run's own of the same name is its own"
unchanged "the machine's /tmp file" "/tmp/$u.outside" "$before"
out=$(cd "$WS" && HOME=/nonexistent "$CORDON" run --sandbox off -- cat "/tmp/$u.outside")
is "$out" secret-of-another-process "control: unconfined, the file is there"

# A workspace in /tmp (this one) is there at its own path, writable, and
# ".." from it shows the run's /tmp, not the machine's.
# (Of the test's dir, only the workspace and the state dir, which holds the
# run's dir, are there.)
out=$(prun -- sh -c "echo w > '$WS/$u.ws' && cat ../../$u.outside 2>/dev/null; ls -A ..; pwd")
is "$(echo "$out" | tr '\n' ' ')" "state ws $WS " \
	"the workspace in /tmp is carried in; '..' leads into the run's /tmp"
[ -s "$WS/$u.ws" ]
ok $? "a write into the workspace in /tmp reaches it"

# stdin from a file of the machine's /tmp: still read (the fd is kept).
echo from-stdin >"/tmp/$u.in"
out=$(prun -- cat <"/tmp/$u.in" 2>&1)
is "$out" from-stdin "stdin from a file in the machine's /tmp is read"

# Sockets in the private /tmp: a server and a client of the run.
out=$(prun -- "$PY" -c '
import os, socket
p = "/tmp/s.sock"
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(p)
a, _ = s.accept(); c.send(b"hi"); print(a.recv(2).decode())' 2>&1)
is "$out" hi "a Unix socket in the private /tmp is reachable by the run"

# Lua's os.tmpname() names /tmp/lua_XXXXXX whatever TMPDIR says.
LUA=$(command -v lua5.4 || command -v lua5.3 || command -v lua)
if [ -n "$LUA" ]; then
	out=$(prun -- "$LUA" -e 'local n = os.tmpname(); local f = assert(io.open(n, "w")); f:write("x"); f:close()
		local t = assert(io.tmpfile()); t:write("y"); print(n:sub(1, 5), "ok")' 2>&1)
	is "$out" "/tmp/	ok" "Lua's os.tmpname() and io.tmpfile() work confined"
else
	skip "no lua installed (apt-get install lua5.4)"
fi

# ---- what writes where (docs/compatibility.md) ---------------------------------
# Where each tool makes a temp file by default, confined: in TMPDIR (the
# run's dir under STATE/runs) or in /tmp by name (the run's own here).
where() { # where TOOL WANT PROGRAM [ARG...]: PROGRAM prints the temp file's path
	local tool=$1 want=$2 got
	shift 2
	if ! command -v "$1" >/dev/null; then
		skip "$tool: $1 is not installed"
		return
	fi
	got=$(prun -- "$@" 2>&1 | tail -1)
	case $got in
	"$STATE"/runs/*) got=TMPDIR ;;
	/tmp/*) got=/tmp ;;
	esac
	is "$got" "$want" "$tool makes its temp files in $want"
}
where "mktemp" TMPDIR mktemp
where "Python tempfile" TMPDIR "$PY" -c 'import tempfile; print(tempfile.mkstemp()[1])'
where "Node os.tmpdir()" TMPDIR node -e \
	'const fs = require("fs"), os = require("os"); console.log(fs.mkdtempSync(os.tmpdir() + "/x"))'
where "Perl File::Temp" TMPDIR perl -MFile::Temp=tempfile -e '(undef, my $f) = tempfile(TMPDIR => 1); print "$f\n"'
where "glibc tmpfile(3)" /tmp "$PY" -c 'import ctypes, os
libc = ctypes.CDLL(None); libc.tmpfile.restype = ctypes.c_void_p; libc.fileno.argtypes = [ctypes.c_void_p]
print(os.readlink("/proc/self/fd/%d" % libc.fileno(libc.tmpfile())))'
where "Lua os.tmpname()" /tmp "${LUA:-lua5.4}" -e 'print(os.tmpname())'
cat >"$WS/T.java" <<'EOF'
public class T {
	public static void main(String[] a) throws Exception {
		System.out.println(java.io.File.createTempFile("where", ".x").getPath());
	}
}
EOF
where "Java File.createTempFile" /tmp java "$WS/T.java"

# ---- a library run: one private /tmp for all its commands -------------------
LIB=$TOP/$B/libcordon.so
if [ -e "$LIB" ]; then
	out=$(cd "$WS" && HOME=/nonexistent LD_PRELOAD=$(asan_rt) ASAN_OPTIONS=detect_leaks=0 "$PY" "$TOP/tests/helpers/libspawns.py" "$LIB" "$STATE" -- \
		sh -c "echo kept > /tmp/$u.lib" --then sh -c "cat /tmp/$u.lib" 2>&1)
	is "$(echo "$out" | sed 1d | tr '\n' ' ')" "exit 0 kept exit 0 end 0 " \
		"a library run's second command reads what its first left in /tmp"
	[ ! -e "/tmp/$u.lib" ]
	ok $? "the library run's /tmp file never reached the machine's"
	tmpd=$(echo "$out" | sed -n 's/^tmpdir //p')
	[ -n "$tmpd" ] && [ ! -e "$tmpd" ]
	ok $? "the library run's private /tmp is removed at its end"
else
	skip "no $LIB"
fi

# ---- where the machine's /tmp stays: the gap --------------------------------
# Without the mount layer.
rm -f "$T/s.json"
out=$( (cd "$WS" && HOME=/nonexistent "$HELPERS/seccomp-deny" nons -- "$CORDON" run --state-dir "$STATE" \
	--no-caches --status-file "$T/s.json" --explain=full -- "$TW" "$u.a" "$u.b") 2>&1)
case $out in
"tmpfile: "*) ok 0 "no mount layer: tmpfile(3) fails" ;;
*) ok 1 "no mount layer: tmpfile(3) fails" && diag "$out" ;;
esac
is "$(json_field "$T/s.json" status '"tmp_shared_read_only" in e["gaps"] and e["private_tmp"] == []')" \
	true "no mount layer: the gap tmp_shared_read_only, no private_tmp"
case $out in
*"cordon: explain:"*"(tmp_shared_read_only: no mount layer here: cordon probe says why)"*)
	ok 0 "--explain names tmp_shared_read_only and why" ;;
*) ok 1 "--explain names tmp_shared_read_only and why" && diag "$out" ;;
esac
[ ! -e "/tmp/$u.a" ]
ok $? "no mount layer: the machine's /tmp is unchanged"

# open_tree(2)/move_mount(2) refused: the mount layer stays, this one goes.
rm -f "$T/s.json"
out=$( (cd "$WS" && HOME=/nonexistent "$HELPERS/seccomp-deny" nomountapi -- "$CORDON" run \
	--state-dir "$STATE" --no-caches --status-file "$T/s.json" --explain=full -- sh -c 'echo ran; exit 1') 2>&1)
case $out in
"ran"*"(tmp_shared_read_only: the mount layer could not make one: open_tree(2) or move_mount(2) refused)"*)
	ok 0 "open_tree refused: the command runs; --explain says why /tmp is the machine's" ;;
*) ok 1 "open_tree refused: the command runs; --explain says why /tmp is the machine's" && diag "$out" ;;
esac
is "$(json_field "$T/s.json" status '"mount_namespace" in e["layers"] and "private_tmp" not in e["layers"] and "tmp_shared_read_only" in e["gaps"]')" \
	true "open_tree refused: the mount layer stays; the gap is reported"

# A home in /tmp (as this test's own): a private /tmp all the same,
# the home shown in it read-only (tests/t0191-private-tmp-trees.sh).
rm -f "$T/s.json"
(cd "$WS" && crun --no-caches --status-file "$T/s.json" -- true)
is "$(json_field "$T/s.json" status '[p["path"] for p in e["private_tmp"]], "tmp_shared_read_only" in e["gaps"], "'"$HOME"'" in e["private_tmp"][0]["shown"]')" \
	'[["/tmp", "/var/tmp"], false, true]' "a home in /tmp: /tmp is private all the same, the home shown in it"

# --allow-write /var/tmp: the machine's, writable, as asked.
rm -f "$T/s.json"
prun --allow-write /var/tmp --status-file "$T/s.json" -- sh -c "echo x > /var/tmp/$u.b"
[ -e "/var/tmp/$u.b" ]
ok $? "--allow-write /var/tmp writes the machine's /var/tmp"
is "$(json_field "$T/s.json" status '[p["path"] for p in e["private_tmp"]], "tmp_shared_read_only" in e["gaps"]')" \
	'[["/tmp"], false]' "--allow-write /var/tmp: no private /var/tmp, no gap"

done_testing

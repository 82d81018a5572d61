#!/usr/bin/python3
"""A test suite of a program that talks to a local server, for bench/run's
workload rows: N small tests, each a client of an echo server (a child
process: `socksuite.py --serve N`) on a Unix socket in the current
directory.

    socksuite.py [N]      (N = 10000 tests)

Each test opens its own connection, sends a request, checks the answer
and closes; a failed test is reported as TAP does ("not ok"). Exits 1 if
any test failed. No test framework: the load is the tests and the
sockets, the same outside and inside a sandbox.
"""
import os
import socket
import subprocess
import sys

PATH = "socksuite.sock"


def serve(n):
    if os.path.exists(PATH):
        os.unlink(PATH)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(PATH)
    srv.listen(128)
    print("ready", flush=True)
    for _ in range(n):
        c, _ = srv.accept()
        with c:
            req = c.recv(256)
            c.sendall(b"echo:" + req)
    srv.close()
    os.unlink(PATH)


def make_test(i):
    def test():
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
            c.connect(PATH)
            req = b"request %d" % i
            c.sendall(req)
            got = c.recv(256)
        assert got == b"echo:" + req, got
    return test


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]))
        return 0
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(n)],
                              stdout=subprocess.PIPE)
    if server.stdout.readline() != b"ready\n":
        raise SystemExit("socksuite: the server did not start")
    tests = [make_test(i) for i in range(n)]
    failed = 0
    for i, t in enumerate(tests, 1):
        try:
            t()
        except Exception as e:  # a test's failure, reported like TAP's
            failed += 1
            print(f"not ok {i} - {e!r}")
    if server.wait(timeout=60) != 0:
        failed += 1
        print("not ok - the server failed")
    print(f"1..{n}\n# {n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""bench/review.py: what --review costs (issue 38), measured in one run.

Each workload runs confined (`cordon run`) and confined with `--review`,
the two ways interleaved round by round, and prints the medians and their
ratio (target: --review <= 1.2x the confined run's wall time):

  npm ci     a real project (express, typescript, eslint, lodash, chalk,
             commander, jest: several hundred packages) with a warm npm cache:
             its lock and cache are made once before the rounds (the npm
             registry must be reachable then)
  C build    zlib's Debian source (./configure && make -j2), from a tree
             extracted afresh before each build; ZLIB_SRC names the
             directory holding the unpacked source (else it is fetched
             with apt-get source into a private apt state)
  apply      `cordon apply` of a held run of 10,000 new files in 100 dirs,
             and for scale the run that made them

Each --review run's held changes are discarded (not timed) before the
next round. Settings: BENCH_REVIEW_RUNS (5), CORDON (build/cordon),
BENCH_REVIEW_SKIP (npm,zlib,apply).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORDON = os.environ.get("CORDON", os.path.join(TOP, "build", "cordon"))
RUNS = int(os.environ.get("BENCH_REVIEW_RUNS", "5"))
SKIP = os.environ.get("BENCH_REVIEW_SKIP", "").split(",")
W = tempfile.mkdtemp(prefix="cordon-bench-review.")
STATE = os.path.join(W, "state")
ENV = dict(os.environ, npm_config_cache=os.path.join(W, "npm-cache"),
           npm_config_audit="false", npm_config_fund="false",
           npm_config_update_notifier="false")


def run(argv, cwd, check=True):
    t0 = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    dt = time.monotonic() - t0
    if check and p.returncode != 0:
        sys.exit("bench/review: %s failed (%d): %s" %
                 (" ".join(argv), p.returncode, p.stderr.decode()[-2000:]))
    return dt


def confined(ws, cmd, review):
    status = os.path.join(W, "status.json")
    if os.path.exists(status):
        os.unlink(status)
    argv = [CORDON, "run", "--state-dir", STATE, "--status-file", status, "-w", ws]
    if review:
        argv.append("--review")
    dt = run(argv + ["--", "sh", "-c", cmd], ws)
    rid = None
    with open(status) as f:
        for line in f:
            e = json.loads(line)
            rid = e.get("run_id", rid)
            if e["event"] == "bash_sandbox_exit" and review:
                assert e["review"]["held"], e
    return dt, rid


def compare(name, prepare, ws, cmd):
    plain, held = [], []
    for _ in range(RUNS):
        for review in (False, True):
            prepare()
            dt, rid = confined(ws, cmd, review)
            (held if review else plain).append(dt)
            if review:
                run([CORDON, "discard", "--state-dir", STATE, rid], ws)
    a, b = statistics.median(plain), statistics.median(held)
    return {"name": name, "confined_s": round(a, 3), "review_s": round(b, 3),
            "ratio": round(b / a, 3), "runs": RUNS}


def npm_rows():
    proj = os.path.join(W, "npm")
    os.makedirs(proj)
    with open(os.path.join(proj, "package.json"), "w") as f:
        json.dump({"name": "bench", "version": "1.0.0", "private": True,
                   "dependencies": {"express": "4.21.2", "lodash": "4.17.21",
                                    "chalk": "4.1.2", "commander": "12.1.0"},
                   "devDependencies": {"typescript": "5.6.3", "eslint": "8.57.1",
                                       "jest": "29.7.0"}}, f)
    run(["npm", "install", "--no-audit", "--no-fund"], proj)  # the lock, a warm cache
    run(["npm", "ci"], proj)

    def prepare():
        shutil.rmtree(os.path.join(proj, "node_modules"), ignore_errors=True)
    return compare("npm ci (warm cache, 7 direct dependencies)", prepare, proj,
                   "npm ci --no-audit --no-fund --prefer-offline")


def zlib_source():
    src = os.environ.get("ZLIB_SRC")
    if src:
        return src
    apt = os.path.join(W, "apt")
    os.makedirs(os.path.join(apt, "lists", "partial"))
    with open(os.path.join(apt, "src.sources"), "w") as f:
        f.write("Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n"
                "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")
    o = ["-o", "Dir::Etc::SourceList=" + os.path.join(apt, "src.sources"),
         "-o", "Dir::Etc::SourceParts=/nonexistent",
         "-o", "Dir::State::Lists=" + os.path.join(apt, "lists")]
    run(["apt-get"] + o + ["update"], W)
    dl = os.path.join(W, "zlib-dl")
    os.makedirs(dl)
    run(["apt-get"] + o + ["source", "--download-only", "zlib"], dl)
    orig = [n for n in os.listdir(dl) if ".orig.tar" in n][0]
    run(["tar", "xf", orig], dl)
    return os.path.join(dl, [n for n in os.listdir(dl) if os.path.isdir(os.path.join(dl, n))][0])


def zlib_rows():
    src = zlib_source()
    ws = os.path.join(W, "zlib")

    def prepare():
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(src, ws, symlinks=True)
    return compare("C build: zlib 1.2.13 (./configure && make -j2)", prepare, ws,
                   "./configure >/dev/null && make -j2 >/dev/null")


def apply_rows():
    ws = os.path.join(W, "many")
    rows = []
    made, applied = [], []
    for _ in range(RUNS):
        shutil.rmtree(ws, ignore_errors=True)
        os.makedirs(ws)
        dt, rid = confined(ws, "for d in $(seq 100); do mkdir d$d; for f in $(seq 100); do "
                           "echo $d.$f >d$d/f$f; done; done", True)
        made.append(dt)
        applied.append(run([CORDON, "apply", "--state-dir", STATE, rid], ws))
        assert len(os.listdir(os.path.join(ws, "d100"))) == 100
    rows.append({"name": "the --review run that makes 10,000 files", "review_s":
                 round(statistics.median(made), 3), "runs": RUNS})
    rows.append({"name": "cordon apply of those 10,000 files", "review_s":
                 round(statistics.median(applied), 3), "runs": RUNS})
    return rows


def show(r):
    if "ratio" in r:
        print("| %s | %.3f | %.3f | %.2fx | <= 1.2x: %s |" % (
            r["name"], r["confined_s"], r["review_s"], r["ratio"],
            "met" if r["ratio"] <= 1.2 else "NOT met"), flush=True)
    else:
        print("| %s | | %.3f | | %s |" % (
            r["name"], r["review_s"],
            "seconds, not minutes: %s" % ("met" if r["review_s"] < 60 else "NOT met")
            if "apply" in r["name"] else ""), flush=True)


def main():
    print("| workload | confined (s) | --review (s) | ratio | target |")
    print("| --- | --- | --- | --- | --- |", flush=True)
    try:
        if "npm" not in SKIP:
            show(npm_rows())
        if "zlib" not in SKIP:
            show(zlib_rows())
        if "apply" not in SKIP:
            for r in apply_rows():
                show(r)
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", W])
        shutil.rmtree(W, ignore_errors=True)
    print("(medians of %d runs each, the two ways interleaved; %s)" % (RUNS, time.strftime("%Y-%m-%d")))


if __name__ == "__main__":
    main()

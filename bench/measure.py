#!/usr/bin/python3
"""One pass of the benchmark, as the user running it (bench/run starts one
pass as root and one as an unprivileged user).

    measure.py --role NAME --dir DIR --bin BINDIR [--out FILE]

DIR is this pass's scratch directory (it must exist and be writable);
every file the pass makes is under it. BINDIR holds the programs under
test: cordon, lib-spawn, seccomp-deny, and extra/NAME/cordon or
extra/NAME/lib-spawn for prototypes measured in the same run. The result is
one JSON object (see bench/report.py for how it is read).

Everything is taken from the tables below: the commands, the ways of
running them (VARIANTS) and when a way is available.
"""
import argparse
import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

# ---- what is measured ----

COMMANDS = [
    ("true", "sh -c true", ["sh", "-c", "true"]),
    ("pipe", "sh -c 'cat /etc/passwd | wc -l'", ["sh", "-c", "cat /etc/passwd | wc -l"]),
]

# The layers around Landlock. The "every layer" row exists when
# `cordon probe --json` lists all of these (the Unix socket layer is the
# supervisor below Landlock ABI 9 and Landlock's own from 9).
LANDLOCK_LAYERS = {"landlock", "no_new_privs", "signal_scope", "capabilities", "fds_closed"}
COMING_LAYERS = {"seccomp", "mount_namespace", "pid_namespace", "ipc_namespace",
                 "private_devpts"}
SOCKET_LAYERS = {"unix_socket_supervisor", "unix_socket_landlock"}

# Arguments that make `cordon run` apply Landlock without the coming
# layers, once the core has such an option (e.g. ["--layers", "landlock"]).
# Until then a run with the coming layers is forced to Landlock only by
# running it under `seccomp-deny nons` (no namespaces can be made), with
# baselines measured under the same filter. BENCH_LANDLOCK_ONLY_ARGS
# overrides this.
LANDLOCK_ONLY_ARGS = None

# Placeholders: {cordon} {ws} {tmp} {state} {state_tmpfs} {status}. The
# state dir (where each run makes and removes its temp dir) is on the same
# file system as the workspace, as ~/.local/state is; {state_tmpfs} is one
# on a tmpfs (/dev/shm), as $XDG_RUNTIME_DIR is.
CORDON_RUN = ["{cordon}", "run", "--state-dir", "{state}", "--no-caches",
              "--status-file", "{status}", "-w", "{ws}"]
CORDON_RUN_TMPFS = [a if a != "{state}" else "{state_tmpfs}" for a in CORDON_RUN]
BWRAP = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
         "--bind", "{ws}", "{ws}", "--bind", "{tmp}", "{tmp}"]

# What cordon makes writable for a run (the workspace, the run's dir, the
# device files), as confwrap's rules; {tmp} stands for the run's dir.
CONFWRAP_WRITES = [a for p in ("{ws}", "{tmp}", "/dev/null", "/dev/zero", "/dev/full",
                               "/dev/tty", "/dev/ptmx") for a in ("--write", p)]

# The home of the read-layer rows: entries at its top (a quarter of them
# directories), and a few secrets of the default list.
HOME_ENTRIES = 1000
HOME_SECRETS = [".ssh/id_ed25519", ".aws/credentials", ".netrc", ".bash_history",
                ".config/gh/hosts.yml", ".docker/config.json", ".cargo/credentials.toml"]

# id, label, argv prefix, what it needs
VARIANTS = [
    ("plain", "plain", [], None),
    ("env", "env (one extra exec)", ["env"], None),
    ("waitwrap", "waitwrap (spawn + wait: the floor of a waiting wrapper)", ["{waitwrap}"], None),
    # The kernel's own part of every layer: the command as process 1 of
    # new PID, mount and IPC namespaces with a /proc (a user namespace when
    # not root), nothing confined, no reaper (bench/nsfloor.h). No row
    # where the namespaces are refused (its check fails: exit 125).
    ("ns_floor", "waitwrap --ns (the namespaces alone: the floor under every layer)",
     ["{waitwrap}", "--ns"], None),
    ("ns_floor_net", "waitwrap --ns-net (the same and a network namespace: the floor under "
     "--network off)", ["{waitwrap}", "--ns-net"], None),
    # The kernel's part of the confinement alone (bench/confwrap.c):
    # no_new_privs, Landlock's write rules for what cordon makes writable,
    # cordon's seccomp program; nothing of cordon's own work. A target below
    # these cannot be met by any way of applying the layers here.
    ("confine_floor", "confwrap (Landlock, no_new_privs, cordon's filter alone: the floor "
     "under Landlock only)", ["{confwrap}"] + CONFWRAP_WRITES + ["--"], None),
    ("confine_ns_floor", "confwrap --ns (the same in the namespaces: the floor under every "
     "layer)", ["{confwrap}", "--ns"] + CONFWRAP_WRITES + ["--"], None),
    ("confine_ns_floor_net", "confwrap --ns-net (and a network namespace: the floor under "
     "--network off)", ["{confwrap}", "--ns-net"] + CONFWRAP_WRITES + ["--"], None),
    ("cordon_off", "cordon --sandbox off", CORDON_RUN + ["--sandbox", "off", "--"], "cordon"),
    ("cordon_landlock", "cordon, Landlock only",
     CORDON_RUN + ["--sandbox", "required", "--"], "landlock_only"),
    ("cordon_landlock_tmpfs", "cordon, Landlock only, state dir on tmpfs",
     CORDON_RUN_TMPFS + ["--sandbox", "required", "--"], "landlock_only_tmpfs"),
    ("cordon_all", "cordon, every layer",
     CORDON_RUN + ["--sandbox", "required", "--"], "all_layers"),
    # --network off: with the mount layer, the run's own network namespace.
    ("cordon_all_netoff", "cordon, every layer, --network off",
     CORDON_RUN + ["--network", "off", "--sandbox", "required", "--"], "all_layers"),
    # What the layers cost, one kind taken away at a time (seccomp-deny:
    # the kernel refuses them, cordon reports the gaps and runs without).
    ("cordon_no_ns", "cordon, every layer but the namespaces (mount, PID, IPC, devpts)",
     CORDON_RUN + ["--sandbox", "required", "--"], "group:nons"),
    ("cordon_no_seccomp", "cordon, every layer but seccomp (and the socket supervisor)",
     CORDON_RUN + ["--sandbox", "required", "--"], "group:noseccomp"),
    ("bwrap", "bwrap", BWRAP, "bwrap"),
    ("bwrap_hardened", "bwrap --unshare-pid --cap-drop ALL",
     BWRAP + ["--unshare-pid", "--cap-drop", "ALL"], "bwrap"),
    # bubblewrap closing the same side doors it can: processes, IPC, the
    # terminal, survivors, capabilities.
    ("bwrap_side_doors",
     "bwrap --unshare-pid --unshare-ipc --new-session --die-with-parent --cap-drop ALL",
     BWRAP + ["--unshare-pid", "--unshare-ipc", "--new-session", "--die-with-parent",
              "--cap-drop", "ALL"], "bwrap"),
    ("bwrap_side_doors_net",
     "bwrap --unshare-pid --unshare-ipc --unshare-net --new-session --die-with-parent --cap-drop ALL",
     BWRAP + ["--unshare-pid", "--unshare-ipc", "--unshare-net", "--new-session",
              "--die-with-parent", "--cap-drop", "ALL"], "bwrap"),
    ("firejail", "firejail",
     ["firejail", "--quiet", "--noprofile", "--read-only=/", "--read-write={ws}"], "firejail"),
    # The read layer (stage 2): a home of HOME_ENTRIES entries holding
    # secrets, without and with the default deny-read list. Landlock only:
    # the read layer grants every entry beside the way to a secret; every
    # layer: the mount layer covers each secret.
    ("reads_landlock_off", f"cordon, Landlock only, home of {HOME_ENTRIES} entries, --no-default-deny-read",
     ["env", "HOME={home_big}"] + CORDON_RUN + ["--no-default-deny-read", "--sandbox", "required",
                                              "--"], "landlock_only"),
    ("reads_landlock", f"cordon, Landlock only + the read layer, home of {HOME_ENTRIES} entries",
     ["env", "HOME={home_big}"] + CORDON_RUN + ["--sandbox", "required", "--"], "landlock_only"),
    ("reads_all_off", f"cordon, every layer, home of {HOME_ENTRIES} entries, --no-default-deny-read",
     ["env", "HOME={home_big}"] + CORDON_RUN + ["--no-default-deny-read", "--sandbox", "required",
                                              "--"], "all_layers"),
    ("reads_all", f"cordon, every layer + the read covers, home of {HOME_ENTRIES} entries",
     ["env", "HOME={home_big}"] + CORDON_RUN + ["--sandbox", "required", "--"], "all_layers"),
]



def make_home(d):
    os.makedirs(d, exist_ok=True)
    for i in range(HOME_ENTRIES - 7):  # with .ssh .aws .netrc .bash_history .config .docker .cargo
        p = os.path.join(d, f"e{i:04d}")
        if i % 4 == 0:
            os.makedirs(p, exist_ok=True)
        else:
            open(p, "w").close()
    for rel in HOME_SECRETS:
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("bench-secret\n")

# Every timed way gets ratios against these ways of the same group.
BASES = ["plain", "env", "waitwrap"]

# The workload: a real build of generated C files with make -j2.
WORK_FILES = 36
WORK_FUNCS = 12


def log(*a):
    print("bench:", *a, file=sys.stderr, flush=True)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def fill(argv, ctx):
    return [a.format(**ctx) for a in argv]


def quantile(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def stats_ms(times):
    ms = [t * 1000 for t in times]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "min_ms": round(min(ms), 3),
        "p10_ms": round(quantile(ms, 0.1), 3),
        "p90_ms": round(quantile(ms, 0.9), 3),
    }


# ---- availability ----

def probe(cordon):
    r = run([cordon, "probe", "--json"])
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"error": (r.stderr or r.stdout).strip()}


def availability(need, pr, tools, ctx, args):
    """(available, why-not, group, extra args) for one requirement."""
    layers = set(pr.get("layers") or [])
    if need == "landlock_only_tmpfs":
        if ctx.get("state_tmpfs") is None:
            return False, "no tmpfs at /dev/shm", None, []
        need = "landlock_only"
    applied = bool(pr.get("available"))
    if need is None or need == "cordon":
        return True, None, "main", []
    if need in ("bwrap", "firejail"):
        if tools.get(need) is None:
            return False, f"{need} is not installed", None, []
        return True, None, "main", []
    if not applied:
        return False, f"confinement unavailable here ({pr.get('reason')})", None, []
    if need.startswith("group:"):
        return True, None, need[len("group:"):], []
    if need == "all_layers":
        missing = COMING_LAYERS - layers
        if not layers & SOCKET_LAYERS:
            missing = missing | {"a Unix socket layer"}
        if missing:
            return (False, "not available yet: cordon applies " + ", ".join(sorted(layers))
                    + "; missing " + ", ".join(sorted(missing)), None, [])
        return True, None, "main", []
    if need == "landlock_only":
        if not (layers & COMING_LAYERS) and not args.force_nons:
            return True, None, "main", []
        only = shlex.split(args.landlock_only_args) if args.landlock_only_args \
            else LANDLOCK_ONLY_ARGS
        if only:
            return True, None, "main", only
        return True, None, "nons", []
    raise ValueError(need)


# ---- checks before timing: each way must do what its row claims ----

CHECK_SCRIPT = ('echo in > "$1/inside.$$" && rm "$1/inside.$$" || exit 3; '
                '(echo out > "$2/outside") 2>/dev/null; '
                'if [ -e "$2/outside" ]; then rm "$2/outside"; echo writable; else echo refused; fi')


def check_variant(prefix, wrap, ctx, status):
    argv = wrap + prefix + ["sh", "-c", CHECK_SCRIPT, "check", ctx["ws"], ctx["out"]]
    if os.path.exists(status):
        os.unlink(status)
    r = run(argv, cwd=ctx["ws"])
    res = {"exit": r.returncode, "outside_write": r.stdout.strip() or None}
    if r.returncode != 0:
        res["stderr"] = r.stderr.strip()[-400:]
    if os.path.exists(status):
        with open(status) as f:
            events = [json.loads(line) for line in f if line.strip()]
        start = next((e for e in events if e.get("event") == "bash_sandbox_status"), {})
        res["applied"] = start.get("applied")
        res["layers"] = start.get("layers")
        os.unlink(status)
    return res


# ---- timing ----

def hyperfine(rows, wrap, runs, rounds, warmup, raw_prefix, cwd):
    """rows: [(id, argv)]. Runs hyperfine `rounds` times, each round all rows
    with runs/rounds runs, the order rotated each round. Returns
    {id: {"times": [...], "round_medians": [...], "user_s": .., "system_s": ..}}."""
    out = {rid: {"times": [], "round_medians": [], "user": [], "system": []} for rid, _ in rows}
    per_round = max(1, runs // rounds)
    for r in range(rounds):
        order = rows[r % len(rows):] + rows[:r % len(rows)]
        jf = f"{raw_prefix}-r{r}.json"
        argv = wrap + ["hyperfine", "-N", "--style", "basic", "--warmup", str(warmup),
                       "--runs", str(per_round), "--export-json", jf]
        for rid, cmd in order:
            argv += ["-n", rid, shlex.join(cmd)]
        p = run(argv, cwd=cwd)
        if p.returncode != 0:
            # Which way failed (hyperfine names it before timing it), and
            # what it says when run again with its output kept.
            names = [ln for ln in p.stdout.splitlines() if ln.startswith("Benchmark")]
            failed = names[-1].split(":", 1)[-1].strip() if names else None
            again = ""
            for rid, cmd in rows:
                if rid == failed:
                    q = run(wrap + cmd, cwd=cwd)
                    again = f"\nrun again: exit {q.returncode}, stderr: {q.stderr[-1000:]!r}"
            raise SystemExit(f"hyperfine failed in {failed!r}:\n{p.stderr[-2000:]}{again}")
        with open(jf) as f:
            for res in json.load(f)["results"]:
                o = out[res["command"]]
                o["times"] += res["times"]
                o["round_medians"].append(res["median"])
                o["user"].append(res["user"])
                o["system"].append(res["system"])
    return out


def summarise(timed, rid, base_ids):
    t = timed[rid]
    s = stats_ms(t["times"])
    s["cpu_ms"] = round((statistics.fmean(t["user"]) + statistics.fmean(t["system"])) * 1000, 3)
    for base in base_ids:
        if base not in timed:
            continue
        b = timed[base]
        s["x_" + base] = round(statistics.median(t["times"]) / statistics.median(b["times"]), 3)
        per_round = [a / c for a, c in zip(t["round_medians"], b["round_medians"])]
        s["x_" + base + "_rounds"] = [round(min(per_round), 3), round(max(per_round), 3)]
    return s


# ---- the passes ----

def command_table(ctx, pr, tools, args, extra_cordons):
    variants = list(VARIANTS)
    for name, _ in extra_cordons:
        tmpfs = name.endswith("@tmpfs")
        base = CORDON_RUN_TMPFS if tmpfs else CORDON_RUN
        shown = name[:-len("@tmpfs")] + ", state dir on tmpfs" if tmpfs else name
        variants.append((f"cordon_landlock@{name}", f"cordon, Landlock only [{shown}]",
                         [a if a != "{cordon}" else "{cordon_" + name + "}" for a in base]
                         + ["--sandbox", "required", "--"],
                         "landlock_only_tmpfs" if tmpfs else "landlock_only"))
    rows, groups = [], {}
    for vid, label, prefix, need in variants:
        ok, why, group, extra = availability(need, pr, tools, ctx, args)
        row = {"id": vid, "label": label, "available": ok}
        if not ok:
            row["why"] = why
            rows.append(row)
            continue
        if extra:
            i = prefix.index("--")
            prefix = prefix[:i] + extra + prefix[i:]
        row["group"] = group
        wrap = [ctx["seccomp_deny"], group, "--"] if group != "main" else []
        if group != "main":
            row["note"] = (f"under seccomp-deny {group}; ratios against baselines under the "
                           "same filter")
        row["argv_prefix"] = fill(prefix, ctx)
        row["check"] = check_variant(row["argv_prefix"], wrap, ctx, ctx["status"])
        if row["check"]["exit"] != 0 and not vid.startswith("cordon"):
            # A peer that does not work for this user here (firejail
            # refuses users missing from firejail.users): no row, a reason.
            err = (row["check"].get("stderr") or "").strip().splitlines()
            row["available"] = False
            row["why"] = f"its check failed here: {err[0] if err else 'exit ' + str(row['check']['exit'])}"
            del row["group"], row["argv_prefix"], row["check"]
            rows.append(row)
            continue
        if row["check"]["exit"] != 0:
            raise SystemExit(f"check of {vid} failed: {row['check']}")
        if vid.startswith("cordon_") and vid != "cordon_off" and row["check"].get("applied") is not True:
            raise SystemExit(f"{vid}: confinement was not applied: {row['check']}")
        # "Landlock only" means without the mount layer: seccomp-deny nons
        # cannot take the seccomp layer away, and it costs one prctl.
        if (vid.startswith("cordon_landlock") or vid.startswith("reads_landlock")) \
                and "mount_namespace" in (row["check"].get("layers") or []):
            raise SystemExit(f"{vid}: more than Landlock was applied: {row['check']}")
        got = set(row["check"].get("layers") or [])
        if vid.startswith("reads_") and ("read_deny" in got) != (not vid.endswith("_off")):
            raise SystemExit(f"{vid}: the read layer is {'not ' if 'read_deny' not in got else ''}"
                             f"applied: {row['check']}")
        if vid == "cordon_no_ns" and got & {"mount_namespace", "pid_namespace"}:
            raise SystemExit(f"{vid}: namespaces were applied: {row['check']}")
        if vid == "cordon_no_seccomp" and got & ({"seccomp"} | SOCKET_LAYERS):
            raise SystemExit(f"{vid}: seccomp was applied: {row['check']}")
        groups.setdefault(group, []).append((vid, prefix))
        rows.append(row)
    # Every group has its own baselines.
    for g, members in groups.items():
        if g != "main":
            members[:0] = [("plain", []), ("env", ["env"]), ("waitwrap", ["{waitwrap}"])]

    result = {}
    for cid, shown, cmd in COMMANDS:
        crow = []
        timed_by_group = {}
        for g, members in groups.items():
            wrap = [ctx["seccomp_deny"], g, "--"] if g != "main" else []
            hrows = [(vid, fill(prefix, ctx) + cmd) for vid, prefix in members]
            log(f"{ctx['role']}: {shown}: timing {len(hrows)} ways ({g})")
            timed_by_group[g] = hyperfine(hrows, wrap, args.runs, args.rounds, args.warmup,
                                          os.path.join(ctx["raw"], f"{cid}-{g}"), ctx["ws"])
        for row in rows:
            r = dict(row)
            if row["available"]:
                timed = timed_by_group[row["group"]]
                r.update(summarise(timed, row["id"], BASES))
                r["command"] = shlex.join(row["argv_prefix"] + cmd)
            crow.append(r)
        for g, timed in timed_by_group.items():
            if g == "main":
                continue
            for base in BASES:
                r = {"id": f"{base}@{g}", "label": f"{base} (under seccomp-deny {g})",
                     "available": True, "group": g}
                r.update(summarise(timed, base, BASES))
                crow.append(r)
        result[cid] = {"command": shown, "rows": crow}
    return result


def library(ctx, args, extra_libs):
    libs = [("", ctx["lib_spawn"])] + [(name, p) for name, p in extra_libs]
    out = {}
    for name, exe in libs:
        key = name or "this tree"
        log(f"{ctx['role']}: library: {key}")
        res = {}
        if name.endswith("@tmpfs"):
            if ctx.get("state_tmpfs") is None:
                continue
            common = ["-w", ctx["ws"], "-s", ctx["state_tmpfs"]]
        else:
            common = ["-w", ctx["ws"], "-s", ctx["state"]]
        r = run([exe, "-n", str(args.lib_n), "-f", ctx["status"]] + common)
        if r.returncode != 0:
            raise SystemExit(f"lib-spawn failed: {r.stderr}")
        res["light"] = json.loads(r.stdout)
        if not name:
            # The same with the mount layer refused (seccomp-deny nons):
            # what the layers around Landlock add to each spawn.
            r = run([ctx["seccomp_deny"], "nons", "--", exe, "-n", str(args.lib_n),
                     "-f", ctx["status"]] + common)
            if r.returncode != 0:
                raise SystemExit(f"lib-spawn under nons failed: {r.stderr}")
            res["landlock_only"] = json.loads(r.stdout)
            # --network off: the run's network namespace, made once per run.
            r = run([exe, "-n", str(args.lib_n), "--network-off", "-f", ctx["status"]] + common)
            if r.returncode != 0:
                raise SystemExit(f"lib-spawn --network-off failed: {r.stderr}")
            res["netoff"] = json.loads(r.stdout)
        r = run([exe, "-n", str(max(10, args.lib_n // 5)), "-m", str(args.lib_mb)] + common)
        if r.returncode != 0:
            raise SystemExit(f"lib-spawn -m failed: {r.stderr}")
        res["heavy"] = json.loads(r.stdout)
        firsts, seconds = [], []
        for _ in range(args.lib_first):
            r = run([exe, "--first-begin"] + common)
            if r.returncode != 0:
                raise SystemExit(f"lib-spawn --first-begin failed: {r.stderr}")
            j = json.loads(r.stdout)
            firsts.append(j["first_begin_us"])
            seconds.append(j["second_begin_us"])
        res["begin"] = {
            "runs": args.lib_first,
            "first_begin_median_us": round(statistics.median(firsts), 1),
            "later_begin_median_us": round(statistics.median(seconds), 1),
            "probe_us": round(statistics.median(firsts) - statistics.median(seconds), 1),
        }
        for part in ("light", "heavy", "landlock_only", "netoff"):
            if part not in res:
                continue
            w = res[part]["ways"]
            base = w["posix_spawn"]["median_us"]
            for k in w:
                if "median_us" in w[k]:  # not ns_spawn where namespaces are refused
                    w[k]["x_posix_spawn"] = round(w[k]["median_us"] / base, 3)
        probe_us = res["begin"]["probe_us"]
        res["begin"]["probe_amortised"] = {
            str(k): round(probe_us / k, 1) for k in (1, 10, 100, 1000)}
        out[key] = res
    if os.path.exists(ctx["status"]):
        os.unlink(ctx["status"])
    return out


def gen_workload(d):
    os.makedirs(d, exist_ok=True)
    names = []
    for i in range(WORK_FILES):
        out = [f"/* generated: workload unit {i} */", "#include <stddef.h>",
               "#include <string.h>", ""]
        for f in range(WORK_FUNCS):
            out.append(f"""static unsigned long u{i}_f{f}(const unsigned char *p, size_t n, unsigned long s)
{{
\tfor (size_t k = 0; k < n; k++) {{
\t\tswitch ((p[k] + {f}) % 7) {{
\t\tcase 0: s = s * {31 + f} + p[k]; break;
\t\tcase 1: s ^= s >> {1 + f % 13}; break;
\t\tcase 2: s += (unsigned long)k * {i + 3}; break;
\t\tcase 3: s = (s << 3) | (s >> 61); break;
\t\tcase 4: s -= p[k] ^ {f * 7 + i}; break;
\t\tdefault: s = s * 2654435761u + {f}; break;
\t\t}}
\t}}
\treturn s;
}}
""")
        out.append(f"unsigned long unit{i}(const char *text);\n"
                   f"unsigned long unit{i}(const char *text)\n{{\n"
                   f"\tsize_t n = strlen(text);\n\tunsigned long s = {i};")
        out += [f"\ts = u{i}_f{f}((const unsigned char *)text, n, s);" for f in range(WORK_FUNCS)]
        out.append("\treturn s;\n}\n")
        with open(os.path.join(d, f"u{i}.c"), "w") as f:
            f.write("\n".join(out))
        names.append(f"u{i}")
    decls = "".join(f"unsigned long {n.replace('u', 'unit', 1)}(const char *);\n" for n in names)
    calls = "".join(f"\ts ^= {n.replace('u', 'unit', 1)}(argv[0]);\n" for n in names)
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write(f"#include <stdio.h>\n{decls}int main(int argc, char **argv)\n{{\n"
                f"\tunsigned long s = (unsigned long)argc;\n{calls}"
                "\tprintf(\"%lu\\n\", s);\n\treturn 0;\n}\n")
    objs = " ".join(f"{n}.o" for n in names + ["main"])
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write(f"CFLAGS = -O2 -Wall\nOBJS = {objs}\nprog: $(OBJS)\n"
                "\t$(CC) -o $@ $(OBJS)\n%.o: %.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n")


def workload(ctx, pr, tools, args, table):
    d = os.path.join(ctx["ws"], "build")
    gen_workload(d)
    make = ["make", "-s", "-B", "-j2", "-C", d]
    rows = [("plain", make)]
    for row in table["true"]["rows"]:
        if row["id"] in ("cordon_landlock", "cordon_all", "cordon_all_netoff") \
                and row["available"]:
            if row.get("group", "main") != "main":
                continue  # the seccomp-deny group has no workload row
            rows.append((row["id"], row["argv_prefix"] + make))
    log(f"{ctx['role']}: workload: {WORK_FILES} C files, make -j2, {args.work_runs} runs per way")
    if run(make, cwd=ctx["ws"]).returncode != 0:  # also the warm-up: compiler in the page cache
        raise SystemExit("the workload does not build")
    timed = cpu_timed(rows, args.work_runs, ctx["ws"])
    res = {"files": WORK_FILES + 1, "command": shlex.join(make), "rows": []}
    for rid, cmd in rows:
        r = {"id": rid, "command": shlex.join(cmd)}
        r.update(summarise_cpu(timed, rid, "plain"))
        res["rows"].append(r)
    shutil.rmtree(d)
    return res


def cpu_timed(rows, runs, cwd):
    """Each way `runs` times, interleaved (the order reversed every other
    round): wall time, and CPU time -- user + system of the process and
    every descendant it waited for, from wait4(2)'s rusage."""
    out = {rid: {"wall": [], "cpu": []} for rid, _ in rows}
    null = os.open(os.devnull, os.O_WRONLY)
    here = os.getcwd()
    os.chdir(cwd)
    try:
        for i in range(runs):
            for rid, cmd in (rows if i % 2 == 0 else rows[::-1]):
                t0 = time.monotonic()
                pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=[
                    (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
                _, status, ru = os.wait4(pid, 0)
                wall = time.monotonic() - t0
                if status != 0:
                    raise SystemExit(f"workload {rid} failed: wait status {status}")
                out[rid]["wall"].append(wall)
                out[rid]["cpu"].append(ru.ru_utime + ru.ru_stime)
    finally:
        os.chdir(here)
        os.close(null)
    return out


def summarise_cpu(timed, rid, base):
    """Medians of wall and CPU time, and the ratios to the base way: of the
    medians, and the spread of the per-run paired ratios (run i of this way
    against run i of the base, measured next to each other)."""
    t, b = timed[rid], timed[base]
    s = stats_ms(t["wall"])
    s["cpu_median_ms"] = round(statistics.median(t["cpu"]) * 1000, 1)
    s["x_" + base] = round(statistics.median(t["wall"]) / statistics.median(b["wall"]), 4)
    s["cpu_x_" + base] = round(statistics.median(t["cpu"]) / statistics.median(b["cpu"]), 4)
    for kind in ("wall", "cpu"):
        paired = sorted(a / c for a, c in zip(t[kind], b[kind]))
        s[f"{kind}_paired_x_{base}"] = {
            "median": round(statistics.median(paired), 4), "min": round(paired[0], 4),
            "p10": round(quantile(paired, 0.1), 4), "p90": round(quantile(paired, 0.9), 4),
            "max": round(paired[-1], 4)}
    return s


# ---- growth with the world's size (issue 26) ----

# The repositories: id, files, directories (a tree of fan-out 10).
REPOS = [("r100", 100, 10, "100 files in 10 directories"),
         ("r100k_10k", 100000, 10000, "100,000 files in 10,000 directories"),
         ("r100k_50k", 100000, 50000, "100,000 files in 50,000 directories")]
# The homes of the Landlock-only rows: entries at the top, the three
# secret dirs (.ssh .aws .config) among them.
HOMES = [("h10", 10), ("h10k", 10000)]
GROWTH_SECRETS = [".ssh/id_rsa", ".aws/credentials", ".config/gh/hosts.yml"]
# The socket loads (bench/sockload.py): id, mode, calls at scale 1, what.
SOCK_LOADS = [("connect", "connect", 20000, "connect() to a Unix socket in the workspace"),
              ("sendmsg_pair", "sendmsg-pair", 100000, "sendmsg() on a Unix socketpair"),
              ("sendmsg_tcp", "sendmsg-tcp", 100000,
               "sendmsg() on a TCP loopback connection, --network on"),
              ("send_tcp", "send-tcp", 100000,
               "send() on a TCP loopback connection, --network on (no address: not asked)")]
SUITE_TESTS = 10000


def spawn_timed(rows, runs, scratch, warm=1):
    """rows: [{"id", "argv", "cwd", "env" (or None), "prepare" (or None)}].
    Each way `warm` times untimed, then `runs` times, interleaved (the order
    reversed every other round); `prepare` is called before each run, off
    the clock. Wall time, CPU time (user + system of the process and of
    every descendant it waited for: wait4's rusage) and what the run
    printed on stdout."""
    out = {r["id"]: {"wall": [], "cpu": [], "out": []} for r in rows}
    null = os.open(os.devnull, os.O_WRONLY)
    outf = os.open(os.path.join(scratch, "spawn.out"), os.O_RDWR | os.O_CREAT | os.O_TRUNC,
                   0o600)
    here = os.getcwd()
    try:
        for i in range(-warm, runs):
            for r in (rows if i % 2 == 0 else rows[::-1]):
                if r.get("prepare"):
                    r["prepare"]()
                os.chdir(r["cwd"])
                os.lseek(outf, 0, os.SEEK_SET)
                os.ftruncate(outf, 0)
                env = r.get("env") or os.environ
                t0 = time.monotonic()
                pid = os.posix_spawnp(r["argv"][0], r["argv"], env, file_actions=[
                    (os.POSIX_SPAWN_DUP2, outf, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
                _, status, ru = os.wait4(pid, 0)
                wall = time.monotonic() - t0
                if status != 0:
                    raise SystemExit(f"{r['id']} failed: wait status {status}: "
                                     f"{shlex.join(r['argv'])}")
                if i < 0:
                    continue
                os.lseek(outf, 0, os.SEEK_SET)
                o = out[r["id"]]
                o["wall"].append(wall)
                o["cpu"].append(ru.ru_utime + ru.ru_stime)
                o["out"].append(os.read(outf, 1 << 16).decode(errors="replace"))
    finally:
        os.chdir(here)
        os.close(null)
        os.close(outf)
    return out


def wall_ms(timed, rid):
    return statistics.median(timed[rid]["wall"]) * 1000


def timed_row(timed, rid, label, **extra):
    t = timed[rid]
    r = {"id": rid, "label": label}
    r.update(stats_ms(t["wall"]))
    r["cpu_median_ms"] = round(statistics.median(t["cpu"]) * 1000, 3)
    r.update(extra)
    return r


def start_event(status):
    """The start event of the last run that wrote to status, and remove it."""
    ev = {}
    if os.path.exists(status):
        with open(status) as f:
            for line in f:
                if line.strip():
                    e = json.loads(line)
                    if e.get("event") == "bash_sandbox_status":
                        ev = e
        os.unlink(status)
    return ev


def growcost(ctx, argv, cwd=None):
    r = run([ctx["growcost"]] + argv, cwd=cwd)
    if r.returncode != 0 and argv[0] != "rss":
        raise SystemExit(f"growcost {argv[0]} failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def cordon_applied(pr):
    if not pr.get("available"):
        return f"confinement unavailable here ({pr.get('reason')})"
    return None


# -- repositories --

def make_repos(ctx):
    info = []
    for rid, files, dirs, label in REPOS:
        path = os.path.join(ctx["repos"], rid)
        mark = path + ".json"
        if not os.path.exists(mark):
            log(f"{ctx['role']}: making the repository {label}")
            r = run([ctx["mkrepo"], path, str(files), str(dirs), "--dirs-out", path + ".dirs"])
            if r.returncode != 0:
                raise SystemExit(f"mkrepo failed: {r.stderr.strip()}")
            with open(mark, "w") as f:
                f.write(r.stdout)
        with open(mark) as f:
            made = json.load(f)
        info.append({"id": rid, "label": label, "path": path, "dirs_list": path + ".dirs",
                     "files": files, "dirs": dirs, "made_s": made.get("seconds")})
    return info


def rewrite_index(repo):
    """What a git command that changed the index leaves: a new index file
    (git writes it beside and renames it into place). The run after it
    finds its copy of the index's directories stale."""
    index = os.path.join(repo, ".git", "index")
    before = os.stat(index)
    f = os.path.join(repo, "d0", "f0")
    os.utime(f)
    r = run(["git", "-C", repo, "update-index", "-q", "--refresh"])
    after = os.stat(index)
    if r.returncode not in (0, 1) or (after.st_ino, after.st_mtime_ns) == \
            (before.st_ino, before.st_mtime_ns):
        raise SystemExit(f"the index of {repo} was not rewritten: {r.stderr.strip()}")


def repo_argv(ctx, repo, extra, cmd):
    c = dict(ctx, ws=repo)
    return fill(CORDON_RUN + extra + ["--sandbox", "required", "--"], c) + cmd


def repos_part(ctx, pr, args):
    why = cordon_applied(pr)
    if why:
        return {"skipped": why}
    repos = make_repos(ctx)
    big = [r for r in repos if r["files"] > 1000]
    ways = {"all": ([], "cordon, every layer (git guard on)"),
            "noprotect": (["--no-default-protect"], "cordon, every layer, --no-default-protect")}
    checks = {}
    for rp in repos:
        for w, (extra, _) in ways.items():
            argv = repo_argv(ctx, rp["path"], extra, ["true"])
            r = run(argv, cwd=rp["path"])
            ev = start_event(ctx["status"])
            ck = {"exit": r.returncode, "applied": ev.get("applied"),
                  "protected": len(ev.get("protected") or []),
                  "git_unsearched": ev.get("git_unsearched"), "gaps": ev.get("gaps")}
            if r.returncode != 0 or ev.get("applied") is not True:
                raise SystemExit(f"repos: {w} in {rp['id']} failed: {ck} {r.stderr[-400:]}")
            if (w == "all") != (ck["protected"] > 0):
                raise SystemExit(f"repos: {w} in {rp['id']}: the git guard is "
                                 f"{'off' if w == 'all' else 'on'}: {ck}")
            checks[f"{w}@{rp['id']}"] = ck
    rows = [{"id": "plain", "argv": ["true"], "cwd": repos[0]["path"]}]
    for rp in repos:
        for w, (extra, _) in ways.items():
            rows.append({"id": f"{w}@{rp['id']}", "cwd": rp["path"],
                         "argv": repo_argv(ctx, rp["path"], extra, ["true"])})
    log(f"{ctx['role']}: repositories: timing {len(rows)} ways, {args.growth_runs} runs each "
        "(warm: the index's directories already kept in the state dir)")
    warm = spawn_timed(rows, args.growth_runs, ctx["tmp"])
    # Cold: each run after a git command rewrote the index, beside the
    # small repository's warm run (its own index untouched).
    crows = [{"id": f"all@{repos[0]['id']}", "cwd": repos[0]["path"],
              "argv": repo_argv(ctx, repos[0]["path"], [], ["true"])}]
    for rp in big:
        crows.append({"id": f"cold@{rp['id']}", "cwd": rp["path"],
                      "argv": repo_argv(ctx, rp["path"], [], ["true"]),
                      "prepare": (lambda p=rp["path"]: rewrite_index(p))})
    log(f"{ctx['role']}: repositories: cold runs (the index rewritten before each)")
    cold = spawn_timed(crows, args.growth_runs, ctx["tmp"])
    out_rows = [timed_row(warm, "plain", "plain true")]
    for rp in repos:
        for w, (_, label) in ways.items():
            out_rows.append(timed_row(warm, f"{w}@{rp['id']}", f"{label}, {rp['label']}",
                                      repo=rp["id"], way=w, warm=True))
    base_cold = wall_ms(cold, f"all@{repos[0]['id']}")
    out_rows.append(timed_row(cold, f"all@{repos[0]['id']}",
                              f"cordon, every layer, {repos[0]['label']} (beside the cold runs)",
                              repo=repos[0]["id"], way="all", warm=True, group="cold"))
    for rp in big:
        out_rows.append(timed_row(cold, f"cold@{rp['id']}",
                                  f"cordon, every layer, {rp['label']}, the index rewritten "
                                  "before each run (cold)", repo=rp["id"], way="cold",
                                  warm=False, group="cold",
                                  x_small=round(wall_ms(cold, f"cold@{rp['id']}") / base_cold,
                                                3)))
    ratios = {}
    for rp in big:
        for w in ways:
            ratios[f"{w}@{rp['id']}"] = round(wall_ms(warm, f"{w}@{rp['id']}")
                                              / wall_ms(warm, f"{w}@{repos[0]['id']}"), 3)
        ratios[f"cold@{rp['id']}"] = round(wall_ms(cold, f"cold@{rp['id']}") / base_cold, 3)
    # Peak memory of cordon (wait4's ru_maxrss, started by growcost, a
    # small process), warm and cold; `true` alone is the method's floor.
    rss = {"true": growcost(ctx, ["rss", "true"])["maxrss_kb"]}
    n_rss = 3
    for rp in repos:
        argv = repo_argv(ctx, rp["path"], [], ["true"])
        rss[f"all@{rp['id']}"] = max(growcost(ctx, ["rss"] + argv, rp["path"])["maxrss_kb"]
                                     for _ in range(n_rss))
        if rp in big:
            vals = []
            for _ in range(n_rss):
                rewrite_index(rp["path"])
                vals.append(growcost(ctx, ["rss"] + argv, rp["path"])["maxrss_kb"])
            rss[f"cold@{rp['id']}"] = max(vals)
    # The floor of the guard's end check where fanotify is not used: one
    # lstat per tracked directory.
    floors = {}
    for rp in repos:
        floors[rp["id"]] = growcost(ctx, ["lstat", "-r", "9", rp["dirs_list"]], rp["path"])
    small = repos[0]["id"]
    for rp in big:
        extra_ms = (floors[rp["id"]]["median_us"] - floors[small]["median_us"]) / 1000
        floors[rp["id"]]["x_small_floor"] = round(
            (wall_ms(warm, f"all@{small}") + extra_ms) / wall_ms(warm, f"all@{small}"), 3)
    for rp in repos:
        del rp["path"], rp["dirs_list"]
    return {"repos": repos, "checks": checks, "rows": out_rows, "ratios": ratios,
            "rss_kb": rss, "lstat_floor": floors, "runs": args.growth_runs,
            "fanotify": os.getuid() == 0}


# -- homes --

def make_growth_home(d, entries):
    os.makedirs(d, exist_ok=True)
    for i in range(entries - 3):  # with .ssh .aws .config
        p = os.path.join(d, f"e{i:05d}")
        if i % 4 == 0:
            os.makedirs(p, exist_ok=True)
        elif not os.path.exists(p):
            open(p, "w").close()
    for rel in GROWTH_SECRETS:
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("bench-secret\n")


def homes_part(ctx, pr, args):
    why = cordon_applied(pr)
    if why:
        return {"skipped": why}
    nons = [ctx["seccomp_deny"], "nons", "--"]
    homes = []
    for hid, n in HOMES:
        path = os.path.join(ctx["dir"], "homes", hid)
        make_growth_home(path, n)
        homes.append((hid, n, path))
    run_argv = fill(CORDON_RUN, ctx)
    rows = [{"id": "plain", "argv": nons + ["true"], "cwd": ctx["ws"]}]
    checks = {}
    for hid, n, path in homes:
        env = dict(os.environ, HOME=path)
        for w, extra in (("reads", []), ("off", ["--no-default-deny-read"])):
            argv = nons + run_argv + extra + ["--sandbox", "required", "--"]
            # The control read: the key must be unreadable inside with the
            # read layer, and readable without it (the read can succeed).
            r = subprocess.run(argv + ["sh", "-c", 'cat "$HOME/.ssh/id_rsa"'], env=env,
                               capture_output=True, text=True, cwd=ctx["ws"])
            ev = start_event(ctx["status"])
            layers = ev.get("layers") or []
            ssh = [d for d in ev.get("read_denied") or [] if "/.ssh" in d.get("path", "")]
            ck = {"applied": ev.get("applied"), "key_read": "bench-secret" in r.stdout,
                  "gaps": ev.get("gaps"), "read_denied_ssh": ssh,
                  "landlock_only": "mount_namespace" not in layers,
                  "read_deny_layer": "read_deny" in layers}
            if ev.get("applied") is not True or not ck["landlock_only"]:
                raise SystemExit(f"homes: {w} in {hid}: not Landlock only: {ck}")
            if w == "off" and not ck["key_read"]:
                raise SystemExit(f"homes: the control read fails without the read layer: {ck} "
                                 f"{r.stderr[-400:]}")
            if w == "reads":
                ck["protected"] = (not ck["key_read"] and "secrets_readable" not in
                                   (ck["gaps"] or []) and bool(ssh)
                                   and all(d.get("enforced") for d in ssh))
            checks[f"{w}@{hid}"] = ck
            rows.append({"id": f"{w}@{hid}", "argv": argv + ["true"], "cwd": ctx["ws"],
                         "env": env})
    log(f"{ctx['role']}: homes: timing {len(rows)} ways under seccomp-deny nons, "
        f"{args.growth_runs} runs each")
    timed = spawn_timed(rows, args.growth_runs, ctx["tmp"])
    out_rows = [timed_row(timed, "plain", "plain true (under seccomp-deny nons)")]
    for hid, n, _ in homes:
        out_rows.append(timed_row(timed, f"reads@{hid}", f"cordon, Landlock only + the read "
                                  f"layer, home of {n} entries", home=hid, entries=n,
                                  protected=checks[f"reads@{hid}"]["protected"]))
        out_rows.append(timed_row(timed, f"off@{hid}", f"cordon, Landlock only, home of {n} "
                                  "entries, --no-default-deny-read", home=hid, entries=n))
    (s, ns, sp), (b, nb, bp) = homes[0], homes[-1]
    res = {"homes": [{"id": h, "entries": n} for h, n, _ in homes], "checks": checks,
           "rows": out_rows, "runs": args.growth_runs}
    for w in ("reads", "off"):
        ts, tb = wall_ms(timed, f"{w}@{s}"), wall_ms(timed, f"{w}@{b}")
        res[f"{w}_ratio"] = round(tb / ts, 3)
        res[f"{w}_per_entry_us"] = round((tb - ts) * 1000 / (nb - ns), 3)
    fs, fb = growcost(ctx, ["rules", sp]), growcost(ctx, ["rules", bp])
    res["rules_floor"] = {
        s: fs, b: fb,
        "per_entry_us": round((fb["add_median_us"] + fb["restrict_median_us"]
                               - fs["add_median_us"] - fs["restrict_median_us"]) / (nb - ns), 3)}
    return res


# -- sockets --

def sockets_part(ctx, pr, args):
    why = cordon_applied(pr)
    if why:
        return {"skipped": why}
    py, load = sys.executable, ctx["sockload"]
    conf = fill(CORDON_RUN, ctx) + ["--network", "on", "--sandbox", "required", "--"]
    # The control: a socket outside the workspace, served by this process.
    outside = os.path.join(ctx["out"], "outside.sock")
    if os.path.exists(outside):
        os.unlink(outside)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(outside)
    srv.listen(8)
    try:
        plain_try = run([py, load, "try-connect", outside]).stdout.strip()
        r = run(conf + [py, load, "try-connect", outside], cwd=ctx["ws"])
        ev = start_event(ctx["status"])
    finally:
        srv.close()
        os.unlink(outside)
    layers = ev.get("layers") or []
    check = {"outside_plain": plain_try, "outside_confined": r.stdout.strip(),
             "socket_layers": sorted(set(layers) & SOCKET_LAYERS)}
    if plain_try != "connected" or check["outside_confined"] not in ("EACCES", "EPERM") \
            or not check["socket_layers"]:
        raise SystemExit(f"sockets: the control failed: {check} {r.stderr[-400:]}")
    # The floor of any supervisor: a sendmsg handed to another thread by
    # a seccomp user notification and let go on, against the same call
    # plain (bench/growcost notif).
    floor = growcost(ctx, ["notif", "-r", "9", str(max(1000, int(20000 * args.sock_scale)))])
    res = {"check": check, "runs": args.sock_runs, "loads": [], "floor": floor}
    sock = os.path.join(ctx["ws"], "bench.sock")
    for lid, mode, n0, what in SOCK_LOADS:
        n = max(100, int(n0 * args.sock_scale))
        cmd = [py, load, mode, str(n)] + ([sock] if mode == "connect" else [])
        rows = [{"id": "plain", "argv": cmd, "cwd": ctx["ws"]},
                {"id": "cordon", "argv": conf + cmd, "cwd": ctx["ws"]}]
        log(f"{ctx['role']}: sockets: {n} x {what}, {args.sock_runs} runs per way")
        timed = spawn_timed(rows, args.sock_runs, ctx["tmp"])
        loop = {k: statistics.median(json.loads(o)["loop_s"] for o in timed[k]["out"])
                for k in ("plain", "cordon")}
        res["loads"].append({
            "id": lid, "label": what, "n": n, "command": shlex.join(cmd),
            "plain_loop_ms": round(loop["plain"] * 1000, 2),
            "cordon_loop_ms": round(loop["cordon"] * 1000, 2),
            "x_plain": round(loop["cordon"] / loop["plain"], 3),
            "plain_per_call_us": round(loop["plain"] * 1e6 / n, 2),
            "cordon_per_call_us": round(loop["cordon"] * 1e6 / n, 2),
            "extra_per_call_us": round((loop["cordon"] - loop["plain"]) * 1e6 / n, 2),
            "plain_wall_ms": round(wall_ms(timed, "plain"), 2),
            "cordon_wall_ms": round(wall_ms(timed, "cordon"), 2)})
    return res


# -- the network allow-list's proxy (issue 30) --

# The name the allow-list lets through, mapped to the origins' loopback
# address by --network-resolve (as tests/t0185-network-allow.sh does).
PROXY_NAME = "a.test"
PROXY_PULLS = 3  # 100 MB transfers per process of the end-to-end rows


def status_events(status):
    """Every event in status, and remove it."""
    evs = []
    if os.path.exists(status):
        with open(status) as f:
            evs = [json.loads(line) for line in f if line.strip()]
        os.unlink(status)
    return evs


def proxy_part(ctx, pr, args):
    """(a) the engine alone, in one process (bench/proxybench): direct,
    through a trivial relay (the floor: a second loopback hop) and through
    the engine; (b) end to end: a client of the bench's own
    (bench/proxyload.py) in `cordon run --network on` directly and
    through the same relay, and in `cordon run --network allow=...`
    through cordon's proxy, to the origins of `proxybench serve`."""
    n, mb, runs = args.proxy_n, args.proxy_mb, args.proxy_runs
    log(f"{ctx['role']}: proxy: the engine alone (bench/proxybench), {n} connections and "
        f"{max(5, runs)} x {mb} MB per way")
    argv = [ctx["proxybench"], "-n", str(n), "-m", str(mb), "-r", str(max(5, runs))]
    r = run(argv)
    if r.returncode != 0:
        raise SystemExit(f"proxy: proxybench failed: {r.stderr.strip()[-1000:]}")
    res = {"engine": dict(json.loads(r.stdout), command=shlex.join(["proxybench"] + argv[1:]))}
    why = cordon_applied(pr)
    if why:
        res["e2e"] = {"skipped": why}
        return res
    srv = subprocess.Popen([ctx["proxybench"], "serve", "-m", str(mb)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    try:
        ports = json.loads(srv.stdout.readline())
        res["e2e"] = proxy_e2e(ctx, args, ports)
    finally:
        srv.stdin.close()
        srv.wait()
    return res


def proxy_e2e(ctx, args, ports):
    n, mb, runs = args.proxy_n, args.proxy_mb, args.proxy_runs
    py, load = sys.executable, ctx["proxyload"]
    base = fill(CORDON_RUN, ctx)
    on = base + ["--network", "on", "--sandbox", "required", "--"]
    allow = base + ["--network", f"allow={PROXY_NAME}:{ports['small']},{PROXY_NAME}:"
                    f"{ports['big']}", "--network-allow-local", "--network-resolve",
                    f"{PROXY_NAME}=127.0.0.1", "--sandbox", "required", "--"]
    # The control: inside the allow run the origin is reached through the
    # proxy (one allowed connection, told in an event) and not directly.
    status_events(ctx["status"])
    c = run(allow + [py, load, "check", str(ports["small"]), PROXY_NAME], cwd=ctx["ws"])
    evs = status_events(ctx["status"])
    start = next((e for e in evs if e.get("event") == "bash_sandbox_status"), {})
    conns = [e.get("decision") for e in evs if e.get("event") == "network_connect"]
    try:
        check = json.loads(c.stdout)
    except ValueError:
        return {"skipped": f"`cordon run --network allow` did not run the client (exit "
                f"{c.returncode}): {c.stderr.strip()[-400:]}"}
    check.update({"network": start.get("network"), "events": conns})
    if check.get("proxy") != "connected" or check.get("direct") == "connected" \
            or conns != ["allowed"] or start.get("network") != "allow":
        raise SystemExit(f"proxy: the control failed: {check} {c.stderr[-400:]}")
    res = {"check": check, "runs": runs, "n": n, "megabytes": mb, "pulls": PROXY_PULLS,
           "allow_args": shlex.join(allow[len(base):-1]), "client": "bench/proxyload.py"}
    ways = [("on", on, ports["small"], ports["big"], []),
            ("relay", on, ports["relay_small"], ports["relay_big"], []),
            ("allow", allow, ports["small"], ports["big"], [PROXY_NAME])]
    rows = [{"id": w, "argv": pre + [py, load, "connect", str(n), str(ps)] + name,
             "cwd": ctx["ws"]} for w, pre, ps, _, name in ways]
    log(f"{ctx['role']}: proxy: {n} connections per run, {runs} runs per way "
        "(--network on direct and through a relay, --network allow through the proxy)")
    timed = spawn_timed(rows, runs, ctx["tmp"])
    status_events(ctx["status"])
    per = {w: statistics.median(json.loads(o)["loop_s"] for o in timed[w]["out"]) * 1e6 / n
           for w, *_ in ways}
    res["connect_us"] = {w: round(v, 1) for w, v in per.items()}
    res["connect_added_us"] = round(per["allow"] - per["on"], 1)
    res["connect_relay_added_us"] = round(per["relay"] - per["on"], 1)
    # The median connection's time (median of the runs' medians): less
    # swayed by the stalls a loaded machine puts into a loop.
    res["connect_median_us"] = {
        w: round(statistics.median(json.loads(o)["median_s"] for o in timed[w]["out"]) * 1e6, 1)
        for w, *_ in ways}
    want = str(mb << 20)
    rows = [{"id": w, "argv": pre + [py, load, "pull", str(PROXY_PULLS), str(pb), want] + name,
             "cwd": ctx["ws"]} for w, pre, _, pb, name in ways]
    log(f"{ctx['role']}: proxy: {PROXY_PULLS} x {mb} MB per run, {runs} runs per way")
    timed = spawn_timed(rows, runs, ctx["tmp"])
    status_events(ctx["status"])
    pull = {w: statistics.median(t for o in timed[w]["out"] for t in json.loads(o)["times_s"])
            * 1000 for w, *_ in ways}
    res["pull_ms"] = {w: round(v, 2) for w, v in pull.items()}
    res["pull_mb_s"] = {w: round(mb * 1000 / v) for w, v in pull.items()}
    res["pull_ratio"] = round(pull["allow"] / pull["on"], 3)
    res["pull_relay_ratio"] = round(pull["relay"] / pull["on"], 3)
    return res


# -- a real build and test, and a socket test suite --

def unit_bins(proj):
    d = os.path.join(proj, "build", "tests")
    return sorted(os.path.join("build", "tests", f) for f in os.listdir(d)
                  if f.startswith("test-") and "." not in f
                  and os.access(os.path.join(d, f), os.X_OK))


def suites_part(ctx, pr, args):
    why = cordon_applied(pr)
    if why:
        return {"skipped": why}
    if not ctx.get("src"):
        return {"skipped": "no copy of the tree given (--src)"}
    proj = os.path.join(ctx["ws"], "project")
    if os.path.exists(proj):
        shutil.rmtree(proj)
    shutil.copytree(ctx["src"], proj, symlinks=True)
    conf = fill(CORDON_RUN, dict(ctx, ws=proj)) + ["--sandbox", "required", "--"]
    log(f"{ctx['role']}: suites: a first build of the tree and its unit tests (untimed)")
    r = run(["make", "-s", "-j2", "all", "unit"], cwd=proj)
    if not os.path.isdir(os.path.join(proj, "build", "tests")):
        raise SystemExit(f"suites: the tree does not build: {r.stderr[-1000:]}")
    # The unit tests that pass both outside and inside a confined run:
    # some confine commands of their own and check writes to /tmp, which
    # the run's own confinement refuses.
    kept, left = [], {}
    for t in unit_bins(proj):
        p = run([t], cwd=proj)
        c = run(conf + [t], cwd=proj)
        if p.returncode == 0 and c.returncode == 0:
            kept.append(t)
        else:
            bad = [ln for ln in (c.stdout + p.stdout).splitlines() if ln.startswith("not ok")]
            err = [ln for ln in (c.stderr + p.stderr).splitlines() if ln.strip()]
            left[t] = {"plain_exit": p.returncode, "confined_exit": c.returncode,
                       "first_failure": (bad or err or [""])[0][:200]}
    if os.path.exists(ctx["status"]):
        os.unlink(ctx["status"])
    script = ("make -s -j2 all >/dev/null && make -s -j2 " + " ".join(kept) + " >/dev/null"
              + "".join(f" && {t} >/dev/null" for t in kept))
    cmd = ["sh", "-c", script]
    wipe = (lambda: shutil.rmtree(os.path.join(proj, "build"), ignore_errors=True))
    rows = [{"id": "plain", "argv": cmd, "cwd": proj, "prepare": wipe},
            {"id": "cordon", "argv": conf + cmd, "cwd": proj, "prepare": wipe}]
    log(f"{ctx['role']}: suites: clean build + {len(kept)} unit test programs, "
        f"{args.suite_runs} runs per way")
    timed = spawn_timed(rows, args.suite_runs, ctx["tmp"], warm=0)
    res = {"runs": args.suite_runs, "suites": []}

    def suite(sid, label, timed, command, **extra):
        s = {"id": sid, "label": label, "command": command}
        for k in ("plain", "cordon"):
            s[f"{k}_wall_ms"] = round(wall_ms(timed, k), 1)
            s[f"{k}_cpu_ms"] = round(statistics.median(timed[k]["cpu"]) * 1000, 1)
        s["x_plain"] = round(s["cordon_wall_ms"] / s["plain_wall_ms"], 4)
        s["cpu_x_plain"] = round(s["cordon_cpu_ms"] / s["plain_cpu_ms"], 4)
        paired = sorted(a / b for a, b in zip(timed["cordon"]["cpu"], timed["plain"]["cpu"]))
        s["cpu_paired"] = [round(paired[0], 4), round(paired[-1], 4)]
        s.update(extra)
        res["suites"].append(s)
    suite("project", "this tree: a clean make -j2, its unit test programs built and run",
          timed, "make -s -j2 all; make the unit test programs; run them",
          unit_tests_run=kept, unit_tests_left_out=left)
    shutil.rmtree(proj)
    n = max(100, int(SUITE_TESTS * args.sock_scale))
    cmd = [sys.executable, ctx["socksuite"], str(n)]
    rows = [{"id": "plain", "argv": cmd, "cwd": ctx["ws"]},
            {"id": "cordon", "argv": fill(CORDON_RUN, ctx) + ["--sandbox", "required", "--"]
             + cmd, "cwd": ctx["ws"]}]
    log(f"{ctx['role']}: suites: {n} socket tests, {args.suite_runs} runs per way")
    timed = spawn_timed(rows, args.suite_runs, ctx["tmp"])
    suite("socksuite", f"a Python suite of {n} tests, each a Unix-socket connection", timed,
          shlex.join(cmd))
    return res


def tool_paths():
    return {t: shutil.which(t) for t in ("hyperfine", "bwrap", "firejail")}


def named(items):
    out = []
    for it in items or []:
        name, _, path = it.partition("=")
        out.append((name, path))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--role", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--lib-n", type=int, default=500)
    ap.add_argument("--lib-mb", type=int, default=256)
    ap.add_argument("--lib-first", type=int, default=30)
    ap.add_argument("--work-runs", type=int, default=20)
    ap.add_argument("--growth-runs", type=int, default=20,
                    help="runs per way of the repository and home rows")
    ap.add_argument("--sock-runs", type=int, default=5, help="runs per way of the socket loads")
    ap.add_argument("--sock-scale", type=float, default=1.0,
                    help="the socket loads' and the socket suite's calls, scaled")
    ap.add_argument("--suite-runs", type=int, default=3, help="runs per way of the suites")
    ap.add_argument("--proxy-n", type=int, default=1000,
                    help="the proxy part: connections per run")
    ap.add_argument("--proxy-mb", type=int, default=100, help="the proxy part: MB per transfer")
    ap.add_argument("--proxy-runs", type=int, default=5,
                    help="the proxy part: runs per way (end to end), transfers per way "
                    "(the engine alone: at least 5)")
    ap.add_argument("--repos", help="where the repositories are made, or found made (shared "
                    "by the passes); default DIR/repos")
    ap.add_argument("--src", help="a copy of the tree, for the build-and-test suite")
    ap.add_argument("--skip", default="",
                    help="comma list of: commands,library,workload,repos,homes,sockets,suites,"
                    "proxy")
    ap.add_argument("--force-nons", action="store_true",
                    help="measure 'Landlock only' under seccomp-deny nons even without layers")
    ap.add_argument("--landlock-only-args", default="",
                    help="cordon run arguments that leave out the layers around Landlock")
    args = ap.parse_args()

    d = os.path.realpath(args.dir)
    ctx = {"role": args.role}
    for sub in ("ws", "tmp", "state", "out", "raw", "home"):
        ctx[sub] = os.path.join(d, sub)
        os.makedirs(ctx[sub], exist_ok=True)
    ctx["status"] = os.path.join(d, "status.jsonl")
    ctx["dir"] = d
    ctx["repos"] = os.path.realpath(args.repos) if args.repos else os.path.join(d, "repos")
    os.makedirs(ctx["repos"], exist_ok=True)
    ctx["src"] = os.path.realpath(args.src) if args.src else None
    for tool in ("growcost", "mkrepo", "sockload.py", "socksuite.py", "proxybench",
                 "proxyload.py"):
        ctx[tool.split(".")[0]] = os.path.join(args.bin, tool)
    ctx["home_big"] = os.path.join(d, "home-big")
    make_home(ctx["home_big"])
    ctx["cordon"] = os.path.join(args.bin, "cordon")
    ctx["lib_spawn"] = os.path.join(args.bin, "lib-spawn")
    ctx["seccomp_deny"] = os.path.join(args.bin, "seccomp-deny")
    ctx["waitwrap"] = os.path.join(args.bin, "waitwrap")
    ctx["confwrap"] = os.path.join(args.bin, "confwrap")
    extra_dir = os.path.join(args.bin, "extra")
    extra_cordons, extra_libs = [], []
    if os.path.isdir(extra_dir):
        for name in sorted(os.listdir(extra_dir)):
            p = os.path.join(extra_dir, name)
            if os.path.exists(os.path.join(p, "cordon")):
                extra_cordons.append((name, os.path.join(p, "cordon")))
                ctx["cordon_" + name] = os.path.join(p, "cordon")
            if os.path.exists(os.path.join(p, "lib-spawn")):
                extra_libs.append((name, os.path.join(p, "lib-spawn")))
    skip = set(filter(None, args.skip.split(",")))
    ctx["state_tmpfs"] = None
    if os.path.isdir("/dev/shm") and run(["stat", "-f", "-c", "%T", "/dev/shm"]).stdout.strip() \
            == "tmpfs":
        ctx["state_tmpfs"] = tempfile.mkdtemp(prefix="cordon-bench.", dir="/dev/shm")
    try:
        measure(args, ctx, extra_cordons, extra_libs, skip)
    finally:
        if ctx["state_tmpfs"]:
            shutil.rmtree(ctx["state_tmpfs"], ignore_errors=True)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except OSError:
        return None


def measure(args, ctx, extra_cordons, extra_libs, skip):
    tools = tool_paths()
    pr = probe(ctx["cordon"])
    res = {
        "role": args.role, "uid": os.getuid(), "probe": pr,
        "env": {k: os.environ.get(k) for k in ("PATH", "HOME", "TMPDIR")},
        "method": {"runs": args.runs, "rounds": args.rounds, "warmup_per_round": args.warmup,
                   "lib_n": args.lib_n, "lib_mb": args.lib_mb, "lib_first": args.lib_first,
                   "work_runs": args.work_runs, "growth_runs": args.growth_runs,
                   "sock_runs": args.sock_runs, "sock_scale": args.sock_scale,
                   "suite_runs": args.suite_runs, "proxy_n": args.proxy_n,
                   "proxy_mb": args.proxy_mb, "proxy_runs": args.proxy_runs},
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg_start": loadavg(),
    }
    table = command_table(ctx, pr, tools, args, extra_cordons) if "commands" not in skip else {}
    res["commands"] = table
    if "library" not in skip:
        res["library"] = library(ctx, args, extra_libs)
    if "workload" not in skip and table:
        res["workload"] = workload(ctx, pr, tools, args, table)
    # Growth with the world's size (issue 26).
    for part, fn in (("repos", repos_part), ("homes", homes_part), ("sockets", sockets_part),
                     ("suites", suites_part), ("proxy", proxy_part)):
        if part not in skip:
            res[part] = fn(ctx, pr, args)
    res["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    res["loadavg_end"] = loadavg()
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

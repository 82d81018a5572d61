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
    ap.add_argument("--skip", default="", help="comma list of: commands,library,workload")
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
                   "work_runs": args.work_runs},
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "loadavg_start": loadavg(),
    }
    table = command_table(ctx, pr, tools, args, extra_cordons) if "commands" not in skip else {}
    res["commands"] = table
    if "library" not in skip:
        res["library"] = library(ctx, args, extra_libs)
    if "workload" not in skip and table:
        res["workload"] = workload(ctx, pr, tools, args, table)
    res["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    res["loadavg_end"] = loadavg()
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

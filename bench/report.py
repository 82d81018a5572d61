#!/usr/bin/python3
"""Merge the passes of bench/run, print the table, write JSON and Markdown.

    report.py --top REPO --json OUT.json --markdown OUT.md PASS.json...

The performance targets (docs/performance.md) are read off the ratios here; nothing is asserted
by a timed test.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import time


def sh(argv, cwd=None):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
        return (r.stdout or r.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return None


def machine(top, given):
    """The machine, and the tree measured: as bench/run saw it when it built
    (given), else as the tree is now (the report made again)."""
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), None)
    except OSError:
        pass
    try:
        with open("/etc/debian_version") as f:
            debian = f.read().strip()
    except OSError:
        debian = None
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "kernel": platform.release(),
        "debian": debian,
        "tools": {
            "hyperfine": sh(["hyperfine", "--version"]),
            "bubblewrap": sh(["bwrap", "--version"]),
            "firejail": sh(["firejail", "--version"]),
            "cc": sh(["cc", "--version"]),
        },
        "cordon": {
            "version": given.version or sh([os.path.join(top, "build", "cordon"), "--version"]),
            "commit": given.commit or sh(["git", "rev-parse", "--short", "HEAD"], cwd=top),
            "dirty": given.dirty == "1" if given.dirty is not None else bool(
                subprocess.run(["git", "status", "--porcelain", "--", "src", "cli", "include",
                                "bench"], capture_output=True, text=True,
                               cwd=top).stdout.strip()),
        },
    }


def fmt_x(v):
    return "—" if v is None else f"{v:.2f}×"


def fmt_u(v, unit):
    if unit == "×" or v is None:
        return fmt_x(v)
    return f"{v:.2f} {unit}"


def row_line(r):
    if not r.get("available"):
        return [r["label"], "n/a", "", "", "", "", r.get("why", "")]
    conf = r.get("check", {}).get("outside_write")
    conf = {"refused": "yes", "writable": "no"}.get(conf, "")
    lo, hi = r.get("x_env_rounds", [None, None])
    spread = f"{lo:.2f}–{hi:.2f}" if lo is not None else ""
    note = r.get("note", "")
    return [r["label"], f"{r['median_ms']:.2f}", fmt_x(r.get("x_plain")), fmt_x(r.get("x_env")),
            fmt_x(r.get("x_waitwrap")), spread, conf + (f"; {note}" if note else "")]


HEAD = ["way", "median ms", "× plain", "× env", "× waitwrap", "× env per round",
        "writes confined"]


def table(lines, head):
    w = [max(len(str(x[i])) for x in [head] + lines) for i in range(len(head))]
    out = ["  ".join(str(h).ljust(w[i]) for i, h in enumerate(head))]
    for x in lines:
        out.append("  ".join(str(c).rjust(w[i]) if i in (1, 2, 3, 4) else str(c).ljust(w[i])
                             for i, c in enumerate(x)))
    return out


def md_table(lines, head):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in x) + " |" for x in lines]
    return out


def find(rows, rid):
    return next((r for r in rows if r["id"] == rid), None)


# The targets (issue 15), against what a wrapper can reach: waitwrap is
# the floor of any wrapper that must outlive its command, posix_spawn the
# floor of a library spawn, and each bubblewrap way the peer with the
# same isolation as the cordon way it is set against.
LIMIT_LANDLOCK, LIMIT_ALL, LIMIT_LIB, LIMIT_READS, LIMIT_CPU = 1.10, 1.25, 1.10, 1.10, 1.01
PEERS = [("cordon_landlock", "bwrap_side_doors"), ("cordon_all", "bwrap_side_doors"),
         ("cordon_all_netoff", "bwrap_side_doors_net")]


def targets(passes):
    """(name, value, limit, met) for each performance target, per pass."""
    out = []
    for p in passes:
        who = p["role"]
        for cid, c in p.get("commands", {}).items():
            rows = c["rows"]
            for rid, what, lim, fid in (
                    ("cordon_landlock", "Landlock only", LIMIT_LANDLOCK, "confine_floor"),
                    ("cordon_all", "every layer", LIMIT_ALL, "confine_ns_floor"),
                    ("cordon_all_netoff", "every layer, --network off", LIMIT_ALL,
                     "confine_ns_floor_net")):
                r, f = find(rows, rid), find(rows, fid)
                if r is not None:
                    out.append((f"{who}, {c['command']}: {what} vs waitwrap",
                                r.get("x_waitwrap") if r.get("available") else None, lim,
                                f.get("x_waitwrap") if f and f.get("available") else None))
            # The read layer, Landlock only: within 10% of the same run
            # without it (the home of 1,000 entries).
            rl, rlo = find(rows, "reads_landlock"), find(rows, "reads_landlock_off")
            if rl and rlo and rl.get("available") and rlo.get("available"):
                out.append((f"{who}, {c['command']}: Landlock only, read layer vs none "
                            "(home of 1,000 entries)",
                            round(rl["median_ms"] / rlo["median_ms"], 3), LIMIT_READS))
            # Faster than bubblewrap with the same isolation, in the same run.
            for mine_id, peer_id in PEERS:
                mine, o = find(rows, mine_id), find(rows, peer_id)
                if mine and mine.get("available") and o and o.get("available") \
                        and mine.get("group") == "main":
                    out.append((f"{who}, {c['command']}: {mine['label']} vs {o['label']}",
                                round(mine["median_ms"] / o["median_ms"], 3), 1.0))
        lib = p.get("library", {}).get("this tree")
        if lib:
            v = lib["light"]["ways"]["cordon_spawn"]["x_posix_spawn"]
            out.append((f"{who}, library: cordon_spawn vs posix_spawn", v, LIMIT_LIB))
            v = lib["heavy"]["ways"]["cordon_spawn"]["x_posix_spawn"]
            out.append((f"{who}, library, {lib['heavy']['ballast_mb']} MB caller: "
                        "cordon_spawn vs posix_spawn", v, LIMIT_LIB))
            if "netoff" in lib:
                v = lib["netoff"]["ways"]["cordon_spawn"]["x_posix_spawn"]
                out.append((f"{who}, library, --network off: cordon_spawn vs posix_spawn", v,
                            LIMIT_LIB))
        wl = p.get("workload")
        if wl:
            for r in wl["rows"]:
                if r["id"] != "plain":
                    out.append((f"{who}, workload CPU time (wait4 rusage): {r['id']} vs plain",
                                r["cpu_x_plain"], LIMIT_CPU))
    # The kernel's part alone (confwrap, same run), where one was timed.
    out = [t if len(t) == 4 else t + (None,) for t in out]
    res = [{"target": n, "value": v, "limit": lim, "floor": fl,
            "met": None if v is None else v <= lim} for n, v, lim, fl in out]
    return res + growth_targets(passes) + proxy_targets(passes)


# Growth with the world's size (issue 26): a run in a repository of
# 100,000 files within 1.15x of one of 100, cordon's peak memory there at
# most 4 MB; a home of 10,000 entries within 1.5x of one of 10 (Landlock
# only) and at most 2 us per entry; socket-heavy loads within 1.5x of
# plain; a build-and-test's and a socket suite's CPU time within 2%.
LIMIT_REPO, LIMIT_RSS_MB, LIMIT_HOME, LIMIT_ENTRY_US, LIMIT_SOCK, LIMIT_SUITE = (
    1.15, 4.0, 1.5, 2.0, 1.5, 1.02)
SOCK_TARGETS = ("connect", "sendmsg_pair", "sendmsg_tcp")


def growth_targets(passes):
    """Like targets(), with a unit (× by default) and a note."""
    out = []

    def add(name, value, limit, floor=None, unit="×", note=None, met=None):
        if met is None and value is not None:
            met = value <= limit
        out.append({"target": name, "value": value, "limit": limit, "floor": floor,
                    "unit": unit, "note": note, "met": met})
    for p in passes:
        who = p["role"]
        rp = p.get("repos") or {}
        for r in rp.get("repos", [])[1:]:
            fl = rp["lstat_floor"][r["id"]].get("x_small_floor")
            add(f"{who}, `cordon run -- true`, every layer: repository of {r['label']} vs "
                "100 files (warm)", rp["ratios"][f"all@{r['id']}"], LIMIT_REPO,
                None if rp.get("fanotify") else fl,
                note="the guard's end check uses fanotify (root)" if rp.get("fanotify")
                else "floor: one lstat per tracked directory")
        for r in rp.get("repos", [])[1:]:
            for k, what in ((f"all@{r['id']}", "warm"), (f"cold@{r['id']}", "cold")):
                kb = rp["rss_kb"].get(k)
                add(f"{who}, cordon's peak RSS, repository of {r['label']} ({what})",
                    None if kb is None else round(kb / 1024, 2), LIMIT_RSS_MB,
                    round(rp["rss_kb"]["true"] / 1024, 2), unit="MB",
                    note="floor: what the same measure gives for `true`")
        h = p.get("homes") or {}
        if h.get("rows"):
            big = next(r for r in h["rows"] if r["id"] == f"reads@{h['homes'][-1]['id']}")
            small = next(r for r in h["rows"] if r["id"] == f"reads@{h['homes'][0]['id']}")
            prot = bool(big.get("protected")) and bool(small.get("protected"))
            note = None if prot else "a run protected nothing: ~/.ssh/id_rsa readable inside"
            per = h["rules_floor"]["per_entry_us"]
            n = h["homes"][-1]["entries"] - h["homes"][0]["entries"]
            fl = round((small["median_ms"] + per * n / 1000) / small["median_ms"], 3)
            add(f"{who}, Landlock only + read layer: home of {h['homes'][-1]['entries']} "
                f"entries vs {h['homes'][0]['entries']}", h["reads_ratio"], LIMIT_HOME, fl,
                note=note, met=(h["reads_ratio"] <= LIMIT_HOME) and prot)
            add(f"{who}, Landlock only + read layer: cost per entry of the home",
                h["reads_per_entry_us"], LIMIT_ENTRY_US, per, unit="µs",
                note=note or "floor: openat(O_PATH) + landlock_add_rule + the rule's copy at "
                "landlock_restrict_self", met=(h["reads_per_entry_us"] <= LIMIT_ENTRY_US) and prot)
        sfl = (p.get("sockets") or {}).get("floor") or {}
        for ld in (p.get("sockets") or {}).get("loads", []):
            if ld["id"] in SOCK_TARGETS:
                note = f"{ld['extra_per_call_us']:.1f} µs more per call"
                fx = None
                if sfl:
                    # Any supervisor adds at least a notification's round
                    # trip to each call it is asked about.
                    fx = (ld["plain_per_call_us"] + sfl["extra_per_call_us"]) / \
                        ld["plain_per_call_us"]
                    note += (f"; floor: a seccomp notification and its answer, "
                             f"{sfl['extra_per_call_us']:.1f} µs more per call (growcost notif)")
                add(f"{who}, {ld['n']} × {ld['label']}: every layer vs plain", ld["x_plain"],
                    LIMIT_SOCK, fx, note=note)
        for st in (p.get("suites") or {}).get("suites", []):
            add(f"{who}, CPU time (wait4 rusage), {st['label']}: every layer vs plain",
                st["cpu_x_plain"], LIMIT_SUITE)
    return out


# The network allow-list's proxy (issue 30): at most 1 ms more per
# connection than `--network on`, a 100 MB transfer within 1.2x. The
# floor of each: a trivial relay (a second loopback hop and nothing
# else) measured the same way.
LIMIT_PROXY_CONNECT_MS, LIMIT_PROXY_TRANSFER = 1.0, 1.2


def proxy_targets(passes):
    out = []

    def add(name, value, limit, floor, unit, note):
        out.append({"target": name, "value": value, "limit": limit, "floor": floor,
                    "unit": unit, "note": note, "met": None if value is None else value <= limit})
    for p in passes:
        who = p["role"]
        px = p.get("proxy") or {}
        en = px.get("engine")
        if en:
            add(f"{who}, proxy engine alone (bench/proxybench, in one process): more per "
                f"connection than direct ({en['connects']} connections)",
                round(en["connect_added_us"] / 1000, 3), LIMIT_PROXY_CONNECT_MS,
                round(en["connect_relay_added_us"] / 1000, 3), "ms",
                "floor: a trivial relay, the same way")
            add(f"{who}, proxy engine alone: {en['megabytes']} MB vs direct",
                en["transfer_ratio"], LIMIT_PROXY_TRANSFER, en["relay_ratio"], "×",
                f"floor: a trivial relay ({en['relay_kb']} KB reads); CPU time "
                f"{en['cpu_ratio']:.2f}× direct, the relay's {en['cpu_relay_ratio']:.2f}×")
        e2e = px.get("e2e") or {}
        if e2e.get("connect_us"):
            med = e2e.get("connect_median_us")
            add(f"{who}, `cordon run --network allow` through the proxy vs `--network on`: "
                f"more per connection ({e2e['n']} connections, {e2e['client']})",
                round(e2e["connect_added_us"] / 1000, 3), LIMIT_PROXY_CONNECT_MS,
                round(e2e["connect_relay_added_us"] / 1000, 3), "ms",
                "floor: `--network on` through a trivial relay" + (
                    "" if not med else f"; the median connection: {med['allow'] - med['on']:.0f} "
                    f"µs more (the relay's: {med['relay'] - med['on']:.0f} µs)"))
            add(f"{who}, `cordon run --network allow` vs `--network on`: {e2e['megabytes']} MB "
                "transfer", e2e["pull_ratio"], LIMIT_PROXY_TRANSFER, e2e["pull_relay_ratio"], "×",
                "floor: `--network on` through a trivial relay")
    return out


def proxy_tables(p):
    """(caption, head, lines) of the proxy part of one pass."""
    px = p.get("proxy") or {}
    out = []
    def head(mb, e2e=False):
        return ["way", "µs per connection" + (" (loop / n)" if e2e else ""),
                "µs more than direct"] + (["median connection µs"] if e2e else []) + \
            [f"{mb} MB: ms", "MB/s", "× direct"]
    en = px.get("engine")
    if en:
        lines = []
        for w, label in (("direct", "direct"), ("relay", "a trivial relay (the floor)"),
                         ("proxy", "the proxy's engine (HTTP CONNECT)")):
            c, t = en[f"connect_{w}_us"], en[f"transfer_{w}_us"]
            lines.append([label, c, "" if w == "direct" else c - en["connect_direct_us"],
                          f"{t / 1000:.1f}", en[f"{w}_mb_s"],
                          "" if w == "direct" else fmt_x(t / en["transfer_direct_us"])])
        out.append((f"proxy: the engine alone, in one process (bench/proxybench: "
                    f"{en['connects']} connections per way, each to the origin's first byte; "
                    f"{en['reps']} x {en['megabytes']} MB per way; interleaved; medians; CPU "
                    f"time of the transfer {en['cpu_ratio']:.2f}× direct, the relay's "
                    f"{en['cpu_relay_ratio']:.2f}×)", head(en["megabytes"]), lines))
    e2e = px.get("e2e") or {}
    if e2e.get("skipped"):
        out.append((f"proxy, end to end: not measured: {e2e['skipped']}", ["why"],
                    [[e2e["skipped"]]]))
    elif e2e.get("connect_us"):
        lines = []
        for w, label in (("on", "`--network on`, direct"),
                         ("relay", "`--network on`, through a trivial relay (the floor)"),
                         ("allow", f"`{e2e['allow_args']}`, through the proxy")):
            c, t = e2e["connect_us"][w], e2e["pull_ms"][w]
            med = e2e.get("connect_median_us", {}).get(w)
            lines.append([label, f"{c:.0f}", "" if w == "on" else
                          f"{c - e2e['connect_us']['on']:.0f}",
                          "" if med is None else f"{med:.0f}", f"{t:.1f}", e2e["pull_mb_s"][w],
                          "" if w == "on" else fmt_x(t / e2e["pull_ms"]["on"])])
        ck = e2e["check"]
        out.append((f"proxy, end to end: {e2e['client']} in `cordon run --sandbox required` "
                    f"({e2e['n']} connections per run, each to the origin's first byte; "
                    f"{e2e['pulls']} x {e2e['megabytes']} MB per run; {e2e['runs']} runs per way, "
                    "interleaved; the time of the client's loop, medians; the control, inside "
                    f"the allow run: through the proxy {ck['proxy']}, directly {ck['direct']})",
                    head(e2e["megabytes"], True), lines))
    return out


# Each cordon way over the kernel's own part of it, measured in the same
# run: the namespaces alone (waitwrap --ns, lib-spawn's ns_spawn).
FLOORS = [("ns_floor", "waitwrap", "the namespaces alone (waitwrap --ns) vs waitwrap"),
          ("ns_floor_net", "waitwrap", "the namespaces and a network namespace alone "
           "(waitwrap --ns-net) vs waitwrap"),
          ("confine_floor", "waitwrap", "Landlock, no_new_privs and cordon's filter alone "
           "(confwrap) vs waitwrap"),
          ("confine_ns_floor", "waitwrap", "the same in the namespaces (confwrap --ns) vs "
           "waitwrap"),
          ("confine_ns_floor_net", "waitwrap", "the same with a network namespace "
           "(confwrap --ns-net) vs waitwrap"),
          ("cordon_all", "confine_ns_floor", "every layer vs the kernel's part of it "
           "(confwrap --ns)"),
          ("cordon_all", "ns_floor", "every layer vs the namespaces alone (waitwrap --ns)"),
          ("cordon_all_netoff", "ns_floor_net",
           "every layer, --network off vs the namespaces alone (waitwrap --ns-net)")]


def floors(passes):
    """(name, ratio) of each way over its floor, per pass."""
    out = []
    for p in passes:
        who = p["role"]
        for c in p.get("commands", {}).values():
            for rid, base, what in FLOORS:
                r, b = find(c["rows"], rid), find(c["rows"], base)
                if r and b and r.get("available") and b.get("available") \
                        and r.get("group") == b.get("group"):
                    out.append((f"{who}, {c['command']}: {what}",
                                round(r["median_ms"] / b["median_ms"], 3)))
        lib = p.get("library", {}).get("this tree")
        for part, shown in (("light", ""), ("netoff", ", --network off")):
            w = (lib or {}).get(part, {}).get("ways", {})
            ns = w.get("ns_spawn", {})
            if "median_us" in ns:
                out.append((f"{who}, library{shown}: ns_spawn (the namespaces alone) vs "
                            "posix_spawn", ns["x_posix_spawn"]))
                out.append((f"{who}, library{shown}: cordon_spawn vs ns_spawn",
                            round(w["cordon_spawn"]["median_us"] / ns["median_us"], 3)))
    return [{"floor": n, "value": v} for n, v in out]


def growth_tables(p):
    """(caption, head, lines) of the growth parts of one pass."""
    out = []
    rp = p.get("repos") or {}
    if rp.get("rows"):
        head = ["way (`cordon run -- true`, workspace at the repository's top)", "median ms",
                "p10–p90 ms", "× the same in 100 files"]
        small = {r["way"]: r["median_ms"] for r in rp["rows"]
                 if r.get("repo") == rp["repos"][0]["id"] and r.get("group") != "cold"}
        cold_small = next((r["median_ms"] for r in rp["rows"] if r.get("group") == "cold"
                           and r.get("way") == "all"), None)
        lines = []
        for r in rp["rows"]:
            if r["id"] == "plain":
                x = ""
            elif r.get("group") == "cold":
                x = fmt_x(r["median_ms"] / cold_small) if r.get("way") == "cold" else ""
            else:
                x = fmt_x(r["median_ms"] / small[r["way"]])
            lines.append([r["label"], f"{r['median_ms']:.2f}",
                          f"{r['p10_ms']:.2f}–{r['p90_ms']:.2f}", x])
        made = ", ".join(f"{r['label']}: {r['made_s']} s" for r in rp["repos"]
                         if r.get("made_s") is not None)
        out.append((f"growth: repositories ({rp['runs']} runs per way, interleaved, after one "
                    "run not counted: warm rows find the index's directories kept in the state "
                    "dir; cold rows run each after `git update-index --refresh` rewrote the "
                    f"index; made by bench/mkrepo: {made})", head, lines))
        head = ["repository", "cordon's peak RSS, warm", "cold", "lstat of every tracked "
                "directory (floor)", "per lstat"]
        lines = [["`true` under the same measure", f"{rp['rss_kb']['true'] / 1024:.2f} MB", "",
                  "", ""]]
        for r in rp["repos"]:
            fl = rp["lstat_floor"][r["id"]]
            cold = rp["rss_kb"].get(f"cold@{r['id']}")
            warm = rp["rss_kb"]["all@" + r["id"]]
            lines.append([r["label"], f"{warm / 1024:.2f} MB",
                          "" if cold is None else f"{cold / 1024:.2f} MB",
                          f"{fl['median_us'] / 1000:.2f} ms", f"{fl['per_call_us']:.2f} µs"])
        out.append(("growth: cordon's peak memory (wait4's ru_maxrss, started from a small "
                    "process) and the floor of a walk of the tracked directories"
                    + (" (this pass is root: the guard's end check uses fanotify and looks "
                       "only at the directories the run touched)" if rp.get("fanotify") else ""),
                    head, lines))
    h = p.get("homes") or {}
    if h.get("rows"):
        head = ["way (`cordon run -- true` under seccomp-deny nons)", "median ms", "p10–p90 ms",
                "~/.ssh/id_rsa unreadable inside"]
        lines = [[r["label"], f"{r['median_ms']:.2f}", f"{r['p10_ms']:.2f}–{r['p90_ms']:.2f}",
                  {True: "yes", False: "NO (protected nothing)", None: ""}[r.get("protected")]]
                 for r in h["rows"]]
        fl = h["rules_floor"]
        out.append((f"growth: homes, Landlock only ({h['runs']} runs per way, interleaved); "
                    f"read layer: {fmt_x(h['reads_ratio'])} from the small home to the large, "
                    f"{h['reads_per_entry_us']:.2f} µs per entry (without it "
                    f"{fmt_x(h['off_ratio'])}, {h['off_per_entry_us']:.2f} µs); the floor, "
                    "openat(O_PATH) + landlock_add_rule per entry and the rules' copy at "
                    f"landlock_restrict_self: {fl['per_entry_us']:.2f} µs per entry", head, lines))
    sk = p.get("sockets") or {}
    if sk.get("loads"):
        head = ["load", "calls", "plain ms", "every layer ms", "× plain", "µs per call, plain",
                "every layer", "µs more per call"]
        lines = [[ld["label"], ld["n"], f"{ld['plain_loop_ms']:.1f}", f"{ld['cordon_loop_ms']:.1f}",
                  fmt_x(ld["x_plain"]), f"{ld['plain_per_call_us']:.2f}",
                  f"{ld['cordon_per_call_us']:.2f}", f"{ld['extra_per_call_us']:.2f}"]
                 for ld in sk["loads"]]
        c = sk["check"]
        out.append((f"growth: socket loads (bench/sockload.py, the time of the calls' loop, "
                    f"medians of {sk['runs']} runs per way; socket layer: "
                    f"{', '.join(c['socket_layers'])}; a socket outside the workspace: "
                    f"{c['outside_plain']} plain, {c['outside_confined']} inside"
                    + (f"; the floor of any supervisor, a sendmsg handed to another thread by a "
                       f"seccomp notification and let go on: {sk['floor']['extra_per_call_us']:.2f} "
                       f"µs more per call than plain ({sk['floor']['plain_per_call_us']:.2f} µs), "
                       "bench/growcost notif" if sk.get("floor") else "") + ")", head, lines))
    su = p.get("suites") or {}
    if su.get("suites"):
        head = ["suite", "wall ms plain", "every layer", "× plain", "CPU ms plain", "every layer",
                "CPU × plain", "paired CPU min–max"]
        lines = [[st["label"], f"{st['plain_wall_ms']:.0f}", f"{st['cordon_wall_ms']:.0f}",
                  fmt_x(st["x_plain"]), f"{st['plain_cpu_ms']:.0f}", f"{st['cordon_cpu_ms']:.0f}",
                  f"{st['cpu_x_plain']:.3f}×",
                  f"{st['cpu_paired'][0]:.3f}–{st['cpu_paired'][1]:.3f}"]
                 for st in su["suites"]]
        left = [f"{t} (exit {v['confined_exit']} inside"
                + (f": {v['first_failure']})" if v["first_failure"] else ")")
                for st in su["suites"] for t, v in st.get("unit_tests_left_out", {}).items()]
        cap = (f"growth: suites ({su['runs']} runs per way, interleaved; CPU = user + system of "
               "every process of the run, wait4 rusage)")
        if left:
            cap += ("; unit test programs left out, as they fail inside a confined run (most "
                    "write to /tmp or confine commands of their own): " + "; ".join(left))
        out.append((cap, head, lines))
    return out


def render(doc):
    text, md = [], []
    m = doc["machine"]
    meth = doc["passes"][0]["method"] if doc["passes"] else {}
    head = (f"cordon benchmark, {doc['date']}: {m['nproc']} CPUs ({m['cpu']}), "
            f"Linux {m['kernel']}, Debian {m['debian']}")
    tools = ", ".join(f"{v}" for v in m["tools"].values() if v)
    how = (f"hyperfine -N, {meth.get('runs')} runs per way in {meth.get('rounds')} interleaved "
           f"rounds ({meth.get('warmup_per_round')} warm-up runs per way and round); medians; "
           "cordon with --no-caches --state-dir and --status-file in the scratch dir")
    text += [head, tools, how]
    md += [f"- Date: {doc['date']}", f"- Machine: {m['nproc']} CPUs ({m['cpu']}), "
           f"Linux {m['kernel']}, Debian {m['debian']}", f"- Tools: {tools}",
           f"- cordon: {m['cordon']['version']} at {m['cordon']['commit']}"
           + (" (src/cli/include/bench modified)" if m['cordon']['dirty'] else ""),
           f"- Method: {how}"]
    for p in doc["passes"]:
        title = f"as {p['role']} (uid {p['uid']}); probe layers: " + ", ".join(
            p["probe"].get("layers") or [])
        text += ["", "== " + title]
        md += ["", f"### As {p['role']} (uid {p['uid']})", "",
               "Probe layers: " + ", ".join(p["probe"].get("layers") or []) + "."]
        for cid, c in p.get("commands", {}).items():
            lines = [row_line(r) for r in c["rows"]]
            text += ["", c["command"]] + ["  " + x for x in table(lines, HEAD)]
            md += ["", f"`{c['command']}`", ""] + md_table(lines, HEAD)
        lib = p.get("library")
        if lib and "this tree" in lib:
            res = lib["this tree"]
            lh = ["library, per spawn of /bin/true", "median µs", "× posix_spawn",
                  "p10–p90 µs"]
            for part in ("light", "heavy", "landlock_only", "netoff"):
                if part not in res:
                    continue
                r = res[part]
                lines = [[w, f"{v['median_us']:.0f}", fmt_x(v["x_posix_spawn"]),
                          f"{v['p10_us']:.0f}–{v['p90_us']:.0f}"] if "median_us" in v
                         else [w, "—", "—", f"unavailable: {v.get('unavailable')}"]
                         for w, v in r["ways"].items()]
                cap = (f"library: a caller with {r['ballast_mb']} MB of touched memory, "
                       f"{r['n']} spawns per way, interleaved")
                if part == "netoff":
                    cap = (f"library, --network off (the run's network namespace), {r['n']} "
                           "spawns per way")
                if part == "landlock_only":
                    cap = ("library, the mount layer refused (under seccomp-deny nons): "
                           f"Landlock and seccomp only, {r['n']} spawns per way")
                text += ["", cap] + ["  " + x for x in table(lines, lh)]
                md += ["", cap + ":", ""] + md_table(lines, lh)
            if "landlock_only" in res:
                def extra(part):
                    w = res[part]["ways"]
                    return w["cordon_spawn"]["median_us"] - w["posix_spawn"]["median_us"]
                s = (f"cordon_spawn costs {extra('light'):.0f} µs more than posix_spawn with "
                     f"every layer and {extra('landlock_only'):.0f} µs more with Landlock and "
                     f"seccomp only: the mount layer adds about "
                     f"{extra('light') - extra('landlock_only'):.0f} µs per spawn")
                text += [s]
                md += ["", s + "."]
            b = res["begin"]
            s = (f"first cordon_begin of a process {b['first_begin_median_us']:.0f} µs, "
                 f"later ones {b['later_begin_median_us']:.0f} µs: the probe costs "
                 f"{b['probe_us']:.0f} µs once per process ("
                 + ", ".join(f"{v:.0f} µs per spawn over {k}"
                             for k, v in b["probe_amortised"].items()) + ")")
            text += [s]
            md += ["", s + "."]
        others = [k for k in (lib or {}) if k != "this tree"]
        if others:
            oh = ["library, prototype", "cordon_spawn × posix_spawn",
                  f"same, {lib[others[0]]['heavy']['ballast_mb']} MB caller",
                  "cordon_run × posix_spawn", "probe µs"]
            lines = []
            for k in ["this tree"] + others:
                if k not in lib:
                    continue
                r = lib[k]
                lines.append([k, fmt_x(r["light"]["ways"]["cordon_spawn"]["x_posix_spawn"]),
                              fmt_x(r["heavy"]["ways"]["cordon_spawn"]["x_posix_spawn"]),
                              fmt_x(r["light"]["ways"]["cordon_run"]["x_posix_spawn"]),
                              f"{r['begin']['probe_us']:.0f}"])
            text += ["", "library, prototypes in the same run"] + ["  " + x for x in
                                                                   table(lines, oh)]
            md += ["", "Library, prototypes in the same run:", ""] + md_table(lines, oh)
        wl = p.get("workload")
        if wl:
            wh = ["workload", "wall ms", "× plain", "paired p10–p90", "CPU ms",
                  "CPU × plain", "paired p10–p90"]
            lines = []
            for r in wl["rows"]:
                w, c = r["wall_paired_x_plain"], r["cpu_paired_x_plain"]
                lines.append([r["id"], f"{r['median_ms']:.0f}", fmt_x(r["x_plain"]),
                              f"{w['p10']:.3f}–{w['p90']:.3f}", f"{r['cpu_median_ms']:.0f}",
                              fmt_x(r["cpu_x_plain"]), f"{c['p10']:.3f}–{c['p90']:.3f}"])
            cap = (f"workload: {wl['command']} ({wl['files']} C files), "
                   f"{p['method']['work_runs']} runs per way, interleaved; CPU time = user + "
                   "system of every process of the run (wait4 rusage); paired = run i of the "
                   "way over run i of plain")
            text += ["", cap] + ["  " + x for x in table(lines, wh)]
            md += ["", cap, ""] + md_table(lines, wh)
        for cap, head, lines in growth_tables(p) + proxy_tables(p):
            text += ["", cap] + ["  " + x for x in table(lines, head)]
            md += ["", cap + ":", ""] + md_table(lines, head)
    th = ["target", "measured", "limit", "met", "kernel's part alone (floor)"]

    def floor_cell(t):
        f, note = t.get("floor"), t.get("note")
        cell = "" if f is None else fmt_u(f, t.get("unit", "×")) + (
            " (above the limit: out of reach here)" if f > t["limit"] else "")
        return "; ".join(x for x in (cell, note) if x)
    lines = [[t["target"], fmt_u(t["value"], t.get("unit", "×")),
              f"≤ {t['limit']}{'' if t.get('unit', '×') == '×' else ' '}{t.get('unit', '×')}",
              {True: "yes", False: "NO", None: "not measurable yet"}[t["met"]],
              floor_cell(t)] for t in doc["targets"]]
    text += ["", "targets"] + ["  " + x for x in table(lines, th)]
    md += ["", "### Targets", ""] + md_table(lines, th)
    fh = ["way over its floor (the kernel's part of it, same run)", "ratio"]
    lines = [[f["floor"], fmt_x(f["value"])] for f in doc.get("floors", [])]
    if lines:
        text += ["", "floors"] + ["  " + x for x in table(lines, fh)]
        md += ["", "### Floors", ""] + md_table(lines, fh)
    return "\n".join(text), "\n".join(md) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--commit")
    ap.add_argument("--dirty", choices=["0", "1"])
    ap.add_argument("--version")
    ap.add_argument("passes", nargs="+")
    a = ap.parse_args()
    passes = []
    for f in a.passes:
        with open(f) as fh:
            passes.append(json.load(fh))
    doc = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "machine": machine(a.top, a), "passes": passes}
    doc["targets"] = targets(passes)
    doc["floors"] = floors(passes)
    text, md = render(doc)
    with open(a.json, "w") as f:
        json.dump(doc, f, indent=1)
    with open(a.markdown, "w") as f:
        f.write(md)
    print(text)
    print(f"\nwritten: {a.json}, {a.markdown}")


if __name__ == "__main__":
    main()

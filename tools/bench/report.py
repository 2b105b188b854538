#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the bench's VM output into the table, results.json and the plot.

Reads the results port of the bench VM run (build/bench/vm/results.txt),
whose "bench: result NAME SIDE VALUE UNIT" lines nvsvm-bench printed in the
guest, and writes:

- a table on stdout: name, ours, peer, ratio, unit, goal, met;
- --json: a list with one object per workload and size, with exactly the
  fields of issue 8 item 1: name, ours, peer, ratio, unit, goal, met;
- --plot: a PNG (gnuplot): the rates of a, b, c, h beside the peer's, and
  every figure that has a goal as a fraction of it (1 = just met).

--m73 reads the results port of the second VM run, m alone on the 7.3 bench
kernel (run-bench.sh step 9): its m.* figures become m73.*, its notes are
prefixed "[7.3]".

The goals of issue 8 item 3 are the GOALS table below: data, not tests.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

# letter -> (what, how the ratio is formed, goal: (field, op, value) or None)
#   ratio "peer":  ours / peer of the same name
#   ratio "peer-a": ours / the peer's a figure of the same size (c)
#   ratio "ours-a", "ours-b": ours / our own a (b) figure of the same size (h)
#   ratio "ours-off": ours / our own p.off figure (p.on)
#   ratio "ours-uvm": ours / our own NAME.uvm figure of the same size (o.*)
#   ratio "ours-free": ours / our own o.serve.free figure (o.serve.*)
#   ratio "ours-batch": ours / our own r.batch figure of the same size
#   ratio "ours-4k": ours / our own 4 KiB figure of the same size (m.*.2m)
GOALS = {
    "a": ("GPU first-touch read through faults", "peer", ("ratio", ">=", 1.0)),
    "b": ("GPU first-touch write, never-touched memory", "peer",
          ("ratio", ">=", 1.0)),
    "b.cpu": ("b over the CPU's memset of fresh memory, same size", None,
              ("ours", ">=", 0.5)),
    "a/x": ("a over the same SUM again, mapped (1: faults cost nothing)",
            None, None),
    "b/x": ("b over the same FILL again, mapped", None, None),
    "c": ("explicit MAP of a populated range (peer: dmirror read)", "peer-a",
          ("ratio", ">=", 2.0)),
    "a/c": ("a over c, same size (faults against MAP)", None,
            ("ours", ">=", 0.5)),
    "x.sum": ("the model's cost: GPU SUM on mapped pages, ns/page", None,
              None),
    "x.fill": ("the model's cost: GPU FILL on mapped pages, ns/page", None,
               None),
    "d": ("munmap slowdown, GPU-mapped vs not", "peer", ("ours", "<=", 1.5)),
    "e": ("munmap of 1 GiB, one page GPU-mapped vs none", None,
          ("ours", "<=", 1.2)),
    "f": ("replays per 1000 faults, storm of every GPC's warps", None,
          ("ours", "<=", 10.0)),
    "a.serve": ("a's serve time over its floor (hmm_range_fault() and the"
                " PTE writes), summed over the batches", None,
                ("ours", "<=", 1.5)),
    "a.p50": ("a's serve time per batch, median, us", None, None),
    "a.p99": ("a's serve time per batch, 99th percentile, us", None, None),
    "b.serve": ("b's serve time over its floor", None, ("ours", "<=", 1.5)),
    "b.p50": ("b's serve time per batch, median, us", None, None),
    "b.p99": ("b's serve time per batch, 99th percentile, us", None, None),
    "f.batch": ("faults per batch, same storm", None, None),
    "f.dups": ("duplicate entries per batch, same storm", None, None),
    "f.inval": ("TLB invalidates per 1000 faults, same storm", None, None),
    "g": ("GPU page-table bytes per mapped byte", None, ("ours", "<=", 0.25)),
    "g.after": ("page-table bytes left after munmap (max)", None,
                ("ours", "==", 0.0)),
    "h.a": ("a on THP, ratio to a on 4 KiB pages", "ours-a",
            ("ratio", ">=", 5.0)),
    "h.b": ("b on THP, ratio to b on 4 KiB pages", "ours-b",
            ("ratio", ">=", 5.0)),
    "h.a/x": ("h.a over the same SUM again, mapped", None, None),
    "h.b/x": ("h.b over the same FILL again, mapped", None, None),
    "h.b.cpu": ("h.b over the CPU's memset of fresh THP memory", None, None),
    "k.touch": ("compiled program: one store per page of fresh 16 MiB, the"
                " interpreter's insn/s (faults in the notes)", None, None),
    "k.saxpy": ("compiled program: saxpy of 64 Ki floats, insn/s", None,
                None),
    "k.ddot": ("compiled program: 512 dot products of 512 doubles, insn/s",
               None, None),
    "k.chase": ("compiled program: 64 malloc'd lists of 256 nodes, insn/s",
                None, None),
    "m.vram.4k": ("MIGRATE to VRAM of populated 4 KiB pages, GB/s", None,
                  None),
    "m.vram.2m": ("MIGRATE to VRAM of THPs, GB/s: 2 MiB VRAM pages where"
                  " NVSVM_CAP_VRAM_2M (ratio: to 4 KiB)", "ours-4k", None),
    "m.sys.4k": ("MIGRATE back to system memory, 4 KiB pages, GB/s", None,
                 None),
    "m.sys.2m": ("MIGRATE back to system memory, 2 MiB pages, GB/s (ratio:"
                 " to 4 KiB)", "ours-4k", None),
    "m73.vram.4k": ("m.vram.4k on the 7.3 bench kernel", None, None),
    "m73.vram.2m": ("MIGRATE to VRAM of THPs as 2 MiB VRAM pages, 7.3 bench"
                    " kernel, GB/s (ratio: to m73.vram.4k)", "ours-4k", None),
    "m73.sys.4k": ("m.sys.4k on the 7.3 bench kernel", None, None),
    "m73.sys.2m": ("MIGRATE back of 2 MiB VRAM pages as THPs, 7.3 bench"
                   " kernel, GB/s (ratio: to m73.sys.4k)", "ours-4k", None),
    "p.on": ("CPU/GPU ping-pong rounds/s, thrashing detection on (ratio: to"
             " off)", "ours-off", None),
    "p.off": ("same ping-pong, detection off", None, None),
    "o.seq": ("oversubscription, sequential sweep, MiB/s, evict_policy lru"
              " (ratio: to uvm)", "ours-uvm", ("ratio", ">=", 0.95)),
    "o.seq.uvm": ("same, evict_policy uvm (UVM's allocation order)", None,
                  None),
    "o.hot": ("oversubscription, hot-set walk (90 % of accesses to 20 % of"
              " the blocks), lru (ratio: to uvm)", "ours-uvm",
              ("ratio", ">=", 0.95)),
    "o.hot.uvm": ("same, evict_policy uvm", None, None),
    "o.turns": ("oversubscription, CPU and GPU taking turns on one buffer,"
                " lru (ratio: to uvm)", "ours-uvm", ("ratio", ">=", 0.95)),
    "o.turns.uvm": ("same, evict_policy uvm", None, None),
    "o.serve.free": ("ms per MIGRATE of a 2 MiB block into free VRAM", None,
                     None),
    "o.serve.seq.on": ("ms per MIGRATE, sequential sweep, background evictor"
                       " (evict_low 2) (ratio: to VRAM free)", "ours-free",
                       ("ratio", "<=", 1.2)),
    "o.serve.seq.off": ("same, no evictor: the MIGRATE evicts (ratio: to"
                        " VRAM free)", "ours-free", None),
    "o.serve.hot.on": ("ms per MIGRATE, hot-set walk, background evictor"
                       " (ratio: to VRAM free)", "ours-free", None),
    "o.serve.hot.off": ("same, no evictor (ratio: to VRAM free)", "ours-free",
                        None),
    "r.utlb": ("b's storm, replay per micro-TLB (replay_utlb=Y): GPU warp-us"
               " stalled on faults (ratio: to per batch)", "ours-batch",
               None),
    "r.batch": ("same storm, one replay per run of batches (replay_utlb=N)",
                None, None),
    "r.stall": ("stall warp-us, replay per micro-TLB over per batch", None,
                ("ours", "<=", 0.7)),
    "r.wait": ("same with the micro-TLB lockdown wait, over per batch", None,
               None),
    "r.utlb.f": ("replays per 1000 faults, replay per micro-TLB", None,
                 ("ours", "<=", 10.0)),
    "r.batch.f": ("replays per 1000 faults, per batch", None, None),
    "r.utlb.f1": ("replays per 1000 first faults (refaults left out),"
                  " replay per micro-TLB", None, None),
    "r.batch.f1": ("replays per 1000 first faults, per batch", None, None),
    "r.utlb.wait": ("stall + lockdown warp-us, replay per micro-TLB", None,
                    None),
    "r.batch.wait": ("stall + lockdown warp-us, per batch", None, None),
    "r.utlb.b": ("the storm's pages/s, replay per micro-TLB", None, None),
    "r.batch.b": ("the storm's pages/s, per batch", None, None),
}
# Goals of one size only: issue 36 item 1, the hot set at 150 % of VRAM.
GOAL_AT = {("o.hot", "150%"): ("ratio", ">=", 1.5)}
ORDER = list(GOALS)
RESULT = re.compile(r"^bench: result (\S+) (ours|peer) (\S+) (\S+)\s*$")


def parse(path, m73=False):
    """{(name, side): (value, unit)} and the note and profile lines; with
    @m73 (the 7.3 pass) the m.* figures only, as m73.*, and notes tagged."""
    figures, notes, profile = {}, [], []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = RESULT.match(line)
            if m and m73:
                if m.group(1).startswith("m."):
                    figures[("m73." + m.group(1)[2:], m.group(2))] = (
                        float(m.group(3)), m.group(4))
            elif m:
                figures[(m.group(1), m.group(2))] = (float(m.group(3)),
                                                     m.group(4))
            elif line.startswith("bench: #") and m73:
                notes.append("# [7.3]" + line[len("bench: #"):])
            elif line.startswith("bench: #"):
                notes.append(line[len("bench: "):])
            elif line.startswith("profile: "):
                profile.append(line[len("profile: "):])
    return figures, notes, profile


def split(name):
    """'h.a-64M' -> ('h.a', '64M')."""
    letter, _, size = name.rpartition("-")
    return letter, size


def met(goal, ours, ratio):
    if goal is None:
        return None
    field, op, want = goal
    v = ours if field == "ours" else ratio
    if v is None:
        return None
    return {">=": v >= want, "<=": v <= want, "==": v == want}[op]


def build(figures):
    rows = []
    names = sorted({n for n, _ in figures},
                   key=lambda n: (ORDER.index(split(n)[0])
                                  if split(n)[0] in ORDER else 99,
                                  int(re.sub(r"\D", "", split(n)[1]) or 0)
                                  * (1024 if split(n)[1].endswith("G") else 1)))
    for name in names:
        letter, size = split(name)
        what, how, goal = GOALS.get(letter, ("", None, None))
        goal = GOAL_AT.get((letter, size), goal)
        ours, unit = figures.get((name, "ours"), (None, None))
        peer = figures.get((name, "peer"), (None, None))[0]
        base = None
        if how == "peer":
            base = peer
        elif how == "peer-a":
            peer = figures.get(("a-" + size, "peer"), (None, None))[0]
            base = peer
        elif how in ("ours-a", "ours-b"):
            base = figures.get((how[-1] + "-" + size, "ours"), (None, None))[0]
        elif how == "ours-off":
            base = figures.get(("p.off-" + size, "ours"), (None, None))[0]
        elif how == "ours-batch":
            base = figures.get(("r.batch-" + size, "ours"), (None, None))[0]
        elif how == "ours-4k":
            base = figures.get((letter[:-2] + "4k-" + size, "ours"),
                               (None, None))[0]
        elif how == "ours-free":
            base = figures.get(("o.serve.free-" + size, "ours"),
                               (None, None))[0]
        elif how == "ours-uvm":
            base = figures.get((letter + ".uvm-" + size, "ours"),
                               (None, None))[0]
        ratio = ours / base if ours is not None and base else None
        rows.append({
            "name": name,
            "ours": ours,
            "peer": peer,
            "ratio": round(ratio, 4) if ratio is not None else None,
            "unit": unit or figures.get((name, "peer"), (0, ""))[1],
            "goal": " ".join(str(g) for g in goal) if goal else None,
            "met": met(goal, ours, ratio),
            "_what": what,
            "_goal": goal,
        })
    return rows


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if v == 0 or 0.01 <= abs(v) < 1e6:
        return f"{v:.4g}" if abs(v) < 1000 else f"{v:.0f}"
    return f"{v:.3e}"


def table(rows):
    head = ("name", "ours", "peer", "ratio", "unit", "goal", "met")
    lines = [[r["name"], fmt(r["ours"]), fmt(r["peer"]), fmt(r["ratio"]),
              r["unit"], r["goal"] or "-", fmt(r["met"])] for r in rows]
    w = [max(len(x) for x in col) for col in zip(head, *lines)]
    out = ["  ".join(h.ljust(n) for h, n in zip(head, w))]
    out.append("  ".join("-" * n for n in w))
    out += ["  ".join(c.ljust(n) for c, n in zip(line, w)) for line in lines]
    return "\n".join(out)


def plot(rows, path):
    """Two panels with gnuplot; returns an error string or None."""
    if not shutil.which("gnuplot"):
        return "gnuplot not installed (tools/bench/deps.sh)"
    d = os.path.splitext(path)[0] + ".plot"
    os.makedirs(d, exist_ok=True)
    rates = [r for r in rows if r["unit"] == "pages/s"]
    if not rates:
        return "no pages/s figure (the oversubscription pass alone?)"
    with open(os.path.join(d, "rates.dat"), "w") as f:
        for r in rates:
            f.write(f'"{r["name"]}" {r["ours"] or 0:g} {r["peer"] or 0:g}\n')
    goals = []
    for r in rows:
        g, v = r["_goal"], None
        if not g or g[1] == "==":
            continue
        x = r["ours"] if g[0] == "ours" else r["ratio"]
        if x is None:
            continue
        if g[1] == ">=":
            v = x / g[2]
        elif x > 0:
            v = g[2] / x
        else:
            v = 100.0
        goals.append((r["name"], max(v, 1e-3)))
    with open(os.path.join(d, "goals.dat"), "w") as f:
        for name, v in goals:
            f.write(f'"{name}" {v:g} {1 if v >= 1 else 0}\n')
    script = f"""
set terminal pngcairo noenhanced size 1200,900 font ",10"
set output "{path}"
set multiplot layout 2,1 title "nvsvm make bench (median of the repetitions)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set grid ytics
set xtics rotate by -30
set ylabel "pages/s (log)"
set title "first touch and MAP: nvsvm vs lib/test_hmm.ko (dmirror)"
plot "{d}/rates.dat" using 2:xtic(1) title "nvsvm" lc rgb "#1f77b4", \\
     "" using 3 title "dmirror" lc rgb "#ff7f0e"
set style data boxes
set boxwidth 0.6
set ylabel "figure / goal (log; >= 1 meets it)"
set title "every figure with a goal, relative to the goal (issue 8 item 3)"
set yrange [0.001:*]
plot "{d}/goals.dat" using 0:2:($3 > 0 ? 0x2ca02c : 0xd62728):xtic(1) \\
     with boxes lc rgb variable notitle, 1 with lines dt 2 lc rgb "black" notitle
unset multiplot
"""
    with open(os.path.join(d, "plot.gp"), "w") as f:
        f.write(script)
    p = subprocess.run(["gnuplot", os.path.join(d, "plot.gp")],
                       capture_output=True, text=True)
    if p.returncode:
        return p.stderr.strip() or f"gnuplot exit status {p.returncode}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--json")
    ap.add_argument("--plot")
    ap.add_argument("--meta", action="append", default=[])
    ap.add_argument("--m73", help="results port of the 7.3 pass of m")
    a = ap.parse_args()

    if not os.path.exists(a.results):
        print(f"report.py: {a.results} missing (the VM run failed?)",
              file=sys.stderr)
        return 1
    figures, notes, profile = parse(a.results)
    if a.m73:
        if os.path.exists(a.m73):
            f73, n73, _ = parse(a.m73, m73=True)
            figures.update(f73)
            notes += n73
        else:
            print(f"report.py: {a.m73} missing (the 7.3 VM run failed?)",
                  file=sys.stderr)
    rows = build(figures)
    for m in a.meta:
        print(f"# {m}")
    for n in notes:
        print(n)
    if profile:
        print("# busiest kernel functions in the profile pass "
              "(function profiler; time includes callees):")
        for p in profile:
            print(f"#   {p}")
    print()
    print(table(rows))
    missing = [r["name"] for r in rows if r["met"] is False]
    print(f"\n{len(rows)} figures, {sum(r['met'] is True for r in rows)} goals "
          f"met, {len(missing)} missed" +
          (f": {', '.join(missing)}" if missing else ""))
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{k: v for k, v in r.items() if not k.startswith("_")}
                       for r in rows], f, indent=1)
            f.write("\n")
    if a.plot:
        err = plot(rows, a.plot)
        if err:
            print(f"report.py: no plot: {err}", file=sys.stderr)
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())

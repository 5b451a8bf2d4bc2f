#!/usr/bin/env python3
"""Steady-state figures of a facade trace (c2prove -trace, device-test.sh facade-sector).

    python3 native/trace-stats.py facade-trace-<limit>.json [-n 30] [-gaps] [-urgent]

Prints, over the last N partitions to end: each GPU phase's mean duration,
their span divided by N ("span/partition"), the share of that span covered by
the union of the GPU phases (H, the h MSM, the aux MSMs: 100 % means the GPU
never waits between them), and the steady s/proof: (last proof's end - first
proof's end) / (proofs - 1), a proof ending with its last self-verify span.
With -gaps it also lists where the GPU idles in that window: the gaps
between the union's intervals (their sizes, and the time the gaps overlap
each other phase, such as upload or wait_vram), and for each partition
whether its wait_vram ended when another partition ended (within 1 ms):
the device memory, not the GPU, held it back; and the time the window's
uploads ran inside each GPU phase (hidden behind another partition's work).
With -urgent it lists, for each proof an urgent prover worker proved (a
WinningPoSt's), its spans from its first, and the partitions whose
synthesis allocated a new assignment (synthesis_prep's new_assignment).
BENCHMARKS.md's trace means come from it.
"""
import argparse
import json

GPU_PHASES = ["H", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2"]
SHOWN = ["partition", "wait_vram"] + GPU_PHASES + ["aux_beside", "abc_eval"]


def union(intervals):
    total, cur = 0, None
    for s, e in sorted(intervals):
        if cur is None or s > cur[1]:
            if cur is not None:
                total += cur[1] - cur[0]
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    return total + (cur[1] - cur[0] if cur else 0)


def gaps(by, t0, t1):
    """Prints the idle gaps of the GPU phases' union within [t0, t1]."""
    end = lambda e: e["ts"] + e["dur"]
    iv = sorted((e["ts"], end(e)) for n in GPU_PHASES for e in by.get(n, []) if e["ts"] >= t0 and end(e) <= t1)
    out, cur = [], None
    for s, e in iv:
        if cur is not None and s > cur[1]:
            out.append((cur[1], s))
        cur = [s, e] if cur is None or s > cur[1] else [cur[0], max(cur[1], e)]
    if not out:
        print("gaps: none")
        return
    ms = sorted((b - a) / 1e3 for a, b in out)
    print("gaps %d, %.3f s: %d under 1 ms; the others %s ms" % (
        len(ms), sum(ms) / 1e3, sum(1 for x in ms if x < 1), ", ".join("%.0f" % x for x in ms if x >= 1)))
    over = {}
    for name, es in by.items():
        if name in GPU_PHASES:
            continue
        for e in es:
            for a, b in out:
                o = min(b, end(e)) - max(a, e["ts"])
                if o > 0:
                    over[name] = over.get(name, 0) + o
    print("gaps overlapped by: " + ", ".join("%s %.3f s" % (n, v / 1e6) for n, v in sorted(over.items(), key=lambda x: -x[1])))
    # where the witness uploads run: inside which GPU phase (hidden) or in none (a gap)
    ups = [e for e in by.get("upload", []) if t0 <= e["ts"] <= t1]
    inside = {}
    for n in GPU_PHASES:
        for g in by.get(n, []):
            for u in ups:
                o = min(end(g), end(u)) - max(g["ts"], u["ts"])
                if o > 0:
                    inside[n] = inside.get(n, 0) + o
    print("uploads %d, %.3f s; inside GPU phases: %s" % (len(ups), sum(u["dur"] for u in ups) / 1e6,
        ", ".join("%s %.3f s" % (n, v / 1e6) for n, v in sorted(inside.items(), key=lambda x: -x[1])) or "none"))
    parts = by.get("partition", [])
    ends = [end(p) for p in parts]
    waits = [w for w in by.get("wait_vram", []) if t0 <= w["ts"] <= t1]
    held = sum(1 for w in waits if w["dur"] >= 1000 and any(abs(end(w) - x) <= 1000 for x in ends if x != end(w)))
    print("wait_vram of 1 ms or more ending with another partition's end (within 1 ms): %d of %d" % (held, len(waits)))


def urgent(ev):
    """Prints the phases of the proofs an urgent prover worker proved."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = [e for e in ev if e.get("ph") == "X"]
    proof = lambda e: (e.get("args") or {}).get("proof")
    for k in sorted({proof(e) for e in spans if e["name"] == "partition" and names.get((e["pid"], e["tid"])) == "prover urgent"}):
        mine = sorted((e for e in spans if proof(e) == k), key=lambda e: e["ts"])
        t0 = mine[0]["ts"]
        print("urgent proof %s: %.3f s from its first span to its last" % (k, (max(e["ts"] + e["dur"] for e in mine) - t0) / 1e6))
        for e in mine:
            args = {a: v for a, v in e["args"].items() if a not in ("proof", "sector", "partition", "device")}
            print("  %8.3f %7.3f %-16s %-14s %s" % ((e["ts"] - t0) / 1e6, e["dur"] / 1e6, names.get((e["pid"], e["tid"]), ""), e["name"],
                                                   json.dumps(args) if args else ""))
    fresh = [e for e in spans if e["name"] == "synthesis_prep" and e["args"].get("new_assignment")]
    print("new assignments %d: %s" % (len(fresh), ", ".join("proof %s %.2f s" % (proof(e), e["dur"] / 1e6) for e in fresh)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("-n", type=int, default=30, help="partitions, counted back from the last to end")
    ap.add_argument("-gaps", action="store_true", help="where the GPU idles between its phases")
    ap.add_argument("-urgent", action="store_true", help="the urgent proofs' phases, and new assignments")
    a = ap.parse_args()
    d = json.load(open(a.trace))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    by = {}
    for e in ev:
        if e.get("ph") == "X":
            by.setdefault(e["name"], []).append(e)
    end = lambda e: e["ts"] + e["dur"]
    parts = sorted(by.get("partition", []), key=end)[-a.n:]
    if not parts:
        raise SystemExit("no partition spans in " + a.trace)
    t0, t1 = min(e["ts"] for e in parts), max(end(e) for e in parts)
    for name in SHOWN:
        es = sorted(by.get(name, []), key=end)[-a.n:]
        if es:
            print("%-10s mean %.3f s (last %d of %d)" % (name, sum(e["dur"] for e in es) / len(es) / 1e6, len(es), len(by[name])))
    print("span/partition %.3f s over the last %d partitions" % ((t1 - t0) / 1e6 / len(parts), len(parts)))
    inside = [(e["ts"], end(e)) for n in GPU_PHASES for e in by.get(n, []) if e["ts"] >= t0 and end(e) <= t1]
    print("GPU phases cover %.2f of %.2f s: %.1f %%" % (union(inside) / 1e6, (t1 - t0) / 1e6, 100 * union(inside) / (t1 - t0)))
    if a.gaps:
        gaps(by, t0, t1)
    if a.urgent:
        urgent(ev)
    ends = {}
    for e in by.get("self-verify", []):
        k = (e.get("args") or {}).get("proof")
        ends[k] = max(ends.get(k, 0), end(e))
    if len(ends) > 1:
        t = sorted(ends.values())
        print("proofs %d, steady %.2f s/proof; ends %s s" % (
            len(t), (t[-1] - t[0]) / 1e6 / (len(t) - 1), ", ".join("%.1f" % ((x - t[0]) / 1e6) for x in t)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Steady-state figures of a facade trace (c2prove -trace, device-test.sh facade-sector).

    python3 native/trace-stats.py facade-trace-<limit>.json [-n 30]

Prints, over the last N partitions to end: each GPU phase's mean duration,
their span divided by N ("span/partition"), the share of that span covered by
the union of the GPU phases (H, the h MSM, the aux MSMs: 100 % means the GPU
never waits between them), and the steady s/proof: (last proof's end - first
proof's end) / (proofs - 1), a proof ending with its last self-verify span.
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("-n", type=int, default=30, help="partitions, counted back from the last to end")
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

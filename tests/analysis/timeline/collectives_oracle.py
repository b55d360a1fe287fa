#!/usr/bin/env python3
"""Independent oracle for Sightline's collective bytes and bandwidth (issue 15).

For every NCCL/RCCL kernel of a Kineto trace that carries PyTorch's collective args, computes with nccl-tests'
definitions (doc/PERFORMANCE.md): S = max(In msg nelems, Out msg nelems) * element size, algbw = S / t (t = kernel
duration), busbw = algbw * 2(n-1)/n (all-reduce), (n-1)/n (all-gather, reduce-scatter, all-to-all), 1 otherwise.
Prints one JSON object per (Collective name, Process Group Name, Group size, dtype):
  {"collective", "pg", "n", "dtype", "count", "bytes", "time_ns", "algbw_Bps", "busbw_Bps"}
where algbw_Bps = sum(S) / sum(t). Standard library only: it shares no code with the C++ it checks.
"""
import gzip
import json
from decimal import Decimal, ROUND_HALF_UP
import sys
from collections import defaultdict

ELT = {"Float": 4, "Int": 4, "BFloat16": 2, "Half": 2, "Double": 8, "Long": 8, "Byte": 1, "Char": 1, "Bool": 1}


def factor(kind, n):
    k = kind.replace("_", "").lower()
    if "allreduce" in k:
        return 2 * (n - 1) / n
    if "allgather" in k or "reducescatter" in k or "alltoall" in k:
        return (n - 1) / n
    return 1.0


def to_ns(us):
    """Microseconds as the trace writes them -> integer ns (nearest; Kineto prints 3 decimals)."""
    return int((Decimal(us) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f, parse_float=Decimal)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    g = defaultdict(lambda: {"count": 0, "bytes": 0, "time_ns": 0})
    for e in ev:
        if e.get("cat") != "kernel" or not e["name"].lower().startswith(("nccl", "rccl")):
            continue
        a = e.get("args", {})
        if "Collective name" not in a:
            continue
        key = (a["Collective name"], a.get("Process Group Name", ""), a.get("Group size", 0), a.get("dtype", ""))
        s = max(a["In msg nelems"], a["Out msg nelems"]) * ELT[a["dtype"]]
        t = to_ns(e["dur"])
        x = g[key]
        x["count"] += 1
        x["bytes"] += s
        x["time_ns"] += t
    for (kind, pg, n, dtype), x in sorted(g.items()):
        algbw = x["bytes"] / (x["time_ns"] * 1e-9)
        print(json.dumps({"collective": kind, "pg": pg, "n": n, "dtype": dtype, "count": x["count"],
                          "bytes": x["bytes"], "time_ns": x["time_ns"], "algbw_Bps": algbw,
                          "busbw_Bps": algbw * factor(kind, n)}))


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Independent oracle for the graph-capture join on an NVIDIA trace (tests/data/device/graph-capture/).

Reads the replay trace and the capture trace with nothing but the json module, joins them by position — the k-th
kernel launch call between cudaStreamBeginCapture and cudaStreamEndCapture is the k-th kernel (by start time) of
every cudaGraphLaunch — takes each launch's CPU op through its "External id", and for every aten::mm
([M, K] x [K, N], 2·M·N·K FLOPs) sums FLOPs and kernel time per shape. Prints JSON: per shape the calls, kernels and
TFLOP/s, and how many replayed kernels were joined. tst_device_samples compares Sightline's shape_roofline with it.

Usage: oracle_gemm.py REPLAY.json.gz CAPTURE.json.gz > oracle_gemm.json
"""
import gzip
import json
import sys
from collections import defaultdict

LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx", "cuLaunchKernel")


def events(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)["traceEvents"]


def main():
    replay, capture = events(sys.argv[1]), events(sys.argv[2])
    begin = next(e for e in capture if e.get("name") == "cudaStreamBeginCapture")
    end = next(e for e in capture if e.get("name") == "cudaStreamEndCapture")
    launches = sorted((e for e in capture
                       if e.get("ph") == "X" and e.get("name") in LAUNCHES and e["tid"] == begin["tid"]
                       and begin["ts"] <= e["ts"] <= end["ts"] + end["dur"]), key=lambda e: e["ts"])
    ops = {}      # External id -> cpu_op (the innermost: the shortest of those sharing the id)
    for e in capture:
        if e.get("cat") == "cpu_op" and "External id" in e.get("args", {}):
            x = e["args"]["External id"]
            if x not in ops or e["dur"] < ops[x]["dur"]:
                ops[x] = e
    graph_corr = {e["args"]["correlation"] for e in replay if e.get("name") == "cudaGraphLaunch"}
    per_launch = defaultdict(list)
    for e in replay:
        if e.get("cat") == "kernel" and e["args"].get("correlation") in graph_corr:
            per_launch[e["args"]["correlation"]].append(e)
    acc = defaultdict(lambda: {"calls": set(), "kernels": 0, "flops": 0.0, "ns": 0.0})
    joined = 0
    for corr, ks in per_launch.items():
        ks.sort(key=lambda e: e["ts"])
        if len(ks) != len(launches):
            continue
        joined += len(ks)
        for k, l in zip(ks, launches):
            op = ops.get(l["args"].get("External id"))
            if not op or op["name"] != "aten::mm":
                continue
            (m, kk), (k2, n) = op["args"]["Input Dims"][:2]
            a = acc[(m, n, kk)]
            if (corr, op["args"]["External id"]) not in a["calls"]:
                a["calls"].add((corr, op["args"]["External id"]))
                a["flops"] += 2.0 * m * n * kk
            a["kernels"] += 1
            a["ns"] += k["dur"] * 1e3
    out = {"replayed_kernels": sum(len(v) for v in per_launch.values()), "joined_kernels": joined,
           "captured_launches": len(launches),
           "gemms": [{"M": m, "N": n, "K": k, "calls": len(a["calls"]), "kernels": a["kernels"],
                      "tflops": a["flops"] / a["ns"] / 1e3}
                     for (m, n, k), a in sorted(acc.items())]}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

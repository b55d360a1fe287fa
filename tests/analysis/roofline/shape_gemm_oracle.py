#!/usr/bin/env python3
"""Independent oracle for Sightline's measured GEMM throughput (issue 15).

Reads a Kineto / torch.profiler trace (.json or .json.gz) recorded with record_shapes=True and, for every GEMM CPU op
(aten::mm, addmm, bmm, baddbmm, _scaled_mm; linear/matmul only when they launch kernels themselves), joins its GPU
kernels through the profiler's own links: kernel.args.correlation == cuda_runtime/cuda_driver.args.correlation, whose
args["External id"] == cpu_op.args["External id"] (same pid). FLOPs per call = 2*M*N*K (times the batch for bmm),
from the op's own "Input Dims". Prints one JSON object per unique (op, Input Dims, Input type):
  {"op", "dims", "types", "calls", "flops_per_call", "kernel_ns", "tflops"}
with tflops = calls * flops_per_call / kernel_ns / 1e3 (kernel_ns summed over every kernel of every call).
Written with nothing but the standard library so it shares no code with the C++ it checks.
"""
import gzip
import json
from decimal import Decimal, ROUND_HALF_UP
import sys
from collections import defaultdict


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f, parse_float=Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def gemm_flops(name, dims):
    if name == "aten::mm" or name == "aten::_scaled_mm":
        (m, k), (k2, n) = dims[0], dims[1]
        return 2 * m * n * k
    if name == "aten::addmm":
        (m, k), (k2, n) = dims[1], dims[2]
        return 2 * m * n * k
    if name == "aten::bmm":
        (b, m, k), (b2, k2, n) = dims[0], dims[1]
        return 2 * b * m * n * k
    if name == "aten::baddbmm":
        (b, m, k), (b2, k2, n) = dims[1], dims[2]
        return 2 * b * m * n * k
    if name == "aten::linear":
        x, w = dims[0], dims[1]
        return 2 * prod(x[:-1]) * w[0] * w[1]
    if name == "aten::matmul":
        a, b = dims[0], dims[1]
        if len(b) == 2:
            return 2 * prod(a[:-1]) * a[-1] * b[1]
        return 2 * prod(a[:-2]) * a[-2] * a[-1] * b[-1]
    return None


def to_ns(us):
    """Microseconds as the trace writes them -> integer ns (nearest; Kineto prints 3 decimals)."""
    return int((Decimal(us) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def main(path):
    ev = load(path)
    ops = {}
    launch_ext = {}
    for e in ev:
        if e.get("ph") != "X":
            continue
        a = e.get("args") or {}
        cat = e.get("cat")
        if cat == "cpu_op" and "External id" in a and "Input Dims" in a:
            ops[(e["pid"], a["External id"])] = e
        elif cat in ("cuda_runtime", "cuda_driver") and "External id" in a and "correlation" in a:
            launch_ext[(e["pid"], a["correlation"])] = a["External id"]
    # Kernels carry no host pid: the correlation id is unique within this single-process trace.
    ext_by_corr = {}
    for (pid, corr), ext in launch_ext.items():
        ext_by_corr[corr] = (pid, ext)
    per_op_ns = defaultdict(int)
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            corr = (e.get("args") or {}).get("correlation")
            key = ext_by_corr.get(corr)
            if key in ops:
                per_op_ns[key] += to_ns(e["dur"])
    groups = defaultdict(lambda: {"calls": 0, "kernel_ns": 0, "flops": 0})
    for key, ns in per_op_ns.items():
        e = ops[key]
        a = e["args"]
        f = gemm_flops(e["name"], a["Input Dims"])
        if f is None:
            continue
        g = groups[(e["name"], json.dumps(a["Input Dims"]), json.dumps(a["Input type"]))]
        g["calls"] += 1
        g["kernel_ns"] += ns
        g["flops"] = f
    for (name, dims, types), g in sorted(groups.items(), key=lambda kv: -kv[1]["kernel_ns"]):
        print(json.dumps({"op": name, "dims": json.loads(dims), "types": json.loads(types), "calls": g["calls"],
                          "flops_per_call": g["flops"], "kernel_ns": g["kernel_ns"],
                          "tflops": g["calls"] * g["flops"] / g["kernel_ns"] / 1e3}))


if __name__ == "__main__":
    main(sys.argv[1])

#pragma once
// Writes a Trace as PyTorch-profiler (Kineto) Chrome-trace JSON, optionally gzipped: the modern schema (cat
// kernel / gpu_memcpy / gpu_memset / cuda_runtime / cuda_driver / cuda_sync / cpu_op / user_annotation /
// gpu_user_annotation, ac2g flows, M name events, deviceProperties, distributedInfo, baseTimeNanoseconds). Recorded
// shapes round-trip: a cpu_op range with an op_args row (same start, name and pid) carries its External id, "Input
// Dims", "Input type" and "Concrete Inputs"; a launch call with an op_args launch row its External id and "kernel";
// nn.Module frames (RangeKind::PyModule) are written as python_function "nn.Module: Name".
// Timestamps are written in µs with exactly three decimals, so reading the file back gives the same ns.
// Used by tests (round trips) and the benchmark (large inputs); not a converter users depend on.

#include <string>

#include "analysis/trace/trace.h"

namespace sl {

struct KinetoWriteOptions {
    bool gzip = false;            // write a .json.gz stream (zlib level 1)
    bool flows = true;            // an ac2g s/f pair per linked kernel
    bool distributed_info = true; // distributedInfo with rank 0 of devices[0] and meta.world_size
};

// Throws TraceError when the file cannot be written.
void write_kineto_json(const Trace& trace, const std::string& path, const KinetoWriteOptions& options = {});

// The JSON as a string (small traces, tests).
std::string kineto_json_string(const Trace& trace, const KinetoWriteOptions& options = {});

} // namespace sl

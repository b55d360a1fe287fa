#pragma once
// PyTorch profiler (Kineto) Chrome-trace JSON reader, plain or gzip, streaming.

#include <string>

#include "analysis/trace/load_control.h"
#include "analysis/trace/trace.h"

namespace sl {

struct KinetoReadOptions {
    // Keep python_function "nn.Module: Name" frames as RangeKind::PyModule ranges (named Name). For the trace of a
    // graph capture, whose modules the replayed kernels inherit; other traces do not need them.
    bool python_modules = false;
};

Trace read_kineto_json(const std::string& path, const LoadControl& control = {});
Trace read_kineto_json(const std::string& path, const LoadControl& control, const KinetoReadOptions& options);

} // namespace sl

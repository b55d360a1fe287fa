#pragma once
// PyTorch profiler (Kineto) Chrome-trace JSON reader, plain or gzip, streaming.

#include <string>

#include "analysis/trace/load_control.h"
#include "analysis/trace/trace.h"

namespace sl {

Trace read_kineto_json(const std::string& path, const LoadControl& control = {});

} // namespace sl

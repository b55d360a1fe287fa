#pragma once
// Nsight Systems SQLite export reader (nsys 2022.1 .. 2025.5), read-only and defensive.

#include <string>

#include "analysis/trace/load_control.h"
#include "analysis/trace/trace.h"

namespace sl {

Trace read_nsys_sqlite(const std::string& path, const LoadControl& control = {});

// .nsys-rep / .qdrep: runs `nsys export --type sqlite` into a cache directory when nsys is on PATH, then reads the
// export; otherwise throws a TraceError naming the exact command to run.
Trace read_nsys_report(const std::string& path, const LoadControl& control = {});

} // namespace sl

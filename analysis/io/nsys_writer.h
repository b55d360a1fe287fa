#pragma once
// Writes a Trace as an Nsight Systems SQLite export faithful to the nsys 2024.x DDL (schema 3.13–3.16): StringIds,
// CUPTI_ACTIVITY_KIND_KERNEL/RUNTIME/MEMCPY/MEMSET/SYNCHRONIZATION, NVTX_EVENTS (textId), ThreadNames, PROCESSES,
// TARGET_INFO_GPU, TARGET_INFO_CUDA_STREAM, TARGET_INFO_CUDA_CONTEXT_INFO, the ENUM_* tables those reference,
// META_DATA_EXPORT, ANALYSIS_DETAILS and TARGET_INFO_SESSION_START_TIME. Tables are created lazily, as nsys does:
// a table with no rows is not created. Global ids follow nsys: globalPid = (1 << 48) | (pid << 24),
// globalTid = globalPid | tid.
//
// Used for test fixtures, the bundled sample and the scale benchmarks. One transaction, prepared statements.

#include <string>

#include "analysis/trace/trace.h"

namespace sl {

// Overwrites `path`. Throws TraceError when the file cannot be created or written.
void write_nsys_sqlite(const Trace& trace, const std::string& path);

} // namespace sl

#pragma once
// Device, process and thread rows appended without a search, for the readers (issue 36 §8). Trace::device_index
// scans the rows for an existing one, which made a trace of 10^5 distinct device ids quadratic; a reader that makes
// every device row of its trace through its own id -> row map knows an id is new, and appends in O(1).

#include <cstdint>

#include "analysis/trace/trace.h"

namespace sl {

// Rows a trace may hold: the device index of every table is 16 bits.
inline constexpr size_t kMaxDeviceRows = 65535;

// Appends the row of a device id the caller knows is new to `t`. Throws TraceError (no file: the reader adds its
// own) past kMaxDeviceRows rows, naming the device id.
uint16_t append_device_row(Trace& t, int32_t device_id, int32_t rank = 0);

// Process rows: 16 bits as well (the process column of the GPU tables).
inline constexpr size_t kMaxProcessRows = 65535;

// Appends the row of a process the caller knows is new (the same rule as devices): O(1), TraceError past
// kMaxProcessRows, naming the pid. Trace::process_index scans the rows first.
uint16_t append_process_row(Trace& t, int64_t pid, int32_t rank = 0);

// Appends the row of a thread the caller knows is new (no search; Trace::thread_index scans the rows first).
uint32_t append_thread_row(Trace& t, int64_t global_tid, int64_t pid, int64_t tid);

} // namespace sl

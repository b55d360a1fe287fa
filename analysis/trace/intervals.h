#pragma once
// Busy periods of GPU work: the union of kernel, memcpy and memset intervals per device (or of any set of ops), with
// the op that opens and the op that closes each period, so gaps can name their neighbours. Generic interval
// helpers (Interval, merge_intervals, intersection_length, BusyIndex) live in analysis/timeline/overlap.h.
//
// Conventions (the same as merge_intervals):
//  * An op covers the half-open interval [start, end) in ns. Empty ops (end <= start) are not busy.
//  * Ops that overlap or touch (next.start <= current end) join one busy period, so a gap always has a positive
//    length.

#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/trace/trace.h"

namespace sl {

// ---- GPU operations -------------------------------------------------------------------------------------------
enum class GpuOpKind : uint8_t { Kernel = 0, Memcpy = 1, Memset = 2 };
const char* gpu_op_kind_name(GpuOpKind k);   // "kernel" | "memcpy" | "memset"

// One row of Trace::kernels, Trace::memcpy or Trace::memset.
struct GpuOpRef {
    GpuOpKind kind = GpuOpKind::Kernel;
    uint32_t index = 0;
    bool operator==(const GpuOpRef&) const = default;
};
int64_t op_start(const Trace& t, GpuOpRef op);
int64_t op_end(const Trace& t, GpuOpRef op);
uint16_t op_device(const Trace& t, GpuOpRef op);
uint32_t op_stream(const Trace& t, GpuOpRef op);
// Kernel name, copy_kind_label() for copies, "[CUDA memset]" for memsets.
std::string_view op_name(const Trace& t, GpuOpRef op);

// A maximal busy period: the union of overlapping/touching ops. `first` is the op that starts it (earliest start;
// ties: the one that comes first in kernel, memcpy, memset, row order); `last` is the op whose end closes it (latest
// end; ties: the one that starts latest, then row order).
struct BusyPeriod {
    int64_t start = 0, end = 0;
    GpuOpRef first, last;
};

// Busy periods of an arbitrary set of ops (e.g. one stream's). Reorders `ops` by start.
std::vector<BusyPeriod> busy_periods(const Trace& t, std::vector<GpuOpRef>& ops);

struct DeviceActivity {
    uint16_t device = 0;                 // index into TraceMeta::devices
    int64_t window_start = 0;            // first op start; 0 when the device has no ops
    int64_t window_end = 0;              // last op end (max over ops); 0 when the device has no ops
    int64_t kernels = 0, memcpys = 0, memsets = 0;
    std::vector<BusyPeriod> busy;        // sorted, disjoint, non-touching
    bool active() const { return kernels + memcpys + memsets > 0; }
    int64_t window_ns() const { return window_end - window_start; }
    int64_t busy_ns() const;
};

// One entry per TraceMeta::devices row, in that order, including devices without GPU work. Ops whose device index
// is out of range are ignored.
std::vector<DeviceActivity> device_activity(const Trace& t);

// device_activity() without keeping the busy periods: for each device in TraceMeta::devices order, on_period is
// called with each of its busy periods in time order, then on_device with its DeviceActivity (busy left empty).
// Memory: 4 bytes per op (device_activity kept a 24-byte sort row per op and 32 bytes per busy period, 530 MB at
// 10^7 kernels: the summary's peak, issue 18). The periods are exactly device_activity()'s.
void for_each_busy_period(const Trace& t, const std::function<void(const BusyPeriod&)>& on_period,
                          const std::function<void(DeviceActivity&&)>& on_device);

} // namespace sl

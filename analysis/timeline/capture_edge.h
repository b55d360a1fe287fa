#pragma once
// The capture's edges: the GPU idle that lies outside the run's steady state because the capture cut into it.
//
// A profiler starts and stops where the user said, not where the run does: the capture may open on a GPU that waits
// for the first step (the host still setting up, a queue of launches issued before the capture began, a scheduler
// that had nothing to run yet) and close on one that waits for the profiler to stop (the final sync, a request that
// never came). Such a stall is a fact of the capture, not a cost of the steady state: no change to the steps removes
// it, and a finding that promised to would promise time the run does not spend.
//
// Per device, at most one gap on each side (the longest): the edges are
//   with steps (phases.h)   before the first step's window starts / after the last step's window ends;
//   without steps           before the device's first kernel starts / after its last kernel ends (an upload before
//                           the first kernel, a copy back after the last).
// A gap that straddles an edge counts with its part outside the steps. Idle that host-side start-up causes cover
// (host_causes.h: the host compiling, autotuning, loading modules before the first kernel) is theirs, not the
// edge's: the host wait of the edge is reduced by the idle the causes cover (their own findings claim it).
//
// Pure: reads the trace, the idle gaps, the steps and the host causes. O(gaps + kernels).

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/timeline/idle.h"

namespace sl {

struct Trace;
struct PhaseResult;
struct HostCauseResult;

struct CaptureEdgeIdle {
    std::array<int64_t, kGapCauses> ns{};   // edge idle by cause (GapCause index), host wait less start-up causes
    int64_t before_ns = 0, after_ns = 0;     // before the first step (or kernel) / after the last, all devices
    std::vector<uint32_t> gaps;              // the edge gaps (indices into IdleResult::gaps), time order
    int64_t total_ns() const { return ns[0] + ns[1] + ns[2] + ns[3] + ns[4]; }
};

// The edge idle of a capture (see above). `causes` may be null (no start-up causes known).
CaptureEdgeIdle capture_edge_idle(const Trace& trace, const IdleResult& idle, const PhaseResult& phases,
                                  const HostCauseResult* causes);

// Whether gap `index` of idle.gaps is one of the edge gaps.
bool is_capture_edge_gap(const CaptureEdgeIdle& edge, uint32_t index);

} // namespace sl

#pragma once
// One rank's compact analysis, the map of a many-rank run (issue 38 §1): `sightline-cli analyze RANK --partial`
// writes it, `sightline-cli merge` reads many and reduces them (rank_merge.h). Layout and versioning:
// resources/schemas/partial.md (schema "sightline.partial/1").
//
// What it holds is bounded by the rank's devices, steps, operator classes and collectives, never by its kernels:
// identity (rank, world size, host, devices, process groups), busy/idle by cause, steps and TPOT, time by class, and
// one record per NCCL/RCCL kernel (collective_match.h), the input cross-rank matching needs. Times are the rank's own
// trace times (ns) with the trace's UTC epoch beside them; merge aligns ranks as merge_traces does (every rank knows
// its epoch: shifted onto the earliest; else ranks with one moved to absolute UTC).

#include "analysis/timeline/analysis.h"
#include "analysis/timeline/collective_match.h"
#include "analysis/trace/trace.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sl {

inline constexpr const char* kPartialSchema = "sightline.partial/1";

struct PartialDevice {
    int32_t id = 0;
    std::string name;
    int64_t window_ns = 0, busy_ns = 0, idle_ns = 0;
    int64_t host_wait_ns = 0, kernel_wait_ns = 0, sync_wait_ns = 0, dependency_wait_ns = 0, other_ns = 0;
};

struct PartialProcessGroup {
    std::string name;
    int64_t group_size = 0;
    std::string ranks;          // as the trace writes them ("[0, 1, 2, 3]"), "" when it does not
    int64_t collectives = 0;    // records of this group
};

struct PartialClass {
    std::string id;
    int64_t time_ns = 0, count = 0;
};

struct PartialSteps {
    std::string source;         // step_source_name()
    int64_t prefill_steps = 0, decode_steps = 0, steady_steps = 0, warmup_excluded = 0;
    double tpot_median_ns = 0, tpot_p90_ns = 0, tpot_mean_ns = 0;
    std::vector<int64_t> start_ns, wall_ns;   // every step, in order
    std::vector<uint8_t> prefill, warmup;
};

struct RankPartial {
    std::string source;         // the partial's own path (when read back); "" when built in memory
    std::string trace_path, trace_format;
    uint64_t trace_bytes = 0;
    std::optional<int32_t> rank;   // distributed.rank; none = the file's place on the merge's command line
    int32_t world_size = 1;
    std::string host;
    int64_t utc_epoch_ns = 0, capture_start_ns = 0, capture_end_ns = 0;
    int64_t wall_ns = 0, kernel_time_ns = 0;
    std::vector<PartialDevice> devices;
    std::vector<PartialProcessGroup> process_groups;
    PartialSteps steps;
    std::vector<PartialClass> classes;
    std::vector<CollectiveRecord> collectives;   // sorted by (start, order); rank = the partial's rank or 0
    std::vector<std::string> warnings;
};

// The partial of one rank's trace and its analysis; `trace_path` is the file it was read from.
RankPartial make_rank_partial(const Trace& trace, const AnalysisResult& analysis, const std::string& trace_path);

nlohmann::json rank_partial_to_json(const RankPartial& p);
// Reads a partial (text of the file `source`). Throws TraceError naming the file, the place and what was expected:
// not JSON, another schema or version, a missing or mistyped field, columns of different lengths.
RankPartial rank_partial_from_json(const std::string& text, const std::string& source);
// The same from a file, through the bounded readers (input_bounds.h, gzip_stream.h): plain or gzip-compressed JSON.
RankPartial read_rank_partial(const std::string& path);
// The bytes of a partial's file: its compact JSON, gzip-compressed when `path` ends in ".gz" (a quarter or less of
// the size: 7.1 MB -> 1.6 MB for a 1 GB generated rank).
std::string rank_partial_file_bytes(const RankPartial& p, const std::string& path);

} // namespace sl

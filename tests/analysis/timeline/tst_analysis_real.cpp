// The analyses on real traces from ../shared/data (skipped when absent), each number checked against an independent
// computation in this file, and against HTA's definitions where they apply.
//
// How Sightline's numbers compare with HTA's (facebookresearch/HolisticTraceAnalysis, reference/hta_kineto.md §1):
// * Temporal breakdown (HTA get_temporal_breakdown): same definition of idle (device-wide union of kernels, memcpy,
//   memset over the GPU-active window). Differences: HTA works in integer µs (ceil start, floor end), so every op
//   loses up to 2 µs of busy time and idle grows accordingly (checked below: Sightline idle <= HTA-style idle, within
//   2 µs per op); HTA drops kernels of the last ProfilerStep when a trace has >= 2 of them (Sightline keeps all).
// * Idle breakdown (HTA get_idle_time_breakdown): HTA is per stream only; Sightline's per-stream breakdown follows
//   HTA's rule exactly (host wait: launch call started after the stream's previous end; kernel wait: gap < 30 µs;
//   else other) except that Sightline splits HTA's host wait into host-wait and sync-wait (the host was late because
//   it was blocked in a synchronising call). Checked below: host+sync == HTA host, kernel == HTA kernel, other == HTA
//   other, in ns. Sightline's device-level breakdown only counts time when no stream is busy, so it is smaller than
//   the sum over streams whenever streams overlap.
// * Comm/compute overlap (HTA get_comm_comp_overlap): identical definition (|merged comp ∩ merged comm| / |merged
//   comm|); Sightline's communication class is the NCCL patterns of kernel_classes.json, HTA's a regex on ^nccl —
//   the same kernels in these traces, so the numbers agree exactly in ns (HTA: µs-rounded).
// * Launch statistics (HTA get_cuda_kernel_launch_stats): HTA matches only cudaLaunchKernel/cudaLaunchKernelExC by
//   name; Sightline uses the API flags and also counts cuLaunchKernel* (Triton) and graph launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "analysis/timeline/analysis.h"
#include "analysis/io/load.h"
#include "analysis/timeline/overlap.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

std::optional<Trace> load_shared(const std::string& sub, const std::string& needle)
{
    for (const auto& f : sl::test::shared_files(sub, {".json.gz", ".sqlite"}))
        if (f.find(needle) != std::string::npos) {
            try {
                return load_trace(f);
            } catch (const std::exception& e) {
                ADD_FAILURE() << "cannot load " << f << ": " << e.what();
                return std::nullopt;
            }
        }
    return std::nullopt;
}

struct Op {
    int64_t s, e;
    int32_t api;
    uint32_t stream;
};

std::vector<Op> all_ops(const Trace& t)
{
    std::vector<Op> v;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        v.push_back({t.kernels.start[i], t.kernels.end[i], t.kernels.launch_api[i], t.kernels.stream[i]});
    for (size_t i = 0; i < t.memcpy.size(); ++i)
        v.push_back({t.memcpy.start[i], t.memcpy.end[i], t.memcpy.launch_api[i], t.memcpy.stream[i]});
    for (size_t i = 0; i < t.memset.size(); ++i)
        v.push_back({t.memset.start[i], t.memset.end[i], t.memset.launch_api[i], t.memset.stream[i]});
    std::sort(v.begin(), v.end(), [](const Op& a, const Op& b) { return a.s != b.s ? a.s < b.s : a.e < b.e; });
    return v;
}

// HTA's temporal breakdown, written out independently: merged busy over the active window.
struct Temporal {
    int64_t window = 0, busy = 0;
};
Temporal hta_temporal(const std::vector<Op>& ops, bool round_to_us)
{
    Temporal r;
    if (ops.empty())
        return r;
    std::vector<std::pair<int64_t, int64_t>> iv;
    for (const Op& o : ops) {
        int64_t s = o.s, e = o.e;
        if (round_to_us) {
            s = (s + 999) / 1000 * 1000;   // ceil(ts), floor(ts + dur) in µs
            e = e / 1000 * 1000;
        }
        iv.push_back({s, e});
    }
    std::sort(iv.begin(), iv.end());
    int64_t lo = iv.front().first, hi = INT64_MIN, cs = iv.front().first, ce = INT64_MIN;
    for (const auto& [s, e] : iv) {
        hi = std::max(hi, e);
        if (ce != INT64_MIN && s > ce) {
            r.busy += ce - cs;
            cs = s;
            ce = e;
        } else {
            ce = std::max(ce, e);
        }
        if (ce == INT64_MIN)
            ce = e;
    }
    r.busy += ce - cs;
    r.window = hi - lo;
    return r;
}

} // namespace

TEST(AnalysisReal, H100InferenceIdleMatchesHtaTemporalBreakdown)
{
    auto t = load_shared("kineto/tracelens", "h100__Qwen");
    if (!t)
        GTEST_SKIP() << "shared data not available";
    const AnalysisResult r = analyze(*t, AnalysisOptions{});
    ASSERT_EQ(r.idle.devices.size(), 1u);
    const DeviceIdle& d = r.idle.devices[0];
    const auto ops = all_ops(*t);
    const Temporal exact = hta_temporal(ops, false);
    EXPECT_EQ(d.window_ns, exact.window);
    EXPECT_EQ(d.busy_ns, exact.busy);
    EXPECT_EQ(d.breakdown.total_ns(), d.idle_ns);
    // HTA's µs rounding shrinks every op: its idle is larger, by at most 2 µs per op.
    const Temporal hta = hta_temporal(ops, true);
    const int64_t hta_idle = hta.window - hta.busy;
    EXPECT_LE(d.idle_ns, hta_idle + 2000);
    EXPECT_LE(hta_idle - d.idle_ns, static_cast<int64_t>(2000 * ops.size()));
    // The forward is one ProfilerStep: HTA filters nothing here either.
    EXPECT_EQ(r.kernel_time_ns, r.classes.kernel_time_ns);
    // A bf16 Qwen forward on an H100: GEMM and attention are there, the classifier leaves nothing unmatched.
    EXPECT_EQ(r.classes.unmatched_names_total, 0);
    EXPECT_EQ(r.focus.entries.size(), 10u);
    EXPECT_NE(std::string(t->str(r.focus.entries[0].name)).find("sm90_xmma_gemm"), std::string::npos);
    // Two cudaDeviceSynchronize calls hold the host for about a third of the wall time.
    EXPECT_EQ(r.sync.per_api.at(0).duration.count, 2);
    EXPECT_GT(r.sync.wall_share, 0.3);
}

TEST(AnalysisReal, PerStreamBreakdownFollowsHta)
{
    auto t = load_shared("kineto/tracelens", "h100__Qwen");
    if (!t)
        GTEST_SKIP() << "shared data not available";
    const IdleResult r = analyze_idle(*t);
    // HTA's per-stream rule, written out independently (ns, no rounding).
    std::map<uint32_t, std::array<int64_t, 3>> hta;   // host, kernel, other
    std::map<uint32_t, int64_t> prev_end;
    for (const Op& o : all_ops(*t)) {
        auto it = prev_end.find(o.stream);
        if (it != prev_end.end() && o.s > it->second) {
            const int64_t gap = o.s - it->second;
            const bool host = o.api >= 0 && t->api.start[static_cast<size_t>(o.api)] > it->second;
            hta[o.stream][host ? 0 : gap < 30'000 ? 1 : 2] += gap;
        }
        prev_end[o.stream] = it == prev_end.end() ? o.e : std::max(it->second, o.e);
    }
    ASSERT_EQ(r.streams.size(), hta.size());
    for (const StreamIdle& s : r.streams) {
        const auto& h = hta[s.stream];
        EXPECT_EQ(s.breakdown.host_wait_ns() + s.breakdown.sync_wait_ns(), h[0]) << "stream " << s.stream;
        EXPECT_EQ(s.breakdown.kernel_wait_ns(), h[1]) << "stream " << s.stream;
        EXPECT_EQ(s.breakdown.other_ns(), h[2]) << "stream " << s.stream;
    }
}

TEST(AnalysisReal, NcclTraceCommComputeOverlapMatchesHta)
{
    auto t = load_shared("kineto/hta", "nccl_parser_config");
    if (!t)
        GTEST_SKIP() << "shared data not available";
    const AnalysisResult r = analyze(*t, AnalysisOptions{});
    // HTA: COMMUNICATION = names matching ^nccl; COMPUTATION = the other kernels.
    std::vector<Interval> comm, comp;
    for (size_t i = 0; i < t->kernels.size(); ++i)
        (t->str(t->kernels.name[i]).rfind("nccl", 0) == 0 ? comm : comp).push_back({t->kernels.start[i], t->kernels.end[i]});
    ASSERT_FALSE(comm.empty());
    const auto mc = merge_intervals(comm), mp = merge_intervals(comp);
    const double hta = static_cast<double>(intersection_length(mc, mp)) / static_cast<double>(total_length(mc));
    ASSERT_EQ(r.overlap.devices.size(), 1u);
    EXPECT_EQ(r.overlap.devices[0].comm.count, static_cast<int64_t>(comm.size()));
    EXPECT_DOUBLE_EQ(r.overlap.devices[0].comm.hidden_fraction, hta);
    EXPECT_EQ(r.idle.devices[0].breakdown.total_ns(), r.idle.devices[0].idle_ns);
}

TEST(AnalysisReal, MultiStreamEventSyncTrace)
{
    auto t = load_shared("kineto/hta", "cuda_event_sync_multi_stream");
    if (!t)
        GTEST_SKIP() << "shared data not available";
    const AnalysisResult r = analyze(*t, AnalysisOptions{});
    EXPECT_EQ(r.idle.streams.size(), 3u);   // SOURCES.md: 3 streams
    int64_t per_stream_ops = 0;
    for (const auto& s : r.idle.streams)
        per_stream_ops += s.ops;
    EXPECT_EQ(per_stream_ops, static_cast<int64_t>(t->kernels.size() + t->memcpy.size() + t->memset.size()));
}

TEST(AnalysisReal, NsysCloverleafIsSyncBound)
{
    const auto files = sl::test::shared_files("nsys", {"cloverleaf-cuda.sqlite"});
    if (files.empty())
        GTEST_SKIP() << "shared data not available";
    const Trace t = load_trace(files.front());
    const AnalysisResult r = analyze(t, AnalysisOptions{});
    // Independent counts from the SQLite file itself.
    const auto rows = sl::test::sqlite_rows(
        files.front(), "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                       "WHERE s.value LIKE 'cudaDeviceSynchronize%'");
    ASSERT_EQ(rows.size(), 1u);
    const int64_t dev_syncs = std::stoll(rows[0][0]);
    const auto it = std::find_if(r.sync.per_api.begin(), r.sync.per_api.end(), [&](const SyncApiStats& s) {
        return t.str(s.name).rfind("cudaDeviceSynchronize", 0) == 0;
    });
    ASSERT_NE(it, r.sync.per_api.end());
    EXPECT_EQ(it->duration.count, dev_syncs);
    // The app synchronises after every kernel: the GPU's idle time is mostly the host waiting in those syncs.
    const auto& d = r.idle.devices.at(0);
    EXPECT_GT(d.breakdown.sync_wait_ns(), d.idle_ns / 2);
    // Its copies go through synchronous cudaMemcpy from pageable memory.
    EXPECT_GT(r.overlap.devices.at(0).pageable_count, 0);
}

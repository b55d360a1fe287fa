// Windows after a host/device clock correction. A Kineto trace whose GPU clock runs late reports a "Trace" span that
// is the union of host and device activity on their own clocks (a real vLLM MI300X trace: CPU events at 0-26 ms, GPU
// ops at 151-308 ms, span 0-308 ms). The reader moves the GPU ops onto the host clock; the capture window must move
// with them, or wall time and utilisation are measured over a window twice the run (307.7 ms instead of ~161 ms,
// utilisation 0.507 on a GPU busy 99.8 % of its activity window). Planted: a synthetic decode written by the Kineto
// writer with its GPU times 150 ms late and the span drawn over both clocks, against the same run on one clock.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>

#include "analysis/io/kineto_reader.h"
#include "analysis/io/kineto_writer.h"
#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

SynthOptions run_options()
{
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 24;
    o.prefill_steps = 1;
    o.seed = 11;
    return o;
}

// The trace as Kineto writes it: the span from the first host event to the last event on either clock.
std::string plant(const std::string& name, int64_t gpu_late_ns)
{
    SynthOptions o = run_options();
    o.clock_offset_ns = gpu_late_ns;
    Trace t = make_synthetic_trace(o);
    int64_t host_lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < t.api.size(); ++i) {
        host_lo = std::min(host_lo, t.api.start[i]);
        hi = std::max(hi, t.api.end[i]);
    }
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        host_lo = std::min(host_lo, t.ranges.start[i]);
        hi = std::max(hi, t.ranges.end[i]);
    }
    for (size_t i = 0; i < t.kernels.size(); ++i)
        hi = std::max(hi, t.kernels.end[i]);
    for (size_t i = 0; i < t.memcpy.size(); ++i)
        hi = std::max(hi, t.memcpy.end[i]);
    t.meta.capture_start = host_lo;
    t.meta.capture_end = hi;
    const std::string path = test::scratch_dir("clock_window") + "/" + name + ".json";
    write_kineto_json(t, path);
    return path;
}

json analyze(const std::string& path)
{
    PipelineOptions po;
    po.run_rules = false;
    return pipeline_to_json(run_pipeline({path}, po));
}

double device_busy_fraction(const json& j)
{
    double busy = 0, window = 0;
    for (const auto& d : j["devices"]) {
        busy += d["busy_ns"].get<double>();
        window += d["window_ns"].get<double>();
    }
    return busy / window;
}

} // namespace

TEST(ClockWindow, UtilisationAndWallAreMeasuredAfterTheCorrection)
{
    const json base = analyze(plant("one_clock", 0));
    const json skew = analyze(plant("gpu_late", 150'000'000));

    ASSERT_EQ(base["trace"]["clock_shift_ns"], 0);
    const double shift = skew["trace"]["clock_shift_ns"].get<double>();
    EXPECT_NEAR(shift, -150e6, 0.1e6);

    // Wall time: the run's, not the union of the two clocks (which is 150 ms longer).
    const double wall_base = base["trace"]["wall_ns"].get<double>();
    const double wall_skew = skew["trace"]["wall_ns"].get<double>();
    EXPECT_NEAR(wall_skew, wall_base, 0.01 * wall_base);
    const json& unc = skew["trace"]["windows"]["capture_uncorrected"];
    ASSERT_TRUE(unc.is_object());
    EXPECT_NEAR(unc["end_ns"].get<double>() - unc["start_ns"].get<double>(), wall_base + 150e6, 0.01 * wall_base);
    EXPECT_TRUE(base["trace"]["windows"]["capture_uncorrected"].is_null());
    EXPECT_EQ(skew["trace"]["windows"]["capture"]["clock_corrected"], true);
    EXPECT_EQ(base["trace"]["windows"]["capture"]["clock_corrected"], false);
    EXPECT_EQ(skew["trace"]["window_of"]["gpu_utilization"], "capture");
    EXPECT_EQ(skew["trace"]["window_of"]["wall_ns"], "capture");

    // Utilisation agrees with the device's own busy fraction within 1 point, as on one clock.
    const double util = skew["trace"]["gpu_utilization"].get<double>();
    const double busy = device_busy_fraction(skew);
    EXPECT_DOUBLE_EQ(skew["trace"]["gpu_busy_fraction"].get<double>(), busy);
    EXPECT_EQ(skew["trace"]["window_of"]["gpu_busy_fraction"], "device activity");
    EXPECT_NEAR(util, busy, 0.01) << "utilisation " << util << " vs busy fraction " << busy;
    EXPECT_NEAR(util, base["trace"]["gpu_utilization"].get<double>(), 0.01);
    // Uncorrected, the same busy time over the union would read far lower.
    const double util_union = util * wall_skew / (unc["end_ns"].get<double>() - unc["start_ns"].get<double>());
    EXPECT_LT(util_union, busy - 0.2);

    // Every GPU op lies in the corrected capture window.
    EXPECT_LE(skew["trace"]["capture_start_ns"].get<int64_t>(), skew["trace"]["windows"]["gpu_activity"]["start_ns"].get<int64_t>());
    EXPECT_GE(skew["trace"]["capture_end_ns"].get<int64_t>(), skew["trace"]["windows"]["gpu_activity"]["end_ns"].get<int64_t>());
}

TEST(ClockWindow, AHostOnlySpanStaysAndIsWidenedToTheCorrectedOps)
{
    // `generate --clock-offset-ms` writes the span on the host clock only (it never reached the late GPU ops): the
    // correction leaves it, and the widening to every GPU op keeps the run's length.
    SynthOptions o = run_options();
    const Trace ref = make_synthetic_trace(o);
    o.clock_offset_ns = 150'000'000;
    const Trace late = make_synthetic_trace(o);
    const std::string path = test::scratch_dir("clock_window") + "/host_span.json";
    write_kineto_json(late, path);
    const Trace t = read_kineto_json(path);
    EXPECT_NE(t.meta.clock_shift_ns, 0);
    const double want = static_cast<double>(ref.meta.capture_end - ref.meta.capture_start);
    EXPECT_NEAR(static_cast<double>(t.meta.capture_end - t.meta.capture_start), want, 0.01 * want);
}

// Trace-only per-kernel verdicts against Nsight Compute on the project's own H100 decode sample (issue 34): the
// verdict each kernel gets from the trace alone (its recorded shapes and its launch, no ncu file, no model config)
// agrees with ncu's Speed-of-Light class of the same kernel on at least 80 % of the profiled step's kernel time.
//
// The sample (tests/data/device/README.md): decode-eager.pt.trace.json.gz, 16 eager decode steps at batch 8 of a
// Llama-shaped model on an H100, and ncu_focus_raw.csv, `ncu --set roofline` of 200 launches of one steady decode
// step of the same program (the focus set). ncu's class, from its own counters: latency-bound when neither SM nor
// memory throughput reaches 60 % of peak, else the larger of the two. An independent reading of the CSV (Python's csv
// module over gpu__time_duration.sum, sm__throughput and gpu__compute_memory_throughput, see docs/methodology.md)
// gives 1,324.1 µs of kernel time: 79.9 % latency-bound, 20.1 % compute-bound (the strided repeat_kv copies), no
// memory-bound launch. The test checks the ncu side against those numbers first, so the agreement is measured
// against ncu's classes and not against a reading of ours.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "analysis/diagnosis/kernel_verdict.h"
#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/pipeline.h"
#include "analysis/roofline/roofline.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

std::string sample(const std::string& name) { return sl::test::source_dir() + "/tests/data/device/" + name; }

VerdictKind ncu_class(const NcuLaunchMetrics& m)
{
    const std::optional<double> mem = m.memory_throughput_pct ? m.memory_throughput_pct : m.dram_throughput_pct;
    const double sm = m.sm_throughput_pct.value_or(0), me = mem.value_or(0);
    return std::max(sm, me) < 60 ? VerdictKind::LatencyBound
           : sm >= me            ? VerdictKind::ComputeBound
                                 : VerdictKind::MemoryBound;
}

std::string family(const std::string& name)
{
    const std::string base = kernel_base_name(name);
    return base.size() > 48 ? base.substr(0, 48) : base;
}

} // namespace

TEST(VerdictAgreement, TraceOnlyVerdictsAgreeWithNcuOnTheH100DecodeStep)
{
    PipelineOptions po;
    po.run_rules = false;
    const PipelineResult r = run_pipeline({sample("decode-eager.pt.trace.json.gz")}, po);
    const Trace& t = *r.trace;
    ASSERT_GT(r.shapes.points.size(), 10u) << "the sample records its shapes";
    const NcuReport ncu = read_ncu(sample("ncu_focus_raw.csv"));
    ASSERT_EQ(ncu.launches.size(), 200u);
    const std::vector<int64_t> join = join_ncu_to_trace(ncu, t);

    // The ncu side, against the independent reading of the CSV.
    double total = 0;
    std::map<VerdictKind, double> ncu_ns;
    for (const NcuLaunch& l : ncu.launches) {
        const NcuLaunchMetrics m = compute_ncu_metrics(l);
        ASSERT_TRUE(m.duration_ns) << l.id;
        total += *m.duration_ns;
        ncu_ns[ncu_class(m)] += *m.duration_ns;
    }
    EXPECT_NEAR(total / 1e3, 1324.128, 0.01);
    EXPECT_NEAR(ncu_ns[VerdictKind::LatencyBound] / total, 0.7990, 0.0005);
    EXPECT_NEAR(ncu_ns[VerdictKind::ComputeBound] / total, 0.2010, 0.0005);
    EXPECT_EQ(ncu_ns.count(VerdictKind::MemoryBound), 0u);

    // The trace side: no ncu, no model config.
    const KernelVerdictIndex index = kernel_verdict_index(t, &r.shapes);
    double agree = 0, joined = 0;
    struct Row {
        double ns = 0, agree_ns = 0;
        std::map<std::string, int> verdicts;
    };
    std::map<std::pair<std::string, std::string>, Row> table;   // (family, ncu class) -> row
    for (size_t i = 0; i < ncu.launches.size(); ++i) {
        const NcuLaunchMetrics m = compute_ncu_metrics(ncu.launches[i]);
        const double ns = *m.duration_ns;
        const VerdictKind want = ncu_class(m);
        Row& row = table[{family(ncu.launches[i].name), verdict_kind_name(want)}];
        row.ns += ns;
        if (join[i] < 0) {
            row.verdicts["(not in the trace)"]++;
            continue;
        }
        joined += ns;
        KernelVerdictInputs in;
        in.trace = &t;
        in.kernel = join[i];
        in.analysis = &r.analysis;
        in.shapes = &r.shapes;
        in.index = &index;
        const KernelVerdict v = kernel_verdict(in);
        EXPECT_NE(v.source, VerdictSource::Ncu);
        row.verdicts[std::string(verdict_kind_name(v.kind)) + " (" + verdict_source_name(v.source) +
                     (v.reason != VerdictReason::None ? std::string(", ") + verdict_reason_name(v.reason) : "") + ")"]++;
        if (v.kind == want) {
            agree += ns;
            row.agree_ns += ns;
        }
    }
    // The table docs/methodology.md shows.
    std::printf("| kernel | ncu class | ncu time | share | trace-only verdicts (launches) | agree |\n");
    std::printf("| --- | --- | ---: | ---: | --- | ---: |\n");
    std::vector<std::pair<std::pair<std::string, std::string>, Row>> rows(table.begin(), table.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    for (const auto& [key, row] : rows) {
        std::string vs;
        for (const auto& [name, n] : row.verdicts)
            vs += (vs.empty() ? "" : ", ") + name + " ×" + std::to_string(n);
        std::printf("| `%s` | %s | %.1f µs | %.1f %% | %s | %.0f %% |\n", key.first.c_str(), key.second.c_str(),
                    row.ns / 1e3, 100 * row.ns / total, vs.c_str(), row.ns > 0 ? 100 * row.agree_ns / row.ns : 0.0);
    }
    std::printf("agreement: %.1f %% of the step's kernel time (%.1f %% of it joined to the trace)\n",
                100 * agree / total, 100 * joined / total);
    EXPECT_GT(joined / total, 0.95);
    // The bar is 80 %; measured 91.9 % (the cuDNN attention kernel, 8.1 %, sits at 71 % of the memory roof in
    // the trace and 57 % under ncu's locked clocks: docs/methodology.md).
    EXPECT_GE(agree / total, 0.90);
}

// Serving attention (paged / chunked prefill) measured per shape against TraceLens's own report of the same trace:
// ../shared/data/kineto/tracelens/<run>/tracelens_perf_csvs/InferenceAttention_fwd.csv, whose FLOPs and bytes come
// from the step annotation's Σq, Σk, Σq², Σq·k (its InferenceAttention perf model) and whose TFLOP/s is the mean over
// the calls of FLOPs / kernel time. Sightline must give the same FLOPs and bytes per call and a TFLOP/s within 10 %.
// Skipped without SIGHTLINE_SHARED_DATA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/pipeline.h"
#include "analysis/roofline/roofline.h"
#include "analysis/roofline/shape_throughput.h"
#include "tests/support/csv.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

using test::read_csv_rows;

struct TlRow {
    std::string op;
    std::map<std::string, double> num;
    std::set<std::string> kernels;   // base names of the kernels TraceLens summed for the row
};

std::vector<TlRow> tracelens_rows(const std::string& csv)
{
    const auto rows = read_csv_rows(csv);
    std::vector<TlRow> out;
    if (rows.empty())
        return out;
    const auto& head = rows.front();
    for (size_t r = 1; r < rows.size(); ++r) {
        TlRow t;
        for (size_t c = 0; c < head.size() && c < rows[r].size(); ++c) {
            const std::string& h = head[c];
            const std::string& v = rows[r][c];
            if (h == "name")
                t.op = v;
            else if (h == "kernel_details__summarize_kernel_stats") {
                static const std::regex name_re(R"('name': '([^']*)')");
                for (auto it = std::sregex_iterator(v.begin(), v.end(), name_re); it != std::sregex_iterator(); ++it)
                    t.kernels.insert(kernel_base_name((*it)[1].str()));
            } else if (!v.empty()) {
                try {
                    size_t pos = 0;
                    const double x = std::stod(v, &pos);
                    if (pos == v.size())
                        t.num[h] = x;
                } catch (const std::exception&) {
                }
            }
        }
        // Only the rows TraceLens modelled with the step sums (an attention op with c_sq / g_sq).
        if (t.num.count("param: c_sq") && t.num.count("GFLOPS_first") && t.num["GFLOPS_first"] > 0)
            out.push_back(std::move(t));
    }
    return out;
}

int64_t shape_value(const std::string& shape, const std::string& key)
{
    const std::regex re("(^| )" + key + "=(\\d+)");
    std::smatch m;
    return std::regex_search(shape, m, re) ? std::stoll(m[2].str()) : -1;
}

// Compares every row of TraceLens's InferenceAttention_fwd.csv with Sightline's point of the same op, step sums and
// kernels. Returns the number of rows compared (and their worst TFLOP/s error).
int compare(const std::string& run, const std::string& trace_file, double& worst)
{
    const auto dir = test::shared_data_dir();
    const std::string base = *dir + "/kineto/tracelens/" + run;
    const auto want = tracelens_rows(base + "/tracelens_perf_csvs/InferenceAttention_fwd.csv");
    EXPECT_FALSE(want.empty());
    PipelineOptions po;
    po.run_rules = false;
    const PipelineResult pr = run_pipeline({base + "/" + trace_file}, po);
    const ShapeRooflineResult& r = pr.shapes;
    int compared = 0;
    for (const TlRow& w : want) {
        SCOPED_TRACE(w.op + " c_sq " + std::to_string(int64_t(w.num.at("param: c_sq"))) + " g_sk " +
                     std::to_string(int64_t(w.num.at("param: g_sk"))));
        const ShapePoint* match = nullptr;
        for (const ShapePoint& p : r.points) {
            if (p.op != w.op || p.family != "attention")
                continue;
            bool same = true;
            for (const char* k : {"c_sq", "c_sk", "c_sqsq", "c_sqsk", "g_sq", "g_sk", "g_sqsq", "g_sqsk"})
                same &= shape_value(p.shape, k) == int64_t(w.num.at(std::string("param: ") + k));
            std::set<std::string> kn;
            for (const auto& n : p.kernel_names)
                kn.insert(kernel_base_name(n));
            if (same && kn == w.kernels)
                match = &p;
        }
        if (!match) {
            ADD_FAILURE() << "no Sightline point for this TraceLens row";
            continue;
        }
        ++compared;
        const double gflops = match->flops_per_call / 1e9, mb = match->bytes_per_call / (1024.0 * 1024.0);
        EXPECT_NEAR(gflops, w.num.at("GFLOPS_first"), 1e-6 * w.num.at("GFLOPS_first"));
        EXPECT_NEAR(mb, w.num.at("Data Moved (MB)_first"), 1e-6 * w.num.at("Data Moved (MB)_first"));
        EXPECT_EQ(match->calls, int64_t(w.num.at("name_count")));
        const double tl = w.num.at("TFLOPS/s_mean");
        const double err = std::abs(match->tflops - tl) / tl;
        worst = std::max(worst, err);
        EXPECT_LE(err, 0.10) << "Sightline " << match->tflops << " TFLOP/s, TraceLens " << tl;
        std::printf("%s %s: Sightline %.2f TFLOP/s, TraceLens %.2f (%.1f %%)\n", run.c_str(), w.op.c_str(),
                    match->tflops, tl, 100.0 * err);
    }
    return compared;
}

} // namespace

// SGLang Qwen3-8B EXTEND of 15 x 1,024 tokens on an MI300X: aiter::mha_batch_prefill, 36 layers, eager.
TEST(TraceLensAttention, SglangPrefillMatchesTraceLens)
{
    if (!test::shared_data_dir())
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    double worst = 0;
    EXPECT_EQ(compare("sglang_prefilldecode", "sglang_qwen3-8b_prefilldecode.json.gz", worst), 1);
    std::printf("worst TFLOP/s error %.2f %%\n", 100.0 * worst);
}

// vLLM gpt-oss decode of 32 requests replayed as one HIP graph: unified attention's CPU ops and shapes live in the
// capture trace beside it, so this needs the replayed kernels joined to their capture (capture_traces/).
TEST(TraceLensAttention, VllmGraphDecodeMatchesTraceLens)
{
    if (!test::shared_data_dir())
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    const std::string base = *test::shared_data_dir() + "/kineto/tracelens/vllm_decode_full";
    PipelineOptions po;
    po.run_rules = false;
    const PipelineResult pr = run_pipeline({base + "/graph_execution.json.gz"}, po);
    // Joined: the trace the pipeline analysed holds the capture's attention ops (with their shapes).
    bool joined = false;
    const OpArgsTable& oa = pr.trace->op_args;
    for (size_t i = 0; i < oa.size(); ++i)
        joined |= oa.source[i] == OpArgsTable::kCpuOp && !oa.input_dims[i].empty() &&
                  pr.trace->str(oa.name[i]) == "vllm::unified_attention_with_output";
    ASSERT_TRUE(joined) << "the replayed attention kernels carry no CPU op: the graph replay was not joined to its "
                           "capture trace (capture_traces/)";
    double worst = 0;
    EXPECT_EQ(compare("vllm_decode_full", "graph_execution.json.gz", worst), 2);
    std::printf("worst TFLOP/s error %.2f %%\n", 100.0 * worst);
}

// The GPU spec database: every row of the reference table is there with the reference's numbers, trace device
// names match the right row, --gpu names resolve, user files add and correct rows, unknown GPUs fall back to the
// trace's own device record without inventing peaks.
#include <gtest/gtest.h>

#include "analysis/trace/errors.h"
#include "analysis/roofline/gpu_specs.h"
#include "tests/support/test_env.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

using namespace sl;

namespace {
GpuDatabase db() { return GpuDatabase::load(test::source_dir() + "/resources/gpus.json"); }
} // namespace

// Independent second reading: every row of shared/reference/gpu_specs.json must be in gpus.json with the same
// numbers (converted to base units).
TEST(GpuSpecs, EveryReferenceRowIsPresentWithItsNumbers)
{
    const std::string ref = test::source_dir() + "/../shared/reference/gpu_specs.json";
    std::ifstream in(ref);
    if (!in)
        GTEST_SKIP() << "reference table not present: " << ref;
    const auto j = nlohmann::json::parse(in);
    const GpuDatabase d = db();
    // Every reference row is here; a row the reference lacks (the MI250X GCD) must name its own source.
    ASSERT_GE(d.rows().size(), j.size());
    for (const GpuSpec& s : d.rows()) {
        const bool in_ref = std::any_of(j.begin(), j.end(), [&](const auto& r) { return r["name"] == s.name; });
        if (!in_ref) {
            EXPECT_NE(s.source.find("https://"), std::string::npos) << s.name << " is not in the reference: cite a source";
        }
    }
    for (const auto& r : j) {
        const std::string name = r["name"];
        const GpuSpec* s = d.find(name);
        ASSERT_NE(s, nullptr) << name;
        EXPECT_EQ(s->name, name);
        EXPECT_EQ(s->sm_count, r["sm_count"].get<int>()) << name;
        EXPECT_DOUBLE_EQ(s->mem_bw_Bps, r["mem_bw_gbs"].get<double>() * 1e9) << name;
        EXPECT_DOUBLE_EQ(s->boost_clock_hz, r["boost_clock_mhz"].get<double>() * 1e6) << name;
        EXPECT_DOUBLE_EQ(s->l2_bytes, r["l2_mb"].get<double>() * 1e6) << name;
        EXPECT_DOUBLE_EQ(s->mem_bytes, r["mem_gb"].get<double>() * 1e9) << name;
        EXPECT_DOUBLE_EQ(*s->peaks.fp32, r["fp32_tflops"].get<double>() * 1e12) << name;
        auto opt = [](const nlohmann::json& v) { return v.is_null() ? std::optional<double>() : v.get<double>() * 1e12; };
        EXPECT_EQ(s->peaks.tf32, opt(r["tf32_tensor_tflops_dense"])) << name;
        EXPECT_EQ(s->peaks.fp16, opt(r["fp16_bf16_tensor_tflops_dense"])) << name;
        EXPECT_EQ(s->peaks.fp8, opt(r["fp8_tensor_tflops_dense"])) << name;
        EXPECT_EQ(s->peaks.int8, opt(r["int8_tensor_tops_dense"])) << name;
        if (r.contains("fp16_tensor_tflops_dense_fp16acc")) {
            EXPECT_EQ(s->peaks.fp16_fp16acc, opt(r["fp16_tensor_tflops_dense_fp16acc"])) << name;
        }
        EXPECT_FALSE(s->source.empty()) << name;
        // The reference's "fp16_bf16" flag becomes two flags, "fp16" and "bf16"; every other flag is kept.
        size_t expected_flags = 0;
        for (const auto& u : r["uncertain_fields"]) {
            expected_flags += u == "fp16_bf16" ? 2 : 1;
            EXPECT_TRUE(u == "fp16_bf16" ? s->uncertain("fp16") && s->uncertain("bf16") : s->uncertain(u.get<std::string>()))
                << name << " " << u;
        }
        EXPECT_EQ(s->uncertain_fields.size(), expected_flags) << name;
    }
}

TEST(GpuSpecs, MatchesTraceDeviceNames)
{
    const GpuDatabase d = db();
    struct Case { const char* device; const char* row; };
    const Case cases[] = {
        {"NVIDIA H100 80GB HBM3", "H100 SXM"},
        {"NVIDIA H100 PCIe", "H100 PCIe"},
        {"NVIDIA A100-SXM4-80GB", "A100 80GB SXM"},
        {"A100-SXM4-80GB", "A100 80GB SXM"},
        {"NVIDIA A100-PCIE-40GB", "A100 40GB PCIe"},
        {"NVIDIA A100-SXM4-40GB", "A100 40GB PCIe"},
        {"NVIDIA H200", "H200 SXM"},
        {"NVIDIA GH200 480GB", "GH200 (96GB HBM3)"},
        {"NVIDIA B200", "B200"},
        {"Tesla V100-SXM2-32GB", "V100 SXM2 32GB"},
        {"Tesla T4", "T4"},
        {"NVIDIA A10", "A10"},
        {"NVIDIA A10G", "A10G"},
        {"NVIDIA L4", "L4"},
        {"NVIDIA L40S", "L40S"},
        {"NVIDIA GeForce RTX 3090", "RTX 3090"},
        {"NVIDIA GeForce RTX 4090", "RTX 4090"},
        {"NVIDIA GeForce RTX 4060 Ti", "RTX 4060 Ti"},
        {"NVIDIA GeForce RTX 5090", "RTX 5090"},
        {"NVIDIA GeForce RTX 5070 Ti", "RTX 5070 Ti"},
        {"AMD Instinct MI300X", "MI300X"},
        {"AMD Instinct MI325X", "MI325X"},
        {"AMD Instinct MI300A", "MI300A"},
        {"AMD Instinct MI355X", "MI355X"},
        {"AMD Instinct MI350X", "MI350X"},
        {"AMD Instinct MI250X", "MI250X (one GCD)"},
        {"AMD Instinct MI250", "MI250 (one GCD)"},
        {"AMD Instinct MI210", "MI210"},
        {"NVIDIA GB200", "GB200 (per GPU)"},
        {"NVIDIA L40", "L40"},
    };
    for (const auto& c : cases) {
        const GpuSpec* s = d.match_device(c.device);
        ASSERT_NE(s, nullptr) << c.device;
        EXPECT_EQ(s->name, c.row) << c.device;
    }
    // Different parts that are not in the table must not be taken for a neighbour.
    for (const char* other : {"NVIDIA GeForce RTX 3090 Ti", "NVIDIA GeForce RTX 4090 D", "NVIDIA A100 80GB PCIe",
                              "NVIDIA A40", "Tesla V100-PCIE-16GB", "NVIDIA GeForce RTX 4070"})
        EXPECT_EQ(d.match_device(other), nullptr) << other;
}

TEST(GpuSpecs, GpuOptionNamesAndAliases)
{
    const GpuDatabase d = db();
    EXPECT_EQ(d.find("H100-SXM")->name, "H100 SXM");
    EXPECT_EQ(d.find("h100_sxm")->name, "H100 SXM");
    EXPECT_EQ(d.find("A100")->name, "A100 80GB SXM");
    EXPECT_EQ(d.find("rtx4090")->name, "RTX 4090");
    EXPECT_EQ(d.find("NVIDIA H100 80GB HBM3")->name, "H100 SXM");   // falls through to the patterns
    EXPECT_EQ(d.find("no such gpu"), nullptr);

    const auto r = resolve_gpu(d, "H100-SXM", nullptr);
    EXPECT_TRUE(r.known);
    EXPECT_DOUBLE_EQ(*r.spec.peaks.fp16, 989.4e12);
    EXPECT_DOUBLE_EQ(r.spec.mem_bw_Bps, 3350e9);
    try {
        resolve_gpu(d, "H900", nullptr);
        FAIL() << "unknown --gpu accepted";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("H900"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("H100 SXM"), std::string::npos);   // lists the known rows
    }
    // --gpu wins over the trace device.
    DeviceInfo dev;
    dev.name = "NVIDIA A100-SXM4-80GB";
    EXPECT_EQ(resolve_gpu(d, "L4", &dev).spec.name, "L4");
    EXPECT_EQ(resolve_gpu(d, "", &dev).spec.name, "A100 80GB SXM");
}

TEST(GpuSpecs, UncertainRowsSayWhichFields)
{
    const GpuDatabase d = db();
    const GpuSpec* a10g = d.find("A10G");
    ASSERT_NE(a10g, nullptr);
    EXPECT_TRUE(a10g->uncertain("fp32"));
    EXPECT_TRUE(a10g->uncertain("sm_count"));
    const auto r = resolve_gpu(d, "A10G", nullptr);
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings[0].find("uncertain"), std::string::npos);
    // GeForce rows carry both accumulate modes; the default fp16 peak is the FP32-accumulate one.
    const GpuSpec* g = d.find("RTX 4090");
    EXPECT_DOUBLE_EQ(*g->peaks.fp16, 165.2e12);
    EXPECT_DOUBLE_EQ(*g->peaks.get(Precision::FP16_FP16ACC), 330.3e12);
    // Data-centre rows have no separate FP16-accumulate rate: asking for it gives the fp16 rate.
    EXPECT_DOUBLE_EQ(*d.find("H100 SXM")->peaks.get(Precision::FP16_FP16ACC), 989.4e12);
    // Volta has no BF16 and no FP8.
    EXPECT_FALSE(d.find("V100")->peaks.bf16.has_value());
    EXPECT_FALSE(d.find("V100")->peaks.fp8.has_value());
}

TEST(GpuSpecs, UserFileAddsAndCorrectsRows)
{
    const std::string dir = test::scratch_dir("gpu_user");
    const std::string path = dir + "/my_gpus.json";
    std::ofstream(path) << R"({"gpus": [
        {"name": "H100 SXM", "mem_bw_gbs": 3000},
        {"name": "Lab Card X1", "match": ["X1 Lab"], "sm_count": 10, "mem_bw_gbs": 100,
         "peaks_tflops_dense": {"fp32": 1.5, "fp16": 12}}
    ]})";
    GpuDatabase d = db();
    const size_t before = d.rows().size();
    d.merge_file(path);
    EXPECT_EQ(d.rows().size(), before + 1);
    const GpuSpec* h = d.find("H100 SXM");
    EXPECT_DOUBLE_EQ(h->mem_bw_Bps, 3000e9);        // corrected
    EXPECT_DOUBLE_EQ(*h->peaks.fp16, 989.4e12);     // untouched fields kept
    EXPECT_EQ(h->sm_count, 132);
    const GpuSpec* x = d.match_device("ACME X1 Lab Edition");
    ASSERT_NE(x, nullptr);
    EXPECT_EQ(x->name, "Lab Card X1");
    EXPECT_DOUBLE_EQ(*x->peaks.fp16, 12e12);
    EXPECT_FALSE(x->peaks.fp8.has_value());

    std::ofstream(dir + "/bad.json") << R"({"gpus": [{"name": "Bad", "peaks_tflops_dense": {"fp7": 3}}]})";
    try {
        d.merge_file(dir + "/bad.json");
        FAIL();
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("fp7"), std::string::npos);
    }
    std::ofstream(dir + "/bad2.json") << R"({"gpus": [{"name": "Bad", "mem_bw_gbs": "fast"}]})";
    EXPECT_THROW(d.merge_file(dir + "/bad2.json"), TraceError);
    std::ofstream(dir + "/bad3.json") << R"({"gpus": [{"name": "Bad", "match": ["(unclosed"]}]})";
    EXPECT_THROW(d.merge_file(dir + "/bad3.json"), TraceError);
    std::ofstream(dir + "/bad4.json") << "{not json";
    EXPECT_THROW(d.merge_file(dir + "/bad4.json"), TraceError);
}

TEST(GpuSpecs, UnknownGpuFallsBackToTheTracesOwnRecord)
{
    const GpuDatabase d = db();
    DeviceInfo dev;
    dev.name = "NVIDIA Mystery 9000";
    dev.sm_count = 96;
    dev.memory_bandwidth_Bps = 1.2e12;
    dev.clock_hz = 1800000000;
    const auto r = resolve_gpu(d, "", &dev);
    EXPECT_FALSE(r.known);
    EXPECT_TRUE(r.spec.from_trace);
    EXPECT_EQ(r.spec.sm_count, 96);
    EXPECT_DOUBLE_EQ(r.spec.mem_bw_Bps, 1.2e12);
    EXPECT_DOUBLE_EQ(r.spec.boost_clock_hz, 1.8e9);
    EXPECT_FALSE(r.spec.peaks.fp16.has_value());   // never invented
    EXPECT_FALSE(r.spec.peaks.fp32.has_value());
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings[0].find("not in the spec database"), std::string::npos);
    EXPECT_NE(r.how.find("Mystery 9000"), std::string::npos);
}

// The minimum kernel duration behind the cost model's time floor (issue 34 §4): measured on the project's own
// traces for H100 SXM (0.832 us), H200 SXM (0.800 us) and MI300X (1.919 us), each with its source; any other row
// takes the database's default (the shortest of those, 0.800 us), marked as assumed.
TEST(GpuSpecs, MinimumKernelDurationIsMeasuredOrAssumedAndSaysWhich)
{
    const GpuDatabase db = GpuDatabase::load_default();
    for (const auto& [name, ns] : {std::pair<const char*, double>{"H100-SXM", 832}, {"H200", 800}, {"MI300X", 1919}}) {
        const GpuResolution r = resolve_gpu(db, name, nullptr);
        EXPECT_DOUBLE_EQ(r.spec.min_kernel_ns, ns) << name;
        EXPECT_FALSE(r.spec.min_kernel_assumed) << name;
        EXPECT_NE(r.spec.min_kernel_source.find("Measured"), std::string::npos) << name;
    }
    EXPECT_DOUBLE_EQ(db.default_min_kernel_ns(), 800);
    const GpuResolution b200 = resolve_gpu(db, "B200", nullptr);
    EXPECT_DOUBLE_EQ(b200.spec.min_kernel_ns, 800);
    EXPECT_TRUE(b200.spec.min_kernel_assumed);
    EXPECT_EQ(b200.spec.min_kernel_source, db.default_min_kernel_source());
    // The default is a lower bound of every measured row's.
    for (const auto& s : db.rows()) {
        if (s.min_kernel_ns > 0) {
            EXPECT_GE(s.min_kernel_ns, db.default_min_kernel_ns()) << s.name;
        }
    }
    // A row that gives a minimum without saying where it came from is refused.
    GpuDatabase user = GpuDatabase::load_default();
    EXPECT_THROW(user.merge_json(nlohmann::json::parse(R"({"gpus":[{"name":"X1","min_kernel_us":1.0}]})"), "user.json"),
                 TraceError);
}

// Device identity on real-world traces: a Kineto trace's deviceProperties lists the devices the process saw, numbered
// from 0, while ROCm's GPU ops carry the node's agent index (an SGLang trace on one MI300X: one entry, id 0; kernels
// on device 9), and vLLM on the same GPU writes an empty name. The traces here are planted: a synthetic decode
// written by the Kineto writer, its runtime calls renamed to HIP's, with the deviceProperties that real traces
// carry. The property values are those of the traces in ../shared/data (sglang_qwen3-8b_prefilldecode: "AMD Instinct
// MI300X"; vllm_decode_full/graph_execution: eight entries with an empty name; amd_trace__mi250_minitoy_train: "AMD
// Radeon Graphics", 104 compute units); when that data is present, the test checks they still are.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <sqlite3.h>
#include <zlib.h>

#include "analysis/io/kineto_reader.h"
#include "analysis/io/kineto_writer.h"
#include "analysis/io/load.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/timeline/workload.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

// deviceProperties entries as the real traces list them.
json mi300x(int id, const std::string& name)
{
    return {{"id", id},          {"name", name},         {"totalGlobalMem", 206141652992LL},
            {"computeMajor", 9}, {"computeMinor", 4},    {"maxThreadsPerBlock", 1024},
            {"maxThreadsPerMultiprocessor", 2048},       {"regsPerBlock", 65536},
            {"warpSize", 64},    {"sharedMemPerBlock", 65536}, {"numSms", 304},
            {"maxSharedMemoryPerMultiProcessor", 65536}};
}

json mi250_gcd(int id)
{
    return {{"id", id},          {"name", "AMD Radeon Graphics"}, {"totalGlobalMem", 68702699520LL},
            {"computeMajor", 9}, {"computeMinor", 0},             {"maxThreadsPerBlock", 1024},
            {"maxThreadsPerMultiprocessor", 2048},                {"regsPerBlock", 65536},
            {"warpSize", 64},    {"sharedMemPerBlock", 65536},    {"numSms", 104},
            {"maxSharedMemoryPerMultiProcessor", 65536}};
}

// A small synthetic decode as a ROCm Kineto trace: HIP runtime names, the given deviceProperties, and every GPU op
// on device_of(k) (k = the op's index among the GPU events).
std::string plant(const std::string& name, const json& props, const std::function<int(size_t)>& device_of)
{
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 6;
    o.prefill_steps = 1;
    o.layers = 2;
    o.nccl = false;
    const Trace t = make_synthetic_trace(o);
    KinetoWriteOptions w;
    w.distributed_info = false;
    json j = json::parse(kineto_json_string(t, w));
    j["deviceProperties"] = props;
    j.erase("cupti_version");
    j.erase("cuda_runtime_version");
    j["roctracer_version"] = 4.1;
    size_t k = 0;
    for (auto& e : j["traceEvents"]) {
        if (!e.contains("cat") || !e["cat"].is_string())
            continue;
        const std::string cat = e["cat"];
        if (cat == "cuda_runtime" || cat == "cuda_driver") {
            std::string n = e["name"];
            if (n.rfind("cuda", 0) == 0)
                n = "hip" + n.substr(4);
            else if (n.rfind("cu", 0) == 0)
                n = "hip" + n.substr(2);
            e["name"] = n;
        }
        // Every GPU-side event (kernels, copies, sets, GPU annotations, syncs) on the planted device.
        if (cat != "cuda_runtime" && cat != "cuda_driver" && e.contains("args") && e["args"].contains("device")) {
            const json old = e["args"]["device"];
            const int d = device_of(k++);
            e["args"]["device"] = d;
            if (e.contains("pid") && e["pid"] == old)
                e["pid"] = d;
        }
    }
    const std::string path = test::scratch_dir("device_identity") + "/" + name + ".json";
    std::ofstream(path) << j.dump();
    return path;
}

const GpuDatabase& db()
{
    static const GpuDatabase d = GpuDatabase::load(test::source_dir() + "/resources/gpus.json");
    return d;
}

bool contains(const std::vector<std::string>& v, const std::string& needle)
{
    for (const auto& s : v)
        if (s.find(needle) != std::string::npos)
            return true;
    return false;
}

json read_gz_json(const std::string& path)
{
    gzFile f = gzopen(path.c_str(), "rb");
    std::string s;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        s.append(buf, static_cast<size_t>(n));
    gzclose(f);
    return json::parse(s);
}

} // namespace

TEST(DeviceIdentity, KernelsOnDevice9TakeTheOneEntryWithId0ByOrder)
{
    const std::string path = plant("sglang_like", json::array({mi300x(0, "AMD Instinct MI300X")}),
                                   [](size_t) { return 9; });
    const Trace t = read_kineto_json(path);
    ASSERT_EQ(t.meta.devices.size(), 1u);
    const DeviceInfo& d = t.meta.devices[0];
    EXPECT_EQ(d.id, 9);
    EXPECT_EQ(d.name, "AMD Instinct MI300X");
    EXPECT_EQ(d.sm_count, 304);
    EXPECT_EQ(d.warp_size, 64);
    EXPECT_EQ(d.compute_major, 9);
    EXPECT_EQ(d.compute_minor, 4);
    EXPECT_NE(d.properties_from.find("entry id 0, by order"), std::string::npos) << d.properties_from;

    const GpuIdentification id = db().identify(d);
    ASSERT_NE(id.spec, nullptr) << id.summary;
    EXPECT_EQ(id.spec->name, "MI300X");
    EXPECT_EQ(id.how, "name");

    // The whole pipeline: AMD vendor, the Roofline without --gpu, the device's row in the analysis JSON.
    PipelineOptions po;
    po.roofline.model = test::source_dir() + "/tests/data/models/llama_tiny_config.json";
    const PipelineResult r = run_pipeline({path}, po);
    EXPECT_EQ(r.analysis.workload.vendor, "AMD");
    EXPECT_TRUE(contains(r.analysis.workload.vendor_evidence, "AMD Instinct MI300X"));
    EXPECT_TRUE(contains(r.analysis.workload.vendor_evidence, "HIP runtime calls"));
    const json j = pipeline_to_json(r);
    EXPECT_EQ(j["workload"]["vendor"], "AMD");
    EXPECT_EQ(j["roofline"]["gpu"]["name"], "MI300X");
    EXPECT_EQ(j["roofline"]["gpu"]["known"], true);
    EXPECT_EQ(j["devices"][0]["gpu"]["row"], "MI300X");
    EXPECT_EQ(j["devices"][0]["warp_size"], 64);
    EXPECT_TRUE(j["devices"][0]["properties_from"].is_string());
}

TEST(DeviceIdentity, AnEmptyNameIsIdentifiedByItsProperties)
{
    json props = json::array();
    for (int i = 0; i < 8; ++i)
        props.push_back(mi300x(i, ""));
    // By id: the kernels' device 2 is an entry of its own (vLLM's trace).
    const Trace t = read_kineto_json(plant("vllm_like", props, [](size_t) { return 2; }));
    ASSERT_EQ(t.meta.devices.size(), 1u);
    const DeviceInfo& d = t.meta.devices[0];
    EXPECT_EQ(d.id, 2);
    EXPECT_EQ(d.name, "");
    EXPECT_EQ(d.properties_from, "");   // matched by id
    const GpuIdentification id = db().identify(d);
    ASSERT_NE(id.spec, nullptr) << id.summary;
    EXPECT_EQ(id.spec->name, "MI300X");
    EXPECT_EQ(id.how, "properties");
    EXPECT_EQ(id.candidates, std::vector<std::string>{"MI300X"});   // MI325X has 256 GB, MI300A 228 CUs
    EXPECT_TRUE(contains(id.evidence, "compute 9.4"));
    EXPECT_TRUE(contains(id.evidence, "304 compute units"));
    EXPECT_TRUE(contains(id.evidence, "192.0 GiB"));
    EXPECT_TRUE(contains(id.evidence, "warp 64"));

    // resolve_gpu (what the Roofline uses) says how, with the evidence.
    const GpuResolution res = resolve_gpu(db(), "", &d);
    EXPECT_TRUE(res.known);
    EXPECT_EQ(res.spec.name, "MI300X");
    EXPECT_EQ(res.identified_by, "properties");
    EXPECT_NE(res.how.find("identified by its properties"), std::string::npos) << res.how;
    EXPECT_TRUE(res.warnings.empty());

    // No entry with the kernels' id among eight: by order, the first entry.
    const Trace t9 = read_kineto_json(plant("vllm_like_9", props, [](size_t) { return 9; }));
    ASSERT_EQ(t9.meta.devices.size(), 1u);
    EXPECT_EQ(t9.meta.devices[0].sm_count, 304);
    EXPECT_NE(t9.meta.devices[0].properties_from.find("entry id 0, by order"), std::string::npos);
    EXPECT_EQ(db().identify(t9.meta.devices[0]).spec->name, "MI300X");
}

TEST(DeviceIdentity, MoreDevicesThanEntriesTakeAnyEntryWhenAllAreAlike)
{
    // Two devices in use (5 and 9), one entry: not by order; the entries are all alike, so either device takes it.
    const Trace t = read_kineto_json(
        plant("two_devices", json::array({mi300x(0, "")}), [](size_t k) { return k % 2 ? 9 : 5; }));
    ASSERT_EQ(t.meta.devices.size(), 2u);
    for (const DeviceInfo& d : t.meta.devices) {
        EXPECT_EQ(d.sm_count, 304) << d.id;
        EXPECT_NE(d.properties_from.find("alike but for their id"), std::string::npos) << d.properties_from;
    }
    // Entries that differ cannot be matched that way: the devices stay unknown, and the reader says so.
    const Trace u = read_kineto_json(plant("mixed_entries", json::array({mi300x(0, "AMD Instinct MI300X"), mi250_gcd(1)}),
                                           [](size_t k) { return 5 + static_cast<int>(k % 3); }));
    ASSERT_EQ(u.meta.devices.size(), 3u);
    for (const DeviceInfo& d : u.meta.devices)
        EXPECT_EQ(d.sm_count, 0) << d.id;
    EXPECT_TRUE(contains(u.meta.warnings, "has no deviceProperties entry"));
}

TEST(DeviceIdentity, AGenericRadeonNameIsAnMi250DieOrAnMi210)
{
    const Trace t = read_kineto_json(plant("mi250_like", json::array({mi250_gcd(0), mi250_gcd(1), mi250_gcd(2), mi250_gcd(3)}),
                                           [](size_t) { return 2; }));
    ASSERT_EQ(t.meta.devices.size(), 1u);
    const GpuIdentification id = db().identify(t.meta.devices[0]);
    ASSERT_NE(id.spec, nullptr) << id.summary;
    EXPECT_EQ(id.spec->name, "MI250 (one GCD)");
    EXPECT_EQ(id.how, "properties");
    EXPECT_EQ(id.candidates, (std::vector<std::string>{"MI250 (one GCD)", "MI210"}));   // same peaks: named both
    EXPECT_NE(id.summary.find("MI210"), std::string::npos);
}

TEST(DeviceIdentity, PropertiesThatFitRowsWithDifferentPeaksAreNotGuessed)
{
    DeviceInfo d;
    d.id = 0;
    d.compute_major = 9;
    d.compute_minor = 5;
    d.sm_count = 256;
    d.total_memory_bytes = 288LL << 30;
    d.warp_size = 64;
    const GpuIdentification id = db().identify(d);
    EXPECT_EQ(id.spec, nullptr);
    EXPECT_EQ(id.candidates, (std::vector<std::string>{"MI355X", "MI350X"}));
    EXPECT_NE(id.summary.find("not guessed"), std::string::npos) << id.summary;
    const GpuResolution res = resolve_gpu(db(), "", &d);
    EXPECT_FALSE(res.known);
    EXPECT_FALSE(res.spec.peaks.bf16.has_value());
    // Too little to go on: a name that matches nothing and no properties.
    DeviceInfo bare;
    bare.name = "Mystery";
    EXPECT_EQ(db().identify(bare).spec, nullptr);
    // A warp size that contradicts the row: NVIDIA's compute 9.0 with 132 SMs and 80 GB, but wave64 — no row.
    DeviceInfo odd;
    odd.compute_major = 9;
    odd.sm_count = 132;
    odd.total_memory_bytes = 85018279936LL;
    odd.warp_size = 64;
    EXPECT_EQ(db().identify(odd).spec, nullptr);
    odd.warp_size = 32;
    ASSERT_NE(db().identify(odd).spec, nullptr);
    EXPECT_EQ(db().identify(odd).spec->name, "H100 SXM");
}

TEST(DeviceIdentity, PlantedPropertiesAreTheRealTracesOwn)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    auto props_of = [&](const std::string& rel) { return read_gz_json(*dir + "/" + rel)["deviceProperties"]; };
    const json sg = props_of("kineto/tracelens/sglang_prefilldecode/sglang_qwen3-8b_prefilldecode.json.gz");
    ASSERT_EQ(sg.size(), 1u);
    json a = mi300x(0, "AMD Instinct MI300X");
    a["regsPerBlock"] = sg[0]["regsPerBlock"];   // the one field the two MI300X traces report differently
    EXPECT_EQ(sg[0], a);
    const json vl = props_of("kineto/tracelens/vllm_decode_full/graph_execution.json.gz");
    ASSERT_EQ(vl.size(), 8u);
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(vl[static_cast<size_t>(i)], mi300x(i, ""));
    const json mi = props_of("kineto/hta/amd_trace__mi250_minitoy_train_ROCm6_2.json.gz");
    ASSERT_EQ(mi.size(), 4u);
    EXPECT_EQ(mi[2], mi250_gcd(2));
}

TEST(DeviceIdentity, NsysRowsMapByIdThenByCudaOrdinal)
{
    // Planted: a synthetic export whose TARGET_INFO_GPU row ids were renumbered (3 + the CUDA ordinal), as on nodes
    // where nsys numbers GPUs apart from the CUDA ordinal the process saw; kernels keep deviceId 0 = cuDevice 0.
    const std::string path = test::scratch_dir("device_identity") + "/renumbered.sqlite";
    SynthOptions o = synth_preset("decode");
    o.decode_steps = 4;
    o.layers = 2;
    write_nsys_sqlite(make_synthetic_trace(o), path);
    sqlite3* db3 = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db3), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db3, "UPDATE TARGET_INFO_GPU SET id = id + 3", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db3);
    const Trace t = load_trace(path);
    ASSERT_EQ(t.meta.devices.size(), 1u);
    EXPECT_EQ(t.meta.devices[0].id, 0);
    EXPECT_EQ(t.meta.devices[0].name, o.gpu_name);
    EXPECT_EQ(t.meta.devices[0].warp_size, 32);
    EXPECT_NE(t.meta.devices[0].properties_from.find("cuDevice 0"), std::string::npos)
        << t.meta.devices[0].properties_from;
    EXPECT_EQ(db().identify(t.meta.devices[0]).spec->name, "H100 SXM");

    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    // A real CUTLASS benchmark on an A100 + A40 node: kernels on deviceId 0, a row with id 0 (sqlite3: SELECT id,
    // name, cuDevice FROM TARGET_INFO_GPU -> 0 A100-PCIE-40GB 1, 1 A100-PCIE-40GB 0, 2 A40 3, 3 A40 2): by id.
    const Trace c = load_trace(*dir + "/nsys/cutlass_benchmark_report1.sqlite");
    ASSERT_EQ(c.meta.devices.size(), 1u);
    EXPECT_EQ(c.meta.devices[0].name, "NVIDIA A100-PCIE-40GB");
    EXPECT_EQ(c.meta.devices[0].properties_from, "");
    EXPECT_EQ(db().identify(c.meta.devices[0]).spec->name, "A100 40GB PCIe");
    EXPECT_EQ(analyze_workload(c).vendor, "NVIDIA");
}

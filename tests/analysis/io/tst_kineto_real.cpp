// The Kineto reader on every real trace in ../shared/data/kineto, checked against a second, independent
// computation: the file is inflated with zlib's gzread and parsed whole with nlohmann::json (fine for these small
// files), and counts, per-name kernel totals and per-device busy time are computed from that DOM in the simplest way.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <zlib.h>

#include <nlohmann/json.hpp>

#include "analysis/io/kineto_reader.h"
#include "analysis/io/load.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

std::string gunzip(const std::string& path)
{
    gzFile gz = gzopen(path.c_str(), "rb");
    std::string out;
    char buf[1 << 16];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        out.append(buf, static_cast<size_t>(n));
    gzclose(gz);
    return out;
}

// µs (as JSON number) -> ns: integers exactly, floats by rounding (the files carry at most 3 decimals).
int64_t ns_of(const json& v)
{
    if (v.is_number_integer())
        return v.get<int64_t>() * 1000;
    if (v.is_number_unsigned())
        return static_cast<int64_t>(v.get<uint64_t>()) * 1000;
    return std::llround(v.get<double>() * 1000.0);
}

struct Expected {
    size_t kernels = 0, memcpy = 0, memset = 0, api = 0, syncs = 0, cpu_ranges = 0, gpu_ranges = 0;
    uint64_t memcpy_bytes = 0;
    std::map<std::string, int64_t> kernel_ns_by_name;
    std::map<std::string, size_t> kernel_count_by_name;
    std::map<int64_t, int64_t> busy_by_device;   // device id -> union of kernel/memcpy/memset intervals
    std::set<int64_t> runtime_correlations;
    std::string first_device_name;
    int64_t rank = 0;
};

int64_t union_length(std::vector<std::pair<int64_t, int64_t>> v)
{
    std::sort(v.begin(), v.end());
    int64_t total = 0, cur_s = 0, cur_e = 0;
    bool open = false;
    for (const auto& [s, e] : v) {
        if (!open || s > cur_e) {
            if (open)
                total += cur_e - cur_s;
            cur_s = s;
            cur_e = e;
            open = true;
        } else {
            cur_e = std::max(cur_e, e);
        }
    }
    if (open)
        total += cur_e - cur_s;
    return total;
}

Expected expected_from_dom(const json& doc)
{
    Expected x;
    const json& events = doc.is_array() ? doc : doc.at("traceEvents");
    if (doc.is_object() && doc.contains("distributedInfo") && doc["distributedInfo"].contains("rank"))
        x.rank = doc["distributedInfo"]["rank"].get<int64_t>();
    std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> intervals;
    for (const auto& e : events) {
        if (e.value("ph", "") != "X" || !e.contains("cat") || !e["cat"].is_string() || !e.contains("dur") ||
            !e.contains("ts"))
            continue;
        const std::string cat = e["cat"].get<std::string>();
        const std::string name = e.value("name", "");
        const json args = e.contains("args") ? e["args"] : json::object();
        const int64_t s = ns_of(e["ts"]), d = std::max<int64_t>(0, ns_of(e["dur"]));
        const bool gpu = cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "Memcpy" ||
                         cat == "gpu_memset" || cat == "Memset";
        if (gpu) {
            const int64_t dev = args.contains("device") ? args["device"].get<int64_t>() : e["pid"].get<int64_t>();
            intervals[dev].emplace_back(s, s + d);
        }
        if (cat == "kernel" || cat == "Kernel") {
            ++x.kernels;
            x.kernel_ns_by_name[name] += d;
            ++x.kernel_count_by_name[name];
        } else if (cat == "gpu_memcpy" || cat == "Memcpy") {
            ++x.memcpy;
            x.memcpy_bytes += args.value("bytes", uint64_t{0});
        } else if (cat == "gpu_memset" || cat == "Memset") {
            ++x.memset;
        } else if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") {
            ++x.api;
            if (args.contains("correlation") && args["correlation"].is_number_integer())
                x.runtime_correlations.insert(args["correlation"].get<int64_t>());
        } else if (cat == "cuda_sync") {
            ++x.syncs;
        } else if (cat == "cpu_op" || cat == "Operator" || cat == "user_annotation" || cat == "python_function") {
            ++x.cpu_ranges;
        } else if (cat == "gpu_user_annotation") {
            ++x.gpu_ranges;
        }
    }
    for (auto& [dev, v] : intervals)
        x.busy_by_device[dev] = union_length(std::move(v));
    return x;
}

std::vector<std::string> kineto_files()
{
    return test::shared_files("kineto", {".json.gz", ".json"});
}

} // namespace

TEST(KinetoReal, EveryFileMatchesAnIndependentParse)
{
    if (!test::shared_data_dir())
        GTEST_SKIP() << "no shared data";
    const auto files = kineto_files();
    if (files.empty())
        GTEST_SKIP() << "no Kineto traces under shared data";
    size_t with_kernels = 0;
    for (const auto& path : files) {
        SCOPED_TRACE(path);
        const Trace t = load_trace(path);
        const Expected x = expected_from_dom(json::parse(gunzip(path)));

        EXPECT_EQ(t.meta.format, "kineto-json");
        EXPECT_EQ(t.kernels.size(), x.kernels);
        EXPECT_EQ(t.memcpy.size(), x.memcpy);
        EXPECT_EQ(t.memset.size(), x.memset);
        EXPECT_EQ(t.api.size(), x.api);
        EXPECT_EQ(t.syncs.size(), x.syncs);
        EXPECT_EQ(t.ranges.size(), x.cpu_ranges);
        EXPECT_EQ(t.gpu_ranges.size(), x.gpu_ranges);

        uint64_t bytes = 0;
        for (auto b : t.memcpy.bytes)
            bytes += b;
        EXPECT_EQ(bytes, x.memcpy_bytes);

        // Per-name kernel totals and counts.
        std::map<std::string, int64_t> ns_by_name;
        std::map<std::string, size_t> count_by_name;
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            const std::string n(t.str(t.kernels.name[i]));
            ns_by_name[n] += t.kernels.end[i] - t.kernels.start[i];
            ++count_by_name[n];
        }
        EXPECT_EQ(ns_by_name, x.kernel_ns_by_name);
        EXPECT_EQ(count_by_name, x.kernel_count_by_name);

        // Busy time per device from the Trace's own columns.
        std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> iv;
        auto add = [&](const auto& tab) {
            for (size_t i = 0; i < tab.size(); ++i)
                iv[t.meta.devices.at(tab.device[i]).id].emplace_back(tab.start[i], tab.end[i]);
        };
        add(t.kernels);
        add(t.memcpy);
        add(t.memset);
        std::map<int64_t, int64_t> busy;
        for (auto& [dev, v] : iv)
            busy[dev] = union_length(std::move(v));
        EXPECT_EQ(busy, x.busy_by_device);

        // Every kernel whose correlation id has a runtime/driver call is linked to a call with that id.
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            const uint32_t c = t.kernels.correlation[i];
            if (c != 0 && x.runtime_correlations.count(c)) {
                ASSERT_NE(t.kernels.launch_api[i], kNoIndex) << "kernel " << i;
                EXPECT_EQ(t.api.correlation.at(static_cast<size_t>(t.kernels.launch_api[i])), c);
            } else if (c != 0) {
                EXPECT_EQ(t.kernels.launch_api[i], kNoIndex);
            }
        }
        // Sorted by start within every device + stream; durations never negative.
        std::map<std::pair<uint16_t, uint32_t>, int64_t> last;
        for (size_t i = 0; i < t.kernels.size(); ++i) {
            auto key = std::make_pair(t.kernels.device[i], t.kernels.stream[i]);
            auto it = last.find(key);
            if (it != last.end()) {
                EXPECT_LE(it->second, t.kernels.start[i]);
            }
            last[key] = t.kernels.start[i];
            EXPECT_LE(t.kernels.start[i], t.kernels.end[i]);
        }
        for (const auto& d : t.meta.devices)
            EXPECT_EQ(d.rank, x.rank);
        if (t.kernels.size() > 0)
            ++with_kernels;
        // The capture window covers all GPU work.
        if (!t.kernels.start.empty()) {
            EXPECT_LE(t.meta.capture_start, *std::min_element(t.kernels.start.begin(), t.kernels.start.end()));
            EXPECT_GE(t.meta.capture_end, *std::max_element(t.kernels.end.begin(), t.kernels.end.end()));
        }
    }
    EXPECT_GT(with_kernels, 0u);
}

TEST(KinetoReal, KnownFacts)
{
    if (!test::shared_data_dir())
        GTEST_SKIP() << "no shared data";
    const std::string dir = *test::shared_data_dir() + "/kineto/";
    auto exists = [](const std::string& p) { return sniff_file(p) != InputFormat::Missing; };

    const std::string h100 = dir + "tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
    if (exists(h100)) {
        const Trace t = load_trace(h100);
        ASSERT_EQ(t.meta.devices.size(), 1u);
        EXPECT_EQ(t.meta.devices[0].name, "NVIDIA H100 80GB HBM3");
        EXPECT_EQ(t.meta.devices[0].sm_count, 132);
        EXPECT_EQ(t.meta.devices[0].compute_major, 9);
        EXPECT_EQ(t.meta.utc_epoch_ns, 1751410836000000000LL);
        EXPECT_EQ(t.meta.environment.at("cuda_runtime_version"), "12040");
        // One cuLaunchKernel through the driver API.
        size_t driver = 0;
        for (auto c : t.api.api_class)
            driver += c == ApiClass::Driver;
        EXPECT_EQ(driver, 1u);
    }
    const std::string nccl = dir + "hta/nccl_parser_config__nccl_data.json.gz";
    if (exists(nccl)) {
        const Trace t = load_trace(nccl);
        EXPECT_EQ(t.meta.world_size, 2);
        EXPECT_EQ(t.meta.environment.at("distributed.nccl_version"), "2.17.1");
        size_t nccl_kernels = 0;
        for (auto n : t.kernels.name)
            nccl_kernels += t.str(n).find("nccl") != std::string_view::npos;
        EXPECT_EQ(nccl_kernels, 21u);   // SOURCES.md table
    }
    const std::string sync = dir + "hta/critical_path__alexnet_trace.json.gz";
    if (exists(sync)) {
        const Trace t = load_trace(sync);
        ASSERT_EQ(t.syncs.size(), 41u);
        std::map<uint8_t, int> kinds;
        for (auto k : t.syncs.sync_type)
            ++kinds[k];
        EXPECT_EQ(kinds[2], 20);   // Stream Wait Event
        EXPECT_EQ(kinds[3], 16);   // Stream Sync
        EXPECT_EQ(kinds[4], 5);    // Context Sync
    }
    const std::string cpu_only = dir + "hta/cpu_only__rank-34.pt.trace.json.gz";
    if (exists(cpu_only)) {
        const Trace t = load_trace(cpu_only);
        EXPECT_EQ(t.kernels.size(), 0u);
        EXPECT_TRUE(t.meta.devices.empty());
        EXPECT_EQ(t.meta.world_size, 300);
        EXPECT_EQ(t.meta.environment.at("distributed.rank"), "34");
        EXPECT_GT(t.ranges.size(), 7000u);
    }
}

// 10^5 distinct device ids and processes (issue 36 §8). A device row index is 16 bits: past 65,535 devices it wrapped and kernels
// were silently counted on other devices; now the file is refused naming it, the device id and the limit. Below the
// limit every device keeps its own row, and each id is found in O(1) (the row scan per new id was quadratic).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "analysis/diagnosis/rules.h"
#include "analysis/io/kineto_reader.h"
#include "analysis/pipeline.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

std::string trace_on_devices(const std::string& name, int devices)
{
    const std::string path = test::scratch_dir("many_devices_" + name) + "/t.json";
    std::ofstream out(path);
    out << R"({"schemaVersion": 1, "traceEvents": [)";
    for (int i = 0; i < devices; ++i)
        out << (i ? "," : "") << R"({"ph":"X","cat":"kernel","name":"k","pid":)" << i << R"(,"tid":7,"ts":)"
            << 10 + 5 * i << R"(,"dur":3,"args":{"device":)" << 1000 + i << R"(,"stream":7}})";
    out << "]}";
    return path;
}

// `devices` devices, each running three 4 µs kernels 100 ms apart: mostly idle, each device's own idle findings fire.
std::string idle_devices(const std::string& name, int devices)
{
    const std::string path = test::scratch_dir("idle_devices_" + name) + "/t.json";
    std::ofstream out(path);
    out << R"({"schemaVersion": 1, "traceEvents": [)";
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < devices; ++i)
            out << (k || i ? "," : "") << R"({"ph":"X","cat":"kernel","name":"k","pid":)" << i << R"(,"tid":7,"ts":)"
                << 10 + 100'000 * k + i << R"(,"dur":4,"args":{"device":)" << i << R"(,"stream":7}})";
    out << "]}";
    return path;
}

// `processes` host processes, each launching one kernel (device 0) from its own thread.
std::string trace_of_processes(const std::string& name, int processes)
{
    const std::string path = test::scratch_dir("many_processes_" + name) + "/t.json";
    std::ofstream out(path);
    out << R"({"schemaVersion": 1, "traceEvents": [)";
    for (int i = 0; i < processes; ++i)
        out << (i ? "," : "") << R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" << 100 + i
            << R"(,"tid":)" << 100 + i << R"(,"ts":)" << 10 + 5 * i << R"(,"dur":2,"args":{"correlation":)" << i + 1
            << R"(}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" << 12 + 5 * i
            << R"(,"dur":3,"args":{"device":0,"stream":7,"correlation":)" << i + 1 << "}}";
    out << "]}";
    return path;
}

}   // namespace

TEST(ManyDevices, EachDeviceKeepsItsOwnRowBelowTheLimit)
{
    const Trace t = read_kineto_json(trace_on_devices("ok", 20000));
    ASSERT_EQ(t.kernels.size(), 20000u);
    EXPECT_EQ(t.meta.devices.size(), 20000u);
    std::set<int32_t> ids;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        ids.insert(t.meta.devices[t.kernels.device[i]].id);
    EXPECT_EQ(ids.size(), 20000u);   // no two kernels share a row (a wrapped index would)
}

TEST(ManyDevices, PastTheLimitTheFileIsRefusedNamingIt)
{
    const std::string path = trace_on_devices("over", 70000);
    try {
        read_kineto_json(path);
        FAIL() << "70,000 devices were read";
    } catch (const TraceError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(path), std::string::npos) << m;
        EXPECT_NE(m.find("at most 65535 distinct devices"), std::string::npos) << m;
        EXPECT_NE(m.find("device id 66535"), std::string::npos) << m;   // the 65,536th id (1000 + 65535)
    }
}

// Processes: the same 16-bit row index and the same rule (the per-pid scan was quadratic as well).
TEST(ManyProcesses, EachProcessKeepsItsOwnRowBelowTheLimit)
{
    const Trace t = read_kineto_json(trace_of_processes("ok", 20000));
    ASSERT_EQ(t.kernels.size(), 20000u);
    EXPECT_EQ(t.meta.processes.size(), 20000u);
    std::set<int64_t> pids;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        pids.insert(t.meta.processes[t.kernels.process[i]].pid);
    EXPECT_EQ(pids.size(), 20000u);   // each kernel belongs to the process that launched it
}

TEST(ManyProcesses, PastTheLimitTheFileIsRefusedNamingIt)
{
    const std::string path = trace_of_processes("over", 70000);
    try {
        read_kineto_json(path);
        FAIL() << "70,000 processes were read";
    } catch (const TraceError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(path), std::string::npos) << m;
        EXPECT_NE(m.find("at most 65535 distinct processes"), std::string::npos) << m;
    }
}

// A rule over one scope per device found one finding per device: 120,000 findings (600 MB of JSON) for 60,000
// devices. At most kMaxFindingsPerRule of one rule are listed, the highest ranked; the rest are counted per rule.
TEST(ManyDevices, FindingsPerRuleAreBoundedAndTheRestCounted)
{
    PipelineOptions o;
    o.rule_dirs = {shipped_rules_dir()};
    const PipelineResult r = run_pipeline({idle_devices("findings", 300)}, o);
    std::map<std::string, size_t> listed;
    for (const Finding& f : r.diagnosis.eval.findings)
        ++listed[f.rule];
    for (const auto& [rule, n] : listed)
        EXPECT_LE(n, kMaxFindingsPerRule) << rule;
    ASSERT_FALSE(r.diagnosis.omitted.empty()) << "no per-device rule fired on 300 idle devices";
    for (const OmittedFindings& om : r.diagnosis.omitted) {
        EXPECT_EQ(listed[om.rule], kMaxFindingsPerRule) << om.rule;   // only a full rule omits
        EXPECT_EQ(om.scope, ScopeKind::Device) << om.rule;
        EXPECT_EQ(om.count + kMaxFindingsPerRule, 300u) << om.rule;   // one per device, every device counted
    }
    const std::string text = pipeline_to_text(r);
    EXPECT_NE(text.find("... and " + std::to_string(300 - kMaxFindingsPerRule) + " more " +
                        r.diagnosis.omitted.front().rule),
              std::string::npos);
}

// ncu commands name real kernels: the filter an operator class gets (analysis/diagnosis/ncu_target.h) is an
// ECMAScript regex over ncu's base names that matches kernels of that class and none of another class, on a real
// trace and on the generated decode trace; its launch window is checked against an independent count; the rules'
// {ncu_kernels} placeholder writes it for a class scope.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/diagnosis/ncu_target.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/load.h"
#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

int class_index(const AnalysisResult& a, const std::string& id)
{
    for (size_t c = 0; c < a.classes.classes.size(); ++c)
        if (a.classes.classes[c].id == id)
            return int(c);
    return -1;
}

// Kernels of class `cls` whose ncu base name the regex matches, and kernels of other classes it matches.
std::pair<int64_t, int64_t> matches(const Trace& t, const AnalysisResult& a, int cls, const std::string& regex)
{
    const std::regex re(regex, std::regex::ECMAScript);
    int64_t own = 0, other = 0;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        const std::string base = ncu_base_name(t.str(t.kernels.name[k]));
        if (!std::regex_match(base, re))
            continue;
        (a.classes.kernel_class[k] == cls ? own : other) += 1;
    }
    return {own, other};
}

void check_classes(const Trace& t, const AnalysisResult& a, const std::vector<std::string>& classes,
                   const std::string& phase)
{
    for (const std::string& id : classes) {
        SCOPED_TRACE(id + " " + phase);
        const int cls = class_index(a, id);
        ASSERT_GE(cls, 0);
        const NcuTarget target = ncu_target_for_class(t, a, id, phase);
        ASSERT_FALSE(target.names.empty());
        EXPECT_LE(target.names.size(), 3u);
        const auto [own, other] = matches(t, a, cls, target.regex);
        EXPECT_GE(own, 1);
        EXPECT_EQ(other, 0);
        // The class label used as a regex (the old command) matched nothing.
        const auto [label_own, label_other] = matches(t, a, cls, ncu_regex_escape(id + " (" + phase + ")"));
        EXPECT_EQ(label_own + label_other, 0);
        EXPECT_GE(target.launch_count, 1);
        const std::string args = target.ncu_args();
        EXPECT_EQ(args.rfind("-k regex:'^(.*::)?(", 0), 0u) << args;
        EXPECT_NE(args.find("--launch-skip " + std::to_string(target.launch_skip) + " --launch-count " +
                            std::to_string(target.launch_count)),
                  std::string::npos);
    }
}

} // namespace

TEST(NcuTarget, RealKinetoTraceClassesNameTheirOwnKernels)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "SIGHTLINE_SHARED_DATA not set";
    const std::string path = *dir + "/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
    const Trace t = load_traces({path});
    const AnalysisResult a = analyze(t, AnalysisOptions{});
    check_classes(t, a, {"gemm", "attention"}, "");
}

TEST(NcuTarget, GeneratedDecodeTraceLaunchWindowIsOneSteadyStep)
{
    const Trace t = make_synthetic_trace(synth_preset("decode"));
    const AnalysisResult a = analyze(t, AnalysisOptions{});
    check_classes(t, a, {"gemm", "attention"}, "decode");

    // Independent count: kernels whose base name is one of the target's names, before / inside the first decode
    // step that is not warm-up.
    const NcuTarget target = ncu_target_for_class(t, a, "gemm", "decode");
    const StepInfo* steady = nullptr;
    for (const StepInfo& s : a.phases.steps)
        if (!s.prefill && !s.warmup) {
            steady = &s;
            break;
        }
    ASSERT_NE(steady, nullptr);
    const std::set<std::string> names(target.names.begin(), target.names.end());
    int64_t before = 0, inside = 0;
    for (size_t k = 0; k < t.kernels.size(); ++k) {
        if (!names.count(ncu_base_name(t.str(t.kernels.name[k]))))
            continue;
        before += t.kernels.start[k] < steady->start;
        inside += t.kernels.start[k] >= steady->start && t.kernels.start[k] < steady->end;
    }
    EXPECT_GT(before, 0);
    EXPECT_GT(inside, 0);
    EXPECT_EQ(target.launch_skip, before);
    EXPECT_EQ(target.launch_count, std::min<int64_t>(inside, 200));

    // The rules write it for a class scope through {ncu_kernels}; a scope without kernels falls back to its subject.
    const auto scopes = bind_metrics(t, a, nullptr, nullptr);
    bool saw = false;
    for (const MetricScope& s : scopes)
        if (s.kind == ScopeKind::OpClass && s.subject == "gemm") {
            saw = true;
            const std::string cmd = fill_placeholders("ncu --set full {ncu_kernels} -o focus app", s);
            EXPECT_EQ(cmd, "ncu --set full " + ncu_target_for_class(t, a, "gemm", "").ncu_args() + " -o focus app");
        }
    EXPECT_TRUE(saw);
    MetricScope bare;
    bare.subject = "a.b";
    EXPECT_EQ(fill_placeholders("{ncu_kernels}", bare), "-k regex:'a\\.b'");
}

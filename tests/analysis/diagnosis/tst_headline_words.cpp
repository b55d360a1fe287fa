// Issue 16: the headline's actions say in words which time they remove ("GEMM / GEMV time in decode"), in English
// and Chinese, instead of the ledger key ("class:gemm (decode)"), which stays in JSON for scripts.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/headline.h"
#include "analysis/diagnosis/ledger.h"
#include "analysis/diagnosis/verify_command.h"
#include "analysis/io/load.h"
#include "analysis/io/resources.h"
#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "analysis/timeline/op_classes.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

PipelineResult run(std::shared_ptr<const Trace> t, const std::string& model = {})
{
    PipelineOptions o;
    o.rule_dirs = {shipped_rules_dir()};
    o.roofline.model = model;
    return run_pipeline_on(std::move(t), o);
}

// No ledger key (nor any key prefix) and no "{subject}" left in the words.
void expect_words(const LocalText& t, const std::string& key)
{
    for (const std::string* s : {&t.en, &t.zh_CN}) {
        EXPECT_FALSE(s->empty()) << key;
        if (key.find(':') != std::string::npos) {
            EXPECT_EQ(s->find(key), std::string::npos) << *s;
        }
        for (const char* prefix : {"class:", "idle:", "comm:", "copy:", "kernel:", "{subject}"}) {
            EXPECT_EQ(s->find(prefix), std::string::npos) << *s;
        }
    }
}

} // namespace

TEST(HeadlineWords, EveryShippedLedgerEntryHasWords)
{
    OpClassResult classes;
    const OpClassifier c = OpClassifier::load();
    for (size_t i = 0; i < c.class_ids().size(); ++i) {
        OpClassTotals t;
        t.id = c.class_ids()[i];
        t.label = c.class_labels()[i];
        t.label_zh_CN = c.class_labels_zh_CN()[i];
        classes.classes.push_back(t);
    }
    for (const char* key : {"wall", "busy", "idle", "idle:launch", "idle:host", "idle:kernel", "idle:sync", "idle:other",
                            "copy:h2d-exposed", "comm:exposed", "comm:straggler-wait", "class:elementwise-copy",
                            "idle:host:compilation", "idle:host:autotuning", "idle:host:module_loading",
                            "idle:host:allocator"})
        expect_words(ledger_entry_words(key, &classes), key);
    const LocalText gemm = ledger_entry_words("class:gemm (decode)", &classes);
    EXPECT_EQ(gemm.en, "GEMM / GEMV time in decode");
    EXPECT_EQ(gemm.zh_CN, "解码阶段的 GEMM / GEMV 时间");
    const LocalText attn = ledger_entry_words("class:attention (prefill)", &classes);
    EXPECT_EQ(attn.en, "Attention time in prefill");
    EXPECT_EQ(attn.zh_CN, "预填充阶段的注意力时间");
    EXPECT_EQ(ledger_entry_words("class:norm", &classes).en, "Normalisation kernel time");
    // Every shipped class has a Chinese label of its own (not the English one), "GEMM / GEMV" aside.
    for (const auto& t : classes.classes) {
        if (t.id != "gemm") {
            EXPECT_NE(t.label_zh_CN, t.label) << t.id;
        }
    }
    EXPECT_EQ(ledger_entry_words("idle:host:compilation").en, "GPU idle time while the host compiles kernels (JIT)");
    EXPECT_EQ(ledger_entry_words("idle:host:compilation").zh_CN, "主机 JIT 编译内核期间的 GPU 空闲时间");
    // Unknown keys come back as they are rather than as made-up words.
    EXPECT_EQ(ledger_entry_words("future:thing").en, "future:thing");
}

// The bundled sample (the generator's decode preset with its generated config.json, as packaging/run-sample.sh
// analyses it): GPU-bound, its first action removes decode GEMM time.
TEST(HeadlineWords, SampleActionsSayWhichTime)
{
    const SynthOptions so = synth_preset("decode");
    const std::string config = test::scratch_dir("headline_words") + "/sample.config.json";
    {
        std::ofstream(config) << synth_model_config_json(so);
    }
    const auto r = run(std::make_shared<const Trace>(make_synthetic_trace(so)), config);
    const Headline& h = r.diagnosis.headline;
    ASSERT_FALSE(h.actions.empty()) << h.statement.en;
    for (const HeadlineAction& a : h.actions) {
        ASSERT_FALSE(a.removes.empty());
        expect_words(a.removes_text, a.removes);
        EXPECT_EQ(h.statement.en.find("class:"), std::string::npos) << h.statement.en;
        EXPECT_GT(a.confidence, 0.0);
        EXPECT_FALSE(a.confidence_label.empty());
    }
    EXPECT_EQ(h.actions[0].removes, "class:gemm (decode)");
    EXPECT_EQ(h.actions[0].removes_text.en, "GEMM / GEMV time in decode");
    EXPECT_EQ(h.actions[0].subject_text.en, "GEMM / GEMV (decode)");
    EXPECT_EQ(h.actions[0].subject_text.zh_CN, "GEMM / GEMV（解码）");
    // The key stays in JSON beside the words.
    const nlohmann::json j = headline_to_json(h);
    EXPECT_EQ(j["actions"][0]["removes"], "class:gemm (decode)");
    EXPECT_EQ(j["actions"][0]["removes_text"]["zh_CN"], "解码阶段的 GEMM / GEMV 时间");
    const std::string text = headline_to_text(h, "en");
    EXPECT_EQ(text.find("removes class:"), std::string::npos) << text;
    EXPECT_NE(text.find("removes GEMM / GEMV time in decode"), std::string::npos) << text;

    // Titles and explanations name the class and phase in words, never the key, in both languages (the English
    // titles said "gemm (decode)" while the Overview said "GEMM / GEMV (decode)"); Finding::subject keeps the key.
    int class_findings = 0;
    for (const Finding& f : r.diagnosis.eval.findings) {
        if (f.scope != ScopeKind::OpClass)
            continue;
        ++class_findings;
        const LocalText words = subject_words(f.scope, f.subject, r.analysis.classes);
        for (const std::string* zh : {&f.title.zh_CN, &f.explanation.zh_CN}) {
            EXPECT_EQ(zh->find(f.subject), std::string::npos) << f.rule << ": " << *zh;
        }
        for (const std::string* en : {&f.title.en, &f.explanation.en}) {
            EXPECT_EQ(en->find(f.subject), std::string::npos) << f.rule << ": " << *en;
        }
        if (f.title.en.find(words.en) != std::string::npos) {
            EXPECT_NE(f.title.zh_CN.find(words.zh_CN), std::string::npos) << f.rule << ": " << f.title.zh_CN;
        }
    }
    EXPECT_GT(class_findings, 0);
    for (const Finding& f : r.diagnosis.eval.findings)
        if (f.rule == "roofline-memory-bound-near-roof" && f.subject == "gemm (decode)") {
            EXPECT_NE(f.title.en.find("GEMM / GEMV (decode)"), std::string::npos) << f.title.en;
            EXPECT_NE(f.title.zh_CN.find("GEMM / GEMV（解码）"), std::string::npos) << f.title.zh_CN;
        }
}

// A real trace (Qwen1.5-0.5B inference on an H100, Kineto): tests/data/real_traces.json reads it as GPU-bound with
// elementwise/copy kernels holding most of the kernel time; its first action fuses them and says so in words.
TEST(HeadlineWords, RealTraceActionInWords)
{
    const auto dir = test::shared_data_dir();
    if (!dir)
        GTEST_SKIP() << "no shared data";
    const std::string path = *dir + "/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
    std::shared_ptr<const Trace> t;
    try {
        t = std::make_shared<const Trace>(load_trace(path));
    } catch (const std::exception& e) {
        GTEST_SKIP() << path << ": " << e.what();
    }
    const auto r = run(t);
    const Headline& h = r.diagnosis.headline;
    ASSERT_FALSE(h.actions.empty()) << h.statement.en;
    EXPECT_EQ(h.actions[0].removes, "class:elementwise-copy");
    EXPECT_EQ(h.actions[0].removes_text.en, "elementwise, copy and normalisation kernel time");
    EXPECT_EQ(h.actions[0].removes_text.zh_CN, "逐元素、拷贝和归一化内核时间");
    for (const HeadlineAction& a : h.actions)
        expect_words(a.removes_text, a.removes);
    // The statement names the subject in words too, and no sentence ends with ". (" or "。（".
    EXPECT_EQ(h.statement.en.find(". ("), std::string::npos) << h.statement.en;
    EXPECT_EQ(h.statement.zh_CN.find("。（"), std::string::npos) << h.statement.zh_CN;
}

// Issue 37 §8: two actions never give the same advice. Two findings whose remedy reads the same (the Tensor Core
// advice for GEMM and for attention in prefill, as the forwarded PDF had it) are one action naming both subjects,
// with the larger bounded gain. On the real eager decode trace (H100, PyTorch profiler): its two strongest findings
// with suggestions are given the same remedy text.
TEST(HeadlineActions, SameAdviceForTwoSubjectsIsOneAction)
{
    auto t = std::make_shared<const Trace>(load_trace(test::source_dir() + "/tests/data/device/decode-eager.pt.trace.json.gz"));
    const PipelineResult r = run(t, test::source_dir() + "/tests/data/device/config.json");
    std::vector<Finding> findings = r.diagnosis.eval.findings;
    // The first two findings the headline takes an action from (not info, a suggestion, distinct time pools).
    std::vector<size_t> picked;
    std::set<std::string> pools;
    for (size_t i = 0; i < findings.size() && picked.size() < 2; ++i) {
        const Finding& f = findings[i];
        if (f.severity == Severity::Info || f.suggestions.empty() || !f.expected_gain.ledger ||
            !pools.insert(f.expected_gain.ledger->entry).second)
            continue;
        picked.push_back(i);
    }
    ASSERT_EQ(picked.size(), 2u);
    // The remedy the headline takes from each: the first suggestion promising a gain.
    auto remedy = [](Finding& f) -> Suggestion& {
        for (auto& s : f.suggestions)
            if (s.gain_high > 0)
                return s;
        return f.suggestions[0];
    };
    remedy(findings[picked[1]]).text = remedy(findings[picked[0]]).text;
    const Headline h = make_headline(*t, r.analysis, findings);
    std::set<std::string> texts;
    for (const HeadlineAction& a : h.actions)
        EXPECT_TRUE(texts.insert(a.text.en).second) << "two actions say: " << a.text.en;
    const HeadlineAction* merged = nullptr;
    for (const HeadlineAction& a : h.actions)
        if (!a.merged_subjects.empty())
            merged = &a;
    ASSERT_NE(merged, nullptr);
    EXPECT_EQ(merged->subject, findings[picked[0]].subject);
    EXPECT_EQ(merged->merged_subjects, std::vector<std::string>{findings[picked[1]].subject});
    const double larger = std::max(findings[picked[0]].expected_gain.ns.value_or(0),
                                   findings[picked[1]].expected_gain.ns.value_or(0));
    EXPECT_DOUBLE_EQ(merged->gain_ns, larger);
    // Both subjects are named, in both languages; the JSON says which were merged.
    EXPECT_NE(merged->subject_text.en.find("; "), std::string::npos) << merged->subject_text.en;
    EXPECT_NE(merged->subject_text.zh_CN.find("；"), std::string::npos) << merged->subject_text.zh_CN;
    bool in_json = false;
    const nlohmann::json j = headline_to_json(h);
    for (const auto& a : j["actions"])
        in_json |= a.contains("merged_subjects");
    EXPECT_TRUE(in_json);
}

// Issue 37 §8: a PyTorch-profiler (Kineto) trace is verified the way it was recorded: the user's command under
// torch.profiler, compared with the trace it saves; never `nsys profile`, never a literal `python serve.py`. A
// command the trace records is used; an nsys export keeps nsys.
TEST(HeadlineActions, KinetoTraceIsVerifiedUnderThePyTorchProfiler)
{
    const std::string file = test::source_dir() + "/tests/data/device/prefill.pt.trace.json.gz";
    auto t = std::make_shared<const Trace>(load_trace(file));
    ASSERT_EQ(t->meta.format, "kineto-json");
    const PipelineResult r = run(t);
    int verifies = 0;
    for (const Finding& f : r.diagnosis.eval.findings)
        for (const Suggestion& s : f.suggestions) {
            if (s.verify.empty())
                continue;
            ++verifies;
            EXPECT_EQ(s.verify.find("nsys profile"), std::string::npos) << f.rule << ": " << s.verify;
            EXPECT_EQ(s.verify.find("nsys-rep"), std::string::npos) << f.rule << ": " << s.verify;
            EXPECT_EQ(s.verify.find("serve.py"), std::string::npos) << f.rule << ": " << s.verify;
        }
    EXPECT_GT(verifies, 0);
    ASSERT_FALSE(r.diagnosis.headline.actions.empty());
    bool profiler = false;
    for (const HeadlineAction& a : r.diagnosis.headline.actions) {
        EXPECT_EQ(a.verify.find("nsys"), std::string::npos) << a.verify;
        profiler |= a.verify.find("<your command under torch.profiler, saving after.pt.trace.json.gz> && "
                                  "sightline-cli compare " + file + " after.pt.trace.json.gz") != std::string::npos;
    }
    EXPECT_TRUE(profiler);
    // In Chinese the placeholder is Chinese too (the command stays as typed).
    for (const HeadlineAction& a : r.diagnosis.headline.actions)
        if (a.verify.find("torch.profiler") != std::string::npos) {
            const std::string zh = verify_for(a.verify, "zh_CN");
            EXPECT_EQ(zh.find("your command"), std::string::npos) << zh;
            EXPECT_NE(zh.find("在 torch.profiler 下运行"), std::string::npos) << zh;
        }

    // The command the trace records is the one to run.
    auto withCommand = std::make_shared<Trace>(load_trace(file));
    withCommand->meta.environment["metadata.command"] = "python -m vllm.entrypoints.api_server --model x";
    const PipelineResult rc = run(withCommand);
    bool recorded = false;
    for (const HeadlineAction& a : rc.diagnosis.headline.actions)
        recorded |= a.verify.rfind("<run `python -m vllm.entrypoints.api_server --model x` under torch.profiler", 0) == 0;
    EXPECT_TRUE(recorded);

    // An nsys export (the planted decode, written as Nsight Systems' SQLite) keeps nsys profile.
    EXPECT_EQ(verify_command_for_trace("nsys profile -t cuda,nvtx,osrt -o after <your inference command> && "
                                       "sightline-cli compare T after.nsys-rep --format text",
                                       "nsys-sqlite", ""),
              "nsys profile -t cuda,nvtx,osrt -o after <your inference command> && sightline-cli compare T "
              "after.nsys-rep --format text");
}

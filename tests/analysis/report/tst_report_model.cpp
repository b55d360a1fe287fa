// The report document model: formatting, the string table, SHA-256, and build_report on real and generated input.
#include "analysis/trace/errors.h"
#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/headline.h"
#include "analysis/diagnosis/ledger.h"
#include "analysis/report/report_json.h"
#include "analysis/report/report_markdown.h"
#include "analysis/report/report_model.h"
#include "analysis/report/report_strings.h"
#include "analysis/io/sha256.h"
#include "analysis/timeline/summary.h"
#include "analysis/io/synthetic.h"
#include "analysis/io/load.h"
#include "analysis/report_pipeline.h"
#include "tests/support/test_env.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

using namespace sl;
using namespace sl::report;

TEST(ReportFormat, DurationsPickTheUnitFromTheRoundedValue)
{
    EXPECT_EQ(fmt_duration(850), "850 ns");
    EXPECT_EQ(fmt_duration(1234), "1.23 µs");
    EXPECT_EQ(fmt_duration(12'345), "12.3 µs");
    EXPECT_EQ(fmt_duration(123'456), "123 µs");
    EXPECT_EQ(fmt_duration(999'960), "1.00 ms");   // not "1000 µs"
    EXPECT_EQ(fmt_duration(1'500'000), "1.50 ms");
    EXPECT_EQ(fmt_duration(2'000'000'000), "2.00 s");
    EXPECT_EQ(fmt_duration(0), "0 ns");
}

TEST(ReportFormat, CountsPercentBytesSi)
{
    EXPECT_EQ(fmt_count(0), "0");
    EXPECT_EQ(fmt_count(999), "999");
    EXPECT_EQ(fmt_count(1000), "1,000");
    EXPECT_EQ(fmt_count(1234567), "1,234,567");
    EXPECT_EQ(fmt_count(-1234), "-1,234");
    EXPECT_EQ(fmt_percent(0.4567), "45.7 %");
    EXPECT_EQ(fmt_percent(-0.00001), "0.0 %");   // no "-0.0"
    EXPECT_EQ(fmt_bytes(1536), "1.50 KiB");
    EXPECT_EQ(fmt_bytes(512), "512 B");
    EXPECT_EQ(fmt_si(1.5e12, "FLOP/s"), "1.50 TFLOP/s");
    EXPECT_EQ(fmt_si(3.35e12, "B/s"), "3.35 TB/s");
    EXPECT_EQ(fmt_sig(9.996, 3), "10.0");
}

TEST(ReportFormat, ShortenCountsCodePoints)
{
    EXPECT_EQ(shorten_text("abcdef", 6), "abcdef");
    EXPECT_EQ(shorten_text("abcdefg", 6), "abcde…");
    EXPECT_EQ(shorten_text("空闲时间成因分解", 4), "空闲时…");
    EXPECT_EQ(shorten_text("anything", 0), "anything");
}

TEST(ReportStrings, EveryEntryHasBothLanguagesAndTheSamePlaceholders)
{
    std::set<std::string> ids;
    const std::regex ph(R"(\{[0-9]+\})");
    for (const StringEntry& e : string_table()) {
        EXPECT_TRUE(ids.insert(e.id).second) << "duplicate id " << e.id;
        EXPECT_STRNE(e.en, "") << e.id;
        EXPECT_STRNE(e.zh, "") << e.id;
        auto set_of = [&](const char* s) {
            std::set<std::string> out;
            std::string str = s;
            for (auto it = std::sregex_iterator(str.begin(), str.end(), ph); it != std::sregex_iterator(); ++it)
                out.insert(it->str());
            return out;
        };
        EXPECT_EQ(set_of(e.en), set_of(e.zh)) << e.id;
    }
    EXPECT_EQ(F(Lang::En, "txt.rows_cut", {"5", "9"}), "5 of 9 rows shown.");
    EXPECT_EQ(F(Lang::ZhCN, "txt.rows_cut", {"5", "9"}), "共 9 行，显示 5 行。");
    EXPECT_EQ(S(Lang::En, "no.such.id"), "??no.such.id??");
    Lang l = Lang::En;
    EXPECT_TRUE(parse_lang("zh_CN.UTF-8", l));
    EXPECT_EQ(l, Lang::ZhCN);
    EXPECT_TRUE(parse_lang("en", l));
    EXPECT_EQ(l, Lang::En);
    EXPECT_FALSE(parse_lang("fr", l));
}

// Every verdict of the documented vocabulary has words in both languages (the report's Verdict line and headline
// said the token before), and the rule engine's confidence reasons are said in the report's language with their
// numbers kept; an unknown reason passes through unchanged.
TEST(ReportStrings, VerdictsAndConfidenceReasonsInWords)
{
    for (const std::string& v : sl::verdict_vocabulary())
        EXPECT_TRUE(has_string("verdict." + v)) << v;
    EXPECT_EQ(confidence_reason_text("short capture (39.2 ms < 200 ms)", Lang::ZhCN), "采集时间短（39.2 ms < 200 ms）");
    EXPECT_EQ(confidence_reason_text("short capture (39.2 ms < 200 ms)", Lang::En), "short capture (39.2 ms < 200 ms)");
    EXPECT_EQ(confidence_reason_text("few samples (count 3)", Lang::ZhCN), "样本少（count 3）");
    EXPECT_EQ(confidence_reason_text("incomplete data for this scope (quality 0.5)", Lang::ZhCN),
              "该范围的数据不完整（quality 0.5）");
    EXPECT_EQ(confidence_reason_text("expected gain is the rule's range, not computed from this trace", Lang::ZhCN),
              "预期收益取自规则给出的范围，并非由本 trace 计算");
    EXPECT_EQ(confidence_reason_text("knowledge base: verified 2x", Lang::ZhCN), "知识库：verified 2x");
    EXPECT_EQ(confidence_reason_text("something new (1)", Lang::ZhCN), "something new (1)");
    EXPECT_EQ(confidence_reason_text("short capture", Lang::ZhCN), "short capture");
}

// Evidence tables name metrics in words (metric_label): every metric a shipped rule reads in its condition or gain,
// or cites as evidence, has a label in both languages, distinct from its key, and an unknown key passes through unchanged.
TEST(ReportStrings, EveryRuleMetricHasWordsInBothLanguages)
{
    std::set<std::string> keys;
    const std::regex ident(R"(\b([a-z_][a-z0-9_]*)\b(?!\s*\())");
    for (const auto& entry : std::filesystem::directory_iterator(sl::test::source_dir() + "/resources/rules")) {
        if (entry.path().extension() != ".json")
            continue;
        const nlohmann::json j = nlohmann::json::parse(std::ifstream(entry.path()));
        for (const auto& r : j.at("rules")) {
            const std::string cond = r.at("condition").get<std::string>();
            for (auto it = std::sregex_iterator(cond.begin(), cond.end(), ident); it != std::sregex_iterator(); ++it)
                keys.insert((*it)[1].str());
            for (const auto& e : r.value("evidence", nlohmann::json::array()))
                keys.insert(e.get<std::string>());
            // The gain's metrics are cited as evidence too.
            const nlohmann::json gain = r.value("gain", nlohmann::json::object());
            for (const char* g : {"expr", "ns"})
                if (gain.contains(g)) {
                    const std::string x = gain[g].get<std::string>();
                    for (auto it = std::sregex_iterator(x.begin(), x.end(), ident); it != std::sregex_iterator(); ++it)
                        keys.insert((*it)[1].str());
                }
        }
    }
    ASSERT_GT(keys.size(), 60u);
    for (const std::string& k : keys) {
        EXPECT_TRUE(has_string("metric." + k)) << k;
        EXPECT_NE(metric_label(k, Lang::En), k) << k;
        EXPECT_NE(metric_label(k, Lang::ZhCN), metric_label(k, Lang::En)) << k;
    }
    EXPECT_EQ(metric_label("host_wait_share", Lang::En), "host wait, share of idle time");
    EXPECT_EQ(metric_label("host_wait_share", Lang::ZhCN), "主机等待占空闲时间比例");
    EXPECT_EQ(metric_label("no_such_metric", Lang::ZhCN), "no_such_metric");
}

TEST(Sha256, KnownVectors)
{
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // One million 'a', fed in uneven chunks: exercises the buffering across block boundaries.
    Sha256 h;
    const std::string chunk(997, 'a');
    size_t left = 1'000'000;
    while (left > 0) {
        const size_t n = std::min(left, chunk.size());
        h.update(chunk.data(), n);
        left -= n;
    }
    EXPECT_EQ(h.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, FileMatchesInMemoryAndMissingFileThrows)
{
    const std::string dir = test::scratch_dir("sha256");
    const std::string path = dir + "/data.bin";
    std::string data;
    for (int i = 0; i < 300'000; ++i)
        data += char(i * 31 % 251);
    std::ofstream(path, std::ios::binary) << data;
    EXPECT_EQ(sha256_file(path), sha256_hex(data));
    EXPECT_THROW(sha256_file(dir + "/absent"), TraceError);
}

namespace {

const Section* find_section(const std::vector<Section>& secs, const std::string& id)
{
    for (const Section& s : secs) {
        if (s.id == id)
            return &s;
        if (const Section* c = find_section(s.children, id))
            return c;
    }
    return nullptr;
}

template <typename T>
std::vector<const T*> blocks_of(const Section& s)
{
    std::vector<const T*> out;
    for (const Block& b : s.blocks)
        if (const T* x = std::get_if<T>(&b))
            out.push_back(x);
    return out;
}

bool has_missing_note(const Section& s)
{
    for (const Note* n : blocks_of<Note>(s))
        if (n->kind == Note::Kind::Missing)
            return true;
    return false;
}

} // namespace

TEST(ReportModel, EmptyInputsGiveEverySectionWithMissingNotes)
{
    ReportInputs in;
    in.options.generated_at = "2026-01-01T00:00:00Z";
    const Report r = build_report(in);
    EXPECT_EQ(r.schema, "sightline.report/1");
    EXPECT_EQ(r.version, SIGHTLINE_VERSION);
    EXPECT_EQ(r.generated_at, "2026-01-01T00:00:00Z");
    EXPECT_EQ(r.run_id.size(), 13u);
    for (const char* id : {"overview", "environment", "headline", "time", "roofline", "findings", "appendix"})
        ASSERT_NE(find_section(r.sections, id), nullptr) << id;
    for (const char* id : {"environment", "headline", "time.devices", "time.top_kernels", "time.idle", "roofline",
                           "findings"})
        EXPECT_TRUE(has_missing_note(*find_section(r.sections, id))) << id;
    // The appendix lists each missing input once.
    const Section* missing = find_section(r.sections, "appendix.missing");
    ASSERT_NE(missing, nullptr);
    const auto tables = blocks_of<Table>(*missing);
    ASSERT_EQ(tables.size(), 1u);
    std::set<std::string> what;
    for (const auto& row : tables[0]->rows)
        EXPECT_TRUE(what.insert(row[0].text).second) << row[0].text;
    EXPECT_GE(what.size(), 5u);
    // No string id leaked into the output, in either language.
    for (Lang l : {Lang::En, Lang::ZhCN}) {
        in.options.lang = l;
        const std::string md = to_markdown(build_report(in));
        EXPECT_EQ(md.find("??"), std::string::npos) << md;
    }
}

// Issue 14: with a trace-level headline the report opens with it — its statement, then its bounded actions — in
// both languages; without one the order stays overview, environment, headline. Issue 16: it is the executive
// summary — the actions in a table (time it removes in words, gain in time and share of the end-to-end time,
// confidence), each with its verify command.
TEST(ReportModel, HeadlineLeadsWhenGiven)
{
    Headline h;
    h.bound = "host";
    h.verdict = "host-bound";
    h.statement = {"The run is host-bound: the GPU waits for the CPU.", "本次运行受主机限制。"};
    HeadlineAction a;
    a.rule = "decode-host-bound";
    a.subject = "decode";
    a.text = {"Use CUDA graphs", "使用 CUDA Graphs"};
    a.gain_fraction = 0.25;
    a.gain_ns = 2.5e6;
    a.removes = "idle:host";
    a.removes_text = ledger_entry_words(a.removes);
    a.subject_text = {"decode", "解码"};
    a.confidence = 0.72;
    a.confidence_label = "high";
    a.verify = "nsys profile -o after <cmd>";
    h.actions.push_back(a);
    ReportInputs in;
    in.options.generated_at = "2026-01-01T00:00:00Z";
    in.headline = &h;
    for (Lang l : {Lang::En, Lang::ZhCN}) {
        in.options.lang = l;
        const Report r = build_report(in);
        ASSERT_FALSE(r.sections.empty());
        EXPECT_EQ(r.sections[0].id, "headline");
        const auto paras = blocks_of<Paragraph>(r.sections[0]);
        ASSERT_GE(paras.size(), 1u);
        EXPECT_EQ(paras[0]->text, l == Lang::En ? h.statement.en : h.statement.zh_CN);
        const auto tables = blocks_of<Table>(r.sections[0]);
        ASSERT_EQ(tables.size(), 1u);
        ASSERT_EQ(tables[0]->rows.size(), 1u);
        const auto& row = tables[0]->rows[0];
        ASSERT_EQ(row.size(), 6u);
        EXPECT_NE(row[1].text.find(l == Lang::En ? "Use CUDA graphs" : "使用 CUDA Graphs"), std::string::npos);
        EXPECT_EQ(row[2].text, l == Lang::En ? "GPU idle time waiting for the host" : "GPU 等待主机的空闲时间");
        EXPECT_EQ(row[3].number.value_or(0), 2.5e6);
        EXPECT_EQ(row[3].text, "2.50 ms");
        EXPECT_EQ(row[4].text, "25.0 %");
        EXPECT_NE(row[5].text.find("0.72"), std::string::npos);
        const auto codes = blocks_of<Code>(r.sections[0]);
        ASSERT_EQ(codes.size(), 1u);
        EXPECT_EQ(codes[0]->text, a.verify);
        const std::string md = to_markdown(r);
        EXPECT_NE(md.find(l == Lang::En ? h.statement.en : h.statement.zh_CN), std::string::npos);
        EXPECT_EQ(md.find("idle:host"), std::string::npos) << md;
    }
    in.headline = nullptr;
    const Report plain = build_report(in);
    EXPECT_EQ(plain.sections[0].id, "overview");
}

TEST(ReportModel, SyntheticTraceNumbersMatchAnIndependentComputation)
{
    SynthOptions so = synth_preset("decode");
    const Trace t = make_synthetic_trace(so);
    const Summary sm = summarize(t);
    ReportInputs in;
    in.trace = &t;
    in.summary = &sm;
    in.options.generated_at = "2026-01-01T00:00:00Z";
    const Report r = build_report(in);

    // Kernel count in the environment.
    const Section* env = find_section(r.sections, "environment");
    ASSERT_NE(env, nullptr);
    bool found = false;
    for (const KeyValues* kv : blocks_of<KeyValues>(*env))
        for (const KeyValue& i : kv->items)
            if (i.key == "kernels") {
                found = true;
                EXPECT_EQ(i.value.number.value_or(-1), double(t.kernels.size()));
            }
    EXPECT_TRUE(found);

    // Busy time per device from a second computation: union of kernel, memcpy and memset intervals.
    std::vector<std::pair<int64_t, int64_t>> iv;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        iv.push_back({t.kernels.start[i], t.kernels.end[i]});
    for (size_t i = 0; i < t.memcpy.size(); ++i)
        iv.push_back({t.memcpy.start[i], t.memcpy.end[i]});
    for (size_t i = 0; i < t.memset.size(); ++i)
        iv.push_back({t.memset.start[i], t.memset.end[i]});
    std::sort(iv.begin(), iv.end());
    const int64_t lo = iv.front().first;
    int64_t hi = INT64_MIN, busy = 0, cur_s = iv.front().first, cur_e = iv.front().first;
    for (const auto& [s, e] : iv) {
        hi = std::max(hi, e);
        if (s > cur_e) {
            busy += cur_e - cur_s;
            cur_s = s;
            cur_e = e;
        } else {
            cur_e = std::max(cur_e, e);
        }
    }
    busy += cur_e - cur_s;
    const Section* dev = find_section(r.sections, "time.devices");
    ASSERT_NE(dev, nullptr);
    const auto tables = blocks_of<Table>(*dev);
    ASSERT_EQ(tables.size(), 1u);
    ASSERT_EQ(tables[0]->rows.size(), 1u);
    const auto& row = tables[0]->rows[0];
    EXPECT_EQ(row[2].number.value_or(-1), double(hi - lo));   // window
    EXPECT_EQ(row[3].number.value_or(-1), double(busy));      // busy
    EXPECT_NEAR(row[5].number.value_or(-1), double(busy) / double(hi - lo), 1e-12);

    // The headline quotes the idle fraction.
    const Section* hl = find_section(r.sections, "headline");
    ASSERT_NE(hl, nullptr);
    const auto paras = blocks_of<Paragraph>(*hl);
    ASSERT_FALSE(paras.empty());
    EXPECT_NE(paras[0]->text.find(fmt_percent(1.0 - double(busy) / double(hi - lo))), std::string::npos)
        << paras[0]->text;

    // Top kernels: at most top_kernels rows, nsys order, total_rows = distinct names.
    const Section* top = find_section(r.sections, "time.top_kernels");
    const auto tk = blocks_of<Table>(*top);
    ASSERT_EQ(tk.size(), 1u);
    EXPECT_EQ(tk[0]->total_rows, int64_t(sm.kernels.by_name.size()));
    EXPECT_LE(tk[0]->rows.size(), size_t(in.options.top_kernels));
    for (size_t i = 1; i < tk[0]->rows.size(); ++i)
        EXPECT_GE(tk[0]->rows[i - 1][1].number.value(), tk[0]->rows[i][1].number.value());

    // The gap histogram's counts add up to the gap count.
    const Section* gaps = find_section(r.sections, "time.gaps");
    const auto charts = blocks_of<Chart>(*gaps);
    ASSERT_EQ(charts.size(), 1u);
    double n = 0;
    for (double v : charts[0]->series.at(0).values)
        n += v;
    EXPECT_EQ(n, double(sm.devices[0].gaps.count));
    EXPECT_GT(n, 0);
}

TEST(ReportModel, FindingsAreRankedWithStateAndVerification)
{
    std::vector<Finding> fs(2);
    fs[0].rule = "small-gain";
    fs[0].verdict = "idle-gaps";
    fs[0].subject = "GPU 0";
    fs[0].title.en = "Small gaps";
    fs[0].expected_gain.fraction = 0.02;
    fs[0].confidence.value = 0.9;
    fs[0].confidence.label = "high";
    fs[1].rule = "launch-bound";
    fs[1].verdict = "launch-bound";
    fs[1].subject = "decode";
    fs[1].title.en = "Decode is launch-bound";
    fs[1].title.zh_CN = "Decode 受启动开销限制";
    fs[1].expected_gain = {0.30, 0.2, 0.4, 1.5e6, false, "rule range", {}};
    fs[1].confidence.value = 0.6;
    fs[1].confidence.label = "medium";
    fs[1].evidence.push_back({"avg_kernel_us", 4.2, "<", 10.0, "trace:kernels"});
    Suggestion s;
    s.id = "cuda-graphs";
    s.text.en = "Capture decode in CUDA graphs";
    s.gain_low = 0.2;
    s.gain_high = 0.4;
    s.risk = "low";
    s.verify = "nsys profile --cuda-graph-trace=node -o after python serve.py";
    fs[1].suggestions.push_back(s);

    ReportInputs in;
    in.findings = &fs;
    in.options.finding_state["launch-bound|decode"] = "accepted";
    in.options.finding_note["launch-bound|decode"] = "try on Monday";
    const Report r = build_report(in);
    const Section* f = find_section(r.sections, "findings");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(f->children.size(), 2u);
    // 0.30 x 0.6 = 0.18 ranks above 0.02 x 0.9 = 0.018.
    EXPECT_NE(f->children[0].title.find("Decode is launch-bound"), std::string::npos);
    const std::string md = to_markdown(r);
    EXPECT_NE(md.find("accepted"), std::string::npos);
    EXPECT_NE(md.find("try on Monday"), std::string::npos);
    EXPECT_NE(md.find("```sh\nnsys profile --cuda-graph-trace=node -o after python serve.py\n```"), std::string::npos);
    EXPECT_NE(md.find("20.0–40.0 %"), std::string::npos) << md;
    // The headline names the top action with its gain and confidence.
    const Section* hl = find_section(r.sections, "headline");
    const std::string head = blocks_of<Paragraph>(*hl).at(0)->text;
    EXPECT_NE(head.find("Capture decode in CUDA graphs"), std::string::npos) << head;
    EXPECT_NE(head.find("launch-bound"), std::string::npos) << head;

    in.options.lang = Lang::ZhCN;
    const std::string zh = to_markdown(build_report(in));
    EXPECT_NE(zh.find("Decode 受启动开销限制"), std::string::npos);
    EXPECT_NE(zh.find("已采纳"), std::string::npos);
}

TEST(ReportModel, InputFilesAreHashed)
{
    const std::string dir = test::scratch_dir("report_hash");
    const std::string path = dir + "/trace.bin";
    std::ofstream(path, std::ios::binary) << "abc";
    ReportInputs in;
    in.input_files = {path};
    const Report r = build_report(in);
    const std::string md = to_markdown(r);
    EXPECT_NE(md.find("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), std::string::npos);
    // The run id derives from the hashes: the same input gives the same id, another input another.
    EXPECT_EQ(build_report(in).run_id, r.run_id);
    std::ofstream(path, std::ios::binary) << "abd";
    EXPECT_NE(build_report(in).run_id, r.run_id);
}

namespace {
// Every key-value row of the report (sections and their children), depth first.
void key_values(const Section& s, std::vector<const KeyValue*>& out)
{
    for (const Block& b : s.blocks)
        if (const auto* kv = std::get_if<KeyValues>(&b))
            for (const KeyValue& i : kv->items)
                out.push_back(&i);
    for (const Section& c : s.children)
        key_values(c, out);
}
} // namespace

// Issue 35 on the real eager decode (tests/data/device/README.md: host-bound, CUDA graphs first): the overview says
// what sets the step (the steady steps' critical path, as `analyze` does), and each finding whose suggestion maps to a
// what-if has one line with its replayed step time, in Markdown too, in both languages.
TEST(ReportModel, ReplayedStepAndWhatSetsTheStepOnTheRealEagerDecode)
{
    const Trace t = load_trace(test::source_dir() + "/tests/data/device/decode-eager.pt.trace.json.gz");
    const report::PipelineResults r = report::run_pipeline(t, report::PipelineOptions{});
    ASSERT_TRUE(r.findings && r.critical_path);
    size_t replayed = 0;
    const ReplayedStep* graphs = nullptr;
    for (const Finding& f : *r.findings)
        if (f.replayed_step) {
            ++replayed;
            if (f.replayed_step->change == "cuda-graphs" && !graphs)
                graphs = &*f.replayed_step;
        }
    ASSERT_NE(graphs, nullptr);
    // The steady steps' median path length, computed here from the per-step paths.
    std::vector<int64_t> steady;
    for (const auto& sp : r.critical_path->steps)
        if (sp.steady && sp.nodes > 0)
            steady.push_back(sp.length_ns);
    ASSERT_FALSE(steady.empty());
    std::sort(steady.begin(), steady.end());
    for (Lang lang : {Lang::En, Lang::ZhCN}) {
        ReportOptions o;
        o.lang = lang;
        const Report rep = build_report(report_inputs(t, r, o, {}));
        std::vector<const KeyValue*> kvs;
        for (const Section& s : rep.sections)
            key_values(s, kvs);
        size_t lines = 0;
        const KeyValue* sets = nullptr;
        for (const KeyValue* kv : kvs) {
            if (kv->key == "replayed_step") {
                ++lines;
                EXPECT_NE(kv->value.text.find(fmt_duration(double(graphs->baseline_step_ns)) + " → "), std::string::npos)
                    << kv->value.text;
            }
            if (kv->key == "what_sets_step")
                sets = kv;
        }
        EXPECT_EQ(lines, replayed);   // one line per such finding
        ASSERT_NE(sets, nullptr);
        EXPECT_DOUBLE_EQ(sets->value.number.value_or(0), double(steady[steady.size() / 2]));
        const std::string md = to_markdown(rep);
        const std::string want = lang == Lang::En ? "graph replay: TPOT " : "CUDA graph 重放：TPOT ";
        EXPECT_NE(md.find(want + fmt_duration(double(graphs->baseline_step_ns)) + " → " +
                          fmt_duration(double(graphs->predicted_step_ns))),
                  std::string::npos);
        EXPECT_NE(md.find(lang == Lang::En ? "What sets the step (critical path)" : "决定步长的因素（关键路径）"),
                  std::string::npos);
    }
}

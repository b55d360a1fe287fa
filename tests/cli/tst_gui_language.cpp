// The workbench in Chinese and the screenshots the Roofline and Details work is judged by (issue 30).
//   - Under --language zh_CN, no English on the main window's visible widgets (labels, buttons, menus, tabs, dock
//     titles, table headers, rich-text panes, chart titles and legends; sightline --text-report). Allowed: the trace's
//     own names (every token of its string pool: kernel, API, NVTX, thread names), numbers, units, file names, and
//     the English terms the Chinese vocabulary keeps (the ASCII words of the zh_CN texts of the rules and reports).
//   - --language en with zh_CN saved runs in English and ticks English: the window's menu says "File", not "文件".
//   - Screenshots kept in the test's scratch folder (gui_language/): a Roofline hover and a kernel's verdict line on
//     the real H100 Qwen Kineto trace without a model config, at 1280x720 and 1920x1080, en and zh_CN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/verify_command.h"
#include "analysis/io/load.h"
#include "analysis/report/report_strings.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/shape_throughput.h"
#include "analysis/trace/trace.h"
#include "tests/support/test_env.h"

namespace {

[[maybe_unused]] std::string gui_env(const std::string& dir)
{
    return "QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=" + dir + "/config XDG_DATA_HOME=" + dir + "/data ";
}

std::string slurp(const std::string& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// ASCII words of three letters or more.
std::vector<std::string> words(const std::string& s)
{
    std::vector<std::string> out;
    std::string w;
    for (size_t i = 0; i <= s.size(); ++i) {
        const char c = i < s.size() ? s[i] : ' ';
        if (std::isalpha(static_cast<unsigned char>(c))) {
            w += c;
            continue;
        }
        if (w.size() >= 3)
            out.push_back(w);
        w.clear();
    }
    return out;
}

void add_words(std::set<std::string>& to, const std::string& s)
{
    for (const std::string& w : words(s))
        to.insert(w);
}

void zh_texts(const nlohmann::json& j, std::set<std::string>& to)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if ((it.key() == "zh_CN" || it.key() == "zh" || it.key() == "label_zh_CN") && it.value().is_string())
                add_words(to, it.value().get<std::string>());
            else
                zh_texts(it.value(), to);
        }
    } else if (j.is_array()) {
        for (const auto& x : j)
            zh_texts(x, to);
    }
}

// Words a Chinese window may show: the trace's names, the zh vocabulary's English terms, units and file names.
std::set<std::string> allowed_words(const sl::Trace& t)
{
    std::set<std::string> ok;
    for (size_t i = 0; i < t.strings.size(); ++i)
        add_words(ok, std::string(t.strings.view(sl::StrId(i))));
    for (const auto& d : t.meta.devices)
        add_words(ok, d.name);
    for (const auto& th : t.meta.threads)   // "thread 25286 (python3)", as the trace names its threads
        add_words(ok, th.name);
    add_words(ok, t.meta.format);           // "kineto-json"
    add_words(ok, t.meta.tool_version);     // "Kineto schema 1", "PyTorch 2.4"
    for (const auto& e : sl::report::string_table())
        add_words(ok, e.zh);
    const std::string rules = sl::test::source_dir() + "/resources/rules";
    // The rules' Chinese texts, and their ids (names, like a kernel's: "规则 hta-launch-delay-outliers").
    for (const auto& f : std::filesystem::directory_iterator(rules))
        if (f.path().extension() == ".json") {
            const nlohmann::json j = nlohmann::json::parse(slurp(f.path().string()));
            zh_texts(j, ok);
            for (const auto& r : j.value("rules", nlohmann::json::array()))
                if (r.is_object() && r.contains("id") && r["id"].is_string())
                    add_words(ok, r["id"].get<std::string>());
        }
    zh_texts(nlohmann::json::parse(slurp(sl::test::source_dir() + "/resources/kernel_classes.json")), ok);
    for (const char* w : {"FLOP", "FLOPs", "TFLOP", "GFLOP", "PFLOP", "MFLOP", "kFLOP", "GiB", "MiB", "KiB", "TiB",
                          "Sightline", "sqlite", "json", "nsys", "ncu", "Kineto", "NVIDIA", "AMD", "HBM"})
        ok.insert(w);
    return ok;
}

void verbatim_texts(const nlohmann::json& j, std::vector<std::string>& to)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (it.key() == "verify" && it.value().is_string()) {
                // The command's literal parts: the placeholders ({trace}, {kernel_regex}) are filled in the window.
                // (as the Chinese window shows it: the user's-command placeholder in Chinese), as the rule writes it
                // and as a PyTorch-profiler trace is told to verify it (verify_command.h: the user's command under
                // torch.profiler, then the same compare).
                const std::string raw = it.value().get<std::string>();
                for (const std::string& v : {sl::verify_for(raw, "zh_CN"),
                                             sl::verify_for(sl::verify_command_for_trace(raw, "kineto-json", ""),
                                                            "zh_CN")}) {
                    size_t from = 0;
                    for (size_t open = v.find('{'); from < v.size(); open = v.find('{', from)) {
                        const std::string part =
                            v.substr(from, open == std::string::npos ? std::string::npos : open - from);
                        if (part.size() > 3)
                            to.push_back(part);
                        if (open == std::string::npos)
                            break;
                        const size_t close = v.find('}', open);
                        from = close == std::string::npos ? v.size() : close + 1;
                    }
                }
            } else if (it.key() == "references" && it.value().is_array()) {
                for (const auto& r : it.value())
                    if (r.is_string())
                        to.push_back(r.get<std::string>());
            } else {
                verbatim_texts(it.value(), to);
            }
        }
    } else if (j.is_array()) {
        for (const auto& x : j)
            verbatim_texts(x, to);
    }
}

// What the window quotes as it is: the command lines a suggestion gives to be copied and run (its verify command)
// and the titles of the documents a finding cites (its references), from the shipped rules.
const std::vector<std::string>& verbatim()
{
    static const std::vector<std::string> all = [] {
        std::vector<std::string> v;
        for (const auto& f : std::filesystem::directory_iterator(sl::test::source_dir() + "/resources/rules"))
            if (f.path().extension() == ".json")
                verbatim_texts(nlohmann::json::parse(slurp(f.path().string())), v);
        // Longest first, so that a command is not cut by a shorter one inside it.
        std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
        return v;
    }();
    return all;
}

// A time-ledger entry a computed gain is bounded by: "idle:host", "class:elementwise-copy".
bool ledger_entry(const std::string& tok)
{
    const size_t colon = tok.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == tok.size() || tok.find("::") != std::string::npos)
        return false;
    return std::all_of(tok.begin(), tok.end(),
                       [](char c) { return std::islower(static_cast<unsigned char>(c)) || c == ':' || c == '-' || c == '_'; });
}

// The English words left in a --text-report: one per offending line, "word  <- line".
std::vector<std::string> english_in(const std::string& report, const std::set<std::string>& ok)
{
    std::vector<std::string> bad;
    std::istringstream in(report);
    std::string line;
    while (std::getline(in, line)) {
        const size_t tab = line.find('\t');
        std::string text = tab == std::string::npos ? line : line.substr(tab + 1);
        // Zero-width break hints inside names.
        for (size_t at = text.find("\xe2\x80\x8b"); at != std::string::npos; at = text.find("\xe2\x80\x8b"))
            text.erase(at, 3);
        for (const std::string& v : verbatim())
            for (size_t at = text.find(v); at != std::string::npos; at = text.find(v))
                text.erase(at, v.size());
        // Commands, key names and a company's name are written as they are.
        for (const char* verbatim : {"nsys profile", "Hugging Face", "Ctrl+Enter", "Shift+Enter", "Ctrl+", "Shift+"})
            for (size_t at = text.find(verbatim); at != std::string::npos; at = text.find(verbatim))
                text.erase(at, std::strlen(verbatim));
        // File names, paths and identifiers (a rule's metric keys, "memory_bound"; record_shapes=True; the
        // time-ledger's entries) stay as they are.
        std::istringstream tokens(text);
        std::string tok, kept;
        while (tokens >> tok)
            if (tok.find('/') == std::string::npos && tok.find(".sqlite") == std::string::npos &&
                tok.find(".json") == std::string::npos && tok.find('_') == std::string::npos &&
                !ledger_entry(tok))
                kept += tok + " ";
        for (const std::string& w : words(kept)) {
            bool upper = true;
            for (char c : w)
                upper = upper && !std::islower(static_cast<unsigned char>(c));
            if (upper || ok.count(w))   // acronyms (GPU, CUDA, NVTX, SM, TPOT) are terms in both languages
                continue;
            bad.push_back(w + "  <- " + line);
            break;
        }
    }
    return bad;
}

[[maybe_unused]] int64_t a_shape_kernel(const sl::Trace& t)
{
    const sl::GpuDatabase db = sl::GpuDatabase::load_default();
    const sl::ShapeRooflineResult r = sl::shape_roofline(t, db.identify(t.meta.devices.front()).spec);
    for (const sl::ShapePoint& p : r.points)
        if (p.family == "gemm" && p.pct_of_roof && !p.kernel_rows.empty())
            return int64_t(p.kernel_rows.front());
    return -1;
}

} // namespace

TEST(GuiLanguage, NoEnglishOnTheChineseWindow)
{
#ifndef SIGHTLINE_GUI
    GTEST_SKIP() << "built without the GUI";
#else
    const std::string dir = sl::test::scratch_dir("gui_language");
    const std::string sample = dir + "/llm_decode_sample.sqlite";
    std::string out;
    ASSERT_EQ(sl::test::run_command(std::string(SIGHTLINE_CLI) + " generate --preset decode --quiet -o " + sample, &out,
                                    true),
              0)
        << out;
    const sl::Trace t = sl::load_traces({sample});
    const std::set<std::string> ok = allowed_words(t);
    for (const std::string pane : {"overview", "details", "findings", "suggestions", "roofline", "gaps", "kernels"}) {
        SCOPED_TRACE(pane);
        const std::string txt = dir + "/zh_" + pane + ".txt", png = dir + "/zh_" + pane + ".png";
        ASSERT_EQ(sl::test::run_command("timeout 120 env " + gui_env(dir) + SIGHTLINE_GUI + " " + sample +
                                            " --language zh_CN --size 1280x720 --select-kernel 40 --pane " + pane +
                                            " --screenshot " + png + " --text-report " + txt,
                                        &out, true),
                  0)
            << out;
        const std::string report = slurp(txt);
        ASSERT_FALSE(report.empty());
        const auto bad = english_in(report, ok);
        std::string all;
        for (const std::string& b : bad)
            all += b + "\n";
        EXPECT_TRUE(bad.empty()) << bad.size() << " line(s) with English:\n" << all;
    }
#endif
}

TEST(GuiLanguage, EnglishOnTheCommandLineWinsOverTheSavedChinese)
{
#ifndef SIGHTLINE_GUI
    GTEST_SKIP() << "built without the GUI";
#else
    const std::string dir = sl::test::scratch_dir("gui_language_override");
    std::filesystem::create_directories(dir + "/config/Sightline");
    {
        std::ofstream ini(dir + "/config/Sightline/sightline.conf");
        ini << "[General]\nlanguage=zh_CN\n";
    }
    std::string out;
    const std::string txt = dir + "/en.txt";
    ASSERT_EQ(sl::test::run_command("timeout 60 env " + gui_env(dir) + SIGHTLINE_GUI +
                                        " --language en --size 1280x720 --screenshot " + dir + "/en.png --text-report " +
                                        txt,
                                    &out, true),
              0)
        << out;
    const std::string report = slurp(txt);
    EXPECT_NE(report.find("QMenuBar\tFile"), std::string::npos) << report.substr(0, 500);
    EXPECT_EQ(report.find("文件"), std::string::npos);
#endif
}

// The pictures a person looks at: a Roofline hover and a kernel's verdict line, without a model config, on a real
// Kineto trace with shapes, at the two window sizes, in both languages. The files stay in the scratch folder.
TEST(GuiLanguage, ScreenshotsOfTheRooflineHoverAndTheVerdict)
{
#ifndef SIGHTLINE_GUI
    GTEST_SKIP() << "built without the GUI";
#else
    const char* shared = std::getenv("SIGHTLINE_SHARED_DATA");
    const std::string qwen = std::string(shared ? shared : "") +
                             "/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
    if (!shared || !std::filesystem::exists(qwen))
        GTEST_SKIP() << "the H100 Qwen trace is not in SIGHTLINE_SHARED_DATA";
    const sl::Trace t = sl::load_traces({qwen});
    const int64_t kernel = a_shape_kernel(t);
    ASSERT_GE(kernel, 0);
    const std::set<std::string> ok = allowed_words(t);
    const std::string dir = sl::test::scratch_dir("gui_language_shots");
    for (const std::string lang : {"en", "zh_CN"})
        for (const std::string size : {"1280x720", "1920x1080"}) {
            SCOPED_TRACE(lang + " " + size);
            std::string out;
            const std::string stem = dir + "/" + lang + "_" + size;
            ASSERT_EQ(sl::test::run_command("timeout 180 env " + gui_env(dir) + SIGHTLINE_GUI + " " + qwen +
                                                " --language " + lang + " --size " + size +
                                                " --hover-roofline --screenshot " + stem + "_roofline_hover.png",
                                            &out, true),
                      0)
                << out;
            EXPECT_GT(std::filesystem::file_size(stem + "_roofline_hover.png"), 20'000u);
            ASSERT_EQ(sl::test::run_command("timeout 180 env " + gui_env(dir) + SIGHTLINE_GUI + " " + qwen +
                                                " --language " + lang + " --size " + size + " --select-kernel " +
                                                std::to_string(kernel) + " --pane details --screenshot " + stem +
                                                "_verdict.png --text-report " + stem + "_verdict.txt",
                                            &out, true),
                      0)
                << out;
            const std::string text = slurp(stem + "_verdict.txt");
            // The verdict line, from the trace's own shapes (no model config).
            EXPECT_NE(text.find(lang == "en" ? "Verdict:" : "判定："), std::string::npos) << text.substr(0, 800);
            EXPECT_NE(text.find("BF16"), std::string::npos) << text.substr(0, 800);
            if (lang == "zh_CN") {
                const auto bad = english_in(text, ok);
                std::string all;
                for (const std::string& b : bad)
                    all += b + "\n";
                EXPECT_TRUE(bad.empty()) << all;
            }
        }
#endif
}

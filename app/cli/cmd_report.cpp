// sightline-cli report TRACE... --format md|pdf|json|html -o FILE [--lang en|zh_CN] [analysis options]
//
// The shareable report (analysis/report/report_model.h): the same document as the GUI's export. `analyze --format
// md|pdf|html` forwards here. Markdown charts are PNG files in "<FILE stem>_files/" next to the .md when the CLI
// is built with Qt, else data tables; PDF needs Qt and renders on the offscreen platform (no display needed).
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>

#include "analysis/trace/errors.h"
#include "analysis/diagnosis/kb_disk_full.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/load.h"
#include "analysis/io/output_file.h"
#include "analysis/report/report_html.h"
#include "analysis/report/report_json.h"
#include "analysis/report/report_markdown.h"
#include "analysis/report_pipeline.h"
#include "app/cli/command.h"

#ifdef SIGHTLINE_HAVE_QT
#include "model/chart_render.h"
#include "model/report_pdf.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#endif

namespace sl::cli {

int run_report(const std::vector<std::string>& argv);
// The report as the bytes of one format (md writes its chart PNGs next to `output`; pdf needs Qt). Throws OutputError.
std::string report_document(const report::Report& rep, const std::string& format, const std::string& output,
                            const std::vector<std::string>& files, int* pdf_pages);

namespace {

constexpr const char* kSynopsis =
    "report TRACE... --format md|pdf|json|html [--capture-trace PATH]... [-o FILE] [--detail summary|full] [--lang en|zh_CN] [--title T] [--run-id ID] "
    "[--model config.json [--gpu NAME] [--batch B] [--prompt S] [--context L]] [--ncu FILE] [--rules DIR] "
    "[--no-rules] [--kb PATH] [--fail-on high|medium|low] [analyze options]";

struct ReportRequest {
    LoadOptions load;           // --capture-trace, --no-capture-search
    report::PipelineOptions pipeline;
    report::ReportOptions report;
    std::string format;
    std::string output;
    std::string fail_on;
    bool detail_given = false;
};

bool parse_int(const std::string& s, int64_t lo, int64_t hi, int64_t& out)
{
    try {
        size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used != s.size() || v < lo || v > hi)
            return false;
        out = v;
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

using OptionSpec = sl::cli::OptionSpec<ReportRequest>;

std::function<std::string(ReportRequest&, const std::string&)> int_option(const char* name, int64_t lo, int64_t hi,
                                                                          std::function<void(ReportRequest&, int64_t)> set)
{
    return [=](ReportRequest& r, const std::string& v) -> std::string {
        int64_t x = 0;
        if (!parse_int(v, lo, hi, x))
            return std::string(name) + " needs an integer " + std::to_string(lo) + ".." + std::to_string(hi) +
                   ", not '" + v + "'";
        set(r, x);
        return {};
    };
}

const std::vector<OptionSpec>& option_table()
{
    using R = ReportRequest;
    static const std::vector<OptionSpec> t = {
        {"--format", true, "md, pdf, json or html",
         [](R& r, const std::string& v) -> std::string {
             if (v != "md" && v != "pdf" && v != "json" && v != "html")
                 return "--format must be md, pdf, json or html, not '" + v + "'";
             r.format = v;
             return {};
         }},
        {"-o", true, "output file (required for pdf; md writes its chart PNGs next to it)",
         [](R& r, const std::string& v) -> std::string { r.output = v; return {}; }},
        {"--output", true, "same as -o", [](R& r, const std::string& v) -> std::string { r.output = v; return {}; }},
        {"--lang", true, "report language: en (default) or zh_CN",
         [](R& r, const std::string& v) -> std::string {
             if (!report::parse_lang(v, r.report.lang))
                 return "--lang must be en or zh_CN, not '" + v + "'";
             r.pipeline.lang = report::lang_code(r.report.lang);
             return {};
         }},
        {"--detail", true, "summary (default for md, pdf, html: a few pages to forward) or full (every table, every "
                           "finding, the appendix; the default for json)",
         [](R& r, const std::string& v) -> std::string {
             report::Detail d;
             if (!report::parse_detail(v, d))
                 return "--detail must be summary or full, not '" + v + "'";
             r.report.detail = d;
             r.detail_given = true;
             return {};
         }},
        {"--title", true, "report title", [](R& r, const std::string& v) -> std::string { r.report.title = v; return {}; }},
        {"--run-id", true, "run id (default: derived from the input hashes)",
         [](R& r, const std::string& v) -> std::string { r.report.run_id = v; return {}; }},
        {"--generated-at", true, "timestamp to print instead of now (reproducible reports)",
         [](R& r, const std::string& v) -> std::string { r.report.generated_at = v; return {}; }},
        {"--model-name", true, "model name shown in the environment",
         [](R& r, const std::string& v) -> std::string { r.report.model = v; return {}; }},
        {"--capture-trace", true, "trace of the graph capture, a file or a folder (repeatable); default: a "
                                  "capture_traces/ folder beside the trace",
         [](R& r, const std::string& v) -> std::string {
             if (v.empty())
                 return "--capture-trace needs a file or folder";
             r.load.capture_traces.push_back(v);
             return {};
         }},
        {"--no-capture-search", false, "do not look for a capture_traces/ folder beside the trace",
         [](R& r, const std::string&) -> std::string { r.load.find_captures = false; return {}; }},
        {"--model", true, "HF config.json: adds the Roofline",
         [](R& r, const std::string& v) -> std::string { r.pipeline.model_config = v; return {}; }},
        {"--model-index", true, "model.safetensors.index.json checked against --model",
         [](R& r, const std::string& v) -> std::string { r.pipeline.model_index = v; return {}; }},
        {"--gpu", true, "GPU spec row; default: the trace's device name",
         [](R& r, const std::string& v) -> std::string { r.pipeline.gpu = v; return {}; }},
        {"--gpu-file", true, "extra or corrected GPU spec rows",
         [](R& r, const std::string& v) -> std::string { r.pipeline.gpu_file = v; return {}; }},
        {"--batch", true, "batch size of the traced run (Roofline)",
         int_option("--batch", 1, 10'000'000, [](R& r, int64_t x) {
             r.pipeline.cost.batch = x;
             r.pipeline.cost.batch_set = true;
             r.pipeline.cost.shape_source = "option";
         })},
        {"--prompt", true, "prompt length of the prefill (Roofline)",
         int_option("--prompt", 1, 1'000'000'000, [](R& r, int64_t x) {
             r.pipeline.cost.prompt = x;
             r.pipeline.cost.prompt_set = true;
             r.pipeline.cost.shape_source = "option";
         })},
        {"--context", true, "KV length of a decode step (Roofline)",
         int_option("--context", 1, 1'000'000'000, [](R& r, int64_t x) {
             r.pipeline.cost.context = x;
             r.pipeline.cost.context_set = true;
             r.pipeline.cost.shape_source = "option";
         })},
        {"--tp", true, "tensor-parallel degree: theory per rank (Roofline)",
         int_option("--tp", 1, 4096, [](R& r, int64_t x) {
             r.pipeline.cost.tp = x;
             r.pipeline.cost.tp_source = "option";
         })},
        {"--weight-dtype", true, "bytes of the weights: fp32, bf16, fp16, fp8, int8, int4, mxfp4, nvfp4 (Roofline)",
         [](R& r, const std::string& v) -> std::string { r.pipeline.cost.weight_dtype = v; return {}; }},
        {"--kv-dtype", true, "bytes of the KV cache (Roofline)",
         [](R& r, const std::string& v) -> std::string { r.pipeline.cost.kv_dtype = v; return {}; }},
        {"--ncu", true, "Nsight Compute file (CSV/text/.ncu-rep)",
         [](R& r, const std::string& v) -> std::string { r.pipeline.ncu_file = v; return {}; }},
        {"--rules", true, "rules directory added to the shipped rules",
         [](R& r, const std::string& v) -> std::string {
             r.pipeline.rule_dirs = {shipped_rules_dir(), v};
             return {};
         }},
        {"--no-rules", false, "leave the findings out", [](R& r, const std::string&) -> std::string {
             r.pipeline.rules = false;
             return {};
         }},
        {"--kb", true, "knowledge base whose verified history adjusts the findings' confidence",
         [](R& r, const std::string& v) -> std::string { r.pipeline.kb_path = v; return {}; }},
        {"--fail-on", true, "exit 1 when a finding of this severity or above fires",
         [](R& r, const std::string& v) -> std::string {
             if (!parse_severity(v))
                 return "--fail-on must be high, medium or low, not '" + v + "'";
             r.fail_on = v;
             return {};
         }},
        // The analyze command's options, so `analyze --format md|pdf|html` can forward its arguments unchanged.
        {"--gap-threshold-us", true, "gaps shorter than this between back-to-back launches are launch-wait",
         int_option("--gap-threshold-us", 0, 1'000'000'000,
                    [](R& r, int64_t x) { r.pipeline.analysis.idle.kernel_wait_threshold_ns = x * 1000; })},
        {"--step-regex", true, "kernel-name regex whose kernels end a decode step",
         [](R& r, const std::string& v) -> std::string { r.pipeline.analysis.phases.step_regex = v; return {}; }},
        {"--top-k", true, "kernel names in the focus set (default 10)",
         int_option("--top-k", 1, 1'000'000, [](R& r, int64_t x) {
             r.pipeline.analysis.focus.top_k = size_t(x);
             r.pipeline.roofline.top_k = int(x);
         })},
        {"--warmup-steps", true, "decode steps excluded from TPOT",
         int_option("--warmup-steps", 0, 1'000'000, [](R& r, int64_t x) { r.pipeline.analysis.phases.warmup_steps = int(x); })},
        {"--classes", true, "kernel-classes JSON replacing resources/kernel_classes.json",
         [](R& r, const std::string& v) -> std::string { r.pipeline.analysis.classes_file = v; return {}; }},
    };
    return t;
}

int usage_error(const std::string& msg)
{
    std::cerr << "sightline-cli report: " << terminal_safe(msg) << "\nusage: sightline-cli " << kSynopsis << "\n";
    for (const auto& o : option_table())
        std::cerr << "  " << o.name << (o.takes_value ? " VALUE" : "") << "  " << o.help << "\n";
    return kExitUsage;
}

#ifdef SIGHTLINE_HAVE_QT
// PDF and PNG rendering need a QGuiApplication (fonts, image plugins); without a display use the offscreen platform.
void ensure_gui_app()
{
    if (QGuiApplication::instance())
        return;
    if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
        setenv("QT_QPA_PLATFORM", "offscreen", 0);
    static int argc = 1;
    static char name[] = "sightline-cli";
    static char* argv[] = {name, nullptr};
    static QGuiApplication app(argc, argv);
}

// Markdown charts as "<stem>_files/<chart id>.png" beside the .md (the same files and links as the GUI's
// markdownPngWriter), each written as a checked output: never over an input, never half-written.
std::function<std::string(const report::Chart&)> png_writer(const std::string& md_path, report::Lang lang,
                                                             const std::vector<std::string>& inputs)
{
    const QFileInfo md(QString::fromStdString(md_path));
    const QString dir_name = md.completeBaseName() + QStringLiteral("_files");
    const QString dir = md.absoluteDir().filePath(dir_name);
    return [dir, dir_name, lang, inputs](const report::Chart& c) -> std::string {
        const QString file = QString::fromStdString(c.id) + QStringLiteral(".png");
        const std::string path = QDir(dir).filePath(file).toStdString();
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        if (!renderChart(c, reportChartSize(c), 2.0, lang).save(&buffer, "PNG"))
            throw OutputError(path, "the chart could not be encoded as PNG");
        std::error_code ec;
        std::filesystem::create_directories(dir.toStdString(), ec);
        if (ec)
            throw OutputError(dir.toStdString(), "cannot create the directory (" + ec.message() + ")");
        write_output_file(path, std::string_view(png.constData(), static_cast<size_t>(png.size())), inputs);
        return (dir_name + QLatin1Char('/') + file).toStdString();
    };
}
#endif

} // namespace

std::string report_document(const report::Report& rep, const std::string& format, const std::string& output,
                            const std::vector<std::string>& files, int* pdf_pages)
{
    if (format == "json")
        return report::to_json_text(rep);
    if (format == "html")
        return report::to_html(rep);
    if (format == "md") {
        report::MarkdownOptions mo;
#ifdef SIGHTLINE_HAVE_QT
        if (!output.empty()) {
            ensure_gui_app();
            mo.write_image = png_writer(output, rep.lang, files);
        }
#else
        (void)output;
        (void)files;
#endif
        return report::to_markdown(rep, mo) + "\n";
    }
#ifdef SIGHTLINE_HAVE_QT
    ensure_gui_app();
    QByteArray pdf;
    const PdfResult pr = renderReportPdf(rep, pdf);
    if (!pr.ok)
        throw OutputError(output, pr.error.toStdString());
    if (pdf_pages)
        *pdf_pages = pr.pages;
    return std::string(pdf.constData(), static_cast<size_t>(pdf.size()));
#else
    (void)pdf_pages;
    throw OutputError(output, "this build has no Qt, so it cannot write PDF");
#endif
}

int run_report(const std::vector<std::string>& argv)
{
    Args args;
    std::string error;
    if (!parse_table_args(argv, option_table(), args, error))
        return usage_error(error);
    if (args.positional.empty())
        return usage_error("no trace file given");
    ReportRequest req;
    if (!apply_options(args, option_table(), req, error))
        return usage_error(error);
    if (req.format.empty())
        return usage_error("--format md|pdf|json|html is required");
#ifndef SIGHTLINE_HAVE_QT
    if (req.format == "pdf") {
        std::cerr << "sightline-cli: this build has no Qt, so it cannot write PDF; use --format md, html or json\n";
        return kExitUsage;
    }
#endif
    if (req.format == "pdf" && req.output.empty())
        return usage_error("--format pdf needs -o FILE");
    // The documents people read default to the summary; the JSON, read by scripts, to every section.
    if (!req.detail_given)
        req.report.detail = req.format == "json" ? report::Detail::Full : report::Detail::Summary;

    // Every file named on the command line; rule and data files are noted as they are read (output_file.h).
    std::vector<std::string> files = args.positional;
    for (const std::string* p : {&req.pipeline.model_config, &req.pipeline.model_index, &req.pipeline.gpu_file,
                                 &req.pipeline.ncu_file, &req.pipeline.analysis.classes_file, &req.pipeline.kb_path})
        if (!p->empty())
            files.push_back(*p);
    check_output(req.output, files);

    std::optional<report::PipelineResults> results;
    std::string text;
    int pdf_pages = 0;
    try {
        const Trace trace = load_workspace(args.positional, req.load);
        req.pipeline.trace_files = args.positional;
        results = report::run_pipeline(trace, req.pipeline);
        std::vector<std::string> inputs = args.positional;
        if (!req.pipeline.model_config.empty())
            inputs.push_back(req.pipeline.model_config);
        if (!req.pipeline.ncu_file.empty())
            inputs.push_back(req.pipeline.ncu_file);
        // The workload the Roofline was computed for, when the user described it.
        report::describe_workload(req.report, req.pipeline);
        const report::Report rep = report::build_report(report::report_inputs(trace, *results, req.report, inputs));
        text = report_document(rep, req.format, req.output, files, &pdf_pages);
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    } catch (const KbDiskFull& e) {   // a full disk under the knowledge base: an output not written
        print_error(e.what());
        return kExitOutput;
    } catch (const KbError& e) {
        print_error(e.what());
        return kExitInput;
    }
    write_output(req.output, text, files, req.format == "json" || req.format == "pdf");
    if (req.format == "pdf")
        std::cerr << "wrote " << terminal_safe(req.output) << " (" << pdf_pages << " pages)\n";
    if (results)
        for (const auto& p : results->rule_problems)
            print_error("warning: " + p);
    // Fails closed: a gate whose rules did not all load or evaluate has not checked what it promises.
    if (!req.fail_on.empty() && results && !results->rule_problems.empty()) {
        print_error("--fail-on " + req.fail_on + ": the gate cannot pass: " +
                    std::to_string(results->rule_problems.size()) + " problem(s) with the rules (above)");
        return kExitInput;
    }
    if (!req.fail_on.empty() && results && results->findings) {
        const auto gate = parse_severity(req.fail_on);
        const auto worst = max_severity(*results->findings);
        if (gate && worst && *worst >= *gate)
            return kExitGate;
    }
    return kExitOk;
}

namespace {
const bool registered = register_command({"report", kSynopsis, &run_report});
} // namespace

} // namespace sl::cli

// Report generation at 10^6 kernels (issue 8: under 2 s beyond the analysis time). Times the analysis (summary,
// analyses, rules) and then, separately, building the report model and writing Markdown, JSON and HTML — and the
// PDF (charts rendered, paginated) when the Qt layer is linked.
//   bench_report [kernels]   (default 1,000,000)
#include "analysis/report/report_html.h"
#include "analysis/report/report_json.h"
#include "analysis/report/report_markdown.h"
#include "analysis/report_pipeline.h"
#include "analysis/io/synthetic.h"

#if __has_include(<QGuiApplication>)
#include "model/report_pdf.h"
#include <QDir>
#include <QGuiApplication>
#define BENCH_PDF 1
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace sl;
using Clock = std::chrono::steady_clock;

static double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

int main(int argc, char** argv)
{
    SynthOptions so = synth_preset("scale");
    if (argc > 1)
        so.total_kernels = std::atoll(argv[1]);
    auto t0 = Clock::now();
    const Trace trace = make_synthetic_trace(so);
    auto t1 = Clock::now();
    report::PipelineOptions po;
    const report::PipelineResults res = report::run_pipeline(trace, po);
    auto t2 = Clock::now();

    report::ReportOptions ro;
    ro.generated_at = "2026-01-01T00:00:00Z";
    const report::Report rep = report::build_report(report::report_inputs(trace, res, ro, {}));
    auto t3 = Clock::now();
    const std::string md = report::to_markdown(rep);
    const std::string js = report::to_json_text(rep);
    const std::string html = report::to_html(rep);
    auto t4 = Clock::now();
    std::printf("kernels            %zu\n", trace.kernels.size());
    std::printf("generate trace     %.3f s\n", secs(t0, t1));
    std::printf("analysis + rules   %.3f s\n", secs(t1, t2));
    std::printf("build report       %.3f s\n", secs(t2, t3));
    std::printf("md+json+html       %.3f s  (%zu / %zu / %zu bytes)\n", secs(t3, t4), md.size(), js.size(), html.size());
    double report_s = secs(t2, t4);
#ifdef BENCH_PDF
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 0);
    int qargc = 1;
    char name[] = "bench_report";
    char* qargv[] = {name, nullptr};
    QGuiApplication app(qargc, qargv);
    auto t5 = Clock::now();
    const PdfResult pdf = writeReportPdf(rep, QDir::temp().filePath(QStringLiteral("bench_report.pdf")));
    auto t6 = Clock::now();
    std::printf("pdf                %.3f s  (%d pages, ok=%d)\n", secs(t5, t6), pdf.pages, int(pdf.ok));
    report_s += secs(t5, t6);
#endif
    std::printf("report total       %.3f s  (budget 2 s beyond analysis: %s)\n", report_s, report_s < 2.0 ? "ok" : "OVER");
    return report_s < 2.0 ? 0 : 1;
}

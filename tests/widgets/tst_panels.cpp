// Overview and Details panes on the synthetic decode trace: headline numbers equal the summary's, the details of a
// kernel name its launch call, its queue delay and the NVTX ranges open at launch; the legend lists the classes.
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <memory>
#include <algorithm>

#include "analysis/timeline/analysis.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "model/document.h"
#include "model/finding_links.h"
#include "model/selection.h"
#include "model/timeline_index.h"
#include "analysis/timeline/summary.h"
#include "analysis/io/synthetic.h"
#include "analysis/trace/kernel_short_name.h"
#include "model/units.h"
#include "model/gap_histogram.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/details_panel.h"
#include "model/kernel_verdict_text.h"
#include "analysis/diagnosis/kernel_verdict.h"
#include "widgets/gap_histogram_view.h"
#include "widgets/overview_panel.h"
#include "widgets/timeline_view.h"
#include "model/workbench_settings.h"

using namespace sl;

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

std::shared_ptr<const PipelineResult> planted(bool withModel)
{
    const SynthOptions so = testing::plantedDecode(/*pageableCopies=*/false);
    auto trace = std::make_shared<const Trace>(make_synthetic_trace(so));
    PipelineOptions o = testing::shippedRulesOptions();
    // The planted trace's own (Llama-7B-shaped) config: its decode GEMMs stream megabytes of weights and are
    // memory-bound. A tiny config's operators would all sit at the GPU's time floor (latency-bound), which gives no
    // model-config bound to show.
    if (withModel)
        o.roofline.model = testing::writeModelConfig(testing::scratchDir(QStringLiteral("panels_config")), so).toStdString();
    return std::make_shared<const PipelineResult>(run_pipeline_on(trace, o));
}

using testing::partOf;

// How wide the Details pane's text needs to be against the width the pane has, laid out as the pane lays it out:
// breaking only between words and at the zero-width break hints, never inside a name.
struct PaneFit {
    qreal needed = 0, available = 0;
    bool fits() const { return needed <= available + 1; }
};
PaneFit paneFit(DetailsPanel& details)
{
    auto* view = details.findChild<QTextBrowser*>();
    std::unique_ptr<QTextDocument> doc(view->document()->clone());
    doc->setDefaultFont(view->document()->defaultFont());
    QTextOption wrap;
    wrap.setWrapMode(QTextOption::WordWrap);
    doc->setDefaultTextOption(wrap);
    const qreal available = details.viewport()->width();
    doc->setTextWidth(available);
    return {doc->idealWidth(), available};
}

} // namespace

class TestPanels : public QObject {
    Q_OBJECT
private slots:
    void overviewAndDetails()
    {
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(synth_preset("decode")));
        auto summary = std::make_shared<const Summary>(summarize(*trace));
        auto analysis = std::make_shared<const AnalysisResult>(analyze(*trace, AnalysisOptions{}));

        OverviewPanel overview;
        QVERIFY(!overview.text().contains(QStringLiteral("GPU 0")));
        overview.setData(summary, nullptr);
        const DeviceSummary& d = summary->devices.at(0);
        QVERIFY(overview.text().contains(formatDuration(d.busy_ns)));
        QVERIFY(overview.text().contains(formatPercent(d.utilization)));
        overview.setData(summary, analysis);
        QVERIFY(overview.text().contains(TimelineView::causeLabel(GapCause::HostWait)));

        // A decode-step kernel: launched by a cudaLaunchKernel inside "decode_step N" > "layer L".
        const auto& k = trace->kernels;
        size_t pick = k.size();
        for (size_t i = k.size() / 2; i < k.size(); ++i)
            if (k.launch_api[i] >= 0) {
                pick = i;
                break;
            }
        QVERIFY(pick < k.size());
        DetailsPanel details;
        details.setTrace(trace);
        details.setAnalysis(analysis);
        details.showKernel(int64_t(pick));
        const QString text = details.text();
        QVERIFY(text.contains(QString::fromUtf8(trace->str(k.short_name[pick])).toHtmlEscaped()));
        const size_t api = size_t(k.launch_api[pick]);
        QVERIFY(text.contains(QString::fromUtf8(trace->str(trace->api.name[api]))));
        QVERIFY(text.contains(formatDuration(k.start[pick] - trace->api.end[api])));
        QVERIFY(text.contains(QStringLiteral("decode_step")));
        details.showKernel(-1);
        QVERIFY(!details.text().contains(QStringLiteral("decode_step")));

        // Gaps pane: every gap lands in exactly one bucket and cause; totals agree with the idle analysis.
        GapHistogramView gaps;
        gaps.setAnalysis(analysis);
        int64_t n = 0, ns = 0;
        for (size_t b = 0; b < kGapBuckets; ++b)
            for (size_t c = 0; c < 4; ++c) {
                n += gaps.histogram().count[b][c];
                ns += gaps.histogram().total_ns[b][c];
            }
        QCOMPARE(n, int64_t(analysis->idle.gaps.size()));
        int64_t idleNs = 0;
        for (const DeviceIdle& di : analysis->idle.devices)
            idleNs += di.idle_ns;
        QCOMPARE(ns, idleNs);
        // a hand-made idle result: 500 ns host wait, 2 ms sync wait
        IdleResult ir;
        ir.gaps.push_back(Gap{.start = 0, .end = 500, .device = 0, .cause = GapCause::HostWait});
        ir.gaps.push_back(Gap{.start = 1000, .end = 2'001'000, .device = 0, .cause = GapCause::SyncWait});
        const GapHistogram h = binGapsByCause(ir);
        QCOMPARE(h.count[0][size_t(GapCause::HostWait)], int64_t(1));
        QCOMPARE(h.count[6][size_t(GapCause::SyncWait)], int64_t(1));
        QCOMPARE(h.total_ns[6][size_t(GapCause::SyncWait)], int64_t(2'000'000));

        const QString legend = TimelineView::legendHtml(*analysis);
        for (const OpClassTotals& c : analysis->classes.classes)
            if (c.time_ns > 0) {
                // Each entry unbreakable: no-break spaces and hyphens.
                QString label = opClassLabel(c).toHtmlEscaped();
                label.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
                label.replace(QLatin1Char('-'), QChar(0x2011));
                QVERIFY2(legend.contains(label), qPrintable(label));
            }
    }

    // Selecting a gap: the pane names its cause and the kernels before and after it, found here independently as
    // the same device's kernel ending exactly at the gap start and the one starting exactly at its end; clicking the
    // "after" link selects that kernel.
    void gapSelectionShowsNeighbours()
    {
        const auto r = planted(false);
        const Trace& t = *r->trace;
        const auto analysis = partOf(r, &r->analysis);
        Selection sel;
        DetailsPanel details;
        details.setTrace(r->trace);
        details.setAnalysis(analysis);
        details.setTimeline(TimelineIndex::build(r->trace));
        details.setDiagnosis(partOf(r, &r->diagnosis));
        details.setSelection(&sel);

        // the largest gap between two kernels
        int64_t pick = -1;
        for (size_t g = 0; g < analysis->idle.gaps.size(); ++g) {
            const Gap& gap = analysis->idle.gaps[g];
            if (gap.prev_kind == OpKind::Kernel && gap.next_kind == OpKind::Kernel &&
                (pick < 0 || gap.duration() > analysis->idle.gaps[size_t(pick)].duration()))
                pick = int64_t(g);
        }
        QVERIFY(pick >= 0);
        const Gap& gap = analysis->idle.gaps[size_t(pick)];
        int64_t before = -1, after = -1;
        for (size_t k = 0; k < t.kernels.size(); ++k) {
            if (t.kernels.device[k] != gap.device)
                continue;
            if (t.kernels.end[k] == gap.start && before < 0)
                before = int64_t(k);
            if (t.kernels.start[k] == gap.end && after < 0)
                after = int64_t(k);
        }
        QVERIFY(before >= 0 && after >= 0);
        sel.setKernel(3);
        sel.setGap(pick);
        const QString text = details.text();
        QVERIFY(text.contains(TimelineView::causeLabel(gap.cause)));
        QVERIFY(text.contains(formatDuration(gap.duration())));
        QVERIFY(text.contains(QStringLiteral("kernel:%1\"").arg(before)));
        QVERIFY(text.contains(QStringLiteral("kernel:%1\"").arg(after)));
        QVERIFY(text.contains(qs(t.str(t.kernels.short_name[size_t(after)])).toHtmlEscaped()));
        // host-starved: the launch call of the next kernel began after the gap started
        const int32_t api = t.kernels.launch_api[size_t(after)];
        QVERIFY(api >= 0);
        QVERIFY(text.contains(formatDuration(t.api.start[size_t(api)] - gap.start)));
        // findings about this time (the decode/prefill phase, gaps) are listed by title
        for (size_t f : findingsForRange(r->diagnosis, t, &r->analysis, gap.start, gap.end))
            QVERIFY(text.contains(QString::fromStdString(r->diagnosis.eval.findings[f].title.en).toHtmlEscaped()));

        // the link selects the kernel after the gap, and the pane follows
        auto* view = details.findChild<QTextBrowser*>();
        QVERIFY(view);
        QSignalSpy spy(&details, &DetailsPanel::kernelLinkActivated);
        emit view->anchorClicked(QUrl(QStringLiteral("kernel:%1").arg(after)));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(sel.kernel(), after);
        QCOMPARE(sel.gap(), int64_t(-1));
        QVERIFY(details.text().contains(QStringLiteral("Queue delay")));
        // ... which links back to the gap it closed
        QVERIFY(details.text().contains(QStringLiteral("gap:%1\"").arg(pick)));
        emit view->anchorClicked(QUrl(QStringLiteral("gap:%1").arg(pick)));
        QCOMPARE(sel.gap(), pick);
        QCOMPARE(sel.kernel(), int64_t(-1));
        QVERIFY(details.text().contains(QStringLiteral("kernel:%1\"").arg(before)));
    }

    // A kernel with a Roofline and findings: E_roof of its (class, phase), its distribution from the lookup, and every
    // finding findingsForKernel names, by title.
    void kernelDiagnosis()
    {
        const auto r = planted(true);
        QVERIFY2(r->roofline.report.has_value(), "the sample config joined to the synthetic trace");
        const Trace& t = *r->trace;
        auto roofline = partOf(r, &r->roofline);
        DetailsPanel details;
        details.setTrace(r->trace);
        details.setAnalysis(partOf(r, &r->analysis));
        const auto index = TimelineIndex::build(r->trace);
        details.setTimeline(index);
        details.setRoofline(roofline);
        details.setDiagnosis(partOf(r, &r->diagnosis));
        // a decode GEMM whose class and phase have an E_roof
        int64_t pick = -1;
        const ClassEfficiency* ce = nullptr;
        for (size_t k = t.kernels.size() / 2; k < t.kernels.size() && pick < 0; ++k) {
            const std::string cls = classOfKernel(&r->analysis, int64_t(k));
            const std::string phase = phaseOfKernel(r->analysis, t, int64_t(k));
            for (const ClassEfficiency& c : r->roofline.report->classes)
                if (c.op_class == cls && c.phase == phase && c.e_roof && cls == "gemm") {
                    pick = int64_t(k);
                    ce = &c;
                }
        }
        QVERIFY(pick >= 0);
        details.showKernel(pick);
        const QString text = details.text();
        QVERIFY(text.contains(QStringLiteral("E_roof")));
        QVERIFY(text.contains(formatPercent(*ce->e_roof)));
        const NameDistribution d = index->kernelLookup()->distribution(t.kernels.name[size_t(pick)]);
        QVERIFY(text.contains(formatDuration(d.p90)));
        QVERIFY(text.contains(QLocale().toString(qlonglong(d.count))));
        const auto mine = findingsForKernel(r->diagnosis, t, &r->analysis, pick);
        QVERIFY(!mine.empty());
        QVERIFY(text.contains(QStringLiteral("Findings (%1)").arg(mine.size())));
        for (size_t f : mine) {
            const Finding& fi = r->diagnosis.eval.findings[f];
            QVERIFY(text.contains(QString::fromStdString(fi.title.en).toHtmlEscaped()));
            for (const Suggestion& s : fi.suggestions)
                QVERIFY(text.contains(QString::fromStdString(s.text.en).toHtmlEscaped()));
        }
        QVERIFY(text.contains(QStringLiteral("decode step")));

        // without the timeline index the pane scans once and shows the same distribution
        DetailsPanel scan;
        scan.setTrace(r->trace);
        scan.setAnalysis(partOf(r, &r->analysis));
        scan.showKernel(pick);
        QVERIFY(scan.text().contains(QStringLiteral("%1 · %2").arg(formatDuration(d.p90), formatDuration(d.max))));
        QVERIFY(scan.text().contains(QStringLiteral("%1 · %2").arg(formatDuration(d.min), formatDuration(d.median))));
        QVERIFY(text.contains(QStringLiteral("%1 · %2").arg(formatDuration(d.p90), formatDuration(d.max))));
    }

    // Every kernel's Details open with one verdict line (model/kernel_verdict_text.h over
    // analysis/diagnosis/kernel_verdict.h), before any other row: without a model config a kernel the GPU waited for,
    // whose launch call outlasts it, is launch-bound (and said so only then); with one, a decode GEMM long enough
    // to be judged is bound as the cost model says, at its class's E_roof.
    void verdictOpensTheDetails()
    {
        for (const bool withModel : {false, true}) {
            const auto r = planted(withModel);
            const Trace& t = *r->trace;
            DetailsPanel details;
            details.setTrace(r->trace);
            details.setAnalysis(partOf(r, &r->analysis));
            if (withModel)
                details.setRoofline(partOf(r, &r->roofline));
            int64_t pick = -1;
            for (size_t k = 0; k < t.kernels.size() && pick < 0; ++k) {
                KernelVerdictInputs in;
                in.trace = &t;
                in.kernel = int64_t(k);
                in.analysis = &r->analysis;
                in.roofline = withModel ? &*r->roofline.report : nullptr;
                in.sm_count = VerdictText::smCount(t, t.kernels.device[k]);
                const KernelVerdict v = kernel_verdict(in);
                if (withModel ? v.source == VerdictSource::ModelConfig && v.op_class == "gemm" && v.phase == "decode"
                              : v.host == HostClause::LaunchBound)
                    pick = int64_t(k);
            }
            QVERIFY(pick >= 0);
            details.showKernel(pick);
            const QString text = details.text();
            const qsizetype at = text.indexOf(QStringLiteral("Verdict:"));
            QVERIFY2(at >= 0, qPrintable(text.left(400)));
            QVERIFY(at < text.indexOf(QStringLiteral("Duration")));
            if (!withModel) {
                QVERIFY2(text.contains(QStringLiteral("launch-bound: the GPU waited")), qPrintable(text.left(600)));
                const int32_t api = t.kernels.launch_api[size_t(pick)];
                QVERIFY(text.contains(formatDuration(t.api.end[size_t(api)] - t.api.start[size_t(api)])));
                QVERIFY(!text.contains(QStringLiteral("No Roofline")));
            } else {
                const std::string phase = phaseOfKernel(r->analysis, t, pick);
                const ClassEfficiency* ce = nullptr;
                for (const ClassEfficiency& c : r->roofline.report->classes)
                    if (c.op_class == "gemm" && c.phase == phase)
                        ce = &c;
                QVERIFY(ce && ce->e_roof);
                QVERIFY2(text.contains(QStringLiteral("E_roof %1").arg(formatPercent(*ce->e_roof))) &&
                             text.contains(QStringLiteral("(gemm in decode")),
                         qPrintable(text.left(600)));
            }
        }
    }

    // Issue 37 §7: "解码阶段的 activation" — a verdict from the model config named the operator class by its id in the
    // Chinese window. With the analysis' classes and the interface in Chinese the class is its label; in English it
    // stays the id, word for word as the CLI prints it (the test below).
    void verdictLineNamesTheClassInTheInterfacesLanguage()
    {
        const std::string path =
            qEnvironmentVariable("SIGHTLINE_SOURCE_DIR").toStdString() + "/tests/data/device/decode-eager.pt.trace.json.gz";
        PipelineOptions o;
        o.run_rules = false;
        const PipelineResult r = run_pipeline({path}, o);
        KernelVerdict v;
        v.kind = VerdictKind::MemoryBound;
        v.source = VerdictSource::ModelConfig;
        v.fraction = 0.5;
        v.op_class = "activation";
        v.phase = "decode";
        QString zhLabel;
        for (const auto& c : r.analysis.classes.classes)
            if (c.id == "activation")
                zhLabel = QString::fromStdString(c.label_for("zh_CN"));
        QVERIFY(!zhLabel.isEmpty());
        const QString before = interfaceLanguage();
        setInterfaceLanguage(QStringLiteral("zh_CN"));
        const QString zh = VerdictText::line(v, &r.analysis.classes);
        setInterfaceLanguage(QStringLiteral("en"));
        const QString en = VerdictText::line(v, &r.analysis.classes);
        setInterfaceLanguage(before);
        QVERIFY2(zh.contains(zhLabel), qPrintable(zh));
        QVERIFY2(!zh.contains(QStringLiteral("activation")), qPrintable(zh));
        QVERIFY2(en.contains(QStringLiteral("activation in")), qPrintable(en));
        QCOMPARE(en, VerdictText::line(v));
    }

    // What Details says of a kernel is what `sightline-cli analyze --format json` and `explain` print: on the
    // project's real H100 decode sample (shapes recorded, eager launches) and the graph-replayed one, for every
    // distinct kernel, the English Details line of its example launch equals the pipeline's kernels[] text.
    void verdictLineIsTheCliText()
    {
        for (const char* file : {"decode-eager.pt.trace.json.gz", "decode-graph.pt.trace.json.gz"}) {
            const std::string path =
                qEnvironmentVariable("SIGHTLINE_SOURCE_DIR").toStdString() + "/tests/data/device/" + file;
            PipelineOptions o;
            o.run_rules = false;
            const auto r = std::make_shared<const PipelineResult>(run_pipeline({path}, o));
            QVERIFY(r->kernels.size() > 10);
            DetailsPanel details;
            details.setTrace(r->trace);
            details.setAnalysis(partOf(r, &r->analysis));
            details.setShapes(partOf(r, &r->shapes));
            std::vector<int64_t> join;
            const KernelVerdictInputs shared = kernel_verdict_inputs(*r, join);
            int compared = 0;
            for (const KernelVerdictSummary& s : r->kernels) {
                KernelVerdictInputs in = shared;
                in.kernel = s.example_kernel;
                const KernelVerdict v = VerdictText::forKernel(*r->trace, &r->analysis, nullptr, &r->shapes,
                                                               s.example_kernel, join);
                const QString cli = QString::fromStdString(kernel_verdict_text(s.verdict));
                QCOMPARE(VerdictText::line(v), cli);
                QCOMPARE(QString::fromStdString(kernel_verdict_text(kernel_verdict(in))), cli);
                if (compared < 12) {   // the pane itself, for the largest kernels
                    details.showKernel(s.example_kernel);
                    QVERIFY2(details.text().contains(cli), qPrintable(cli));
                }
                ++compared;
            }
            QVERIFY(compared > 10);
        }
    }

    // With an ncu file: a trace whose kernels carry the names of a real ncu report's launches (in launch order); the
    // pane shows the launch joined to the selected kernel with its duration and SM throughput read from the raw
    // counters of that launch.
    void ncuMetricsOfTheLaunch()
    {
        const QString data = qEnvironmentVariable("SIGHTLINE_SHARED_DATA");
        const QString file = data + QStringLiteral("/ncu/a100_gpt2_flashattn_details_ncu2021.csv");
        if (data.isEmpty() || !QFile::exists(file))
            QSKIP("../shared/data/ncu not available");
        auto out = std::make_shared<RooflineOutput>();
        out->ncu = read_ncu(file.toStdString());
        const auto& launches = out->ncu->launches;
        QVERIFY(launches.size() >= 4);
        auto t = std::make_shared<Trace>();
        const uint16_t dev = t->device_index(0);
        for (size_t l = 0; l < 4; ++l) {
            const size_t r = t->kernels.append(int64_t(1000 + 100'000 * l), int64_t(50'000 + 100'000 * l),
                                               t->strings.intern(launches[l].name));
            t->kernels.device[r] = dev;
        }
        t->finish();
        std::shared_ptr<const Trace> trace = t;
        DetailsPanel details;
        details.setTrace(trace);
        details.setRoofline(out);
        for (size_t l = 0; l < 4; ++l) {
            details.showKernel(int64_t(l));
            const QString text = details.text();
            QVERIFY2(text.contains(QStringLiteral("#%1").arg(launches[l].id)), qPrintable(text));
            if (const auto ns = launches[l].number("gpu__time_duration.sum"))
                QVERIFY(text.contains(formatDuration(std::llround(*ns))));
            if (const auto sm = launches[l].number("sm__throughput.avg.pct_of_peak_sustained_elapsed"))
                QVERIFY(text.contains(QStringLiteral("%1 %").arg(QLocale().toString(*sm, 'f', 1))));
            // The verdict comes from the launch's counters (ncu's Speed-of-Light breakdown).
            QVERIFY2(text.contains(QStringLiteral("(ncu launch %1)").arg(launches[l].id)), qPrintable(text.left(500)));
        }
        // a kernel no launch matches
        details.showKernel(-1);
        QVERIFY(!details.text().contains(QStringLiteral("Nsight Compute")));
    }

    // In a narrow dock nothing runs off the right edge: long C++ names, NVTX stacks and findings wrap (the pane has no
    // horizontal scroll bar). Set SIGHTLINE_DETAILS_PNG=dir to also write what it looks like.
    void detailsFitANarrowDock()
    {
        const auto r = planted(true);
        const Trace& t = *r->trace;
        DetailsPanel details;
        details.resize(300, 900);
        details.setTrace(r->trace);
        details.setAnalysis(partOf(r, &r->analysis));
        details.setTimeline(TimelineIndex::build(r->trace));
        details.setRoofline(partOf(r, &r->roofline));
        details.setDiagnosis(partOf(r, &r->diagnosis));
        details.show();
        QVERIFY(QTest::qWaitForWindowExposed(&details));
        // the kernel with the longest full name, and the largest gap
        size_t longest = 0;
        for (size_t k = 0; k < t.kernels.size(); ++k)
            if (t.str(t.kernels.name[k]).size() > t.str(t.kernels.name[longest]).size())
                longest = k;
        size_t gap = 0;
        for (size_t g = 0; g < r->analysis.idle.gaps.size(); ++g)
            if (r->analysis.idle.gaps[g].duration() > r->analysis.idle.gaps[gap].duration())
                gap = g;
        for (int which = 0; which < 2; ++which) {
            if (which == 0)
                details.showKernel(int64_t(longest));
            else
                details.showGap(int64_t(gap));
            const PaneFit fit = paneFit(details);
            QVERIFY2(fit.fits(), qPrintable(QStringLiteral("needs %1 px of %2").arg(fit.needed).arg(fit.available)));
            if (qEnvironmentVariableIsSet("SIGHTLINE_DETAILS_PNG"))
                details.grab().save(qEnvironmentVariable("SIGHTLINE_DETAILS_PNG") + QStringLiteral("/details_%1.png").arg(which));
        }
    }

    // Real nsys traces from ../shared/data through the real pipeline: for the kernel with the longest name and the
    // largest gap the pane names them, lists the findings findingsForKernel / findingsForRange give, and fits 300 px.
    // Issue 37 §5: Details speaks short names, as Nsight Systems shortens them. On the real H200 decode sample (kernel
    // names of 600-1,000 characters): the heading is the short name, the full name is folded behind one link, the
    // links to the kernels around a gap show short names, and hovering one gives the whole name.
    void detailsSpeakShortNames()
    {
        const std::string path =
            qEnvironmentVariable("SIGHTLINE_SOURCE_DIR").toStdString() + "/tests/data/device/decode-eager.pt.trace.json.gz";
        PipelineOptions o;
        o.run_rules = false;
        const auto r = std::make_shared<const PipelineResult>(run_pipeline({path}, o));
        const Trace& t = *r->trace;
        DetailsPanel details;
        details.resize(320, 700);
        details.setTrace(r->trace);
        details.setAnalysis(partOf(r, &r->analysis));
        size_t longest = 0;
        for (size_t k = 0; k < t.kernels.size(); ++k)
            if (t.str(t.kernels.name[k]).size() > t.str(t.kernels.name[longest]).size())
                longest = k;
        const QString full = qs(t.str(t.kernels.name[longest]));
        const QString shortName = qs(shorten_kernel_name(t.str(t.kernels.name[longest])));
        QVERIFY(full.size() > 600);
        QCOMPARE(shortName, QStringLiteral("elementwise_kernel"));
        details.showKernel(int64_t(longest));
        QString text = details.text();
        QVERIFY2(text.contains(QStringLiteral("margin-bottom:2px\">%1</h3>").arg(shortName)), qPrintable(text.left(400)));
        // the full name is folded: not a word of its template arguments shows, one click brings it
        QVERIFY(!text.contains(QStringLiteral("gpu_kernel_impl")));
        QVERIFY(text.contains(QStringLiteral("toggle:name")));
        auto* view = details.findChild<QTextBrowser*>();
        emit view->anchorClicked(QUrl(QStringLiteral("toggle:name")));
        QVERIFY(details.text().contains(full.toHtmlEscaped().left(200)));
        QVERIFY(view->toPlainText().remove(QChar(0x200B)).contains(full));
        emit view->anchorClicked(QUrl(QStringLiteral("toggle:name")));
        QVERIFY(!details.text().contains(QStringLiteral("gpu_kernel_impl")));

        // a gap between two long-named kernels: its links say the short names, their tooltips the whole names
        const auto& gaps = r->analysis.idle.gaps;
        int64_t pick = -1;
        for (size_t g = 0; g < gaps.size() && pick < 0; ++g)
            if (gaps[g].prev_kind == OpKind::Kernel && gaps[g].prev_row >= 0 &&
                t.str(t.kernels.name[size_t(gaps[g].prev_row)]).size() > 300)
                pick = int64_t(g);
        QVERIFY(pick >= 0);
        const int32_t before = gaps[size_t(pick)].prev_row;
        details.showGap(pick);
        text = details.text();
        const QString link = QStringLiteral("kernel:%1").arg(before);
        const QString beforeShort = qs(shorten_kernel_name(t.str(t.kernels.name[size_t(before)])));
        QVERIFY2(text.contains(QStringLiteral("<a href=\"%1\">%2</a>").arg(link, beforeShort)), qPrintable(text));
        QVERIFY(!text.contains(qs(t.str(t.kernels.name[size_t(before)])).toHtmlEscaped().left(120)));
        QCOMPARE(details.linkToolTip(link), qs(t.str(t.kernels.name[size_t(before)])).left(2000));
        QVERIFY(details.linkToolTip(QStringLiteral("toggle:name")).isEmpty());
    }

    void realTracesFitAndLinkFindings()
    {
        const QString data = qEnvironmentVariable("SIGHTLINE_SHARED_DATA");
        const QStringList files = data.isEmpty() ? QStringList()
                                                 : QDir(data + QStringLiteral("/nsys")).entryList({QStringLiteral("*.sqlite")}, QDir::Files, QDir::Name);
        if (files.isEmpty())
            QSKIP("../shared/data/nsys not available");
        for (const QString& f : files) {
            PipelineOptions o;
            o.rule_dirs = {shipped_rules_dir()};
            const auto r = std::make_shared<const PipelineResult>(
                run_pipeline({(data + QStringLiteral("/nsys/") + f).toStdString()}, o));
            const Trace& t = *r->trace;
            if (t.kernels.size() == 0)
                continue;
            DetailsPanel details;
            details.resize(300, 900);
            details.setTrace(r->trace);
            details.setTimeline(TimelineIndex::build(r->trace));
            details.setAnalysis(partOf(r, &r->analysis));
            details.setDiagnosis(partOf(r, &r->diagnosis));
            details.show();
            size_t longest = 0;
            for (size_t k = 0; k < t.kernels.size(); ++k)
                if (t.str(t.kernels.name[k]).size() > t.str(t.kernels.name[longest]).size())
                    longest = k;
            auto* view = details.findChild<QTextBrowser*>();
            auto fits = [&] { return paneFit(details).fits(); };
            details.showKernel(int64_t(longest));
            QVERIFY2(fits(), qPrintable(f));
            // a kernel that started before its launch call returned had no queue delay (not a negative one)
            if (const int32_t api = t.kernels.launch_api[longest]; api >= 0 && size_t(api) < t.api.size()) {
                const int64_t queued = t.kernels.start[longest] - t.api.end[size_t(api)];
                const QString none = QStringLiteral("none: started %1 before the call returned").arg(formatDuration(-queued));
                QCOMPARE(details.text().contains(none), queued < 0);
                QVERIFY(!details.text().contains(QStringLiteral("<b>-")));
            }
            const QString full = qs(t.str(t.kernels.name[longest])).toHtmlEscaped();
            if (full.size() > 400) {
                // a very long name shows its start; the link shows all of it (and still fits)
                QVERIFY(!details.text().contains(full));
                emit view->anchorClicked(QUrl(QStringLiteral("toggle:name")));
                QVERIFY(details.text().contains(full));
                QVERIFY2(fits(), qPrintable(f));
                emit view->anchorClicked(QUrl(QStringLiteral("toggle:name")));
                QVERIFY(!details.text().contains(full));
            }
            QVERIFY(details.text().contains(QStringLiteral("Findings (%1)").arg(findingsForKernel(r->diagnosis, t, &r->analysis, int64_t(longest)).size())));
            if (!r->analysis.idle.gaps.empty()) {
                size_t g = 0;
                for (size_t i = 0; i < r->analysis.idle.gaps.size(); ++i)
                    if (r->analysis.idle.gaps[i].duration() > r->analysis.idle.gaps[g].duration())
                        g = i;
                details.showGap(int64_t(g));
                QVERIFY2(fits(), qPrintable(f));
                const Gap& gap = r->analysis.idle.gaps[g];
                QVERIFY(details.text().contains(formatDuration(gap.duration())));
                QVERIFY(details.text().contains(QStringLiteral("Findings (%1)").arg(findingsForRange(r->diagnosis, t, &r->analysis, gap.start, gap.end).size())));
                if (gap.next_kind == OpKind::Kernel && gap.next_row >= 0)
                    QVERIFY(details.text().contains(QStringLiteral("kernel:%1\"").arg(gap.next_row)));
            }
            if (qEnvironmentVariableIsSet("SIGHTLINE_DETAILS_PNG")) {
                details.showKernel(int64_t(longest));
                details.grab().save(qEnvironmentVariable("SIGHTLINE_DETAILS_PNG") + QStringLiteral("/real_%1.png").arg(f));
            }
        }
    }

    // setDocument + setSelection: the pane fills in as the document's results arrive, as the main window wires it.
    void followsDocumentAndSelection()
    {
        const auto r = planted(true);
        const Trace& t = *r->trace;
        Document doc;
        Selection sel;
        DetailsPanel details;
        details.setDocument(&doc);
        details.setSelection(&sel);
        doc.setTrace({QStringLiteral("synthetic")}, r->trace);
        const int64_t k = int64_t(t.kernels.size() / 2);
        sel.setKernel(k);
        QVERIFY(details.text().contains(qs(t.str(t.kernels.short_name[size_t(k)])).toHtmlEscaped()));
        QVERIFY(!details.text().contains(QStringLiteral("E_roof")));
        QVERIFY(!details.text().contains(QStringLiteral("Findings (")));
        doc.setTimeline(TimelineIndex::build(r->trace));
        doc.setAnalysis(partOf(r, &r->analysis));
        doc.setRoofline(partOf(r, &r->roofline));
        doc.setDiagnosis(partOf(r, &r->diagnosis));
        const QString text = details.text();
        QVERIFY(text.contains(QStringLiteral("Findings (%1)").arg(findingsForKernel(r->diagnosis, t, &r->analysis, k).size())));
        QVERIFY(text.contains(QStringLiteral("Roofline")));
        sel.setGap(0);
        QVERIFY(details.text().contains(formatDuration(r->analysis.idle.gaps[0].duration())));
        doc.clear();
        QVERIFY(!details.text().contains(formatDuration(r->analysis.idle.gaps[0].duration())));
    }

    // Clicking a histogram bucket highlights exactly the gaps whose duration falls in it (an independent filter on
    // the bucket bounds) in the timeline, and selects the largest of them.
    void histogramBucketHighlightsGaps()
    {
        const auto r = planted(false);
        const auto analysis = partOf(r, &r->analysis);
        Selection sel;
        TimelineView timeline(&sel);
        timeline.resize(1000, 500);
        timeline.setIndex(TimelineIndex::build(r->trace));
        timeline.setAnalysis(analysis);
        GapHistogramView gaps;
        gaps.resize(700, 400);
        gaps.setAnalysis(analysis);
        gaps.setSelection(&sel);
        int tested = 0;
        for (size_t b = 0; b < kGapBuckets; ++b) {
            const GapBucketDef& def = gap_bucket_defs()[b];
            std::vector<int64_t> expected;
            int64_t largest = -1;
            for (size_t g = 0; g < analysis->idle.gaps.size(); ++g) {
                const int64_t dur = analysis->idle.gaps[g].duration();
                if (dur >= def.lo_ns && dur < def.hi_ns) {
                    expected.push_back(int64_t(g));
                    if (largest < 0 || dur > analysis->idle.gaps[size_t(largest)].duration())
                        largest = int64_t(g);
                }
            }
            gaps.selectBucket(int(b));
            QCOMPARE(sel.highlightedGaps(), expected);
            std::vector<int64_t> marked;
            for (const auto& m : timeline.highlightMarks()) {
                marked.push_back(m.gap);
                QVERIFY(m.lane >= 0);
                QCOMPARE(timeline.index()->lanes()[size_t(m.lane)].kind, LaneKind::Gaps);
            }
            std::sort(marked.begin(), marked.end());
            QCOMPARE(marked, expected);
            if (!expected.empty()) {
                ++tested;
                QCOMPARE(sel.gap(), largest);
                const Gap& g = analysis->idle.gaps[size_t(largest)];
                QVERIFY(timeline.window().start <= g.start && timeline.window().end >= g.end);
                QVERIFY(gaps.bucketSummary(int(b)).contains(formatDuration([&] {
                    int64_t ns = 0;
                    for (int64_t i : expected)
                        ns += analysis->idle.gaps[size_t(i)].duration();
                    return ns;
                }())));
            }
        }
        QVERIFY(tested >= 2);
        if (qEnvironmentVariableIsSet("SIGHTLINE_DETAILS_PNG")) {
            gaps.selectBucket(3);
            timeline.grab().save(qEnvironmentVariable("SIGHTLINE_DETAILS_PNG") + QStringLiteral("/timeline_bucket.png"));
            gaps.grab().save(qEnvironmentVariable("SIGHTLINE_DETAILS_PNG") + QStringLiteral("/gaps_bucket.png"));
        }
        gaps.selectBucket(-1);
        QVERIFY(sel.highlightedGaps().empty());
        QVERIFY(timeline.highlightMarks().empty());

        // and through the chart: a click on the middle of a non-empty bar (log count axis) selects that bucket
        gaps.show();
        QVERIFY(QTest::qWaitForWindowExposed(&gaps));
        size_t bucket = kGapBuckets;
        int64_t n = 0;
        for (size_t b = 0; b < kGapBuckets && bucket == kGapBuckets; ++b) {
            n = 0;
            for (size_t c = 0; c < 4; ++c)
                n += gaps.histogram().count[b][c];
            if (n > 0)
                bucket = b;
        }
        QVERIFY(bucket < kGapBuckets);
        QChart* chart = gaps.chartView()->chart();
        const QPointF scene = chart->mapToPosition(QPointF(double(bucket), GapHistogramView::logHeight(n) / 2),
                                                   chart->series().first());
        const QPoint at = gaps.chartView()->mapFromScene(scene);
        QSignalSpy spy(&gaps, &GapHistogramView::bucketSelected);
        QTest::mouseClick(gaps.chartView()->viewport(), Qt::LeftButton, {}, at);
        QTRY_COMPARE(spy.count(), 1);
        QCOMPARE(gaps.selectedBucket(), int(bucket));
        QVERIFY(!sel.highlightedGaps().empty());
        // a new analysis drops the highlight and the selected gap (their indices belonged to the old one)
        gaps.setAnalysis(analysis);
        QVERIFY(sel.highlightedGaps().empty());
        QCOMPARE(sel.gap(), int64_t(-1));
        QVERIFY(timeline.highlightMarks().empty());
    }
};

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"

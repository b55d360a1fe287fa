// Overview and Details panes on the synthetic decode trace: headline numbers equal the summary's, the details of a
// kernel name its launch call, its queue delay and the NVTX ranges open at launch; the legend lists the classes.
#include <QTest>

#include "analysis/analysis.h"
#include "analysis/summary.h"
#include "analysis/synthetic.h"
#include "model/units.h"
#include "model/gap_histogram.h"
#include "widgets/details_panel.h"
#include "widgets/gap_histogram_view.h"
#include "widgets/overview_panel.h"
#include "widgets/timeline_view.h"

using namespace sl;

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
        ir.gaps.push_back({0, 500, 0, GapCause::HostWait});
        ir.gaps.push_back({1000, 2'001'000, 0, GapCause::SyncWait});
        const GapHistogram h = binGapsByCause(ir);
        QCOMPARE(h.count[0][size_t(GapCause::HostWait)], int64_t(1));
        QCOMPARE(h.count[6][size_t(GapCause::SyncWait)], int64_t(1));
        QCOMPARE(h.total_ns[6][size_t(GapCause::SyncWait)], int64_t(2'000'000));

        const QString legend = TimelineView::legendHtml(*analysis);
        for (const OpClassTotals& c : analysis->classes.classes)
            if (c.time_ns > 0)
                QVERIFY(legend.contains(QString::fromStdString(c.label).toHtmlEscaped()));
    }
};

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"

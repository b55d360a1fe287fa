// CompareView: opening an AFTER trace fills the headline table and the class / kernel / verdict tabs from the same
// CompareJob result; it waits for the document's analysis and re-runs when BEFORE is re-analysed; it renders
// readably at its default size in the light and the dark theme (pictures written to test-tmp/screens for a look).
#include <QAbstractItemModelTester>
#include <QDir>
#include <QLocale>
#include <climits>
#include <cmath>
#include <QHeaderView>
#include <QScrollBar>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "analysis/io/fingerprint.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/pipeline.h"
#include "analysis/io/synthetic.h"
#include "model/compare_job.h"
#include "model/compare_model.h"
#include "model/document.h"
#include "model/units.h"
#include "model/theme.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/compare_view.h"
#include "widgets/settings_dialog.h"

using namespace sl;

namespace {

QString screensDir()
{
    const QString d = qEnvironmentVariable("SIGHTLINE_TEST_TMP", QDir::tempPath()) + QStringLiteral("/screens");
    QDir().mkpath(d);
    return d;
}

// Mean lightness (0…1) of an image.
double meanLightness(const QImage& img)
{
    double sum = 0;
    int n = 0;
    for (int y = 0; y < img.height(); y += 4)
        for (int x = 0; x < img.width(); x += 4, ++n)
            sum += QColor(img.pixel(x, y)).lightnessF();
    return n ? sum / n : 0;
}

} // namespace

class TestCompareView : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;
    QString before_, after_, kb_;
    PipelineResult beforeRun_;

    void load(Document& doc)
    {
        DocumentInputs in;
        in.traces = QStringList{before_};
        doc.setInputs(in);
        doc.setTrace({before_}, beforeRun_.trace);
        doc.setAnalysis(std::make_shared<const AnalysisResult>(beforeRun_.analysis));
    }

    WorkbenchSettings settings() const
    {
        WorkbenchSettings s;
        s.kbPath = kb_;
        return s;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        SynthOptions b = testing::plantedDecode(/*pageableCopies=*/false);
        b.decode_steps = 10;
        const SynthOptions a = testing::improvedDecode(b, 8);
        before_ = testing::writeSyntheticNsys(dir_.path(), QStringLiteral("baseline_run.sqlite"), b);
        after_ = testing::writeSyntheticNsys(dir_.path(), QStringLiteral("with_cuda_graphs.sqlite"), a);
        beforeRun_ = run_pipeline({before_.toStdString()}, WorkbenchSettings{}.pipelineOptions());

        kb_ = dir_.filePath(QStringLiteral("kb.db"));
        KnowledgeBase kb(kb_.toStdString());
        RunRecord rec;
        rec.trace_path = before_.toStdString();
        rec.trace_hash = file_hash(before_.toStdString());
        rec.env_id = kb.upsert_environment(fingerprint_from_trace(*beforeRun_.trace));
        const int64_t run = kb.record_run(rec, operator_measurements(*beforeRun_.trace, beforeRun_.analysis),
                                          beforeRun_.diagnosis.eval.findings);
        for (const auto& s : kb.suggestions(run))
            kb.set_suggestion_state(s.id, SuggestionState::Accepted);
    }
    void cleanup() { applyTheme(QStringLiteral("system")); }

    void opensAfterAndFillsTheTables()
    {
        Document doc;
        load(doc);
        CompareView view(&doc);
        view.setSettings(settings());
        QAbstractItemModelTester t1(view.metricsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(view.classesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t3(view.kernelsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t4(view.verdictsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy done(&view, &CompareView::comparisonFinished);
        view.openAfter({after_});
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        QCOMPARE(done.at(0).at(0).toBool(), true);
        const auto out = view.job()->output();
        QVERIFY(out);
        QCOMPARE(size_t(view.kernelsModel()->rowCount()), out->result.kernels.size());
        QCOMPARE(size_t(view.classesModel()->rowCount()), out->result.classes.size());
        QCOMPARE(size_t(view.metricsModel()->rowCount()), out->result.before_metrics.size());
        QVERIFY(view.verdictsModel()->rowCount() > 0);
        QCOMPARE(size_t(view.verdictsModel()->rowCount()), out->result.verdicts.size());
        QCOMPARE(view.tabs()->count(), 3);
        QVERIFY(view.tabs()->tabText(2).contains(QString::number(out->result.verdicts.size())));
        // The header names both files; the status counts the kernel changes.
        QStringList labels;
        for (QLabel* l : view.findChildren<QLabel*>())
            labels << l->text();
        QVERIFY(labels.join(QLatin1Char('\n')).contains(QStringLiteral("baseline_run.sqlite")));
        QVERIFY(labels.join(QLatin1Char('\n')).contains(QStringLiteral("with_cuda_graphs.sqlite")));
        int faster = 0;
        for (const auto& r : out->result.kernels)
            faster += r.status == "faster";
        QVERIFY2(view.verdictDetails().contains(QStringLiteral("%1 faster").arg(faster)),
                 qPrintable(view.verdictDetails()));
        // Record is offered, and nothing was written yet.
        QPushButton* record = nullptr;
        for (QPushButton* b : view.findChildren<QPushButton*>())
            if (b->text() == CompareView::tr("Record Verdicts"))
                record = b;
        QVERIFY(record);
        QVERIFY(record->isEnabled());
        QCOMPARE(KnowledgeBase(kb_.toStdString()).count("verifications"), int64_t(0));
        // Same generator, same GPU: no hardware warning.
        QVERIFY(view.environmentWarning().isEmpty());
    }

    // Issue 37 §4: the pane's first line is the end-to-end verdict in words (TPOT and throughput before → after,
    // against the run-to-run spread), also without any accepted suggestion (no knowledge base at all); the kernel
    // details under it count time gained and lost, and the kernel table is in the order of time gained or lost.
    // Before: the first line named the files, and the first result line read "Kernels: 2 faster, 15 slower, …".
    void firstLineIsTheEndToEndVerdict_data()
    {
        QTest::addColumn<bool>("withSuggestions");
        QTest::newRow("accepted suggestions") << true;
        QTest::newRow("no knowledge base") << false;
    }
    void firstLineIsTheEndToEndVerdict()
    {
        QFETCH(bool, withSuggestions);
        Document doc;
        load(doc);
        CompareView view(&doc);
        WorkbenchSettings st = settings();
        if (!withSuggestions)
            st.kbPath = dir_.filePath(QStringLiteral("no_such_kb.db"));
        view.setSettings(st);
        view.resize(900, 620);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy done(&view, &CompareView::comparisonFinished);
        view.openAfter({after_});
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        QTest::qWait(50);
        const auto out = view.job()->output();
        QVERIFY(out);
        QCOMPARE(out->result.verdicts.empty(), !withSuggestions);

        // The first line on screen: the text of the topmost visible label.
        QLabel* first = nullptr;
        for (QLabel* l : view.findChildren<QLabel*>())
            if (l->isVisible() && !l->text().isEmpty() &&
                (!first || l->mapTo(&view, QPoint(0, 0)).y() < first->mapTo(&view, QPoint(0, 0)).y()))
                first = l;
        QVERIFY(first);
        const QString line = first->text();
        QCOMPARE(line, view.verdictText());
        // The numbers are the runs' median TPOT; the after run is faster beyond its spread (20 % faster kernels, no
        // host starvation).
        const QString tpotBefore = formatDuration(int64_t(std::llround(beforeRun_.analysis.phases.tpot_median_ns)));
        const QString tpotAfter =
            formatDuration(int64_t(std::llround(out->afterAnalysis->phases.tpot_median_ns)));
        QVERIFY2(line.startsWith(QStringLiteral("Faster end to end: TPOT %1 → %2 (−").arg(tpotBefore, tpotAfter)),
                 qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("throughput ")) && line.contains(QStringLiteral("tokens/s")),
                 qPrintable(line));
        QVERIFY2(line.contains(QStringLiteral("beyond the noise of ±")) &&
                     line.contains(QStringLiteral("run-to-run spread ±")),
                 qPrintable(line));
        // The same judgement as the suggestions' verdicts.
        for (const SuggestionVerdict& v : out->result.verdicts)
            if (!v.e2e_metric.empty())
                QVERIFY2(line.contains(QStringLiteral("(−%1 %)").arg(QLocale().toString(-v.e2e_delta * 100, 'f', 1))),
                         qPrintable(line + QStringLiteral(" | ") + QString::fromStdString(v.reason)));
        // Then the details: the steps judged and the kernel time gained and lost.
        const QString details = view.verdictDetails();
        QVERIFY2(details.startsWith(QStringLiteral("Judged on the median TPOT of")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("gained")) && details.contains(QStringLiteral("lost")),
                 qPrintable(details));
        auto* verdictLabel = view.findChild<QLabel*>(QStringLiteral("compareVerdictDetails"));
        QVERIFY(verdictLabel && verdictLabel->mapTo(&view, QPoint(0, 0)).y() > first->mapTo(&view, QPoint(0, 0)).y());
        // The kernel table: largest time gained or lost first.
        QAbstractItemModel* kernels = view.tabs()->widget(1)->findChild<QTableView*>()->model();
        QVERIFY(kernels->rowCount() > 2);
        qlonglong last = LLONG_MAX;
        for (int row = 0; row < kernels->rowCount(); ++row) {
            const qlonglong d = std::llabs(
                kernels->index(row, CompareDeltaModel::Delta).data(CompareDeltaModel::SortRole).toLongLong());
            QVERIFY(d <= last);
            last = d;
        }
        QVERIFY(view.grab().save(screensDir() + QStringLiteral("/compare_verdict_%1.png")
                                                    .arg(withSuggestions ? QStringLiteral("suggestions")
                                                                         : QStringLiteral("no_kb"))));
    }

    // AFTER recorded on another GPU model: the view says so above the tables, and no verdict is verified or failed.
    void warnsWhenTheHardwareDiffers()
    {
        SynthOptions b = testing::plantedDecode(/*pageableCopies=*/false);
        b.decode_steps = 10;
        SynthOptions a = testing::improvedDecode(b, 8);
        a.gpu_name = "NVIDIA A100-SXM4-80GB";
        const QString otherGpu = testing::writeSyntheticNsys(dir_.path(), QStringLiteral("on_a100.sqlite"), a);
        Document doc;
        load(doc);
        CompareView view(&doc);
        view.setSettings(settings());
        QSignalSpy done(&view, &CompareView::comparisonFinished);
        view.openAfter({otherGpu});
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        const QString w = view.environmentWarning();
        QVERIFY(view.job()->output());
        const CompareEnvironment& env = view.job()->output()->result.environment;
        QVERIFY2(w.contains(QStringLiteral("NVIDIA A100-SXM4-80GB")),
                 qPrintable(w + QStringLiteral(" | ") + QString::fromStdString(env.before.gpu + " / " + env.after.gpu)));
        QVERIFY2(w.contains(QString::fromStdString(b.gpu_name)), qPrintable(w));
        const auto out = view.job()->output();
        QVERIFY(out);
        QVERIFY(!out->result.verdicts.empty());
        for (const auto& v : out->result.verdicts)
            QVERIFY2(v.verdict != "verified" && v.verdict != "failed", v.reason.c_str());
        // Opening a same-GPU AFTER again hides it.
        QSignalSpy again(&view, &CompareView::comparisonFinished);
        view.openAfter({after_});
        QTRY_VERIFY_WITH_TIMEOUT(again.count() == 1, 60000);
        QVERIFY(view.environmentWarning().isEmpty());
    }

    void waitsForAnalysisAndFollowsTheDocument()
    {
        Document doc;
        CompareView view(&doc);
        view.setSettings(settings());
        QSignalSpy done(&view, &CompareView::comparisonFinished);
        view.openAfter({after_});
        QTest::qWait(100);
        QCOMPARE(done.count(), 0);   // no BEFORE yet
        QVERIFY(view.statusText().contains(QStringLiteral("Waiting")));
        load(doc);
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        QVERIFY(view.kernelsModel()->rowCount() > 0);

        // A new BEFORE drops the old comparison, and the new analysis brings a new one.
        doc.setTrace({before_}, beforeRun_.trace);
        QCOMPARE(view.kernelsModel()->rowCount(), 0);
        doc.setAnalysis(std::make_shared<const AnalysisResult>(beforeRun_.analysis));
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, 60000);
        QVERIFY(view.kernelsModel()->rowCount() > 0);
        doc.clear();
        QCOMPARE(view.metricsModel()->rowCount(), 0);
    }

    void rendersReadably_data()
    {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << QStringLiteral("light");
        QTest::newRow("dark") << QStringLiteral("dark");
    }
    void rendersReadably()
    {
        QFETCH(QString, theme);
        applyTheme(theme);
        Document doc;
        load(doc);
        CompareView view(&doc);
        view.setSettings(settings());
        view.resize(900, 620);
        view.show();
        QSignalSpy done(&view, &CompareView::comparisonFinished);
        view.openAfter({after_});
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 60000);
        QTest::qWait(50);
        // The headline table shows every number in full (no elided "…" cells).
        auto* headline = view.findChild<QTableView*>(QStringLiteral("headline"));
        QVERIFY(headline);
        for (int c = 0; c < headline->model()->columnCount(); ++c) {
            QVERIFY2(headline->columnWidth(c) >= static_cast<QAbstractItemView*>(headline)->sizeHintForColumn(c),
                     qPrintable(QStringLiteral("column %1 cut").arg(c)));
        }
        const QImage shot = view.grab().toImage();
        QVERIFY(shot.save(screensDir() + QStringLiteral("/compare_view_%1.png").arg(theme)));
        for (int tab = 1; tab < 3; ++tab) {
            view.tabs()->setCurrentIndex(tab);
            QTest::qWait(20);
            // Every column of the class / kernel / verdict tables is on screen at the default size, none squeezed
            // below its contents except the stretched name (and the capped subject).
            auto* table = view.tabs()->currentWidget()->findChild<QTableView*>();
            QVERIFY(table);
            QVERIFY2(!table->horizontalScrollBar()->isVisible(), qPrintable(QStringLiteral("tab %1 scrolls").arg(tab)));
            view.grab().save(screensDir() + QStringLiteral("/compare_view_%1_tab%2.png").arg(theme).arg(tab));
        }
        // As a bottom dock of a 1280×800 window.
        view.tabs()->setCurrentIndex(1);
        view.resize(1280, 330);
        QTest::qWait(20);
        view.grab().save(screensDir() + QStringLiteral("/compare_view_%1_dock.png").arg(theme));
        const double l = meanLightness(shot);
        QVERIFY2(theme == QLatin1String("dark") ? l < 0.35 : l > 0.75, qPrintable(QString::number(l)));

        SettingsDialog dialog(settings());
        dialog.show();
        QTest::qWait(20);
        // The dialog opens at least as large as its contents want: nothing squeezed.
        QVERIFY(dialog.width() >= dialog.minimumSizeHint().width());
        QVERIFY(dialog.height() >= dialog.minimumSizeHint().height());
        auto* tabs = dialog.findChild<QTabWidget*>();
        QVERIFY(tabs);
        for (int t = 0; t < tabs->count(); ++t) {
            tabs->setCurrentIndex(t);
            QTest::qWait(20);
            dialog.grab().save(screensDir() + QStringLiteral("/settings_%1_tab%2.png").arg(theme).arg(t));
        }
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compare_view.moc"

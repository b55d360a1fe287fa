// FindingsView on the real pipeline's diagnosis of a decode trace with planted host starvation, per-step syncs and
// pageable copies: it fills from the Document, expands the first finding, shows its detail, and clicking link rows
// moves the shared Selection (kernel, range, kernel name); filters, copy command, suggestion states and the footer
// for rules that could not run. Also renders the pane at 1000x700 (English and Chinese) to test-tmp for a look.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>
#include <functional>

#include "analysis/report/report_strings.h"
#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/synthetic.h"
#include "model/document.h"
#include "model/findings_filter_model.h"
#include "model/findings_model.h"
#include "model/suggestion_model.h"
#include "model/selection.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/findings_view.h"

using namespace sl;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

struct Fixture {
    std::shared_ptr<const PipelineResult> result;
    Document doc;
    Selection selection;

    explicit Fixture(bool planted = true)
    {
        result = testing::runShippedRules(planted ? testing::plantedDecode() : synth_preset("decode"));
        doc.setTrace({QStringLiteral("synthetic.sqlite")}, result->trace);
        doc.setDiagnosis(testing::diagnosisOf(result));
    }
    const std::vector<Finding>& findings() const { return result->diagnosis.eval.findings; }
};

// The first proxy index of a row kind (searching every finding and its link groups), expanding its parents.
QModelIndex firstOfKind(FindingsView& view, int kind, int* findingRow = nullptr)
{
    QAbstractItemModel* p = view.tree()->model();
    std::function<QModelIndex(const QModelIndex&)> find = [&](const QModelIndex& parent) -> QModelIndex {
        for (int r = 0; r < p->rowCount(parent); ++r) {
            const QModelIndex i = p->index(r, 0, parent);
            if (i.data(FindingsModel::RowKindRole).toInt() == kind)
                return i;
            if (const QModelIndex below = find(i); below.isValid())
                return below;
        }
        return {};
    };
    const QModelIndex found = find({});
    if (!found.isValid())
        return {};
    for (QModelIndex a = found.parent(); a.isValid(); a = a.parent())
        view.tree()->expand(a);
    view.tree()->scrollTo(found);
    if (findingRow)
        *findingRow = found.data(FindingsModel::FindingRowRole).toInt();
    return found;
}

void click(FindingsView& view, const QModelIndex& index)
{
    view.tree()->scrollTo(index);
    const QRect rect = view.tree()->visualRect(index.siblingAtColumn(FindingsModel::TitleColumn));
    QVERIFY(rect.isValid());
    QTest::mouseClick(view.tree()->viewport(), Qt::LeftButton, {}, rect.center());
}

} // namespace

class TestFindingsView : public QObject {
    Q_OBJECT
private slots:
    void fillsFromDocument()
    {
        Fixture fx;
        FindingsView view(&fx.doc, &fx.selection);
        QAbstractItemModelTester tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(view.model()->rowCount(), int(fx.findings().size()));
        // The first finding is current, its evidence in the detail area; collapsed, so every finding shows as a row.
        QVERIFY(!view.tree()->isExpanded(view.proxy()->index(0, 0)));
        QCOMPARE(view.currentFindingRow(), 0);
        const Finding& f = fx.findings().front();
        const QString detail = view.detailText();
        QVERIFY(detail.contains(qs(f.title.en)));
        QVERIFY(detail.contains(qs(f.explanation.en)));
        for (const Evidence& e : f.evidence) {
            QVERIFY(detail.contains(qs(format_metric(e.metric, e.value))));
            // The metric in words, as reports say it; the key stays in the rule column.
            QVERIFY2(detail.contains(qs(report::metric_label(e.metric, report::Lang::En)).toHtmlEscaped()),
                     qPrintable(qs(e.metric)));
            QVERIFY(detail.contains(qs(e.metric)));
        }
        for (const Suggestion& s : f.suggestions)
            if (!s.verify.empty())
                QVERIFY(detail.contains(qs(s.verify)));
        QVERIFY(detail.contains(FindingsModel::confidenceText(f.confidence)));

        // A new trace drops the diagnosis: the pane empties until the rules ran again.
        fx.doc.setTrace({QStringLiteral("other")}, fx.result->trace);
        QCOMPARE(view.model()->rowCount(), 0);
        QVERIFY(view.detailText().contains(QStringLiteral("when the rules have run")));
        fx.doc.setDiagnosis(std::shared_ptr<const Diagnosis>(fx.result, &fx.result->diagnosis));
        QCOMPARE(view.model()->rowCount(), int(fx.findings().size()));
    }

    void linksMoveTheSelection()
    {
        Fixture fx;
        FindingsView view(&fx.doc, &fx.selection);
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy kernels(&view, &FindingsView::kernelRequested);
        QSignalSpy ranges(&view, &FindingsView::rangeRequested);

        int row = -1;
        const QModelIndex k = firstOfKind(view, FindingsModel::KernelLinkRow, &row);
        QVERIFY(k.isValid());
        const Finding& kf = fx.findings()[size_t(row)];
        const int64_t expectedKernel = kf.links.kernel_ids[size_t(k.data(FindingsModel::ChildIndexRole).toInt())];
        click(view, k);
        QCOMPARE(fx.selection.kernel(), expectedKernel);
        QCOMPARE(kernels.count(), 1);
        QCOMPARE(kernels.at(0).at(0).toLongLong(), qint64(expectedKernel));
        // a double-click on the same row acts once more, not twice
        QTest::mouseDClick(view.tree()->viewport(), Qt::LeftButton, {},
                           view.tree()->visualRect(k.siblingAtColumn(FindingsModel::TitleColumn)).center());
        QVERIFY(kernels.count() <= 2);

        row = -1;
        const QModelIndex r = firstOfKind(view, FindingsModel::RangeLinkRow, &row);
        QVERIFY(r.isValid());
        const LinkedRange& lr = fx.findings()[size_t(row)].links.time_ranges[size_t(r.data(FindingsModel::ChildIndexRole).toInt())];
        click(view, r);
        QCOMPARE(fx.selection.range(), (TimeRange{lr.start, lr.end}));
        QCOMPARE(ranges.count(), 1);
        QCOMPARE(ranges.at(0).at(0).value<TimeRange>(), (TimeRange{lr.start, lr.end}));
        QCOMPARE(view.currentFindingRow(), row);

        // The detail area's links do the same for the finding shown.
        fx.selection.setKernel(-1);
        view.selectFinding(row = [&] {
            for (int i = 0; i < int(fx.findings().size()); ++i)
                if (!fx.findings()[size_t(i)].links.kernel_ids.empty())
                    return i;
            return -1;
        }());
        auto* browser = view.findChild<QTextBrowser*>(QStringLiteral("findingDetail"));
        QVERIFY(browser);
        emit browser->anchorClicked(QUrl(QStringLiteral("kernel:0")));
        QCOMPARE(fx.selection.kernel(), fx.findings()[size_t(row)].links.kernel_ids.front());

        // A finding about one kernel name selects that name.
        int kernelFinding = -1;
        for (int i = 0; i < int(fx.findings().size()) && kernelFinding < 0; ++i)
            if (fx.findings()[size_t(i)].scope == ScopeKind::Kernel)
                kernelFinding = i;
        QVERIFY(kernelFinding >= 0);   // the planted trace has launch-bound kernel names
        view.selectFinding(kernelFinding);
        click(view, view.tree()->currentIndex());
        const StrId id = fx.result->trace->strings.find(fx.findings()[size_t(kernelFinding)].subject);
        QVERIFY(id != StringPool::kNotFound);
        QCOMPARE(fx.selection.kernelName(), id);

        // NVTX links only ask.
        row = -1;
        const QModelIndex n = firstOfKind(view, FindingsModel::NvtxLinkRow, &row);
        QVERIFY(n.isValid());
        QSignalSpy nvtx(&view, &FindingsView::nvtxRequested);
        click(view, n);
        QCOMPARE(nvtx.count(), 1);
        QCOMPARE(nvtx.at(0).at(0).toString(), qs(fx.findings()[size_t(row)].links.nvtx_ranges.at(size_t(n.row()))));
    }

    void filtersCopyAndStates()
    {
        Fixture fx;
        FindingsView view(&fx.doc, &fx.selection);
        const auto& fs = fx.findings();
        auto* combo = view.findChild<QComboBox*>(QStringLiteral("severityFilter"));
        auto* search = view.findChild<QLineEdit*>(QStringLiteral("findingsSearch"));
        auto* count = view.findChild<QLabel*>(QStringLiteral("findingsCount"));
        QVERIFY(combo && search && count);
        QVERIFY(count->text().startsWith(QString::number(fs.size())));
        combo->setCurrentIndex(combo->count() - 1);   // High only
        const auto high = std::count_if(fs.begin(), fs.end(), [](const Finding& f) { return f.severity == Severity::High; });
        QCOMPARE(view.proxy()->rowCount(), int(high));
        if (int(high) < int(fs.size()))
            QVERIFY(count->text().startsWith(QString::number(high) + QLatin1Char(' ')));
        combo->setCurrentIndex(0);
        QCOMPARE(view.proxy()->rowCount(), int(fs.size()));

        // Typing a finding's title keeps it: the last finding whose title a keyboard types (QTest::keyClicks takes
        // Latin-1 only; kernel titles say "<…>").
        int typed = int(fs.size()) - 1;
        auto latin1 = [](const std::string& t) {
            for (const QChar ch : qs(t))
                if (ch.unicode() > 0xFF)
                    return false;
            return true;
        };
        while (typed > 0 && !latin1(fs[size_t(typed)].title.en))
            --typed;
        QTest::keyClicks(search, qs(fs[size_t(typed)].title.en));
        QVERIFY(view.proxy()->rowCount() >= 1);
        QVERIFY(view.proxy()->mapFromSource(view.model()->index(typed, 0)).isValid());
        // selectFinding on a hidden finding clears the filters
        search->setText(QStringLiteral("qzxv nothing matches"));
        QCOMPARE(view.proxy()->rowCount(), 0);
        view.selectFinding(0);
        QCOMPARE(view.proxy()->rowCount(), int(fs.size()));
        QCOMPARE(view.currentFindingRow(), 0);
        QVERIFY(search->text().isEmpty());

        // Copy command: the current suggestion's verify command lands on the clipboard.
        int row = -1;
        const QModelIndex s = firstOfKind(view, FindingsModel::SuggestionRow, &row);
        QVERIFY(s.isValid());
        QSignalSpy current(&view, &FindingsView::currentSuggestionChanged);
        view.tree()->setCurrentIndex(s);
        const Finding& f = fs[size_t(row)];
        const Suggestion& sg = f.suggestions[size_t(s.data(FindingsModel::ChildIndexRole).toInt())];
        QCOMPARE(current.count(), 1);
        QCOMPARE(current.at(0).at(0).toString(), FindingsView::suggestionStateKey(f, sg));
        auto* copy = view.findChild<QToolButton*>(QStringLiteral("copyCommand"));
        QVERIFY(copy && copy->defaultAction());
        QCOMPARE(copy->defaultAction()->isEnabled(), !sg.verify.empty());
        QApplication::clipboard()->clear();
        copy->defaultAction()->trigger();
        QCOMPARE(QApplication::clipboard()->text(), qs(sg.verify));
        QApplication::clipboard()->clear();
        emit view.findChild<QTextBrowser*>(QStringLiteral("findingDetail"))->anchorClicked(QUrl(QStringLiteral("copy:0")));
        QCOMPARE(QApplication::clipboard()->text(), qs(f.suggestions.front().verify));

        // Suggestion states: the State column appears and shows the state.
        QVERIFY(view.tree()->isColumnHidden(FindingsModel::StateColumn));
        view.setSuggestionStates({{FindingsView::suggestionStateKey(f, sg), QStringLiteral("rejected")}});
        QVERIFY(!view.tree()->isColumnHidden(FindingsModel::StateColumn));
        const QString rejected = SuggestionModel::stateLabel(SuggestionState::Rejected);
        QCOMPARE(s.siblingAtColumn(FindingsModel::StateColumn).data().toString(), rejected);
        QVERIFY(view.detailText().contains(rejected));
    }

    void footerSaysWhatCouldNotRun()
    {
        Fixture fx(false);
        FindingsView view(&fx.doc, &fx.selection);
        auto* footer = view.findChild<QLabel*>(QStringLiteral("findingsFooter"));
        QVERIFY(footer);
        QCOMPARE(footer->isVisibleTo(&view), !FindingsModel::problemsText(fx.result->diagnosis).isEmpty());
        // The same diagnosis with a broken rule file and a rule short of a metric.
        auto d = std::make_shared<Diagnosis>(fx.result->diagnosis);
        d->rule_errors.push_back({"/rules/mine.json", "my-rule", "unknown verdict 'slow'"});
        d->eval.missing.push_back({"roofline-far-from-roof", ScopeKind::OpClass, "gemm", {"e_roof"}});
        fx.doc.setDiagnosis(d);
        QVERIFY(footer->isVisibleTo(&view));
        QVERIFY(view.footerText().contains(QStringLiteral("my-rule: unknown verdict 'slow'")));
        QVERIFY(view.footerText().contains(QStringLiteral("e_roof")));
        QVERIFY2(footer->toolTip().contains(QStringLiteral("roofline-far-from-roof: missing e_roof")), qPrintable(footer->toolTip()));
    }

    void renders()
    {
        // Not a pixel test: writes the pane for a look (test-tmp/findings_view_{en,zh_CN}.png) and checks that the
        // title column keeps a useful width at 1000 px.
        Fixture fx;
        const QString dir = qEnvironmentVariable("SIGHTLINE_TEST_TMP", QDir::tempPath());
        for (const QString& lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            FindingsView view(&fx.doc, &fx.selection);
            view.setLanguage(lang);
            view.resize(1000, 700);
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            QVERIFY(view.tree()->header()->sectionSize(FindingsModel::TitleColumn) >= 250);
            QVERIFY(!view.tree()->isColumnHidden(FindingsModel::SubjectColumn));
            // a narrow dock: the subject gives way, the title keeps room
            view.resize(560, 500);
            QApplication::processEvents();
            QVERIFY(view.tree()->isColumnHidden(FindingsModel::SubjectColumn));
            QVERIFY(view.tree()->header()->sectionSize(FindingsModel::TitleColumn) >= 200);
            view.resize(1000, 700);
            QApplication::processEvents();
            QVERIFY(!view.tree()->isColumnHidden(FindingsModel::SubjectColumn));
            if (lang == QLatin1String("zh_CN"))
                QVERIFY(view.detailText().contains(qs(fx.findings().front().title.zh_CN)));
            const QImage img = view.grab().toImage();
            QCOMPARE(img.size(), QSize(1000, 700) * img.devicePixelRatio());
            QVERIFY(img.save(dir + QStringLiteral("/findings_view_%1.png").arg(lang)));
        }
        // And a real trace, when ../shared/data is there.
        const QString real = qEnvironmentVariable("SIGHTLINE_SHARED_DATA") +
                             QStringLiteral("/nsys/dlprof_pytorch_wrelu_nsys_profile.sqlite");
        if (!QFile::exists(real))
            return;
        PipelineOptions o;
        o.rule_dirs = {shipped_rules_dir()};
        auto r = std::make_shared<const PipelineResult>(run_pipeline({real.toStdString()}, o));
        Document doc;
        Selection selection;
        doc.setTrace({real}, r->trace);
        doc.setDiagnosis(std::shared_ptr<const Diagnosis>(r, &r->diagnosis));
        FindingsView view(&doc, &selection);
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.model()->rowCount(), int(r->diagnosis.eval.findings.size()));
        QVERIFY(view.grab().save(dir + QStringLiteral("/findings_view_real.png")));
    }
};

QTEST_MAIN(TestFindingsView)
#include "tst_findings_view.moc"

// FindingsModel and FindingsFilterModel on diagnoses the real pipeline produced: the bundled decode sample, a
// decode trace with planted host starvation, per-step syncs and pageable copies, and a real trace from
// ../shared/data. One row per finding in rank order, children that mirror evidence / suggestions / links, roles
// that carry the right kernel rows and times, and a text filter that keeps the parents of matching children.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <functional>
#include <set>

#include "analysis/trace/kernel_short_name.h"
#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/report/report_strings.h"
#include "analysis/io/synthetic.h"
#include "model/findings_filter_model.h"
#include "model/findings_model.h"
#include "analysis/report/report_strings.h"
#include "model/suggestion_model.h"
#include "model/units.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

using testing::diagnosisOf;
PipelineOptions shippedRules() { return testing::shippedRulesOptions(); }

std::shared_ptr<const PipelineResult> runSynthetic(bool planted)
{
    return testing::runShippedRules(planted ? testing::plantedDecode() : synth_preset("decode"));
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The kinds the rows under `f` must have, in order, with link rows listed under their group (an independent
// spelling of the model's layout): {kind, [kinds of its children]}.
std::vector<std::pair<int, std::vector<int>>> expectedKinds(const Finding& f)
{
    std::vector<std::pair<int, std::vector<int>>> k{{FindingsModel::ExplanationRow, {}}};
    k.insert(k.end(), f.evidence.size(), {FindingsModel::EvidenceRow, {}});
    k.insert(k.end(), f.suggestions.size(), {FindingsModel::SuggestionRow, {}});
    if (!f.links.kernel_ids.empty())
        k.push_back({FindingsModel::LinkGroupRow, std::vector<int>(f.links.kernel_ids.size(), FindingsModel::KernelLinkRow)});
    if (!f.links.time_ranges.empty())
        k.push_back({FindingsModel::LinkGroupRow, std::vector<int>(f.links.time_ranges.size(), FindingsModel::RangeLinkRow)});
    if (!f.links.nvtx_ranges.empty())
        k.push_back({FindingsModel::LinkGroupRow, std::vector<int>(f.links.nvtx_ranges.size(), FindingsModel::NvtxLinkRow)});
    return k;
}

// Every index below `parent`, depth first.
void descendants(const QAbstractItemModel& m, const QModelIndex& parent, QModelIndexList& out)
{
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex child = m.index(r, 0, parent);   // a copy: appending to `out` may move its elements
        out << child;
        descendants(m, child, out);
    }
}

// Checks the whole tree against the diagnosis it shows.
void checkTree(const FindingsModel& m, const PipelineResult& r)
{
    const std::vector<Finding>& fs = r.diagnosis.eval.findings;
    const Trace& t = *r.trace;
    QCOMPARE(m.rowCount(), int(fs.size()));
    QCOMPARE(m.columnCount(), int(FindingsModel::ColumnCount));
    double prevScore = 2.0;
    for (int row = 0; row < int(fs.size()); ++row) {
        const Finding& f = fs[size_t(row)];
        const QModelIndex fi = m.index(row, 0);
        QCOMPARE(fi.data(FindingsModel::RowKindRole).toInt(), int(FindingsModel::FindingRow));
        QCOMPARE(fi.data(Qt::DisplayRole).toInt(), row + 1);   // rank shown
        QVERIFY2(f.rank_score() <= prevScore + 1e-12, qPrintable(qs(f.rule)));   // ranked: gain x confidence
        prevScore = f.rank_score();
        QCOMPARE(m.index(row, FindingsModel::TitleColumn).data().toString(), qs(f.title.en));
        QCOMPARE(m.index(row, FindingsModel::SeverityColumn).data(Qt::DecorationRole).value<QColor>(),
                 FindingsModel::severityColor(f.severity));
        QCOMPARE(fi.data(FindingsModel::FindingSubjectRole).toString(), qs(f.subject));
        QCOMPARE(m.index(row, FindingsModel::GainColumn).data(FindingsModel::SortRole).toDouble(), f.expected_gain.fraction);
        QCOMPARE(m.index(row, FindingsModel::ConfidenceColumn).data().toString(),
                 FindingsModel::confidenceText(f.confidence));
        if (f.expected_gain.computed)
            QVERIFY(m.index(row, FindingsModel::GainColumn).data().toString().startsWith(
                formatPercent(f.expected_gain.fraction)));

        const auto kinds = expectedKinds(f);
        QCOMPARE(m.rowCount(fi), int(kinds.size()));
        size_t ev = 0, sg = 0, kl = 0, rl = 0, nl = 0;
        // (row under the finding, row under the group or -1)
        std::vector<std::pair<int, int>> rows;
        for (int c = 0; c < int(kinds.size()); ++c) {
            const QModelIndex ci = m.index(c, 0, fi);
            QCOMPARE(m.parent(ci), fi);
            QCOMPARE(ci.data(FindingsModel::RowKindRole).toInt(), kinds[size_t(c)].first);
            QCOMPARE(m.rowCount(ci), int(kinds[size_t(c)].second.size()));
            if (kinds[size_t(c)].first != FindingsModel::LinkGroupRow)
                rows.push_back({c, -1});
            for (int g = 0; g < int(kinds[size_t(c)].second.size()); ++g)
                rows.push_back({c, g});
        }
        for (const auto& [c, g] : rows) {
            const QModelIndex parent = g < 0 ? fi : m.index(c, 0, fi);
            const int r = g < 0 ? c : g;
            const QModelIndex ci = m.index(r, 0, parent);
            QCOMPARE(m.parent(ci), parent);
            QCOMPARE(ci.data(FindingsModel::FindingRowRole).toInt(), row);
            QCOMPARE(m.findingAt(ci), &f);
            const int kind = g < 0 ? kinds[size_t(c)].first : kinds[size_t(c)].second[size_t(g)];
            QCOMPARE(ci.data(FindingsModel::RowKindRole).toInt(), kind);
            const QString main = m.index(r, FindingsModel::TitleColumn, parent).data().toString();
            switch (kind) {
            case FindingsModel::ExplanationRow: QCOMPARE(main, qs(f.explanation.en)); break;
            case FindingsModel::EvidenceRow: {
                const Evidence& e = f.evidence[ev++];
                // The metric in words (the core's table, as reports say it); the rule's condition on its key.
                QVERIFY(main.startsWith(qs(sl::report::metric_label(e.metric, sl::report::Lang::En)) + QStringLiteral(" = ") +
                                        qs(format_metric(e.metric, e.value))));
                if (e.threshold && !e.op.empty())
                    QVERIFY(main.contains(qs(e.metric) + QStringLiteral(" ") + qs(e.op) + QStringLiteral(" ") +
                                          qs(format_metric(e.metric, *e.threshold))));
                // The evidence source in words ("analysis:launch" -> "launch statistics"), never the internal key.
                const QString source = m.index(r, FindingsModel::SubjectColumn, parent).data().toString();
                QCOMPARE(source, FindingsModel::sourceLabel(e.source));
                QVERIFY2(!source.startsWith(QStringLiteral("analysis:")), qPrintable(source));
                break;
            }
            case FindingsModel::SuggestionRow: {
                const Suggestion& s = f.suggestions[sg];
                QCOMPARE(main, qs(s.text.en));
                QCOMPARE(ci.data(FindingsModel::SuggestionKeyRole).toString(), qs(f.rule + "/" + s.id));
                QCOMPARE(ci.data(FindingsModel::KernelIndexRole).toLongLong(), qint64(-1));
                QCOMPARE(m.suggestionIndex(row, int(sg)), ci);
                ++sg;
                break;
            }
            case FindingsModel::KernelLinkRow: {
                const int64_t k = f.links.kernel_ids[kl];
                QVERIFY(k >= 0 && size_t(k) < t.kernels.size());
                QCOMPARE(ci.data(FindingsModel::KernelIndexRole).toLongLong(), qint64(k));
                QCOMPARE(ci.data(FindingsModel::TimeRangeStartRole).toLongLong(), qint64(t.kernels.start[size_t(k)]));
                QCOMPARE(ci.data(FindingsModel::TimeRangeEndRole).toLongLong(), qint64(t.kernels.end[size_t(k)]));
                QCOMPARE(main, QString::fromUtf8(t.str(t.kernels.short_name[size_t(k)])));
                QCOMPARE(m.index(r, FindingsModel::GainColumn, parent).data().toString(),
                         formatDuration(t.kernels.end[size_t(k)] - t.kernels.start[size_t(k)]));
                QCOMPARE(m.linkIndex(row, FindingsModel::KernelLinkRow, int(kl)), ci);
                ++kl;
                break;
            }
            case FindingsModel::RangeLinkRow: {
                const LinkedRange& lr = f.links.time_ranges[rl];
                QCOMPARE(ci.data(FindingsModel::TimeRangeStartRole).toLongLong(), qint64(lr.start));
                QCOMPARE(ci.data(FindingsModel::TimeRangeEndRole).toLongLong(), qint64(lr.end));
                QCOMPARE(ci.data(FindingsModel::KernelIndexRole).toLongLong(), qint64(-1));
                if (!lr.label.empty())
                    QCOMPARE(main, qs(lr.label));
                QCOMPARE(m.linkIndex(row, FindingsModel::RangeLinkRow, int(rl)), ci);
                ++rl;
                break;
            }
            case FindingsModel::NvtxLinkRow:
                QCOMPARE(ci.data(FindingsModel::NvtxNameRole).toString(), qs(f.links.nvtx_ranges[nl]));
                QCOMPARE(m.linkIndex(row, FindingsModel::NvtxLinkRow, int(nl)), ci);
                ++nl;
                break;
            default: QFAIL("unexpected kind");
            }
        }
        QCOMPARE(ev, f.evidence.size());
        QCOMPARE(sg, f.suggestions.size());
        QCOMPARE(kl, f.links.kernel_ids.size());
        QCOMPARE(rl, f.links.time_ranges.size());
        QCOMPARE(nl, f.links.nvtx_ranges.size());
    }
}

} // namespace

class TestFindingsModel : public QObject {
    Q_OBJECT
private slots:
    void sampleTree()
    {
        for (bool planted : {false, true}) {
            const auto r = runSynthetic(planted);
            QVERIFY(!r->diagnosis.eval.findings.empty());
            FindingsModel m;
            QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
            QCOMPARE(m.rowCount(), 0);
            m.setDiagnosis(diagnosisOf(r), r->trace);
            checkTree(m, *r);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // The real eager decode (a PyTorch-profiler trace: kernels by their demangled names) has kernel findings; their
    // subject column names the function as nsys shortens it, the tooltip the kernel whole.
    void kernelSubjectsAreShortNames()
    {
        const auto r = std::make_shared<const PipelineResult>(run_pipeline(
            {qEnvironmentVariable("SIGHTLINE_SOURCE_DIR", QStringLiteral(".")).toStdString() +
             "/tests/data/device/decode-eager.pt.trace.json.gz"},
            testing::shippedRulesOptions()));
        FindingsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setDiagnosis(diagnosisOf(r), r->trace);
        int kernels = 0;
        for (int row = 0; row < m.rowCount(); ++row) {
            const QModelIndex i = m.index(row, FindingsModel::SubjectColumn);
            const std::string subject = i.data(FindingsModel::FindingSubjectRole).toString().toStdString();
            if (subject.rfind("void ", 0) != 0)   // a demangled kernel name (classes and phases are ids)
                continue;
            ++kernels;
            const QString shown = i.data().toString();
            QVERIFY2(!shown.startsWith(QStringLiteral("void ")) && !shown.contains(QLatin1Char('<')), qPrintable(shown));
            QVERIFY2(shown.startsWith(QString::fromStdString(std::string(shorten_kernel_name(subject)))),
                     qPrintable(shown));
            QVERIFY(i.data(Qt::ToolTipRole).toString().contains(QString::fromStdString(subject)));
        }
        QVERIFY(kernels >= 1);
    }

    void plantedFindingsLinkToTheTrace()
    {
        // Host starvation and per-step syncs are planted: the findings about them must link kernels and ranges.
        const auto r = runSynthetic(true);
        std::set<std::string> verdicts;
        size_t kernelLinks = 0, rangeLinks = 0;
        for (const Finding& f : r->diagnosis.eval.findings) {
            verdicts.insert(f.verdict);
            kernelLinks += f.links.kernel_ids.size();
            rangeLinks += f.links.time_ranges.size();
        }
        QVERIFY(verdicts.count("host-bound") || verdicts.count("sync-bound"));
        QVERIFY(kernelLinks > 0);
        QVERIFY(rangeLinks > 0);
    }

    void languageAndStates()
    {
        const auto r = runSynthetic(true);
        FindingsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setDiagnosis(diagnosisOf(r), r->trace);
        const Finding& f0 = r->diagnosis.eval.findings.front();
        QVERIFY(!f0.title.zh_CN.empty());
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setLanguage("zh_CN");
        QVERIFY(changed.count() > 0);
        const QString zh = m.index(0, FindingsModel::TitleColumn).data().toString();
        QCOMPARE(zh, qs(f0.title.zh_CN));
        QVERIFY(std::any_of(zh.begin(), zh.end(), [](QChar c) { return c.unicode() >= 0x4e00 && c.unicode() <= 0x9fff; }));
        QCOMPARE(m.index(0, FindingsModel::TitleColumn, m.index(0, 0)).data().toString(), qs(f0.explanation.zh_CN));
        m.setLanguage("en");
        QCOMPARE(m.index(0, FindingsModel::TitleColumn).data().toString(), qs(f0.title.en));

        // A state for one suggestion shows on that row only.
        int row = -1;
        for (int i = 0; i < int(r->diagnosis.eval.findings.size()) && row < 0; ++i)
            if (!r->diagnosis.eval.findings[size_t(i)].suggestions.empty())
                row = i;
        QVERIFY(row >= 0);
        const Finding& f = r->diagnosis.eval.findings[size_t(row)];
        const QString key = FindingsModel::suggestionStateKey(f, f.suggestions.front());
        QCOMPARE(key, qs(f.rule + "/" + f.suggestions.front().id + "|" + f.subject));
        changed.clear();
        m.setSuggestionStates({{key, QStringLiteral("accepted")}});
        QCOMPARE(changed.count(), [&] {
            int n = 0;
            for (const Finding& x : r->diagnosis.eval.findings)
                n += x.suggestions.empty() ? 0 : 1;
            return n;
        }());
        const QModelIndex parent = m.index(row, 0);
        const int first = 1 + int(f.evidence.size());
        // Shown in the interface's language; the role keeps the stored name.
        QCOMPARE(m.index(first, FindingsModel::StateColumn, parent).data().toString(),
                 SuggestionModel::stateLabel(SuggestionState::Accepted));
        QCOMPARE(m.index(first, 0, parent).data(FindingsModel::SuggestionStateRole).toString(), QStringLiteral("accepted"));
        if (f.suggestions.size() > 1)
            QVERIFY(m.index(first + 1, FindingsModel::StateColumn, parent).data().toString().isEmpty());
    }

    void severityAndTextFilter()
    {
        const auto r = runSynthetic(true);
        const std::vector<Finding>& fs = r->diagnosis.eval.findings;
        FindingsModel m;
        m.setDiagnosis(diagnosisOf(r), r->trace);
        FindingsFilterModel p;
        p.setSourceModel(&m);
        QAbstractItemModelTester tester(&p, QAbstractItemModelTester::FailureReportingMode::QtTest);
        p.sort(FindingsModel::RankColumn, Qt::AscendingOrder);
        QCOMPARE(p.rowCount(), int(fs.size()));
        for (int i = 0; i < p.rowCount(); ++i)   // rank order survives the proxy's sort
            QCOMPARE(p.index(i, 0).data().toInt(), i + 1);

        for (Severity s : {Severity::Low, Severity::Medium, Severity::High}) {
            p.setMinimumSeverity(s);
            const auto expected = std::count_if(fs.begin(), fs.end(), [s](const Finding& f) { return f.severity >= s; });
            QCOMPARE(p.rowCount(), int(expected));
            for (int i = 0; i < p.rowCount(); ++i)
                QVERIFY(p.index(i, 0).data(FindingsModel::SeverityRole).toInt() >= int(s));
        }
        p.setMinimumSeverity(Severity::Info);
        QCOMPARE(p.rowCount(), int(fs.size()));

        // A word only a row below the findings has (a kernel name of a link, an evidence source): the findings and
        // groups above it stay, with only the branches that lead to a match.
        auto own = [&](const QModelIndex& i) { return i.data(FindingsModel::SearchTextRole).toString(); };
        QString needle;
        for (int row = 0; row < m.rowCount() && needle.isEmpty(); ++row) {
            QModelIndexList below;
            descendants(m, m.index(row, 0), below);
            for (const QModelIndex& d : below) {
                const QString candidate = d.siblingAtColumn(FindingsModel::TitleColumn).data().toString();
                if (candidate.size() < 4 || d.data(FindingsModel::RowKindRole).toInt() == FindingsModel::LinkGroupRow)
                    continue;
                bool inAnyFinding = false;
                for (int o = 0; o < m.rowCount(); ++o)
                    inAnyFinding |= own(m.index(o, 0)).contains(candidate, Qt::CaseInsensitive);
                if (!inAnyFinding) {
                    needle = candidate;
                    break;
                }
            }
        }
        QVERIFY(!needle.isEmpty());
        p.setSearchText(needle.toUpper());   // case-insensitive
        // Independently: a row is shown iff an ancestor matches or something in its subtree matches.
        std::function<bool(const QModelIndex&)> subtree = [&](const QModelIndex& i) {
            if (own(i).contains(needle, Qt::CaseInsensitive))
                return true;
            for (int r = 0; r < m.rowCount(i); ++r)
                if (subtree(m.index(r, 0, i)))
                    return true;
            return false;
        };
        int keptFindings = 0, checked = 0;
        for (int row = 0; row < m.rowCount(); ++row) {
            const QModelIndex fi = m.index(row, 0);
            const bool kept = subtree(fi);
            QCOMPARE(p.mapFromSource(fi).isValid(), kept);
            keptFindings += kept;
            if (!kept || own(fi).contains(needle, Qt::CaseInsensitive))
                continue;
            QModelIndexList below;
            descendants(m, fi, below);
            for (const QModelIndex& d : below) {
                bool ancestorMatches = false;
                for (QModelIndex a = d.parent(); a.isValid(); a = a.parent())
                    ancestorMatches |= own(a).contains(needle, Qt::CaseInsensitive);
                QCOMPARE(p.mapFromSource(d).isValid(), ancestorMatches || subtree(d));
                ++checked;
            }
        }
        QVERIFY(keptFindings > 0);
        QVERIFY(checked > 0);
        QCOMPARE(p.rowCount(), keptFindings);

        // A finding's own text keeps all of its children.
        const QString title = qs(fs.front().title.en);
        p.setSearchText(title);
        const QModelIndex first = p.mapFromSource(m.index(0, 0));
        QVERIFY(first.isValid());
        QCOMPARE(p.rowCount(first), m.rowCount(m.index(0, 0)));
        p.setSearchText(QStringLiteral("no finding says this: qzxv"));
        QCOMPARE(p.rowCount(), 0);
        p.setSearchText({});
        QCOMPARE(p.rowCount(), int(fs.size()));
    }

    void problemsLine()
    {
        Diagnosis d;
        QVERIFY(FindingsModel::problemsText(d).isEmpty());
        d.eval.missing.push_back({"roofline-far-from-roof", ScopeKind::OpClass, "gemm", {"e_roof"}});
        d.eval.missing.push_back({"roofline-far-from-roof", ScopeKind::OpClass, "attention", {"e_roof"}});
        d.eval.missing.push_back({"ncu-low-occupancy", ScopeKind::NcuLaunch, "ncu #1", {"achieved_occupancy", "e_roof"}});
        // Data missing on some scopes of rules that ran on others is no problem to report.
        QVERIFY2(FindingsModel::problemsText(d).isEmpty(), qPrintable(FindingsModel::problemsText(d)));
        d.eval.not_run = {"ncu-low-occupancy", "roofline-far-from-roof"};
        QString text = FindingsModel::problemsText(d);
        QVERIFY2(text.contains(QStringLiteral("could not run")), qPrintable(text));
        QVERIFY2(text.startsWith(QStringLiteral("2 ")), qPrintable(text));   // two rules, not three scopes
        // most often missing first
        QVERIFY2(text.contains(QStringLiteral("missing e_roof, achieved_occupancy")), qPrintable(text));
        d.rule_errors.push_back({"/tmp/bad.json", "", "expected '{'"});
        text = FindingsModel::problemsText(d);
        QVERIFY(text.contains(QStringLiteral("could not be loaded")));
        QVERIFY(text.contains(QStringLiteral("/tmp/bad.json: expected '{'")));
    }

    void realTrace()
    {
        const QByteArray dir = qgetenv("SIGHTLINE_SHARED_DATA");
        QStringList candidates{QStringLiteral("/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz"),
                               QStringLiteral("/nsys/dlprof_pytorch_wrelu_nsys_profile.sqlite")};
        int ran = 0;
        for (const QString& rel : candidates) {
            const QString path = QString::fromLocal8Bit(dir) + rel;
            if (dir.isEmpty() || !QFile::exists(path))
                continue;
            auto r = std::make_shared<const PipelineResult>(run_pipeline({path.toStdString()}, shippedRules()));
            QVERIFY(r->diagnosis.eval.rules_evaluated > 0);
            qInfo("%s: %zu findings, %zu rules short of data", qPrintable(rel), r->diagnosis.eval.findings.size(),
                  r->diagnosis.eval.missing.size());
            FindingsModel m;
            QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
            m.setDiagnosis(diagnosisOf(r), r->trace);
            checkTree(m, *r);
            if (QTest::currentTestFailed())
                return;
            FindingsFilterModel p;
            p.setSourceModel(&m);
            QAbstractItemModelTester proxyTester(&p, QAbstractItemModelTester::FailureReportingMode::QtTest);
            p.setMinimumSeverity(Severity::Medium);
            p.setSearchText(QStringLiteral("kernel"));
            ++ran;
        }
        if (ran == 0)
            QSKIP("no real trace in SIGHTLINE_SHARED_DATA");
    }
};

QTEST_MAIN(TestFindingsModel)
#include "tst_findings_model.moc"

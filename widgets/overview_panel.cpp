#include "widgets/overview_panel.h"

#include "analysis/critpath/steady_path.h"

#include <QCursor>
#include <QLabel>
#include <QToolTip>
#include <QLocale>
#include <QScrollBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "analysis/timeline/gpu_vendor.h"
#include "model/findings_model.h"
#include "model/timeline_index.h"
#include "model/units.h"
#include "model/workbench_settings.h"
#include "widgets/palette.h"
#include "widgets/timeline_view.h"
#include "widgets/trace_header.h"

namespace sl {

OverviewPanel::OverviewPanel(QWidget* parent) : QScrollArea(parent)
{
    auto* content = new QWidget(this);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    headlineLabel_ = new QLabel(content);
    headlineLabel_->setObjectName(QStringLiteral("headline"));
    headlineLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    headlineLabel_->setMargin(8);
    headlineLabel_->setWordWrap(true);
    headlineLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    headlineLabel_->setMinimumWidth(1);
    headlineLabel_->hide();
    layout->addWidget(headlineLabel_);
    label_ = new QLabel(content);
    label_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    label_->setMargin(8);
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Its numbers reflow to the dock's width (names wrap, values do not) instead of widening the pane past it.
    label_->setMinimumWidth(1);
    findingsLabel_ = new QLabel(content);
    findingsLabel_->setObjectName(QStringLiteral("topFindings"));
    findingsLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    findingsLabel_->setMargin(8);
    findingsLabel_->setWordWrap(true);
    findingsLabel_->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    findingsLabel_->hide();
    connect(findingsLabel_, &QLabel::linkActivated, this, [this](const QString& link) {
        static const QLatin1String prefix("finding:");
        bool ok = false;
        const int row = link.startsWith(prefix) ? link.mid(prefix.size()).toInt(&ok) : -1;
        if (ok && diagnosis_ && row >= 0 && size_t(row) < diagnosis_->eval.findings.size())
            emit findingActivated(row);
    });
    // no minimum width from the longest word of a title: the pane fits its dock without a horizontal scroll bar
    findingsLabel_->setMinimumWidth(1);
    connect(findingsLabel_, &QLabel::linkHovered, this, [this](const QString& link) {
        static const QLatin1String prefix("finding:");
        bool ok = false;
        const int row = link.startsWith(prefix) ? link.mid(prefix.size()).toInt(&ok) : -1;
        if (ok && diagnosis_ && row >= 0 && size_t(row) < diagnosis_->eval.findings.size())
            QToolTip::showText(QCursor::pos(), QString::fromStdString(diagnosis_->eval.findings[size_t(row)].title.get(lang_)),
                               findingsLabel_);
        else
            QToolTip::hideText();
    });
    layout->addWidget(findingsLabel_);
    criticalPathLabel_ = new QLabel(content);
    criticalPathLabel_->setObjectName(QStringLiteral("criticalPath"));
    criticalPathLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    criticalPathLabel_->setMargin(8);
    criticalPathLabel_->setWordWrap(true);
    criticalPathLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    criticalPathLabel_->setMinimumWidth(1);
    criticalPathLabel_->hide();
    layout->addWidget(criticalPathLabel_);
    layout->addWidget(label_);   // the numbers after what to do about them
    seenBeforeLabel_ = new QLabel(content);
    seenBeforeLabel_->setObjectName(QStringLiteral("seenBefore"));
    seenBeforeLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    seenBeforeLabel_->setMargin(8);
    seenBeforeLabel_->setWordWrap(true);
    seenBeforeLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    seenBeforeLabel_->setMinimumWidth(1);
    seenBeforeLabel_->hide();
    layout->addWidget(seenBeforeLabel_);
    layout->addStretch(1);
    setWidget(content);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    // The text reflows to the pane's width: never a horizontal scroll bar (nor text cut off at the right).
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    lang_ = WorkbenchSettings::load().langCode();
    setData(nullptr, nullptr);
}

QString OverviewPanel::text() const { return label_->text(); }

int OverviewPanel::firstViewHeight(int width) const
{
    // The headline and the top findings, as they wrap at `width` (the pane's width less its scroll bar).
    int h = 0;
    for (const QLabel* l : {headlineLabel_, findingsLabel_})
        if (!l->isHidden())
            h += l->heightForWidth(width);
    return h;
}

bool OverviewPanel::headlineVisible() const
{
    return !headlineLabel_->isHidden() &&
           headlineLabel_->geometry().bottom() - verticalScrollBar()->value() <= viewport()->height();
}

QString OverviewPanel::findingsText() const { return findingsLabel_->text(); }

QString OverviewPanel::headlineText() const { return headlineLabel_->text(); }

void OverviewPanel::setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis)
{
    diagnosis_ = std::move(diagnosis);
    updateHeadline();
    updateFindings();
}

void OverviewPanel::setLanguage(const QString& lang)
{
    lang_ = lang.startsWith(QLatin1String("zh")) ? "zh_CN" : "en";
    updateHeadline();
    updateFindings();
}

QString OverviewPanel::boundLabel(const std::string& bound, const std::string& verdict)
{
    // Plain words for Headline::bound (the JSON's "bound" / "verdict" tokens are for scripts).
    if (bound == "host")
        return tr("Limited by the CPU: the GPU waits for kernel launches");
    if (bound == "sync")
        return tr("Limited by synchronisation: the GPU waits while the CPU blocks");
    if (bound == "communication")
        return tr("Limited by communication between GPUs");
    if (bound == "dependency")
        return tr("Limited by dependencies: queued work waits on events of other streams");
    if (bound == "balanced")
        return tr("Balanced: no single cause limits the run");
    if (bound == "gpu-memory")
        return tr("Limited by GPU memory bandwidth");
    if (bound == "gpu-compute")
        return tr("Limited by GPU compute throughput");
    if (verdict == "idle-gaps")
        return tr("The GPU idles for reasons the trace does not show");
    return tr("Not enough in the trace to say what limits the run");
}

void OverviewPanel::updateHeadline()
{
    QString h;
    // The verdict first: what bounds the run, in one statement, and the three things to do with their bounded gains.
    if (diagnosis_ && (diagnosis_->headline.wall_ns > 0 || diagnosis_->eval.rules_evaluated > 0)) {
        const Headline& hl = diagnosis_->headline;
        h += QStringLiteral("<h3 style=\"margin-bottom:2px\">%1</h3>")
                 .arg(boundLabel(hl.bound, hl.verdict).toHtmlEscaped());
        h += QStringLiteral("<p style=\"margin-top:2px; margin-bottom:4px\">%1</p>")
                 .arg(QString::fromStdString(hl.statement.get(lang_)).toHtmlEscaped());
        if (!hl.actions.empty()) {
            h += QStringLiteral("<p style=\"margin-top:4px; margin-bottom:0\"><b>%1</b></p><ol style=\"margin-top:0; "
                                "margin-bottom:4px; -qt-list-indent:1\">")
                     .arg(tr("What to do first").toHtmlEscaped());
            for (const HeadlineAction& a : hl.actions) {
                QString what = QString::fromStdString(a.text.get(lang_));
                if (a.subject != "trace" && !a.subject.empty())
                    what += QStringLiteral(" [%1]").arg(QString::fromStdString(   // as the report writes it
                        a.subject_text.en.empty() ? a.subject : a.subject_text.get(lang_)));
                const QString gain = tr("up to %1 of wall time (%2)")
                                         .arg(formatPercent(a.gain_fraction), formatDuration(std::llround(a.gain_ns)));
                // (what the gain removes is in the Findings pane and the report: here it restated the subject)
                h += QStringLiteral("<li>%1 — <b>%2</b></li>").arg(what.toHtmlEscaped(), gain.toHtmlEscaped());
            }
            h += QStringLiteral("</ol>");
        }   // (no actions: the statement already says that no finding promises a measurable gain)
    }
    if (analysis_) {
        const WorkloadResult& w = analysis_->workload;
        const QString runtime = QLatin1String(gpu_runtime_name(w.vendor));   // "HIP graphs" on AMD
        const QString kind = w.kind == WorkloadKind::Inference ? tr("inference")
                             : w.kind == WorkloadKind::Training ? tr("training")
                                                                : tr("unknown kind");
        const QString exec = w.execution == ExecutionMode::Eager        ? tr("eager")
                             : w.execution == ExecutionMode::CudaGraphs ? tr("%1 graphs").arg(runtime)
                             : w.execution == ExecutionMode::Mixed      ? tr("eager and %1 graphs").arg(runtime)
                                                                        : tr("no kernels");
        QString workload = kind + QStringLiteral(" · ") + exec;
        if (!w.framework.empty())
            workload += QStringLiteral(" · ") + QString::fromStdString(w.framework);
        h += QStringLiteral("<p style=\"margin-top:4px; margin-bottom:2px\">%1 <b>%2</b></p>")
                 .arg(tr("Workload:").toHtmlEscaped(), workload.toHtmlEscaped());
        const QStringList warnings = TraceHeader::warningItems(*analysis_, trace_ ? timeOrigin(*trace_) : 0);
        for (const QString& item : warnings)
            h += QStringLiteral("<p style=\"margin-top:2px; margin-bottom:2px; color:#d97706\">⚠ %1</p>").arg(item);
    }
    headlineLabel_->setText(h);
    headlineLabel_->setVisible(!h.isEmpty());
}

QList<int> OverviewPanel::topFindingRows() const
{
    QList<int> rows;
    if (diagnosis_)
        for (int i = 0; i < int(diagnosis_->eval.findings.size()) && i < kTopFindings; ++i)
            rows << i;
    return rows;
}

void OverviewPanel::updateFindings()
{
    if (!diagnosis_) {
        findingsLabel_->clear();
        findingsLabel_->hide();
        return;
    }
    const std::vector<Finding>& all = diagnosis_->eval.findings;
    QString h = QStringLiteral("<h3>%1</h3>").arg(tr("Top findings"));
    if (all.empty()) {
        h += QStringLiteral("<p><i>%1</i></p>").arg(tr("No rule fired on this trace."));
    } else {
        // One paragraph per finding, the expected gain first: titles quote kernel names (C++ signatures with tokens
        // of 300 px and more), which in a table column widened the pane past a side dock and pushed the gain out of
        // view; a token too long for the dock is clipped at its end instead (the link's tooltip names it in full).
        for (int row : topFindingRows()) {
            const Finding& f = all[size_t(row)];
            const ExpectedGain& g = f.expected_gain;
            const QString gain = g.computed ? formatPercent(g.fraction)
                                            : QStringLiteral("%1–%2").arg(formatPercent(g.low), formatPercent(g.high));
            h += QStringLiteral("<p style=\"margin-top:2px; margin-bottom:4px\"><span style=\"color:%1\">●</span>&nbsp;"
                                "<span style=\"white-space:nowrap\"><b>%4</b></span>&nbsp; "
                                "<a href=\"finding:%2\" style=\"text-decoration:none\">%3</a></p>")
                     .arg(FindingsModel::severityColor(f.severity).name())
                     .arg(row)
                     .arg(QString::fromStdString(f.title.get(lang_)).toHtmlEscaped(), gain.toHtmlEscaped());
        }
        if (all.size() > size_t(kTopFindings))
            h += QStringLiteral("<p><i>%1</i></p>")
                     .arg(tr("%n more in the Findings pane", nullptr, int(all.size()) - kTopFindings));
    }
    findingsLabel_->setText(h);
    findingsLabel_->show();
}

void OverviewPanel::setData(std::shared_ptr<const Summary> summary, std::shared_ptr<const AnalysisResult> analysis,
                            std::shared_ptr<const Trace> trace)
{
    analysis_ = analysis;
    trace_ = std::move(trace);
    updateHeadline();
    if (!summary) {
        label_->setText(tr("Open a trace to see its overview."));
        return;
    }
    QString h;
    auto row = [&h](const QString& k, const QString& v) {
        // The name wraps (a narrow dock reflows the table), the value stays on one line.
        h += QStringLiteral("<tr><td>%1</td><td align=right style=\"white-space:nowrap\"><b>%2</b></td></tr>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
    };
    h += QStringLiteral("<h3>%1</h3><table cellspacing=3>").arg(tr("GPU time"));
    row(tr("Kernels"), QStringLiteral("%1 · %2").arg(QLocale().toString(qlonglong(summary->kernels.count)),
                                                      formatDuration(summary->kernels.total_ns)));
    for (const DeviceSummary& d : summary->devices) {
        if (d.kernels + d.memcpys + d.memsets == 0)
            continue;
        h += QStringLiteral("<tr><td colspan=2><b>%1</b></td></tr>")
                 .arg(QStringLiteral("GPU %1 %2").arg(d.id).arg(QString::fromStdString(d.name)).toHtmlEscaped());
        row(tr("GPU activity window"), formatDuration(d.window_ns));
        row(tr("Busy"), QStringLiteral("%1 (%2)").arg(formatDuration(d.busy_ns), formatPercent(d.utilization)));
        row(tr("Idle"), QStringLiteral("%1 · %2").arg(formatDuration(d.idle_ns),
                                                       tr("%n gap(s)", nullptr, int(d.gaps.count))));
    }
    h += QStringLiteral("</table>");
    if (analysis) {
        IdleBreakdown total;
        for (const DeviceIdle& d : analysis->idle.devices)
            for (size_t i = 0; i < kGapCauses; ++i) {
                total.ns[i] += d.breakdown.ns[i];
                total.count[i] += d.breakdown.count[i];
            }
        const int64_t idle = total.total_ns();
        h += QStringLiteral("<h3>%1</h3><table cellspacing=3>").arg(tr("Idle by cause"));
        for (GapCause c : {GapCause::HostWait, GapCause::KernelWait, GapCause::SyncWait, GapCause::DependencyWait,
                           GapCause::Other}) {
            const auto i = size_t(c);
            h += QStringLiteral("<tr><td><span style=\"color:%1\">■</span> %2</td><td align=right style=\"white-space:nowrap\"><b>%3</b></td>"
                                "<td align=right style=\"white-space:nowrap\">%4</td></tr>")
                     .arg(TimelineView::causeColor(c).name(), TimelineView::causeLabel(c).toHtmlEscaped(),
                          formatDuration(total.ns[i]), idle > 0 ? formatPercent(double(total.ns[i]) / double(idle)) : QString());
        }
        h += QStringLiteral("</table>");
        std::vector<const OpClassTotals*> classes;
        for (const OpClassTotals& c : analysis->classes.classes)
            if (c.time_ns > 0)
                classes.push_back(&c);
        std::sort(classes.begin(), classes.end(), [](auto* a, auto* b) { return a->time_ns > b->time_ns; });
        h += QStringLiteral("<h3>%1</h3><table cellspacing=3>").arg(tr("Top operator classes"));
        const double base = double(std::max<int64_t>(1, analysis->classes.kernel_time_ns));
        for (size_t i = 0; i < classes.size() && i < 8; ++i)
            h += QStringLiteral("<tr><td><span style=\"color:%1\">■</span> %2</td><td align=right style=\"white-space:nowrap\"><b>%3</b></td>"
                                "<td align=right style=\"white-space:nowrap\">%4</td></tr>")
                     .arg(colorForKey(QString::fromStdString(classes[i]->id)).name(),
                          opClassLabel(*classes[i]).toHtmlEscaped(), formatDuration(classes[i]->time_ns),
                          formatPercent(double(classes[i]->time_ns) / base));
        h += QStringLiteral("</table>");
    } else {
        h += QStringLiteral("<p><i>%1</i></p>").arg(tr("Analysing…"));
    }
    label_->setText(h);
}

// ---- Seen before on this environment (the knowledge base; kept apart from the other blocks) ----------------------

void OverviewPanel::setEnvironmentHistory(std::shared_ptr<const EnvironmentHistory> h)
{
    if (!h) {
        seenBeforeLabel_->clear();
        seenBeforeLabel_->hide();
        return;
    }
    QString html = QStringLiteral("<h3>%1</h3>").arg(tr("Seen before on this environment"));
    QString env = h->env.gpu.empty() ? tr("unknown GPU") : QString::fromStdString(h->env.gpu);
    if (!h->env.driver.empty())
        env += tr(", driver %1").arg(QString::fromStdString(h->env.driver));
    if (!h->env.cuda.empty())
        env += tr(", CUDA %1").arg(QString::fromStdString(h->env.cuda));
    html += QStringLiteral("<p>%1</p>").arg(env.toHtmlEscaped());
    if (h->empty()) {
        html += QStringLiteral("<p>%1</p>").arg(tr("Nothing yet: no run on a similar environment in the knowledge base."));
    } else {
        html += QStringLiteral("<p>%1</p>").arg(tr("%n earlier run(s) on a similar environment.", nullptr, int(h->runs.size())));
        if (h->verified.empty())
            html += QStringLiteral("<p>%1</p>").arg(tr("No A/B-verified suggestion is recorded there yet."));
        else {
            html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\"><tr><th align=\"left\">%1</th><th>%2</th>"
                                   "<th>%3</th><th>%4</th></tr>")
                        .arg(tr("Suggestion"), tr("Verdicts"), tr("Measured change"), tr("Confidence"));
            for (const auto& v : h->verified) {
                const bool judged = v.verified + v.failed > 0;
                html += QStringLiteral("<tr><td>%1</td><td align=\"right\">%2</td><td align=\"right\">%3</td>"
                                       "<td align=\"right\">%4</td></tr>")
                            .arg(QString::fromStdString(v.suggestion_key).toHtmlEscaped(),
                                 tr("%1 verified, %2 failed, %3 inconclusive").arg(v.verified).arg(v.failed).arg(v.inconclusive),
                                 judged ? tr("%1 % %2").arg(QString::asprintf("%+.1f", 100.0 * v.mean_delta),
                                                            QString::fromStdString(v.metric).toHtmlEscaped())
                                        : QStringLiteral("–"),
                                 QString::number(v.confidence, 'f', 2));
            }
            html += QStringLiteral("</table>");
        }
    }
    seenBeforeLabel_->setText(html);
    seenBeforeLabel_->show();
}

QString OverviewPanel::seenBeforeText() const
{
    return seenBeforeLabel_->isHidden() ? QString() : seenBeforeLabel_->text();
}

void OverviewPanel::setCriticalPath(std::shared_ptr<const critpath::CriticalPathSummary> path)
{
    criticalPath_ = std::move(path);
    const critpath::CriticalPathSummary* c = criticalPath_.get();
    if (!c || !c->computed || c->length_ns <= 0) {
        criticalPathLabel_->clear();
        criticalPathLabel_->hide();
        return;
    }
    // The steady steps' paths (their median length, their summed shares), else the whole trace's (as `analyze`'s
    // "What sets the step" line and the JSON's critical_path.steady_state).
    const critpath::SteadyPath p = critpath::steady_path(*c);
    const critpath::PathShares& sh = p.shares;
    const int64_t total = p.total_ns;
    const QString head = p.per_step ? tr("Critical path %1 per steady step (%n steps)", nullptr, int(p.steps))
                                          .arg(formatDuration(p.median_ns))
                                    : tr("Critical path %1 over the trace").arg(formatDuration(c->length_ns));
    std::vector<std::pair<int64_t, QString>> parts = {
        {sh.host_ns, tr("host work")},
        {sh.launch_ns, tr("launch delay")},
        {sh.gpu_kernel_ns - sh.communication_ns, tr("kernels")},
        {sh.communication_ns, tr("communication")},
        {sh.memcpy_memset_ns, tr("copies")},
        {sh.gpu_gap_ns, tr("GPU gaps")}};
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    QStringList shares;
    for (const auto& [ns, what] : parts)
        if (ns > 0 && total > 0)
            shares << QStringLiteral("%1 %2").arg(what, formatPercent(double(ns) / double(total)));
    QString html = QStringLiteral("<h3>%1</h3><p>%2: %3</p>")
                       .arg(tr("What sets the step"), head.toHtmlEscaped(), shares.join(QStringLiteral(", ")).toHtmlEscaped());
    if (!c->top.empty())
        html += QStringLiteral("<p>%1</p>")
                    .arg(tr("Most of it in %1 (%2 of the trace's path)")
                             .arg(QString::fromStdString(c->top.front().name),
                                  formatPercent(double(c->top.front().ns) / double(c->length_ns)))
                             .toHtmlEscaped());
    criticalPathLabel_->setText(html);
    criticalPathLabel_->show();
}

QString OverviewPanel::criticalPathText() const
{
    return criticalPathLabel_->isHidden() ? QString() : criticalPathLabel_->text();
}

} // namespace sl

#include "widgets/details_panel.h"

#include <QJsonArray>
#include <QJsonDocument>
#include "analysis/trace/kernel_ops.h"
#include "analysis/trace/kernel_short_name.h"

#include <QTextBrowser>
#include <QToolTip>
#include <QCursor>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/io/ncu_metrics.h"
#include "analysis/roofline/roofline.h"
#include "model/document.h"
#include "model/finding_links.h"
#include "model/kernel_verdict_text.h"
#include "model/kernel_origin.h"
#include "model/findings_model.h"
#include "model/workbench_settings.h"
#include "model/selection.h"
#include "model/units.h"
#include "widgets/palette.h"
#include "widgets/timeline_view.h"

namespace sl {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// Long C++ names have no spaces to wrap at: allow breaks after separators (zero-width spaces).
QString breakable(const QString& escaped)
{
    QString out;
    out.reserve(escaped.size() + escaped.size() / 8);
    for (qsizetype i = 0; i < escaped.size(); ++i) {
        out += escaped[i];
        const QChar c = escaped[i];
        if (c == QLatin1Char(',') || c == QLatin1Char('(') || c == QLatin1Char('_') ||
            (c == QLatin1Char(':') && i + 1 < escaped.size() && escaped[i + 1] != QLatin1Char(':')) ||
            (c == QLatin1Char(';') && i > 2 && escaped.mid(i - 3, 4) == QLatin1String("&lt;")))
            out += QChar(0x200B);
    }
    return out;
}

// 1.23 T / 456 G / ... with a unit.
QString si(double v, const QString& unit)
{
    static const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int p = 0;
    double a = std::fabs(v);
    while (a >= 1000 && p < 5) {
        a /= 1000;
        v /= 1000;
        ++p;
    }
    return QStringLiteral("%1 %2%3").arg(QLocale().toString(v, 'f', a < 10 ? 2 : a < 100 ? 1 : 0),
                                         QLatin1String(prefixes[p]), unit);
}

QString pct(double v) { return QStringLiteral("%1 %").arg(QLocale().toString(v, 'f', 1)); }

// The language the interface runs in (sightline --language or the saved one), not the system's locale.
std::string uiLang() { return interfaceLanguage().startsWith(QLatin1String("zh")) ? "zh_CN" : "en"; }

class Html {
public:
    void section(const QString& title)
    {
        closeTable();
        h += QStringLiteral("<h4 style=\"margin-top:10px; margin-bottom:2px\">%1</h4>").arg(title.toHtmlEscaped());
    }
    void row(const QString& label, const QString& valueHtml)
    {
        if (!inTable) {
            h += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"2\">");
            inTable = true;
        }
        h += QStringLiteral("<tr><td style=\"white-space:nowrap; padding-right:8px\">%1</td><td><b>%2</b></td></tr>")
                 .arg(label.toHtmlEscaped(), valueHtml);
    }
    void text(const QString& rowText) { row(rowText, QString()); }
    void rowPlain(const QString& label, const QString& value) { row(label, breakable(value.toHtmlEscaped())); }
    void para(const QString& html)
    {
        closeTable();
        h += QStringLiteral("<p style=\"margin-top:2px; margin-bottom:2px\">%1</p>").arg(html);
    }
    void raw(const QString& html)
    {
        closeTable();
        h += html;
    }
    QString done()
    {
        closeTable();
        return h;
    }

private:
    void closeTable()
    {
        if (inTable)
            h += QStringLiteral("</table>");
        inTable = false;
    }
    QString h;
    bool inTable = false;
};

} // namespace

DetailsPanel::DetailsPanel(QWidget* parent) : QScrollArea(parent)
{
    view_ = new QTextBrowser(this);
    view_->setOpenLinks(false);
    view_->setOpenExternalLinks(false);
    view_->setFrameShape(QFrame::NoFrame);
    view_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    view_->setWordWrapMode(QTextOption::WordWrap);   // between words and at the break hints, never inside a name
    view_->document()->setDocumentMargin(8);
    view_->viewport()->setAutoFillBackground(false);   // the pane's background, as the label had
    connect(view_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) { activateLink(url.toString()); });
    // Kernel links speak short names: hovering one shows the whole name.
    connect(view_, qOverload<const QUrl&>(&QTextBrowser::highlighted), this, [this](const QUrl& url) {
        const QString tip = linkToolTip(url.toString());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(QCursor::pos(), tip, view_);
    });
    setWidget(view_);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    refresh();
}

void DetailsPanel::activateLink(const QString& link)
{
    if (link == QLatin1String("toggle:name")) {
        fullNameExpanded_ = !fullNameExpanded_;
        refresh();
        return;
    }
    if (link.startsWith(QLatin1String("gap:"))) {
        bool ok = false;
        const qlonglong g = link.mid(4).toLongLong(&ok);
        if (ok && selection_)
            selection_->setGap(g);
        else if (ok)
            showGap(g);
        return;
    }
    if (link.startsWith(QLatin1String("range:"))) {
        bool ok = false;
        const qlonglong r = link.mid(6).toLongLong(&ok);
        if (ok && selection_)
            selection_->setHostRange(r);
        else if (ok)
            showHostRange(r);
        return;
    }
    if (!link.startsWith(QLatin1String("kernel:")))
        return;
    bool ok = false;
    const qlonglong k = link.mid(7).toLongLong(&ok);
    if (!ok)
        return;
    if (selection_)
        selection_->setKernel(k);
    emit kernelLinkActivated(k);
}

// Without the zero-width break hints, so callers can search for names.
QString DetailsPanel::text() const { return QString(html_).remove(QChar(0x200B)); }

void DetailsPanel::setDocument(Document* d)
{
    if (!d)
        return;
    connect(d, &Document::traceChanged, this, [this, d] { setTrace(d->trace()); });
    connect(d, &Document::cleared, this, [this] { setTrace(nullptr); });
    connect(d, &Document::timelineChanged, this, [this, d] { setTimeline(d->timeline()); });
    connect(d, &Document::analysisChanged, this, [this, d] { setAnalysis(d->analysis()); });
    connect(d, &Document::rooflineChanged, this, [this, d] { setRoofline(d->roofline()); });
    connect(d, &Document::diagnosisChanged, this, [this, d] { setDiagnosis(d->diagnosis()); });
    connect(d, &Document::shapesChanged, this, [this, d] { setShapes(d->shapes()); });
    setTrace(d->trace());
    setTimeline(d->timeline());
    setAnalysis(d->analysis());
    setRoofline(d->roofline());
    setDiagnosis(d->diagnosis());
    setShapes(d->shapes());
}

void DetailsPanel::setSelection(Selection* s)
{
    selection_ = s;
    if (!s)
        return;
    connect(s, &Selection::kernelChanged, this, &DetailsPanel::showKernel);
    connect(s, &Selection::gapChanged, this, &DetailsPanel::showGap);
    connect(s, &Selection::hostRangeChanged, this, &DetailsPanel::showHostRange);
}

void DetailsPanel::setTrace(std::shared_ptr<const Trace> trace)
{
    if (trace != trace_) {
        analysis_.reset();
        index_.reset();
        roofline_.reset();
        diagnosis_.reset();
        shapes_.reset();
        ncuJoined_ = false;
        ncuToKernel_.clear();
        kernelOps_.reset();
    }
    trace_ = std::move(trace);
    kernel_ = -1;
    gap_ = -1;
    hostRange_ = -1;
    showingGap_ = false;
    showingRange_ = false;
    refresh();
}

void DetailsPanel::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    analysis_ = std::move(analysis);
    refresh();
}

void DetailsPanel::setTimeline(std::shared_ptr<const TimelineIndex> index)
{
    index_ = index && trace_ && &index->trace() == trace_.get() ? std::move(index) : nullptr;
    refresh();
}

void DetailsPanel::setRoofline(std::shared_ptr<const RooflineOutput> roofline)
{
    roofline_ = std::move(roofline);
    ncuJoined_ = false;
    ncuToKernel_.clear();
    refresh();
}

void DetailsPanel::setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis)
{
    diagnosis_ = std::move(diagnosis);
    refresh();
}

void DetailsPanel::setShapes(std::shared_ptr<const ShapeRooflineResult> shapes)
{
    shapes_ = std::move(shapes);
    refresh();
}

void DetailsPanel::showKernel(int64_t kernel)
{
    if (kernel != kernel_)
        fullNameExpanded_ = false;
    kernel_ = kernel;
    if (kernel >= 0) {
        showingGap_ = false;
        showingRange_ = false;
    }
    refresh();
}

void DetailsPanel::showGap(int64_t gap)
{
    gap_ = gap;
    if (gap >= 0) {
        showingGap_ = true;
        showingRange_ = false;
    }
    refresh();
}

void DetailsPanel::showHostRange(int64_t range)
{
    hostRange_ = range;
    showingRange_ = range >= 0;
    if (range >= 0)
        showingGap_ = false;
    refresh();
}

void DetailsPanel::refresh()
{
    QString html;
    if (trace_ && showingRange_ && hostRange_ >= 0 && size_t(hostRange_) < trace_->ranges.size())
        html = hostRangeHtml(size_t(hostRange_));
    else if (trace_ && showingGap_ && analysis_ && gap_ >= 0 && size_t(gap_) < analysis_->idle.gaps.size())
        html = gapHtml(size_t(gap_));
    else if (trace_ && kernel_ >= 0 && size_t(kernel_) < trace_->kernels.size())
        html = kernelHtml(size_t(kernel_));
    else
        html = tr("Click a kernel or an idle gap in the timeline to see its details.");
    if (html == html_)
        return;
    html_ = html;
    view_->setHtml(html);
}

int64_t DetailsPanel::origin() const
{
    // The timeline's origin (model/timeline_index.h): times here read as on the axis.
    return index_ ? index_->origin() : trace_ ? timeOrigin(*trace_) : 0;
}

QString DetailsPanel::kernelLink(int64_t kernel) const
{
    if (!trace_ || kernel < 0 || size_t(kernel) >= trace_->kernels.size())
        return QString();
    // the short name as Nsight Systems writes it; the whole name in the link's tooltip (linkToolTip)
    const QString name = qs(shorten_kernel_name(trace_->str(trace_->kernels.name[size_t(kernel)]))).toHtmlEscaped();
    return QStringLiteral("<a href=\"kernel:%1\">%2</a>").arg(kernel).arg(breakable(name));
}

QString DetailsPanel::linkToolTip(const QString& link) const
{
    if (!trace_ || !link.startsWith(QLatin1String("kernel:")))
        return {};
    bool ok = false;
    const qint64 k = link.mid(7).toLongLong(&ok);
    if (!ok || k < 0 || size_t(k) >= trace_->kernels.size())
        return {};
    // plain text, wrapped by the tooltip: up to 2,000 characters of the name
    return qs(trace_->str(trace_->kernels.name[size_t(k)])).left(2000);
}

const std::vector<int64_t>& DetailsPanel::ncuToKernel() const
{
    if (!ncuJoined_) {
        ncuJoined_ = true;
        ncuToKernel_.clear();
        if (roofline_ && roofline_->ncu && trace_)
            ncuToKernel_ = join_ncu_to_trace(*roofline_->ncu, *trace_);
    }
    return ncuToKernel_;
}

QString DetailsPanel::kernelHtml(size_t i) const
{
    const Trace& t = *trace_;
    const auto& k = t.kernels;
    const QString fullName = qs(t.str(k.name[i]));
    // Heading: the short name as Nsight Systems shortens it (no return type, scope, template arguments or
    // parameters: "vectorized_elementwise_kernel"); the full name one click away, folded by default (CUTLASS-style
    // names run to thousands of characters).
    const QString shortName = qs(shorten_kernel_name(t.str(k.name[i])));
    Html h;
    h.raw(QStringLiteral("<h3 style=\"margin-bottom:2px\">%1</h3>").arg(breakable(shortName.toHtmlEscaped())));
    if (fullName != shortName) {
        const QString toggle = fullNameExpanded_ ? tr("hide the full name")
                                                 : tr("full name (%n character(s))", nullptr, int(fullName.size()));
        QString shown = QStringLiteral("<a href=\"toggle:name\">%1</a>").arg(toggle.toHtmlEscaped());
        if (fullNameExpanded_)
            shown = breakable(fullName.toHtmlEscaped()) + QStringLiteral(" ") + shown;
        h.para(QStringLiteral("<span style=\"font-size:small\">%1</span>").arg(shown));
    }

    h.raw(verdictHtml(i));

    const std::string cls = classOfKernel(analysis_.get(), int64_t(i));
    if (analysis_ && !cls.empty()) {
        const int c = analysis_->classes.kernel_class[i];
        h.rowPlain(tr("Operator class"), opClassLabel(analysis_->classes.classes[size_t(c)]));
    }
    const int64_t dur = k.end[i] - k.start[i];
    h.rowPlain(tr("Duration"), formatDuration(dur));
    h.rowPlain(tr("Start"), formatStart(k.start[i] - origin(), dur));
    {
        const TraceMeta& m = t.meta;
        const int dev = k.device[i] < m.devices.size() ? m.devices[k.device[i]].id : int(k.device[i]);
        h.rowPlain(tr("Device · stream"), tr("GPU %1 · stream %2").arg(dev).arg(k.stream[i]));
    }
    // Where it came from on the host (the way back to the model code): first, after what it is.
    h.raw(originHtml(i));

    // Distribution over every instance of the name, from the worker-built lookup.
    h.section(tr("All instances of this name"));
    {
        NameDistribution d;
        double percentile = 1.0;
        int64_t longest = -1;
        if (const KernelLookup* lk = index_ ? index_->kernelLookup() : nullptr) {
            d = lk->distribution(k.name[i]);
            percentile = lk->percentileOf(int64_t(i));
            longest = lk->longestInstance(k.name[i]);
        } else {
            // No timeline index, or a coarse one (no lookup until it is complete): one scan, as a fallback.
            std::vector<std::pair<int64_t, int64_t>> same;   // (duration, -row)
            for (size_t j = 0; j < k.size(); ++j)
                if (k.name[j] == k.name[i])
                    same.emplace_back(k.end[j] - k.start[j], -int64_t(j));
            std::sort(same.begin(), same.end());
            d.count = int64_t(same.size());
            for (const auto& s : same)
                d.total += s.first;
            d.min = same.front().first;
            d.max = same.back().first;
            d.median = same[KernelLookup::quantileIndex(same.size(), 0.5)].first;
            d.p90 = same[KernelLookup::quantileIndex(same.size(), 0.9)].first;
            longest = -same.back().second;
            const auto below = std::lower_bound(same.begin(), same.end(), std::make_pair(dur, INT64_MIN)) - same.begin();
            percentile = same.size() > 1 ? double(below) / double(same.size() - 1) : 1.0;
        }
        h.rowPlain(tr("Instances"), tr("%1 · total %2").arg(QLocale().toString(qlonglong(d.count)), formatDuration(d.total)));
        h.rowPlain(tr("This instance"), tr("percentile %1").arg(formatPercent(percentile)));
        h.rowPlain(tr("Min · median"), QStringLiteral("%1 · %2").arg(formatDuration(d.min), formatDuration(d.median)));
        h.rowPlain(tr("p90 · max"), QStringLiteral("%1 · %2").arg(formatDuration(d.p90), formatDuration(d.max)));
        if (longest >= 0 && size_t(longest) != i)
            h.row(tr("Longest"), QStringLiteral("<a href=\"kernel:%1\">%2</a>").arg(longest).arg(tr("show")));
    }

    h.section(tr("Launch configuration"));
    const LaunchShape& sh = k.launch_shape(i);
    if (sh.grid_x > 0 && sh.block_x > 0) {
        h.rowPlain(tr("Grid"), QStringLiteral("%1 × %2 × %3").arg(sh.grid_x).arg(sh.grid_y).arg(sh.grid_z));
        h.rowPlain(tr("Block"), QStringLiteral("%1 × %2 × %3").arg(sh.block_x).arg(sh.block_y).arg(sh.block_z));
    } else {
        h.rowPlain(tr("Grid · block"), tr("not recorded in the trace"));
    }
    if (sh.registers_per_thread)
        h.rowPlain(tr("Registers per thread"), QString::number(sh.registers_per_thread));
    if (sh.shared_memory)
        h.rowPlain(tr("Shared memory"), formatBytes(sh.shared_memory));
    if (i < k.est_occupancy_pct.size() && k.est_occupancy_pct[i] > 0)
        h.rowPlain(tr("Estimated occupancy"), pct(double(k.est_occupancy_pct[i])));

    const int32_t api = k.launch_api[i];
    if (api >= 0 && size_t(api) < t.api.size()) {
        const size_t a = size_t(api);
        h.section(tr("Launch"));
        h.rowPlain(tr("Launched by"), qs(t.str(t.api.name[a])));
        h.rowPlain(tr("Call duration"), formatDuration(t.api.end[a] - t.api.start[a]));
        const int64_t queued = k.start[i] - t.api.end[a];
        // A kernel may start before its launch call has returned (an idle GPU picks it up at once): no queue then.
        h.rowPlain(tr("Queue delay"), queued >= 0 ? formatDuration(queued)
                                                  : tr("none: started %1 before the call returned").arg(formatDuration(-queued)));
        const uint32_t th = t.api.thread[a];
        if (th < t.meta.threads.size()) {
            const ThreadInfo& ti = t.meta.threads[th];
            h.rowPlain(tr("Thread"), ti.name.empty() ? QString::number(ti.tid) : QStringLiteral("%1 (%2)").arg(qs(ti.name)).arg(ti.tid));
        }
    }

    // The CPU op that launched it (analysis/trace/kernel_ops.h): its own for an eager kernel, its captured twin's for
    // a kernel replayed from a CUDA/HIP graph.
    {
        if (!kernelOps_)
            kernelOps_ = std::make_shared<const KernelOps>(t);
        const KernelOp op = kernelOps_->op(i);
        if (op.replayed || !op.name.empty() || !op.chain.empty()) {
            h.section(tr("Operator"));
            if (!op.name.empty())
                h.row(tr("CPU op"), breakable(qs(op.name).toHtmlEscaped()) +
                                        (op.from_capture ? tr(" (from the graph's capture trace)") : QString()));
            else if (op.replayed)
                h.rowPlain(tr("CPU op"), tr("unknown: replayed from a CUDA/HIP graph, whose launch carries no CPU op; "
                                            "give the trace of the graph's capture (--capture-trace)"));
            if (!op.input_dims.empty())
                h.row(tr("Input shapes"), breakable(qs(op.input_dims).toHtmlEscaped()));
            if (!op.input_types.empty())
                h.row(tr("Input types"), breakable(qs(op.input_types).toHtmlEscaped()));
            if (!op.chain.empty())
                h.row(tr("Operator chain"), breakable(QString::fromStdString(op.chain).toHtmlEscaped())
                                                .replace(QStringLiteral(" &gt; "), QStringLiteral(" › ")));
            if (!op.module.empty())
                h.row(tr("Module"), breakable(QString::fromStdString(op.module).toHtmlEscaped())
                                        .replace(QStringLiteral(" &gt; "), QStringLiteral(" › ")));
        }
    }

    if (analysis_) {
        const int64_t s = stepAt(*analysis_, k.start[i]);
        if (s >= 0) {
            // Numbered like the trace's own step ranges ("decode_step 14" is decode step 14), see stepLabel().
            const StepLabel l = stepLabel(*analysis_, t, s);
            QString phase = l.phase == "prefill" ? tr("prefill pass %1 of %2–%3").arg(l.number).arg(l.first).arg(l.last)
                            : l.phase == "mixed" ? tr("mixed step %1 of %2–%3").arg(l.number).arg(l.first).arg(l.last)
                                                 : tr("decode step %1 of %2–%3").arg(l.number).arg(l.first).arg(l.last);
            if (l.warmup)
                phase += tr(" (warm-up)");
            h.rowPlain(tr("Phase"), phase);
            if (!l.range.empty())
                h.rowPlain(tr("Step range"), qs(l.range));
            h.rowPlain(tr("Step time"), formatDuration(analysis_->phases.steps[size_t(s)].wall_ns));
        }
    }

    // The idle gap this kernel closed, if any: a link to its diagnosis.
    if (analysis_) {
        // Device gaps are in (device, time) order and do not overlap, so the one this kernel's start closes is found
        // by a binary search on (device, end).
        const auto& gaps = analysis_->idle.gaps;
        const auto it = std::lower_bound(gaps.begin(), gaps.end(), std::make_pair(k.device[i], k.start[i]),
                                         [](const Gap& g, const std::pair<uint16_t, int64_t>& key) {
                                             return g.device != key.first ? g.device < key.first : g.end < key.second;
                                         });
        const size_t first = size_t(it - gaps.begin());
        for (size_t g = first; g < gaps.size() && gaps[g].device == k.device[i] && gaps[g].end == k.start[i]; ++g)
            if (gaps[g].next_kind == OpKind::Kernel && gaps[g].next_row == int32_t(i)) {
                h.row(tr("Idle before it"), QStringLiteral("<a href=\"gap:%1\">%2</a>")
                                                .arg(g)
                                                .arg(tr("%1, %2").arg(formatDuration(gaps[g].duration()),
                                                                      TimelineView::causeLabel(gaps[g].cause))
                                                         .toHtmlEscaped()));
                break;
            }
    }

    h.raw(rooflineHtml(i));
    h.raw(ncuHtml(i));

    if (diagnosis_) {
        const auto idx = findingsForKernel(*diagnosis_, t, analysis_.get(), int64_t(i));
        h.section(tr("Findings (%1)").arg(idx.size()));
        h.raw(findingsHtml(idx));
    }
    return h.done();
}

QString DetailsPanel::verdictHtml(size_t i) const
{
    const KernelVerdict v = VerdictText::forKernel(*trace_, analysis_.get(), roofline_.get(), shapes_.get(), int64_t(i),
                                                   ncuToKernel());
    const ViewColors vc = viewColors(palette());
    return QStringLiteral("<p style=\"margin-top:4px; margin-bottom:6px\"><span style=\"color:%1\">■</span>&nbsp;<b>%2</b> "
                          "%3</p>")
        .arg((v.kind == VerdictKind::Unknown ? vc.text : vc.focus).name(),
             tr("Verdict:").toHtmlEscaped(), breakable(VerdictText::line(v, analysis_ ? &analysis_->classes : nullptr).toHtmlEscaped()));
}

QString DetailsPanel::rooflineHtml(size_t i) const
{
    Html h;
    h.section(tr("Roofline"));
    if (!roofline_ || !roofline_->report) {
        // The measured shape point of this kernel, when the trace recorded shapes: no model config needed.
        if (shapes_)
            for (const ShapePoint& p : shapes_->points)
                if (std::find(p.kernel_rows.begin(), p.kernel_rows.end(), uint32_t(i)) != p.kernel_rows.end()) {
                    h.rowPlain(tr("Operator · shape"), QStringLiteral("%1 · %2").arg(qs(p.op), qs(p.shape)));
                    h.rowPlain(tr("Intensity"), tr("%1 FLOP/B").arg(QLocale().toString(p.intensity, 'g', 3)));
                    h.rowPlain(tr("Achieved"), si(p.tflops * 1e12, QStringLiteral("FLOP/s")));
                    if (p.pct_of_roof)
                        h.rowPlain(tr("Of the %1 roof").arg(qs(p.dtype).toUpper()), pct(*p.pct_of_roof));
                    return h.done();
                }
        h.para(QStringLiteral("<i>%1</i>").arg(
            tr("The model's Roofline needs its config.json (File › Open with the trace, or Settings › Preferences).")
                .toHtmlEscaped()));
        return h.done();
    }
    const std::string cls = classOfKernel(analysis_.get(), int64_t(i));
    const std::string phase = analysis_ ? phaseOfKernel(*analysis_, *trace_, int64_t(i)) : std::string();
    const RooflineReport& r = *roofline_->report;
    const ClassEfficiency* ce = nullptr;
    for (const ClassEfficiency& c : r.classes)
        if (c.op_class == cls && c.phase == phase)
            ce = &c;
    if (!ce) {
        h.para(QStringLiteral("<i>%1</i>").arg(
            tr("The cost model has no operator of class %1 in this phase.").arg(QString::fromStdString(cls)).toHtmlEscaped()));
        return h.done();
    }
    h.rowPlain(tr("Class · phase"), QStringLiteral("%1 · %2").arg(QString::fromStdString(ce->op_class), QString::fromStdString(ce->phase)));
    if (ce->e_roof)
        h.rowPlain(tr("E_roof"), formatPercent(*ce->e_roof));
    if (ce->bytes > 0)
        h.rowPlain(tr("Intensity"), tr("%1 FLOP/B").arg(QLocale().toString(ce->flops / ce->bytes, 'g', 3)));
    if (ce->t_theory_ns)
        h.rowPlain(tr("Theory per pass"), formatDuration(std::llround(*ce->t_theory_ns)));
    if (ce->t_actual_ns) {
        h.rowPlain(tr("Measured per pass"), formatDuration(std::llround(*ce->t_actual_ns)));
        if (*ce->t_actual_ns > 0 && ce->flops > 0)
            h.rowPlain(tr("Achieved"), si(ce->flops / (*ce->t_actual_ns * 1e-9), QStringLiteral("FLOP/s")));
    }
    for (const FocusItem& f : r.focus)
        if (f.op_class == ce->op_class && f.phase == ce->phase) {
            QStringList why;
            if (f.top_k)
                why << tr("among the %n operator(s) with the most time", nullptr, int(r.options.top_k));
            if (f.low_efficiency)
                why << tr("E_roof below %1").arg(QLocale().toString(r.options.tau, 'f', 2));   // a fraction, not a percentage
            h.rowPlain(tr("Look at first"), why.join(QStringLiteral("; ")));
        }
    return h.done();
}

QString DetailsPanel::ncuHtml(size_t i) const
{
    if (!roofline_ || !roofline_->ncu)
        return {};
    Html h;
    h.section(tr("Nsight Compute"));
    const auto& join = ncuToKernel();
    const NcuReport& ncu = *roofline_->ncu;
    bool any = false;
    for (size_t l = 0; l < join.size() && l < ncu.launches.size(); ++l) {
        if (join[l] != int64_t(i))
            continue;
        any = true;
        const NcuLaunchMetrics m = compute_ncu_metrics(ncu.launches[l]);
        h.rowPlain(tr("Launch"), QStringLiteral("#%1").arg(ncu.launches[l].id));
        if (m.duration_ns)
            h.rowPlain(tr("Duration (ncu)"), formatDuration(std::llround(*m.duration_ns)));
        if (m.sm_throughput_pct)
            h.rowPlain(tr("SM throughput"), pct(*m.sm_throughput_pct));
        if (m.dram_throughput_pct)
            h.rowPlain(tr("DRAM throughput"), pct(*m.dram_throughput_pct));
        else if (m.memory_throughput_pct)
            h.rowPlain(tr("Memory throughput"), pct(*m.memory_throughput_pct));
        if (m.achieved_occupancy_pct)
            h.rowPlain(tr("Achieved occupancy"), pct(*m.achieved_occupancy_pct));
        if (m.intensity)
            h.rowPlain(tr("Intensity"), tr("%1 FLOP/B").arg(QLocale().toString(*m.intensity, 'g', 3)));
        if (m.achieved_flops_per_s)
            h.rowPlain(tr("Achieved"), si(*m.achieved_flops_per_s, QStringLiteral("FLOP/s")));
        if (!m.top_stalls.empty()) {
            QStringList st;
            for (const NcuStall& s : m.top_stalls)
                st << QStringLiteral("%1 (%2)").arg(QString::fromStdString(s.reason), QLocale().toString(s.value, 'f', 1));
            h.rowPlain(tr("Top stalls"), st.join(QStringLiteral(", ")));
        }
    }
    if (!any)
        h.para(QStringLiteral("<i>%1</i>").arg(tr("No profiled launch of the ncu file matches this kernel.").toHtmlEscaped()));
    return h.done();
}

QString DetailsPanel::findingsHtml(const std::vector<size_t>& idx) const
{
    if (!diagnosis_)
        return {};
    if (idx.empty())
        return QStringLiteral("<p><i>%1</i></p>").arg(tr("No finding involves it.").toHtmlEscaped());
    const std::string lang = uiLang();
    QString h;
    for (size_t n : idx) {
        const Finding& f = diagnosis_->eval.findings[n];
        h += QStringLiteral("<p style=\"margin-top:6px; margin-bottom:1px\"><b>%1</b><br><span style=\"font-size:small\">%2</span></p>")
                 .arg(breakable(QString::fromStdString(f.title.get(lang)).toHtmlEscaped()),
                      breakable(tr("%1 · gain %2 · confidence %3 · %4")
                                    .arg(FindingsModel::severityLabel(f.severity),
                                         FindingsModel::gainText(f.expected_gain),   // the Findings list's words
                                         FindingsModel::confidenceText(f.confidence),
                                         FindingsModel::subjectLabel(f.subject))
                                    .toHtmlEscaped()));
        if (!f.evidence.empty()) {
            QStringList ev;
            for (const Evidence& e : f.evidence) {
                QString s = QStringLiteral("%1 = %2").arg(QString::fromStdString(e.metric),
                                                          QString::fromStdString(format_metric(e.metric, e.value)));
                if (e.threshold && !e.op.empty())
                    s += QStringLiteral(" (%1 %2)").arg(QString::fromStdString(e.op),
                                                        QString::fromStdString(format_metric(e.metric, *e.threshold)));
                ev << breakable(s.toHtmlEscaped());
            }
            h += QStringLiteral("<p style=\"margin-top:0; margin-bottom:1px; font-size:small\">%1 %2</p>")
                     .arg(tr("Evidence:").toHtmlEscaped(), ev.join(QStringLiteral("; ")));
        }
        if (!f.suggestions.empty()) {
            h += QStringLiteral("<ul style=\"margin-top:0; margin-bottom:2px; margin-left:12px; -qt-list-indent:0\">");
            for (const Suggestion& s : f.suggestions)
                h += QStringLiteral("<li>%1</li>").arg(breakable(QString::fromStdString(s.text.get(lang)).toHtmlEscaped()));
            h += QStringLiteral("</ul>");
        }
    }
    return h;
}

namespace {

// record_shapes' "Input Dims" and "Input type" (JSON text) as one line per tensor input: "[16, 559, 1024] bf16".
// Scalars and absent inputs are left out; empty when nothing parses.
QStringList tensorInputs(const std::string& dims, const std::string& types)
{
    const QJsonArray d = QJsonDocument::fromJson(QByteArray::fromStdString(dims)).array();
    const QJsonArray ty = QJsonDocument::fromJson(QByteArray::fromStdString(types)).array();
    auto shortType = [](const QString& t) {
        static const std::pair<const char*, const char*> names[] = {
            {"c10::BFloat16", "bf16"}, {"c10::Half", "fp16"}, {"float", "fp32"}, {"double", "fp64"},
            {"long int", "int64"}, {"int", "int32"}, {"bool", "bool"}, {"c10::Float8_e4m3fn", "fp8 e4m3"},
            {"c10::Float8_e5m2", "fp8 e5m2"}, {"unsigned char", "uint8"}, {"signed char", "int8"}};
        for (const auto& [from, to] : names)
            if (t == QLatin1String(from))
                return QString::fromLatin1(to);
        return t;
    };
    QStringList out;
    for (qsizetype i = 0; i < d.size(); ++i) {
        const QJsonArray dim = d[i].toArray();
        if (dim.isEmpty())
            continue;
        QStringList extents;
        for (const QJsonValue& v : dim)
            extents << QString::number(v.toInteger());
        const QString type = i < ty.size() ? shortType(ty[i].toString()) : QString();
        out << QStringLiteral("[%1]%2").arg(extents.join(QStringLiteral(", ")),
                                            type.isEmpty() ? QString() : QStringLiteral(" ") + type);
    }
    return out;
}

} // namespace

QString DetailsPanel::originHtml(size_t i) const
{
    // Where the kernel came from on the host: the CPU operators open at its launch (links that select them), the
    // nn.Module path, and the shapes its operator ran on (record_shapes).
    const Trace& t = *trace_;
    if (!index_ || &index_->trace() != &t)
        return {};
    const KernelOrigin o = kernelOrigin(*index_, uint32_t(i));
    Html h;
    QStringList nvtx, ops, modules;
    for (uint32_t r : o.hostRanges) {
        const QString name = breakable(qs(t.str(t.ranges.name[r])).toHtmlEscaped());
        if (t.ranges.kind[r] == RangeKind::CpuOp)
            ops << QStringLiteral("<a href=\"range:%1\">%2</a>").arg(r).arg(name);
        else
            nvtx << name;
    }
    for (uint32_t r : o.modules)
        modules << breakable(QString::fromStdString(moduleName(t.str(t.ranges.name[r]))).toHtmlEscaped());
    QStringList inputs;
    if (o.opArgs >= 0 && size_t(o.opArgs) < t.op_args.size())
        inputs = tensorInputs(t.op_args.input_dims[size_t(o.opArgs)], t.op_args.input_types[size_t(o.opArgs)]);
    if (!nvtx.isEmpty())
        h.row(tr("NVTX"), nvtx.join(QStringLiteral(" › ")));
    if (ops.isEmpty() && modules.isEmpty() && inputs.isEmpty())
        return h.done();
    h.section(tr("CPU operator"));
    if (!ops.isEmpty())
        h.row(tr("Operator"), ops.join(QStringLiteral(" › ")));
    if (o.opArgs >= 0 && size_t(o.opArgs) < t.op_args.size() && ops.isEmpty())
        h.rowPlain(tr("Operator"), qs(t.str(t.op_args.name[size_t(o.opArgs)])));
    if (!modules.isEmpty())
        h.row(tr("Module"), modules.join(QStringLiteral(" › ")));
    if (!inputs.isEmpty())
        h.row(tr("Input shapes"), breakable(inputs.join(QStringLiteral(" · ")).toHtmlEscaped()));
    if (o.graphReplay)
        h.para(tr("Replayed from a CUDA graph: these are the operators around the graph launch.").toHtmlEscaped());
    return h.done();
}

QString DetailsPanel::hostRangeHtml(size_t r) const
{
    const Trace& t = *trace_;
    const RangeTable& R = t.ranges;
    Html h;
    const RangeKind kind = R.kind[r];
    h.section(kind == RangeKind::CpuOp            ? tr("CPU operator")
              : kind == RangeKind::PythonFunction ? tr("Python frame")
              : kind == RangeKind::UserAnnotation ? tr("Annotation")
                                                  : tr("NVTX range"));
    h.rowPlain(tr("Name"), qs(t.str(R.name[r])));
    h.rowPlain(tr("Start"), formatStart(R.start[r] - origin(), R.end[r] - R.start[r]));
    h.rowPlain(tr("Duration"), formatDuration(R.end[r] - R.start[r]));
    if (R.thread[r] < t.meta.threads.size()) {
        const ThreadInfo& ti = t.meta.threads[R.thread[r]];
        h.rowPlain(tr("Thread"), ti.name.empty() ? QString::number(ti.tid) : QStringLiteral("%1 (%2)").arg(qs(ti.name)).arg(ti.tid));
    }
    if (!index_ || &index_->trace() != &t)
        return h.done();
    // What encloses it on its thread: the operators and annotations, and the module path.
    QStringList outer, modules;
    for (const TimelineLane& lane : index_->lanes()) {
        if ((lane.kind != LaneKind::HostRanges && lane.kind != LaneKind::Python) || lane.thread != R.thread[r])
            continue;
        const uint32_t lo = index_->firstEndingAfter(lane, R.end[r] - 1), hi = index_->endStartingBefore(lane, R.start[r] + 1);
        for (uint32_t j = lo; j < hi; ++j) {
            const uint32_t q = index_->ref(lane, j).row;
            if (q == r || R.start[q] > R.start[r] || R.end[q] < R.end[r])
                continue;
            if (lane.kind == LaneKind::HostRanges)
                outer << QStringLiteral("<a href=\"range:%1\">%2</a>").arg(q).arg(breakable(qs(t.str(R.name[q])).toHtmlEscaped()));
            else if (t.str(R.name[q]).starts_with("nn.Module: "))
                modules << breakable(QString::fromStdString(moduleName(t.str(R.name[q]))).toHtmlEscaped());
        }
    }
    if (!outer.isEmpty())
        h.row(tr("Inside"), outer.join(QStringLiteral(" › ")));
    if (!modules.isEmpty())
        h.row(tr("Module"), modules.join(QStringLiteral(" › ")));
    // The kernels it launched (its children's included), with their GPU time.
    int64_t total = 0;
    const std::vector<uint32_t> kernels = kernelsOfHostRange(*index_, uint32_t(r), 100000, &total);
    if (!kernels.empty()) {
        int64_t gpu = 0;
        for (uint32_t k : kernels)
            gpu += t.kernels.end[k] - t.kernels.start[k];
        h.section(tr("Kernels launched (%1)").arg(QLocale().toString(qlonglong(total))));
        h.rowPlain(tr("GPU time"), formatDuration(gpu));
        // Its shapes, when record_shapes saw this very op launch them.
        for (uint32_t k : kernels) {
            const KernelLookup* lookup = index_->kernelLookup();
            const int32_t a = lookup ? lookup->opArgsOfKernel(k) : -1;
            if (a >= 0 && t.op_args.start[size_t(a)] == R.start[r] && t.op_args.name[size_t(a)] == R.name[r]) {
                const QStringList in = tensorInputs(t.op_args.input_dims[size_t(a)], t.op_args.input_types[size_t(a)]);
                if (!in.isEmpty())
                    h.row(tr("Input shapes"), breakable(in.join(QStringLiteral(" · ")).toHtmlEscaped()));
                break;
            }
        }
        for (size_t j = 0; j < kernels.size() && j < 12; ++j) {
            const uint32_t k = kernels[j];
            h.row(formatDuration(t.kernels.end[k] - t.kernels.start[k]), kernelLink(int64_t(k)));
        }
        if (total > 12)
            h.para(tr("… and %n more", nullptr, int(std::min<int64_t>(total - 12, INT32_MAX))).toHtmlEscaped());
    }
    return h.done();
}

QString DetailsPanel::gapHtml(size_t gi) const
{
    const Trace& t = *trace_;
    const Gap& g = analysis_->idle.gaps[gi];
    Html h;
    h.raw(QStringLiteral("<h3 style=\"margin-bottom:2px\">%1</h3>")
              .arg(tr("Idle gap · %1").arg(TimelineView::causeLabel(g.cause)).toHtmlEscaped()));
    h.rowPlain(tr("Duration"), formatDuration(g.duration()));
    h.rowPlain(tr("Start"), formatStart(g.start - origin(), g.duration()));
    {
        const int dev = g.device < t.meta.devices.size() ? t.meta.devices[g.device].id : int(g.device);
        h.rowPlain(tr("Device"), tr("GPU %1").arg(dev));
    }
    QString why;
    switch (g.cause) {
    case GapCause::HostWait: why = tr("The next operation was launched only after the GPU went idle: the CPU could not feed the GPU."); break;
    case GapCause::KernelWait: why = tr("Back-to-back launches with a short gap: launch latency."); break;
    case GapCause::SyncWait: why = tr("The host was blocked in a synchronising call before it launched the next operation."); break;
    case GapCause::DependencyWait: why = tr("The next operation was already queued and waited on a stream wait (an event of another stream) before it could start: a dependency, not the host."); break;
    case GapCause::Other: why = tr("Neither the host nor launch latency explains it (dependencies, unlinked operations)."); break;
    }
    h.para(QStringLiteral("<i>%1</i>").arg(why.toHtmlEscaped()));

    auto opText = [&](OpKind kind, int32_t row) -> QString {
        if (row < 0)
            return tr("(none)").toHtmlEscaped();
        switch (kind) {
        case OpKind::Kernel: return kernelLink(row);
        case OpKind::Memcpy:
            return size_t(row) < t.memcpy.size()
                       ? tr("%1 copy, %2").arg(qs(copy_kind_label(t.memcpy.copy_kind[size_t(row)])), formatBytes(t.memcpy.bytes[size_t(row)])).toHtmlEscaped()
                       : QString();
        case OpKind::Memset: return tr("memset").toHtmlEscaped();
        }
        return {};
    };
    h.section(tr("Around the gap"));
    h.row(tr("Before"), opText(g.prev_kind, g.prev_row));
    h.row(tr("After"), opText(g.next_kind, g.next_row));
    if (g.next_kind == OpKind::Kernel && g.next_row >= 0 && size_t(g.next_row) < t.kernels.size()) {
        const int32_t api = t.kernels.launch_api[size_t(g.next_row)];
        if (api >= 0 && size_t(api) < t.api.size()) {
            const int64_t lag = t.api.start[size_t(api)] - g.start;
            h.rowPlain(tr("Its launch call"), lag >= 0 ? tr("%1, began %2 after the gap started")
                                                             .arg(qs(t.str(t.api.name[size_t(api)])), formatDuration(lag))
                                                       : tr("%1, began %2 before the gap started")
                                                             .arg(qs(t.str(t.api.name[size_t(api)])), formatDuration(-lag)));
        }
    }
    if (g.sync_api >= 0 && size_t(g.sync_api) < t.api.size()) {
        const size_t a = size_t(g.sync_api);
        h.rowPlain(g.cause == GapCause::DependencyWait ? tr("Waited on") : tr("Blocking call"),
                   tr("%1 (%2)").arg(qs(t.str(t.api.name[a])), formatDuration(t.api.end[a] - t.api.start[a])));
    }

    // What the CPU was doing: API calls and NVTX ranges overlapping the gap, by overlap.
    h.section(tr("CPU during the gap"));
    struct Busy {
        int64_t overlap;
        QString what;
    };
    std::vector<Busy> calls, ranges;
    int64_t apiCount = 0;
    auto overlap = [&](int64_t s, int64_t e) { return std::min(e, g.end) - std::max(s, g.start); };
    if (index_) {
        for (const TimelineLane& lane : index_->lanes()) {
            if (lane.kind != LaneKind::ApiThread && lane.kind != LaneKind::HostRanges)
                continue;
            const uint32_t a = index_->firstEndingAfter(lane, g.start), b = index_->endStartingBefore(lane, g.end);
            for (uint32_t i = a; i < b && i < a + 10000; ++i) {
                const int64_t ov = overlap(index_->itemStart(lane, i), index_->itemEnd(lane, i));
                if (ov <= 0)
                    continue;
                const ItemRef r = index_->ref(lane, i);
                if (r.kind == ItemKind::Api) {
                    ++apiCount;
                    calls.push_back({ov, qs(t.str(t.api.name[r.row]))});
                } else if (r.kind == ItemKind::Range) {
                    ranges.push_back({ov, qs(t.str(t.ranges.name[r.row]))});
                }
            }
        }
    } else {
        for (size_t a = 0; a < t.api.size(); ++a) {
            const int64_t ov = overlap(t.api.start[a], t.api.end[a]);
            if (ov > 0) {
                ++apiCount;
                calls.push_back({ov, qs(t.str(t.api.name[a]))});
            }
        }
    }
    auto top = [](std::vector<Busy>& v, size_t n) {
        std::sort(v.begin(), v.end(), [](const Busy& a, const Busy& b) { return a.overlap > b.overlap; });
        QStringList out;
        for (size_t i = 0; i < std::min(n, v.size()); ++i)
            out << breakable(QStringLiteral("%1 (%2)").arg(v[i].what.toHtmlEscaped(), formatDuration(v[i].overlap)));
        return out;
    };
    int64_t callTime = 0;
    for (const Busy& b : calls)
        callTime += b.overlap;
    if (calls.empty()) {
        h.rowPlain(tr("API calls"), tr("none: the CPU issued no CUDA call during the gap"));
    } else {
        h.rowPlain(tr("API calls"), tr("%1, %2 of the gap in calls").arg(apiCount).arg(formatPercent(double(callTime) / double(std::max<int64_t>(1, g.duration())))));
        h.row(tr("Longest"), top(calls, 4).join(QStringLiteral("<br>")));
    }
    if (!ranges.empty())
        h.row(tr("NVTX"), top(ranges, 4).join(QStringLiteral("<br>")));

    if (diagnosis_) {
        const auto idx = findingsForRange(*diagnosis_, t, analysis_.get(), g.start, g.end);
        h.section(tr("Findings (%1)").arg(idx.size()));
        h.raw(findingsHtml(idx));
    }
    return h.done();
}

} // namespace sl

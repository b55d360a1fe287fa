#include "widgets/trace_header.h"

#include <QLocale>
#include <algorithm>
#include <climits>

#include "model/timeline_index.h"
#include "model/units.h"
#include "model/warning_text.h"

namespace sl {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString count(size_t n) { return QLocale().toString(qulonglong(n)); }

} // namespace

bool TraceHeader::gpuActivity(const Trace& t, int64_t& start, int64_t& end)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    auto span = [&](const std::vector<int64_t>& s, const std::vector<int64_t>& e) {
        for (size_t i = 0; i < s.size() && i < e.size(); ++i) {
            lo = std::min(lo, s[i]);
            hi = std::max(hi, e[i]);
        }
    };
    span(t.kernels.start, t.kernels.end);
    span(t.memcpy.start, t.memcpy.end);
    span(t.memset.start, t.memset.end);
    if (lo > hi)
        return false;
    start = lo;
    end = hi;
    return true;
}

QString TraceHeader::warningLabel(const std::string& code) { return WarningText::label(code); }

QStringList TraceHeader::warningItems(const AnalysisResult& a, int64_t /*origin: the core's args are on it already*/)
{
    // Said in the interface's language from each warning's code and arguments (model/warning_text.h); a reader's
    // own note keeps the core's text, which quotes the trace.
    QStringList items;
    for (const WorkloadWarning& w : a.workload.warnings)
        items << QStringLiteral("<b>%1</b>: %2").arg(WarningText::label(w.code).toHtmlEscaped(),
                                                     WarningText::message(w).toHtmlEscaped());
    return items;
}

QString TraceHeader::servingSteps(const PhaseResult& p)
{
    // The serving steps the framework named, with their batch composition: one step in full, several by kind.
    auto kindText = [](StepKind k) {
        switch (k) {
        case StepKind::PrefillOnly: return tr("prefill-only");
        case StepKind::PrefillHeavy: return tr("prefill-heavy");
        case StepKind::Mixed: return tr("mixed");
        case StepKind::DecodeHeavy: return tr("decode-heavy");
        case StepKind::DecodeOnly: return tr("decode-only");
        case StepKind::Unknown: break;
        }
        return tr("unknown");
    };
    auto composition = [](const StepBatch& b) {
        QStringList sides;
        if (b.prefill_requests > 0) {
            QString s = tr("%n prefill request(s)", nullptr, int(b.prefill_requests));
            if (b.prefill_tokens >= 0)
                s += QStringLiteral(" (%1)").arg(tr("%1 tokens").arg(count(size_t(b.prefill_tokens))));
            sides << s;
        }
        if (b.decode_requests > 0) {
            QString s = tr("%n decode request(s)", nullptr, int(b.decode_requests));
            if (b.decode_kv_tokens >= 0)
                s += QStringLiteral(" (%1)").arg(tr("%1 KV tokens").arg(count(size_t(b.decode_kv_tokens))));
            sides << s;
        }
        return sides.join(QStringLiteral(" + "));
    };
    if (p.steps.size() == 1) {
        const StepInfo& s = p.steps.front();
        const QString c = composition(s.batch);
        return c.isEmpty() ? tr("serving step: %1").arg(kindText(s.kind))
                           : tr("serving step: %1, %2").arg(kindText(s.kind), c);
    }
    QStringList kinds;
    for (StepKind k : {StepKind::PrefillOnly, StepKind::PrefillHeavy, StepKind::Mixed, StepKind::DecodeHeavy,
                       StepKind::DecodeOnly}) {
        const auto n = std::count_if(p.steps.begin(), p.steps.end(), [&](const StepInfo& s) { return s.kind == k; });
        if (n > 0)
            kinds << QStringLiteral("%1 %2").arg(count(size_t(n)), kindText(k));
    }
    return tr("%n serving step(s): %1", nullptr, int(p.steps.size())).arg(kinds.join(QStringLiteral(", ")));
}

QString TraceHeader::summaryText(const Trace& t, const AnalysisResult* a)
{
    const TraceMeta& m = t.meta;
    const int64_t origin = timeOrigin(t);
    QStringList parts;
    parts << qs(m.format + (m.tool_version.empty() ? "" : " " + m.tool_version));
    // Each window with its own name and its bounds on the common origin (the capture start = 0).
    if (m.capture_end > m.capture_start)
        parts << tr("capture %1 (time 0 = its start)").arg(formatDuration(m.capture_end - m.capture_start));
    int64_t gs = 0, ge = 0;
    if (gpuActivity(t, gs, ge))
        parts << tr("GPU activity %1 (%2 – %3)")
                     .arg(formatDuration(ge - gs), formatDuration(gs - origin), formatDuration(ge - origin));
    if (a) {
        const PhaseResult& p = a->phases;
        if (p.steady_end > p.steady_start)
            parts << tr("steady state %1 (%2 – %3, %n step(s))", nullptr, int(p.steady_steps))
                         .arg(formatDuration(p.steady_end - p.steady_start), formatDuration(p.steady_start - origin),
                              formatDuration(p.steady_end - origin));
        else if (p.training_iterations > 0)
            parts << tr("%n training iteration(s)", nullptr, int(p.training_iterations));
        if (p.annotated_steps > 0)
            parts << servingSteps(p);
    }
    parts << tr("%n device(s)", nullptr, int(m.devices.size()));
    parts << tr("%1 kernels").arg(count(t.kernels.size()));
    parts << tr("%1 memory copies").arg(count(t.memcpy.size()));
    parts << tr("%1 API calls").arg(count(t.api.size()));
    size_t cpuOps = 0, python = 0;
    for (RangeKind k : t.ranges.kind) {
        cpuOps += k == RangeKind::CpuOp;
        python += k == RangeKind::PythonFunction;
    }
    parts << tr("%1 NVTX ranges").arg(count(t.ranges.size() - cpuOps - python));
    if (cpuOps > 0)
        parts << tr("%1 CPU operators").arg(count(cpuOps));
    if (python > 0)
        parts << tr("%1 Python frames").arg(count(python));
    return parts.join(QStringLiteral(" · "));
}

QString TraceHeader::html(const Trace& t, const AnalysisResult* a)
{
    QString line = summaryText(t, a).toHtmlEscaped();
    // The format in bold (the first part, before the first separator).
    const qsizetype sep = line.indexOf(QStringLiteral(" · "));
    line = QStringLiteral("<b>%1</b>%2").arg(line.left(sep < 0 ? line.size() : sep), sep < 0 ? QString() : line.mid(sep));
    if (!a)
        return line;
    const QStringList warnings = warningItems(*a, timeOrigin(t));
    if (warnings.isEmpty())
        return line;
    return line + QStringLiteral("<br><span style=\"color:#d97706\">⚠ %1</span>")
                      .arg(warnings.join(QStringLiteral(" &nbsp;⚠ ")));
}

QString TraceHeader::toolTip(const Trace& t, const QStringList& paths)
{
    const TraceMeta& m = t.meta;
    QStringList lines = paths;
    if (!m.capture_source.empty())
        lines << tr("Capture window from: %1").arg(qs(m.capture_source));
    if (m.clock_shift_ns != 0)
        lines << tr("GPU times moved by %1 onto the host clock").arg(formatDuration(m.clock_shift_ns));
    lines << tr("Every time is measured from the capture start.");
    return lines.join(QLatin1Char('\n'));
}

} // namespace sl

#pragma once
// The line above the timeline: what the trace is and which window each number refers to, then the trace-level
// warnings (trace.warnings[] of the analysis JSON). Windows, all measured from the capture start (time 0 of the
// axis, Details and tooltips; model/timeline_index.h timeOrigin):
//   capture       the profiler's capture window (TraceMeta capture_start..capture_end, its source in the tooltip);
//   GPU activity  first GPU op start .. last GPU op end over every device (trace.windows.gpu_activity);
//   steady state  the analysed steady-state window without warm-up steps (trace.windows.steady_state), once the
//                 analysis has arrived and when it found one.
// Counts: kernels, copies, API calls, NVTX ranges (push/pop, start/end, user annotations) and CPU operators
// (Kineto cpu_op events) apart, as the analysis JSON counts them (trace.nvtx_ranges / trace.cpu_ops).

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include "analysis/timeline/analysis.h"
#include "analysis/trace/trace.h"

namespace sl {

class TraceHeader {
    Q_DECLARE_TR_FUNCTIONS(TraceHeader)
public:
    // analysis may be null (still running): the steady-state window and the warnings then wait for it.
    static QString html(const Trace& trace, const AnalysisResult* analysis);
    // The label's tooltip: the files, where the capture window came from, a clock shift, the origin.
    static QString toolTip(const Trace& trace, const QStringList& paths);
    // The first line only (format, windows, counts), as plain text.
    static QString summaryText(const Trace& trace, const AnalysisResult* analysis);
    // The serving steps the framework named (vLLM/SGLang execute_…, step[…]) with their batch composition: "serving
    // step: prefill-only, 15 prefill requests (15,360 tokens)", or "32 serving steps: 30 decode-only, 2 mixed".
    static QString servingSteps(const PhaseResult& phases);
    // The trace-level warnings, one rich-text item each: a label in the interface's language, then the message.
    // Times in them are measured from `origin` (timeOrigin of the trace).
    static QStringList warningItems(const AnalysisResult& analysis, int64_t origin);
    // A short label for a warning code of resources/schemas/analysis.md ("clock_skew" -> "Clock skew").
    static QString warningLabel(const std::string& code);
    // GPU activity window [first op start, last op end) over every device; false when the trace has no GPU op.
    static bool gpuActivity(const Trace& trace, int64_t& start, int64_t& end);
};

} // namespace sl

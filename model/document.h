#pragma once
// The open workspace: the files, the loaded trace and the analysis results, each an immutable shared value.
// Filled stage by stage from JobRunner's signals (trace first, then summary, timeline index, analyses, Roofline,
// findings); views only read. Every result comes from analysis/pipeline.h, the same pipeline the CLI runs.

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>

#include "analysis/critpath/critpath_summary.h"
#include "analysis/timeline/analysis.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/report/roofline_json.h"
#include "analysis/roofline/shape_throughput.h"
#include "analysis/timeline/summary.h"
#include "analysis/trace/trace.h"
#include "model/class_density.h"
#include "model/gap_histogram.h"
#include "model/timeline_index.h"

namespace sl {

// What the opened files were: trace files, and the extras opened with them.
struct DocumentInputs {
    QStringList traces;      // nsys / Kineto files merged into one trace
    QString modelConfig;     // HF config.json (opened with the trace, or from the settings)
    QString ncu;             // Nsight Compute CSV / .ncu-rep
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);

    // Every file opened, in the order given.
    const QStringList& paths() const { return paths_; }
    const DocumentInputs& inputs() const { return inputs_; }
    std::shared_ptr<const Trace> trace() const { return trace_; }
    std::shared_ptr<const Summary> summary() const { return summary_; }
    std::shared_ptr<const TimelineIndex> timeline() const { return timeline_; }
    std::shared_ptr<const AnalysisResult> analysis() const { return analysis_; }
    // The Gaps pane's bins of analysis(), computed on the job's worker; null when not given for this analysis.
    std::shared_ptr<const GapHistogramData> gapHistogram() const
    {
        return gapHistogram_ && analysis_ && gapHistogram_->analysis == analysis_ ? gapHistogram_ : nullptr;
    }
    // Per-class GPU time per pixel column (merged timeline blocks, the overview track), built on the job's worker
    // once the complete timeline index and the analysis are there; null until then.
    std::shared_ptr<const ClassDensity> classDensity() const { return classDensity_; }
    // Roofline (when a model config was given) and ncu launches (when an ncu file was opened); null until ready.
    std::shared_ptr<const RooflineOutput> roofline() const { return roofline_; }
    // Measured per-(op, shapes, dtype) throughput from the trace's own shapes (Kineto with record_shapes; no model
    // config needed); null until the pipeline computed it, empty (ops_with_shapes == 0) when the trace has no shapes.
    std::shared_ptr<const ShapeRooflineResult> shapes() const { return shapes_; }
    // Findings (ranked), rule errors and missing data; null until the rules ran.
    std::shared_ptr<const Diagnosis> diagnosis() const { return diagnosis_; }
    // The critical path of the whole trace and of each step (analysis/critpath/); null until the pipeline found it.
    std::shared_ptr<const critpath::CriticalPathSummary> criticalPath() const { return criticalPath_; }
    // Why the Roofline is missing when a model config or ncu file was given but could not be used.
    const QString& rooflineError() const { return rooflineError_; }
    bool isEmpty() const { return !trace_; }

    // A new trace replaces the old one and drops every result computed from it.
    void setTrace(const QStringList& paths, std::shared_ptr<const Trace> trace);
    // What the files of the next setTrace are (JobRunner::inputsResolved, emitted just before traceLoaded).
    void setInputs(const sl::DocumentInputs& inputs);
    void setSummary(std::shared_ptr<const Summary> summary);
    void setTimeline(std::shared_ptr<const TimelineIndex> index);
    void setAnalysis(std::shared_ptr<const AnalysisResult> result);
    // Stored without a signal: JobRunner gives it just before the analysis it belongs to (analysisChanged).
    void setGapHistogram(std::shared_ptr<const GapHistogramData> bins);
    void setClassDensity(std::shared_ptr<const ClassDensity> density);
    void setRoofline(std::shared_ptr<const RooflineOutput> roofline);
    void setRooflineError(const QString& message);
    void setShapes(std::shared_ptr<const ShapeRooflineResult> shapes);
    void setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis);
    void setCriticalPath(std::shared_ptr<const critpath::CriticalPathSummary> path);
    void clear();

signals:
    // Emitted after the trace (and everything derived from it) changed; results arrive later by their own signals.
    void traceChanged();
    void cleared();
    void summaryChanged();
    void timelineChanged();
    void analysisChanged();
    void classDensityChanged();
    void rooflineChanged();
    void shapesChanged();
    void diagnosisChanged();
    void criticalPathChanged();

private:
    void dropResults();

    QStringList paths_;
    DocumentInputs inputs_;
    std::optional<DocumentInputs> pendingInputs_;
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const Summary> summary_;
    std::shared_ptr<const TimelineIndex> timeline_;
    std::shared_ptr<const AnalysisResult> analysis_;
    std::shared_ptr<const GapHistogramData> gapHistogram_;
    std::shared_ptr<const ClassDensity> classDensity_;
    std::shared_ptr<const RooflineOutput> roofline_;
    std::shared_ptr<const ShapeRooflineResult> shapes_;
    std::shared_ptr<const Diagnosis> diagnosis_;
    std::shared_ptr<const critpath::CriticalPathSummary> criticalPath_;
    QString rooflineError_;
};

} // namespace sl

Q_DECLARE_METATYPE(sl::DocumentInputs)

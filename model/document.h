#pragma once
// The open workspace: the files, the loaded trace and the analysis results, each an immutable shared value.
// Filled stage by stage from JobRunner's signals (trace first, then summary, ...); views only read.

#include <QObject>
#include <QStringList>
#include <memory>

#include "analysis/analysis.h"
#include "analysis/summary.h"
#include "analysis/trace.h"
#include "model/timeline_index.h"

namespace sl {

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);

    const QStringList& paths() const { return paths_; }
    std::shared_ptr<const Trace> trace() const { return trace_; }
    std::shared_ptr<const Summary> summary() const { return summary_; }
    std::shared_ptr<const TimelineIndex> timeline() const { return timeline_; }
    std::shared_ptr<const AnalysisResult> analysis() const { return analysis_; }
    bool isEmpty() const { return !trace_; }

    // A new trace replaces the old one and drops every result computed from it.
    void setTrace(const QStringList& paths, std::shared_ptr<const Trace> trace);
    void setSummary(std::shared_ptr<const Summary> summary);
    void setTimeline(std::shared_ptr<const TimelineIndex> index);
    void setAnalysis(std::shared_ptr<const AnalysisResult> result);
    void clear();

signals:
    // Emitted after the trace (and everything derived from it) changed; results arrive later by their own signals.
    void traceChanged();
    void cleared();
    void summaryChanged();
    void timelineChanged();
    void analysisChanged();

private:
    QStringList paths_;
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const Summary> summary_;
    std::shared_ptr<const TimelineIndex> timeline_;
    std::shared_ptr<const AnalysisResult> analysis_;
};

} // namespace sl

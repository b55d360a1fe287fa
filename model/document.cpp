#include "model/document.h"

namespace sl {

Document::Document(QObject* parent) : QObject(parent) {}

void Document::setTrace(const QStringList& paths, std::shared_ptr<const Trace> trace)
{
    paths_ = paths;
    trace_ = std::move(trace);
    const bool hadSummary = summary_ != nullptr, hadTimeline = timeline_ != nullptr;
    summary_.reset();
    timeline_.reset();
    const bool hadAnalysis = analysis_ != nullptr;
    analysis_.reset();
    emit traceChanged();
    if (hadAnalysis)
        emit analysisChanged();
    if (hadSummary)
        emit summaryChanged();
    if (hadTimeline)
        emit timelineChanged();
}

void Document::setAnalysis(std::shared_ptr<const AnalysisResult> result)
{
    analysis_ = std::move(result);
    emit analysisChanged();
}

void Document::setTimeline(std::shared_ptr<const TimelineIndex> index)
{
    timeline_ = std::move(index);
    emit timelineChanged();
}

void Document::setSummary(std::shared_ptr<const Summary> summary)
{
    summary_ = std::move(summary);
    emit summaryChanged();
}

void Document::clear()
{
    paths_.clear();
    trace_.reset();
    summary_.reset();
    timeline_.reset();
    analysis_.reset();
    emit cleared();
    emit analysisChanged();
    emit summaryChanged();
    emit timelineChanged();
    emit traceChanged();
}

} // namespace sl

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
    emit traceChanged();
    if (hadSummary)
        emit summaryChanged();
    if (hadTimeline)
        emit timelineChanged();
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
    emit cleared();
    emit summaryChanged();
    emit timelineChanged();
    emit traceChanged();
}

} // namespace sl

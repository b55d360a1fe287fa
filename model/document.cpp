#include "model/document.h"

namespace sl {

Document::Document(QObject* parent) : QObject(parent) {}

void Document::dropResults()
{
    // Views listening to a result's signal see it gone before the new trace's results arrive.
    const bool hadSummary = summary_ != nullptr, hadTimeline = timeline_ != nullptr,
               hadAnalysis = analysis_ != nullptr, hadRoofline = roofline_ != nullptr || !rooflineError_.isEmpty(),
               hadDiagnosis = diagnosis_ != nullptr, hadShapes = shapes_ != nullptr,
               hadCriticalPath = criticalPath_ != nullptr;
    summary_.reset();
    timeline_.reset();
    analysis_.reset();
    gapHistogram_.reset();
    classDensity_.reset();
    roofline_.reset();
    rooflineError_.clear();
    shapes_.reset();
    diagnosis_.reset();
    criticalPath_.reset();
    if (hadDiagnosis)
        emit diagnosisChanged();
    if (hadCriticalPath)
        emit criticalPathChanged();
    if (hadRoofline)
        emit rooflineChanged();
    if (hadShapes)
        emit shapesChanged();
    if (hadAnalysis)
        emit analysisChanged();
    if (hadSummary)
        emit summaryChanged();
    if (hadTimeline)
        emit timelineChanged();
}

void Document::setTrace(const QStringList& paths, std::shared_ptr<const Trace> trace)
{
    paths_ = paths;
    // The job announces what the files were just before the trace arrives; a bare setTrace means all are traces.
    if (pendingInputs_) {
        inputs_ = *pendingInputs_;
        pendingInputs_.reset();
    } else {
        inputs_ = DocumentInputs{paths, {}, {}};
    }
    trace_ = std::move(trace);
    dropResults();
    emit traceChanged();
}

void Document::setInputs(const DocumentInputs& inputs) { pendingInputs_ = inputs; }

void Document::setAnalysis(std::shared_ptr<const AnalysisResult> result)
{
    analysis_ = std::move(result);
    emit analysisChanged();
}

void Document::setGapHistogram(std::shared_ptr<const GapHistogramData> bins) { gapHistogram_ = std::move(bins); }

void Document::setClassDensity(std::shared_ptr<const ClassDensity> density)
{
    classDensity_ = std::move(density);
    emit classDensityChanged();
}

void Document::setRoofline(std::shared_ptr<const RooflineOutput> roofline)
{
    roofline_ = std::move(roofline);
    rooflineError_.clear();
    emit rooflineChanged();
}

void Document::setRooflineError(const QString& message)
{
    roofline_.reset();
    rooflineError_ = message;
    emit rooflineChanged();
}

void Document::setShapes(std::shared_ptr<const ShapeRooflineResult> shapes)
{
    shapes_ = std::move(shapes);
    emit shapesChanged();
}

void Document::setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis)
{
    diagnosis_ = std::move(diagnosis);
    emit diagnosisChanged();
}

void Document::setCriticalPath(std::shared_ptr<const critpath::CriticalPathSummary> path)
{
    criticalPath_ = std::move(path);
    emit criticalPathChanged();
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
    inputs_ = {};
    trace_.reset();
    pendingInputs_.reset();
    emit cleared();
    dropResults();
    emit traceChanged();
}

} // namespace sl

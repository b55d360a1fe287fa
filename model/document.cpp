#include "model/document.h"

namespace sl {

Document::Document(QObject* parent) : QObject(parent) {}

void Document::setTrace(const QStringList& paths, std::shared_ptr<const Trace> trace)
{
    paths_ = paths;
    trace_ = std::move(trace);
    emit traceChanged();
}

void Document::clear()
{
    paths_.clear();
    trace_.reset();
    emit cleared();
    emit traceChanged();
}

} // namespace sl

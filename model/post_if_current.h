#pragma once
// Work a job's worker thread hands to the GUI thread: queued on the receiver's thread and run there only if the job
// is still the current one (its generation unchanged: no newer job was started, none was cancelled since). One piece
// for the loading, compare and ranks jobs.

#include <QMetaObject>
#include <QObject>
#include <QtGlobal>

#include <functional>
#include <utility>

namespace sl {

inline void postIfCurrent(QObject* receiver, const quint64* generation, quint64 gen, std::function<void()> fn)
{
    QMetaObject::invokeMethod(
        receiver,
        [generation, gen, fn = std::move(fn)] {
            if (gen == *generation)
                fn();
        },
        Qt::QueuedConnection);
}

} // namespace sl

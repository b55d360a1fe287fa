#include "scale_drive.h"

#include <QApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMouseEvent>
#include <QTimer>
#include <QWheelEvent>
#include <algorithm>
#include <random>
#include <sys/resource.h>

#include "main_window.h"
#include "model/document.h"
#include "model/kb_session.h"
#include "model/selection.h"
#include "model/timeline_index.h"
#include "widgets/timeline_view.h"

namespace sl {

namespace {

QJsonObject stats(std::vector<double> v)
{
    QJsonObject o;
    o[QStringLiteral("count")] = qint64(v.size());
    if (v.empty())
        return o;
    std::sort(v.begin(), v.end());
    auto at = [&v](double q) { return v[std::min(v.size() - 1, size_t(q * double(v.size())))]; };
    o[QStringLiteral("p50_ms")] = at(0.5);
    o[QStringLiteral("p99_ms")] = at(0.99);
    o[QStringLiteral("max_ms")] = v.back();
    return o;
}

} // namespace

ScaleDrive::ScaleDrive(MainWindow* window, QString outFile, int interactions)
    : QObject(window), window_(window), outFile_(std::move(outFile)), interactions_(interactions)
{
}

void ScaleDrive::start()
{
    clock_.start();
    lagTimer_ = new QTimer(this);
    lagTimer_->setTimerType(Qt::PreciseTimer);
    lagTimer_->setInterval(10);
    connect(lagTimer_, &QTimer::timeout, this, [this] {
        const qint64 now = clock_.nsecsElapsed();
        if (lastTick_ >= 0)
            lagMs_.push_back(std::max(0.0, double(now - lastTick_) / 1e6 - 10.0));
        lastTick_ = now;
    });
    lagTimer_->start();
    connect(window_->document(), &Document::traceChanged, this, [this] {
        if (traceLoadedMs_ < 0 && window_->document()->trace())
            traceLoadedMs_ = double(clock_.nsecsElapsed()) / 1e6;
    });
    connect(window_->document(), &Document::timelineChanged, this, [this] {
        const auto index = window_->document()->timeline();
        if (!index)
            return;
        const double ms = double(clock_.nsecsElapsed()) / 1e6;
        if (firstTimelineMs_ < 0)
            firstTimelineMs_ = ms;
        if (index->complete() && completeTimelineMs_ < 0)
            completeTimelineMs_ = ms;
    });
    connect(window_, &MainWindow::jobFinished, this, [this](bool ok) {
        ok_ = ok;
        finishedMs_ = double(clock_.nsecsElapsed()) / 1e6;
        lagTimer_->stop();
        // The finer timeline levels may still be on their way, and the knowledge base records the run (hashing
        // the trace file) after the analyses: drive once the complete index is shown and the knowledge base is idle,
        // so the interactions measure the GUI thread rather than its share of the cores while those finish.
        auto go = [this] {
            if (started_ || completeTimelineMs_ < 0 || (kb_ && kb_->pending() > 0))
                return;
            started_ = true;
            QTimer::singleShot(0, this, [this] { drive(); });
        };
        kb_ = window_->findChild<KbSession*>();
        if (!ok) {
            started_ = true;
            QTimer::singleShot(0, this, [this] { drive(); });
            return;
        }
        if (kb_)
            connect(kb_, &KbSession::idle, this, [this, go] {
                kbIdleMs_ = double(clock_.nsecsElapsed()) / 1e6;
                go();
            });
        connect(window_->document(), &Document::timelineChanged, this, go);
        go();
    });
}

void ScaleDrive::drive()
{
    if (ok_ && kb_ && kb_->pending() > 0) {
        started_ = false;   // the knowledge base got work after all: its idle() starts the drive
        return;
    }
    auto* view = window_->findChild<TimelineView*>();
    if (ok_ && view && window_->document()->timeline()) {
        std::mt19937_64 rng(7);
        const QRect area = view->rect().adjusted(view->width() / 8, 40, -8, -8);
        std::uniform_int_distribution<int> xs(area.left(), area.right()), ys(area.top(), area.bottom());
        // Each interaction's time in three parts: handling the event (a click fills Details and the other panes
        // here, through the selection's signals), the repaint, and what the event queued.
        double handled = 0, painted = 0;
        auto timed = [&](std::vector<double>& out, auto&& act) {
            QElapsedTimer t;
            t.start();
            act();
            handled = double(t.nsecsElapsed()) / 1e6;
            view->repaint();
            painted = double(t.nsecsElapsed()) / 1e6;
            QApplication::processEvents();   // what the event queued: Details, the other panes
            out.push_back(double(t.nsecsElapsed()) / 1e6);
        };
        const Selection* selection = window_->findChild<Selection*>();
        for (int i = 0; i < interactions_; ++i) {
            const QPointF pos(xs(rng), ys(rng));
            const QPointF global = view->mapToGlobal(pos);
            switch (i % 4) {
            case 0:
            case 1: {   // zoom in twice as often as out, so the walk reaches the finest levels
                const int dy = (i % 8 == 1) ? -360 : 240;
                timed(zoomMs_, [&] {
                    QWheelEvent w(pos, global, QPoint(), QPoint(0, dy), Qt::NoButton, Qt::ControlModifier,
                                  Qt::NoScrollPhase, false);   // Ctrl+wheel zooms at the cursor
                    QApplication::sendEvent(view, &w);
                });
                break;
            }
            case 2:
                timed(panMs_, [&] {
                    QWheelEvent w(pos, global, QPoint(), QPoint((i % 8 == 2) ? 240 : -240, 0), Qt::NoButton,
                                  Qt::NoModifier, Qt::NoScrollPhase, false);
                    QApplication::sendEvent(view, &w);
                });
                break;
            case 3:
                timed(clickMs_, [&] {
                    QMouseEvent press(QEvent::MouseButtonPress, pos, global, Qt::LeftButton, Qt::LeftButton,
                                      Qt::NoModifier);
                    QApplication::sendEvent(view, &press);
                    QMouseEvent release(QEvent::MouseButtonRelease, pos, global, Qt::LeftButton, Qt::NoButton,
                                        Qt::NoModifier);
                    QApplication::sendEvent(view, &release);
                });
                {
                    SlowClick c;
                    c.ms = clickMs_.back();
                    c.handledMs = handled;
                    c.paintMs = painted - handled;
                    c.interaction = i;
                    c.kernel = selection ? selection->kernel() : -1;
                    c.gap = selection ? selection->gap() : -1;
                    slowClicks_.push_back(c);
                    std::sort(slowClicks_.begin(), slowClicks_.end(),
                              [](const SlowClick& a, const SlowClick& b) { return a.ms > b.ms; });
                    if (slowClicks_.size() > 5)
                        slowClicks_.pop_back();
                }
                break;
            }
            if (i % 40 == 39)
                view->fitToWindow();   // back out, so the walk covers every zoom level more than once
        }
    }
    write();
    QApplication::exit(ok_ ? 0 : 3);
}

void ScaleDrive::write()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    QJsonObject o;
    o[QStringLiteral("ok")] = ok_;
    o[QStringLiteral("trace_loaded_ms")] = traceLoadedMs_;
    o[QStringLiteral("first_timeline_ms")] = firstTimelineMs_;
    o[QStringLiteral("complete_timeline_ms")] = completeTimelineMs_;
    o[QStringLiteral("finished_ms")] = finishedMs_;
    o[QStringLiteral("knowledge_base_idle_ms")] = kbIdleMs_;   // -1: it was idle when the analyses finished
    o[QStringLiteral("event_loop_lag_while_loading")] = stats(lagMs_);
    o[QStringLiteral("zoom")] = stats(zoomMs_);
    o[QStringLiteral("pan")] = stats(panMs_);
    o[QStringLiteral("click")] = stats(clickMs_);
    QJsonArray slow;
    for (const SlowClick& c : slowClicks_) {
        QJsonObject e;
        e[QStringLiteral("ms")] = c.ms;
        e[QStringLiteral("handled_ms")] = c.handledMs;   // the press and release, with the selection's signals
        e[QStringLiteral("paint_ms")] = c.paintMs;
        e[QStringLiteral("queued_ms")] = c.ms - c.handledMs - c.paintMs;
        e[QStringLiteral("interaction")] = c.interaction;
        e[QStringLiteral("kernel")] = qint64(c.kernel);
        e[QStringLiteral("gap")] = qint64(c.gap);
        slow.append(e);
    }
    o[QStringLiteral("slowest_clicks")] = slow;
    std::vector<double> all = zoomMs_;
    all.insert(all.end(), panMs_.begin(), panMs_.end());
    all.insert(all.end(), clickMs_.begin(), clickMs_.end());
    o[QStringLiteral("frames")] = stats(all);
    o[QStringLiteral("peak_rss_mib")] = double(ru.ru_maxrss) / 1024.0;   // ru_maxrss is in KiB on Linux
    rusage self{};
    getrusage(RUSAGE_SELF, &self);
    o[QStringLiteral("cpu_s")] = double(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                                 double(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
    if (const auto index = window_->document()->timeline()) {
        o[QStringLiteral("kernels")] = qint64(index->trace().kernels.size());
        o[QStringLiteral("trace_model_mib")] = double(index->trace().memory_bytes()) / 1048576.0;
        o[QStringLiteral("timeline_index_mib")] = double(index->memoryBytes()) / 1048576.0;
    }
    QFile f(outFile_);
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        f.write(QJsonDocument(o).toJson(QJsonDocument::Indented));
}

} // namespace sl

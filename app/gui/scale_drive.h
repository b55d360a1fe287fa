#pragma once
// `sightline TRACE --drive-bench FILE` (hidden; tests/bench/gui-scale.sh): measures the real window on a large
// trace. From the moment the files are opened it samples the GUI thread's event-loop lag (a 10 ms timer, so a
// stall of the GUI thread shows up as a late tick) and notes when the first timeline index (the coarse one) and the
// complete one arrive; once the job has finished it drives the timeline with real wheel and mouse events (zoom in
// and out around random points, pans, clicks that select an item and fill Details), repaints after each, and writes
// the timings and the process's peak RSS as one JSON object to FILE, then quits.

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <cstdint>
#include <vector>

class QTimer;

namespace sl {

class KbSession;
class MainWindow;

class ScaleDrive : public QObject {
    Q_OBJECT
public:
    ScaleDrive(MainWindow* window, QString outFile, int interactions);
    // Call just before MainWindow::openFiles.
    void start();

private:
    void drive();
    void write();

    MainWindow* window_;
    QString outFile_;
    int interactions_;
    QElapsedTimer clock_;
    QTimer* lagTimer_ = nullptr;
    qint64 lastTick_ = -1;
    std::vector<double> lagMs_;
    double traceLoadedMs_ = -1, firstTimelineMs_ = -1, completeTimelineMs_ = -1, finishedMs_ = -1, kbIdleMs_ = -1;
    KbSession* kb_ = nullptr;
    bool started_ = false;
    std::vector<double> zoomMs_, panMs_, clickMs_;
    // The five slowest clicks, in parts, with what they selected (a kernel row, an idle gap, or -1 for none).
    struct SlowClick {
        double ms = 0, handledMs = 0, paintMs = 0;
        int interaction = 0;
        int64_t kernel = -1, gap = -1;
    };
    std::vector<SlowClick> slowClicks_;
    bool ok_ = false;
};

} // namespace sl

// sightline: the GUI workbench.  sightline [TRACE...] [--screenshot FILE] [--size WxH] [--language en|zh_CN]
#include <QApplication>
#include <QSocketNotifier>
#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QTimer>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "analysis/io/load.h"
#include "language.h"
#include "main_window.h"
#include "scale_drive.h"
#include "visible_text.h"
#include "model/job_runner.h"
#include "model/theme.h"
#include "model/workbench_settings.h"
#include "widgets/gap_histogram_view.h"
#include "widgets/roofline_view.h"
#include "widgets/search_bar.h"
#include "widgets/timeline_view.h"

namespace {

// SIGTERM / SIGINT (a `kill`, Ctrl+C in the terminal that started the workbench) close the window as its close button
// does: the handler only writes a byte to a pipe, and the event loop closes the window when it reads it.
int g_quit_pipe[2] = {-1, -1};

void on_quit_signal(int)
{
    const char b = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_quit_pipe[1], &b, 1);
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Sightline"));
    QApplication::setApplicationName(QStringLiteral("sightline"));
    QApplication::setApplicationDisplayName(QStringLiteral("Sightline"));
    QApplication::setApplicationVersion(QStringLiteral(SIGHTLINE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QObject::tr("Diagnoses GPU traces of LLM inference."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("trace"), QObject::tr("Trace files to open (several: one per rank)."),
                                 QStringLiteral("[TRACE...]"));
    QCommandLineOption language(QStringLiteral("language"), QObject::tr("User interface language (en, zh_CN)."),
                                QStringLiteral("code"));
    // Hidden helpers for documentation and visual checks: save a picture of the window once loading finished.
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QString(), QStringLiteral("file"));
    screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption size(QStringLiteral("size"), QString(), QStringLiteral("WxH"));
    size.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption pane(QStringLiteral("pane"), QString(), QStringLiteral("name"));
    pane.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption select(QStringLiteral("select-kernel"), QString(), QStringLiteral("index"));
    select.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption find(QStringLiteral("find"), QString(), QStringLiteral("text"));
    find.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(find);
    // Visual checks: the timeline's window and a selected range as fractions of the GPU activity ("0.4:0.45"), and
    // the lanes scrolled to the first CPU-operator flame chart.
    QCommandLineOption windowFraction(QStringLiteral("window"), QString(), QStringLiteral("a:b"));
    windowFraction.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(windowFraction);
    QCommandLineOption rangeFraction(QStringLiteral("range"), QString(), QStringLiteral("a:b"));
    rangeFraction.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(rangeFraction);
    QCommandLineOption scrollCpu(QStringLiteral("scroll-to-cpu-ops"));
    scrollCpu.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(scrollCpu);
    QCommandLineOption layoutReport(QStringLiteral("layout-report"), QString(), QStringLiteral("file"));
    layoutReport.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(layoutReport);
    QCommandLineOption resetLayout(QStringLiteral("reset-layout"));
    resetLayout.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(resetLayout);
    QCommandLineOption theme(QStringLiteral("theme"), QString(), QStringLiteral("system|light|dark"));
    theme.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(theme);
    QCommandLineOption compare(QStringLiteral("compare"), QString(), QStringLiteral("after-trace"));
    compare.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(compare);
    // Hidden: hover the Roofline's point with the most time once loaded (its tooltip shows in --screenshot), and
    // write every visible text of the window beside the screenshot (the language test reads it).
    // docs screenshots: click bin B of the Gaps pane once loaded and, with ":row", choose that row of its gap list
    QCommandLineOption gapBin(QStringLiteral("gap-bin"), QString(), QStringLiteral("bin[:row]"));
    gapBin.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(gapBin);
    QCommandLineOption hoverRoofline(QStringLiteral("hover-roofline"));
    hoverRoofline.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(hoverRoofline);
    QCommandLineOption textReport(QStringLiteral("text-report"), QString(), QStringLiteral("file"));
    textReport.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(textReport);
    QCommandLineOption exportReport(QStringLiteral("export-report"), QString(), QStringLiteral("file"));
    exportReport.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(exportReport);
    // tests/bench/gui-scale.sh: drive zoom, pan and clicks once loaded; timings and peak RSS to a JSON file.
    QCommandLineOption driveBench(QStringLiteral("drive-bench"), QString(), QStringLiteral("file"));
    driveBench.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(driveBench);
    // The trace of a server's CUDA/HIP graph capture: replayed kernels inherit its CPU ops and shapes (graph_join.h).
    QCommandLineOption captureTrace(QStringLiteral("capture-trace"),
                                    QObject::tr("Trace of the graph capture, a file or a folder (repeatable); default: "
                                                "a capture_traces/ folder beside the trace."),
                                    QStringLiteral("path"));
    parser.addOption(captureTrace);
    parser.addOption(pane);
    parser.addOption(select);
    parser.addOption(language);
    parser.addOption(screenshot);
    parser.addOption(size);
    parser.process(app);
    sl::applyTheme(parser.isSet(theme) ? parser.value(theme) : sl::WorkbenchSettings::load().theme);

    const QString lang = parser.isSet(language)
                             ? parser.value(language)
                             : QSettings().value(QStringLiteral("language"), QStringLiteral("en")).toString();
    sl::installLanguage(lang);

    sl::MainWindow window;
    if (parser.isSet(captureTrace)) {
        sl::LoadOptions load;
        for (const QString& c : parser.values(captureTrace))
            load.capture_traces.push_back(c.toStdString());
        window.jobRunner()->setLoader([load](const std::vector<std::string>& paths, const sl::LoadControl& control) {
            return sl::load_workspace(paths, load, control);
        });
    }
    if (parser.isSet(language)) {
        // Findings come from the rules in the interface's language too.
        sl::WorkbenchSettings settings = window.jobRunner()->settings();
        settings.language = lang;
        window.applySettings(settings);
    }
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    if (!parser.isSet(size) && window.wantsMaximised())
        window.showMaximized();   // a small screen (no saved geometry): all of it
    else
        window.show();
    if (parser.isSet(resetLayout))
        QTimer::singleShot(0, &window, [&window] { window.resetLayout(); });
    if (parser.isSet(find))
        QObject::connect(&window, &sl::MainWindow::jobFinished, &window, [&window, text = parser.value(find)] {
            window.searchBar()->activate();
            window.searchBar()->search(text);
            window.searchBar()->next();
        });
    if (parser.isSet(pane))
        window.raisePane(parser.value(pane));
    if (parser.isSet(hoverRoofline))
        QObject::connect(&window, &sl::MainWindow::jobFinished, &window, [&window] {
            window.raisePane(QStringLiteral("roofline"));
            QTimer::singleShot(250, &window, [&window] {
                if (auto* roof = window.findChild<sl::RooflineView*>())
                    if (!roof->labelledRows().empty())
                        roof->showHover(roof->labelledRows().front());
            });
        });
    if (parser.isSet(gapBin))
        QObject::connect(&window, &sl::MainWindow::jobFinished, &window, [&window, spec = parser.value(gapBin)] {
            window.raisePane(QStringLiteral("gaps"));
            if (auto* gaps = window.findChild<sl::GapHistogramView*>()) {
                gaps->selectBucket(spec.section(QLatin1Char(':'), 0, 0).toInt());
                if (spec.contains(QLatin1Char(':')))
                    gaps->showGapRow(spec.section(QLatin1Char(':'), 1, 1).toInt());
            }
        });
    if (parser.isSet(select))
        QObject::connect(&window, &sl::MainWindow::jobFinished, &window,
                         [&window, k = parser.value(select).toLongLong()] { window.selectKernel(k); });
    // "a:b" as fractions of the GPU activity window, in ns.
    auto fractions = [](const QString& text, const sl::TimelineIndex& idx) -> std::pair<qint64, qint64> {
        const QStringList ab = text.split(QLatin1Char(':'));
        const double a = ab.value(0).toDouble(), b = ab.value(1, QStringLiteral("1")).toDouble();
        const double span = double(idx.gpuEnd() - idx.gpuStart());
        return {idx.gpuStart() + qint64(a * span), idx.gpuStart() + qint64(b * span)};
    };
    if (parser.isSet(windowFraction) || parser.isSet(rangeFraction) || parser.isSet(scrollCpu))
        QObject::connect(&window, &sl::MainWindow::jobFinished, &window, [&, fractions] {
            const auto idx = window.document()->timeline();
            if (!idx)
                return;
            if (parser.isSet(windowFraction)) {
                const auto [a, b] = fractions(parser.value(windowFraction), *idx);
                window.timeline()->setWindow({a, b});
            }
            if (parser.isSet(rangeFraction)) {
                const auto [a, b] = fractions(parser.value(rangeFraction), *idx);
                window.showRange(a, b);
            }
            if (parser.isSet(scrollCpu))
                for (size_t i = 0; i < idx->lanes().size(); ++i)
                    if (idx->lanes()[i].rangeKinds & (1u << uint8_t(sl::RangeKind::CpuOp))) {
                        // the thread's API lane above its operators, when there is one
                        window.timeline()->scrollToLane(i > 0 && idx->lanes()[i - 1].kind == sl::LaneKind::ApiThread ? int(i) - 1 : int(i));
                        break;
                    }
        });

    if (parser.isSet(compare)) {
        // Opens the compare pane against AFTER once the trace is loaded; a screenshot waits for the comparison.
        QObject::connect(&window, &sl::MainWindow::jobFinished, &window,
                         [&window, after = parser.values(compare)] { window.compareWith(after); });
    }
    if (parser.isSet(screenshot)) {
        app.setProperty("sightlineNoDialogs", true);
        const QString file = parser.value(screenshot);
        const QString layoutFile = parser.value(layoutReport);
        const QString textFile = parser.value(textReport);
        auto shoot = [&window, file, layoutFile, textFile] {
            QTimer::singleShot(500, &window, [&window, file, layoutFile, textFile] {
                if (!layoutFile.isEmpty()) {
                    QFile out(layoutFile);
                    if (out.open(QIODevice::WriteOnly | QIODevice::Truncate))
                        out.write(window.layoutReport().toUtf8());
                }
                if (!textFile.isEmpty()) {
                    QFile out(textFile);
                    if (out.open(QIODevice::WriteOnly | QIODevice::Truncate))
                        out.write(sl::visibleTexts(&window).join(QLatin1Char('\n')).toUtf8());
                }
                sl::grabWithToolTips(&window).save(file);
                QApplication::quit();
            });
        };
        if (parser.isSet(compare))
            QObject::connect(&window, &sl::MainWindow::comparisonFinished, &window, shoot);
        else if (parser.positionalArguments().size() == 1 && QFileInfo(parser.positionalArguments().first()).isDir())
            QObject::connect(&window, &sl::MainWindow::ranksOpened, &window, shoot);   // a folder of ranks
        else
            QObject::connect(&window, &sl::MainWindow::jobFinished, &window, shoot);
        if (parser.positionalArguments().isEmpty())
            shoot();
    }
    if (parser.isSet(exportReport)) {
        // Scripted export through the GUI's own path (used to check that it matches sightline-cli report).
        app.setProperty("sightlineNoDialogs", true);
        const QString file = parser.value(exportReport);
        QObject::connect(&window, &sl::MainWindow::jobFinished, &window, [&window, file] { window.exportReportTo(file); });
        QObject::connect(&window, &sl::MainWindow::reportWritten, &app,
                         [](bool ok, const QString&) { QApplication::exit(ok ? 0 : 2); });
    }
    if (parser.isSet(driveBench)) {
        app.setProperty("sightlineNoDialogs", true);
        auto* drive = new sl::ScaleDrive(&window, parser.value(driveBench), 200);
        drive->start();
    }
    if (::pipe(g_quit_pipe) == 0) {
        auto* quit = new QSocketNotifier(g_quit_pipe[0], QSocketNotifier::Read, &app);
        QObject::connect(quit, &QSocketNotifier::activated, &window, [&window] {
            char b;
            [[maybe_unused]] const ssize_t n = ::read(g_quit_pipe[0], &b, 1);
            window.close();   // closeEvent saves the layout and cancels the running job
            QApplication::quit();
        });
        std::signal(SIGTERM, on_quit_signal);
        std::signal(SIGINT, on_quit_signal);
    }
    window.openFiles(parser.positionalArguments());
    const int rc = app.exec();
    // Quitting ends the process within a second (issue 36 §7): the window's close cancelled the running job, and the
    // destructors below wait for it; a job still inside a step that checks no cancel flag is not waited for longer.
    // Nothing the user made is lost: every knowledge-base write is its own transaction, and closeEvent synced the
    // settings.
    std::thread([rc] {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        std::fflush(nullptr);
        std::_Exit(rc);
    }).detach();
    return rc;
}

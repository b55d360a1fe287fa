// The assembled workbench window (app/gui/main_window.cpp, linked as the sightline_workbench library): who owns the
// keyboard after a trace is opened through File › Open's dialog (driven as a user drives it: Ctrl+O, the path typed
// into the dialog, Enter) and from the command line (MainWindow::openFiles, what main() calls), and the share of the
// window's height the timeline gets at 1280×720 and 1920×1080, fresh and restored from the other size.
//
// The keys go through the window (QTest on its QWindow: the application's shortcut map, then the focus widget), as
// a user's keys do. Before the fix, after Ctrl+O the W keys went into the Kernels tab's filter field, hidden behind
// the Findings tab, and Ctrl+E did nothing.
#include <QAbstractItemView>
#include <QApplication>
#include <QCompleter>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTableView>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QScreen>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>

#include "analysis/io/kineto_writer.h"
#include "analysis/io/synthetic.h"
#include "main_window.h"
#include "model/job_runner.h"
#include "widgets/suggestions_view.h"
#include "widgets/summary_table_view.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "tests/support/qt_fixtures.h"
#include "widgets/timeline_view.h"
#include "tests/support/long_names.h"

using namespace sl;

namespace {

QString tmpDir()
{
    const QByteArray d = qgetenv("SIGHTLINE_TEST_TMP");
    const QString dir = (d.isEmpty() ? QDir::tempPath() : QString::fromLocal8Bit(d)) + QStringLiteral("/main_window");
    QDir().mkpath(dir);
    return dir;
}

// A small decode trace written as Kineto JSON (so the open goes through the real reader).
QString sampleTrace()
{
    const QString path = tmpDir() + QStringLiteral("/decode.json");
    if (!QFileInfo::exists(path)) {
        SynthOptions o = synth_preset("decode");
        o.decode_steps = 12;
        write_kineto_json(make_synthetic_trace(o), path.toStdString());
    }
    return path;
}

// The decode trace with problems planted (host starvation, a sync per step, pageable copies): rules fire and
// propose changes, so the Suggestions pane has rows.
QString plantedTrace()
{
    const QString path = tmpDir() + QStringLiteral("/planted_decode.json");
    if (!QFileInfo::exists(path)) {
        SynthOptions o = testing::plantedDecode();
        o.decode_steps = 12;
        write_kineto_json(make_synthetic_trace(o), path.toStdString());
    }
    return path;
}

// Runs `handle` on the next modal dialog of type D once it is up (polled, so it also works inside the dialog's own
// event loop); returns a flag that says it ran.
template <class D>
std::shared_ptr<bool> onNextDialog(std::function<void(D*)> handle)
{
    auto done = std::make_shared<bool>(false);
    auto* timer = new QTimer;
    timer->setInterval(20);
    auto tries = std::make_shared<int>(0);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, handle, done, tries] {
        if (qEnvironmentVariableIsSet("TST_DEBUG"))
            qDebug() << "modal" << QApplication::activeModalWidget() << QApplication::activeWindow();
        if (auto* d = qobject_cast<D*>(QApplication::activeModalWidget())) {
            timer->stop();
            timer->deleteLater();
            *done = true;
            handle(d);
        } else if (++*tries > 500) {
            timer->stop();
            timer->deleteLater();
        }
    });
    timer->start();
    return done;
}

SummaryTableView* kernelsTable(MainWindow& w)
{
    for (auto* t : w.findChildren<SummaryTableView*>())
        if (t->filterEdit())
            return t;
    return nullptr;
}

void press(MainWindow& w, Qt::Key key, Qt::KeyboardModifiers mods = Qt::NoModifier)
{
    QTest::keyClick(w.windowHandle(), key, mods);
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

    // A closed dialog leaves the main window inactive on the offscreen platform (no window manager gives it back):
    // activate it as the window manager does. Which widget then has the keys is the window's own focus widget,
    // what the fix sets (before it, the hidden filter field of the Kernels tab).
    static void reactivate(MainWindow& w)
    {
        if (QApplication::activeWindow() == &w)
            return;
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
    }

    void clearSettings()
    {
        QSettings s;
        s.clear();
        s.sync();
    }

    // W zooms the timeline three times and Ctrl+E opens the export dialog: the keys reach them through the window.
    void keysReachTheTimeline(MainWindow& w)
    {
        TimelineView* t = w.timeline();
        QVERIFY(t->index());
        reactivate(w);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(t));
        const timeline::Window before = t->window();
        for (int i = 0; i < 3; ++i)
            press(w, Qt::Key_W);
        const double ratio = double(t->window().duration()) / double(before.duration());
        QVERIFY2(std::fabs(ratio - 0.7 * 0.7 * 0.7) < 0.01, qPrintable(QString::number(ratio)));
        // Nothing went to the hidden Kernels filter (it would have emptied the table).
        SummaryTableView* kernels = kernelsTable(w);
        QVERIFY(kernels);
        QVERIFY2(kernels->filterEdit()->text().isEmpty(), qPrintable(kernels->filterEdit()->text()));
        QString title;
        const auto seen = onNextDialog<QFileDialog>([&title](QFileDialog* d) {
            title = d->windowTitle();
            d->reject();
        });
        press(w, Qt::Key_E, Qt::ControlModifier);
        QTRY_VERIFY(*seen);
        QCOMPARE(title, MainWindow::tr("Export Report"));
        // Closing the dialog gives the keys back to the timeline.
        QCOMPARE(w.focusWidget(), static_cast<QWidget*>(t));
        reactivate(w);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(t));
        const int64_t d = t->window().duration();
        press(w, Qt::Key_S);
        QVERIFY(t->window().duration() > d);
    }

private slots:
    void initTestCase()
    {
        QApplication::setOrganizationName(QStringLiteral("SightlineTest"));
        QApplication::setApplicationName(QStringLiteral("tst_main_window"));
        qApp->setProperty("sightlineNoDialogs", true);   // no message boxes (a failed load would block)
    }

    void init() { clearSettings(); }

    // Issue 36 §7: the status bar's Cancel stops an analysis inside its longest stage (seconds of class patterns over
    // 30,000 long kernel names), within a second; and closing the window during an analysis ends the job within a
    // second too (the window's JobRunner cancels and waits for its worker).
    void cancelStopsTheAnalysisAndQuitWithinASecond()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.json"));
        std::ofstream(path.toStdString()) << R"({"traceEvents": []})";
        auto w = std::make_unique<MainWindow>();
        w->jobRunner()->setLoader(
            [](const std::vector<std::string>&, const LoadControl&) { return sl::test::long_kernel_names(); });
        QSignalSpy summary(w->jobRunner(), &JobRunner::summaryReady);
        QSignalSpy analysed(w->jobRunner(), &JobRunner::analysisReady);
        QSignalSpy cancelled(w->jobRunner(), &JobRunner::cancelled);
        w->show();
        w->openFiles({path});
        QTRY_COMPARE_WITH_TIMEOUT(summary.count(), 1, 60'000);
        QToolButton* cancel = nullptr;
        for (auto* b : w->statusBar()->findChildren<QToolButton*>())
            if (b->text() == QObject::tr("Cancel"))
                cancel = b;
        QVERIFY(cancel && cancel->isVisible());
        QElapsedTimer clock;
        clock.start();
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 30'000);
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QStringLiteral("cancelled after %1 ms").arg(clock.elapsed())));
        QCOMPARE(analysed.count(), 0);
        w->openFiles({path});
        QTRY_COMPARE_WITH_TIMEOUT(summary.count(), 2, 60'000);
        clock.restart();
        w->close();
        w.reset();
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QStringLiteral("quit after %1 ms").arg(clock.elapsed())));
    }

    // File › Open: Ctrl+O, the path typed into the dialog's file name field, Enter. The Kernels filter had the
    // keyboard before (the user typed there, then raised the Findings tab over it): after the open, the timeline
    // has it, W zooms and Ctrl+E exports.
    // Issue 37: a trace opened with its config.json is one trace: the title names it, not "2 files".
    void titleNamesTheTraceNotItsConfig()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("decode.json"));
        const QString config = dir.filePath(QStringLiteral("config.json"));
        std::ofstream(trace.toStdString()) << R"({"traceEvents": []})";
        std::ofstream(config.toStdString())
            << R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
                   "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 128, "vocab_size": 256})";
        MainWindow w;
        w.jobRunner()->setLoader([](const std::vector<std::string>&, const LoadControl&) {
            Trace t;
            t.kernels.append(0, 10, t.strings.intern("k"));
            t.finish();
            return t;
        });
        QSignalSpy loaded(w.jobRunner(), &JobRunner::traceLoaded);
        w.openFiles({trace, config});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30'000);
        QTRY_COMPARE(w.windowTitle(), QStringLiteral("decode.json — Sightline"));
        w.jobRunner()->waitForDone();
    }

    void openThroughTheDialogGivesTheTimelineTheKeys()
    {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        SummaryTableView* kernels = kernelsTable(w);
        QVERIFY(kernels);
        w.raisePane(QStringLiteral("kernels"));
        kernels->filterEdit()->setFocus();
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(kernels->filterEdit()));
        w.raisePane(QStringLiteral("findings"));
        QTRY_VERIFY(kernels->filterEdit()->visibleRegion().isEmpty());

        const QString path = sampleTrace();
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        const auto typed = onNextDialog<QFileDialog>([path](QFileDialog* d) {
            auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
            if (qEnvironmentVariableIsSet("TST_DEBUG"))
                qDebug() << "file dialog" << d << name << d->findChildren<QLineEdit*>();
            QVERIFY(name);
            // The path as pasted into the field (typed key by key, QFileDialog follows each "/" into the folder
            // and the completer rewrites the text as it goes).
            name->setFocus();
            name->setText(path);
            // The file name completer's popup (if it opened) would take the Enter: close it first, as Esc would.
            if (name->completer() && name->completer()->popup() && name->completer()->popup()->isVisible())
                name->completer()->popup()->hide();
            QTest::keyClick(name, Qt::Key_Return);
            if (qEnvironmentVariableIsSet("TST_DEBUG"))
                qDebug() << "after Enter: visible" << d->isVisible() << "text" << name->text() << d->selectedFiles();
        });
        press(w, Qt::Key_O, Qt::ControlModifier);
        QTRY_VERIFY(*typed);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(finished.first().first().toBool(), true);
        QCOMPARE(w.document()->paths(), QStringList{QFileInfo(path).absoluteFilePath()});
        keysReachTheTimeline(w);
    }

    // The command line: main() shows the window, then opens the files.
    void openFromTheCommandLineGivesTheTimelineTheKeys()
    {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.openFiles({sampleTrace()});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        keysReachTheTimeline(w);
    }

    // Keys sent to a widget that is not on screen go to the timeline, and do not stop a menu shortcut.
    void hiddenFieldsTakeNoKeys()
    {
        MainWindow w;
        w.resize(1280, 720);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.openFiles({sampleTrace()});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        SummaryTableView* kernels = kernelsTable(w);
        w.raisePane(QStringLiteral("kernels"));
        kernels->filterEdit()->setFocus();
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(kernels->filterEdit()));
        // On screen and focused: the field takes the typing.
        press(w, Qt::Key_G);
        QCOMPARE(kernels->filterEdit()->text(), QStringLiteral("g"));
        kernels->filterEdit()->clear();
        w.raisePane(QStringLiteral("findings"));
        QTRY_VERIFY(kernels->filterEdit()->visibleRegion().isEmpty());
        const int64_t d = w.timeline()->window().duration();
        press(w, Qt::Key_W);
        QVERIFY(kernels->filterEdit()->text().isEmpty());
        QVERIFY(w.timeline()->window().duration() < d);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.timeline()));
    }

    // The first window fits the screen it opens on (issue 37 §5: the 1280×800 default hung off a 1366×768 laptop
    // screen, its tabs and status bar cut off): maximised on a small screen, 85 % of a large one, centred.
    void defaultGeometryFitsTheScreen()
    {
        bool max = false;
        const QRect laptop(0, 0, 1366, 740);   // 1366×768 less a 28 px panel
        QCOMPARE(MainWindow::defaultGeometry(laptop, &max), laptop);
        QVERIFY(max);
        const QRect hd(0, 32, 1920, 1048);
        const QRect g = MainWindow::defaultGeometry(hd, &max);
        QVERIFY(!max);
        QVERIFY(hd.contains(g));
        QCOMPARE(g.size(), QSize(1632, 890));
        QVERIFY((g.center() - hd.center()).manhattanLength() <= 2);
        const QRect wide(1920, 0, 2560, 1400);   // a second screen to the right
        QVERIFY(wide.contains(MainWindow::defaultGeometry(wide, &max)));
        QVERIFY(!max);
        // A window without saved geometry takes it from its screen (offscreen: the platform's screen).
        MainWindow w;
        const QRect avail = w.screen()->availableGeometry();
        QVERIFY2(avail.contains(w.geometry()), qPrintable(QStringLiteral("%1,%2 %3x%4 on %5x%6")
                                                             .arg(w.x()).arg(w.y()).arg(w.width()).arg(w.height())
                                                             .arg(avail.width()).arg(avail.height())));
    }

    // Ctrl+B folds every pane away and the timeline takes the whole window, as Perfetto's side panel folds; again,
    // the panes come back where they were, the same tabs raised; a window closed with its panes folded saves them.
    void panesFoldWithOneKey()
    {
        MainWindow w;
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.openFiles({sampleTrace()});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        auto* findings = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
        auto* overview = w.findChild<QDockWidget*>(QStringLiteral("overviewDock"));
        QVERIFY(findings && overview);
        QTRY_VERIFY(findings->isVisible() && overview->isVisible());
        const int before = w.timeline()->height() * w.timeline()->width();
        press(w, Qt::Key_B, Qt::ControlModifier);
        QVERIFY(w.panesHidden());
        QTRY_VERIFY(!findings->isVisible() && !overview->isVisible());
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            QVERIFY2(d->isFloating() || !d->isVisible(), qPrintable(d->objectName()));
        // The timeline now spans the window's width and most of its height.
        QTRY_VERIFY2(w.timeline()->width() >= w.width() * 95 / 100,
                     qPrintable(QStringLiteral("%1 of %2").arg(w.timeline()->width()).arg(w.width())));
        QVERIFY(w.timeline()->height() * w.timeline()->width() > before);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.timeline()));
        press(w, Qt::Key_B, Qt::ControlModifier);
        QVERIFY(!w.panesHidden());
        QTRY_VERIFY(findings->isVisible() && overview->isVisible());
        QVERIFY(!findings->visibleRegion().isEmpty());   // the raised tab is raised again
        // Closed with the panes folded, the saved layout has them.
        press(w, Qt::Key_B, Qt::ControlModifier);
        QVERIFY(w.panesHidden());
        w.close();
        MainWindow again;
        again.resize(1366, 768);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        auto* restored = again.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
        QTRY_VERIFY(restored && restored->toggleViewAction()->isChecked());
    }

    // The first view gives the timeline at least half the window's height at 1280×720 and 1920×1080, and keeps it
    // when the layout saved at one size is restored at the other.
    void timelineGetsHalfTheHeight_data()
    {
        QTest::addColumn<QSize>("first");
        QTest::addColumn<QSize>("second");
        QTest::newRow("1280x720 then 1920x1080") << QSize(1280, 720) << QSize(1920, 1080);
        QTest::newRow("1920x1080 then 1280x720") << QSize(1920, 1080) << QSize(1280, 720);
        QTest::newRow("1366x768 then 1920x1080") << QSize(1366, 768) << QSize(1920, 1080);
    }
    void timelineGetsHalfTheHeight()
    {
        QFETCH(QSize, first);
        QFETCH(QSize, second);
        for (const QSize& size : {first, second}) {
            MainWindow w;
            w.resize(size);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QCOMPARE(w.size(), size);
            QSignalSpy finished(&w, &MainWindow::jobFinished);
            w.openFiles({sampleTrace()});
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
            QTest::qWait(300);
            if (qEnvironmentVariableIsSet("TST_DEBUG"))
                qDebug().noquote() << w.layoutReport();
            QTRY_VERIFY2(w.timeline()->height() >= size.height() / 2,
                         qPrintable(QStringLiteral("timeline %1 px of %2").arg(w.timeline()->height()).arg(size.height())));
            // Not more than the bottom panes can give: the raised one (Findings) keeps its minimum.
            auto* findings = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
            QVERIFY(findings && findings->isVisible());
            QVERIFY(findings->height() >= findings->minimumHeight());
            w.close();   // saves the layout the next window restores
        }
    }

    // Issue 37 §1: in the default layout (the Suggestions tab raised in the bottom dock under a timeline given half
    // the window), selecting a suggestion leaves its note field on screen, two lines at least, at 1366×768 and
    // 1920×1080, in English and with the Chinese texts; a note typed there is kept after selecting another suggestion
    // and coming back, and reaches the knowledge base without leaving the field. Before: the details and the note
    // folded to 0 px as soon as a suggestion was selected.
    void suggestionNoteFieldShownInTheDefaultLayout_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("lang");
        QTest::newRow("1366x768 en") << QSize(1366, 768) << QStringLiteral("en");
        QTest::newRow("1366x768 zh_CN") << QSize(1366, 768) << QStringLiteral("zh_CN");
        QTest::newRow("1920x1080 en") << QSize(1920, 1080) << QStringLiteral("en");
    }
    void suggestionNoteFieldShownInTheDefaultLayout()
    {
        QFETCH(QSize, size);
        QFETCH(QString, lang);
        QFile::remove(QString::fromStdString(KnowledgeBase::default_path()));   // (XDG_DATA_HOME under test-tmp)
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.openFiles({plantedTrace()});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        auto* view = w.findChild<SuggestionsView*>();
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("suggestionsDock"));
        QVERIFY(view && dock);
        view->setLanguage(lang);
        dock->raise();
        QTRY_VERIFY2_WITH_TIMEOUT(view->model()->rowCount() >= 3, qPrintable(view->hintText()), 30000);
        QTest::qWait(200);   // the first view's fit
        QVERIFY2(w.timeline()->height() >= size.height() / 2,
                 qPrintable(QStringLiteral("timeline %1 px of %2").arg(w.timeline()->height()).arg(size.height())));
        QTableView* table = view->table();
        auto* edit = view->findChild<QPlainTextEdit*>(QStringLiteral("annotationEdit"));
        QVERIFY(edit);
        auto clickRow = [table](int row) {
            const QRect r = table->visualRect(table->model()->index(row, SuggestionModel::Text));
            QVERIFY(r.isValid() && table->viewport()->rect().intersects(r));
            QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, r.center());
        };
        clickRow(0);
        const qint64 first = view->currentId();
        QVERIFY(first > 0);
        QTest::qWait(50);
        QVERIFY(edit->isVisible());
        const int shown = edit->visibleRegion().boundingRect().height();
        QVERIFY2(edit->height() > 0 && shown >= edit->fontMetrics().lineSpacing() * 2,
                 qPrintable(QStringLiteral("note field %1 px, %2 px on screen; Suggestions pane %3 px")
                                .arg(edit->height())
                                .arg(shown)
                                .arg(view->height())));
        if (qEnvironmentVariableIsSet("TST_DEBUG"))
            qDebug().noquote() << w.layoutReport() << view->minimumSizeHint() << view->sizeHint() << view->size()
                               << dock->size();
        QVERIFY(w.grab().save(tmpDir() + QStringLiteral("/suggestions_default_%1x%2_%3.png")
                                             .arg(size.width())
                                             .arg(size.height())
                                             .arg(lang)));
        // A note typed, another suggestion, back: the note is there (and in the knowledge base).
        QTest::mouseClick(edit->viewport(), Qt::LeftButton, Qt::NoModifier, edit->viewport()->rect().center());
        QTRY_VERIFY(edit->hasFocus());
        QTest::keyClicks(edit, QStringLiteral("kept across selections"));
        QTest::qWait(SuggestionsView::kSaveDelayMs + 200);
        const QString kb = QString::fromStdString(KnowledgeBase::default_path());
        QTRY_VERIFY(QFileInfo::exists(kb));
        QTRY_COMPARE(QString::fromStdString(testing::storedSuggestion(kb, first)->annotation),
                     QStringLiteral("kept across selections"));
        clickRow(1);
        QVERIFY(view->currentId() != first);
        QVERIFY(edit->toPlainText() != QStringLiteral("kept across selections"));
        QVERIFY(view->selectSuggestion(first));
        QCOMPARE(edit->toPlainText(), QStringLiteral("kept across selections"));
        w.close();
    }

    // A layout the user arranged (automatic layout off) and saved at 1920×1080 keeps its proportions when restored
    // at 1280×720: the bottom pane's share of the height, not its pixels (which would leave the timeline 2–3 lanes).
    void userLayoutRestoredToScale()
    {
        int findingsAt1080 = 0, timelineAt1080 = 0;
        {
            MainWindow w;
            w.resize(1920, 1080);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QSignalSpy finished(&w, &MainWindow::jobFinished);
            w.openFiles({sampleTrace()});
            QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
            QTest::qWait(200);
            w.setAutomaticLayout(false);   // what dragging a splitter does
            auto* findings = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
            w.resizeDocks({findings}, {320}, Qt::Vertical);
            QTRY_VERIFY(std::abs(findings->height() - 320) < 40);
            findingsAt1080 = findings->height();
            timelineAt1080 = w.timeline()->height();
            w.close();
        }
        MainWindow w;
        QVERIFY(!w.automaticLayout());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* findings = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
        const int want = findingsAt1080 * 720 / 1080;
        QTRY_VERIFY2(std::abs(findings->height() - want) <= 12,
                     qPrintable(QStringLiteral("Findings %1 px, %2 px at 1080 -> %3 expected").arg(findings->height()).arg(findingsAt1080).arg(want)));
        // The timeline is on screen once a trace is open (the start page stands in its place before): it keeps its
        // share too, and the user's layout is not refitted by the load.
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.openFiles({sampleTrace()});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QTest::qWait(200);
        QVERIFY(!w.automaticLayout());
        QVERIFY2(std::abs(findings->height() - want) <= 12,
                 qPrintable(QStringLiteral("Findings %1 px after the load, %2 expected").arg(findings->height()).arg(want)));
        QVERIFY2(w.timeline()->height() * 1080 >= timelineAt1080 * 720 * 8 / 10,
                 qPrintable(QStringLiteral("timeline %1 px, %2 px at 1080").arg(w.timeline()->height()).arg(timelineAt1080)));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"

// The assembled window (app/gui, the sightline_workbench library) in the language it runs in, with the catalogues
// installed the way main() installs them (sl::installLanguage):
//   - under zh_CN, Qt's own catalogue is there: the standard buttons (OK, Cancel, Restore Defaults) are Chinese;
//   - under zh_CN, with a planted trace open, a kernel selected and a range summed, no English is left on what a
//     person sees: every pane raised in turn (labels, buttons, tabs, dock titles, table headers, rich-text panes,
//     chart titles and legends: sl::visibleTexts) and every action of every menu, with its tooltip. Allowed: the
//     trace's own names (every token of its string pool), acronyms, units, file names, and the English terms the
//     Chinese vocabulary keeps (the ASCII words of the zh_CN texts of the rules and reports: "trace", "Roofline").
//     The same check on the English window finds English (so it can fail);
//   - `--language en` with zh_CN saved: the window is English and the Language menu ticks English, not 简体中文.
// The catalogues are the ones the build compiles for the app (build/dev/app/sightline_*.qm: this test depends on
// the sightline target).
#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QDialog>
#include <QComboBox>
#include <QTimer>
#include <QSpinBox>
#include <QTabWidget>
#include <QAbstractItemView>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTranslator>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/diagnosis/rules.h"
#include "analysis/report/report_strings.h"
#include "model/suggestion_model.h"
#include "widgets/suggestions_view.h"
#include "language.h"
#include "main_window.h"
#include "model/document.h"
#include "model/workbench_settings.h"
#include "tests/support/qt_fixtures.h"
#include "visible_text.h"
#include "widgets/settings_dialog.h"
#include "widgets/shortcuts.h"

using namespace sl;

namespace {

const QString kCatalogues = QStringLiteral(SIGHTLINE_CATALOGUE_DIR);

// Removes what an earlier installLanguage put on the application, then installs `lang`.
InstalledLanguage useLanguage(const QString& lang)
{
    for (QTranslator* t : qApp->findChildren<QTranslator*>(Qt::FindDirectChildrenOnly)) {
        QCoreApplication::removeTranslator(t);
        delete t;
    }
    return installLanguage(lang, kCatalogues);
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// ASCII words of two letters or more (so "OK", "of", "in" count).
QStringList asciiWords(const QString& s)
{
    static const QRegularExpression word(QStringLiteral("[A-Za-z]{2,}"));
    QStringList out;
    for (auto it = word.globalMatch(s); it.hasNext();)
        out << it.next().captured();
    return out;
}

void addWords(std::set<QString>& to, const std::string& s)
{
    for (const QString& w : asciiWords(QString::fromStdString(s)))
        to.insert(w);
}

void zhTexts(const nlohmann::json& j, std::set<QString>& to)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if ((it.key() == "zh_CN" || it.key() == "zh" || it.key() == "label_zh_CN") && it.value().is_string())
                addWords(to, it.value().get<std::string>());
            else
                zhTexts(it.value(), to);
        }
    } else if (j.is_array()) {
        for (const auto& x : j)
            zhTexts(x, to);
    }
}

// Words a Chinese window may show: the trace's own names, the zh vocabulary's English terms, units.
std::set<QString> allowedWords(const Trace& t)
{
    std::set<QString> ok;
    for (size_t i = 0; i < t.strings.size(); ++i)
        addWords(ok, std::string(t.strings.view(StrId(i))));
    for (const auto& d : t.meta.devices)
        addWords(ok, d.name);
    addWords(ok, t.meta.format);   // "nsys-sqlite"
    for (const auto& e : report::string_table())
        addWords(ok, e.zh);
    const std::filesystem::path rules = shipped_rules_dir();
    // The rules' Chinese texts, and their ids (names, like a kernel's: "rule decode-host-bound").
    for (const auto& f : std::filesystem::directory_iterator(rules))
        if (f.path().extension() == ".json") {
            const nlohmann::json j = nlohmann::json::parse(slurp(f.path().string()));
            zhTexts(j, ok);
            for (const auto& r : j.value("rules", nlohmann::json::array()))
                if (r.is_object() && r.contains("id") && r["id"].is_string())
                    addWords(ok, r["id"].get<std::string>());
        }
    zhTexts(nlohmann::json::parse(slurp((rules.parent_path() / "kernel_classes.json").string())), ok);
    // Units (SI prefixes on FLOP, bytes and seconds) and the product's name.
    for (const char* w : {"ns", "us", "ms", "FLOP", "FLOPs", "TFLOP", "GFLOP", "PFLOP", "MFLOP", "kFLOP", "GiB", "MiB",
                          "KiB", "TiB", "kB", "Sightline"})
        ok.insert(QString::fromLatin1(w));
    return ok;
}

// "word  <- where: text" for each text with an English word that is not allowed (acronyms are terms in both
// languages: GPU, CUDA, NVTX, SM, TPOT). File names, paths and identifiers stay as they are.
// `verbatim`: what the window quotes as it is: the command lines to be copied and run (a suggestion's verify
// command) and the titles of the documents a finding cites (its references).
QStringList englishIn(const QStringList& texts, const std::set<QString>& ok, const QStringList& verbatim = {})
{
    QStringList bad;
    for (const QString& line : texts) {
        const qsizetype tab = line.indexOf(QLatin1Char('\t'));
        QString text = tab < 0 ? line : line.mid(tab + 1);
        text.remove(QChar(0x200B));   // zero-width break hints inside names
        for (const QString& v : verbatim)
            text.replace(v, QStringLiteral("…"));
        // Commands and key names are typed as they are: "nsys profile", "Ctrl+Enter".
        text.replace(QStringLiteral("nsys profile"), QStringLiteral("nsys"));
        text.remove(QStringLiteral("Hugging Face"));   // a company's name
        static const QRegularExpression keys(QStringLiteral("\\b(Ctrl|Shift|Alt|Enter|Esc|Tab)\\b"));
        text.remove(keys);
        static const QRegularExpression identifier(QStringLiteral("^[a-z]+:[a-z_-]+$"));   // "idle:host", "class:elementwise-copy"
        QStringList kept;
        for (const QString& tok : text.split(QLatin1Char(' '), Qt::SkipEmptyParts))
            // (and identifiers: a rule's condition and metric keys, "is_decode > 0", as the rule files write them, and
            // the time-ledger's entries, "idle:host")
            if (!tok.contains(QLatin1Char('/')) && !tok.contains(QStringLiteral(".sqlite")) &&
                !tok.contains(QStringLiteral(".json")) && !tok.contains(QLatin1Char('_')) &&
                !identifier.match(tok).hasMatch())
                kept << tok;
        for (const QString& w : asciiWords(kept.join(QLatin1Char(' ')))) {
            if (w == w.toUpper() || ok.count(w))
                continue;
            // The word with what surrounds it (a rich-text pane is one long line).
            const qsizetype at = text.indexOf(w);
            bad << w + QStringLiteral("  <- ") + line.left(tab + 1) +
                       (text.size() > 160 ? QStringLiteral("…") + text.mid(std::max<qsizetype>(0, at - 60), 120) + QStringLiteral("…")
                                          : text);
            break;
        }
    }
    return bad;
}

// Every action of a menu and its submenus: "QMenu\ttext" and, when it says more than the text, its tooltip.
void menuTexts(QMenu* menu, QStringList& out)
{
    for (QAction* a : menu->actions()) {
        if (a->isSeparator())
            continue;
        const QString text = QString(a->text()).remove(QLatin1Char('&'));
        if (!text.isEmpty())
            out << QStringLiteral("QMenu\t") + text;
        const QString tip = a->toolTip();
        if (!tip.isEmpty() && tip != text)
            out << QStringLiteral("QAction tooltip\t") + tip;
        if (a->menu())
            menuTexts(a->menu(), out);
    }
}

QStringList windowTexts(MainWindow& w)
{
    QStringList texts;
    for (QAction* a : w.menuBar()->actions())
        if (a->menu())
            menuTexts(a->menu(), texts);
    // Each pane raised in turn: a tabbed dock shows its widgets only when on top.
    for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
        if (dock->isHidden())
            continue;
        dock->raise();
        QApplication::processEvents();
        texts << visibleTexts(&w);
    }
    texts.removeDuplicates();
    texts.removeAll(QStringLiteral("QMenu\tEnglish"));   // the Language menu names each language in its own
    return texts;
}

QAction* languageAction(MainWindow& w, const QString& name)
{
    for (QAction* top : w.menuBar()->actions())
        if (top->menu())
            for (QAction* a : top->menu()->actions())
                if (a->menu())
                    for (QAction* l : a->menu()->actions())
                        if (l->text() == name)
                            return l;
    return nullptr;
}

} // namespace

class TestLanguage : public QObject {
    Q_OBJECT

    QString trace_;
    QString config_;

    // The planted trace open in `w`, a kernel selected and a range summed; returns whether it loaded.
    bool openPlanted(MainWindow& w)
    {
        QSignalSpy finished(&w, &MainWindow::jobFinished);
        w.openFiles({trace_, config_});
        if (!finished.wait(60000) && finished.isEmpty())
            return false;
        if (!finished.first().first().toBool() || !w.document()->timeline())
            return false;
        w.selectKernel(40);
        const auto idx = w.document()->timeline();
        const qint64 a = idx->gpuStart(), span = idx->gpuEnd() - idx->gpuStart();
        w.showRange(a + span / 4, a + span / 2);
        QTest::qWait(300);   // the range table is summed on a worker
        return true;
    }

private slots:
    void initTestCase()
    {
        QApplication::setOrganizationName(QStringLiteral("SightlineTest"));
        QApplication::setApplicationName(QStringLiteral("tst_language"));
        qApp->setProperty("sightlineNoDialogs", true);
        QVERIFY2(QFile::exists(kCatalogues + QStringLiteral("/sightline_zh_CN.qm")), qPrintable(kCatalogues));
        const QString dir = testing::scratchDir(QStringLiteral("language"));
        const SynthOptions so = testing::plantedDecode();
        trace_ = testing::writeSyntheticNsys(dir, QStringLiteral("planted_decode.sqlite"), so);
        config_ = testing::writeModelConfig(dir, so);
    }

    void init()
    {
        QSettings s;
        s.clear();
        s.sync();
    }

    void standardButtonsAreChinese()
    {
        const InstalledLanguage done = useLanguage(QStringLiteral("zh_CN"));
        QVERIFY2(done.qt, "qtbase_zh_CN.qm is not in Qt's translations folder");
        QVERIFY(done.sightline);
        QDialogButtonBox box(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults);
        static const QRegularExpression han(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
        for (QAbstractButton* b : box.buttons()) {
            const QString text = b->text().remove(QLatin1Char('&'));
            QVERIFY2(text.contains(han) && asciiWords(text).isEmpty(), qPrintable(text));
        }
    }

    void noEnglishOnTheChineseWindow()
    {
        QSettings().setValue(QStringLiteral("language"), QStringLiteral("zh_CN"));
        QVERIFY(useLanguage(QStringLiteral("zh_CN")).sightline);
        MainWindow w;
        WorkbenchSettings settings = w.jobRunner()->settings();
        settings.language = QStringLiteral("zh_CN");   // findings from the rules in Chinese, as main() does
        w.applySettings(settings);
        w.resize(1920, 1080);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openPlanted(w));
        const auto trace = w.document()->trace();
        QVERIFY(trace);
        const std::set<QString> ok = allowedWords(*trace);
        QStringList texts = windowTexts(w);
        // The Suggestions pane's cells, not only its headers (issue 37 §7: the subject column showed ids, "gemm
        // (decode)", "trace"). What a cell may keep is what every text may: the trace's names and the vocabulary's
        // English terms ("trace" stays untranslated in the zh_CN texts of the rules and reports).
        auto* suggestions = w.findChild<SuggestionsView*>();
        QVERIFY(suggestions);
        auto* table = suggestions->findChild<QTableView*>();
        QVERIFY(table && table->model());
        QTRY_VERIFY_WITH_TIMEOUT(table->model()->rowCount() > 0, 30000);
        int cells = 0;
        for (int r = 0; r < table->model()->rowCount(); ++r)
            for (int c = 0; c < table->model()->columnCount(); ++c) {
                const QString cell = table->model()->index(r, c).data().toString();
                if (!cell.isEmpty()) {
                    texts << QStringLiteral("Suggestions cell\t") + cell;
                    ++cells;
                }
            }
        QVERIFY(cells > 0);
        // The trace's own names allow "decode" and "gemm" as words, so the subjects are checked against their ids too:
        // a class, a phase or the trace is never shown as its id.
        int idSubjects = 0;
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            const QModelIndex i = table->model()->index(r, SuggestionModel::Subject);
            const QString raw = i.data(SuggestionModel::SubjectRole).toString();
            if (raw == QLatin1String("trace") || raw == QLatin1String("decode") || raw == QLatin1String("prefill") ||
                raw.endsWith(QLatin1String(" (decode)")) || raw.endsWith(QLatin1String(" (prefill)"))) {
                ++idSubjects;
                QVERIFY2(i.data().toString() != raw, qPrintable(raw));
            }
        }
        QVERIFY(idSubjects > 0);
        // Kept for a look: what the Chinese window shows, one text a line.
        QFile dump(testing::scratchDir(QStringLiteral("language")) + QStringLiteral("/zh_CN_texts.txt"));
        if (dump.open(QIODevice::WriteOnly | QIODevice::Truncate))
            dump.write(texts.join(QLatin1Char('\n')).toUtf8());
        QVERIFY2(texts.size() > 50, qPrintable(texts.join(QLatin1Char('\n'))));
        // What the window shows in Chinese: the menus, a kernel's Details with its verdict, the range table.
        QVERIFY(texts.contains(QStringLiteral("QMenu\t打开(O)…")));
        QVERIFY2(texts.filter(QStringLiteral("判定：")).size() > 0, qPrintable(texts.join(QLatin1Char('\n'))));
        QStringList verbatim;
        for (const Finding& f : w.document()->diagnosis()->eval.findings) {
            for (const Suggestion& sg : f.suggestions)
                if (!sg.verify.empty())
                    verbatim << QString::fromStdString(verify_for(sg.verify, "zh_CN")).simplified();
            for (const std::string& r : f.references)
                verbatim << QString::fromStdString(r).simplified();
        }
        const QStringList bad = englishIn(texts, ok, verbatim);
        QVERIFY2(bad.isEmpty(), qPrintable(QStringLiteral("%1 text(s) with English:\n").arg(bad.size()) +
                                           bad.join(QLatin1Char('\n'))));
    }

    // The dialogs of the Settings and Help menus: each tab of Preferences, and every cell of the shortcuts table.
    void noEnglishInTheDialogs()
    {
        QVERIFY(useLanguage(QStringLiteral("zh_CN")).sightline);
        const Trace empty;
        std::set<QString> ok = allowedWords(empty);
        // The GPU rows of the Roofline's database are product names ("NVIDIA H100 SXM5 80GB").
        for (const char* w : {"GeForce", "Instinct", "Radeon", "Tesla", "Quadro", "Ampere", "Hopper", "Blackwell"})
            ok.insert(QString::fromLatin1(w));
        QStringList texts;
        auto cells = [&texts](QWidget* d) {
            for (QAbstractItemView* v : d->findChildren<QAbstractItemView*>())
                if (v->isVisible() && v->model())
                    for (int r = 0; r < v->model()->rowCount(); ++r)
                        for (int c = 0; c < v->model()->columnCount(); ++c)
                            texts << QStringLiteral("cell\t") + v->model()->index(r, c).data().toString();
        };
        {
            WorkbenchSettings settings = WorkbenchSettings::load();
            settings.language = QStringLiteral("zh_CN");   // as saved by a user who runs it in Chinese
            SettingsDialog d(settings);
            d.resize(900, 700);
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            for (QTabWidget* tabs : d.findChildren<QTabWidget*>())
                for (int i = 0; i < tabs->count(); ++i) {
                    tabs->setCurrentIndex(i);
                    QApplication::processEvents();
                    texts << visibleTexts(&d);
                }
        }
        {
            ShortcutsDialog d;
            d.resize(900, 700);
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            texts << visibleTexts(&d);
            cells(&d);
        }
        texts.removeDuplicates();
        QVERIFY2(texts.size() > 30, qPrintable(texts.join(QLatin1Char('\n'))));
        const QStringList bad = englishIn(texts, ok);
        QVERIFY2(bad.isEmpty(), qPrintable(QStringLiteral("%1 text(s) with English:\n").arg(bad.size()) +
                                           bad.join(QLatin1Char('\n'))));
    }

    // The check above is not blind: the same window in English is full of words it refuses.
    void theCheckFindsEnglishOnTheEnglishWindow()
    {
        QVERIFY(useLanguage(QStringLiteral("en")).sightline);
        MainWindow w;
        w.resize(1920, 1080);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openPlanted(w));
        const QStringList bad = englishIn(windowTexts(w), allowedWords(*w.document()->trace()));
        QVERIFY2(bad.size() > 50, qPrintable(bad.join(QLatin1Char('\n'))));
        QVERIFY(!bad.filter(QStringLiteral("<- QMenu\tOpen…")).isEmpty());
    }

    // Issue 37: run in Chinese (--language zh_CN) over a saved English, Preferences shows 简体中文, the language
    // being read; a change of something else saved there leaves the saved language as it was.
    void preferencesShowTheRunningLanguage()
    {
        QSettings().setValue(QStringLiteral("language"), QStringLiteral("en"));
        QVERIFY(useLanguage(QStringLiteral("zh_CN")).sightline);
        MainWindow w;
        QString shown;
        QTimer poll;
        QObject::connect(&poll, &QTimer::timeout, [&] {
            auto* d = qobject_cast<QDialog*>(QApplication::activeModalWidget());
            if (!d || d->objectName() != QLatin1String("settingsDialog"))
                return;
            poll.stop();
            shown = d->findChild<QComboBox*>(QStringLiteral("language"))->currentData().toString();
            auto* topK = d->findChild<QSpinBox*>(QStringLiteral("topK"));
            topK->setValue(topK->value() + 1);
            d->accept();
        });
        poll.start(20);
        w.editPreferences();
        QCOMPARE(shown, QStringLiteral("zh_CN"));
        QCOMPARE(QSettings().value(QStringLiteral("language")).toString(), QStringLiteral("en"));
        QCOMPARE(WorkbenchSettings::load().topK, WorkbenchSettings{}.topK + 1);   // the other change was saved
        QVERIFY(useLanguage(QStringLiteral("en")).sightline);
    }

    void englishOnTheCommandLineWinsOverTheSavedChinese()
    {
        QSettings().setValue(QStringLiteral("language"), QStringLiteral("zh_CN"));
        QVERIFY(useLanguage(QStringLiteral("en")).sightline);   // main() with --language en
        QCOMPARE(interfaceLanguage(), QStringLiteral("en"));
        MainWindow w;
        QCOMPARE(w.menuBar()->actions().first()->text(), QStringLiteral("&File"));
        QAction* english = languageAction(w, QStringLiteral("English"));
        QAction* chinese = languageAction(w, QStringLiteral("简体中文"));
        QVERIFY(english && chinese);
        QVERIFY(english->isChecked());
        QVERIFY(!chinese->isChecked());
        // And the other way round: Chinese running, whatever is saved.
        QSettings().setValue(QStringLiteral("language"), QStringLiteral("en"));
        QVERIFY(useLanguage(QStringLiteral("zh_CN")).sightline);
        MainWindow zh;
        QCOMPARE(zh.menuBar()->actions().first()->text(), QStringLiteral("文件(&F)"));
        QVERIFY(languageAction(zh, QStringLiteral("简体中文"))->isChecked());
        QVERIFY(!languageAction(zh, QStringLiteral("English"))->isChecked());
    }

    void cleanupTestCase() { useLanguage(QStringLiteral("en")); }
};

QTEST_MAIN(TestLanguage)
#include "tst_language.moc"

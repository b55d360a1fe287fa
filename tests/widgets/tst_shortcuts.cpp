// Help › Keyboard Shortcuts lists every key the timeline reacts to. The test presses every letter, digit, arrow
// and Esc on a loaded TimelineView; each key the view accepts (W/S zoom, A/D and arrows pan, F/0 fit, Z zoom to
// range, Esc clear) must appear in the list, and the list names no key the view ignores. Z was undocumented.
#include <QKeyEvent>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTest>

#include "model/selection.h"
#include "model/timeline_index.h"
#include "widgets/shortcuts.h"
#include "widgets/timeline_view.h"

using namespace sl;

namespace {

std::shared_ptr<const Trace> oneKernel()
{
    auto t = std::make_shared<Trace>();
    const uint16_t dev = t->device_index(0);
    const size_t r = t->kernels.append(1000, 5000, t->strings.intern("gemm"));
    t->kernels.device[r] = dev;
    t->kernels.stream[r] = 7;
    t->finish();
    return t;
}

// The single keys of the timeline rows, split on " / ", ", " and " or ": "W / S" → W, S; "A / D, Left / Right" →
// A, D, Left, Right; "F or 0" → F, 0.
QStringList listedTimelineKeys()
{
    QStringList keys;
    for (const auto& e : Shortcuts::entries()) {
        if (e.area != QStringLiteral("Timeline"))
            continue;
        for (const QString& k : e.keys.split(QRegularExpression(QStringLiteral(" / |, | or "))))
            keys << k.trimmed();
    }
    return keys;
}

QString keyName(int key)
{
    switch (key) {
    case Qt::Key_Left: return QStringLiteral("Left");
    case Qt::Key_Right: return QStringLiteral("Right");
    case Qt::Key_Up: return QStringLiteral("Up");
    case Qt::Key_Down: return QStringLiteral("Down");
    case Qt::Key_Escape: return QStringLiteral("Esc");
    default: return QKeySequence(key).toString();
    }
}

} // namespace

class TestShortcuts : public QObject {
    Q_OBJECT
private slots:
    void everyTimelineKeyIsListed()
    {
        Selection sel;
        TimelineView view(&sel);
        view.resize(1000, 300);
        view.setIndex(TimelineIndex::build(oneKernel()));
        std::vector<int> candidates;
        for (int k = Qt::Key_A; k <= Qt::Key_Z; ++k)
            candidates.push_back(k);
        for (int k = Qt::Key_0; k <= Qt::Key_9; ++k)
            candidates.push_back(k);
        for (int k : {Qt::Key_Left, Qt::Key_Right, Qt::Key_Up, Qt::Key_Down, Qt::Key_Escape})
            candidates.push_back(k);
        const QStringList listed = listedTimelineKeys();
        QStringList handled;
        for (int k : candidates) {
            QKeyEvent press(QEvent::KeyPress, k, Qt::NoModifier);
            press.setAccepted(false);
            QCoreApplication::sendEvent(&view, &press);
            if (press.isAccepted()) {
                handled << keyName(k);
                QVERIFY2(listed.contains(keyName(k)),
                         qPrintable(QStringLiteral("the timeline handles %1 but the shortcut list does not name it")
                                        .arg(keyName(k))));
            }
        }
        // What a user of the timeline reads in the list is what the keys do (and Z is among them).
        for (const char* k : {"W", "S", "A", "D", "F", "0", "Z", "Esc", "Left", "Right"})
            QVERIFY2(handled.contains(QLatin1String(k)), k);
        // No listed key is dead (mouse rows such as "Shift+drag" are not keys and are not pressed here).
        QStringList pressed;
        for (int k : candidates)
            pressed << keyName(k);
        for (const QString& k : listed)
            if (pressed.contains(k))
                QVERIFY2(handled.contains(k), qPrintable(QStringLiteral("listed key %1 does nothing").arg(k)));
    }

    void dialogShowsEveryEntry()
    {
        ShortcutsDialog dialog;
        auto* table = dialog.findChild<QTableWidget*>(QStringLiteral("shortcutsTable"));
        QVERIFY(table);
        const auto entries = Shortcuts::entries();
        QCOMPARE(table->rowCount(), int(entries.size()));
        for (int r = 0; r < table->rowCount(); ++r) {
            QCOMPARE(table->item(r, 1)->text(), entries[size_t(r)].keys);
            QVERIFY(!table->item(r, 2)->text().isEmpty());
        }
    }
};

QTEST_MAIN(TestShortcuts)
#include "tst_shortcuts.moc"

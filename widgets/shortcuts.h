#pragma once
// Help › Keyboard Shortcuts: every key and mouse gesture of the workbench in one list (the timeline's Z, zoom to
// the selected range, was documented nowhere). tests/widgets/tst_shortcuts.cpp checks that every key the
// timeline reacts to is listed here.

#include <QCoreApplication>
#include <QDialog>
#include <QString>
#include <vector>

namespace sl {

struct ShortcutEntry {
    QString area;      // "Timeline", "Application"
    QString keys;      // as the user presses them, e.g. "W / S"
    QString action;
};

class Shortcuts {
    Q_DECLARE_TR_FUNCTIONS(sl::Shortcuts)
public:
    // The list, translated.
    static std::vector<ShortcutEntry> entries();
};

// A dialog with the list as a table (area, keys, action).
class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutsDialog(QWidget* parent = nullptr);
};

} // namespace sl

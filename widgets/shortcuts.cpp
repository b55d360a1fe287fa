#include "widgets/shortcuts.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QKeySequence>
#include <QTableWidget>
#include <QVBoxLayout>

namespace sl {

namespace {
QString native(QKeySequence::StandardKey k) { return QKeySequence(k).toString(QKeySequence::NativeText); }
} // namespace

std::vector<ShortcutEntry> Shortcuts::entries()
{
    const QString timeline = tr("Timeline");
    const QString app = tr("Application");
    return {
        {timeline, tr("W / S"), tr("Zoom in / out at the mouse cursor")},
        {timeline, tr("A / D, Left / Right"), tr("Pan left / right")},
        {timeline, tr("F"), tr("Fit the selection (range, kernel, CPU operator, the gaps of a histogram bin, or gap), or the "
                               "whole trace when nothing is selected")},
        {timeline, tr("0"), tr("Fit the whole trace")},
        {timeline, tr("Z"), tr("Zoom to the selected range (Shift+drag)")},
        {timeline, tr("Esc"), tr("Clear the selection")},
        {timeline, tr("Ctrl+wheel"), tr("Zoom at the mouse cursor")},
        {timeline, tr("Mouse wheel"), tr("Scroll the lanes")},
        {timeline, tr("Shift+wheel, horizontal wheel"), tr("Pan")},
        {timeline, tr("Drag"), tr("Pan and scroll")},
        {timeline, tr("Shift+drag"), tr("Select a time range and show its aggregate table (Range pane)")},
        {timeline, tr("Click"), tr("Select a kernel (with its launch call and CPU operator) or a CPU operator (with its "
                                   "kernels)")},
        {timeline, tr("Click a ▸ / ▾ label"), tr("Fold or unfold a flame chart (CPU operators, Python frames)")},
        {timeline, tr("Drag the labels' edge"), tr("Widen or narrow the lane labels")},
        {timeline, tr("Click or drag in the overview"), tr("Centre the view there, or show what the drag spans")},
        {tr("Search"), tr("Ctrl+F or /"), tr("Find kernels, NVTX ranges and API calls (every match is outlined on the timeline)")},
        {tr("Search"), tr("Enter / Shift+Enter"), tr("Next / previous match")},
        {tr("Search"), tr("Esc"), tr("Close the search and clear its marks")},
        {tr("Findings"), native(QKeySequence::Copy), tr("Copy the verify command of the selected suggestion")},
        {tr("Suggestions"), tr("Ctrl+Enter"), tr("Save the annotation")},
        {app, native(QKeySequence::Open), tr("Open files")},
        {app, native(QKeySequence::Close), tr("Close the trace")},
        {app, QKeySequence(QStringLiteral("Ctrl+E")).toString(QKeySequence::NativeText), tr("Export the report")},
        {app, QKeySequence(QStringLiteral("Ctrl+B")).toString(QKeySequence::NativeText),
         tr("Hide or show the panes (the timeline takes the whole window)")},
        {app, native(QKeySequence::Preferences).isEmpty() ? tr("(menu)") : native(QKeySequence::Preferences),
         tr("Preferences")},
        {app, native(QKeySequence::Quit), tr("Quit")},
    };
}

ShortcutsDialog::ShortcutsDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Keyboard Shortcuts"));
    const auto entries = Shortcuts::entries();
    auto* table = new QTableWidget(int(entries.size()), 3, this);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Where"), tr("Keys"), tr("Action")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    for (int r = 0; r < int(entries.size()); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(entries[size_t(r)].area));
        table->setItem(r, 1, new QTableWidgetItem(entries[size_t(r)].keys));
        table->setItem(r, 2, new QTableWidgetItem(entries[size_t(r)].action));
    }
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(table);
    layout->addWidget(buttons);
    resize(640, 480);
}

} // namespace sl

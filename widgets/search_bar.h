#pragma once
// Find on the timeline (Ctrl+F or /): kernels, NVTX ranges and API calls by name or regular expression. Every match
// is outlined in the timeline; Enter / Shift+Enter (or the arrows) step to the next / previous one in time, select
// it and bring it into view. Esc closes the bar and clears the marks. Selecting a name in the Kernels table shows all
// its instances the same way (showKernelInstances).

#include <QWidget>
#include <memory>

#include "model/search_index.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace sl {

struct AnalysisResult;
class Selection;
class TimelineView;

class SearchBar : public QWidget {
    Q_OBJECT
public:
    SearchBar(TimelineView* timeline, Selection* selection, QWidget* parent = nullptr);

    // The trace changed: the name index is rebuilt on the next search (once per trace, not per keystroke).
    void setIndex(std::shared_ptr<const TimelineIndex> index);
    // Kernels are also found by their operator class (SearchIndex::KernelTags): the analysis's name → class table,
    // each class's id and its labels in both languages. Null: by name only.
    void setKernelClasses(std::shared_ptr<const AnalysisResult> analysis);
    // Shows the bar, focuses the text and selects it.
    void activate();
    // Searches now (the text field waits a moment after each keystroke).
    void search(const QString& text);
    // Outlines every instance of a kernel name (the Kernels table's current row); UINT32_MAX clears.
    void showKernelInstances(StrId name);
    // Outlines exactly these kernels (Selection::highlightedKernels, e.g. a Roofline shape point); empty clears the
    // marks this set left. Follows the selection by itself.
    void showKernels(const std::vector<int64_t>& rows);
    // Steps to the next / previous match in time (wrapping); the first step starts at the timeline's window.
    void next();
    void previous();
    // Hides the bar and clears the marks.
    void close();

    std::shared_ptr<const SearchMatches> matches() const { return matches_; }
    int64_t current() const { return current_; }
    QString statusText() const;
    QLineEdit* lineEdit() const { return edit_; }
    // How many times the name index was built (tests: once per trace).
    int indexBuilds() const { return builds_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void run();
    void setMatches(std::shared_ptr<const SearchMatches> m);
    void step(int direction);
    const SearchIndex* searchIndex();
    void updateStatus();

    TimelineView* timeline_;
    Selection* selection_;
    std::shared_ptr<const TimelineIndex> index_;
    SearchIndex::KernelTags kernelTags_;
    std::shared_ptr<const SearchIndex> search_;
    std::shared_ptr<const SearchMatches> matches_;
    int64_t current_ = -1;
    int builds_ = 0;
    QString kernelName_;   // non-empty while the marks show one name from the Kernels table
    bool kernelSet_ = false;   // the marks show Selection::highlightedKernels
    QLineEdit* edit_;
    QCheckBox* regex_;
    QCheckBox* caseSensitive_;
    QLabel* status_;
    QToolButton* prev_;
    QToolButton* next_;
    QTimer* debounce_;
};

} // namespace sl

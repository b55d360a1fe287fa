#pragma once
// An Nsight Compute export opened without a trace: the table `sightline-cli ncu` prints, one row per launch,
// sortable on the raw numbers, beside the Roofline of those launches (roofs from the GPU the file names or implies,
// analysis/roofline/ncu_match.h). A row selected in the table highlights its point; a point clicked selects its row.
// The file is read on a worker; loaded() says how it went.

#include <QString>
#include <QWidget>
#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace sl {

class Document;
class NcuLaunchModel;
class RooflineView;
class Selection;
struct NcuReport;

class NcuView : public QWidget {
    Q_OBJECT
public:
    explicit NcuView(QWidget* parent = nullptr);
    ~NcuView() override;

    // Reads `path` (ncu CSV, text details, or .ncu-rep through ncu) on a worker, then shows it.
    void open(const QString& path);
    // Shows an already read report (tests).
    void setReport(std::shared_ptr<const NcuReport> report, const QString& path);

    NcuLaunchModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    RooflineView* roofline() const { return roofline_; }
    QString path() const { return path_; }
    // The line above the table: file, format, launches, the GPU the roofs are for, notes.
    QString summaryText() const;

signals:
    void loaded(bool ok, const QString& message);

private:
    void selectRowOfPoint(int pointRow);
    void highlightPointOfRow();

    Document* document_;
    Selection* selection_;
    NcuLaunchModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* summary_;
    QTableView* table_;
    RooflineView* roofline_;
    QSplitter* splitter_;
    QString path_;
};

} // namespace sl

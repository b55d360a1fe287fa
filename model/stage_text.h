#pragma once
// The stage a long job reports (LoadControl::report: a reader's table, an analysis, a job's step) said in the
// interface's language: the status bar while a trace loads, the Compare pane while it compares. The core reports
// stable English ids ("kernels", "operator classes", "timeline"); a stage without a label here shows as its id.

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace sl {

class StageText {
    Q_DECLARE_TR_FUNCTIONS(sl::StageText)
public:
    // "Reading kernels" for "kernels"; the id itself when it has no label.
    static QString label(const QString& id);
    // Every id with a label.
    static QStringList ids();
};

} // namespace sl

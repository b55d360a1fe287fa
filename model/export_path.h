#pragma once
// The report's format is its file's suffix (.pdf, .md, .html, .json). In the save dialog the user picks a format by
// its filter and often types a bare name: the filter's suffix is added then, so "Markdown" + "sample_report" writes
// sample_report.md as Markdown (it used to write HTML to a file with no extension). A report suffix the user typed
// is kept: it names the format as clearly as the filter does.

#include <QString>

namespace sl {

// The suffix a dialog filter such as "Markdown (*.md)" stands for ("md"), or empty when it names none.
QString filterSuffix(const QString& filter);
// `typed` with the suffix of `selectedFilter` added unless it already ends in a report suffix (any case).
QString reportPathForFilter(const QString& typed, const QString& selectedFilter);

} // namespace sl

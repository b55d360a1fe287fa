#pragma once
// The report as GitHub-flavoured Markdown: headings, pipe tables with column alignment, fenced code, block quotes
// for missing data, and charts as image links. This layer has no image encoder (no Qt): the caller passes a
// callback that writes each chart as an image file and returns its path relative to the .md (the CLI and the GUI
// use model/chart_render for PNGs). Without a callback, or when it returns "", a chart appears as a data table.

#include "analysis/report/report_model.h"

#include <functional>
#include <string>

namespace sl::report {

struct MarkdownOptions {
    std::function<std::string(const Chart&)> write_image;
};

std::string to_markdown(const Report& r, const MarkdownOptions& options = {});

// Markdown escaping of inline text; in_table also escapes '|'.
std::string md_escape(std::string_view text, bool in_table);

} // namespace sl::report

#include "widgets/details_panel.h"

#include <QLabel>
#include <QLocale>
#include <algorithm>
#include <vector>

#include "model/units.h"

namespace sl {

namespace {
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
} // namespace

DetailsPanel::DetailsPanel(QWidget* parent) : QScrollArea(parent)
{
    label_ = new QLabel(this);
    label_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    label_->setMargin(8);
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setWidget(label_);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    showKernel(-1);
}

QString DetailsPanel::text() const { return label_->text(); }

void DetailsPanel::setTrace(std::shared_ptr<const Trace> trace)
{
    trace_ = std::move(trace);
    showKernel(-1);
}

void DetailsPanel::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    analysis_ = std::move(analysis);
    showKernel(kernel_);
}

void DetailsPanel::showKernel(int64_t kernel)
{
    kernel_ = kernel;
    if (!trace_ || kernel < 0 || size_t(kernel) >= trace_->kernels.size()) {
        label_->setText(tr("Click a kernel in the timeline to see its details."));
        return;
    }
    const Trace& t = *trace_;
    const auto& k = t.kernels;
    const size_t i = size_t(kernel);
    QString h = QStringLiteral("<h3>%1</h3>").arg(qs(t.str(k.short_name[i])).toHtmlEscaped());
    h += QStringLiteral("<p style=\"font-size:small\">%1</p><table cellspacing=3>").arg(qs(t.str(k.name[i])).toHtmlEscaped());
    auto row = [&h](const QString& a, const QString& b) {
        h += QStringLiteral("<tr><td style=\"white-space:nowrap\">%1</td><td><b>%2</b></td></tr>").arg(a.toHtmlEscaped(), b.toHtmlEscaped());
    };
    if (analysis_ && i < analysis_->classes.kernel_class.size()) {
        const int c = analysis_->classes.kernel_class[i];
        if (c >= 0 && size_t(c) < analysis_->classes.classes.size())
            row(tr("Operator class"), QString::fromStdString(analysis_->classes.classes[size_t(c)].label));
    }
    const int64_t dur = k.end[i] - k.start[i];
    row(tr("Duration"), formatDuration(dur));
    // Distribution over all instances of the same name.
    std::vector<int64_t> same;
    for (size_t j = 0; j < k.size(); ++j)
        if (k.name[j] == k.name[i])
            same.push_back(k.end[j] - k.start[j]);
    std::sort(same.begin(), same.end());
    const auto rank = std::lower_bound(same.begin(), same.end(), dur) - same.begin();
    row(tr("Instances of this name"), QLocale().toString(qlonglong(same.size())));
    row(tr("Median of the name"), formatDuration(same[same.size() / 2]));
    row(tr("Percentile of this instance"), formatPercent(same.size() > 1 ? double(rank) / double(same.size() - 1) : 1.0));
    row(tr("Start"), formatDuration(k.start[i] - t.meta.capture_start));
    row(tr("Device · stream"), QStringLiteral("%1 · %2").arg(k.device[i]).arg(k.stream[i]));
    row(tr("Grid"), QStringLiteral("%1 × %2 × %3").arg(k.grid_x[i]).arg(k.grid_y[i]).arg(k.grid_z[i]));
    row(tr("Block"), QStringLiteral("%1 × %2 × %3").arg(k.block_x[i]).arg(k.block_y[i]).arg(k.block_z[i]));
    if (k.registers_per_thread[i])
        row(tr("Registers per thread"), QString::number(k.registers_per_thread[i]));
    if (k.shared_memory[i])
        row(tr("Shared memory"), formatBytes(k.shared_memory[i]));
    const int32_t api = k.launch_api[i];
    if (api >= 0 && size_t(api) < t.api.size()) {
        const size_t a = size_t(api);
        row(tr("Launched by"), qs(t.str(t.api.name[a])));
        row(tr("Queue delay"), formatDuration(k.start[i] - t.api.end[a]));
        // NVTX ranges open on the launching thread when the call was made, outermost first.
        std::vector<std::pair<int, QString>> stack;
        for (size_t r = 0; r < t.ranges.size(); ++r)
            if (t.ranges.thread[r] == t.api.thread[a] && t.ranges.start[r] <= t.api.start[a] &&
                t.ranges.end[r] >= t.api.end[a] && t.ranges.kind[r] != RangeKind::CpuOp)
                stack.emplace_back(t.ranges.depth[r], qs(t.str(t.ranges.name[r])));
        std::sort(stack.begin(), stack.end());
        QStringList names;
        for (const auto& s : stack)
            names << s.second;
        if (!names.isEmpty())
            row(tr("NVTX"), names.join(QStringLiteral(" › ")));
    }
    h += QStringLiteral("</table>");
    label_->setText(h);
}

} // namespace sl

#pragma once
// The Details pane: the diagnosis of the selected kernel or idle gap.
//
// Times (Start) are measured from the capture start, the timeline axis's origin (model/timeline_index.h timeOrigin).
// Kernel: names (demangled and short), operator class, launch configuration, duration against every instance of its
// name (from the worker-built KernelLookup), the launching API call and its queue delay, the NVTX ranges open at
// launch, the phase and step, the Roofline position and E_roof of its class in that phase, the ncu metrics of its
// launch (when an ncu file was opened), and every finding that involves it (model/finding_links.h).
// Gap: cause, duration, the ops before and after (kernel names are links that select them), what the CPU was doing
// meanwhile (API calls and NVTX ranges overlapping the gap), and the findings about that time.

#include <QScrollArea>
#include <memory>
#include <vector>

#include "analysis/timeline/analysis.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/report/roofline_json.h"
#include "analysis/roofline/shape_throughput.h"
#include "analysis/trace/trace.h"
#include "model/timeline_index.h"

class QTextBrowser;

namespace sl {

class KernelOps;

class Document;
class Selection;

class DetailsPanel : public QScrollArea {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);
    // Follows a document: trace, timeline index (kernel lookup), analysis, Roofline/ncu and findings as they arrive.
    void setDocument(Document* document);
    // Follows the selection (kernel and gap) and selects kernels when their links are clicked.
    void setSelection(Selection* selection);

    void setTrace(std::shared_ptr<const Trace> trace);
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    // The timeline index of the same trace: its KernelLookup gives the name distribution without a scan.
    void setTimeline(std::shared_ptr<const TimelineIndex> index);
    void setRoofline(std::shared_ptr<const RooflineOutput> roofline);
    void setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis);
    // Measured shape points (Kineto traces with shapes): the verdict of a kernel without ncu counters.
    void setShapes(std::shared_ptr<const ShapeRooflineResult> shapes);

    void showKernel(int64_t kernel);
    // Index into AnalysisResult::idle.gaps, or -1.
    void showGap(int64_t gap);
    // A host range of the flame chart (Trace::ranges row: CPU operator, annotation, NVTX range, Python frame), or -1:
    // what it is, the operators and module around it, its shapes and the kernels it launched (links).
    void showHostRange(int64_t range);
    QString text() const;
    // The tooltip a link shows while hovered: a kernel link (which shows the short name) gives the whole name.
    QString linkToolTip(const QString& link) const;

signals:
    // A kernel link in the pane was clicked (also sets the selection when one is set).
    void kernelLinkActivated(int64_t kernel);

private:
    void refresh();
    // A link in the pane: "kernel:N", "gap:N", "range:N" or "toggle:name".
    void activateLink(const QString& link);
    QString kernelHtml(size_t kernel) const;
    // The kernel's CPU operator chain, module path and the shapes it ran on (model/kernel_origin.h).
    QString originHtml(size_t kernel) const;
    QString hostRangeHtml(size_t range) const;
    QString gapHtml(size_t gap) const;
    QString findingsHtml(const std::vector<size_t>& indices) const;
    QString ncuHtml(size_t kernel) const;
    QString rooflineHtml(size_t kernel) const;
    // The one-line verdict the kernel's details open with (model/kernel_verdict_text.h).
    QString verdictHtml(size_t kernel) const;
    QString kernelLink(int64_t kernel) const;
    // Where Start rows measure from: TimelineIndex::origin() (the capture start).
    int64_t origin() const;
    const std::vector<int64_t>& ncuToKernel() const;

    // One QTextBrowser, not a word-wrapped rich-text QLabel: a QLabel in a scroll area parses its HTML twice and
    // lays it out again for every width the scroll area asks about (heightForWidth), 20-45 ms a click with a
    // long kernel name (issue 18's slowest clicks); the browser parses and lays out once.
    QTextBrowser* view_;
    QString html_;
    Selection* selection_ = nullptr;
    std::shared_ptr<const Trace> trace_;
    std::shared_ptr<const AnalysisResult> analysis_;
    std::shared_ptr<const TimelineIndex> index_;
    std::shared_ptr<const RooflineOutput> roofline_;
    std::shared_ptr<const Diagnosis> diagnosis_;
    std::shared_ptr<const ShapeRooflineResult> shapes_;
    mutable std::vector<int64_t> ncuToKernel_;   // join_ncu_to_trace, computed on first use
    mutable std::shared_ptr<const KernelOps> kernelOps_;   // which CPU op launched a kernel, built on first use
    mutable bool ncuJoined_ = false;
    int64_t kernel_ = -1;
    int64_t gap_ = -1;
    int64_t hostRange_ = -1;
    bool showingGap_ = false;
    bool showingRange_ = false;
    bool fullNameExpanded_ = false;   // a very long demangled name is shown in full
};

} // namespace sl

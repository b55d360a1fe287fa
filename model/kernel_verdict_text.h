#pragma once
// The per-kernel verdict (analysis/diagnosis/kernel_verdict.h) said in the interface's language, and the inputs it
// needs gathered from the open document: the Details pane opens with this one line.

#include <QCoreApplication>
#include <QString>
#include <cstdint>
#include <vector>

#include "analysis/diagnosis/kernel_verdict.h"

namespace sl {

class Document;
struct Trace;
struct AnalysisResult;
struct OpClassResult;
struct RooflineOutput;
struct ShapeRooflineResult;

class VerdictText {
    Q_DECLARE_TR_FUNCTIONS(sl::VerdictText)
public:
    // One line of plain text: the bound and how far from it, or the cause, or "Unknown — what would tell: …".
    // With the analysis' classes, an operator class is named by its label when the interface runs in Chinese
    // ("解码阶段的激活 / 门控", not "解码阶段的 activation"); in English by its id, word for word as the CLI prints it.
    static QString line(const KernelVerdict& verdict, const OpClassResult* classes = nullptr);
    // The short label of the verdict's kind ("Memory-bound", "Launch-bound", "Unknown").
    static QString kindLabel(VerdictKind kind);
    // The SMs of the trace's device `device`: the trace's own figure, else its GPU spec row's; 0 when unknown.
    static int smCount(const Trace& trace, uint16_t device);
    // The verdict of kernel k from what the document holds (analysis, Roofline with its ncu launches, shapes; each
    // may be null). ncuJoin is join_ncu_to_trace of the ncu file (empty without one).
    static KernelVerdict forKernel(const Trace& trace, const AnalysisResult* analysis, const RooflineOutput* roofline,
                                   const ShapeRooflineResult* shapes, int64_t kernel,
                                   const std::vector<int64_t>& ncuJoin);
    static KernelVerdict forKernel(const Document& document, int64_t kernel, const std::vector<int64_t>& ncuJoin);
};

} // namespace sl

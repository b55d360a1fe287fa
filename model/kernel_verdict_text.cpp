#include "model/kernel_verdict_text.h"

#include <QLocale>
#include <QStringList>

#include <string>

#include "analysis/trace/trace.h"
#include "model/document.h"
#include "model/findings_model.h"
#include "model/units.h"
#include "model/workbench_settings.h"
#include "analysis/timeline/op_classes.h"

namespace sl {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString pct(double fraction) { return formatPercent(fraction); }

} // namespace

QString VerdictText::kindLabel(VerdictKind k)
{
    switch (k) {
    case VerdictKind::ComputeBound: return tr("Compute-bound");
    case VerdictKind::MemoryBound: return tr("Memory-bound");
    case VerdictKind::LatencyBound: return tr("Latency-bound");
    case VerdictKind::Inconsistent: return tr("Inconsistent");
    case VerdictKind::Unknown: break;
    }
    return tr("Unknown");
}

// The same line as kernel_verdict_text (analysis/diagnosis/kernel_verdict.cpp), word for word in English: a test
// (tests/widgets/tst_panels.cpp) holds the two equal on real traces, so what the CLI prints is what Details says.
QString VerdictText::line(const KernelVerdict& v, const OpClassResult* classes)
{
    // The class in the interface's words (Chinese: its label; English: its id, as the CLI says it).
    const QString opClass = [&] {
        if (classes && interfaceLanguage().startsWith(QLatin1String("zh")))
            for (const auto& c : classes->classes)
                if (c.id == v.op_class)
                    return qs(c.label_for("zh_CN"));
        return qs(v.op_class);
    }();
    auto idleCause = [](GapCause c) {
        switch (c) {
        case GapCause::HostWait: return tr("host wait");
        case GapCause::KernelWait: return tr("kernel wait");
        case GapCause::SyncWait: return tr("sync wait");
        case GapCause::DependencyWait: return tr("dependency wait");
        case GapCause::Other: break;
        }
        return tr("other");
    };
    const QString how = v.fraction ? pct(*v.fraction) : QStringLiteral("?");
    const QString shape = (qs(v.op) + QLatin1Char(' ') + qs(v.shape)).trimmed();
    const QString launch = QString::number(v.ncu_launch);
    const QString other = v.ncu_same_name_only ? tr(", measured on another launch of this kernel") : QString();
    QString s;
    switch (v.kind) {
    case VerdictKind::ComputeBound:
    case VerdictKind::MemoryBound: {
        const bool compute = v.kind == VerdictKind::ComputeBound;
        if (v.source == VerdictSource::Ncu) {
            s = (compute ? tr("Compute-bound: SM throughput at %1 of peak (ncu launch %2)")
                         : tr("Memory-bound: memory throughput at %1 of peak (ncu launch %2)"))
                    .arg(how, launch) +
                other;
        } else if (v.reason == VerdictReason::StridedElementwise) {
            s = tr("Compute-bound (instruction issue): PyTorch's strided elementwise loop over %1 waves spends its "
                   "issue slots on index arithmetic")
                    .arg(QString::number(v.waves.value_or(0), 'f', 1));
            if (v.fraction)
                s += tr(" (memory at %1 of its roof)").arg(how);
        } else if (v.source == VerdictSource::Shapes) {
            s = compute ? tr("Compute-bound at %1 of the %2 roof (%3)").arg(how, qs(v.dtype).toUpper(), shape)
                        : tr("Memory-bound at %1 of the memory roof (%2)").arg(how, shape);
        } else {
            s = (compute ? tr("Compute-bound at E_roof %1 (%2 in %3, from the model config)")
                         : tr("Memory-bound at E_roof %1 (%2 in %3, from the model config)"))
                    .arg(how, opClass, FindingsModel::subjectLabel(v.phase));
        }
        break;
    }
    case VerdictKind::LatencyBound:
        switch (v.reason) {
        case VerdictReason::ShortKernel:
            s = tr("Latency-bound: it runs %1, under the %2 a kernel needs to approach any roof")
                    .arg(formatDuration(v.duration_ns), formatDuration(kLatencyFloorNs));
            break;
        case VerdictReason::SmallGrid:
            s = tr("Latency-bound: %1 blocks on %2 SMs leave most SMs without work").arg(v.blocks).arg(v.sm_count);
            break;
        case VerdictReason::KernelFloor:
            s = tr("Latency-bound: the GPU's minimum kernel duration bounds %1 in %2, at E_roof %3 (from the model config)")
                    .arg(opClass, FindingsModel::subjectLabel(v.phase), how);
            break;
        case VerdictReason::BelowSixty:
            if (v.source == VerdictSource::ModelConfig)
                s = tr("Latency-bound: E_roof %1, under 60 % (%2 in %3, from the model config)")
                        .arg(how, opClass, FindingsModel::subjectLabel(v.phase));
            else
                s = (v.side == "compute" ? tr("Latency-bound: %1 of its compute roof, under 60 % (%2)")
                                         : tr("Latency-bound: %1 of its memory roof, under 60 % (%2)"))
                        .arg(how, shape);
            break;
        default:
            s = tr("Latency-bound: SM %1 and memory %2 of peak, both under 60 % (ncu launch %3)")
                    .arg(pct(v.sm_pct.value_or(0) / 100), pct(v.memory_pct.value_or(0) / 100), launch) +
                other;
            break;
        }
        break;
    case VerdictKind::Inconsistent:
        s = v.source == VerdictSource::Shapes
                ? tr("Measured above the roof (%1): wrong GPU row or dtype").arg(shape)
                : tr("Measured above the roof (%1 in %2, T_theory/T_actual %3): wrong dtype, parallelism, shape or GPU")
                      .arg(opClass, FindingsModel::subjectLabel(v.phase),
                           QString::number(v.e_roof_inconsistent.value_or(0), 'f', 2));
        break;
    case VerdictKind::Unknown: {
        QStringList what;
        for (const std::string& w : v.would_tell)
            what << (w == "ncu"             ? tr("an ncu profile of this kernel")
                     : w == "shapes"        ? tr("shapes in the trace (record_shapes=True)")
                     : w == "capture_trace" ? tr("the trace of the graph's capture (--capture-trace)")
                                            : tr("the model's config.json"));
        s = tr("Unknown — what would tell: %1").arg(what.join(QStringLiteral("; ")));
        break;
    }
    }
    QString c;
    switch (v.host) {
    case HostClause::LaunchBound:
        c = tr("launch-bound: the GPU waited %1 for it, and its launch call took %2, longer than it runs")
                .arg(formatDuration(v.idle_ns), formatDuration(v.launch_call_ns));
        break;
    case HostClause::WaitedForLaunch:
        c = (v.graph_node >= 0 ? tr("the GPU waited %1 for its graph launch") : tr("the GPU waited %1 for its launch"))
                .arg(formatDuration(v.idle_ns));
        break;
    case HostClause::IdleBefore:
        c = tr("idle %1 before it (%2)").arg(formatDuration(v.idle_ns), idleCause(v.idle_cause));
        break;
    case HostClause::GraphReplay:
        c = tr("node %1 of %2 of its graph replay").arg(v.graph_node + 1).arg(v.graph_nodes);
        if (v.idle_ns > 0)
            c += tr(", idle %1 before it (%2)").arg(formatDuration(v.idle_ns), idleCause(v.idle_cause));
        break;
    case HostClause::None: break;
    }
    if (!c.isEmpty())
        s = tr("%1 · %2").arg(s, c);
    return s;
}

int VerdictText::smCount(const Trace& t, uint16_t device) { return device_sm_count(t, device); }

KernelVerdict VerdictText::forKernel(const Trace& trace, const AnalysisResult* analysis,
                                     const RooflineOutput* roofline, const ShapeRooflineResult* shapes, int64_t kernel,
                                     const std::vector<int64_t>& ncuJoin)
{
    if (kernel < 0 || size_t(kernel) >= trace.kernels.size())
        return {};
    KernelVerdictInputs in;
    in.trace = &trace;
    in.kernel = kernel;
    in.analysis = analysis;
    in.roofline = roofline && roofline->report ? &*roofline->report : nullptr;
    in.ncu = roofline && roofline->ncu ? &*roofline->ncu : nullptr;
    in.ncu_join = in.ncu ? &ncuJoin : nullptr;
    in.shapes = shapes;
    in.sm_count = smCount(trace, trace.kernels.device[size_t(kernel)]);
    return kernel_verdict(in);
}

KernelVerdict VerdictText::forKernel(const Document& doc, int64_t kernel, const std::vector<int64_t>& ncuJoin)
{
    const auto trace = doc.trace();
    if (!trace)
        return {};
    const auto analysis = doc.analysis();
    const auto roofline = doc.roofline();
    const auto shapes = doc.shapes();
    return forKernel(*trace, analysis.get(), roofline.get(), shapes.get(), kernel, ncuJoin);
}

} // namespace sl

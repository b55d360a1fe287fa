#include "model/kernel_verdict_text.h"

#include <QLocale>
#include <QStringList>

#include <map>
#include <mutex>
#include <string>

#include "analysis/roofline/gpu_specs.h"
#include "analysis/trace/trace.h"
#include "model/document.h"
#include "model/findings_model.h"
#include "model/units.h"

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
    case VerdictKind::LaunchBound: return tr("Launch-bound");
    case VerdictKind::SmallGrid: return tr("Grid smaller than a wave");
    case VerdictKind::IdleBefore: return tr("Idle before it");
    case VerdictKind::Unknown: break;
    }
    return tr("Unknown");
}

QString VerdictText::line(const KernelVerdict& v)
{
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
    QString s;
    switch (v.kind) {
    case VerdictKind::ComputeBound:
    case VerdictKind::MemoryBound: {
        const bool compute = v.kind == VerdictKind::ComputeBound;
        if (v.source == VerdictSource::Ncu) {
            s = (compute ? tr("Compute-bound: SM throughput at %1 of peak (ncu launch %2)")
                         : tr("Memory-bound: memory throughput at %1 of peak (ncu launch %2)"))
                    .arg(how)
                    .arg(v.ncu_launch);
            if (v.ncu_same_name_only)
                s += tr(", measured on another launch of this kernel");
        } else if (v.source == VerdictSource::Shapes) {
            s = (compute ? tr("Compute-bound at %1 of the %2 roof (%3)") : tr("Memory-bound at %1 of the %2 roof (%3)"))
                    .arg(how, qs(v.dtype).toUpper(), shape);
        } else {
            s = (compute ? tr("Compute-bound at E_roof %1 (%2 in %3, from the model config)")
                         : tr("Memory-bound at E_roof %1 (%2 in %3, from the model config)"))
                    .arg(how, qs(v.op_class), FindingsModel::subjectLabel(v.phase));
        }
        break;
    }
    case VerdictKind::LatencyBound:
        s = tr("Latency-bound: SM %1 and memory %2 of peak, both under 60 % (ncu launch %3)")
                .arg(pct(v.sm_pct.value_or(0) / 100), pct(v.memory_pct.value_or(0) / 100))
                .arg(v.ncu_launch);
        break;
    case VerdictKind::Inconsistent:
        s = v.source == VerdictSource::Shapes
                ? tr("Measured above the roof (%1): wrong GPU row or dtype").arg(shape)
                : tr("Measured above the roof (%1 in %2, T_theory/T_actual %3): wrong dtype, parallelism, shape or GPU")
                      .arg(qs(v.op_class), FindingsModel::subjectLabel(v.phase),
                           QLocale().toString(v.e_roof_inconsistent.value_or(0), 'f', 2));
        break;
    case VerdictKind::LaunchBound:
        return tr("Launch-bound: it runs %1, its launch call took %2 — the CPU cannot launch kernels this short as "
                  "fast as the GPU runs them")
            .arg(formatDuration(v.duration_ns), formatDuration(v.launch_call_ns));
    case VerdictKind::SmallGrid:
        return tr("Grid smaller than a wave: %1 blocks on %2 SMs leave most of the GPU idle")
            .arg(v.blocks)
            .arg(v.sm_count);
    case VerdictKind::IdleBefore:
        return tr("Idle before it: the GPU waited %1 (%2), longer than the kernel ran (%3)")
            .arg(formatDuration(v.idle_ns), idleCause(v.idle_cause), formatDuration(v.duration_ns));
    case VerdictKind::Unknown: {
        QStringList what;
        for (const std::string& w : v.would_tell)
            what << (w == "ncu"      ? tr("an ncu profile of this kernel (File › Deep-dive Focus Set…)")
                     : w == "shapes" ? tr("shapes in the trace (profile with record_shapes=True)")
                                     : tr("the model's config.json (File › Open, or Settings › Preferences)"));
        return tr("Unknown — what would tell: %1").arg(what.join(tr("; ")));
    }
    }
    if (v.cause) {
        QString c;
        switch (*v.cause) {
        case VerdictKind::LaunchBound:
            c = tr("shorter than its launch (%1 vs a %2 call)")
                    .arg(formatDuration(v.duration_ns), formatDuration(v.launch_call_ns));
            break;
        case VerdictKind::SmallGrid: c = tr("grid smaller than a wave (%1 blocks on %2 SMs)").arg(v.blocks).arg(v.sm_count); break;
        case VerdictKind::IdleBefore:
            c = tr("idle %1 before it (%2)").arg(formatDuration(v.idle_ns), idleCause(v.idle_cause));
            break;
        default: break;
        }
        if (!c.isEmpty())
            s = tr("%1 · %2").arg(s, c);
    }
    return s;
}

int VerdictText::smCount(const Trace& t, uint16_t device)
{
    if (device >= t.meta.devices.size())
        return 0;
    const DeviceInfo& d = t.meta.devices[device];
    if (d.sm_count > 0)
        return d.sm_count;
    // The spec row of the device, looked up once per device name.
    static std::mutex mutex;
    static std::map<std::string, int> cache;
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = cache.find(d.name);
    if (it != cache.end())
        return it->second;
    int n = 0;
    try {
        static const GpuDatabase db = GpuDatabase::load_default();
        if (const GpuSpec* g = db.identify(d).spec)
            n = g->sm_count;
    } catch (const std::exception&) {
        n = 0;
    }
    cache.emplace(d.name, n);
    return n;
}

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

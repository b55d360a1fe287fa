#include "model/roofline_model.h"

#include <QLocale>
#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/timeline/analysis.h"
#include "analysis/io/ncu_metrics.h"
#include "analysis/roofline/ncu_match.h"
#include "analysis/roofline/roofline.h"
#include "analysis/trace/trace.h"
#include "model/document.h"
#include "model/units.h"

namespace sl {

namespace {

constexpr Precision kAllPrecisions[] = {Precision::FP32, Precision::TF32,         Precision::FP16, Precision::BF16,
                                        Precision::FP16_FP16ACC, Precision::FP8, Precision::INT8};

bool positive(double v) { return std::isfinite(v) && v > 0; }

// A point that can sit on log-log axes.
bool drawable(const RooflinePoint& p) { return positive(p.intensity) && positive(p.flops_per_s); }

struct NcuRaw {
    int64_t id = -1;
    std::string name;
    uint32_t kernel_name = UINT32_MAX;
    double flops = 0, bytes = 0, duration_ns = 0;
};

RooflinePoint ncu_point(const NcuRaw& r, int64_t launches)
{
    RooflinePoint p;
    p.kind = RooflinePointKind::Ncu;
    p.label = r.name;
    p.flops = r.flops;
    p.bytes = r.bytes;
    p.intensity = r.bytes > 0 ? r.flops / r.bytes : 0;
    p.flops_per_s = r.duration_ns > 0 ? r.flops / (r.duration_ns * 1e-9) : 0;
    p.time_ns = launches > 0 ? std::optional<double>(r.duration_ns / double(launches)) : std::nullopt;
    p.total_ns = r.duration_ns;
    p.kernel_name = r.kernel_name;
    p.launches = launches;
    p.ncu_launch = launches == 1 ? r.id : -1;
    return p;
}

} // namespace

const char* roofline_kind_name(RooflinePointKind k)
{
    switch (k) {
    case RooflinePointKind::Theory: return "theory";
    case RooflinePointKind::Measured: return "measured";
    case RooflinePointKind::Ncu: return "ncu";
    case RooflinePointKind::Shape: return "shape";
    }
    return "";
}

int roofline_row_for_kernel(const RooflineData& d, const Trace& t, const AnalysisResult* a, int64_t k)
{
    if (k < 0 || size_t(k) >= t.kernels.size())
        return -1;
    const StrId name = t.kernels.name[size_t(k)];
    int best = -1;
    for (size_t i = 0; i < d.points.size(); ++i)
        if (d.points[i].kind == RooflinePointKind::Ncu && d.points[i].kernel_name == name &&
            (best < 0 || d.points[i].total_ns > d.points[size_t(best)].total_ns))
            best = int(i);
    if (best >= 0)
        return best;
    // The measured shape point whose kernels include k (a kernel belongs to at most one call, so one point).
    for (size_t i = 0; i < d.points.size(); ++i)
        if (d.points[i].kind == RooflinePointKind::Shape &&
            std::binary_search(d.points[i].kernels.begin(), d.points[i].kernels.end(), k))
            return int(i);
    if (!a || size_t(k) >= a->classes.kernel_class.size())
        return best;
    const int16_t cls = a->classes.kernel_class[size_t(k)];
    if (cls < 0 || size_t(cls) >= a->classes.classes.size())
        return -1;
    const std::string& classId = a->classes.classes[size_t(cls)].id;
    const int64_t start = t.kernels.start[size_t(k)];
    const StepInfo* step = nullptr;
    for (const StepInfo& s : a->phases.steps)
        if (start >= s.start && start < s.end) {
            step = &s;
            break;
        }
    if (!step)
        return -1;
    const char* phase = step->mixed ? "mixed" : step->prefill ? "prefill" : "decode";
    for (size_t i = 0; i < d.points.size(); ++i)
        if (d.points[i].kind == RooflinePointKind::Measured && d.points[i].op_class == classId &&
            d.points[i].phase == phase)
            return int(i);
    return -1;
}

std::optional<double> RooflineData::primary_peak() const
{
    const RooflineRoof* best = nullptr;
    for (const auto& r : roofs)
        if (r.precision && r.gemm)
            return r.value;
    for (const auto& r : roofs)
        if (r.precision && *r.precision == Precision::BF16)
            return r.value;
    for (const auto& r : roofs)
        if (r.precision && (!best || r.value > best->value))
            best = &r;
    return best ? std::optional<double>(best->value) : std::nullopt;
}

double RooflineData::attainable(double intensity) const
{
    const auto peak = primary_peak();
    const double mem = bandwidth > 0 && intensity > 0 ? intensity * bandwidth : 0;
    if (peak && mem > 0)
        return std::min(*peak, mem);
    if (peak)
        return *peak;
    return mem;
}

std::optional<double> RooflineData::fraction_of_roof(const RooflinePoint& p) const
{
    const double roof = attainable(p.intensity);
    if (!(roof > 0))
        return std::nullopt;
    return p.flops_per_s / roof;
}

std::vector<RooflineRoof> roofline_roofs(const GpuSpec& gpu, double bandwidth, std::optional<Precision> gemm)
{
    std::vector<RooflineRoof> roofs;
    if (positive(bandwidth)) {
        RooflineRoof m;
        m.name = "memory";
        m.value = bandwidth;
        roofs.push_back(m);
    }
    std::vector<RooflineRoof> compute;
    for (Precision p : kAllPrecisions) {
        // fp16 with fp16 accumulate only when the row gives it (GpuPeaks::get falls back to fp16 for the cost model).
        const auto v = p == Precision::FP16_FP16ACC ? gpu.peaks.fp16_fp16acc : gpu.peaks.get(p);
        if (!v || !positive(*v))
            continue;
        RooflineRoof r;
        r.precision = p;
        r.name = precision_name(p);
        r.value = *v;
        r.ridge = positive(bandwidth) ? *v / bandwidth : 0;
        r.gemm = gemm && *gemm == p;
        compute.push_back(r);
    }
    std::stable_sort(compute.begin(), compute.end(),
                     [](const RooflineRoof& a, const RooflineRoof& b) { return a.value > b.value; });
    roofs.insert(roofs.end(), compute.begin(), compute.end());
    return roofs;
}

std::string shape_series_family(const std::string& family)
{
    if (family == "gemm" || family == "attention" || family == "norm")
        return family;
    return "other";
}

namespace {

RooflinePoint shape_point(const ShapePoint& s)
{
    RooflinePoint p;
    p.kind = RooflinePointKind::Shape;
    p.label = s.op;
    p.op_class = s.family;
    p.shape = s.shape;
    p.input_dims = s.input_dims;
    p.input_types = s.input_types;
    p.dtype = s.dtype;
    p.flops = s.flops_per_call;
    p.bytes = s.bytes_per_call;
    p.intensity = s.bytes_per_call > 0 ? s.flops_per_call / s.bytes_per_call : 0;
    p.flops_per_s = s.tflops * 1e12;
    p.bytes_per_s = s.tbps * 1e12;
    p.total_ns = double(s.kernel_ns);
    if (s.calls > 0)
        p.time_ns = double(s.kernel_ns) / double(s.calls);
    p.calls = s.calls;
    p.launches = s.kernels;
    p.pct_of_roof = s.pct_of_roof;
    p.roof_inconsistent = s.roof_inconsistent;
    p.bound = s.bound;
    p.kernel_names = s.kernel_names;
    p.kernels.assign(s.kernel_rows.begin(), s.kernel_rows.end());
    std::sort(p.kernels.begin(), p.kernels.end());
    return p;
}

} // namespace

RooflineData build_roofline_data(const RooflineOutput* out, const Trace* trace, size_t max_points)
{
    return build_roofline_data(out, trace, nullptr, max_points);
}

RooflineData build_roofline_data(const RooflineOutput* out, const Trace* trace, const ShapeRooflineResult* shapes,
                                 size_t max_points)
{
    RooflineData d;
    const bool anyShapes = shapes && !shapes->points.empty();
    if (!out && !anyShapes)
        return d;
    static const RooflineOutput kNone;
    if (!out)
        out = &kNone;
    if (out->report) {
        const RooflineReport& r = *out->report;
        const CostModelResult& c = r.cost;
        d.gpu_name = c.gpu.name;
        d.gemm_precision = c.gemm_precision;
        d.bandwidth = positive(c.bandwidth) ? c.bandwidth : 0;
        d.roofs = roofline_roofs(c.gpu, d.bandwidth, c.gemm_precision);
        for (const PhaseCost& ph : c.phases) {
            for (const OpCost& o : ph.ops) {
                RooflinePoint p;
                p.kind = RooflinePointKind::Theory;
                p.label = o.name;
                p.phase = phase_name(ph.phase);
                p.batch = ph.batch;
                p.query_len = ph.query_len;
                p.kv_len = ph.kv_len;
                p.tokens = ph.tokens;
                p.shape_source = ph.shape_source;
                p.op_class = o.op_class;
                p.flops = o.flops;
                p.bytes = o.bytes;
                p.intensity = o.bytes > 0 ? o.flops / o.bytes : 0;
                p.time_ns = o.t_theory_ns;
                p.flops_per_s = o.t_theory_ns && *o.t_theory_ns > 0 ? o.flops / (*o.t_theory_ns * 1e-9) : 0;
                p.total_ns = o.t_theory_ns.value_or(0);
                if (const auto act = r.operator_actual_ns(o.name, ph.phase); act && *act > 0 && o.t_theory_ns)
                    p.e_roof = *o.t_theory_ns / *act;
                if (drawable(p))
                    d.points.push_back(std::move(p));
                else
                    ++d.skipped;
            }
        }
        for (const ClassEfficiency& cl : r.classes) {
            RooflinePoint p;
            p.kind = RooflinePointKind::Measured;
            p.label = cl.op_class;
            p.phase = cl.phase;
            if (const auto ph = phase_from_name(cl.phase))
                if (const PhaseCost* pc = c.phase(*ph)) {
                    p.batch = pc->batch;
                    p.query_len = pc->query_len;
                    p.kv_len = pc->kv_len;
                    p.tokens = pc->tokens;
                    p.shape_source = pc->shape_source;
                }
            p.op_class = cl.op_class;
            p.flops = cl.flops;
            p.bytes = cl.bytes;
            p.intensity = cl.bytes > 0 ? cl.flops / cl.bytes : 0;
            p.time_ns = cl.t_actual_ns;
            p.flops_per_s = cl.t_actual_ns && *cl.t_actual_ns > 0 ? cl.flops / (*cl.t_actual_ns * 1e-9) : 0;
            p.total_ns = double(cl.measured_total_ns);
            p.e_roof = cl.e_roof;
            // Measured faster than its roof (e_roof_inconsistent) is no point on the chart: above the roof it would
            // read as a result; the pane's table and the JSON say why instead.
            if (drawable(p) && !cl.e_roof_inconsistent)
                d.points.push_back(std::move(p));
            else
                ++d.skipped;
        }
    } else if (out->ncu) {
        // ncu alone: roofs from the GPU row that matches the trace's device, when there is one; without a trace, the
        // row the ncu file's own device matches.
        try {
            const GpuDatabase db = GpuDatabase::load_default();
            const DeviceInfo dev = trace && !trace->meta.devices.empty() ? trace->meta.devices.front()
                                                                         : ncu_device_info(*out->ncu);
            if (const GpuSpec* g = db.identify(dev).spec) {
                d.gpu_name = g->name;
                d.bandwidth = positive(g->mem_bw_Bps) ? g->mem_bw_Bps : 0;
                d.roofs = roofline_roofs(*g, d.bandwidth, std::nullopt);
            }
        } catch (const std::exception&) {
            // No database: the ncu points are still drawn, without roofs.
        }
    }

    if (d.roofs.empty() && anyShapes && !shapes->gpu.empty()) {
        // Shapes alone: the roofs of the GPU row the shape analysis used (its % of roof is against the same row).
        try {
            const GpuDatabase db = GpuDatabase::load_default();
            if (const GpuSpec* g = db.find(shapes->gpu)) {
                d.gpu_name = g->name;
                d.bandwidth = positive(g->mem_bw_Bps) ? g->mem_bw_Bps : 0;
                // The GEMM roof is the dtype of the GEMM shape with the most kernel time (points come largest
                // first): it is drawn bold and always labelled, as the cost model's GEMM precision is.
                std::optional<Precision> gemm;
                for (const ShapePoint& sp : shapes->points)
                    if (sp.family == "gemm" && (gemm = parse_precision(sp.dtype)))
                        break;
                if (gemm)
                    d.gemm_precision = *gemm;
                d.roofs = roofline_roofs(*g, d.bandwidth, gemm);
            }
        } catch (const std::exception&) {
            // No database: the points are still drawn, without roofs.
        }
    }
    if (anyShapes) {
        // Largest kernel time first (the order of ShapeRooflineResult), before the ncu points take the rest of the cap.
        for (const ShapePoint& sp : shapes->points) {
            RooflinePoint p = shape_point(sp);
            if (drawable(p) && d.points.size() < max_points)
                d.points.push_back(std::move(p));
            else
                ++d.skipped;
        }
    }

    if (out->ncu) {
        const NcuReport& ncu = *out->ncu;
        std::vector<int64_t> joined;
        if (trace)
            joined = join_ncu_to_trace(ncu, *trace);
        std::vector<NcuRaw> raws;
        raws.reserve(ncu.launches.size());
        for (size_t i = 0; i < ncu.launches.size(); ++i) {
            const NcuLaunch& l = ncu.launches[i];
            const NcuLaunchMetrics m = compute_ncu_metrics(l);
            if (!m.flops_total || !m.dram_bytes || !m.duration_ns || !positive(*m.flops_total) ||
                !positive(*m.dram_bytes) || !positive(*m.duration_ns)) {
                ++d.skipped;
                continue;
            }
            NcuRaw r;
            r.id = l.id;
            r.name = l.name;
            r.flops = *m.flops_total;
            r.bytes = *m.dram_bytes;
            r.duration_ns = *m.duration_ns;
            if (trace) {
                if (i < joined.size() && joined[i] >= 0 && size_t(joined[i]) < trace->kernels.size())
                    r.kernel_name = trace->kernels.name[size_t(joined[i])];
                else
                    r.kernel_name = trace->strings.find(l.name);
            }
            raws.push_back(std::move(r));
        }
        const size_t budget = max_points > d.points.size() ? max_points - d.points.size() : 0;
        if (raws.size() <= budget) {
            for (const NcuRaw& r : raws)
                d.points.push_back(ncu_point(r, 1));
        } else {
            // Fold per kernel name: sums of FLOPs, bytes and time (intensity and FLOP/s of the whole name).
            d.ncu_aggregated = true;
            std::map<std::string, std::pair<NcuRaw, int64_t>> by_name;
            for (const NcuRaw& r : raws) {
                auto [it, fresh] = by_name.try_emplace(r.name, r, 0);
                if (!fresh) {
                    it->second.first.flops += r.flops;
                    it->second.first.bytes += r.bytes;
                    it->second.first.duration_ns += r.duration_ns;
                    if (it->second.first.kernel_name == UINT32_MAX)
                        it->second.first.kernel_name = r.kernel_name;
                }
                ++it->second.second;
            }
            std::vector<RooflinePoint> agg;
            agg.reserve(by_name.size());
            for (const auto& [name, v] : by_name)
                agg.push_back(ncu_point(v.first, v.second));
            std::stable_sort(agg.begin(), agg.end(),
                             [](const RooflinePoint& a, const RooflinePoint& b) { return a.total_ns > b.total_ns; });
            if (agg.size() > budget) {
                d.skipped += agg.size() - budget;
                agg.resize(budget);
            }
            for (auto& p : agg)
                d.points.push_back(std::move(p));
        }
    }
    if (d.points.size() > max_points) {
        d.skipped += d.points.size() - max_points;
        d.points.resize(max_points);
    }
    d.valid = !d.roofs.empty() || !d.points.empty();
    return d;
}

// ---- RooflineModel ---------------------------------------------------------------------------------------------

RooflineModel::RooflineModel(QObject* parent) : QAbstractTableModel(parent) {}

RooflineModel::RooflineModel(Document* document, QObject* parent) : QAbstractTableModel(parent), document_(document)
{
    if (document_) {
        connect(document_, &Document::rooflineChanged, this, &RooflineModel::rebuild);
        connect(document_, &Document::shapesChanged, this, &RooflineModel::rebuild);
        connect(document_, &Document::traceChanged, this, &RooflineModel::rebuild);
        connect(document_, &Document::cleared, this, &RooflineModel::rebuild);
    }
    rebuild();
}

void RooflineModel::rebuild()
{
    if (!document_) {
        setRooflineData(RooflineData{});
        return;
    }
    const auto roofline = document_->roofline();
    const auto trace = document_->trace();
    const auto shapes = document_->shapes();
    setRooflineData(build_roofline_data(roofline.get(), trace.get(), shapes.get()));
}

void RooflineModel::setRooflineData(RooflineData data)
{
    beginResetModel();
    data_ = std::move(data);
    endResetModel();
}

const RooflinePoint* RooflineModel::pointAt(int row) const
{
    return row >= 0 && size_t(row) < data_.points.size() ? &data_.points[size_t(row)] : nullptr;
}

int RooflineModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(data_.points.size());
}

int RooflineModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RooflineModel::kindLabel(RooflinePointKind k) const
{
    switch (k) {
    case RooflinePointKind::Theory: return tr("Theory");
    case RooflinePointKind::Measured: return tr("Measured");
    case RooflinePointKind::Ncu: return tr("ncu");
    case RooflinePointKind::Shape: return tr("Shape");
    }
    return {};
}

namespace {
struct SiParts {
    QString number;
    QString prefix;
};

SiParts siParts(double v)
{
    static const char* const kPrefixes[] = {"f", "p", "n", "\u00b5", "m", "", "k", "M", "G", "T", "P", "E"};
    constexpr int kUnit = 5;   // index of ""
    if (!std::isfinite(v) || v == 0)
        return {QStringLiteral("0"), QString()};
    const double a = std::fabs(v);
    int e = int(std::floor(std::log10(a) / 3.0));
    e = std::clamp(e, -kUnit, int(std::size(kPrefixes)) - 1 - kUnit);
    double scaled = v / std::pow(10.0, 3 * e);
    // 999.7 rounds to "1.00e+03" with three digits: take the next prefix instead.
    if (std::fabs(scaled) >= 999.5 && e + kUnit + 1 < int(std::size(kPrefixes))) {
        ++e;
        scaled /= 1000.0;
    }
    const double s = std::fabs(scaled);
    const int decimals = s >= 100 ? 0 : s >= 10 ? 1 : 2;
    QString num = QString::number(scaled, 'f', decimals);
    if (num.contains(QLatin1Char('.'))) {
        while (num.endsWith(QLatin1Char('0')))
            num.chop(1);
        if (num.endsWith(QLatin1Char('.')))
            num.chop(1);
    }
    return {num, QString::fromUtf8(kPrefixes[e + kUnit])};
}
} // namespace

QString RooflineModel::formatSi(double v)
{
    const SiParts p = siParts(v);
    return p.number + p.prefix;
}

QString RooflineModel::formatFlopsPerSecond(double v)
{
    const SiParts p = siParts(v);
    return tr("%1 %2FLOP/s").arg(p.number, p.prefix);
}

QString RooflineModel::formatBytesPerSecond(double v)
{
    const SiParts p = siParts(v);
    return tr("%1 %2B/s").arg(p.number, p.prefix);
}

QString RooflineModel::formatIntensity(double v)
{
    const double a = std::fabs(v);
    const QString n = a >= 100 ? QString::number(v, 'f', 0)
                      : a >= 10 ? QString::number(v, 'f', 1)
                      : a >= 0.01 ? QString::number(v, 'f', 2)
                      : QString::number(v, 'g', 2);
    return tr("%1 FLOP/B").arg(n);
}

QVariant RooflineModel::data(const QModelIndex& index, int role) const
{
    const RooflinePoint* p = index.isValid() ? pointAt(index.row()) : nullptr;
    if (!p || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    switch (role) {
    case KindRole: return int(p->kind);
    case IntensityRole: return p->intensity;
    case FlopsPerSecondRole: return p->flops_per_s;
    case TotalTimeRole: return p->total_ns;
    case ERoofRole: return p->e_roof ? QVariant(*p->e_roof) : QVariant();
    case KernelNameRole: return p->kernel_name != UINT32_MAX ? QVariant(uint(p->kernel_name)) : QVariant();
    case OpClassRole: return QString::fromStdString(p->op_class);
    case PhaseRole: return QString::fromStdString(p->phase);
    case KernelsRole: {
        if (p->kind != RooflinePointKind::Shape)
            return {};
        QVariantList ks;
        ks.reserve(qsizetype(p->kernels.size()));
        for (int64_t k : p->kernels)
            ks << QVariant(qlonglong(k));
        return ks;
    }
    case ShapeRole: return QString::fromStdString(p->shape);
    case DtypeRole: return QString::fromStdString(p->dtype);
    case PercentOfRoofRole: return p->pct_of_roof ? QVariant(*p->pct_of_roof) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == Label)
            return QString::fromStdString(p->label);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() >= Intensity)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        switch (Column(index.column())) {
        case Kind: return int(p->kind);
        case Label: return QString::fromStdString(p->label);
        case Phase: return QString::fromStdString(p->phase);
        case Intensity: return p->intensity;
        case FlopsPerSecond: return p->flops_per_s;
        case TotalTime: return p->total_ns;
        case ERoof: return p->e_roof ? *p->e_roof : -1.0;
        case ColumnCount: break;
        }
        return {};
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case Kind: return kindLabel(p->kind);
        case Label:
            if (p->kind == RooflinePointKind::Ncu && p->launches > 1)
                return tr("%1 (%n launches)", nullptr, int(p->launches)).arg(QString::fromStdString(p->label));
            if (p->kind == RooflinePointKind::Shape)
                return tr("%1 %2 (%3)").arg(QString::fromStdString(p->label), QString::fromStdString(p->shape),
                                            QString::fromStdString(p->dtype));
            return QString::fromStdString(p->label);
        case Phase: return QString::fromStdString(p->phase);
        case Intensity: return formatIntensity(p->intensity);
        case FlopsPerSecond: return formatFlopsPerSecond(p->flops_per_s);
        case TotalTime: return formatDuration(int64_t(std::llround(p->total_ns)));
        case ERoof: return p->e_roof ? QLocale().toString(*p->e_roof, 'f', 3) : QStringLiteral("-");
        case ColumnCount: break;
        }
        return {};
    default: return {};
    }
}

QVariant RooflineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Kind: return tr("Kind");
    case Label: return tr("Operator / kernel");
    case Phase: return tr("Phase");
    case Intensity: return tr("Intensity");
    case FlopsPerSecond: return tr("Performance");
    case TotalTime: return tr("Total time");
    case ERoof: return tr("E_roof");
    case ColumnCount: break;
    }
    return {};
}

} // namespace sl

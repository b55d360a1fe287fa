#pragma once
// The Roofline pane's data: roofs and points built from the Document's RooflineOutput (cost model + measured
// classes + ncu launches) and the trace, and a table model over the points.
//
// Formulas (reference ncu_roofline.md §b.1 and §d; analysis/roofline/cost_model.h, analysis/roofline/roofline.h):
//   memory roof        P(I) = I * BW                     BW = the cost model's bandwidth (datasheet x bw_efficiency)
//   compute roof       P = peak(precision)               one per precision the GPU row has a dense peak for
//   ridge point        I_ridge = peak / BW
//   theory point       I = flops / bytes,  P = flops / T_theory           per cost-model operator and phase
//   measured point     I = flops / bytes,  P = flops / t_actual           per (operator class, phase), per pass,
//                      size = measured_total_ns, E_roof = T_theory / t_actual (as `sightline-cli analyze --model`)
//   ncu point          I = FLOPs / DRAM bytes,  P = FLOPs / duration      per launch (compute_ncu_metrics), or per
//                      kernel name (sums of FLOPs, bytes and durations) when launches would exceed the point cap
//   shape point        I = FLOPs / bytes,  P = FLOPs / kernel time       per unique (op, Input Dims, Input type) of
//                      a Kineto trace with shapes (analysis/roofline/shape_throughput.h): no model config needed;
//                      roofs from the matching GPU row when no config gave them. Carries the trace kernels behind
//                      it, so a click selects exactly those instances.
// Points that cannot sit on log-log axes (no FLOPs, no bytes, unknown time) are left out and counted.
//
// build_roofline_data() is plain C++ (no Qt) so it can be tested directly; RooflineModel is the Qt table on top.

#include <QAbstractTableModel>
#include <QPointer>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/roofline/gpu_specs.h"
#include "analysis/report/roofline_json.h"
#include "analysis/roofline/shape_throughput.h"

namespace sl {

class Document;
struct AnalysisResult;
struct Trace;

enum class RooflinePointKind { Theory, Measured, Ncu, Shape };

struct RooflineRoof {
    std::optional<Precision> precision;   // nullopt = the memory roof
    std::string name;                      // "memory", "bf16", "fp32", ...
    double value = 0;                      // FLOP/s for a compute roof, bytes/s for the memory roof
    double ridge = 0;                      // compute roof: peak / bandwidth (FLOP/byte); 0 for the memory roof
    bool gemm = false;                     // the precision the cost model used for GEMMs
};

struct RooflinePoint {
    RooflinePointKind kind = RooflinePointKind::Theory;
    std::string label;          // operator name, class id, or kernel name
    std::string phase;          // "prefill" | "decode" | "mixed" | "training" | "" (ncu)
    // Theory and measured points: the workload of their phase's theory (PhaseCost) and where it came from
    // ("trace", "annotation", "option", "default"; "" for ncu and shape points).
    int64_t batch = 0, query_len = 0, kv_len = 0, tokens = 0;
    std::string shape_source;
    std::string op_class;       // kernel_classes.json id ("" for ncu points)
    double flops = 0, bytes = 0;          // per pass (theory, measured) or summed over the launches (ncu)
    double intensity = 0;                 // FLOP/byte
    double flops_per_s = 0;               // attained (or bound) performance
    std::optional<double> time_ns;        // T_theory (theory), t_actual per pass (measured), duration (ncu)
    double total_ns = 0;                  // measured_total_ns (measured), sum of durations (ncu), T_theory (theory)
    std::optional<double> e_roof;
    uint32_t kernel_name = UINT32_MAX;    // StrId of the trace kernel name (ncu points joined to the trace)
    int64_t launches = 1;                 // ncu launches folded into this point
    int64_t ncu_launch = -1;              // ncu's launch ID of a per-launch ncu point (-1: folded, or not ncu)
    // Shape points only (kind Shape), from ShapePoint: label = op ("aten::mm"), op_class = family ("gemm",
    // "attention", "norm", "elementwise", "embedding"), flops / bytes per call, flops_per_s = achieved,
    // total_ns = summed kernel time, time_ns = kernel time per call.
    std::string shape;                    // "M=8944 N=2816 K=1024"
    std::string input_dims, input_types;  // the trace's own text
    std::string dtype;                    // roof precision: "bf16", "fp8", ...
    double bytes_per_s = 0;               // achieved bytes / kernel time
    int64_t calls = 0;
    std::optional<double> pct_of_roof;    // 0..105 of the dtype's roof (unset: unknown peak or inconsistent)
    bool roof_inconsistent = false;
    std::string bound;                    // "compute" | "memory" | ""
    std::vector<std::string> kernel_names;   // distinct, longest time first
    std::vector<int64_t> kernels;         // indices into Trace::kernels (every instance behind the point), ascending
};

struct RooflineData {
    bool valid = false;                   // there is something to draw (roofs or points)
    std::string gpu_name;
    Precision gemm_precision = Precision::BF16;
    double bandwidth = 0;                 // bytes/s of the memory roof (0 = unknown)
    std::vector<RooflineRoof> roofs;      // the memory roof first, then compute roofs by descending peak
    std::vector<RooflinePoint> points;    // theory, then measured, then ncu
    bool ncu_aggregated = false;          // ncu launches were folded per kernel name to stay under the cap
    size_t skipped = 0;                   // points left out (no FLOPs/bytes/time, or beyond the cap)

    // The compute roof "% of roof" is measured against: the cost model's GEMM precision, else bf16, else the
    // highest peak; nullopt when the GPU row has no peak.
    std::optional<double> primary_peak() const;
    // The roof over intensity I: min(I * BW, primary peak) (either side alone when the other is unknown; 0 when
    // neither is known).
    double attainable(double intensity) const;
    // flops_per_s / attainable(intensity); nullopt when no roof is known.
    std::optional<double> fraction_of_roof(const RooflinePoint& p) const;
};

inline constexpr size_t kRooflineMaxPoints = 3000;

// The roofs: the memory roof (bandwidth > 0) and one compute roof per precision the spec has a peak for.
std::vector<RooflineRoof> roofline_roofs(const GpuSpec& gpu, double bandwidth,
                                         std::optional<Precision> gemm_precision = std::nullopt);

// Everything the pane draws. `roofline` may be null (then nothing is valid), `trace` may be null (ncu points then
// carry no kernel name id). When only an ncu file was given (no report), the roofs come from the GPU row matching
// the trace's first device, if any; without a trace, from the row the ncu file's own device matches (its name,
// compute capability and the SM count its launches imply: ncu_device_info).
RooflineData build_roofline_data(const RooflineOutput* roofline, const Trace* trace,
                                 size_t max_points = kRooflineMaxPoints);
// The same plus one Shape point per drawable ShapePoint of `shapes` (may be null). Without a model config (or ncu
// report giving the roofs) the roofs come from shapes->gpu's row of the spec database.
RooflineData build_roofline_data(const RooflineOutput* roofline, const Trace* trace,
                                 const ShapeRooflineResult* shapes, size_t max_points = kRooflineMaxPoints);

// The operator family a shape point is drawn with: "gemm", "attention", "norm" or "other" (elementwise, embedding,
// anything else).
std::string shape_series_family(const std::string& family);

const char* roofline_kind_name(RooflinePointKind k);   // "theory" | "measured" | "ncu" | "shape"

// The point that stands for trace kernel k: its ncu point (same kernel name; the largest when folded per launch),
// else the shape point whose kernels include k, else the measured point of its operator class in the phase of the step it started in (analysis: op classes and
// phases). -1 when none. analysis may be null (then only ncu points are found).
int roofline_row_for_kernel(const RooflineData& data, const Trace& trace, const AnalysisResult* analysis, int64_t k);

// One row per point.
class RooflineModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kind, Label, Phase, Intensity, FlopsPerSecond, TotalTime, ERoof, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1,     // the raw number (or text) of the column, for sorting
        KindRole,                        // int(RooflinePointKind)
        IntensityRole,                   // double FLOP/byte
        FlopsPerSecondRole,              // double FLOP/s
        TotalTimeRole,                   // double ns
        ERoofRole,                       // double, or invalid QVariant when unknown
        KernelNameRole,                  // uint StrId of the kernel name, or invalid when not a kernel point
        OpClassRole,                     // QString class id ("" for ncu points)
        PhaseRole,                       // QString "prefill" | "decode" | ""
        KernelsRole,                     // QVariantList of qlonglong trace kernel indices (shape points), else invalid
        ShapeRole,                       // QString readable shape (shape points), else ""
        DtypeRole,                       // QString roof precision (shape points), else ""
        PercentOfRoofRole,               // double 0..105 (shape points with a known roof), else invalid
    };

    explicit RooflineModel(QObject* parent = nullptr);
    // Follows the document: rebuilt on rooflineChanged and traceChanged.
    explicit RooflineModel(Document* document, QObject* parent = nullptr);

    void setRooflineData(RooflineData data);
    const RooflineData& rooflineData() const { return data_; }
    const RooflinePoint* pointAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "1.23 TFLOP/s", "45.6 FLOP/B"-style labels shared with the view.
    static QString formatFlopsPerSecond(double v);
    static QString formatIntensity(double v);
    static QString formatBytesPerSecond(double v);   // "3.35 TB/s"
    // An SI number: 1e12 -> "1T", 3.5e9 -> "3.5G", 0.01 -> "10m".
    static QString formatSi(double v);
    QString kindLabel(RooflinePointKind k) const;

private:
    void rebuild();

    QPointer<Document> document_;
    RooflineData data_;
};

} // namespace sl

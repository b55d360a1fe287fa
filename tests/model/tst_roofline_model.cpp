// The Roofline pane's data: roofs, ridge points, theory / measured / ncu points from the real pipeline on the
// generated decode trace with its model config, cross-checked against the `analyze --model` JSON of the same report
// and against independent recomputations; the point cap; the table model.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/io/model_config.h"
#include "analysis/io/ncu_metrics.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/pipeline.h"
#include "analysis/io/synthetic.h"
#include "model/document.h"
#include "model/roofline_model.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

bool close(double a, double b, double rel = 1e-9)
{
    return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

class TestRooflineModel : public QObject {
    Q_OBJECT
private:
    std::string configPath_;
    PipelineResult result_;

    const RooflineReport& report() const { return *result_.roofline.report; }

private slots:
    void initTestCase()
    {
        // The sample's model, written here, and the generated decode trace run through the real pipeline.
        const SynthOptions so = synth_preset("decode");
        configPath_ = testing::writeModelConfig(testing::scratchDir(QStringLiteral("roofline_model")), so).toStdString();
        auto trace = std::make_shared<const Trace>(make_synthetic_trace(so));
        PipelineOptions o;
        o.run_rules = false;
        o.roofline.model = configPath_;
        o.roofline.cost.batch = 1;
        o.roofline.cost.prompt = 512;
        o.roofline.cost.context = 2048;
        result_ = run_pipeline_on(trace, o);
        QVERIFY(result_.roofline.report.has_value());
        QVERIFY(report().measured);
    }

    void roofsAndRidges()
    {
        const RooflineData d = build_roofline_data(&result_.roofline, result_.trace.get());
        QVERIFY(d.valid);
        QCOMPARE(QString::fromStdString(d.gpu_name), QStringLiteral("H100 SXM"));
        const GpuSpec& gpu = report().cost.gpu;
        QVERIFY(!d.roofs.empty());
        // The memory roof first, at the cost model's bandwidth (3.35 TB/s for the H100 SXM row).
        QVERIFY(!d.roofs.front().precision);
        QCOMPARE(d.roofs.front().value, report().cost.bandwidth);
        QCOMPARE(d.bandwidth, 3.35e12);
        // One compute roof per precision the row has a peak for (the JSON's non-null peaks): H100 SXM has fp32,
        // tf32, fp16, bf16, fp8, int8 — no separate fp16-accumulate rate.
        const nlohmann::json j = roofline_to_json(report(), load_model_config(configPath_));
        std::set<std::string> expected, got;
        for (Precision p : {Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16,
                            Precision::FP16_FP16ACC, Precision::FP8, Precision::INT8})
            if (!j["peaks"][precision_name(p)].is_null())
                expected.insert(precision_name(p));
        QCOMPARE(expected, (std::set<std::string>{"fp32", "tf32", "fp16", "bf16", "fp8", "int8"}));
        QVERIFY(gpu.peaks.bf16.has_value());
        for (size_t i = 1; i < d.roofs.size(); ++i) {
            const RooflineRoof& r = d.roofs[i];
            QVERIFY(r.precision.has_value());
            got.insert(r.name);
            // Peak as in the JSON's peaks object, ridge = peak / bandwidth.
            QCOMPARE(r.value, j["peaks"][r.name].get<double>());
            QVERIFY(close(r.ridge, r.value / 3.35e12));
            if (i > 1)
                QVERIFY(d.roofs[i - 1].value >= r.value);
            QCOMPARE(r.gemm, r.name == "bf16");
        }
        QCOMPARE(got, expected);
        // bf16 (the GEMM precision) ridge = the JSON's ridge_flop_per_byte = 989.4e12 / 3.35e12 ~= 295 FLOP/B.
        for (const RooflineRoof& r : d.roofs)
            if (r.name == "bf16") {
                QVERIFY(close(r.ridge, j["peaks"]["ridge_flop_per_byte"].get<double>()));
                QVERIFY(close(r.ridge, 989.4e12 / 3.35e12));
            }
        QVERIFY(close(*d.primary_peak(), 989.4e12));
        // attainable(): the memory roof below the ridge, the peak above.
        QVERIFY(close(d.attainable(10), 10 * 3.35e12));
        QVERIFY(close(d.attainable(1000), 989.4e12));
    }

    void measuredPointsAgreeWithTheCliJson()
    {
        const RooflineData d = build_roofline_data(&result_.roofline, result_.trace.get());
        const nlohmann::json j = roofline_to_json(report(), load_model_config(configPath_));
        std::map<std::pair<std::string, std::string>, const RooflinePoint*> measured;
        for (const RooflinePoint& p : d.points)
            if (p.kind == RooflinePointKind::Measured) {
                QVERIFY(measured.emplace(std::make_pair(p.op_class, p.phase), &p).second);
                QCOMPARE(p.label, p.op_class);
            }
        size_t expected = 0;
        for (const auto& c : j["classes"]) {
            if (c["t_actual_ns"].is_null() || c["flops"].get<double>() <= 0 || c["bytes"].get<double>() <= 0)
                continue;
            ++expected;
            const auto it = measured.find({c["class"].get<std::string>(), c["phase"].get<std::string>()});
            QVERIFY2(it != measured.end(), c["class"].get<std::string>().c_str());
            const RooflinePoint& p = *it->second;
            // Recomputed from the JSON's numbers: x = flops / bytes, y = flops / t_actual.
            const double flops = c["flops"].get<double>(), bytes = c["bytes"].get<double>();
            QVERIFY(close(p.intensity, flops / bytes));
            QVERIFY(close(p.flops_per_s, flops / (c["t_actual_ns"].get<double>() * 1e-9)));
            QCOMPARE(p.total_ns, double(c["measured_total_ns"].get<int64_t>()));
            QVERIFY(c["e_roof"].is_null() == !p.e_roof.has_value());
            if (p.e_roof)
                QVERIFY(close(*p.e_roof, c["e_roof"].get<double>()));
        }
        QCOMPARE(measured.size(), expected);
        // The decode step of the sample: a 7B model at batch 1 reads its weights once per token, so the GEMMs run
        // near the memory roof — E_roof must be a plausible fraction, not off by orders of magnitude.
        const auto gemm = measured.find({"gemm", "decode"});
        QVERIFY(gemm != measured.end());
        QVERIFY(gemm->second->e_roof);
        QVERIFY2(*gemm->second->e_roof > 0.5 && *gemm->second->e_roof < 1.2,
                 qPrintable(QString::number(*gemm->second->e_roof)));
        // % of roof of a measured point = its FLOP/s over min(I * BW, bf16 peak).
        const RooflinePoint& g = *gemm->second;
        QVERIFY(close(*d.fraction_of_roof(g), g.flops_per_s / std::min(g.intensity * 3.35e12, 989.4e12)));
    }

    void theoryPointsSitOnTheirRoof()
    {
        const RooflineData d = build_roofline_data(&result_.roofline, result_.trace.get());
        const nlohmann::json j = roofline_to_json(report(), load_model_config(configPath_));
        size_t expected = 0, onMemoryRoof = 0, onComputeRoof = 0;
        for (const auto& o : j["operators"]) {
            if (o["t_theory_ns"].is_null() || o["flops"].get<double>() <= 0 || o["bytes"].get<double>() <= 0)
                continue;
            ++expected;
            const RooflinePoint* p = nullptr;
            for (const RooflinePoint& q : d.points)
                if (q.kind == RooflinePointKind::Theory && q.label == o["name"].get<std::string>() &&
                    q.phase == o["phase"].get<std::string>())
                    p = &q;
            QVERIFY2(p, o["name"].get<std::string>().c_str());
            QVERIFY(close(p->intensity, o["intensity"].get<double>()));
            QVERIFY(close(p->flops_per_s, o["flops"].get<double>() / (o["t_theory_ns"].get<double>() * 1e-9)));
            QCOMPARE(p->op_class, o["class"].get<std::string>());
            // kappa = 1, bw_efficiency = 1: a memory-bound operator's bound IS the memory roof (I * BW); a GEMM
            // bound by compute with only tensor FLOPs IS the bf16 peak.
            if (o["bound"] == "memory") {
                QVERIFY(close(p->flops_per_s, p->intensity * 3.35e12, 1e-6));
                ++onMemoryRoof;
            } else if (o["bound"] == "compute" && o["tensor_flops"].get<double>() == o["flops"].get<double>()) {
                QVERIFY(close(p->flops_per_s, 989.4e12, 1e-6));
                ++onComputeRoof;
            }
        }
        size_t theory = 0;
        for (const RooflinePoint& p : d.points)
            theory += p.kind == RooflinePointKind::Theory;
        QCOMPARE(theory, expected);
        QVERIFY(onMemoryRoof > 0);
        QVERIFY(onComputeRoof > 0);   // prefill GEMMs over 512 tokens are compute-bound on H100
        // kv_cache_write has no FLOPs: it cannot sit on log axes and is counted as skipped.
        QVERIFY(d.skipped > 0);
    }

    void ncuPointsPerLaunchFromARealFile()
    {
        RooflineOutput out = result_.roofline;
        out.ncu = read_ncu(qEnvironmentVariable("SIGHTLINE_SOURCE_DIR").toStdString() +
                           "/tests/data/ncu/raw_base_units.csv");
        const RooflineData d = build_roofline_data(&out, result_.trace.get());
        QVERIFY(!d.ncu_aggregated);
        std::vector<const RooflinePoint*> ncu;
        for (const RooflinePoint& p : d.points)
            if (p.kind == RooflinePointKind::Ncu)
                ncu.push_back(&p);
        size_t drawable = 0;
        for (const NcuLaunch& l : out.ncu->launches) {
            const NcuLaunchMetrics m = compute_ncu_metrics(l);
            if (!m.intensity || !m.achieved_flops_per_s)
                continue;
            QVERIFY(drawable < ncu.size());
            const RooflinePoint& p = *ncu[drawable++];
            QCOMPARE(p.label, l.name);
            QVERIFY(close(p.intensity, *m.intensity));
            QVERIFY(close(p.flops_per_s, *m.achieved_flops_per_s));
            QCOMPARE(p.launches, int64_t(1));
        }
        QVERIFY(drawable > 0);
        QCOMPARE(ncu.size(), drawable);
    }

    void ncuPointsJoinTraceKernelsAndAreCapped()
    {
        const Trace& t = *result_.trace;
        // Ten kernel names of the trace, 400 launches each: 4,000 launches.
        std::vector<StrId> names;
        for (size_t k = 0; k < t.kernels.size() && names.size() < 10; ++k)
            if (std::find(names.begin(), names.end(), t.kernels.name[k]) == names.end())
                names.push_back(t.kernels.name[k]);
        QCOMPARE(names.size(), size_t(10));
        RooflineOutput out = result_.roofline;
        out.ncu = NcuReport{};
        int64_t id = 0;
        for (int rep = 0; rep < 400; ++rep)
            for (size_t n = 0; n < names.size(); ++n) {
                // name n: FLOPs (n+1)*1e9 + rep, bytes 1e8, duration (1000 + rep) ns
                out.ncu->launches.push_back(testing::ncuLaunch(id++, std::string(t.str(names[n])), (double(n) + 1) * 1e9 + rep,
                                                   1e8, 1000.0 + rep));
            }
        // Under a cap of 100 points: folded per kernel name, sums of FLOPs / bytes / time.
        const RooflineData agg = build_roofline_data(&out, &t, 100);
        QVERIFY(agg.ncu_aggregated);
        QVERIFY(agg.points.size() <= 100);
        size_t ncuPoints = 0;
        for (const RooflinePoint& p : agg.points) {
            if (p.kind != RooflinePointKind::Ncu)
                continue;
            ++ncuPoints;
            const auto it = std::find_if(names.begin(), names.end(), [&](StrId s) { return t.str(s) == p.label; });
            QVERIFY(it != names.end());
            const double n = double(it - names.begin());
            QCOMPARE(p.kernel_name, *it);
            QCOMPARE(p.launches, int64_t(400));
            // sum_rep ((n+1)e9 + rep) = 400 (n+1) e9 + 399*400/2; bytes 400e8; time 400*1000 + 79800 ns
            const double flops = 400 * (n + 1) * 1e9 + 79800, bytes = 400 * 1e8, ns = 400 * 1000.0 + 79800;
            QVERIFY(close(p.intensity, flops / bytes));
            QVERIFY(close(p.flops_per_s, flops / (ns * 1e-9)));
            QVERIFY(close(p.total_ns, ns));
        }
        QCOMPARE(ncuPoints, names.size());
        // The default cap (3,000) also folds 4,000 launches; a cap above them keeps one point per launch.
        QVERIFY(build_roofline_data(&out, &t).ncu_aggregated);
        const RooflineData all = build_roofline_data(&out, &t, 10000);
        QVERIFY(!all.ncu_aggregated);
        QCOMPARE(std::count_if(all.points.begin(), all.points.end(),
                               [](const RooflinePoint& p) { return p.kind == RooflinePointKind::Ncu; }),
                 std::ptrdiff_t(4000));
        // A cap below the theory and measured points keeps the cap and counts what was left out: the 10 folded ncu
        // points and the theory/measured points beyond 5.
        const RooflineData base = build_roofline_data(&result_.roofline, &t);
        QVERIFY(base.points.size() > 5);
        const RooflineData tiny = build_roofline_data(&out, &t, 5);
        QCOMPARE(tiny.points.size(), size_t(5));
        QCOMPARE(tiny.skipped, base.skipped + 10 + (base.points.size() - 5));
    }

    void pointOfATraceKernel()
    {
        const Trace& t = *result_.trace;
        RooflineOutput out = result_.roofline;
        const RooflineData d = build_roofline_data(&out, &t);
        // The synthetic decode step's qkv GEMM (nvjet_tst_64x8...) runs only in decode steps, the cuBLAS xmma GEMM
        // only in prefill passes (analysis/io/synthetic.cpp).
        auto firstNamed = [&](std::string_view prefix) -> int64_t {
            for (size_t k = 0; k < t.kernels.size(); ++k)
                if (t.str(t.kernels.name[k]).substr(0, prefix.size()) == prefix)
                    return int64_t(k);
            return -1;
        };
        const int64_t decodeGemm = firstNamed("nvjet_tst_64x8_64x16_4x1_v_bz_TNT");
        const int64_t prefillGemm = firstNamed("sm90_xmma_gemm_bf16bf16");
        QVERIFY(decodeGemm >= 0 && prefillGemm >= 0);
        const int rd = roofline_row_for_kernel(d, t, &result_.analysis, decodeGemm);
        QVERIFY(rd >= 0);
        QCOMPARE(d.points[size_t(rd)].kind, RooflinePointKind::Measured);
        QCOMPARE(d.points[size_t(rd)].op_class, std::string("gemm"));
        QCOMPARE(d.points[size_t(rd)].phase, std::string("decode"));
        const int rp = roofline_row_for_kernel(d, t, &result_.analysis, prefillGemm);
        QVERIFY(rp >= 0);
        QCOMPARE(d.points[size_t(rp)].op_class, std::string("gemm"));
        QCOMPARE(d.points[size_t(rp)].phase, std::string("prefill"));
        // With an ncu launch of that kernel's name, the kernel's own point wins.
        out.ncu = NcuReport{};
        out.ncu->launches.push_back(testing::ncuLaunch(0, std::string(t.str(t.kernels.name[size_t(decodeGemm)])), 2e9, 1e8, 1e6));
        const RooflineData withNcu = build_roofline_data(&out, &t);
        const int rn = roofline_row_for_kernel(withNcu, t, &result_.analysis, decodeGemm);
        QVERIFY(rn >= 0);
        QCOMPARE(withNcu.points[size_t(rn)].kind, RooflinePointKind::Ncu);
        QCOMPARE(withNcu.points[size_t(rn)].kernel_name, t.kernels.name[size_t(decodeGemm)]);
        // Without the analysis only ncu points can be found; out of range is -1.
        QCOMPARE(roofline_row_for_kernel(d, t, nullptr, decodeGemm), -1);
        QCOMPARE(roofline_row_for_kernel(d, t, &result_.analysis, int64_t(t.kernels.size())), -1);
    }

    void nothingWithoutAReport()
    {
        QVERIFY(!build_roofline_data(nullptr, result_.trace.get()).valid);
        RooflineOutput empty;
        QVERIFY(!build_roofline_data(&empty, result_.trace.get()).valid);
    }

    void formatSi_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("1") << 1.0 << QStringLiteral("1");
        QTest::newRow("20") << 20.0 << QStringLiteral("20");
        QTest::newRow("1.5k") << 1500.0 << QStringLiteral("1.5k");
        QTest::newRow("1T") << 1e12 << QStringLiteral("1T");
        QTest::newRow("3.35T") << 3.35e12 << QStringLiteral("3.35T");
        QTest::newRow("989T") << 989.4e12 << QStringLiteral("989T");
        QTest::newRow("round up") << 999.7e9 << QStringLiteral("1T");
        QTest::newRow("1P") << 1e15 << QStringLiteral("1P");
        QTest::newRow("milli") << 0.5 << QStringLiteral("500m");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0");
    }
    void formatSi()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(RooflineModel::formatSi(value), text);
    }

    void tableModel()
    {
        RooflineOutput out = result_.roofline;
        out.ncu = NcuReport{};
        const Trace& t = *result_.trace;
        out.ncu->launches.push_back(testing::ncuLaunch(0, std::string(t.str(t.kernels.name[0])), 2e9, 1e8, 1e6));
        RooflineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setRooflineData(build_roofline_data(&out, &t));
        const RooflineData& d = model.rooflineData();
        QCOMPARE(model.rowCount(), int(d.points.size()));
        QCOMPARE(model.columnCount(), int(RooflineModel::ColumnCount));
        bool sawNcu = false, sawMeasured = false;
        for (int r = 0; r < model.rowCount(); ++r) {
            const RooflinePoint& p = d.points[size_t(r)];
            const QModelIndex i = model.index(r, RooflineModel::Intensity);
            QCOMPARE(model.data(i, RooflineModel::IntensityRole).toDouble(), p.intensity);
            QCOMPARE(model.data(i, RooflineModel::FlopsPerSecondRole).toDouble(), p.flops_per_s);
            QCOMPARE(model.data(i, RooflineModel::SortRole).toDouble(), p.intensity);
            QCOMPARE(model.data(i, RooflineModel::KindRole).toInt(), int(p.kind));
            QCOMPARE(model.data(i, RooflineModel::OpClassRole).toString().toStdString(), p.op_class);
            QCOMPARE(model.data(i, RooflineModel::PhaseRole).toString().toStdString(), p.phase);
            const QVariant kn = model.data(i, RooflineModel::KernelNameRole);
            if (p.kind == RooflinePointKind::Ncu) {
                sawNcu = true;
                QCOMPARE(kn.toUInt(), uint(t.kernels.name[0]));   // joined to the trace kernel of that name
                QCOMPARE(model.data(model.index(r, RooflineModel::FlopsPerSecond)).toString(),
                         QStringLiteral("2 TFLOP/s"));
                QCOMPARE(model.data(model.index(r, RooflineModel::Intensity)).toString(), QStringLiteral("20.0 FLOP/B"));
            } else {
                QVERIFY(!kn.isValid());
            }
            if (p.kind == RooflinePointKind::Measured) {
                sawMeasured = true;
                QVERIFY(model.data(i, RooflineModel::ERoofRole).isValid());
                QCOMPARE(model.data(i, RooflineModel::ERoofRole).toDouble(), *p.e_roof);
            }
        }
        QVERIFY(sawNcu && sawMeasured);
        QCOMPARE(model.headerData(RooflineModel::ERoof, Qt::Horizontal).toString(), QStringLiteral("E_roof"));
    }

    void followsTheDocument()
    {
        Document doc;
        RooflineModel model(&doc);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        doc.setTrace({QStringLiteral("synthetic")}, result_.trace);
        doc.setRoofline(std::make_shared<const RooflineOutput>(result_.roofline));
        QVERIFY(model.rowCount() > 0);
        QVERIFY(model.rooflineData().valid);
        doc.setRooflineError(QStringLiteral("config.json: hidden_size missing"));
        QCOMPARE(model.rowCount(), 0);
        doc.setRoofline(std::make_shared<const RooflineOutput>(result_.roofline));
        QVERIFY(model.rowCount() > 0);
        doc.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    // Measured shape points of a real Kineto trace with shapes (the H100 Qwen trace), with no model config: the
    // model exposes one point per drawable (op, shapes, dtype) with the kernels behind it, and the numbers agree
    // with an independent recomputation from the trace's own dims and kernel times.
    void shapePointsOfARealTrace()
    {
        const QByteArray dir = qgetenv("SIGHTLINE_SHARED_DATA");
        const std::string path =
            dir.toStdString() + "/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz";
        if (dir.isEmpty() || !QFile::exists(QString::fromStdString(path)))
            QSKIP("the H100 Qwen trace is not in SIGHTLINE_SHARED_DATA");
        PipelineOptions o;
        o.run_rules = false;
        const PipelineResult r = run_pipeline({path}, o);
        QVERIFY(!r.roofline.report);   // no model config: only the shapes give points
        QVERIFY(!r.shapes.points.empty());
        const Trace& t = *r.trace;

        Document doc;
        RooflineModel model(&doc);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        doc.setTrace({QString::fromStdString(path)}, r.trace);
        QCOMPARE(model.rowCount(), 0);
        doc.setShapes(std::make_shared<const ShapeRooflineResult>(r.shapes));
        const RooflineData& d = model.rooflineData();
        QVERIFY(d.valid);
        QCOMPARE(QString::fromStdString(d.gpu_name), QStringLiteral("H100 SXM"));   // roofs without a config
        QCOMPARE(d.bandwidth, 3.35e12);
        QVERIFY(d.primary_peak().has_value());

        // Every drawable shape point (FLOPs, bytes and kernel time > 0) is a row; the others are counted as skipped.
        size_t drawable = 0;
        for (const ShapePoint& sp : r.shapes.points)
            drawable += sp.flops_per_call > 0 && sp.bytes_per_call > 0 && sp.kernel_ns > 0;
        QCOMPARE(size_t(model.rowCount()), drawable);
        QCOMPARE(d.skipped, r.shapes.points.size() - drawable);

        std::set<std::string> families;
        bool sharedName = false;
        for (int row = 0; row < model.rowCount(); ++row) {
            const RooflinePoint& p = d.points[size_t(row)];
            QCOMPARE(p.kind, RooflinePointKind::Shape);
            families.insert(shape_series_family(p.op_class));
            // The kernels behind the point: their summed GPU time is the point's time, FLOP/s = calls·FLOPs / time.
            QVERIFY(!p.kernels.empty());
            QVERIFY(std::is_sorted(p.kernels.begin(), p.kernels.end()));
            int64_t ns = 0;
            std::set<std::string> names;
            for (int64_t k : p.kernels) {
                ns += t.kernels.end[size_t(k)] - t.kernels.start[size_t(k)];
                names.insert(std::string(t.str(t.kernels.name[size_t(k)])));
            }
            QCOMPARE(double(ns), p.total_ns);
            QVERIFY(close(p.flops_per_s, double(p.calls) * p.flops / (double(ns) * 1e-9), 1e-9));
            QVERIFY(close(p.intensity, p.flops / p.bytes));
            QCOMPARE(names, std::set<std::string>(p.kernel_names.begin(), p.kernel_names.end()));
            // A kernel name can run for several shapes: the point holds only its own instances.
            for (const std::string& n : names) {
                size_t all = 0;
                const StrId id = t.strings.find(n);
                for (size_t k = 0; k < t.kernels.size(); ++k)
                    all += t.kernels.name[k] == id;
                sharedName = sharedName || all > p.kernels.size();
            }
            // GEMMs (aten::mm: [M, K] x [K, N]): 2·M·N·K from the trace's own dims.
            if (p.label == "aten::mm") {
                const auto dims = nlohmann::json::parse(p.input_dims);
                const double m = dims[0][0], k = dims[0][1], n = dims[1][1];
                QCOMPARE(p.flops, 2 * m * n * k);
                QCOMPARE(p.dtype, std::string("bf16"));
                QVERIFY(p.pct_of_roof && *p.pct_of_roof > 0 && *p.pct_of_roof <= 105);
            }
            // The roles the view and tables read.
            const QModelIndex i = model.index(row, RooflineModel::Label);
            QCOMPARE(model.data(i, RooflineModel::KindRole).toInt(), int(RooflinePointKind::Shape));
            QCOMPARE(model.data(i, RooflineModel::KernelsRole).toList().size(), qsizetype(p.kernels.size()));
            QCOMPARE(model.data(i, RooflineModel::KernelsRole).toList().front().toLongLong(), p.kernels.front());
            QCOMPARE(model.data(i, RooflineModel::ShapeRole).toString().toStdString(), p.shape);
            QCOMPARE(model.data(i, RooflineModel::DtypeRole).toString().toStdString(), p.dtype);
            QVERIFY(model.data(i).toString().contains(QString::fromStdString(p.shape)));
            // Each kernel of the point maps back to it (the view highlights it when the timeline selects one).
            QCOMPARE(roofline_row_for_kernel(d, t, nullptr, p.kernels.back()), row);
        }
        QVERIFY(families.count("gemm") && families.count("attention"));
        QVERIFY(families.count("norm") || families.count("other"));
        QVERIFY2(sharedName, "some kernel name serves several shapes on this trace");

        // With the sample's theory too, both kinds sit in one data set.
        const RooflineData both = build_roofline_data(&result_.roofline, result_.trace.get(), &r.shapes);
        QVERIFY(std::any_of(both.points.begin(), both.points.end(),
                            [](const RooflinePoint& p) { return p.kind == RooflinePointKind::Theory; }));
        QVERIFY(std::any_of(both.points.begin(), both.points.end(),
                            [](const RooflinePoint& p) { return p.kind == RooflinePointKind::Shape; }));
        doc.clear();
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestRooflineModel)
#include "tst_roofline_model.moc"

// Which CPU operator launched a kernel (model/kernel_origin.h): the operators open on the launching thread at the
// launch, the nn.Module path, the op's record_shapes row (joined by External id), and the kernels of an operator.
// On a hand-built Kineto-like trace with known answers, and on the H100 Qwen1.5 Kineto trace of ../shared/data
// against a brute force over its ranges (every kernel) and the External-id join done by hand.
#include <QTest>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "analysis/io/load.h"
#include "model/kernel_origin.h"
#include "model/timeline_index.h"

using namespace sl;

namespace {

std::string sharedTrace(const char* rel)
{
    const char* root = std::getenv("SIGHTLINE_SHARED_DATA");
    if (!root)
        return {};
    const std::string p = std::string(root) + "/" + rel;
    return std::ifstream(p).good() ? p : std::string();
}

} // namespace

class TestKernelOrigin : public QObject {
    Q_OBJECT
private slots:
    void handBuilt()
    {
        auto t = std::make_shared<Trace>();
        const uint16_t dev = t->device_index(0);
        const uint16_t proc = t->process_index(100);
        const uint32_t th = t->thread_index(1, 100, 101);
        auto name = [&](const char* n) { return t->strings.intern(n); };
        // ProfilerStep > [Qwen2Model_0 > Linear_3 (Python)] > aten::linear > aten::addmm > cudaLaunchKernel
        t->ranges.append(0, 10'000, name("ProfilerStep#1"), th, RangeKind::UserAnnotation);
        t->ranges.append(100, 9'000, name("nn.Module: Qwen2Model_0"), th, RangeKind::PythonFunction);
        t->ranges.append(150, 8'000, name("model.py(12): forward"), th, RangeKind::PythonFunction);
        t->ranges.append(200, 5'000, name("nn.Module: Linear_3"), th, RangeKind::PythonFunction);
        const size_t linear = t->ranges.append(300, 4'000, name("aten::linear"), th, RangeKind::CpuOp);
        const size_t addmm = t->ranges.append(400, 3'000, name("aten::addmm"), th, RangeKind::CpuOp);
        t->ranges.append(6'000, 7'000, name("aten::relu"), th, RangeKind::CpuOp);   // after the launch: not in the chain
        t->api.append(500, 600, name("cudaLaunchKernel"), 7, th, ApiClass::Runtime, kApiLaunch);
        const size_t k = t->kernels.append(700, 900, name("gemm"));
        t->kernels.device[k] = dev;
        t->kernels.process[k] = proc;
        t->kernels.stream[k] = 7;
        t->kernels.correlation[k] = 7;
        auto& a = t->op_args;
        const size_t opRow = a.append(OpArgsTable::kCpuOp, 400, 3'000, name("aten::addmm"));
        a.pid[opRow] = 100;
        a.external_id[opRow] = 42;
        a.input_dims[opRow] = "[[3072], [16, 1024], [1024, 3072]]";
        a.input_types[opRow] = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";
        const size_t launchRow = a.append(OpArgsTable::kLaunch, 500, 600, 0);
        a.pid[launchRow] = 100;
        a.external_id[launchRow] = 42;
        a.correlation[launchRow] = 7;
        t->finish();
        QCOMPARE(t->kernels.launch_api[k], 0);
        const auto idx = TimelineIndex::build(t);
        const KernelOrigin o = kernelOrigin(*idx, uint32_t(k));
        QCOMPARE(o.api, 0);
        QCOMPARE(o.hostRanges.size(), size_t(3));   // the annotation and the two ops
        QCOMPARE(t->str(t->ranges.name[o.hostRanges[0]]), std::string_view("ProfilerStep#1"));
        QCOMPARE(o.cpuOps(*t), (std::vector<uint32_t>{uint32_t(linear), uint32_t(addmm)}));
        QCOMPARE(o.op, int32_t(addmm));
        QCOMPARE(o.modules.size(), size_t(2));
        QCOMPARE(moduleName(t->str(t->ranges.name[o.modules[0]])), std::string("Qwen2Model_0"));
        QCOMPARE(moduleName(t->str(t->ranges.name[o.modules[1]])), std::string("Linear_3"));
        QCOMPARE(o.opArgs, int32_t(opRow));
        QCOMPARE(idx->kernelLookup()->opArgsOfKernel(uint32_t(k)), int32_t(opRow));
        QCOMPARE(KernelLookup::scanOpArgsOfKernel(*t, uint32_t(k)), int32_t(opRow));
        // The op's kernels: the one launched inside it; the annotation's too; relu launched none.
        QCOMPARE(kernelsOfHostRange(*idx, uint32_t(addmm)), std::vector<uint32_t>{uint32_t(k)});
        QCOMPARE(kernelsOfHostRange(*idx, 0), std::vector<uint32_t>{uint32_t(k)});
        QVERIFY(kernelsOfHostRange(*idx, 6).empty());
    }

    // Every kernel of the real trace: the operators kernelOrigin names are exactly the CPU ops on the launching
    // thread that enclose the launch call (brute force over all ranges), innermost last; the nn.Module frames
    // likewise; and where record_shapes joins the kernel to an op, that op is the innermost CPU op of the chain.
    void qwenKinetoTrace()
    {
        const std::string path = sharedTrace("kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz");
        if (path.empty())
            QSKIP("no shared data");
        auto trace = std::make_shared<const Trace>(load_trace(path));
        const Trace& t = *trace;
        const auto idx = TimelineIndex::build(trace);
        const RangeTable& R = t.ranges;
        size_t launched = 0, withOps = 0, withModules = 0, joined = 0, joinedAgree = 0;
        for (uint32_t k = 0; k < t.kernels.size(); ++k) {
            const KernelOrigin o = kernelOrigin(*idx, k);
            const int32_t api = t.kernels.launch_api[k];
            QCOMPARE(o.api, api);
            launched += api >= 0;
            std::vector<uint32_t> ops, modules;
            if (api >= 0) {
                const int64_t as = t.api.start[size_t(api)], ae = t.api.end[size_t(api)];
                for (uint32_t r = 0; r < R.size(); ++r) {
                    if (R.thread[r] != t.api.thread[size_t(api)] || R.start[r] > as || R.end[r] < ae)
                        continue;
                    if (R.kind[r] == RangeKind::CpuOp)
                        ops.push_back(r);
                    else if (R.kind[r] == RangeKind::PythonFunction && t.str(R.name[r]).starts_with("nn.Module: "))
                        modules.push_back(r);
                }
            }
            auto outerFirst = [&](uint32_t a, uint32_t b) {
                return R.start[a] != R.start[b] ? R.start[a] < R.start[b] : R.end[a] > R.end[b];
            };
            std::stable_sort(ops.begin(), ops.end(), outerFirst);
            std::stable_sort(modules.begin(), modules.end(), outerFirst);
            QCOMPARE(o.cpuOps(t), ops);
            QCOMPARE(o.modules, modules);
            withOps += !ops.empty();
            withModules += !modules.empty();
            if (o.opArgs >= 0) {
                ++joined;
                // record_shapes' op is one of the chain: the innermost op with that name and start.
                const auto& a = t.op_args;
                for (uint32_t r : ops)
                    if (R.name[r] == a.name[size_t(o.opArgs)] && R.start[r] == a.start[size_t(o.opArgs)]) {
                        ++joinedAgree;
                        break;
                    }
            }
        }
        // The Qwen trace was recorded with record_shapes and with_modules: the kernels whose launch call the trace
        // holds (those before the profiled step's CPU side have none) have an operator and a module, and the
        // External-id join agrees with the time nesting for every kernel it joins.
        const QString counts = QStringLiteral("%1 launched, %2 with ops, %3 with modules, %4 joined")
                                   .arg(launched).arg(withOps).arg(withModules).arg(joined);
        QVERIFY2(launched >= t.kernels.size() / 2, qPrintable(counts));
        QVERIFY2(withOps >= launched * 95 / 100, qPrintable(counts));
        QVERIFY2(withModules >= launched * 90 / 100, qPrintable(counts));
        QVERIFY2(joined >= launched * 90 / 100, qPrintable(counts));
        QCOMPARE(joinedAgree, joined);
    }
};

QTEST_MAIN(TestKernelOrigin)
#include "tst_kernel_origin.moc"

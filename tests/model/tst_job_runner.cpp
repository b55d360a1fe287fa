// JobRunner: loads on a worker, reports progress, delivers the trace by a queued signal, cancels, and lets a newer
// job supersede an older one. The loader is injected so the tests control timing without real files.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <atomic>
#include <memory>
#include <thread>

#include <QFile>
#include <fstream>
#include <new>
#include <zlib.h>
#include <QTemporaryDir>

#include "analysis/pipeline.h"
#include "analysis/io/synthetic.h"
#include "model/document.h"
#include "model/job_runner.h"
#include "tests/support/long_names.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

// A trace with `n` kernels named after the first path, so a test can tell which job's result arrived.
Trace makeTrace(const std::string& tag, int n)
{
    Trace t;
    const StrId name = t.strings.intern(tag);
    for (int i = 0; i < n; ++i)
        t.kernels.append(i * 100, i * 100 + 50, name);
    t.finish();
    return t;
}

// Reports progress and polls the cancel flag like a reader's row loop, for `steps` x 1 ms.
Trace slowLoad(const std::vector<std::string>& paths, const LoadControl& c, int steps)
{
    for (int i = 0; i < steps; ++i) {
        c.check();
        c.report(double(i) / steps, "kernels");
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return makeTrace(paths.at(0), 3);
}

// A llama-style config matching the synthetic decode trace's model (hidden 4096, bf16).
const char* kConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
 "intermediate_size": 11008, "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 8,
 "vocab_size": 32000, "torch_dtype": "bfloat16"})";

std::vector<std::string> ruleIds(const std::vector<Finding>& fs)
{
    std::vector<std::string> ids;
    for (const Finding& f : fs)
        ids.push_back(f.rule + "|" + f.subject);
    return ids;
}

// One gzip member holding text (members inflate to the concatenation of their contents).
std::string gzipMember(const std::string& text)
{
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// A Kineto trace of python_function events (one 1 MB argument each) that inflates to `inflated` bytes, written as
// one gzip member repeated: about a thousandth of that on disk.
void writeGzipBomb(const std::string& path, uint64_t inflated)
{
    const std::string event = "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"forward\",\"pid\":1,\"tid\":1,"
                              "\"ts\":1,\"dur\":1,\"args\":{\"pad\":\"" + std::string(1 << 20, 'a') + "\"}},\n";
    const std::string m = gzipMember(event);
    std::ofstream out(path, std::ios::binary);
    out << gzipMember("{\"schemaVersion\":1,\"traceEvents\":[\n");
    for (uint64_t i = 0; i < inflated / event.size(); ++i)
        out << m;
    out << gzipMember("{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]}");
}

} // namespace

class TestJobRunner : public QObject {
    Q_OBJECT
private slots:
    void loadsOnWorkerAndDelivers()
    {
        JobRunner runner;
        std::atomic<bool> onGuiThread{true};
        const auto gui = std::this_thread::get_id();
        runner.setLoader([&](const std::vector<std::string>& p, const LoadControl& c) {
            onGuiThread = std::this_thread::get_id() == gui;
            return slowLoad(p, c, 20);
        });
        Document doc;
        connect(&runner, &JobRunner::traceLoaded, &doc, &Document::setTrace);
        QSignalSpy loaded(&runner, &JobRunner::traceLoaded);
        QSignalSpy progress(&runner, &JobRunner::progress);
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy summary(&runner, &JobRunner::summaryReady);
        QSignalSpy timeline(&runner, &JobRunner::timelineReady);
        connect(&runner, &JobRunner::timelineReady, &doc, &Document::setTimeline);
        connect(&runner, &JobRunner::summaryReady, &doc, &Document::setSummary);
        runner.open({QStringLiteral("a.sqlite")});
        QVERIFY(runner.isRunning());
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QCOMPARE(loaded.count(), 1);
        QVERIFY(!onGuiThread);
        QVERIFY(!runner.isRunning());
        QVERIFY(progress.count() >= 3);
        // progress is monotone within one stage and ends at 1
        double prev = -1;
        for (const auto& args : progress) {
            const double f = args.at(0).toDouble();
            QVERIFY(f >= prev);
            prev = f;
        }
        QCOMPARE(prev, 1.0);
        QVERIFY(doc.trace());
        QCOMPARE(doc.trace()->kernels.size(), size_t(3));
        QCOMPARE(std::string(doc.trace()->str(doc.trace()->kernels.name[0])), std::string("a.sqlite"));
        QCOMPARE(doc.paths(), QStringList{QStringLiteral("a.sqlite")});
        // stage 2: the summary of the same trace
        QCOMPARE(summary.count(), 1);
        QVERIFY(doc.summary());
        QCOMPARE(doc.summary()->kernels.count, int64_t(3));
        QCOMPARE(doc.summary()->kernels.total_ns, int64_t(150));
        // stage 3: the timeline index over the same trace object
        QCOMPARE(timeline.count(), 1);
        QVERIFY(doc.timeline());
        QCOMPARE(&doc.timeline()->trace(), doc.trace().get());
    }

    void cancelStopsTheLoader()
    {
        JobRunner runner;
        std::atomic<int> steps{0};
        runner.setLoader([&](const std::vector<std::string>& p, const LoadControl& c) {
            for (;;) {   // would never end without the cancel flag
                c.check();
                ++steps;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            return makeTrace(p.at(0), 1);
        });
        QSignalSpy loaded(&runner, &JobRunner::traceLoaded);
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.open({QStringLiteral("never.sqlite")});
        QTRY_VERIFY(steps.load() > 5);
        runner.cancel();
        QTRY_COMPARE(cancelled.count(), 1);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(loaded.count(), 0);
        QVERIFY(!runner.isRunning());
    }

    // Issue 36 §7: a Cancel raised while the analyses run stops them inside their stage, not at its end. The trace's
    // kernels carry 30,000 distinct 2 KiB names, so the operator-class stage runs every shipped class pattern over
    // 60 MB of names: seconds of work in one stage (a "slow pattern" in linear time). Each regex match is a cancel
    // point, so the job is cancelled within a second of cancel(); with a check only between stages it went on for
    // the whole stage. Then the runner is destroyed (the workbench quitting) within a second too.
    void cancelStopsTheAnalysesInsideAStage()
    {
        auto runner = std::make_unique<JobRunner>();
        runner->setLoader([](const std::vector<std::string>&, const LoadControl&) { return test::long_kernel_names(); });
        QSignalSpy summary(runner.get(), &JobRunner::summaryReady);
        QSignalSpy analysed(runner.get(), &JobRunner::analysisReady);
        QSignalSpy cancelled(runner.get(), &JobRunner::cancelled);
        runner->open({QStringLiteral("long-names.json")});
        QTRY_COMPARE_WITH_TIMEOUT(summary.count(), 1, 60'000);
        QElapsedTimer clock;
        clock.start();
        runner->cancel();
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 30'000);
        const qint64 cancelMs = clock.elapsed();
        QCOMPARE(analysed.count(), 0);   // cut inside the analyses, not after them
        QVERIFY2(cancelMs < 1000, qPrintable(QStringLiteral("cancelled after %1 ms").arg(cancelMs)));
        // Quitting: a new job, cancelled at once by the runner's destructor (waitForDone).
        runner->open({QStringLiteral("long-names.json")});
        QTRY_COMPARE_WITH_TIMEOUT(summary.count(), 2, 60'000);
        clock.restart();
        runner.reset();
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QStringLiteral("quit after %1 ms").arg(clock.elapsed())));
    }

    void newerJobSupersedesOlder()
    {
        JobRunner runner;
        runner.setLoader([](const std::vector<std::string>& p, const LoadControl& c) {
            // the first job is slow and ignores nothing: it is cancelled by the second open()
            return slowLoad(p, c, p.at(0) == "old" ? 2000 : 5);
        });
        QSignalSpy loaded(&runner, &JobRunner::traceLoaded);
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        const quint64 g1 = runner.open({QStringLiteral("old")});
        const quint64 g2 = runner.open({QStringLiteral("new")});
        QVERIFY(g2 > g1);
        QTRY_COMPARE(loaded.count(), 1);
        runner.waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.at(0).at(0).toStringList(), QStringList{QStringLiteral("new")});
        const auto trace = loaded.at(0).at(1).value<std::shared_ptr<const Trace>>();
        QCOMPARE(std::string(trace->str(trace->kernels.name[0])), std::string("new"));
        // the superseded job reports nothing, not even its cancellation
        QCOMPARE(cancelled.count(), 0);
        QCOMPARE(finished.count(), 1);
    }

    // A trace opened together with its model config: the files are sorted by content, and the Document gets the
    // same summary, Roofline and findings as the CLI's pipeline (analysis/pipeline.h) computes on the same trace.
    void pipelineResultsReachTheDocument()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString config = testing::writeTextFile(dir.path(), QStringLiteral("config.json"), kConfig);
        SynthOptions so = synth_preset("decode");
        auto reference = std::make_shared<const Trace>(make_synthetic_trace(so));
        JobRunner runner;
        runner.setLoader([so](const std::vector<std::string>&, const LoadControl&) { return make_synthetic_trace(so); });
        Document doc;
        testing::wireRunner(runner, doc);
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy roofFailed(&runner, &JobRunner::rooflineFailed);
        QSignalSpy analysisFailed(&runner, &JobRunner::analysisFailed);
        // The Gaps pane's bins come from the worker, just before the analysis they were binned from.
        std::vector<std::string> order;
        std::shared_ptr<const GapHistogramData> bins;
        connect(&runner, &JobRunner::gapHistogramReady, this, [&](std::shared_ptr<const GapHistogramData> b) {
            order.push_back("bins");
            bins = std::move(b);
        });
        connect(&runner, &JobRunner::analysisReady, this, [&](std::shared_ptr<const AnalysisResult> a) {
            order.push_back("analysis");
            QVERIFY(bins && bins->analysis == a);
        });
        const QString tracePath = dir.filePath(QStringLiteral("decode.sqlite"));   // the injected loader ignores it
        runner.open({config, tracePath});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(finished.at(0).at(0).toBool());
        QCOMPARE(analysisFailed.count(), 0);
        QCOMPARE(roofFailed.count(), 0);
        QCOMPARE(doc.inputs().traces, QStringList{tracePath});
        QCOMPARE(doc.inputs().modelConfig, config);
        QVERIFY(doc.inputs().ncu.isEmpty());
        QVERIFY(doc.summary() && doc.analysis() && doc.timeline());
        QVERIFY(doc.roofline() && doc.roofline()->report);
        QVERIFY(doc.diagnosis());
        QCOMPARE(order, (std::vector<std::string>{"bins", "analysis"}));
        QCOMPARE(doc.gapHistogram(), bins);
        const GapBins summaryBins = summaryGapBins(doc.analysis()->idle);
        QVERIFY(bins->summary.count == summaryBins.count && bins->summary.bin_of_gap == summaryBins.bin_of_gap);
        QVERIFY(bins->byCause.count == binGapsByCause(doc.analysis()->idle).count);
        // a later analysis without bins of its own does not inherit these
        doc.setAnalysis(std::make_shared<const AnalysisResult>(*doc.analysis()));
        QVERIFY(doc.gapHistogram() == nullptr);

        const PipelineResult ref = run_pipeline_on(reference, runner.settings().pipelineOptions(config));
        QCOMPARE(doc.summary()->kernels.total_ns, ref.summary.kernels.total_ns);
        QCOMPARE(doc.analysis()->idle.gaps.size(), ref.analysis.idle.gaps.size());
        QVERIFY(ref.roofline.report);
        QCOMPARE(doc.roofline()->report->classes.size(), ref.roofline.report->classes.size());
        QVERIFY(!ref.diagnosis.eval.findings.empty());
        QCOMPARE(ruleIds(doc.diagnosis()->eval.findings), ruleIds(ref.diagnosis.eval.findings));
    }

    // A config.json that is not a usable model: the Roofline says why, and the findings still come.
    void badModelConfigStillGivesFindings()
    {
        QTemporaryDir dir;
        const QString config = testing::writeTextFile(dir.path(), QStringLiteral("config.json"),
                                         R"({"model_type": "llama", "hidden_size": "four thousand"})");
        JobRunner runner;
        runner.setLoader([](const std::vector<std::string>&, const LoadControl&) {
            return make_synthetic_trace(synth_preset("decode"));
        });
        Document doc;
        testing::wireRunner(runner, doc);
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy roofFailed(&runner, &JobRunner::rooflineFailed);
        runner.open({dir.filePath(QStringLiteral("t.sqlite")), config});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(roofFailed.count(), 1);
        QVERIFY(roofFailed.at(0).at(0).toString().contains(QStringLiteral("config.json")));
        QVERIFY(!doc.roofline());
        QVERIFY(doc.rooflineError().contains(QStringLiteral("config.json")));
        QVERIFY(doc.diagnosis());
        QVERIFY(!doc.diagnosis()->eval.findings.empty());
    }

    // Only a config and no trace: a clear error naming what is missing, not a parse error of the config.
    void filesWithoutATraceAreRefused()
    {
        QTemporaryDir dir;
        const QString config = testing::writeTextFile(dir.path(), QStringLiteral("config.json"), kConfig);
        JobRunner runner;
        QSignalSpy failed(&runner, &JobRunner::failed);
        runner.open({config});
        QTRY_COMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("at least one trace")));
    }

    // An allocation that fails while loading or analysing: the error names the file and says what ran out, never a
    // bare "std::bad_alloc" (the GUI's error dialog shows this text).
    void outOfMemoryIsALocatedError()
    {
        JobRunner runner;
        runner.setLoader([](const std::vector<std::string>&, const LoadControl&) -> Trace { throw std::bad_alloc(); });
        QSignalSpy failed(&runner, &JobRunner::failed);
        runner.open({QStringLiteral("/data/huge.json.gz")});
        QTRY_COMPARE(failed.count(), 1);
        const QString msg = failed.at(0).at(0).toString();
        QVERIFY2(msg.contains(QStringLiteral("/data/huge.json.gz")), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("out of memory")), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("--max-memory")), qPrintable(msg));
        QVERIFY2(!msg.contains(QStringLiteral("std::bad_alloc")), qPrintable(msg));
    }

    // A .json.gz inflating to 10 GB (a few MB of repeated gzip members): the real loader stops at the inflated-size
    // limit and the error names the file, the place and the limit.
    void inflatingGzIsRefusedWithALocatedError()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("bomb.json.gz")).toStdString();
        writeGzipBomb(path, uint64_t{10} << 30);
        JobRunner runner;   // the real loader
        QSignalSpy failed(&runner, &JobRunner::failed);
        runner.open({QString::fromStdString(path)});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 120000);
        const QString msg = failed.at(0).at(0).toString();
        QVERIFY2(msg.startsWith(QString::fromStdString(path + " (inflated byte ")), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("of inflated content (64 MiB plus 64 times the")), qPrintable(msg));
        QVERIFY2(msg.contains(QStringLiteral("--max-inflate-ratio")), qPrintable(msg));
    }

    void errorsAreReported()
    {
        JobRunner runner;   // the real loader
        QSignalSpy failed(&runner, &JobRunner::failed);
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.open({QStringLiteral("/nonexistent/dir/trace.sqlite")});
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(finished.count(), 1);
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("trace.sqlite")));
    }

    // A trace of kCoarseTimelineItems items or more: the timeline comes twice, coarse then complete, both before
    // finished(), and the complete one is the index build() gives.
    void largeTraceGetsCoarseThenCompleteTimeline()
    {
        SynthOptions o = synth_preset("scale");
        o.total_kernels = 1'000'000;
        auto expected = std::make_shared<const Trace>(make_synthetic_trace(o));
        const size_t items = expected->kernels.size() + expected->memcpy.size() + expected->memset.size() +
                             expected->api.size() + expected->ranges.size();
        QVERIFY(items >= JobRunner::kCoarseTimelineItems);
        JobRunner runner;
        runner.setLoader([o](const std::vector<std::string>&, const LoadControl&) { return make_synthetic_trace(o); });
        QSignalSpy timeline(&runner, &JobRunner::timelineReady);
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.open({QStringLiteral("large.sqlite")});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(finished.at(0).at(0).toBool(), true);
        QCOMPARE(timeline.count(), 2);
        const auto coarse = timeline.at(0).at(0).value<std::shared_ptr<const TimelineIndex>>();
        const auto full = timeline.at(1).at(0).value<std::shared_ptr<const TimelineIndex>>();
        QVERIFY(coarse && full);
        QVERIFY(!coarse->complete());
        QVERIFY(full->complete());
        QCOMPARE(&full->trace(), &coarse->trace());
        // the coarse index leaves out what drawing does not need: the gap lanes' items and the kernel lookup
        QVERIFY(coarse->kernelLookup() == nullptr);
        QVERIFY(full->kernelLookup() != nullptr);
        const auto built = TimelineIndex::build(expected);
        QCOMPARE(full->lanes().size(), built->lanes().size());
        QCOMPARE(coarse->lanes().size(), built->lanes().size());
        int gapLanes = 0;
        for (size_t l = 0; l < built->lanes().size(); ++l) {
            const TimelineLane &a = full->lanes()[l], &b = built->lanes()[l], &c = coarse->lanes()[l];
            QCOMPARE(c.kind, b.kind);
            if (b.kind == LaneKind::Gaps) {
                ++gapLanes;
                QVERIFY(c.items.empty());
                QVERIFY(b.items.size() > 1000);
            } else {
                QCOMPARE(c.items, b.items);
            }
            QCOMPARE(a.items, b.items);
            QCOMPARE(a.gapBefore, b.gapBefore);
            QCOMPARE(a.blockMaxEnd, b.blockMaxEnd);
            QCOMPARE(a.blockSum, b.blockSum);
            QCOMPARE(a.levels.size(), b.levels.size());
            for (size_t L = 0; L < b.levels.size(); ++L)
                QCOMPARE(a.levels[L].size(), b.levels[L].size());
        }
        QVERIFY(gapLanes > 0);
        const KernelLookup &lf = *full->kernelLookup(), &lb = *built->kernelLookup();
        QCOMPARE(lf.names().size(), lb.names().size());
        for (size_t i = 0; i < lb.names().size(); ++i) {
            QCOMPARE(lf.names()[i].name, lb.names()[i].name);
            QCOMPARE(lf.names()[i].total, lb.names()[i].total);
            QCOMPARE(lf.longestInstance(lb.names()[i].name), lb.longestInstance(lb.names()[i].name));
        }
        for (size_t a = 0; a < expected->api.size(); a += 101)
            QCOMPARE(lf.kernelOfApi(int64_t(a)), lb.kernelOfApi(int64_t(a)));
    }
};

QTEST_GUILESS_MAIN(TestJobRunner)
#include "tst_job_runner.moc"

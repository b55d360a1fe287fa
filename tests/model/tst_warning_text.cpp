// The core's trace-level warnings in the interface's language (model/warning_text.h): every code the core emits
// carries the arguments its message is made of, the sentence is rebuilt from them (with the analysis' own numbers),
// and with the shipped zh_CN catalogue it reads in Chinese — only what quotes the trace (event kinds, a clock
// detector's reason) stays as the trace says it.
#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <QTranslator>
#include <set>

#include "analysis/io/synthetic.h"
#include "analysis/timeline/analysis.h"
#include "model/units.h"
#include "model/warning_text.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The warnings of one trace, as the workbench gets them.
std::vector<WorkloadWarning> warningsOf(const Trace& t) { return analyze(t, AnalysisOptions{}).workload.warnings; }

// Traces that make the core emit every code but "reader": warm-up (module load inside the capture, slow first
// steps left out), a clock offset the reader corrects, dropped event kinds, a tiny capture, no kernels, nothing.
struct Cases {
    std::vector<std::pair<std::shared_ptr<Trace>, std::vector<WorkloadWarning>>> all;
    Cases()
    {
        SynthOptions warm = synth_preset("decode");
        warm.warmup_heavy_steps = 2;
        add(std::make_shared<Trace>(make_synthetic_trace(warm)));
        SynthOptions skew = synth_preset("decode");
        skew.clock_offset_ns = 5'000'000;
        add(std::make_shared<Trace>(make_synthetic_trace(skew)));
        SynthOptions few = synth_preset("decode");
        few.decode_steps = 2;
        add(std::make_shared<Trace>(make_synthetic_trace(few)));
        auto dropped = std::make_shared<Trace>(make_synthetic_trace(synth_preset("decode")));
        dropped->meta.dropped_events = {{"cuda_profiler_range", 77}, {"mtia_runtime", 3}};
        add(dropped);
        auto tiny = std::make_shared<Trace>();
        const uint16_t dev = tiny->device_index(0);
        const StrId kn = tiny->strings.intern("gemm");
        for (int i = 0; i < 6; ++i) {
            const size_t r = tiny->kernels.append(1'000'000 + i * 100'000, 1'050'000 + i * 100'000, kn);
            tiny->kernels.device[r] = dev;
            tiny->kernels.stream[r] = 7;
        }
        tiny->finish();
        add(tiny);
        auto copies = std::make_shared<Trace>();
        const size_t c = copies->memcpy.append(1'000'000, 2'000'000, 4096, CopyKind::HtoD);
        copies->memcpy.device[c] = copies->device_index(0);
        copies->finish();
        add(copies);
        auto empty = std::make_shared<Trace>();
        empty->finish();
        add(empty);
    }
    void add(std::shared_ptr<Trace> t)
    {
        auto w = warningsOf(*t);
        all.emplace_back(std::move(t), std::move(w));
    }
};

} // namespace

class TestWarningText : public QObject {
    Q_OBJECT
private slots:
    void everyCodeIsSaidFromItsArguments()
    {
        const Cases cases;
        std::set<std::string> codes;
        for (const auto& [trace, warnings] : cases.all)
            for (const WorkloadWarning& w : warnings) {
                codes.insert(w.code);
                QVERIFY2(w.code != "reader", w.message.c_str());
                const QString text = WarningText::message(w);
                QVERIFY(!text.isEmpty());
                QVERIFY2(WarningText::label(w.code) != qs(w.code), w.code.c_str());
                // Rebuilt from the arguments, not the core's English message passed through.
                WorkloadWarning other = w;
                other.message = "(not this)";
                QCOMPARE(WarningText::message(other), text);
                const Trace& t = *trace;
                if (w.code == "capture_too_short") {
                    QCOMPARE(w.args.at("kernels"), std::to_string(t.kernels.size()));
                    QVERIFY(text.contains(formatDuration(t.meta.capture_end - t.meta.capture_start)));
                }
                if (w.code == "unsupported_events_dropped") {
                    QCOMPARE(w.args.at("events"), std::string("80"));
                    QVERIFY(text.contains(QStringLiteral("cuda_profiler_range 77")));
                }
                if (w.code == "clock_skew")
                    QVERIFY(text.contains(qs(w.args.at("reason"))));
                if (w.code == "warmup_excluded") {
                    // The steady-state window on the capture start, the origin of every time in the workbench.
                    const AnalysisResult a = analyze(t, AnalysisOptions{});
                    QVERIFY(text.contains(formatDuration(a.phases.steady_start - t.meta.capture_start)));
                    QVERIFY(text.contains(formatDuration(a.phases.steady_end - t.meta.capture_start)));
                }
            }
        // The whole vocabulary of resources/schemas/analysis.md but "reader" (a reader's own words).
        for (const char* code : {"no_gpu_activity", "no_kernels", "clock_skew", "unsupported_events_dropped",
                                 "capture_too_short", "warmup_included", "warmup_excluded"})
            QVERIFY2(codes.count(code), code);
        // Both causes of warmup_included.
        std::set<std::string> causes;
        for (const auto& [trace, warnings] : cases.all)
            for (const WorkloadWarning& w : warnings)
                if (w.code == "warmup_included")
                    causes.insert(w.args.at("cause"));
        QCOMPARE(causes, (std::set<std::string>{"module_loads", "few_decode_steps"}));

        // An older core's warning (no arguments) keeps its message.
        const WorkloadWarning bare{"warmup_excluded", "2 warm-up decode steps are left out", {}};
        QCOMPARE(WarningText::message(bare), qs(bare.message));
    }

    void chineseWithTheShippedCatalogue()
    {
        QTranslator translator;
        if (!testing::loadShippedZhCatalogue(translator))
            QSKIP("the zh_CN catalogue is built with the app (build/dev/app/sightline_zh_CN.qm)");
        QCoreApplication::installTranslator(&translator);
        const Cases cases;
        static const QRegularExpression han(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
        static const QRegularExpression word(QStringLiteral("[A-Za-z]{4,}"));
        for (const auto& [trace, warnings] : cases.all)
            for (const WorkloadWarning& w : warnings) {
                QString text = WarningText::message(w);
                const QString label = WarningText::label(w.code);
                QVERIFY2(text.contains(han), qPrintable(text));
                QVERIFY2(label.contains(han), qPrintable(label));
                // No English left but what quotes the trace and the product's and metrics' names.
                for (const char* quoted : {"reason", "kinds"})
                    if (w.args.count(quoted))
                        text.remove(qs(w.args.at(quoted)));
                // (and "trace", the catalogue's word for a trace file, as in the rest of the zh_CN interface)
                text.remove(QStringLiteral("Sightline")).remove(QStringLiteral("TPOT")).remove(QStringLiteral("trace"));
                QVERIFY2(!text.contains(word), qPrintable(text));
            }
        QCoreApplication::removeTranslator(&translator);
    }

    // The pipeline's own warning (not analyze()'s): the critical path left out past the memory budget, said from its
    // byte counts, in English and with the shipped catalogue in Chinese ("--max-memory" is the option's name).
    void criticalPathSkippedIsSaid()
    {
        const WorkloadWarning w{"critical_path_skipped",
                                "(the core's English)",
                                {{"needed_bytes", "3000000000"}, {"resident_bytes", "1200000000"},
                                 {"budget_bytes", "4000000000"}}};
        QString text = WarningText::message(w);
        QVERIFY2(text.contains(formatBytes(3000000000ull)) && text.contains(formatBytes(1200000000ull)) &&
                     text.contains(formatBytes(4000000000ull)) && text.contains(QStringLiteral("--max-memory")),
                 qPrintable(text));
        QVERIFY(WarningText::label(w.code) != qs(w.code));
        QTranslator translator;
        if (!testing::loadShippedZhCatalogue(translator))
            QSKIP("the zh_CN catalogue is built with the app (build/dev/app/sightline_zh_CN.qm)");
        QCoreApplication::installTranslator(&translator);
        static const QRegularExpression han(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
        static const QRegularExpression word(QStringLiteral("[A-Za-z]{4,}"));
        text = WarningText::message(w);
        const QString label = WarningText::label(w.code);
        QCoreApplication::removeTranslator(&translator);
        QVERIFY2(text.contains(han) && label.contains(han), qPrintable(text + QLatin1Char('|') + label));
        text.remove(QStringLiteral("--max-memory"));
        QVERIFY2(!text.contains(word), qPrintable(text));
    }
};

QTEST_MAIN(TestWarningText)
#include "tst_warning_text.moc"

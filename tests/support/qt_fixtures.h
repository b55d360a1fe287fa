#pragma once
// Shared setup of the Qt model and widget tests (tests/model, tests/widgets): the build's scratch folder, synthetic
// traces (in memory or written as nsys SQLite exports), the sample's model config on disk, the real pipeline with
// the shipped rules, a Document filled from a pipeline result, and a JobRunner wired to a Document the way
// app/gui/main_window.cpp wires them. Header-only: every Qt test links sightline_model, so nothing else to link.
// Only setup lives here; every assertion stays in the tests.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTranslator>
#include <memory>
#include <optional>
#include <string>

#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/synthetic.h"
#include "model/document.h"
#include "model/job_runner.h"

namespace sl::testing {

// The build's test scratch folder (SIGHTLINE_TEST_TMP, set by ctest), else the system's temporary folder.
inline QString testTmpRoot()
{
    const QByteArray t = qgetenv("SIGHTLINE_TEST_TMP");
    return t.isEmpty() ? QDir::tempPath() : QString::fromLocal8Bit(t);
}

// Loads the shipped zh_CN catalogue, built with the app (build/<preset>/app/sightline_zh_CN.qm), into `translator`;
// false when it is not built (the test then skips).
inline bool loadShippedZhCatalogue(QTranslator& translator)
{
    const QString qm = testTmpRoot() + QStringLiteral("/../app/sightline_zh_CN.qm");
    return QFile::exists(qm) && translator.load(qm);
}

// <scratch>/name, created.
inline QString scratchDir(const QString& name)
{
    const QString dir = testTmpRoot() + QStringLiteral("/") + name;
    QDir().mkpath(dir);
    return dir;
}

// A temporary folder in the scratch folder, e.g. scratchTempDir("kb_session_XXXXXX"); removed with the object.
inline std::unique_ptr<QTemporaryDir> scratchTempDir(const QString& pattern)
{
    QDir().mkpath(testTmpRoot());
    return std::make_unique<QTemporaryDir>(testTmpRoot() + QStringLiteral("/") + pattern);
}

// Writes `text` to dir/name and returns the path; a test that cannot write its input stops (qFatal).
inline QString writeTextFile(const QString& dir, const QString& name, const QByteArray& text)
{
    const QString path = QDir(dir).filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// The sample's model config (synth_model_config_json: Llama-7B shape, the preset's layers) as dir/config.json.
inline QString writeModelConfig(const QString& dir, const SynthOptions& so)
{
    return writeTextFile(dir, QStringLiteral("config.json"), QByteArray::fromStdString(synth_model_config_json(so)));
}

// make_synthetic_trace(so) written as the nsys SQLite export dir/name; returns the path.
inline QString writeSyntheticNsys(const QString& dir, const QString& name, const SynthOptions& so)
{
    const QString path = QDir(dir).filePath(name);
    write_nsys_sqlite(make_synthetic_trace(so), path.toStdString());
    return path;
}

// The decode preset with planted host starvation, a sync every step and (optionally) pageable copies: the shipped
// rules find several issues there, with suggestions and links to kernels.
inline SynthOptions plantedDecode(bool pageableCopies = true)
{
    SynthOptions so = synth_preset("decode");
    so.host_starved = true;
    so.sync_every_step = true;
    so.pageable_copies = pageableCopies;
    return so;
}

// The "after" of an A/B pair: `before` with 20 % faster kernels, `decodeSteps` steps, no host starvation and no
// per-step sync.
inline SynthOptions improvedDecode(SynthOptions before, int decodeSteps)
{
    before.decode_steps = decodeSteps;
    before.kernel_time_scale = 0.8;
    before.host_starved = false;
    before.sync_every_step = false;
    return before;
}

// Pipeline options that run the shipped rules (analysis/pipeline.h defaults otherwise).
inline PipelineOptions shippedRulesOptions()
{
    PipelineOptions o;
    o.rule_dirs = {shipped_rules_dir()};
    return o;
}

// The real pipeline with the shipped rules on an in-memory trace, shared so that parts can be handed out.
inline std::shared_ptr<const PipelineResult> runShippedRules(std::shared_ptr<const Trace> trace)
{
    return std::make_shared<const PipelineResult>(run_pipeline_on(std::move(trace), shippedRulesOptions()));
}

// The same on make_synthetic_trace(so).
inline std::shared_ptr<const PipelineResult> runShippedRules(const SynthOptions& so)
{
    return runShippedRules(std::make_shared<const Trace>(make_synthetic_trace(so)));
}

// A part of a shared pipeline result (analysis, diagnosis...) that keeps the whole result alive.
template <class T>
std::shared_ptr<const T> partOf(const std::shared_ptr<const PipelineResult>& r, const T* p)
{
    return std::shared_ptr<const T>(r, p);
}

inline std::shared_ptr<const AnalysisResult> analysisOf(const std::shared_ptr<const PipelineResult>& r)
{
    return partOf(r, &r->analysis);
}

inline std::shared_ptr<const Diagnosis> diagnosisOf(const std::shared_ptr<const PipelineResult>& r)
{
    return partOf(r, &r->diagnosis);
}

// A synthetic trace written to disk as an nsys export and analysed by the real pipeline with the shipped rules:
// what the workbench holds after opening `file`.
struct AnalysedFile {
    QString file;
    std::shared_ptr<const PipelineResult> result;
    std::shared_ptr<const Trace> trace() const { return result->trace; }
    std::shared_ptr<const AnalysisResult> analysis() const { return analysisOf(result); }
    std::shared_ptr<const Diagnosis> diagnosis() const { return diagnosisOf(result); }
    DocumentInputs inputs() const { return DocumentInputs{{file}, {}, {}}; }
};

inline AnalysedFile analyseToFile(const QString& file, const SynthOptions& so)
{
    auto trace = std::make_shared<const Trace>(make_synthetic_trace(so));
    write_nsys_sqlite(*trace, file.toStdString());
    return AnalysedFile{file, runShippedRules(trace)};
}

// Fills a Document as the job runner would for the single trace file `file`: inputs, trace, analysis, diagnosis.
inline void loadResult(Document& doc, const QString& file, const std::shared_ptr<const PipelineResult>& r)
{
    doc.setInputs(DocumentInputs{{file}, {}, {}});
    doc.setTrace({file}, r->trace);
    doc.setAnalysis(analysisOf(r));
    doc.setCriticalPath(partOf(r, &r->critical_path));
    doc.setDiagnosis(diagnosisOf(r));
}

// Suggestion `id` as a second connection to the knowledge base at kbPath reads it (nullopt when absent).
inline std::optional<SuggestionRecord> storedSuggestion(const QString& kbPath, int64_t id)
{
    KnowledgeBase kb(kbPath.toStdString());
    for (auto& s : kb.suggestions())
        if (s.id == id)
            return s;
    return std::nullopt;
}

// One in-memory ncu launch: `flops` bf16 tensor ops, `bytes` DRAM bytes, `ns` duration.
inline NcuLaunch ncuLaunch(int64_t id, const std::string& name, double flops, double bytes, double ns)
{
    NcuLaunch l;
    l.id = id;
    l.name = name;
    auto put = [&](const char* k, double v) {
        NcuValue nv;
        nv.number = v;
        l.metrics[k] = nv;
    };
    put("gpu__time_duration.sum", ns);
    put("dram__bytes.sum", bytes);
    put("sm__ops_path_tensor_src_bf16_dst_fp32.sum", flops);
    return l;
}

// Connects a runner's results to a document the way the main window does (app/gui/main_window.cpp).
inline void wireRunner(JobRunner& runner, Document& doc)
{
    QObject::connect(&runner, &JobRunner::inputsResolved, &doc, &Document::setInputs);
    QObject::connect(&runner, &JobRunner::traceLoaded, &doc, &Document::setTrace);
    QObject::connect(&runner, &JobRunner::summaryReady, &doc, &Document::setSummary);
    QObject::connect(&runner, &JobRunner::timelineReady, &doc, &Document::setTimeline);
    QObject::connect(&runner, &JobRunner::gapHistogramReady, &doc, &Document::setGapHistogram);
    QObject::connect(&runner, &JobRunner::analysisReady, &doc, &Document::setAnalysis);
    QObject::connect(&runner, &JobRunner::classDensityReady, &doc, &Document::setClassDensity);
    QObject::connect(&runner, &JobRunner::rooflineReady, &doc, &Document::setRoofline);
    QObject::connect(&runner, &JobRunner::rooflineFailed, &doc, &Document::setRooflineError);
    QObject::connect(&runner, &JobRunner::shapesReady, &doc, &Document::setShapes);
    QObject::connect(&runner, &JobRunner::diagnosisReady, &doc, &Document::setDiagnosis);
    QObject::connect(&runner, &JobRunner::criticalPathReady, &doc, &Document::setCriticalPath);
}

} // namespace sl::testing

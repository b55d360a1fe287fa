#include "model/stage_text.h"

namespace sl {

namespace {

struct Stage {
    const char* id;
    const char* text;
};

// The ids the readers (nsys_reader, kineto_reader, kineto_chunks), analyze(), the pipeline and the jobs (JobRunner,
// CompareJob, the timeline index) report.
constexpr Stage kStages[] = {
    {"opening", QT_TRANSLATE_NOOP("sl::StageText", "Opening the report")},
    {"nsys export", QT_TRANSLATE_NOOP("sl::StageText", "Exporting the report with nsys")},
    {"strings", QT_TRANSLATE_NOOP("sl::StageText", "Reading strings")},
    {"kernels", QT_TRANSLATE_NOOP("sl::StageText", "Reading kernels")},
    {"memory copies", QT_TRANSLATE_NOOP("sl::StageText", "Reading memory copies")},
    {"memory sets", QT_TRANSLATE_NOOP("sl::StageText", "Reading memsets")},
    {"API calls", QT_TRANSLATE_NOOP("sl::StageText", "Reading API calls")},
    {"synchronizations", QT_TRANSLATE_NOOP("sl::StageText", "Reading synchronizations")},
    {"NVTX", QT_TRANSLATE_NOOP("sl::StageText", "Reading NVTX ranges")},
    {"CUDA graphs", QT_TRANSLATE_NOOP("sl::StageText", "Reading CUDA graphs")},
    {"events", QT_TRANSLATE_NOOP("sl::StageText", "Reading events")},
    {"linking", QT_TRANSLATE_NOOP("sl::StageText", "Linking launches to GPU work")},
    {"summary", QT_TRANSLATE_NOOP("sl::StageText", "Summarising")},
    {"timeline", QT_TRANSLATE_NOOP("sl::StageText", "Building the timeline")},
    {"analyses", QT_TRANSLATE_NOOP("sl::StageText", "Running the analyses")},
    {"operator classes", QT_TRANSLATE_NOOP("sl::StageText", "Classifying operators")},
    {"launch", QT_TRANSLATE_NOOP("sl::StageText", "Analysing launches")},
    {"sync", QT_TRANSLATE_NOOP("sl::StageText", "Analysing synchronization")},
    {"overlap", QT_TRANSLATE_NOOP("sl::StageText", "Analysing overlap")},
    {"nvtx", QT_TRANSLATE_NOOP("sl::StageText", "Projecting NVTX ranges")},
    {"phases", QT_TRANSLATE_NOOP("sl::StageText", "Finding phases and steps")},
    {"idle", QT_TRANSLATE_NOOP("sl::StageText", "Attributing idle time")},
    {"collectives", QT_TRANSLATE_NOOP("sl::StageText", "Matching collectives")},
    {"weights", QT_TRANSLATE_NOOP("sl::StageText", "Analysing weight streaming")},
    {"roofline", QT_TRANSLATE_NOOP("sl::StageText", "Roofline")},
    {"rules", QT_TRANSLATE_NOOP("sl::StageText", "Evaluating the rules")},
    {"verdicts", QT_TRANSLATE_NOOP("sl::StageText", "Judging the changes")},
    {"done", QT_TRANSLATE_NOOP("sl::StageText", "Done")},
};

} // namespace

QString StageText::label(const QString& id)
{
    for (const Stage& s : kStages)
        if (id == QLatin1String(s.id))
            return tr(s.text);
    return id;
}

QStringList StageText::ids()
{
    QStringList v;
    for (const Stage& s : kStages)
        v << QLatin1String(s.id);
    return v;
}

} // namespace sl

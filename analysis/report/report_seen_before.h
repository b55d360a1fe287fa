#pragma once
// The report's "Seen before on this environment" section (step 1 of the analysis loop, seed 004): what the knowledge
// base already knows about the trace's environment (GPU, driver/CUDA, framework versions, model): earlier runs on a
// similar environment and the suggestions verified or failed there by A/B comparison, with their confidence and
// measured change. Built only when a knowledge base was given (ReportInputs::environment_history).

#include "analysis/diagnosis/kb_lookup.h"
#include "analysis/report/report_model.h"

namespace sl::report {

// Section id "seen_before": a paragraph naming the environment and the knowledge base, one on the earlier runs (or
// "nothing yet"), and the table "seen_verified" (suggestion, metric, verified, failed, inconclusive, measured change,
// similarity, confidence).
Section build_seen_before_section(const EnvironmentHistory& history, const std::string& kb_path, Lang lang);

} // namespace sl::report

// sightline-cli analyze TRACE... [--format text|json] [--gap-threshold-us N] [--step-regex R] [--top-k K]
//                                [--warmup-steps N] [--classes FILE] [-o FILE]
//
// To add an option: add a field to AnalyzeRequest if the analysis options do not already hold it, one row to
// option_table() (name, whether it takes a value, help, how it applies), and use the field in run_analyze().
#include <functional>
#include <iostream>
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>

#include "analysis/timeline/analysis.h"
#include "analysis/critpath/whatif.h"
#include "analysis/report/analysis_json.h"
#include "analysis/report/analysis_text.h"
#include "analysis/trace/errors.h"
#include "analysis/diagnosis/kb_disk_full.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/io/load.h"
#include "analysis/diagnosis/metrics_binding.h"
#include "analysis/pipeline.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/report/report_model.h"
#include "analysis/report/roofline_json.h"
#include "analysis/report/kernel_verdicts_json.h"
#include "analysis/report/rank_map.h"
#include "analysis/report/rank_merge.h"
#include "analysis/report/rank_partial.h"
#include "analysis/diagnosis/review.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/rank_files.h"
#include "app/cli/command.h"
#include "app/cli/llm_http.h"

namespace sl::cli {

int run_report(const std::vector<std::string>& argv);   // cmd_report.cpp

namespace {

constexpr const char* kSynopsis =
    "analyze TRACE...|RANK_DIR|'RANK_GLOB' [--capture-trace PATH]... [--no-capture-search] [--format text|json|md|pdf|html] [--detail summary|full] [--lang en|zh_CN] [--gap-threshold-us N] [--step-regex R] [--top-k K] [--warmup-steps N] "
    "[--classes FILE] [--model config.json [--gpu NAME] [--batch B] [--prompt S] [--context L] [--tp N] [--weight-dtype T] [--kv-dtype T]] [--ncu FILE] [--rules DIR] [--kb PATH] [--fail-on high|medium|low] "
    "[--llm-endpoint URL [--llm-model M] [--llm-key-env VAR] [--llm-timeout S] [--llm-allow-paths]] [--partial | --max-ranks-in-memory N] [-o FILE]";

struct AnalyzeRequest {
    AnalysisOptions options;
    LoadOptions load;           // --capture-trace, --no-capture-search
    RooflineRequest roofline;   // --model/--gpu/--batch/--prompt/--context/--ncu (Roofline issue)
    std::string format = "text";
    std::string output;
    std::string rules_dir, kb_path, fail_on;   // findings (issue 6): user rules, knowledge base, CI gate
    // The optional LLM reviewer (analysis/diagnosis/review.h): nothing is sent unless llm_endpoint is given.
    std::string llm_endpoint, llm_model, llm_key_env = "SIGHTLINE_LLM_KEY";
    double llm_timeout_s = 60;
    bool llm_allow_paths = false;
    bool partial = false;       // --partial: one rank's sightline.partial/1 (rank_partial.h) for `merge`
    unsigned max_ranks = 0;     // --max-ranks-in-memory N: map each rank to its partial, then merge (rank_map.h)
};

// Every file named on the command line, the traces and every file an option names, once -o is checked not to be one of
// them (check_output). The files the pipeline reads on its own (rules, data files) are noted as they are read
// (output_file.h), so write_output checks those too.
std::vector<std::string> checked_inputs(const AnalyzeRequest& req, const std::vector<std::string>& traces)
{
    std::vector<std::string> inputs = traces;
    for (const std::string* p : {&req.roofline.model, &req.roofline.index, &req.roofline.ncu, &req.roofline.gpu_file,
                                 &req.options.classes_file, &req.kb_path})
        if (!p->empty())
            inputs.push_back(*p);
    check_output(req.output, inputs);
    return inputs;
}

using OptionSpec = sl::cli::OptionSpec<AnalyzeRequest>;

bool parse_number(const std::string& s, double lo, double hi, double& out)
{
    if (s.empty())
        return false;
    size_t used = 0;
    try {
        out = std::stod(s, &used);
    } catch (const std::exception&) {
        return false;
    }
    return used == s.size() && out >= lo && out <= hi;
}

const std::vector<OptionSpec>& option_table()
{
    static const std::vector<OptionSpec> table = {
        {"--format", true, "text (default) or json",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             // md, pdf and html are the shareable report (cmd_report.cpp); json stays the analysis JSON.
             if (v != "text" && v != "json" && v != "md" && v != "pdf" && v != "html")
                 return "--format must be text, json, md, pdf or html, not '" + v + "'";
             r.format = v;
             return {};
         }},
        {"-o", true, "write to FILE instead of stdout",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.output = v;
             return {};
         }},
        {"--detail", true, "with --format md|pdf|html: summary (default, a few pages) or full (every table, the appendix)",
         [](AnalyzeRequest&, const std::string& v) -> std::string {
             report::Detail d;
             return report::parse_detail(v, d) ? std::string() : "--detail must be summary or full, not '" + v + "'";
         }},
        {"--output", true, "same as -o",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.output = v;
             return {};
         }},
        {"--gap-threshold-us", true, "gaps shorter than this between back-to-back launches are kernel-wait (default 30)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             double x = 0;
             if (!parse_number(v, 0, 1e9, x))
                 return "--gap-threshold-us needs a number of microseconds >= 0, not '" + v + "'";
             r.options.idle.kernel_wait_threshold_ns = static_cast<int64_t>(x * 1000.0 + 0.5);
             return {};
         }},
        {"--step-regex", true, "kernel-name regex whose kernels end a decode step",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             if (v.empty())
                 return "--step-regex needs a non-empty regular expression";
             r.options.phases.step_regex = v;
             return {};
         }},
        {"--top-k", true, "kernel names in the focus set (default 10)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             double x = 0;
             if (!parse_number(v, 1, 1e6, x) || x != static_cast<double>(static_cast<int64_t>(x)))
                 return "--top-k needs an integer 1..1000000, not '" + v + "'";
             r.options.focus.top_k = static_cast<size_t>(x);
             return {};
         }},
        {"--warmup-steps", true, "decode steps excluded from TPOT as warm-up (default 2)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             double x = 0;
             if (!parse_number(v, 0, 1e6, x) || x != static_cast<double>(static_cast<int64_t>(x)))
                 return "--warmup-steps needs an integer >= 0, not '" + v + "'";
             r.options.phases.warmup_steps = static_cast<int>(x);
             return {};
         }},
        // Graph replay (analysis/io/graph_join.h): the trace of the graph capture gives replayed kernels their ops.
        {"--capture-trace", true, "trace of the server's CUDA/HIP graph capture, a file or a folder (repeatable): "
                                  "replayed kernels inherit its CPU ops, modules and shapes; default: a "
                                  "capture_traces/ folder beside the trace",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             if (v.empty())
                 return "--capture-trace needs a file or folder";
             r.load.capture_traces.push_back(v);
             return {};
         }},
        {"--no-capture-search", false, "do not look for a capture_traces/ folder beside the trace",
         [](AnalyzeRequest& r, const std::string&) -> std::string {
             r.load.find_captures = false;
             return {};
         }},
        // Roofline (analysis/report/roofline_json.h): theory from config.json joined with this trace's class times per phase.
        {"--model", true, "HF config.json: adds the Roofline (T_theory, E_roof per class and phase, focus)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.roofline.model = v;
             return {};
         }},
        {"--model-index", true, "model.safetensors.index.json checked against --model",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.roofline.index = v;
             return {};
         }},
        {"--gpu", true, "GPU spec row (e.g. H100-SXM); default: the trace's device name",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.roofline.gpu = v;
             return {};
         }},
        {"--gpu-file", true, "extra or corrected GPU spec rows (gpus.json layout)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.roofline.gpu_file = v;
             return {};
         }},
        {"--batch", true, "batch size b of the traced run (Roofline; default: the trace's shapes, else 1)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             double x = 0;
             if (!parse_number(v, 1, 1e7, x) || x != static_cast<double>(static_cast<int64_t>(x)))
                 return "--batch needs an integer >= 1, not '" + v + "'";
             r.roofline.cost.batch = static_cast<int64_t>(x);
             r.roofline.cost.batch_set = true;
             r.roofline.cost.shape_source = "option";   // wins over the steps' annotations and recorded shapes
             return {};
         }},
        {"--prompt", true, "prompt length s of the prefill (Roofline; default: the trace's, else 1024)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             double x = 0;
             if (!parse_number(v, 1, 1e9, x) || x != static_cast<double>(static_cast<int64_t>(x)))
                 return "--prompt needs an integer >= 1, not '" + v + "'";
             r.roofline.cost.prompt = static_cast<int64_t>(x);
             r.roofline.cost.prompt_set = true;
             r.roofline.cost.shape_source = "option";   // wins over the steps' annotations and recorded shapes
             return {};
         }},
        {"--context", true, "KV length L of a decode step (Roofline; default: the trace's, else 2048)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             double x = 0;
             if (!parse_number(v, 1, 1e9, x) || x != static_cast<double>(static_cast<int64_t>(x)))
                 return "--context needs an integer >= 1, not '" + v + "'";
             r.roofline.cost.context = static_cast<int64_t>(x);
             r.roofline.cost.context_set = true;
             r.roofline.cost.shape_source = "option";   // wins over the steps' annotations and recorded shapes
             return {};
         }},
        {"--tp", true, "tensor-parallel degree: theory per rank (Roofline; default 1)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             double x = 0;
             if (!parse_number(v, 1, 4096, x) || x != static_cast<double>(static_cast<int64_t>(x)))
                 return "--tp needs an integer >= 1, not '" + v + "'";
             r.roofline.cost.tp = static_cast<int64_t>(x);
             r.roofline.cost.tp_source = "option";   // wins over the NCCL group size the trace carries
             return {};
         }},
        {"--weight-dtype", true, "bytes of the weights: fp32, bf16, fp16, fp8, int8, int4, mxfp4, nvfp4 (Roofline; "
                                 "default: quantization_config, else torch_dtype)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.roofline.cost.weight_dtype = v;
             return {};
         }},
        {"--kv-dtype", true, "bytes of the KV cache (Roofline; default: the activation dtype)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.roofline.cost.kv_dtype = v;
             return {};
         }},
        {"--ncu", true, "Nsight Compute file (CSV/text/.ncu-rep): per-launch figures joined to trace kernels",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.roofline.ncu = v;
             return {};
         }},
        // Findings (analysis/diagnosis/metrics_binding.h diagnose()): rules over the results, confidence from the KB.
        {"--rules", true, "rules directory added to (and overriding by id) the shipped resources/rules",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.rules_dir = v;
             return {};
         }},
        {"--kb", true, "knowledge base whose verified history adjusts the findings' confidence",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.kb_path = v;
             return {};
         }},
        {"--fail-on", true, "exit 1 when a finding of this severity or above fires (high, medium or low)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             if (v != "high" && v != "medium" && v != "low")
                 return "--fail-on must be high, medium or low, not '" + v + "'";
             r.fail_on = v;
             return {};
         }},
        {"--lang", true, "report language for --format md|pdf|html: en (default) or zh_CN",
         [](AnalyzeRequest&, const std::string& v) -> std::string {
             return v == "en" || v.rfind("zh", 0) == 0 ? std::string() : "--lang must be en or zh_CN, not '" + v + "'";
         }},
        {"--classes", true, "kernel-classes JSON replacing resources/kernel_classes.json",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.options.classes_file = v;
             return {};
         }},
        {"--llm-endpoint", true, "OpenAI-compatible endpoint (e.g. http://localhost:8080/v1) of an optional, advisory "
                                 "LLM reviewer of the findings; off unless given",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             if (v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0)
                 return "--llm-endpoint needs an http:// or https:// URL, not '" + v + "'";
             r.llm_endpoint = v;
             return {};
         }},
        {"--llm-model", true, "model name sent to the endpoint (default: the server's)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.llm_model = v;
             return {};
         }},
        {"--llm-key-env", true, "environment variable holding the endpoint's API key (default SIGHTLINE_LLM_KEY)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             r.llm_key_env = v;
             return {};
         }},
        {"--llm-timeout", true, "seconds to wait for the reviewer (default 60); past it the report stays as it is",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             if (!parse_number(v, 0.1, 3600, r.llm_timeout_s))
                 return "--llm-timeout needs seconds between 0.1 and 3600, not '" + v + "'";
             return {};
         }},
        {"--partial", false, "write one rank's compact result (sightline.partial/1) for `sightline-cli merge`, "
                             "instead of the analysis: identity, busy/idle, steps, classes, one record per collective",
         [](AnalyzeRequest& r, const std::string&) -> std::string {
             r.partial = true;
             return {};
         }},
        {"--max-ranks-in-memory", true, "one rank per file: each is analysed to its partial on its own, at most N "
                                        "at once, then merged as `merge` does (prints sightline.merge/1)",
         [](AnalyzeRequest& r, const std::string& v) -> std::string {
             double x = 0;
             if (!parse_number(v, 1, 1024, x) || x != static_cast<double>(static_cast<int64_t>(x)))
                 return "--max-ranks-in-memory needs an integer 1..1024, not '" + v + "'";
             r.max_ranks = static_cast<unsigned>(x);
             return {};
         }},
        {"--llm-allow-paths", false, "send file paths that appear in finding texts (default: replaced by <path>)",
         [](AnalyzeRequest& r, const std::string&) -> std::string {
             r.llm_allow_paths = true;
             return {};
         }},
    };
    return table;
}

int usage_error(const std::string& msg)
{
    std::cerr << "sightline-cli analyze: " << terminal_safe(msg) << "\nusage: sightline-cli " << kSynopsis << "\n";
    for (const auto& o : option_table())
        std::cerr << "  " << o.name << (o.takes_value ? " VALUE" : "") << "  " << o.help << "\n";
    return kExitUsage;
}

// Asks the reviewer; a failure (no answer, HTTP error, malformed answer) is a review with status "failed" and the
// analysis stays exactly as it was.
Review run_review(const AnalyzeRequest& req, const std::vector<Finding>& findings)
{
    ReviewRequestOptions ro;
    ro.model = req.llm_model;
    ro.allow_paths = req.llm_allow_paths;
    const char* key = req.llm_key_env.empty() ? nullptr : std::getenv(req.llm_key_env.c_str());
    const std::string url = chat_completions_url(req.llm_endpoint);
    std::cerr << "sightline-cli: asking the LLM reviewer at " << url << " about " << std::min(findings.size(), ro.max_findings)
              << " finding(s)\n";
    const HttpReply reply = http_post_json(url, review_request(findings, ro).dump(), key ? key : "",
                                           static_cast<long>(req.llm_timeout_s * 1000.0));
    Review review;
    if (!reply.error.empty())
        review = failed_review(reply.error);
    else if (reply.status != 200)
        review = failed_review("HTTP " + std::to_string(reply.status) + " from the endpoint");
    else
        review = parse_review_response(reply.body, findings, ro.max_findings);
    review.endpoint = url;
    if (review.model.empty())
        review.model = req.llm_model;
    if (review.status != "ok")
        std::cerr << "sightline-cli: the LLM reviewer gave no review (" << terminal_safe(review.error) << "); the findings stand as they are\n";
    return review;
}

// The map of a many-rank run: the trace is read and analysed (no rules, Roofline or critical path: the partial holds
// none of them) and its partial written as compact JSON.
int write_partial(const AnalyzeRequest& req, const std::string& path, const std::vector<std::string>& inputs)
{
    std::string text;
    try {
        const Trace t = load_workspace({path}, req.load);
        const AnalysisResult r = analyze(t, req.options);
        text = rank_partial_file_bytes(make_rank_partial(t, r, path), req.output);
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    }
    return write_output(req.output, text, inputs, true) ? kExitOk : kExitOutput;
}

// Ranks a folder or glob of ranks holds in memory at once unless --max-ranks-in-memory says otherwise: each rank's
// reader already splits its file over the reader threads, so two keeps both cores busy at two ranks' memory.
constexpr unsigned kDefaultRanksInMemory = 2;

// Many ranks on one machine: the map (each rank to its partial, at most max_ranks traces in memory) and the reduce.
int map_and_merge(const AnalyzeRequest& req, const std::vector<std::string>& paths,
                  const std::vector<std::string>& inputs)
{
    std::string text;
    try {
        const RankMerge m = merge_partials(map_ranks(paths, req.load, req.options, req.max_ranks));
        text = req.format == "json"
                   ? rank_merge_to_json(m).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"
                   : rank_merge_to_text(m);
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    }
    return write_output(req.output, text, inputs, req.format == "json") ? kExitOk : kExitOutput;
}

int run_analyze(const std::vector<std::string>& argv)
{
    Args args;
    std::string error;
    if (!parse_table_args(argv, option_table(), args, error))
        return usage_error(error);
    if (args.positional.empty())
        return usage_error("no trace file given");
    AnalyzeRequest req;
    if (!apply_options(args, option_table(), req, error))
        return usage_error(error);

    // A folder or a glob of ranks (`analyze ranks/` or `analyze 'ranks/*.json.gz'`): the map on the readers' pool, at
    // most --max-ranks-in-memory ranks at once (default kDefaultRanksInMemory), then the reduce.
    bool rank_set = false;
    for (const auto& a : args.positional)
        rank_set |= names_rank_set(a);
    if (rank_set) {
        if (req.partial)
            return usage_error("--partial writes one rank's partial: give one trace file, not a folder or glob of "
                               "ranks");
        if (req.format != "text" && req.format != "json")
            return usage_error("a folder or glob of ranks prints the merge as text or json, not " + req.format);
        std::vector<std::string> ranks;
        try {
            for (const auto& a : args.positional)
                for (auto& f : rank_files(a))
                    ranks.push_back(std::move(f));
        } catch (const TraceError& e) {
            print_error(e.what());
            return kExitInput;
        }
        if (req.max_ranks == 0)
            req.max_ranks = kDefaultRanksInMemory;
        return map_and_merge(req, ranks, checked_inputs(req, ranks));
    }

    if (req.partial && args.positional.size() != 1)
        return usage_error("--partial writes one rank's partial: give one trace file, not " +
                           std::to_string(args.positional.size()));
    if (req.partial && args.has("--format") && req.format != "json")
        return usage_error("--partial writes JSON (sightline.partial/1), not " + req.format);
    if (req.partial && req.max_ranks > 0)
        return usage_error("--partial writes one rank's partial; --max-ranks-in-memory merges many: not both");
    if (req.max_ranks > 0 && req.format != "text" && req.format != "json")
        return usage_error("--max-ranks-in-memory prints the merge as text or json, not " + req.format);
    if (req.format == "md" || req.format == "pdf" || req.format == "html")
        return run_report(argv);   // the shareable report: same options, cmd_report.cpp
    const std::vector<std::string> inputs = checked_inputs(req, args.positional);

    if (req.partial)
        return write_partial(req, args.positional.front(), inputs);
    if (req.max_ranks > 0)
        return map_and_merge(req, args.positional, inputs);

    std::string text;
    Diagnosis diag;
    try {
        PipelineOptions popt;
        popt.analysis = req.options;
        popt.load = req.load;
        popt.roofline = req.roofline;
        popt.rules_dir = req.rules_dir;
        popt.kb_path = req.kb_path;
        const PipelineResult r = run_pipeline(args.positional, popt);
        for (const auto* errors : {&r.diagnosis.rule_errors, &r.diagnosis.eval.errors})
            for (const auto& e : *errors)
                print_error("warning: rule file " + e.file + (e.rule_id.empty() ? "" : ", rule " + e.rule_id) + ": " +
                            e.message);
        std::optional<Review> review;
        if (!req.llm_endpoint.empty())
            review = run_review(req, r.diagnosis.eval.findings);
        if (req.format == "json") {
            nlohmann::json j = pipeline_to_json(r);
            if (review)
                j["review"] = review_to_json(*review);
            text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        } else {
            text = pipeline_to_text(r);
            if (review)
                text += "\n" + review_to_text(*review);
        }
        diag = r.diagnosis;
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    } catch (const KbDiskFull& e) {   // a full disk under the knowledge base: an output not written
        print_error(e.what());
        return kExitOutput;
    } catch (const KbError& e) {
        print_error(e.what());
        return kExitInput;
    }
    write_output(req.output, text, inputs, req.format == "json");
    // Fails closed: a gate whose rules did not all load or evaluate has not checked what it promises.
    if (const size_t problems = diag.rule_errors.size() + diag.eval.errors.size(); !req.fail_on.empty() && problems) {
        print_error("--fail-on " + req.fail_on + ": the gate cannot pass: " + std::to_string(problems) +
                    " problem(s) with the rules (above)");
        return kExitInput;
    }
    if (!req.fail_on.empty()) {
        const auto gate = parse_severity(req.fail_on);
        auto worst = max_severity(diag.eval.findings);
        for (const auto& o : diag.omitted)   // findings past the per-rule limit still gate
            if (!worst || o.highest > *worst)
                worst = o.highest;
        if (gate && worst && *worst >= *gate)
            return kExitGate;
    }
    return kExitOk;
}

const bool registered = register_command({"analyze", kSynopsis, &run_analyze});

// ---- explain: one kernel's verdict, as the workbench's Details line says it --------------------------------------
constexpr const char* kExplainSynopsis =
    "explain TRACE... --kernel NAME|ID [--format text|json] [--capture-trace PATH]... [--model config.json [--gpu NAME] "
    "[--batch B] [--prompt S] [--context L] [--tp N]] [--ncu FILE] [-o FILE]";

int explain_usage(const std::string& msg)
{
    std::cerr << "sightline-cli explain: " << terminal_safe(msg) << "\nusage: sightline-cli " << kExplainSynopsis << "\n"
              << "  --kernel NAME|ID  a kernel id (its row, as `analyze --format json` kernels[].kernel_id gives it) or\n"
              << "                    a part of a kernel's name (every distinct kernel whose name contains it)\n"
              << "  the other options are analyze's\n";
    return kExitUsage;
}

int run_explain(const std::vector<std::string>& argv_in)
{
    // --kernel is explain's own; the rest are analyze's options.
    std::vector<std::string> argv;
    std::string kernel;
    bool have_kernel = false;
    for (size_t i = 0; i < argv_in.size(); ++i) {
        const std::string& a = argv_in[i];
        if (a == "--") {
            argv.insert(argv.end(), argv_in.begin() + std::ptrdiff_t(i), argv_in.end());
            break;
        }
        if (a == "--kernel") {
            if (i + 1 >= argv_in.size())
                return explain_usage("--kernel needs a kernel name or id");
            kernel = argv_in[++i];
            have_kernel = true;
        } else if (a.rfind("--kernel=", 0) == 0) {
            kernel = a.substr(9);
            have_kernel = true;
        } else {
            argv.push_back(a);
        }
    }
    Args args;
    std::string error;
    if (!parse_table_args(argv, option_table(), args, error))
        return explain_usage(error);
    if (args.positional.empty())
        return explain_usage("no trace file given");
    if (!have_kernel || kernel.empty())
        return explain_usage("--kernel NAME|ID is required");
    AnalyzeRequest req;
    if (!apply_options(args, option_table(), req, error))
        return explain_usage(error);
    if (req.format != "text" && req.format != "json")
        return explain_usage("--format must be text or json, not '" + req.format + "'");
    const std::vector<std::string> inputs = checked_inputs(req, args.positional);

    std::string text;
    try {
        PipelineOptions popt;
        popt.analysis = req.options;
        popt.load = req.load;
        popt.roofline = req.roofline;
        popt.run_rules = false;
        const PipelineResult r = run_pipeline(args.positional, popt);
        const Trace& t = *r.trace;
        // An id: that launch, and the distinct kernel it belongs to. A name: every distinct kernel containing it.
        std::optional<int64_t> id;
        if (!kernel.empty() && kernel.find_first_not_of("0123456789") == std::string::npos && kernel.size() < 19)
            id = std::stoll(kernel);
        std::vector<const KernelVerdictSummary*> hits;
        std::optional<KernelVerdict> launch;
        if (id) {
            if (*id < 0 || size_t(*id) >= t.kernels.size()) {
                print_error(args.positional.front() + ": no kernel with id " + kernel + " (the trace has " +
                            std::to_string(t.kernels.size()) + " kernels, ids 0.." +
                            std::to_string(t.kernels.size() == 0 ? 0 : t.kernels.size() - 1) + ")");
                return kExitInput;
            }
            std::vector<int64_t> join;
            KernelVerdictInputs in = kernel_verdict_inputs(r, join);
            in.kernel = *id;
            launch = kernel_verdict(in);
            for (const auto& s : r.kernels)
                if (s.name == t.str(t.kernels.name[size_t(*id)]) && s.shape_id == t.kernels.shape[size_t(*id)])
                    hits.push_back(&s);
        } else {
            for (const auto& s : r.kernels)
                if (s.name.find(kernel) != std::string::npos)
                    hits.push_back(&s);
            if (hits.empty()) {
                print_error(args.positional.front() + ": no kernel whose name contains '" + kernel +
                            "' (`sightline-cli analyze --format json` lists them under kernels)");
                return kExitInput;
            }
        }
        if (req.format == "json") {
            nlohmann::json j;
            j["schema"] = "sightline.explain/1";
            j["query"] = kernel;
            if (launch) {
                nlohmann::json l = kernel_verdict_to_json(t, *launch);
                l["kernel_id"] = *id;
                l["name"] = std::string(t.str(t.kernels.name[size_t(*id)]));
                l["start_ns"] = t.kernels.start[size_t(*id)];
                j["launch"] = std::move(l);
            }
            nlohmann::json a = nlohmann::json::array();
            for (const auto* s : hits)
                a.push_back(kernel_summary_to_json(t, *s));
            j["kernels"] = std::move(a);
            text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        } else {
            if (launch)
                text += "kernel " + kernel + ": " + std::string(t.str(t.kernels.name[size_t(*id)])) + "\n  verdict:  " +
                        kernel_verdict_text(*launch) + "\n\n";
            for (const auto* s : hits)
                text += kernel_summary_to_text(t, *s) + "\n";
        }
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    }
    return write_output(req.output, text, inputs, req.format == "json") ? kExitOk : kExitOutput;
}

const bool registered_explain = register_command({"explain", kExplainSynopsis, &run_explain});


// ---- whatif: the dependency graph replayed under a change (issue 35 §3) ------------------------------------------
constexpr const char* kWhatIfSynopsis =
    "whatif TRACE... --change C [--change C ...] [--config config.json] [--format text|json] [--capture-trace PATH]... "
    "[--step-regex R] [--warmup-steps N] [--classes FILE] [-o FILE]";

int whatif_usage(const std::string& msg)
{
    std::cerr << "sightline-cli whatif: " << terminal_safe(msg) << "\nusage: sightline-cli " << kWhatIfSynopsis << "\n"
              << "  --change C          " << critpath::kChangeGrammar << "; repeatable: the changes are applied\n"
              << "                      together, and each alone\n"
              << "  --config FILE       the model's config.json (as analyze's --model): the Roofline floor that\n"
              << "                      fuse:NAME needs\n"
              << "  the other options are analyze's\n";
    return kExitUsage;
}

int run_whatif(const std::vector<std::string>& argv_in)
{
    // --change and --config are whatif's own; the rest are analyze's options.
    std::vector<std::string> argv;
    std::vector<std::string> change_texts;
    for (size_t i = 0; i < argv_in.size(); ++i) {
        const std::string& a = argv_in[i];
        if (a == "--") {
            argv.insert(argv.end(), argv_in.begin() + std::ptrdiff_t(i), argv_in.end());
            break;
        }
        std::string name = a, value;
        bool has_value = false;
        if (const auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = a.substr(0, eq);
            value = a.substr(eq + 1);
            has_value = true;
        }
        if (name != "--change" && name != "--config") {
            argv.push_back(a);
            continue;
        }
        if (!has_value) {
            if (i + 1 >= argv_in.size())
                return whatif_usage(name + " needs a value");
            value = argv_in[++i];
        }
        if (name == "--change") {
            change_texts.push_back(value);
        } else {
            argv.push_back("--model");
            argv.push_back(value);
        }
    }
    Args args;
    std::string error;
    if (!parse_table_args(argv, option_table(), args, error))
        return whatif_usage(error);
    if (args.positional.empty())
        return whatif_usage("no trace file given");
    if (change_texts.empty())
        return whatif_usage("--change C is required (" + std::string(critpath::kChangeGrammar) + ")");
    AnalyzeRequest req;
    if (!apply_options(args, option_table(), req, error))
        return whatif_usage(error);
    if (req.format != "text" && req.format != "json")
        return whatif_usage("--format must be text or json, not '" + req.format + "'");
    // A change that is not one: bad input, named with what was expected.
    std::vector<critpath::Change> changes;
    for (const std::string& c : change_texts) {
        critpath::Change ch;
        if (!critpath::parse_change(c, ch, error)) {
            print_error(error);
            return kExitInput;
        }
        changes.push_back(std::move(ch));
    }
    const std::vector<std::string> inputs = checked_inputs(req, args.positional);

    std::string text;
    try {
        PipelineOptions popt;
        popt.analysis = req.options;
        popt.load = req.load;
        popt.roofline = req.roofline;
        popt.run_rules = false;
        popt.critical_path = false;   // built here, once, for the replay
        const PipelineResult r = run_pipeline(args.positional, popt);
        const critpath::DependencyGraph g = critpath::build_dependency_graph(*r.trace);
        critpath::WhatIfInputs in;
        in.classes = &r.analysis.classes;
        in.phases = &r.analysis.phases;
        in.roofline = r.roofline.report ? &*r.roofline.report : nullptr;
        const critpath::WhatIfResult w = critpath::replay_what_if(*r.trace, g, changes, in);
        if (req.format == "json") {
            nlohmann::json j;
            j["schema"] = "sightline.whatif/1";
            j["inputs"] = args.positional;
            j["whatif"] = critpath::to_json(w);
            text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        } else {
            text = critpath::to_text(w);
        }
    } catch (const critpath::WhatIfError& e) {
        print_error(args.positional.front() + ": " + e.what());
        return kExitInput;
    } catch (const TraceError& e) {
        print_error(e.what());
        return kExitInput;
    }
    return write_output(req.output, text, inputs, req.format == "json") ? kExitOk : kExitOutput;
}

const bool registered_whatif = register_command({"whatif", kWhatIfSynopsis, &run_whatif});

} // namespace
} // namespace sl::cli

#include "app/cli/loop.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "analysis/diagnosis/compare.h"
#include "analysis/diagnosis/kb_lookup.h"
#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/run_variance.h"
#include "analysis/io/fingerprint.h"
#include "analysis/trace/errors.h"

namespace sl::cli {

int run_report(const std::vector<std::string>& argv);   // cmd_report.cpp

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int sig)
{
    if (g_interrupted.exchange(true)) {
        std::signal(sig, SIG_DFL);   // second Ctrl-C: no more waiting
        ::raise(sig);
    }
    static const char msg[] = "\nsightline-cli: interrupted: stopping the running tool, keeping what is done...\n";
    [[maybe_unused]] auto w = ::write(2, msg, sizeof msg - 1);
}

std::string version_string(const std::vector<int>& v)
{
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? "." : "") + std::to_string(v[i]);
    return s;
}

void print_tool(const ToolInfo& t)
{
    if (t.usable())
        std::cout << "sightline-cli: using " << t.path << " (" << t.version_text << ")\n";
}

} // namespace

std::atomic<bool>& interrupted() { return g_interrupted; }

void install_interrupt_handler()
{
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
}

ToolInfo check_nsys()
{
    auto t = find_tool("nsys", kNsysMinimum,
                       "install Nsight Systems from https://developer.nvidia.com/nsight-systems (or the CUDA "
                       "toolkit's nsight-systems package) and put its bin/ directory on PATH");
    print_tool(t);
    return t;
}

ToolInfo check_ncu()
{
    auto t = find_tool("ncu", kNcuMinimum,
                       "install Nsight Compute from https://developer.nvidia.com/nsight-compute (or the CUDA "
                       "toolkit's nsight-compute package) and put its directory on PATH");
    print_tool(t);
    return t;
}

ProcessResult run_tool(const std::vector<std::string>& argv, const std::string& label, const std::string& stdout_file,
                       int64_t timeout_ms)
{
    std::cout << "$ " << shell_quote_command(argv) << (stdout_file.empty() ? "" : " > " + stdout_file) << std::endl;
    ProcessOptions o;
    o.cancel = &g_interrupted;
    o.timeout_ms = timeout_ms;
    o.grace_ms = 10'000;   // nsys and ncu finish writing their report on SIGINT; give them time
    o.stdout_file = stdout_file;
    o.on_line = [&](const std::string& line, bool) { std::cout << "  [" << label << "] " << line << std::endl; };
    return run_process(argv, o);
}

std::string describe_failure(const ProcessResult& r, const std::string& label)
{
    if (!r.started)
        return label + ": " + r.error;
    if (r.cancelled)
        return label + " was stopped by Ctrl-C";
    if (r.timed_out)
        return label + " timed out after " + std::to_string(r.wall_ms / 1000) + " s and was stopped";
    if (r.signal)
        return label + " was killed by signal " + std::to_string(r.signal);
    return label + " exited with status " + std::to_string(r.exit_code);
}

bool split_command(const std::vector<std::string>& argv, std::vector<std::string>& options,
                   std::vector<std::string>& command)
{
    options.clear();
    command.clear();
    for (size_t i = 0; i < argv.size(); ++i) {
        if (argv[i] == "--") {
            command.assign(argv.begin() + long(i) + 1, argv.end());
            return !command.empty();
        }
        options.push_back(argv[i]);
    }
    return false;
}

std::vector<std::string> split_words(const std::string& s)
{
    std::vector<std::string> out;
    std::string cur;
    bool have = false;
    char quote = 0;
    for (char c : s) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                cur += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            have = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (have || !cur.empty())
                out.push_back(cur);
            cur.clear();
            have = false;
        } else
            cur += c;
    }
    if (have || !cur.empty())
        out.push_back(cur);
    return out;
}

std::vector<std::string> nsys_profile_argv(const ToolInfo& nsys, const ProfileRequest& req, const std::string& base)
{
    // The flags that matter for LLM inference: CUDA + NVTX + OS runtime, CUDA-graph nodes traced one by one, no CPU
    // sampling (it costs overhead and Sightline does not read it). The user's --nsys-args come after and win
    // (a delay/duration, or --capture-range=nvtx --nvtx-capture=...).
    std::vector<std::string> a = {nsys.path, "profile", "--trace=cuda,nvtx,osrt", "--cuda-graph-trace=node",
                                  "--sample=none", "--cpuctxsw=none", "--force-overwrite=true", "--output=" + base};
    a.insert(a.end(), req.nsys_args.begin(), req.nsys_args.end());
    a.insert(a.end(), req.command.begin(), req.command.end());
    return a;
}

std::vector<std::string> nsys_export_argv(const ToolInfo& nsys, const std::string& rep, const std::string& sqlite)
{
    return {nsys.path, "export", "--type=sqlite", "--force-overwrite=true", "--output=" + sqlite, rep};
}

ProfileOutcome profile_command(const ProfileRequest& req, const ToolInfo& nsys)
{
    ProfileOutcome out;
    fs::create_directories(req.out_dir);
    const std::string dir = fs::absolute(req.out_dir).lexically_normal().string();
    std::unique_ptr<KnowledgeBase> kb;
    if (req.record)
        kb = std::make_unique<KnowledgeBase>(req.kb_path.empty() ? KnowledgeBase::default_path() : req.kb_path);
    std::vector<PipelineResult> results;
    for (int i = 1; i <= req.runs; ++i) {
        if (g_interrupted) {
            out.interrupted = true;
            break;
        }
        ProfiledRun run;
        run.index = i;
        run.report_base = dir + "/run" + std::to_string(i);
        run.nsys_rep = run.report_base + ".nsys-rep";
        run.sqlite = run.report_base + ".sqlite";
        run.analysis_json = run.report_base + ".analysis.json";
        std::cout << "\n== run " << i << " of " << req.runs << " ==\n";
        const auto prof = nsys_profile_argv(nsys, req, run.report_base);
        run.commands.push_back(shell_quote_command(prof));
        const ProcessResult pr = run_tool(prof, "nsys", {}, req.timeout_ms);
        if (!pr.ok()) {
            run.error = describe_failure(pr, "nsys profile");
            out.interrupted = pr.cancelled;
            out.tool_failed = !pr.cancelled;
            if (fs::exists(run.nsys_rep))
                run.error += "; its partial report is kept: " + run.nsys_rep;
            std::cout << "sightline-cli: " << run.error << "\n";
            out.runs.push_back(std::move(run));
            break;
        }
        const auto exp = nsys_export_argv(nsys, run.nsys_rep, run.sqlite);
        run.commands.push_back(shell_quote_command(exp));
        const ProcessResult er = run_tool(exp, "nsys", {}, req.timeout_ms);
        if (!er.ok() || !fs::exists(run.sqlite)) {
            run.error = er.ok() ? "nsys export wrote no " + run.sqlite : describe_failure(er, "nsys export");
            out.interrupted = er.cancelled;
            out.tool_failed = !er.cancelled;
            std::cout << "sightline-cli: " << run.error << "\n";
            out.runs.push_back(std::move(run));
            break;
        }
        PipelineResult r = run_pipeline({run.sqlite}, req.pipeline);
        // The model is part of the environment (as `kb record --model` has it): hash of its config.json.
        if (!req.pipeline.roofline.model.empty())
            r.diagnosis.env.model_hash = file_hash(req.pipeline.roofline.model);
        std::ofstream(run.analysis_json) << pipeline_to_json(r).dump(2) << "\n";
        run.metrics = headline_metrics(*r.trace, r.analysis);
        run.ok = true;
        std::cout << "sightline-cli: run " << i << " analysed: " << run.analysis_json << "\n";
        results.push_back(std::move(r));
        out.runs.push_back(std::move(run));
    }

    std::vector<std::map<std::string, double>> metrics;
    std::vector<size_t> ok_index;
    for (size_t i = 0; i < out.runs.size(); ++i)
        if (out.runs[i].ok) {
            metrics.push_back(out.runs[i].metrics);
            ok_index.push_back(i);
        }
    const auto variance = run_variance(metrics);
    out.e2e_metric = end_to_end_metric(metrics);
    std::ostringstream text;
    nlohmann::json m;
    m["schema"] = "sightline.profile/1";
    m["command"] = req.command;
    m["nsys"] = {{"path", nsys.path}, {"version", version_string(nsys.version)}};
    m["runs_requested"] = req.runs;
    m["interrupted"] = out.interrupted;
    m["model"] = req.pipeline.roofline.model;
    m["runs"] = nlohmann::json::array();
    text << "\nProfile: " << dir << "\n";
    if (!metrics.empty()) {
        const size_t rep_ok = representative_run(metrics, out.e2e_metric);
        out.representative = ok_index[rep_ok];
        const PipelineResult& rep = results[rep_ok];
        // Step 1: the knowledge base first (excluding the runs just made).
        std::vector<std::string> hashes;
        for (const auto& r : out.runs)
            if (r.ok)
                hashes.push_back(file_hash(r.sqlite));
        if (kb) {
            const EnvironmentHistory h = lookup_environment(*kb, rep.diagnosis.env, 0.5, hashes);
            m["environment_history"] = environment_history_to_json(h);
            text << environment_history_to_text(h);
            for (size_t k = 0; k < ok_index.size(); ++k) {
                auto& run = out.runs[ok_index[k]];
                RunRecord rec;
                rec.trace_path = run.sqlite;
                rec.trace_hash = hashes[k];
                rec.env_id = kb->upsert_environment(results[k].diagnosis.env);
                rec.metrics = run.metrics;
                run.kb_run = kb->find_or_record_run(rec, operator_measurements(*results[k].trace, results[k].analysis),
                                                    results[k].diagnosis.eval.findings);
            }
            text << "Recorded " << ok_index.size() << " run(s) in the knowledge base " << kb->path()
                 << " (kb list --run " << out.runs[out.representative].kb_run
                 << " shows the suggestions; kb accept ID before `verify`).\n";
        }
        text << "Run-to-run variance over " << metrics.size() << " run(s):\n"
             << run_variance_to_text(variance, {out.e2e_metric, "wall_ns", "busy_ns", "idle_fraction", "prefill_ns"});
        m["variance"] = run_variance_to_json(variance);
        m["e2e_metric"] = out.e2e_metric;
        m["representative"] = out.runs[out.representative].sqlite;
        // The report of the representative run (the one nearest the median of the end-to-end metric).
        std::vector<std::string> rargs = {out.runs[out.representative].sqlite, "--format", "md", "-o", dir + "/report.md"};
        if (!req.pipeline.roofline.model.empty()) {
            rargs.insert(rargs.end(), {"--model", req.pipeline.roofline.model});
            if (!req.pipeline.roofline.gpu.empty())
                rargs.insert(rargs.end(), {"--gpu", req.pipeline.roofline.gpu});
            rargs.insert(rargs.end(), {"--batch", std::to_string(req.pipeline.roofline.cost.batch), "--prompt",
                                       std::to_string(req.pipeline.roofline.cost.prompt), "--context",
                                       std::to_string(req.pipeline.roofline.cost.context)});
        }
        if (run_report(rargs) == 0) {
            m["report"] = dir + "/report.md";
            text << "Report (run " << out.runs[out.representative].index << ", nearest the median): " << dir
                 << "/report.md\n";
        }
        const auto& f = rep.diagnosis.eval.findings;
        text << "Top findings of run " << out.runs[out.representative].index << ":\n";
        for (size_t k = 0; k < std::min<size_t>(5, f.size()); ++k)
            text << "  " << k + 1 << ". [" << severity_name(f[k].severity) << "] " << f[k].title.en << "\n";
        if (f.empty())
            text << "  none\n";
    }
    for (const auto& r : out.runs)
        m["runs"].push_back({{"index", r.index}, {"ok", r.ok}, {"error", r.error}, {"nsys_rep", r.nsys_rep},
                             {"sqlite", r.ok ? r.sqlite : ""}, {"analysis", r.ok ? r.analysis_json : ""},
                             {"commands", r.commands}, {"metrics", r.metrics}, {"kb_run", r.kb_run}});
    for (const auto& r : out.runs)
        text << "  run " << r.index << ": " << (r.ok ? r.sqlite + ", " + r.analysis_json : "FAILED: " + r.error) << "\n";
    if (out.interrupted)
        text << "Interrupted: " << metrics.size() << " completed run(s) kept in " << dir << "\n";
    out.manifest = m;
    std::ofstream(dir + "/profile.json") << m.dump(2) << "\n";
    text << "Manifest: " << dir << "/profile.json\n";
    out.text = text.str();
    std::cout << out.text << std::flush;
    return out;
}

ProfileManifest read_profile_manifest(const std::string& dir)
{
    ProfileManifest pm;
    pm.dir = dir;
    const std::string path = (fs::path(dir) / "profile.json").string();
    std::ifstream in(path);
    if (!in)
        throw TraceError(path, "file", "the profile.json that `sightline-cli profile --out " + dir + "` writes",
                         "no such file");
    nlohmann::json j;
    try {
        in >> j;
    } catch (const std::exception& e) {
        throw TraceError(path, "JSON", "a sightline.profile/1 document", e.what());
    }
    if (j.value("schema", "") != "sightline.profile/1" || !j.contains("runs") || !j["runs"].is_array())
        throw TraceError(path, "top level", "schema sightline.profile/1 with a runs array", j.value("schema", "none"));
    for (const auto& r : j["runs"])
        if (r.value("ok", false) && !r.value("sqlite", "").empty()) {
            pm.sqlite.push_back(r["sqlite"].get<std::string>());
            pm.metrics.push_back(r.value("metrics", std::map<std::string, double>{}));
        }
    if (pm.sqlite.empty())
        throw TraceError(path, "runs", "at least one successful run", "none");
    pm.representative = j.value("representative", pm.sqlite.front());
    pm.command = j.value("command", std::vector<std::string>{});
    pm.model = j.value("model", "");
    return pm;
}

} // namespace sl::cli

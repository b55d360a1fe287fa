// sightline-cli roofline: the theoretical Roofline of an LLM from its config.json on a GPU from the spec database,
// or, given a trace, the Roofline of what the trace ran (its workload and measured times, as analyze --model).
#include "analysis/io/input_bounds.h"
#include "app/cli/command.h"

#include "analysis/roofline/cost_model.h"
#include "analysis/trace/errors.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/io/model_config.h"
#include "analysis/roofline/roofline.h"
#include "analysis/report/roofline_json.h"
#include "analysis/io/load.h"
#include "analysis/timeline/analysis.h"

#include <cstdlib>
#include <iostream>
#include <optional>

using namespace sl;
using namespace sl::cli;

namespace {

bool parse_int(const std::string& s, int64_t& out)
{
    if (s.empty())
        return false;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (*end != '\0')
        return false;
    out = v;
    return true;
}

bool parse_double(const std::string& s, double& out)
{
    if (s.empty())
        return false;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return *end == '\0';
}

int run(const std::vector<std::string>& args)
{
    Args a;
    std::string err;
    if (!parse_args(args,
                    {"--model", "--index", "--gpu", "--gpu-file", "--batch", "--prompt", "--context", "--tp", "--weight-dtype",
                     "--act-dtype", "--kv-dtype", "--fa-q-tile", "--kappa", "--bw-efficiency", "--format", "-o"},
                    {"--unfused", "--no-causal-skip", "--all-logits", "--tf32"}, a, err)) {
        std::cerr << "sightline-cli roofline: " << terminal_safe(err) << "\n";
        return kExitUsage;
    }
    const std::string model_path = a.value("--model");
    const std::string gpu = a.value("--gpu");
    const std::string format = a.value("--format", "text");
    // The GPU: --gpu NAME, else the first device of a trace given as the one positional argument (identified by its
    // name, else by its properties).
    if (model_path.empty() || (gpu.empty() && a.positional.size() != 1) || a.positional.size() > 1 ||
        (format != "text" && format != "json")) {
        std::cerr << "usage: sightline-cli roofline --model config.json (--gpu NAME | TRACE) [--batch B] [--prompt S] "
                     "[--context L] [--format text|json]\n";
        return kExitUsage;
    }
    std::vector<std::string> inputs = {model_path};
    for (const char* f : {"--index", "--gpu-file"})
        if (a.has(f))
            inputs.push_back(a.value(f));
    check_output(a.value("-o"), inputs);
    CostOptions o;
    struct IntOpt { const char* name; int64_t* dst; };
    for (const IntOpt& io : {IntOpt{"--batch", &o.batch}, IntOpt{"--prompt", &o.prompt}, IntOpt{"--context", &o.context},
                             IntOpt{"--fa-q-tile", &o.fa_q_tile}, IntOpt{"--tp", &o.tp}}) {
        if (a.has(io.name) && !parse_int(a.value(io.name), *io.dst)) {
            std::cerr << "sightline-cli roofline: " << io.name << " needs an integer, got '" << terminal_safe(a.value(io.name)) << "'\n";
            return kExitUsage;
        }
    }
    for (auto [name, dst] : {std::pair<const char*, double*>{"--kappa", &o.kappa}, {"--bw-efficiency", &o.bw_efficiency}}) {
        if (a.has(name) && !parse_double(a.value(name), *dst)) {
            std::cerr << "sightline-cli roofline: " << name << " needs a number, got '" << terminal_safe(a.value(name)) << "'\n";
            return kExitUsage;
        }
    }
    if (a.has("--tp"))
        o.tp_source = "option";
    o.weight_dtype = a.value("--weight-dtype");
    o.act_dtype = a.value("--act-dtype");
    o.kv_dtype = a.value("--kv-dtype");
    o.fused_attention = !a.flag("--unfused");
    o.causal_skip = !a.flag("--no-causal-skip");
    o.prefill_all_logits = a.flag("--all-logits");
    o.allow_tf32 = a.flag("--tf32");

    const ModelConfig model = load_model_config(model_path, a.value("--index"));
    GpuDatabase db = GpuDatabase::load_default();
    if (a.has("--gpu-file"))
        db.merge_file(a.value("--gpu-file"));
    std::optional<Trace> trace;
    if (gpu.empty()) {
        trace = load_trace(a.positional.front());
        if (trace->meta.devices.empty())
            throw TraceError(a.positional.front(), "devices", "a GPU device to identify (or pass --gpu NAME)",
                             "no device in the trace");
    }
    std::string out;
    if (trace) {
        // The trace's own workload (issue 34 §3): its steps' annotations and recorded shapes, the experts its MoE
        // steps touched, its measured times — the Roofline analyze --model prints for the same trace, flags winning
        // field by field.
        o.batch_set = a.has("--batch");
        o.prompt_set = a.has("--prompt");
        o.context_set = a.has("--context");
        if (o.batch_set || o.prompt_set || o.context_set)
            o.shape_source = "option";
        const AnalysisResult an = analyze(*trace, AnalysisOptions{});
        RooflineRequest req;
        req.model = model_path;
        req.index = a.value("--index");
        req.gpu_file = a.value("--gpu-file");
        req.cost = o;
        const RooflineOutput ro = roofline_for_analysis(*trace, an.classes, an.phases, req, &an.workload);
        if (format == "json") {
            nlohmann::json j;
            j["schema"] = "sightline.roofline/1";
            j["roofline"] = ro.json.at("roofline");
            out = j.dump(2) + "\n";
        } else {
            out = ro.text;
        }
        return write_output(a.value("-o"), out, inputs, format == "json") ? kExitOk : kExitInput;
    }
    const GpuResolution res = resolve_gpu(db, gpu, nullptr);
    const CostModelResult cost = estimate_costs(model, res.spec, o);
    const RooflineReport report = make_roofline(cost);
    if (format == "json") {
        nlohmann::json j;
        j["schema"] = "sightline.roofline/1";
        j["roofline"] = roofline_to_json(report, model, &res);
        out = j.dump(2) + "\n";
    } else {
        out = roofline_to_text(report, model, &res);
    }
    return write_output(a.value("-o"), out, inputs, format == "json") ? kExitOk : kExitInput;
}

const bool registered = register_command(
    {"roofline",
     "roofline --model config.json (--gpu NAME | TRACE) [--batch B] [--prompt S] [--context L] [--unfused] "
     "[--weight-dtype T] [--kv-dtype T] [--kappa K] [--format text|json] [-o FILE]",
     run});

} // namespace

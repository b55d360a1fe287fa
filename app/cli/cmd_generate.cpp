// sightline-cli generate: writes a synthetic LLM-decode trace as an nsys-schema SQLite export (the bundled sample,
// test fixtures, benchmark inputs).
#include <chrono>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "analysis/io/kineto_writer.h"
#include "analysis/io/nsys_writer.h"
#include "analysis/io/output_file.h"
#include "analysis/io/synthetic.h"
#include "analysis/io/synthetic_ranks.h"
#include "analysis/io/input_bounds.h"
#include "app/cli/command.h"

namespace sl::cli {
namespace {

bool parse_int(const Args& a, const std::string& name, int64_t lo, int64_t hi, int64_t& out, std::string& err)
{
    if (!a.has(name))
        return true;
    const std::string v = a.value(name);
    try {
        size_t pos = 0;
        const long long x = std::stoll(v, &pos);
        if (pos != v.size() || x < lo || x > hi)
            throw std::out_of_range(v);
        out = x;
        return true;
    } catch (const std::exception&) {
        err = "option " + name + " needs an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
              ", got '" + v + "'";
        return false;
    }
}

int run_generate(const std::vector<std::string>& args)
{
    Args a;
    std::string err;
    const std::vector<std::string> values = {"--preset", "--kernels", "--steps", "--layers", "--prefill", "--seed",
                                             "--nvtx", "-o", "--output", "--config-out", "--warmup-heavy",
                                             "--mixed-every", "--clock-offset-ms", "--step-annotation", "--batch",
                                             "--event-stall-ms", "--moe-experts", "--moe-top-k", "--jit-compile-ms",
                                             "--rank", "--world-size", "--straggler", "--skew-us", "--alltoall-heavy"};
    const std::vector<std::string> flags = {"--host-starved", "--sync-every-step", "--serial-copies",
                                            "--no-copies", "--pageable-copies", "--nccl", "--nccl-overlap",
                                            "--cuda-graphs", "--no-nvtx", "--quiet", "--record-shapes",
                                            "--with-capture", "--alltoall"};
    if (!parse_args(args, values, flags, a, err) || !a.positional.empty()) {
        if (err.empty())
            err = "unexpected argument '" + a.positional.front() + "'";
        std::cerr << "sightline-cli generate: " << terminal_safe(err) << "\n";
        return kExitUsage;
    }
    const std::string out = a.has("-o") ? a.value("-o") : a.value("--output");
    if (out.empty()) {
        std::cerr << "sightline-cli generate: -o FILE.sqlite is required\n";
        return kExitUsage;
    }
    SynthOptions o;
    try {
        o = synth_preset(a.value("--preset", "decode"));
    } catch (const std::invalid_argument& e) {
        std::cerr << "sightline-cli generate: " << terminal_safe(e.what()) << "\n";
        return kExitUsage;
    }
    int64_t kernels = o.total_kernels, steps = o.decode_steps, layers = o.layers, prefill = o.prefill_steps,
            nvtx = o.total_nvtx, seed = static_cast<int64_t>(o.seed), warmup_heavy = 0, mixed_every = 0,
            clock_offset_ms = 0, batch = o.batch, event_stall_ms = 0, moe_experts = 0, moe_top_k = o.moe_top_k, jit_compile_ms = 0;
    if (!parse_int(a, "--kernels", 0, 100'000'000, kernels, err) || !parse_int(a, "--steps", 0, 10'000'000, steps, err) ||
        !parse_int(a, "--layers", 1, 1000, layers, err) || !parse_int(a, "--prefill", 0, 1000, prefill, err) ||
        !parse_int(a, "--nvtx", 0, 100'000'000, nvtx, err) || !parse_int(a, "--seed", 0, INT64_MAX, seed, err) ||
        !parse_int(a, "--warmup-heavy", 0, 1'000'000, warmup_heavy, err) ||
        !parse_int(a, "--mixed-every", 0, 1'000'000, mixed_every, err) ||
        !parse_int(a, "--clock-offset-ms", -100'000, 100'000, clock_offset_ms, err) ||
        !parse_int(a, "--batch", 1, 65'536, batch, err) ||
        !parse_int(a, "--event-stall-ms", 0, 100'000, event_stall_ms, err) ||
        !parse_int(a, "--moe-experts", 0, 1024, moe_experts, err) ||
        !parse_int(a, "--moe-top-k", 1, 1024, moe_top_k, err) ||
        !parse_int(a, "--jit-compile-ms", 0, 3'600'000, jit_compile_ms, err)) {
        std::cerr << "sightline-cli generate: " << err << "\n";
        return kExitUsage;
    }
    // --kernels is a total (decode steps are generated until the trace holds that many kernels) and --steps a
    // count of decode steps: one of the two sets the length. --steps replaces a preset's kernel total (scale).
    if (a.has("--kernels") && a.has("--steps")) {
        std::cerr << "sightline-cli generate: give --kernels N (a total: decode steps until N kernels) or --steps N "
                     "(decode steps), not both\n";
        return kExitUsage;
    }
    o.total_kernels = a.has("--steps") ? 0 : kernels;
    o.decode_steps = static_cast<int>(steps);
    o.layers = static_cast<int>(layers);
    o.prefill_steps = static_cast<int>(prefill);
    o.total_nvtx = nvtx;
    o.seed = static_cast<uint64_t>(seed);
    o.host_starved = a.flag("--host-starved");
    o.sync_every_step = a.flag("--sync-every-step");
    o.copy_overlaps_compute = !a.flag("--serial-copies");
    o.h2d_copies = !a.flag("--no-copies");
    o.pageable_copies = a.flag("--pageable-copies");
    o.nccl = a.flag("--nccl") || a.flag("--nccl-overlap");
    o.nccl_overlaps_compute = a.flag("--nccl-overlap");
    o.cuda_graphs = a.flag("--cuda-graphs");
    o.nvtx = !a.flag("--no-nvtx");
    o.warmup_heavy_steps = static_cast<int>(warmup_heavy);
    o.mixed_every = static_cast<int>(mixed_every);
    o.clock_offset_ns = clock_offset_ms * 1'000'000;
    o.jit_compile_ns = jit_compile_ms * 1'000'000;
    o.step_annotation = a.value("--step-annotation");
    if (!o.step_annotation.empty() && o.step_annotation != "vllm" && o.step_annotation != "sglang") {
        std::cerr << "sightline-cli generate: --step-annotation needs vllm or sglang, got '" << o.step_annotation
                  << "'\n";
        return kExitUsage;
    }
    o.batch = static_cast<int>(batch);
    o.event_stall_ns = event_stall_ms * 1'000'000;
    o.moe_experts = static_cast<int>(moe_experts);
    o.moe_top_k = static_cast<int>(moe_top_k);
    o.record_shapes = a.flag("--record-shapes");
    if (o.moe_experts > 0 && o.moe_top_k > o.moe_experts) {
        std::cerr << "sightline-cli generate: --moe-top-k must not exceed --moe-experts\n";
        return kExitUsage;
    }
    // A .json / .json.gz output is a Kineto trace; anything else an nsys export. nsys stamps host and device on one
    // session clock, so a clock offset is only planted in a Kineto trace (where real traces show it).
    const auto ends_with = [&](std::string_view suf) {
        return out.size() >= suf.size() && out.compare(out.size() - suf.size(), suf.size(), suf) == 0;
    };
    const bool kineto = ends_with(".json") || ends_with(".json.gz");
    // The graph's capture (what vLLM / SGLang write with the profiler on while capturing) goes into capture_traces/
    // beside the output, with execution_details.json, where analyze finds it.
    // An nsys output holds the capture itself, at the start, with its graph-node creation events.
    const bool with_capture = a.flag("--with-capture");
    if (with_capture && !o.cuda_graphs) {
        std::cerr << "sightline-cli generate: --with-capture needs --cuda-graphs\n";
        return kExitUsage;
    }
    o.capture_in_trace = with_capture && !kineto;
    if (o.clock_offset_ns != 0 && !kineto) {
        std::cerr << "sightline-cli generate: --clock-offset-ms needs a Kineto output (-o FILE.json or FILE.json.gz); "
                     "an nsys export has one clock\n";
        return kExitUsage;
    }

    const std::string config_out = a.value("--config-out");
    if (!config_out.empty() && config_out == out) {
        std::cerr << "sightline-cli generate: --config-out and -o name the same file\n";
        return kExitUsage;
    }

    // One rank of a many-rank job (synthetic_ranks.h): rank, world, collective metadata, a planted straggler.
    std::optional<SynthRankOptions> ranks;
    if (a.has("--rank") || a.has("--world-size") || a.has("--straggler") || a.has("--skew-us") ||
        a.has("--alltoall") || a.has("--alltoall-heavy")) {
        int64_t rank = -1, world = 0, straggler = -1, skew_us = 0, heavy = -1;
        if (!parse_int(a, "--rank", 0, 1'000'000, rank, err) || !parse_int(a, "--world-size", 1, 1'000'000, world, err) ||
            !parse_int(a, "--straggler", 0, 1'000'000, straggler, err) ||
            !parse_int(a, "--skew-us", 0, 1'000'000, skew_us, err) ||
            !parse_int(a, "--alltoall-heavy", 0, 1'000'000, heavy, err)) {
            std::cerr << "sightline-cli generate: " << err << "\n";
            return kExitUsage;
        }
        if (rank < 0 || world < 1) {
            std::cerr << "sightline-cli generate: --straggler, --skew-us and --alltoall need --rank R and "
                         "--world-size W\n";
            return kExitUsage;
        }
        if (rank >= world || straggler >= world || heavy >= world) {
            std::cerr << "sightline-cli generate: --rank, --straggler and --alltoall-heavy must be below --world-size "
                      << world << "\n";
            return kExitUsage;
        }
        if (a.has("--skew-us") && straggler < 0) {
            std::cerr << "sightline-cli generate: --skew-us needs --straggler R (the rank that arrives late)\n";
            return kExitUsage;
        }
        if (!kineto) {
            std::cerr << "sightline-cli generate: --rank needs a Kineto output (-o FILE.json or FILE.json.gz), where "
                         "the rank and the collective metadata are written\n";
            return kExitUsage;
        }
        SynthRankOptions ro;
        ro.rank = static_cast<int32_t>(rank);
        ro.world_size = static_cast<int32_t>(world);
        ro.straggler = static_cast<int32_t>(straggler);
        ro.skew_ns = straggler >= 0 ? (a.has("--skew-us") ? skew_us : 50) * 1000 : 0;
        ro.alltoall = a.flag("--alltoall") || heavy >= 0;
        ro.alltoall_heavy = static_cast<int32_t>(heavy);
        ro.tokens = o.batch;
        ranks = ro;
        o.nccl = true;   // collectives to match across the ranks
    }

    // Refused before any work: an output that would replace the knowledge base or a real export (output_file.h).
    check_output(out, {});
    check_output(config_out, {out});
    const auto t0 = std::chrono::steady_clock::now();
    Trace t = make_synthetic_trace(o);
    if (ranks)
        plant_rank(t, *ranks);
    const auto t1 = std::chrono::steady_clock::now();
    // Written to a temporary beside the target and renamed over it at the end: an interrupted or failed generate
    // leaves the target as it was (no file, or the previous one), never a cut SQLite or JSON file.
    TempOutput tmp(out);
    tmp.also_remove("-journal");
    try {
        if (kineto) {
            KinetoWriteOptions ko;
            ko.gzip = ends_with(".json.gz");
            write_kineto_json(t, tmp.path(), ko);
        } else {
            write_nsys_sqlite(t, tmp.path());
        }
    } catch (const TraceError& e) {
        throw OutputError(out, e.found() + " (" + terminal_safe(out) + " was left as it was)");
    }
    tmp.commit();
    // The trace of the graph's capture, where a serving framework keeps it: capture_traces/ beside the trace, with an
    // execution_details.json naming each capture's batch and mode.
    if (with_capture && kineto) {
        const std::filesystem::path dir = std::filesystem::path(out).parent_path() / "capture_traces";
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        const std::string name = "graph_capture_rank_0.pt.trace.json.gz";
        const std::string capture_path = (dir / name).string();
        TempOutput ctmp(capture_path);
        try {
            KinetoWriteOptions ko;
            ko.gzip = true;
            write_kineto_json(make_synthetic_capture_trace(o), ctmp.path(), ko);
        } catch (const TraceError& e) {
            throw OutputError(capture_path, e.found());
        }
        ctmp.commit();
        write_output((dir / "execution_details.json").string(),
                     "[\n  {\n    \"file\": \"" + name + "\",\n    \"batch_size\": " + std::to_string(o.batch) +
                         ",\n    \"mode\": \"FULL\"\n  }\n]\n",
                     {out}, true);
    }
    // The model the kernels stand for, as a Hugging Face config.json, so `--model` works on the generated trace.
    if (!config_out.empty())
        write_output(config_out, synth_model_config_json(o), {out}, true);
    const auto t2 = std::chrono::steady_clock::now();
    if (!a.flag("--quiet")) {
        const auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
        std::fprintf(stderr, "wrote %s: %zu kernels, %zu API calls, %zu memcpy, %zu NVTX ranges "
                             "(generated in %.0f ms, written in %.0f ms)\n",
                     terminal_safe(out).c_str(), t.kernels.size(), t.api.size(), t.memcpy.size(), t.ranges.size(), ms(t1 - t0),
                     ms(t2 - t1));
    }
    return kExitOk;
}

const bool registered = register_command(
    {"generate",
     "generate [--preset decode|scale] [--kernels N] [--steps N] [--layers N] [--prefill N] [--nvtx N] [--seed N] "
     "[--host-starved] [--sync-every-step] [--serial-copies] [--no-copies] [--pageable-copies] [--nccl|--nccl-overlap] "
     "[--cuda-graphs [--with-capture]] [--no-nvtx] [--warmup-heavy N] [--mixed-every N] [--clock-offset-ms MS] "
     "[--step-annotation vllm|sglang] [--record-shapes] [--batch B] [--event-stall-ms MS] "
     "[--moe-experts E [--moe-top-k K]] [--jit-compile-ms MS] "
     "[--rank R --world-size W [--straggler S [--skew-us US]] [--alltoall] [--alltoall-heavy H]] "
     "[--config-out CONFIG.json] -o FILE.sqlite|FILE.json[.gz]",
     run_generate});

} // namespace
} // namespace sl::cli

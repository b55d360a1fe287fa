// `sightline-cli COMMAND --help`: what the command does, its options and, for kb, its verbs. main.cpp prints it
// (exit 0) when -h or --help follows a command name, before the command parses its arguments.
#include "app/cli/help.h"

#include <cstring>
#include <sstream>

namespace sl::cli {
namespace {

struct HelpText {
    const char* name;
    const char* what;      // one paragraph
    const char* options;   // one "  --option VALUE   meaning" line each
};

// Options shared by analyze and report (both run the same pipeline).
#define SL_PIPELINE_OPTIONS                                                                                          \
    "  --capture-trace PATH   trace of the server's CUDA/HIP graph capture, a file or a folder (repeatable):\n"      \
    "                         replayed kernels inherit its CPU ops, modules and shapes; default: a\n"               \
    "                         capture_traces/ folder beside the trace\n"                                           \
    "  --no-capture-search    do not look for a capture_traces/ folder beside the trace\n"                          \
    "  --model CONFIG.json    Hugging Face config.json: adds the Roofline (time floor per class and phase)\n"       \
    "  --model-index FILE     model.safetensors.index.json checked against --model\n"                               \
    "  --gpu NAME             GPU spec row (e.g. H100-SXM); default: the trace's device name\n"                      \
    "  --gpu-file FILE        extra or corrected GPU spec rows (gpus.json layout)\n"                                \
    "  --batch B              batch size of the traced run (Roofline; default: the trace's shapes, else 1)\n"        \
    "  --prompt S             prompt length of the prefill (Roofline; default: the trace's, else 1024)\n"            \
    "  --context L            KV length of a decode step (Roofline; default: the trace's, else 2048)\n"              \
    "  --ncu FILE             Nsight Compute export (CSV, text or .ncu-rep) joined to the trace's kernels\n"        \
    "  --rules DIR            rules directory added to (and overriding by id) the shipped rules\n"                  \
    "  --kb PATH              knowledge base whose verified history adjusts the findings' confidence\n"             \
    "  --fail-on LEVEL        exit 1 when a finding of this severity or above fires: high, medium or low;\n"        \
    "                         exit 2 when a rule file or rule did not load (the gate cannot pass)\n"              \
    "  --tp N                 tensor-parallel ranks the model is split over (Roofline work per rank)\n"           \
    "  --weight-dtype T       weight data type (e.g. bf16, fp8, mxfp4, int4; default from the config)\n"          \
    "  --kv-dtype T           KV-cache data type (default: the activation type)\n"                               \
    "  --gap-threshold-us N   gaps shorter than this between back-to-back launches are kernel wait (default 30)\n"  \
    "  --step-regex R         kernel-name regex (RE2, case-insensitive) whose kernels end a decode step\n"         \
    "  --top-k K              kernel names in the focus set (default 10)\n"                                         \
    "  --warmup-steps N       decode steps left out of TPOT as warm-up (default 2)\n"                               \
    "  --classes FILE         kernel-classes JSON replacing the shipped kernel_classes.json\n"                      \
    "  -o, --output FILE      write to FILE instead of standard output\n"

const HelpText kHelp[] = {
    {"summary",
     "The nsys-stats view of one or more traces (several files are ranks): kernel, CUDA API, memory-operation and "
     "NVTX tables; per device busy and idle time, the gap histogram and the largest gaps.",
     "  --format text|json     output format (default text; json is sightline.summary/1)\n"
     "  --rank N               only this rank when several traces are given\n"
     "  --top-gaps N           how many of the largest gaps to list\n"
     "  --capture-trace PATH   trace of the graph capture, a file or a folder (repeatable); default: a\n"
     "                         capture_traces/ folder beside the trace\n"
     "  --no-capture-search    do not look for a capture_traces/ folder beside the trace\n"
     "  -o, --output FILE      write to FILE instead of standard output\n"},
    {"explain",
     "One kernel's verdict, as the workbench's Details line says it: what bounds it (compute, memory or latency, in "
     "Nsight Compute's Speed-of-Light terms) and how far it is from that bound, from the best evidence there is "
     "(ncu counters, the trace's recorded shapes, its launch, the model config), and what the GPU did around it "
     "(waited for its launch, idle before it, its place in a graph replay).",
     "  --kernel NAME|ID       a kernel id (kernels[].kernel_id of `analyze --format json`, or any launch's row) or a\n"
     "                         part of a kernel's name: every distinct kernel (name + launch shape) containing it\n"
     "  --format text|json     output format (default text; json is sightline.explain/1)\n"
     SL_PIPELINE_OPTIONS},
    {"whatif",
     "What a change would buy, from the trace alone: replays the trace's dependency graph (CPU ops, launches, "
     "streams, syncs, event waits, graph replays) with the change applied and reports the new step time. The "
     "prediction is each steady step's measured time plus what the replay with the change gains over the replay "
     "without it; the range is the spread over the steps. It says which durations it kept and which dependencies the "
     "trace does not record. Several --change are applied together, and each is also replayed alone.",
     "  --change C             cuda-graphs (one graph launch per step), remove-sync (every host-blocking call) or\n"
     "                         remove-sync:API (e.g. cudaStreamSynchronize; remove-sync:cudaStreamWaitEvent drops\n"
     "                         the event waits across streams), class:NAME=K (operator class NAME K\n"
     "                         times faster), fuse:NAME (class NAME at its Roofline floor; needs --config),\n"
     "                         remove-range:NAME (the host time of a CPU op, NVTX range or runtime call),\n"
     "                         comm=K (collectives K times faster); repeatable\n"
     "  --config CONFIG.json   the model's Hugging Face config.json (as --model): the Roofline that fuse:NAME needs\n"
     "  --format text|json     output format (default text; json is sightline.whatif/1)\n"
     SL_PIPELINE_OPTIONS},
    {"analyze",
     "Runs the whole diagnosis: idle time attributed to host, kernel and sync wait, launch and sync statistics, "
     "overlap, operator classes, prefill/decode phases and TPOT, NVTX projected onto the GPU, the Roofline (with "
     "--model), Nsight Compute counters (with --ncu) and the findings with their evidence and expected gains. "
     "--format md, pdf or html writes the shareable report (as `report` does).",
     "  --format FORMAT        text (default), json (sightline.analysis/1), md, pdf or html\n"
     "  --lang en|zh_CN        report language for md, pdf and html (default en)\n"
     "  --detail summary|full  md, pdf and html: summary (default: verdict, actions, time breakdown, top findings,\n"
     "                         Roofline, environment) or full (every table, every finding and the appendix)\n"
     "  --llm-endpoint URL     ask an OpenAI-compatible endpoint (llama.cpp server, vLLM, Ollama: e.g.\n"
     "                         http://localhost:8080/v1) to review each finding against its evidence; advisory, off\n"
     "                         unless given: only the findings and their evidence are sent, never the trace\n"
     "  --llm-model M          model name sent to the endpoint (default: the server's)\n"
     "  --llm-key-env VAR      environment variable holding the API key (default SIGHTLINE_LLM_KEY)\n"
     "  --llm-timeout S        seconds to wait for the review (default 60); past it the findings stand alone\n"
     "  --llm-allow-paths      send file paths found in finding texts (default: replaced by <path>)\n"
     "  --partial              one rank's compact result (sightline.partial/1) for `merge` instead of the\n"
     "                         analysis: identity, busy/idle by cause, steps and TPOT, time by class, one record\n"
     "                         per collective; one trace, JSON (-o FILE.gz: gzip-compressed)\n"
     "  --max-ranks-in-memory N\n"
     "                         one rank per file: each rank analysed to its partial on its own (at most N\n"
     "                         traces in memory at once), then merged as `merge` does; prints sightline.merge/1.\n"
     "                         A folder of ranks (`analyze ranks/`: its *.json, *.json.gz, *.sqlite and\n"
     "                         *.nsys-rep files) or a quoted glob (`analyze 'ranks/*.json.gz'`) is mapped and\n"
     "                         merged so, 2 ranks in memory unless N says otherwise\n"
     SL_PIPELINE_OPTIONS},
    {"merge",
     "The reduce of a many-rank run: merges the partials `analyze RANK_TRACE --partial` wrote, one per rank, into "
     "the cross-rank analyses: collectives matched across ranks, skew and the straggler, comm latency (the fastest "
     "rank's time per collective), per-rank step time and its spread, all-to-all size imbalance, and the findings of "
     "the cross-rank rules (the straggler with its lateness and lead-in, all-to-all imbalance, step-time spread; each "
     "with a bounded gain, a confidence and a verify command). "
     "The numbers are those `analyze` gives of all the ranks' traces in one process. Partials of another version, "
     "two for one rank or of different world sizes are refused (exit 2).",
     "  --format text|json|md|pdf|html\n"
     "                         output format (default text; json is sightline.merge/1; md, pdf and html are the\n"
     "                         report document `analyze` writes, of the merge; pdf needs -o)\n"
     "  --lang en|zh_CN        report language for md, pdf and html (default en)\n"
     "  -o, --output FILE      write to FILE instead of standard output\n"},
    {"scale-out",
     "Writes the jobs that analyse a many-rank run on the cluster where its traces are, and prints the commands "
     "that submit them (a shell snippet: pipe it to sh to submit); it never submits itself. slurm: a job array "
     "whose tasks each run `analyze RANK --partial` on their ranks, and a merge job submitted with "
     "--dependency=afterok on it. k8s: an Indexed Job (JOB_COMPLETION_INDEX picks the ranks) and a merge Job, both "
     "mounting one PersistentVolumeClaim. When there are more ranks than the site's array allows, each task maps a "
     "chunk of ranks. DIR gets ranks.txt (the rank files, one a line), partials/, the scripts or manifests, and the "
     "merge's merge.json (sightline.merge/1) and merge.txt; it must be on the file system the nodes share.",
     "  --ranks GLOB           the rank traces: a quoted glob ('ranks/*.json.gz'), a folder or a file\n"
     "                         (repeatable; natural order, rank2 before rank10)\n"
     "  --out DIR              where the scripts, the partials and the merge go (made if missing)\n"
     "  --max-array N          array tasks the site allows (Slurm: its MaxArraySize, `scontrol show config`;\n"
     "                         default 1001; k8s: completions, default and at most 100000)\n"
     "  --ranks-per-task K     ranks each task maps (default 1, more when the ranks exceed --max-array)\n"
     "  --max-running N        tasks running at once (Slurm: --array=...%N; k8s: parallelism)\n"
     "  --name NAME            job name prefix (NAME-map, NAME-merge; default sightline)\n"
     "  --cli PATH             sightline-cli on the nodes (slurm default: this program's path; k8s: sightline-cli)\n"
     "  --mem M                memory per task (Slurm --mem, e.g. 8G; k8s request and limit, e.g. 8Gi)\n"
     "  --cpus N               CPUs per task (Slurm --cpus-per-task; k8s cpu request)\n"
     "  --time T               slurm: time limit per job (e.g. 01:00:00)\n"
     "  --partition P          slurm: partition\n"
     "  --account A            slurm: account\n"
     "  --image IMAGE          k8s: container image with sightline-cli (default sightline:VERSION)\n"
     "  --claim PVC            k8s: the PersistentVolumeClaim holding the ranks and DIR (default\n"
     "                         sightline-traces)\n"
     "  --mount PATH           k8s: where the claim is mounted (default: the folder holding the ranks and DIR;\n"
     "                         paths inside the pods are those given here)\n"},
    {"report",
     "Writes the shareable report of one or more traces: headline, actions, findings with evidence, Roofline and "
     "the environment, as Markdown, PDF, HTML or JSON (sightline.report/1).",
     "  --format md|pdf|json|html  report format (required)\n"
     "  --lang en|zh_CN        report language (default en)\n"
     "  --detail summary|full  summary (default for md, pdf and html: a few pages to forward) or full (every\n"
     "                         table, every finding and the appendix; the default for json)\n"
     "  --title T              report title (default: the trace's name and \"GPU inference performance report\")\n"
     "  --run-id ID            run id (default: derived from the input hashes)\n"
     "  --generated-at TIME    timestamp to print instead of now (reproducible reports)\n"
     "  --model-name NAME      model name shown in the environment\n"
     "  --no-rules             leave the findings out\n" SL_PIPELINE_OPTIONS},
    {"roofline",
     "The Roofline of a model on a GPU without measurements: per operator class and phase, FLOPs, bytes, arithmetic "
     "intensity and the time floor for the given batch, prompt and context. The GPU is --gpu's row, or the device of "
     "a TRACE given as the one argument (by its name, else by its compute version, units, memory and warp size). "
     "With a TRACE the workload is the trace's own, as analyze --model reads it: each phase's batch, query and KV "
     "lengths from its steps' annotations or recorded shapes (the flags win field by field, and a flag the trace "
     "contradicts is a warning naming both values), the experts its MoE steps touched, and its measured times joined.",
     "  --model CONFIG.json    Hugging Face config.json (required)\n"
     "  --gpu NAME             GPU spec row, e.g. H100-SXM (or give a TRACE instead)\n"
     "  --index FILE           model.safetensors.index.json checked against --model\n"
     "  --gpu-file FILE        extra or corrected GPU spec rows (gpus.json layout)\n"
     "  --batch B              batch size (default 1, or the trace's)\n"
     "  --prompt S             prompt length of the prefill (default 1024, or the trace's)\n"
     "  --context L            KV length of a decode step (default 2048, or the trace's)\n"
     "  --weight-dtype T       weight data type (e.g. bf16, fp8, int4)\n"
     "  --act-dtype T          activation data type\n"
     "  --kv-dtype T           KV-cache data type\n"
     "  --fa-q-tile N          FlashAttention query tile\n"
     "  --kappa K              efficiency factor applied to the floor\n"
     "  --bw-efficiency F      achievable fraction of the memory bandwidth\n"
     "  --unfused              count unfused attention (scores written to memory)\n"
     "  --no-causal-skip       no causal-mask skipping in prefill attention\n"
     "  --all-logits           the LM head computes logits for every prompt token\n"
     "  --tf32                 FP32 matrix work runs on TF32 tensor cores\n"
     "  --format text|json     output format (default text)\n"
     "  -o FILE                write to FILE instead of standard output\n"},
    {"ncu",
     "Reads an Nsight Compute export (--page raw or --page details CSV, text, or .ncu-rep through ncu) and prints "
     "each kernel's counters and its bound.",
     "  --format text|json     output format (default text)\n"
     "  --decimal .|,          decimal separator used in the CSV (default .)\n"
     "  -o FILE                write to FILE instead of standard output\n"},
    {"compare",
     "A/B verification: compares two traces (before and after a change) metric by metric, and judges the accepted "
     "suggestions of the knowledge base against the change they promised.",
     "  --before TRACE         one run before the change (repeat for several runs; same as BEFORE... -- AFTER...)\n"
     "  --after TRACE          one run after the change (repeat for several runs)\n"
     "  --format text|json|md  output format (default text)\n"
     "  --record               write AFTER and the verdicts of accepted suggestions into the knowledge base;\n"
     "                         nothing (and says why) when a side holds no kernels or the hardware or the\n"
     "                         workload differs\n"
     "  --kb PATH              knowledge base (default $XDG_DATA_HOME/sightline/knowledge.db)\n"
     "  --threshold PCT        relative change that counts as verified or failed (percent, default 3; run-to-run "
     "noise raises it)\n"
     "  -o, --output FILE      write to FILE instead of standard output\n"},
    {"kb",
     "The knowledge base of runs, findings and suggestions ($XDG_DATA_HOME/sightline/knowledge.db).\n\n"
     "Verbs:\n"
     "  record TRACE           record a run with its findings and proposed suggestions\n"
     "  list                   list the suggestions (filter with --state and --run)\n"
     "  accept ID              accept suggestion ID (with --note)\n"
     "  reject ID              reject suggestion ID (with --note)\n"
     "  annotate ID TEXT       add a note to suggestion ID\n"
     "  history                the verification history that `compare --record` wrote",
     "  --kb PATH              knowledge base file (default $XDG_DATA_HOME/sightline/knowledge.db)\n"
     "  --format text|json     output format (default text)\n"
     "  --state S              list: only suggestions in this state (proposed, accepted, rejected, ...)\n"
     "  --run ID               list: only suggestions of this run\n"
     "  --note T               accept, reject: the reason\n"
     "  --model CONFIG.json    record: the model of the run\n"
     "  --batch B              record: batch size of the run\n"
     "  --seq S                record: sequence length of the run\n"
     "  --rules DIR            record: rules directory added to the shipped rules\n"},
    {"generate",
     "Writes a synthetic Nsight Systems SQLite trace of an LLM decode (or a scaling series), with optional "
     "pathologies, for demos and tests; the bundled sample is made with it.",
     "  --preset decode|scale  base shape (default decode)\n"
     "  --kernels N            kernels in all: decode steps are generated until the trace holds N (the scale\n"
     "                         preset: 1,000,000); not with --steps\n"
     "  --steps N              decode steps (default 32; replaces the scale preset's kernel total)\n"
     "  --layers N             transformer layers\n"
     "  --prefill N            prefill passes before the decode steps (default 2; the scale preset: 0)\n"
     "  --nvtx N               NVTX ranges\n"
     "  --seed N               random seed (the same seed gives the same trace)\n"
     "  --host-starved         the host cannot keep the GPU fed (launch gaps)\n"
     "  --sync-every-step      a device synchronisation after every step\n"
     "  --serial-copies        copies do not overlap compute\n"
     "  --no-copies            no memory copies\n"
     "  --pageable-copies      copies from pageable host memory\n"
     "  --nccl                 NCCL collectives, serialised with compute\n"
     "  --nccl-overlap         NCCL collectives overlapping compute\n"
     "  --cuda-graphs          launches through CUDA graphs\n"
     "  --with-capture         with --cuda-graphs: the trace of the graph's capture too (Kineto: in\n"
     "                         capture_traces/ beside the output, with execution_details.json; nsys: inside the\n"
     "                         export, with its graph-node creation events)\n"
     "  --record-shapes        CPU ops with their input shapes around the launches (Kineto output)\n"
     "  --batch B              tokens per decode step the shapes say (default 8)\n"
     "  --moe-experts E        an MoE decode: every layer's MLP is E experts (triton_kernels matmul_ogs, MXFP4)\n"
     "  --moe-top-k K          experts per token (default 4)\n"
     "  --no-nvtx              no NVTX ranges\n"
     "  --warmup-heavy N       N slow warm-up decode steps at the start (lazy loads, first-call tuning)\n"
     "  --mixed-every N        every Nth step is a mixed chunked-prefill + decode step (vLLM-style ranges)\n"
     "  --clock-offset-ms MS   device clock offset from the host clock (Kineto output only: -o FILE.json[.gz])\n"
     "  --rank R               rank R of a many-rank job (Kineto output; with --world-size): NCCL collectives\n"
     "                         with the metadata PyTorch writes; ranks made with the same options end each\n"
     "                         collective together\n"
     "  --world-size W         ranks in the job\n"
     "  --straggler S          rank S arrives late at every collective (default by 50 us)\n"
     "  --skew-us US           how late the straggler arrives\n"
     "  --alltoall             every second collective of a layer is an all-to-all (MoE dispatch)\n"
     "  --alltoall-heavy H     rank H's all-to-all input is twice the others' (implies --alltoall)\n"
     "  --step-annotation F    name steps as the framework F does: vllm (execute_N_context_C(...)_generation_G(...))\n"
     "                         or sglang (step[EXTEND|DECODE|MIXED ...]), with their batch composition\n"
     "  --batch B              decode requests per step in those names (default 8)\n"
     "  --event-stall-ms MS    the first decode step's first kernel is queued behind cudaStreamWaitEvent and\n"
     "                         starts MS later, while the host blocks in a synchronous cudaMemcpy\n"
     "  --jit-compile-ms MS    before the first kernel, MS of JIT compilation on the host (an NVTX\n"
     "                         KernelExecutor::compileFusion range with NVRTC inside) while the GPU idles\n"
     "  --config-out FILE      also write the model config.json of the trace\n"
     "  --quiet                print nothing on success\n"
     "  -o, --output FILE      the trace to write (required)\n"},
    {"profile",
     "Runs COMMAND under `nsys profile` (CUDA, NVTX, OS runtime, CUDA-graph nodes), N times, exports each run to "
     "SQLite, analyses it, and writes the exports, analyses, run-to-run variance and a report into the output "
     "folder; the knowledge base is looked up for this environment first and the run is recorded in it.",
     "  --nsys-args ARGS       extra nsys profile flags, one string, after Sightline's own (so they win)\n"
     "  --runs N               how many runs (median and spread over them; default 1)\n"
     "  --out DIR              where the exports, analyses, report and profile.json go\n"
     "  --timeout SEC          stop a tool that runs longer (SIGINT, then SIGKILL); default none\n"
     "  --kb PATH              knowledge base (default $XDG_DATA_HOME/sightline/knowledge.db)\n"
     "  --no-record            do not record the runs in the knowledge base\n"
     "  --model CONFIG.json    Hugging Face config.json of the run (Roofline, theory-vs-measurement check)\n"
     "  --gpu NAME             GPU spec row (default: the trace's device name)\n"
     "  --batch B              batch size of the run\n"
     "  --prompt S             prompt length of the prefill\n"
     "  --context L            KV length of a decode step\n"},
    {"deep-dive",
     "Runs `ncu` on exactly the kernels of the focus set (Top-K by time and low Roofline efficiency) of a profile "
     "folder or trace: `-k regex:` of their real names, a steady-state instance, the chosen section set; exports "
     "the CSV, joins it and re-runs the rules with the counters.",
     "  --set roofline|full    ncu section set (default roofline)\n"
     "  --launch-skip N        matched launches to skip before profiling (default: up to the steady state)\n"
     "  --launch-count N       matched launches to profile (default: one decode step of the focus set, 1..200)\n"
     "  --out DIR              output folder (default: the profile folder)\n"
     "  --ncu-args ARGS        extra arguments for ncu (one string)\n"
     "  --timeout SEC          stop ncu when it takes longer than this\n"
     "  --model CONFIG.json    Hugging Face config.json of the run (Roofline, theory-vs-measurement check)\n"
     "  --gpu NAME             GPU spec row (default: the trace's device name)\n"
     "  --batch B              batch size of the run\n"
     "  --prompt S             prompt length of the prefill\n"
     "  --context L            KV length of a decode step\n"},
    {"verify",
     "After a suggestion was applied: profiles COMMAND again, compares the new runs with BEFORE_DIR end to end "
     "(a change inside the run-to-run spread is inconclusive) and records the verdicts in the knowledge base.",
     "  --nsys-args ARGS       extra nsys profile flags, one string, after Sightline's own (so they win)\n"
     "  --runs N               how many runs (default: as many as BEFORE_DIR has)\n"
     "  --out DIR              where the new runs go (default BEFORE_DIR/verify)\n"
     "  --timeout SEC          stop a tool that runs longer (SIGINT, then SIGKILL); default none\n"
     "  --kb PATH              knowledge base (default $XDG_DATA_HOME/sightline/knowledge.db)\n"},
};

#undef SL_PIPELINE_OPTIONS

} // namespace

bool is_help_request(const std::vector<std::string>& args)
{
    for (const auto& a : args) {
        if (a == "--")
            return false;   // after "--": file names, or the profiled command's own arguments
        if (a == "-h" || a == "--help")
            return true;
    }
    return false;
}

std::string command_help(const Command& c)
{
    std::ostringstream out;
    out << "Usage: sightline-cli " << c.synopsis << "\n";
    for (const auto& h : kHelp)
        if (std::strcmp(h.name, c.name) == 0) {
            out << "\n" << h.what << "\n\nOptions:\n" << h.options;
            break;
        }
    out << "  -h, --help             print this help and exit\n";
    // compare, profile, verify and deep-dive give "--" a meaning of their own (the AFTER runs, the command).
    bool own_separator = false;
    for (const char* n : {"compare", "profile", "verify", "deep-dive"})
        own_separator |= std::strcmp(c.name, n) == 0;
    if (!own_separator)
        out << "  --                     end of the options: what follows is a file name even when it starts with '-'\n";
    out << "\n" << kLimitOptionsHelp << "\n" << kExitCodesHelp << "\n";
    return out.str();
}

} // namespace sl::cli

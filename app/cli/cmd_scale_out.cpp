// sightline-cli scale-out slurm|k8s --ranks GLOB --out DIR [...]
//
// The map and reduce of a many-rank run on the cluster where the traces are (issue 38 §3): writes a Slurm job array
// (one task per rank file, or a chunk of ranks per task when there are more ranks than the site's array allows) and
// a merge job that runs once every task succeeded, or a Kubernetes Indexed Job and a merge Job on a shared volume.
// It prints the commands that submit them (a shell snippet: `... | sh` submits) and never submits itself.
//
// DIR gets ranks.txt (the rank files, absolute, one a line, in natural order: task i maps ranks i*K .. i*K+K-1),
// partials/ (where the map writes rank-NNNNN.partial.json.gz: gzip-compressed, 1.6 MB for a 1 GB rank), logs/
// (Slurm), the scripts or manifests; the merge writes DIR/merge.json (sightline.merge/1) and DIR/merge.txt.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "analysis/io/input_bounds.h"
#include "analysis/io/rank_files.h"
#include "analysis/trace/errors.h"
#include "app/cli/command.h"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace sl::cli {
namespace {

constexpr const char* kSynopsis =
    "scale-out slurm|k8s --ranks GLOB... --out DIR [--max-array N] [--ranks-per-task K] [--max-running N] "
    "[--name NAME] [--cli PATH] [--mem M] [--time T] [--cpus N] [--partition P] [--account A] "
    "[--image IMAGE] [--claim PVC] [--mount PATH]";

// Slurm's default MaxArraySize (array indices stay below it); Kubernetes' limit on an Indexed Job's completions.
constexpr size_t kSlurmDefaultMaxArray = 1001;
constexpr size_t kK8sMaxCompletions = 100000;

struct Plan {
    std::string scheduler;                 // slurm or k8s
    std::vector<std::string> ranks;        // absolute paths, natural order
    fs::path out;                          // absolute
    size_t per_task = 1, tasks = 0, max_running = 0;
    int width = 5;                         // digits of the partials' rank-NNNNN numbers
    std::string name = "sightline", cli, mem, time, cpus, partition, account;
    std::string image = std::string("sightline:") + SIGHTLINE_VERSION, claim = "sightline-traces", mount;
};

int usage_error(const std::string& msg)
{
    std::cerr << "sightline-cli scale-out: " << terminal_safe(msg) << "\nusage: sightline-cli " << kSynopsis
              << "\n(sightline-cli scale-out --help describes the options)\n";
    return kExitUsage;
}

int input_error(const std::string& msg)
{
    print_error("scale-out: " + msg);
    return kExitInput;
}

// A word for a POSIX shell: single-quoted, a ' inside as '\''.
std::string sh(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// A YAML scalar: a JSON string is a valid YAML double-quoted scalar.
std::string yq(const std::string& s) { return nlohmann::json(s).dump(); }

bool parse_count(const std::string& v, size_t lo, size_t hi, size_t& out)
{
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
        return false;
    out = std::stoul(v);
    return out >= lo && out <= hi;
}

std::string this_cli()
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string("sightline-cli") : exe.string();
}

// The longest folder holding every path.
fs::path common_parent(const std::vector<fs::path>& paths)
{
    fs::path common = paths.front();
    for (const auto& p : paths) {
        fs::path c;
        auto a = common.begin(), b = p.begin();
        for (; a != common.end() && b != p.end() && *a == *b; ++a, ++b)
            c /= *a;
        common = c;
    }
    return common.empty() ? fs::path("/") : common;
}

// The map of ranks first .. first+K-1 of the list, for a POSIX shell: `index` is the shell expression of the task's
// index ($SLURM_ARRAY_TASK_ID, $JOB_COMPLETION_INDEX).
std::string map_body(const Plan& p, const std::string& index)
{
    std::ostringstream s;
    s << "cli=" << sh(p.cli) << "\n"
      << "out=" << sh(p.out.string()) << "\n"
      << "per_task=" << p.per_task << "\n"
      << "total=" << p.ranks.size() << "\n"
      << "i=$((" << index << " * per_task))\n"
      << "end=$((i + per_task))\n"
      << "[ \"$end\" -le \"$total\" ] || end=$total\n"
      << "while [ \"$i\" -lt \"$end\" ]; do\n"
      << "  trace=$(sed -n \"$((i + 1))p\" \"$out/ranks.txt\")\n"
      << "  part=$(printf '%s/partials/rank-%0" << p.width << "d.partial.json.gz' \"$out\" \"$i\")\n"
      << "  echo \"rank file $((i + 1)) of $total: $trace -> $part\"\n"
      << "  \"$cli\" analyze \"$trace\" --partial -o \"$part\"\n"
      << "  i=$((i + 1))\n"
      << "done\n";
    return s.str();
}

// The reduce: every partial present (a task that wrote none fails the merge, naming the count), then merge.
std::string merge_body(const Plan& p)
{
    std::ostringstream s;
    s << "cli=" << sh(p.cli) << "\n"
      << "out=" << sh(p.out.string()) << "\n"
      << "total=" << p.ranks.size() << "\n"
      << "set -- \"$out\"/partials/rank-*.partial.json.gz\n"
      << "[ -e \"$1\" ] || set --\n"
      << "if [ \"$#\" -ne \"$total\" ]; then\n"
      << "  echo \"sightline merge: $# partials in $out/partials, expected $total\" >&2\n"
      << "  exit 2\n"
      << "fi\n"
      << "\"$cli\" merge \"$@\" --format json -o \"$out/merge.json\"\n"
      << "\"$cli\" merge \"$@\" -o \"$out/merge.txt\"\n"
      << "echo \"merged $total ranks: $out/merge.json, $out/merge.txt\"\n";
    return s.str();
}

std::string header(const Plan& p, const char* what)
{
    std::ostringstream s;
    s << "# Generated by sightline-cli " << SIGHTLINE_VERSION << " scale-out " << p.scheduler << ": " << what << "\n"
      << "# " << p.ranks.size() << " rank file(s) (" << p.out.string() << "/ranks.txt), " << p.tasks << " task(s) of "
      << p.per_task << " rank(s) each.\n";
    return s.str();
}

// The #SBATCH lines of the options given (the map and the merge job alike: the merge of many ranks needs memory too).
std::string site_lines(const Plan& p)
{
    std::string s;
    for (const auto& [option, value] : {std::pair<const char*, const std::string*>{"--cpus-per-task", &p.cpus},
                                        {"--mem", &p.mem}, {"--time", &p.time}, {"--partition", &p.partition},
                                        {"--account", &p.account}})
        if (!value->empty())
            s += std::string("#SBATCH ") + option + "=" + *value + "\n";
    return s;
}

std::string slurm_map(const Plan& p)
{
    std::ostringstream s;
    s << "#!/bin/sh\n"
      << header(p, "the map, one array task per chunk of ranks, each writing its ranks' partials")
      << "#SBATCH --job-name=" << p.name << "-map\n"
      << "#SBATCH --array=0-" << p.tasks - 1;
    if (p.max_running)
        s << "%" << p.max_running;
    s << "\n#SBATCH --ntasks=1\n"
      << "#SBATCH --output=" << p.out.string() << "/logs/map-%A_%a.out\n"
      << site_lines(p) << "set -eu\n" << map_body(p, "SLURM_ARRAY_TASK_ID");
    return s.str();
}

std::string slurm_merge(const Plan& p)
{
    std::ostringstream s;
    s << "#!/bin/sh\n"
      << header(p, "the merge, submitted with --dependency=afterok on the map's array job")
      << "#SBATCH --job-name=" << p.name << "-merge\n"
      << "#SBATCH --ntasks=1\n"
      << "#SBATCH --output=" << p.out.string() << "/logs/merge-%j.out\n"
      << site_lines(p) << "set -eu\n" << merge_body(p);
    return s.str();
}

// The script of a container, as a YAML block scalar indented by `indent` spaces.
std::string yaml_block(const std::string& script, int indent)
{
    std::string out = "|\n", pad(static_cast<size_t>(indent), ' ');
    std::istringstream in(script);
    for (std::string line; std::getline(in, line);)
        out += line.empty() ? "\n" : pad + line + "\n";
    return out;
}

std::string k8s_job(const Plan& p, bool map)
{
    std::ostringstream s;
    const std::string job = p.name + (map ? "-map" : "-merge");
    s << header(p, map ? "the map, an Indexed Job: the pod of index i maps ranks i*K .. i*K+K-1"
                       : "the merge, applied once the map Job is complete")
      << "apiVersion: batch/v1\n"
      << "kind: Job\n"
      << "metadata:\n"
      << "  name: " << yq(job) << "\n"
      << "  labels:\n"
      << "    app.kubernetes.io/name: sightline\n"
      << "    app.kubernetes.io/component: " << (map ? "map" : "merge") << "\n"
      << "spec:\n";
    if (map)
        s << "  completionMode: Indexed\n"
          << "  completions: " << p.tasks << "\n"
          << "  parallelism: " << (p.max_running ? std::min(p.max_running, p.tasks) : p.tasks) << "\n"
          << "  backoffLimit: " << std::max<size_t>(6, p.tasks) << "\n";
    else
        s << "  completions: 1\n"
          << "  parallelism: 1\n"
          << "  backoffLimit: 2\n";
    s << "  template:\n"
      << "    metadata:\n"
      << "      labels:\n"
      << "        app.kubernetes.io/name: sightline\n"
      << "        app.kubernetes.io/component: " << (map ? "map" : "merge") << "\n"
      << "    spec:\n"
      << "      restartPolicy: Never\n"
      << "      containers:\n"
      << "        - name: " << (map ? "map" : "merge") << "\n"
      << "          image: " << yq(p.image) << "\n"
      << "          command: [\"/bin/sh\", \"-c\"]\n"
      << "          args:\n"
      << "            - " << yaml_block("set -eu\n" + (map ? map_body(p, "JOB_COMPLETION_INDEX") : merge_body(p)), 14);
    if (map)
        s << "          env:\n"
          << "            - name: JOB_COMPLETION_INDEX\n"
          << "              valueFrom:\n"
          << "                fieldRef:\n"
          << "                  fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']\n";
    if (!p.mem.empty() || !p.cpus.empty()) {
        s << "          resources:\n"
          << "            requests:\n";
        if (!p.cpus.empty())
            s << "              cpu: " << yq(p.cpus) << "\n";
        if (!p.mem.empty())
            s << "              memory: " << yq(p.mem) << "\n";
        if (!p.mem.empty())
            s << "            limits:\n"
              << "              memory: " << yq(p.mem) << "\n";
    }
    s << "          volumeMounts:\n"
      << "            - name: traces\n"
      << "              mountPath: " << yq(p.mount) << "\n"
      << "      volumes:\n"
      << "        - name: traces\n"
      << "          persistentVolumeClaim:\n"
      << "            claimName: " << yq(p.claim) << "\n";
    return s.str();
}

void write_file(const fs::path& path, const std::string& text, bool executable)
{
    write_output(path.string(), text, {}, true);
    if (executable)
        fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                        fs::perm_options::add);
}

// DNS-1123 label (Kubernetes object names; Slurm job names take it too): lower-case letters, digits, '-'.
bool dns_label(const std::string& s)
{
    if (s.empty() || s.size() > 50 || s.front() == '-' || s.back() == '-')
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// A value that goes on an #SBATCH line or into a script unquoted: no space, quote, '%' or control character.
bool plain_word(const std::string& s)
{
    return std::none_of(s.begin(), s.end(), [](char c) {
        return static_cast<unsigned char>(c) <= ' ' || c == '"' || c == '\'' || c == '%' || c == '\\' || c == 0x7f;
    });
}

int run_scale_out(const std::vector<std::string>& argv)
{
    Args args;
    std::string error;
    const std::vector<std::string> value_opts = {"--ranks", "--out", "--max-array", "--ranks-per-task",
                                                 "--max-running", "--name", "--cli", "--mem", "--time", "--cpus",
                                                 "--partition", "--account", "--image", "--claim", "--mount"};
    if (!parse_args(argv, value_opts, {}, args, error))
        return usage_error(error);
    if (args.positional.size() != 1 || (args.positional[0] != "slurm" && args.positional[0] != "k8s"))
        return usage_error("give the scheduler: slurm or k8s");
    Plan p;
    p.scheduler = args.positional[0];
    const bool slurm = p.scheduler == "slurm";
    std::vector<std::string> globs;
    for (const auto& [name, value] : args.options)
        if (name == "--ranks")
            globs.push_back(value);
    if (globs.empty())
        return usage_error("--ranks GLOB is required (quote it: --ranks 'ranks/*.json.gz'; a folder works too)");
    const std::string out = args.value("--out");
    if (out.empty())
        return usage_error("--out DIR is required (on the file system the nodes share)");
    for (const char* o : {"--image", "--claim", "--mount"})
        if (slurm && args.has(o))
            return usage_error(std::string(o) + " is for k8s");
    for (const char* o : {"--partition", "--account", "--time"})
        if (!slurm && args.has(o))
            return usage_error(std::string(o) + " is for slurm");

    size_t max_array = slurm ? kSlurmDefaultMaxArray : kK8sMaxCompletions;
    if (args.has("--max-array") && !parse_count(args.value("--max-array"), 1, kK8sMaxCompletions * 10, max_array))
        return usage_error("--max-array needs a count of array tasks the site allows (Slurm: MaxArraySize), not '" +
                           args.value("--max-array") + "'");
    if (!slurm && max_array > kK8sMaxCompletions)
        return usage_error("--max-array: an Indexed Job has at most 100000 completions");
    size_t per_task = 0;
    if (args.has("--ranks-per-task") && !parse_count(args.value("--ranks-per-task"), 1, 1000000, per_task))
        return usage_error("--ranks-per-task needs a count >= 1, not '" + args.value("--ranks-per-task") + "'");
    if (args.has("--max-running") && !parse_count(args.value("--max-running"), 1, 1000000, p.max_running))
        return usage_error("--max-running needs a count >= 1, not '" + args.value("--max-running") + "'");
    p.name = args.value("--name", p.name);
    if (!dns_label(p.name))
        return usage_error("--name must be lower-case letters, digits and '-' (a Kubernetes name), not '" + p.name +
                           "'");
    p.cli = args.value("--cli", slurm ? this_cli() : std::string("sightline-cli"));
    p.mem = args.value("--mem");
    p.time = args.value("--time");
    p.cpus = args.value("--cpus");
    p.partition = args.value("--partition");
    p.account = args.value("--account");
    p.image = args.value("--image", p.image);
    p.claim = args.value("--claim", p.claim);
    for (const auto* v : {&p.mem, &p.time, &p.cpus, &p.partition, &p.account, &p.image, &p.claim})
        if (!plain_word(*v))
            return usage_error("'" + *v + "' holds a space, quote, '%' or control character");
    if (!slurm && !dns_label(p.claim))
        return usage_error("--claim must be a PersistentVolumeClaim's name, not '" + p.claim + "'");

    // The ranks: every file the globs name, absolute (the tasks run elsewhere), each once.
    try {
        for (const auto& g : globs)
            for (const auto& f : rank_files(g)) {
                std::error_code ec;
                if (!fs::is_regular_file(f, ec))
                    return input_error(f + ": no such rank file (--ranks takes a glob, a folder or a file)");
                const std::string a = fs::absolute(f).lexically_normal().string();
                if (a.find('\n') != std::string::npos)
                    return input_error(terminal_safe(a) + ": a rank file's name holds a newline (ranks.txt is one a line)");
                if (std::find(p.ranks.begin(), p.ranks.end(), a) == p.ranks.end())
                    p.ranks.push_back(a);
            }
    } catch (const TraceError& e) {
        print_error(std::string("scale-out --ranks: ") + e.what());
        return kExitInput;
    }
    // The output folder: made if missing, and written to before anything else is.
    p.out = fs::absolute(out).lexically_normal();
    if (p.out.has_filename() == false && p.out.has_parent_path())
        p.out = p.out.parent_path();
    if (!plain_word(p.out.string()))
        return input_error(p.out.string() + ": --out must be a path without spaces, quotes or '%' (it is written "
                                            "into #SBATCH lines and the scripts)");
    std::error_code ec;
    fs::create_directories(p.out / "partials", ec);
    if (!ec && slurm)
        fs::create_directories(p.out / "logs", ec);
    if (ec || access(p.out.c_str(), W_OK) != 0 || access((p.out / "partials").c_str(), W_OK) != 0)
        return input_error(p.out.string() + ": cannot write the output folder here (" +
                           (ec ? ec.message() : std::string("permission denied")) + ")");

    const size_t n = p.ranks.size();
    p.per_task = std::max(per_task, (n + max_array - 1) / max_array);
    p.tasks = (n + p.per_task - 1) / p.per_task;
    p.width = std::max(5, static_cast<int>(std::to_string(n - 1).size()));
    if (!slurm) {
        std::vector<fs::path> all(p.ranks.begin(), p.ranks.end());
        all.push_back(p.out);
        const fs::path common = common_parent(all);
        p.mount = args.value("--mount", common.string());
        const fs::path m = fs::path(p.mount).lexically_normal();
        for (const auto& f : all)
            if (f.lexically_relative(m).empty() || *f.lexically_relative(m).begin() == "..")
                return usage_error("--mount " + p.mount + " does not hold " + f.string() +
                                   " (the ranks and DIR must be on the mounted volume, at the same paths)");
    }

    std::string list;
    for (const auto& r : p.ranks)
        list += r + "\n";
    write_file(p.out / "ranks.txt", list, false);
    std::ostringstream cmd;
    cmd << "# sightline-cli scale-out " << p.scheduler << ": " << n << " ranks, " << p.tasks << " task(s) of "
        << p.per_task << " rank(s); partials in " << (p.out / "partials").string() << ", the merge in "
        << (p.out / "merge.json").string() << " and merge.txt\n";
    if (slurm) {
        const fs::path map = p.out / "sightline-map.sbatch", merge = p.out / "sightline-merge.sbatch";
        write_file(map, slurm_map(p), true);
        write_file(merge, slurm_merge(p), true);
        cmd << "# Submit: the map's job array, then the merge once every array task succeeded.\n"
            << "jobid=$(sbatch --parsable " << sh(map.string()) << ") && sbatch --dependency=afterok:\"${jobid%%;*}\" "
            << sh(merge.string()) << "\n";
    } else {
        const fs::path map = p.out / "sightline-map-job.yaml", merge = p.out / "sightline-merge-job.yaml";
        write_file(map, k8s_job(p, true), false);
        write_file(merge, k8s_job(p, false), false);
        cmd << "# Submit: the map's Indexed Job, then the merge Job once the map is complete.\n"
            << "kubectl apply -f " << sh(map.string()) << " && kubectl wait --for=condition=complete --timeout=24h job/"
            << p.name << "-map && kubectl apply -f " << sh(merge.string()) << "\n";
    }
    std::cout << text_output(cmd.str());
    return kExitOk;
}

const bool registered = register_command({"scale-out", kSynopsis, &run_scale_out});

} // namespace
} // namespace sl::cli

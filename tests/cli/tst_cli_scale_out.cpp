// sightline-cli scale-out (issue 38 §3): the Slurm job array and merge job, the Kubernetes Indexed Job and merge Job.
// The scripts are run here as the scheduler would run them (each array task / completion index with its variable
// set, then the merge) and their merge must equal `analyze` of the ranks' folder; the manifests pass the schema
// check of tests/cluster/check_k8s_job.py. The real Slurm run is tests/cluster/slurm-one-node.sh (CI).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/helpers.h"
#include "tests/support/merge_json.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sl::test::shell_quote;

namespace {

std::string cli() { return SIGHTLINE_CLI; }

int run(const std::string& args, std::string* out, bool merge = false)
{
    return sl::test::run_command(cli() + " " + args, out, merge);
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// 11 ranks of one job (rank 4 late by 10 us) as rank0 .. rank10.json.gz: natural order puts rank10 last.
std::string make_ranks(const std::string& name)
{
    const std::string dir = sl::test::scratch_dir(name) + "/ranks";
    std::filesystem::create_directories(dir);
    std::string out;
    for (int i = 0; i < 11; ++i)
        EXPECT_EQ(run("generate --rank " + std::to_string(i) + " --world-size 11 --straggler 4 --skew-us 10 --steps 4 "
                      "--layers 2 --quiet -o " + shell_quote(dir + "/rank" + std::to_string(i) + ".json.gz"),
                      &out, true), 0) << out;
    return dir;
}

json folder_merge(const std::string& dir)
{
    std::string out;
    EXPECT_EQ(run("analyze " + shell_quote(dir + "/") + " --format json", &out), 0) << out;
    return sl::test::merge_without_file_names(json::parse(out, nullptr, false));
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> v;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        v.push_back(l);
    return v;
}

} // namespace

TEST(CliScaleOut, SlurmArrayTasksMapTheirChunksThenTheMergeEqualsTheLocalRun)
{
    const std::string ranks = make_ranks("scale_out_slurm");
    const std::string job = ranks + "/../job";
    std::string printed;
    ASSERT_EQ(run("scale-out slurm --ranks " + shell_quote(ranks + "/rank*.json.gz") + " --out " + shell_quote(job) +
                  " --max-array 4 --partition gpu --mem 8G --time 00:30:00", &printed), 0) << printed;
    // Printed: the commands that submit, never run.
    EXPECT_NE(printed.find("jobid=$(sbatch --parsable "), std::string::npos) << printed;
    EXPECT_NE(printed.find("sbatch --dependency=afterok:\"${jobid%%;*}\" "), std::string::npos) << printed;

    // 11 ranks over a site limit of 4 array tasks: 3 ranks a task, indices 0-3; ranks.txt in natural order.
    const auto list = lines(slurp(job + "/ranks.txt"));
    ASSERT_EQ(list.size(), 11u);
    EXPECT_EQ(std::filesystem::path(list[2]).filename(), "rank2.json.gz");
    EXPECT_EQ(std::filesystem::path(list[10]).filename(), "rank10.json.gz");
    EXPECT_TRUE(std::filesystem::path(list[0]).is_absolute());
    const std::string map = slurp(job + "/sightline-map.sbatch");
    for (const char* line : {"#SBATCH --array=0-3\n", "per_task=3\n", "#SBATCH --partition=gpu\n", "#SBATCH --mem=8G\n",
                             "#SBATCH --time=00:30:00\n", "--partial -o \"$part\""})
        EXPECT_NE(map.find(line), std::string::npos) << line << "\n" << map;
    const std::string merge = slurp(job + "/sightline-merge.sbatch");
    EXPECT_EQ(merge.find("--array"), std::string::npos) << merge;

    // The merge before the map: it refuses, naming how many partials it found.
    std::string out;
    EXPECT_NE(sl::test::run_command("sh " + shell_quote(job + "/sightline-merge.sbatch"), &out, true), 0) << out;
    EXPECT_NE(out.find("0 partials"), std::string::npos) << out;

    // The array tasks as Slurm runs them, then the merge.
    for (int task = 0; task < 4; ++task)
        ASSERT_EQ(sl::test::run_command("SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " sh " +
                                            shell_quote(job + "/sightline-map.sbatch"), &out, true), 0) << out;
    EXPECT_TRUE(std::filesystem::exists(job + "/partials/rank-00010.partial.json.gz"));
    ASSERT_EQ(sl::test::run_command("sh " + shell_quote(job + "/sightline-merge.sbatch"), &out, true), 0) << out;
    const json merged = sl::test::merge_without_file_names(json::parse(slurp(job + "/merge.json"), nullptr, false));
    ASSERT_TRUE(merged.is_object());
    EXPECT_EQ(merged["world_size"], 11);
    EXPECT_EQ(merged["collectives"]["straggler_rank"], 4);
    EXPECT_EQ(merged, folder_merge(ranks));
    EXPECT_NE(slurp(job + "/merge.txt").find("rank 4 arrives last"), std::string::npos);
}

TEST(CliScaleOut, K8sManifestsAreAnIndexedJobAndAMergeJob)
{
    const std::string ranks = make_ranks("scale_out_k8s");
    const std::string job = ranks + "/../k8s";
    std::string printed;
    ASSERT_EQ(run("scale-out k8s --ranks " + shell_quote(ranks) + " --out " + shell_quote(job) + " --max-array 4 "
                  "--claim shared-traces --image registry.example/sightline:1 --mem 8Gi --cli " + shell_quote(cli()),
                  &printed), 0) << printed;
    EXPECT_NE(printed.find("kubectl apply -f "), std::string::npos) << printed;
    EXPECT_NE(printed.find("kubectl wait --for=condition=complete"), std::string::npos) << printed;
    const std::string map = slurp(job + "/sightline-map-job.yaml");
    EXPECT_NE(map.find("completions: 4\n"), std::string::npos) << map;
    EXPECT_NE(map.find("claimName: \"shared-traces\""), std::string::npos) << map;

    // Schema check, then each completion index's pod command run here, then the merge's.
    std::string out;
    const int rc = sl::test::run_command("python3 " + shell_quote(sl::test::source_dir() + "/tests/cluster/check_k8s_job.py") +
                                             " --run " + shell_quote(job + "/sightline-map-job.yaml") + " " +
                                             shell_quote(job + "/sightline-merge-job.yaml"), &out, true);
    if (rc == 77)
        GTEST_SKIP() << out;
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("Indexed Job of 4 completions"), std::string::npos) << out;
    const json merged = sl::test::merge_without_file_names(json::parse(slurp(job + "/merge.json"), nullptr, false));
    EXPECT_EQ(merged, folder_merge(ranks));

    // The checker is not blind: a NonIndexed map and a misspelt field fail it.
    std::string bad = map;
    bad.replace(bad.find("completionMode: Indexed"), 23, "completionMode: NonIndexed");
    bad.replace(bad.find("mountPath"), 9, "mountpath");
    std::ofstream(job + "/bad.yaml") << bad;
    EXPECT_EQ(sl::test::run_command("python3 " + shell_quote(sl::test::source_dir() + "/tests/cluster/check_k8s_job.py") +
                                        " " + shell_quote(job + "/bad.yaml") + " " +
                                        shell_quote(job + "/sightline-merge-job.yaml"), &out, true), 1) << out;
    EXPECT_NE(out.find("completionMode"), std::string::npos) << out;
    EXPECT_NE(out.find("mountpath: not a field of VolumeMount"), std::string::npos) << out;
}

TEST(CliScaleOut, BadInputIsAClearError)
{
    const std::string dir = sl::test::scratch_dir("scale_out_bad");
    std::ofstream(dir + "/rank0.json") << "{}";
    std::ofstream(dir + "/a-file") << "x";
    std::string out;
    // No file matches the glob: exit 2 naming it.
    EXPECT_EQ(run("scale-out slurm --ranks " + shell_quote(dir + "/nothing*.json") + " --out " + shell_quote(dir + "/o"),
                  &out, true), 2) << out;
    EXPECT_NE(out.find("nothing*.json"), std::string::npos) << out;
    EXPECT_NE(out.find("no file matches it"), std::string::npos) << out;
    // An output folder that cannot be made (under a file): exit 2 naming it.
    EXPECT_EQ(run("scale-out k8s --ranks " + shell_quote(dir + "/rank*.json") + " --out " +
                  shell_quote(dir + "/a-file/out"), &out, true), 2) << out;
    EXPECT_NE(out.find("a-file/out"), std::string::npos) << out;
    EXPECT_NE(out.find("cannot write"), std::string::npos) << out;
    // Usage errors.
    EXPECT_EQ(run("scale-out pbs --ranks x --out y", &out, true), 64) << out;
    EXPECT_EQ(run("scale-out slurm --out " + shell_quote(dir + "/o"), &out, true), 64) << out;
    EXPECT_EQ(run("scale-out slurm --ranks " + shell_quote(dir) + " --out " + shell_quote(dir + "/o") +
                  " --max-array 0", &out, true), 64) << out;
    EXPECT_EQ(run("scale-out k8s --ranks " + shell_quote(dir) + " --out " + shell_quote(dir + "/o") +
                  " --name Not_A_Name", &out, true), 64) << out;
    EXPECT_EQ(run("scale-out slurm --ranks " + shell_quote(dir) + " --out " + shell_quote(dir + "/o") +
                  " --image x", &out, true), 64) << out;
    EXPECT_FALSE(std::filesystem::exists(dir + "/o/ranks.txt"));
}

// The rank traces one argument names (analysis/io/rank_files.h, issue 38 §2–3): a folder's traces, a glob's files, in
// natural order; nothing matched is an error naming the argument.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analysis/io/rank_files.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

namespace fs = std::filesystem;

TEST(RankFiles, NaturalOrderComparesDigitRunsByValue)
{
    EXPECT_TRUE(sl::natural_less("rank2.json", "rank10.json"));
    EXPECT_FALSE(sl::natural_less("rank10.json", "rank2.json"));
    EXPECT_TRUE(sl::natural_less("rank9", "rank10"));
    EXPECT_TRUE(sl::natural_less("node1/rank7", "node2/rank0"));
    EXPECT_TRUE(sl::natural_less("r1", "r01"));   // equal values: fewer leading zeros first, a strict order
    EXPECT_FALSE(sl::natural_less("r01", "r1"));
    EXPECT_FALSE(sl::natural_less("a", "a"));
    EXPECT_TRUE(sl::natural_less("a", "ab"));
    EXPECT_TRUE(sl::natural_less("rank-00099", "rank-00100"));
}

TEST(RankFiles, AFolderItsTracesAGlobItsFiles)
{
    const std::string dir = sl::test::scratch_dir("rank_files");
    for (const char* name : {"rank10.json.gz", "rank2.json.gz", "rank1.sqlite", "rank3.json", "r.nsys-rep",
                             "rank2.partial.json", "rank2.partial.json.gz", ".hidden.json", "notes.txt"})
        std::ofstream(dir + "/" + name) << "x";
    fs::create_directories(dir + "/sub.json");   // a folder named like a trace is not one
    const auto in_folder = sl::rank_files(dir);
    std::vector<std::string> names;
    for (const auto& f : in_folder)
        names.push_back(fs::path(f).filename().string());
    EXPECT_EQ(names, (std::vector<std::string>{"r.nsys-rep", "rank1.sqlite", "rank2.json.gz", "rank3.json",
                                               "rank10.json.gz"}));
    EXPECT_TRUE(sl::names_rank_set(dir));

    const auto globbed = sl::rank_files(dir + "/rank*.json.gz");
    ASSERT_EQ(globbed.size(), 2u);   // rank2.partial.json.gz matches the glob but is a partial, not a trace
    EXPECT_EQ(fs::path(globbed[0]).filename(), "rank2.json.gz");
    EXPECT_EQ(fs::path(globbed[1]).filename(), "rank10.json.gz");
    EXPECT_TRUE(sl::names_rank_set(dir + "/rank*.json.gz"));
    EXPECT_FALSE(sl::names_rank_set(dir + "/rank3.json"));
    EXPECT_EQ(sl::rank_files(dir + "/rank3.json"), std::vector<std::string>{dir + "/rank3.json"});

    try {
        sl::rank_files(dir + "/none*.json");
        ADD_FAILURE() << "a glob matching nothing must throw";
    } catch (const sl::TraceError& e) {
        EXPECT_EQ(e.file(), dir + "/none*.json");
        EXPECT_EQ(e.found(), "no file matches it");
    }
    try {
        sl::rank_files(dir + "/sub*");
        ADD_FAILURE() << "a glob matching only folders must throw";
    } catch (const sl::TraceError& e) {
        EXPECT_EQ(e.found(), "only folders match it");
    }
    const std::string empty = sl::test::scratch_dir("rank_files_empty");
    EXPECT_THROW(sl::rank_files(empty), sl::TraceError);
}

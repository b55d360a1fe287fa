// Opening the knowledge base: reading commands open it read-only (a read-only file or file system still lists,
// and reading creates nothing), a path whose directory does not exist is an error (no mkdir -p of a typo), and a
// file that is not a knowledge base is refused with a sentence, never SQL text, and left exactly as it was.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/diagnosis/knowledge_base.h"
#include "tests/support/test_env.h"

using namespace sl;
namespace fs = std::filesystem;

namespace {

const std::string& dir()
{
    static const std::string d = test::scratch_dir("kb_open");
    return d;
}

std::string slurp(const std::string& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string error_of(const std::string& path, KnowledgeBase::Access access)
{
    try {
        KnowledgeBase kb(path, access);
    } catch (const KbError& e) {
        return e.what();
    }
    return {};
}

void expect_no_sql(const std::string& msg)
{
    for (const char* sql : {"SELECT", "PRAGMA", "CREATE", "prepare", "sqlite_master"})
        EXPECT_EQ(msg.find(sql), std::string::npos) << msg;
}

} // namespace

TEST(KbOpen, MissingDirectoryIsAnErrorAndNothingIsCreated)
{
    const std::string typo = dir() + "/no/such/dir/k.db";
    for (auto access : {KnowledgeBase::Access::ReadWrite, KnowledgeBase::Access::ReadOnly}) {
        const std::string msg = error_of(typo, access);
        EXPECT_NE(msg.find("the directory " + dir() + "/no/such/dir does not exist"), std::string::npos) << msg;
        expect_no_sql(msg);
    }
    EXPECT_FALSE(fs::exists(dir() + "/no"));
}

TEST(KbOpen, ReadingCreatesNothing)
{
    const std::string path = dir() + "/never.db";
    fs::remove(path);
    KnowledgeBase kb(path, KnowledgeBase::Access::ReadOnly);
    EXPECT_TRUE(kb.read_only());
    EXPECT_TRUE(kb.suggestions().empty());
    EXPECT_TRUE(kb.verifications().empty());
    EXPECT_FALSE(fs::exists(path));
}

TEST(KbOpen, ReadOnlyReadsWhatWasWrittenAndWritesNothing)
{
    const std::string path = dir() + "/kb.db";
    fs::remove(path);
    int64_t run = 0;
    {
        KnowledgeBase kb(path);
        RunRecord r;
        r.trace_path = "t.sqlite";
        r.trace_hash = "abc";
        run = kb.record_run(r);
    }
    const std::string before = slurp(path);
    KnowledgeBase ro(path, KnowledgeBase::Access::ReadOnly);
    EXPECT_TRUE(ro.read_only());
    ASSERT_TRUE(ro.find_run_by_hash("abc"));
    EXPECT_EQ(ro.find_run_by_hash("abc")->id, run);
    RunRecord other;
    other.trace_hash = "def";
    EXPECT_THROW(ro.record_run(other), KbError);
    EXPECT_EQ(slurp(path), before);
}

TEST(KbOpen, AForeignDatabaseIsRefusedWithASentenceAndLeftAsItWas)
{
    const std::string path = dir() + "/foreign.sqlite";
    fs::remove(path);
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE StringIds(id INTEGER, value TEXT); INSERT INTO StringIds VALUES(1,'x');",
                               nullptr, nullptr, nullptr),
                  SQLITE_OK);
        sqlite3_close(db);
    }
    const std::string before = slurp(path);
    for (auto access : {KnowledgeBase::Access::ReadWrite, KnowledgeBase::Access::ReadOnly}) {
        const std::string msg = error_of(path, access);
        EXPECT_NE(msg.find(path + " is not a Sightline knowledge base: it is an SQLite database with other tables "
                                  "(StringIds)"),
                  std::string::npos)
            << msg;
        expect_no_sql(msg);
    }
    EXPECT_EQ(slurp(path), before) << "the foreign database was changed (journal mode, tables)";
    EXPECT_FALSE(fs::exists(path + "-wal"));

    const std::string text = dir() + "/notes.txt";
    std::ofstream(text) << "these are my notes, not a database\n";
    const std::string msg = error_of(text, KnowledgeBase::Access::ReadWrite);
    EXPECT_NE(msg.find(text + " is not a Sightline knowledge base: it is not an SQLite database"), std::string::npos) << msg;
    expect_no_sql(msg);
    EXPECT_EQ(slurp(text), "these are my notes, not a database\n");
}

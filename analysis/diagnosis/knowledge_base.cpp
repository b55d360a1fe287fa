#include "analysis/diagnosis/knowledge_base.h"
#include "analysis/diagnosis/kb_disk_full.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "analysis/critpath/whatif.h"
#include "analysis/io/output_file.h"
#include "analysis/io/sqlite_uri.h"
#include "analysis/io/json_input.h"

namespace sl {

namespace fs = std::filesystem;
using nlohmann::json;

const char* suggestion_state_name(SuggestionState s)
{
    switch (s) {
    case SuggestionState::Proposed: return "proposed";
    case SuggestionState::Accepted: return "accepted";
    case SuggestionState::Rejected: return "rejected";
    case SuggestionState::Verified: return "verified";
    case SuggestionState::Failed: return "failed";
    }
    return "proposed";
}

std::optional<SuggestionState> parse_suggestion_state(std::string_view s)
{
    for (auto st : {SuggestionState::Proposed, SuggestionState::Accepted, SuggestionState::Rejected,
                    SuggestionState::Verified, SuggestionState::Failed})
        if (s == suggestion_state_name(st))
            return st;
    return std::nullopt;
}

std::string KnowledgeBase::default_path()
{
    fs::path base;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
        base = x;
    else if (const char* h = std::getenv("HOME"); h && *h)
        base = fs::path(h) / ".local" / "share";
    else
        base = fs::temp_directory_path();
    return (base / "sightline" / "knowledge.db").string();
}

static int64_t now_s()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {

// A failure of SQLite on db (result code rc) that was a full disk: SQLITE_FULL, or an I/O error whose system error
// says so (the -shm file of the WAL that cannot grow is an I/O error, not SQLITE_FULL).
bool disk_full(sqlite3* db, int rc)
{
    if ((rc & 0xFF) == SQLITE_FULL)
        return true;
    const int e = db ? sqlite3_system_errno(db) : 0;
    return (rc & 0xFF) == SQLITE_IOERR && (e == ENOSPC || e == EDQUOT);
}

// The error to throw for rc on db: KbDiskFull (exit 4 on the command line) when the disk is full, else KbError.
[[noreturn]] void throw_kb(sqlite3* db, int rc, const std::string& path, const std::string& message)
{
    if (disk_full(db, rc))
        throw KbDiskFull(path + ": cannot write the knowledge base: " + std::strerror(ENOSPC) + " (" + message + ")");
    throw KbError(path + ": " + message);
}

// A prepared statement with positional binding helpers.
class Stmt {
public:
    Stmt(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path)
    {
        if (const int rc = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr); rc != SQLITE_OK)
            throw_kb(db, rc, path, std::string("cannot prepare '") + sql + "': " + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(st_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); return *this; }
    Stmt& bind(int i, double v) { sqlite3_bind_double(st_, i, v); return *this; }
    Stmt& bind(int i, const std::string& v)
    {
        sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt& bind_null(int i) { sqlite3_bind_null(st_, i); return *this; }
    void reset()
    {
        sqlite3_reset(st_);
        sqlite3_clear_bindings(st_);
    }
    // Returns true while a row is available.
    bool step()
    {
        const int rc = sqlite3_step(st_);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        throw_kb(db_, rc, path_, sqlite3_errmsg(db_));
    }
    void run()
    {
        while (step()) {
        }
    }
    int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
    double dbl(int c) const { return sqlite3_column_double(st_, c); }
    bool null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
    std::string text(int c) const
    {
        const auto* p = sqlite3_column_text(st_, c);
        return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(st_, c)))
                 : std::string();
    }

private:
    sqlite3* db_;
    sqlite3_stmt* st_ = nullptr;
    std::string path_;
};

void exec(sqlite3* db, const std::string& sql, const std::string& path)
{
    char* err = nullptr;
    if (const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err); rc != SQLITE_OK) {
        std::string m = err ? err : "unknown error";
        sqlite3_free(err);
        throw_kb(db, rc, path, m + " (in: " + sql.substr(0, 80) + ")");
    }
}

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed without commit().
class Tx {
public:
    Tx(sqlite3* db, const std::string& path) : db_(db), path_(path) { exec(db, "BEGIN IMMEDIATE", path); }
    ~Tx()
    {
        if (!done_)
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit()
    {
        exec(db_, "COMMIT", path_);
        done_ = true;
    }

private:
    sqlite3* db_;
    std::string path_;
    bool done_ = false;
};

// Migration steps: steps[i] takes the schema from version i to i + 1.
const char* const kMigrations[] = {
    // 0 -> 1: the first schema.
    R"(CREATE TABLE environments(id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, gpu TEXT, driver TEXT, cuda TEXT,
                                 libraries_json TEXT, model_hash TEXT, batch INTEGER, seq_len INTEGER,
                                 created_at INTEGER);
       CREATE TABLE runs(id INTEGER PRIMARY KEY, trace_path TEXT, trace_hash TEXT, recorded_at INTEGER,
                         env_id INTEGER REFERENCES environments(id), metrics_json TEXT);
       CREATE TABLE findings(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), rule TEXT,
                             verdict TEXT, severity TEXT, subject TEXT, expected_gain REAL, confidence REAL, json TEXT);
       CREATE TABLE suggestions(id INTEGER PRIMARY KEY, finding_id INTEGER REFERENCES findings(id),
                                run_id INTEGER REFERENCES runs(id), key TEXT NOT NULL, text TEXT,
                                state TEXT NOT NULL DEFAULT 'proposed', updated_at INTEGER);
       CREATE TABLE verifications(id INTEGER PRIMARY KEY, suggestion_id INTEGER, suggestion_key TEXT,
                                  before_run INTEGER REFERENCES runs(id), after_run INTEGER REFERENCES runs(id),
                                  metric TEXT, before_value REAL, after_value REAL, delta REAL, verdict TEXT,
                                  recorded_at INTEGER);
       CREATE INDEX runs_hash ON runs(trace_hash);
       CREATE INDEX findings_run ON findings(run_id);
       CREATE INDEX suggestions_run ON suggestions(run_id);)",
    // 1 -> 2: the user's annotation and the promised metric on suggestions; per-operator measurements.
    R"(ALTER TABLE suggestions ADD COLUMN annotation TEXT NOT NULL DEFAULT '';
       ALTER TABLE suggestions ADD COLUMN metric TEXT NOT NULL DEFAULT '';
       ALTER TABLE suggestions ADD COLUMN direction TEXT NOT NULL DEFAULT '';
       CREATE TABLE operator_measurements(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
                                          name TEXT, op_class TEXT, count INTEGER, total_ns INTEGER, avg_ns REAL,
                                          e_roof REAL);
       CREATE INDEX ops_run ON operator_measurements(run_id);
       CREATE INDEX verifications_key ON verifications(suggestion_key);)",
    // 2 -> 3: what the what-if replay of the suggestion's change predicted, and how far off it was (issue 35 §4).
    // Older rows keep NULL (no prediction) and '' (no change).
    R"(ALTER TABLE verifications ADD COLUMN whatif_change TEXT NOT NULL DEFAULT '';
       ALTER TABLE verifications ADD COLUMN predicted_value REAL;
       ALTER TABLE verifications ADD COLUMN prediction_error REAL;)",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == KnowledgeBase::kSchemaVersion);

json metrics_json(const std::map<std::string, double>& m)
{
    json j = json::object();
    for (const auto& [k, v] : m)
        if (std::isfinite(v))
            j[k] = v;
    return j;
}

std::map<std::string, double> metrics_from(const std::string& s)
{
    std::map<std::string, double> m;
    if (s.empty())
        return m;
    const json j = parse_json_lenient(s);
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.value().is_number())
                m[it.key()] = it.value().get<double>();
    return m;
}

} // namespace

KnowledgeBase::KnowledgeBase(const std::string& path, int busy_timeout_ms)
    : KnowledgeBase(path, Access::ReadWrite, busy_timeout_ms)
{
}

void KnowledgeBase::open_file(int flags, bool uri)
{
    const std::string name = uri ? sqlite_file_uri(path_, "immutable=1") : path_;
    if (sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_FULLMUTEX | (uri ? SQLITE_OPEN_URI : 0), nullptr) !=
        SQLITE_OK) {
        std::string m = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw KbError(path_ + ": cannot open the knowledge base (" + m + ")");
    }
}

int KnowledgeBase::check_schema()
{
    // Read without the statement helpers, whose messages quote SQL: these are the user's first words about a file
    // that may be anything.
    std::vector<std::string> tables;
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v2(db_, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'",
                                -1, &st, nullptr);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const auto* t = sqlite3_column_text(st, 0);
        tables.emplace_back(t ? reinterpret_cast<const char*>(t) : "");
        rc = SQLITE_OK;
    }
    const int code = rc & 0xFF;
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
            throw KbError(path_ + " is not a Sightline knowledge base: it is not an SQLite database (or it is damaged)");
        if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
            throw KbError(path_ + ": the knowledge base is locked by another program; try again when it is done");
        if (disk_full(db_, rc))
            throw_kb(db_, rc, path_, sqlite3_errstr(rc));
        throw KbError(path_ + ": the knowledge base cannot be read (" + sqlite3_errstr(rc) + ")");
    }
    int version = 0;
    if (sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    const auto has = [&](const char* t) { return std::find(tables.begin(), tables.end(), t) != tables.end(); };
    const bool ours = has("environments") && has("runs") && has("findings") && has("suggestions") && has("verifications");
    if ((version == 0 && !tables.empty()) || (version > 0 && !ours)) {
        std::string list;
        for (size_t i = 0; i < tables.size() && i < 5; ++i)
            list += (i ? ", " : "") + tables[i];
        if (tables.size() > 5)
            list += ", ... (" + std::to_string(tables.size()) + " tables)";
        throw KbError(path_ + " is not a Sightline knowledge base: it is an SQLite database " +
                      (tables.empty() ? std::string("without tables") : "with other tables (" + list + ")") +
                      "; give --kb a new file name or the knowledge.db Sightline created");
    }
    return version;
}

KnowledgeBase::KnowledgeBase(const std::string& path, Access access, int busy_timeout_ms)
    : path_(path), read_only_(access == Access::ReadOnly)
{
    // No output of this process may replace it (output_file.h), whichever option named it.
    if (path != ":memory:" && path.rfind("file:", 0) != 0)
        protect_output_path(path, "the knowledge base in use");
    std::error_code ec;
    const fs::path parent = fs::path(path).parent_path();
    const bool is_default = path == default_path();
    if (!parent.empty() && !fs::is_directory(parent, ec)) {
        if (fs::exists(parent, ec))
            throw KbError(path + ": cannot open the knowledge base: " + parent.string() + " is not a directory");
        if (!is_default)
            throw KbError(path + ": cannot open the knowledge base: the directory " + parent.string() +
                          " does not exist (a knowledge base is only created in a directory that exists)");
        if (!read_only_)
            fs::create_directories(parent, ec);   // the default place, which the user did not type
    }
    const bool exists = fs::exists(path, ec);
    if (read_only_ && !exists) {
        // Nothing recorded yet: an empty knowledge base in memory; reading creates no file.
        if (sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
            sqlite3_close(db_);
            db_ = nullptr;
            throw KbError(path + ": cannot open an empty knowledge base in memory");
        }
        migrate();
        return;
    }
    if (exists && fs::is_directory(path, ec))
        throw KbError(path + " is a directory, not a knowledge base file");
    try {
        if (read_only_) {
            open_file(SQLITE_OPEN_READONLY, false);
            sqlite3_busy_timeout(db_, busy_timeout_ms);
            int version = 0;
            try {
                version = check_schema();
            } catch (const KbError&) {
                // A WAL database in a directory this user cannot write has no -shm to share: read it as it is.
                sqlite3_close(db_);
                db_ = nullptr;
                open_file(SQLITE_OPEN_READONLY, true);
                version = check_schema();
            }
            if (version > kSchemaVersion)
                throw KbError(path_ + ": knowledge base schema version " + std::to_string(version) +
                              " is newer than this build (" + std::to_string(kSchemaVersion) + "); update Sightline");
            if (version == kSchemaVersion)
                return;
            // An older schema (or an empty file) must be migrated, which needs write access.
            if (::access(path.c_str(), W_OK) != 0)
                throw KbError(path_ + ": the knowledge base has schema version " + std::to_string(version) +
                              " and cannot be upgraded to " + std::to_string(kSchemaVersion) +
                              " because it is read-only here");
            sqlite3_close(db_);
            db_ = nullptr;
            read_only_ = false;
        }
        open_file(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, false);
        sqlite3_busy_timeout(db_, busy_timeout_ms);
        if (sqlite3_db_readonly(db_, "main") == 1)
            throw KbError(path_ + ": the knowledge base cannot be written (a read-only file or file system); "
                                  "commands that only read it (kb list, kb history) still work");
        check_schema();   // before anything is written: a foreign database is left exactly as it was
        {
            Stmt wal(db_, "PRAGMA journal_mode=WAL", path_);
            if (wal.step() && wal.text(0) != "wal")
                throw KbError(path_ + ": cannot switch to WAL (journal mode " + wal.text(0) + ")");
        }
        exec(db_, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON", path_);
        migrate();
    } catch (...) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw;
    }
}

KnowledgeBase::~KnowledgeBase()
{
    if (db_)
        sqlite3_close(db_);
}

int KnowledgeBase::schema_version() const
{
    Stmt s(db_, "PRAGMA user_version", path_);
    s.step();
    return static_cast<int>(s.i64(0));
}

void KnowledgeBase::migrate()
{
    if (schema_version() == kSchemaVersion)
        return;
    Tx tx(db_, path_);
    int v = schema_version();   // re-read under the write lock: another process may have migrated meanwhile
    if (v > kSchemaVersion)
        throw KbError(path_ + ": knowledge base schema version " + std::to_string(v) + " is newer than this build (" +
                      std::to_string(kSchemaVersion) + "); update Sightline");
    for (; v < kSchemaVersion; ++v)
        exec(db_, kMigrations[v], path_);
    exec(db_, "PRAGMA user_version = " + std::to_string(kSchemaVersion), path_);
    tx.commit();
}

int64_t KnowledgeBase::upsert_environment(const EnvFingerprint& env)
{
    Tx tx(db_, path_);
    json libs = env.libraries;
    Stmt ins(db_,
             "INSERT INTO environments(key, gpu, driver, cuda, libraries_json, model_hash, batch, seq_len, created_at) "
             "VALUES(?,?,?,?,?,?,?,?,?) ON CONFLICT(key) DO NOTHING",
             path_);
    ins.bind(1, env.key()).bind(2, env.gpu).bind(3, env.driver).bind(4, env.cuda).bind(5, libs.dump())
        .bind(6, env.model_hash).bind(7, env.batch).bind(8, env.seq_len).bind(9, now_s());
    ins.run();
    Stmt q(db_, "SELECT id FROM environments WHERE key = ?", path_);
    q.bind(1, env.key());
    if (!q.step())
        throw KbError(path_ + ": environment row vanished");
    const int64_t id = q.i64(0);
    tx.commit();
    return id;
}

std::optional<EnvFingerprint> KnowledgeBase::environment(int64_t env_id) const
{
    Stmt q(db_, "SELECT gpu, driver, cuda, libraries_json, model_hash, batch, seq_len FROM environments WHERE id = ?",
           path_);
    q.bind(1, env_id);
    if (!q.step())
        return std::nullopt;
    EnvFingerprint e;
    e.gpu = q.text(0);
    e.driver = q.text(1);
    e.cuda = q.text(2);
    const json libs = parse_json_lenient(q.text(3));
    if (libs.is_object())
        for (auto it = libs.begin(); it != libs.end(); ++it)
            if (it.value().is_string())
                e.libraries[it.key()] = it.value().get<std::string>();
    e.model_hash = q.text(4);
    e.batch = q.i64(5);
    e.seq_len = q.i64(6);
    return e;
}

int64_t KnowledgeBase::record_run(const RunRecord& run, const std::vector<OperatorMeasurement>& ops,
                                  const std::vector<Finding>& findings)
{
    Tx tx(db_, path_);
    const int64_t id = insert_run(run, ops, findings);
    tx.commit();
    return id;
}

int64_t KnowledgeBase::find_or_record_run(const RunRecord& run, const std::vector<OperatorMeasurement>& ops,
                                          const std::vector<Finding>& findings)
{
    // The lookup and the insert share one write transaction (BEGIN IMMEDIATE): a second instance doing the same
    // waits for this one and then finds its run.
    Tx tx(db_, path_);
    if (!run.trace_hash.empty())
        if (auto existing = find_run_by_hash(run.trace_hash)) {
            tx.commit();
            return existing->id;
        }
    const int64_t id = insert_run(run, ops, findings);
    tx.commit();
    return id;
}

int64_t KnowledgeBase::insert_run(const RunRecord& run, const std::vector<OperatorMeasurement>& ops,
                                  const std::vector<Finding>& findings)
{
    Stmt ins(db_, "INSERT INTO runs(trace_path, trace_hash, recorded_at, env_id, metrics_json) VALUES(?,?,?,?,?)",
             path_);
    ins.bind(1, run.trace_path).bind(2, run.trace_hash).bind(3, run.recorded_at ? run.recorded_at : now_s());
    if (run.env_id)
        ins.bind(4, run.env_id);
    else
        ins.bind_null(4);
    ins.bind(5, metrics_json(run.metrics).dump());
    ins.run();
    const int64_t run_id = sqlite3_last_insert_rowid(db_);

    Stmt op(db_, "INSERT INTO operator_measurements(run_id, name, op_class, count, total_ns, avg_ns, e_roof) "
                 "VALUES(?,?,?,?,?,?,?)",
            path_);
    for (const auto& o : ops) {
        op.reset();
        auto& one = op;
        one.bind(1, run_id).bind(2, o.name).bind(3, o.op_class).bind(4, o.count).bind(5, o.total_ns).bind(6, o.avg_ns);
        if (o.e_roof)
            one.bind(7, *o.e_roof);
        else
            one.bind_null(7);
        one.run();
    }
    for (const auto& f : findings) {
        Stmt fi(db_, "INSERT INTO findings(run_id, rule, verdict, severity, subject, expected_gain, confidence, json) "
                     "VALUES(?,?,?,?,?,?,?,?)",
                path_);
        fi.bind(1, run_id).bind(2, f.rule).bind(3, f.verdict).bind(4, std::string(severity_name(f.severity)))
            .bind(5, f.subject).bind(6, f.expected_gain.fraction).bind(7, f.confidence.value)
            .bind(8, finding_to_json(f).dump());
        fi.run();
        const int64_t finding_id = sqlite3_last_insert_rowid(db_);
        for (const auto& s : f.suggestions) {
            Stmt si(db_, "INSERT INTO suggestions(finding_id, run_id, key, text, metric, direction, state, updated_at) "
                         "VALUES(?,?,?,?,?,?,'proposed',?)",
                    path_);
            si.bind(1, finding_id).bind(2, run_id).bind(3, f.rule + "/" + s.id).bind(4, s.text.en).bind(5, s.metric)
                .bind(6, s.direction).bind(7, now_s());
            si.run();
        }
    }
    return run_id;
}

static RunRecord read_run(const Stmt& q)
{
    RunRecord r;
    r.id = q.i64(0);
    r.trace_path = q.text(1);
    r.trace_hash = q.text(2);
    r.recorded_at = q.i64(3);
    r.env_id = q.i64(4);
    r.metrics = metrics_from(q.text(5));
    return r;
}

std::optional<RunRecord> KnowledgeBase::run(int64_t id) const
{
    Stmt q(db_, "SELECT id, trace_path, trace_hash, recorded_at, env_id, metrics_json FROM runs WHERE id = ?", path_);
    q.bind(1, id);
    if (!q.step())
        return std::nullopt;
    return read_run(q);
}

std::optional<RunRecord> KnowledgeBase::find_run_by_hash(const std::string& hash) const
{
    Stmt q(db_, "SELECT id, trace_path, trace_hash, recorded_at, env_id, metrics_json FROM runs WHERE trace_hash = ? "
                "ORDER BY id DESC LIMIT 1",
           path_);
    q.bind(1, hash);
    if (!q.step())
        return std::nullopt;
    return read_run(q);
}

std::vector<RunRecord> KnowledgeBase::runs() const
{
    Stmt q(db_, "SELECT id, trace_path, trace_hash, recorded_at, env_id, metrics_json FROM runs ORDER BY id", path_);
    std::vector<RunRecord> out;
    while (q.step())
        out.push_back(read_run(q));
    return out;
}

int64_t KnowledgeBase::count(const std::string& table) const
{
    static const char* const allowed[] = {"environments", "runs", "operator_measurements", "findings", "suggestions",
                                          "verifications"};
    bool ok = false;
    for (const char* a : allowed)
        ok |= table == a;
    if (!ok)
        throw KbError("unknown knowledge-base table '" + table + "'");
    Stmt q(db_, ("SELECT count(*) FROM " + table).c_str(), path_);
    q.step();
    return q.i64(0);
}

std::vector<OperatorMeasurement> KnowledgeBase::operator_measurements(int64_t run_id) const
{
    Stmt q(db_, "SELECT name, op_class, count, total_ns, avg_ns, e_roof FROM operator_measurements WHERE run_id = ? "
                "ORDER BY total_ns DESC",
           path_);
    q.bind(1, run_id);
    std::vector<OperatorMeasurement> out;
    while (q.step()) {
        OperatorMeasurement o;
        o.name = q.text(0);
        o.op_class = q.text(1);
        o.count = q.i64(2);
        o.total_ns = q.i64(3);
        o.avg_ns = q.dbl(4);
        if (!q.null(5))
            o.e_roof = q.dbl(5);
        out.push_back(std::move(o));
    }
    return out;
}

std::vector<SuggestionRecord> KnowledgeBase::suggestions(std::optional<int64_t> run_id,
                                                        std::optional<SuggestionState> state) const
{
    std::string sql = "SELECT s.id, s.finding_id, s.run_id, s.key, s.text, s.metric, s.direction, s.state, "
                      "s.annotation, s.updated_at, f.subject FROM suggestions s LEFT JOIN findings f ON f.id = "
                      "s.finding_id WHERE 1";
    if (run_id)
        sql += " AND s.run_id = ?1";
    if (state)
        sql += " AND s.state = ?2";
    sql += " ORDER BY s.id";
    Stmt q(db_, sql.c_str(), path_);
    if (run_id)
        q.bind(1, *run_id);
    if (state)
        q.bind(2, std::string(suggestion_state_name(*state)));
    std::vector<SuggestionRecord> out;
    while (q.step()) {
        SuggestionRecord r;
        r.id = q.i64(0);
        r.finding_id = q.i64(1);
        r.run_id = q.i64(2);
        r.key = q.text(3);
        r.text = q.text(4);
        r.metric = q.text(5);
        r.direction = q.text(6);
        r.state = parse_suggestion_state(q.text(7)).value_or(SuggestionState::Proposed);
        r.annotation = q.text(8);
        r.updated_at = q.i64(9);
        r.subject = q.text(10);
        out.push_back(std::move(r));
    }
    return out;
}

void KnowledgeBase::set_suggestion_state(int64_t id, SuggestionState state, const std::optional<std::string>& annotation)
{
    Tx tx(db_, path_);
    Stmt u(db_, annotation ? "UPDATE suggestions SET state = ?1, updated_at = ?2, annotation = ?3 WHERE id = ?4"
                           : "UPDATE suggestions SET state = ?1, updated_at = ?2 WHERE id = ?4",
           path_);
    u.bind(1, std::string(suggestion_state_name(state))).bind(2, now_s()).bind(4, id);
    if (annotation)
        u.bind(3, *annotation);
    u.run();
    if (sqlite3_changes(db_) != 1)
        throw KbError(path_ + ": no suggestion with id " + std::to_string(id));
    tx.commit();
}

void KnowledgeBase::set_suggestion_annotation(int64_t id, const std::string& annotation)
{
    Tx tx(db_, path_);
    Stmt u(db_, "UPDATE suggestions SET annotation = ?1, updated_at = ?2 WHERE id = ?3", path_);
    u.bind(1, annotation).bind(2, now_s()).bind(3, id);
    u.run();
    if (sqlite3_changes(db_) != 1)
        throw KbError(path_ + ": no suggestion with id " + std::to_string(id));
    tx.commit();
}

int64_t KnowledgeBase::record_verification(const VerificationRecord& v)
{
    Tx tx(db_, path_);
    Stmt ins(db_, "INSERT INTO verifications(suggestion_id, suggestion_key, before_run, after_run, metric, before_value, "
                  "after_value, delta, verdict, recorded_at, whatif_change, predicted_value, prediction_error) "
                  "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
             path_);
    if (v.suggestion_id)
        ins.bind(1, v.suggestion_id);
    else
        ins.bind_null(1);
    ins.bind(2, v.suggestion_key);
    if (v.before_run)
        ins.bind(3, v.before_run);
    else
        ins.bind_null(3);
    if (v.after_run)
        ins.bind(4, v.after_run);
    else
        ins.bind_null(4);
    ins.bind(5, v.metric).bind(6, v.before_value).bind(7, v.after_value).bind(8, v.delta).bind(9, v.verdict)
        .bind(10, v.recorded_at ? v.recorded_at : now_s()).bind(11, v.change);
    for (const auto& [col, value] : {std::pair{12, &v.predicted_value}, std::pair{13, &v.prediction_error}}) {
        if (*value && std::isfinite(**value))
            ins.bind(col, **value);
        else
            ins.bind_null(col);
    }
    ins.run();
    const int64_t id = sqlite3_last_insert_rowid(db_);
    if (v.suggestion_id && (v.verdict == "verified" || v.verdict == "failed")) {
        Stmt u(db_, "UPDATE suggestions SET state = ?1, updated_at = ?2 WHERE id = ?3", path_);
        u.bind(1, v.verdict).bind(2, now_s()).bind(3, v.suggestion_id);
        u.run();
    }
    tx.commit();
    return id;
}

std::vector<VerificationRecord> KnowledgeBase::verifications(const std::string& key) const
{
    std::string sql = "SELECT id, suggestion_id, suggestion_key, before_run, after_run, metric, before_value, "
                      "after_value, delta, verdict, recorded_at, whatif_change, predicted_value, prediction_error "
                      "FROM verifications";
    if (!key.empty())
        sql += " WHERE suggestion_key = ?1";
    sql += " ORDER BY id";
    Stmt q(db_, sql.c_str(), path_);
    if (!key.empty())
        q.bind(1, key);
    std::vector<VerificationRecord> out;
    while (q.step()) {
        VerificationRecord v;
        v.id = q.i64(0);
        v.suggestion_id = q.i64(1);
        v.suggestion_key = q.text(2);
        v.before_run = q.i64(3);
        v.after_run = q.i64(4);
        v.metric = q.text(5);
        v.before_value = q.dbl(6);
        v.after_value = q.dbl(7);
        v.delta = q.dbl(8);
        v.verdict = q.text(9);
        v.recorded_at = q.i64(10);
        v.change = q.text(11);
        if (!q.null(12))
            v.predicted_value = q.dbl(12);
        if (!q.null(13))
            v.prediction_error = q.dbl(13);
        out.push_back(std::move(v));
    }
    return out;
}

std::optional<SuggestionHistory> KnowledgeBase::history(const std::string& key, const EnvFingerprint& env,
                                                        double min_similarity) const
{
    Stmt q(db_, "SELECT v.verdict, v.delta, v.metric, r.env_id FROM verifications v LEFT JOIN runs r ON r.id = "
                "v.before_run WHERE v.suggestion_key = ?1 AND v.verdict IN ('verified', 'failed')",
           path_);
    q.bind(1, key);
    SuggestionHistory h;
    double delta_sum = 0;
    std::string metric, best_reason, best_gpu;
    while (q.step()) {
        const std::string verdict = q.text(0);
        const double delta = q.dbl(1);
        const int64_t env_id = q.i64(3);
        auto other = environment(env_id);
        const double sim = other ? environment_similarity(env, *other) : 0.25;
        if (sim < min_similarity)
            continue;
        if (verdict == "verified") {
            ++h.verified;
            delta_sum += delta;
        } else {
            ++h.failed;
        }
        if (sim > h.similarity) {
            h.similarity = sim;
            best_reason = other ? similarity_reason(env, *other) : "environment unknown";
            best_gpu = other ? other->gpu : "";
        }
        metric = q.text(2);
    }
    // The replays' predictions for this suggestion's change kind (any rule suggesting it) against what verify
    // measured on similar environments.
    double abs_error_sum = 0;
    if (const std::string change = critpath::change_for_suggestion(key); !change.empty()) {
        Stmt p(db_, "SELECT v.prediction_error, r.env_id FROM verifications v LEFT JOIN runs r ON r.id = v.before_run "
                    "WHERE v.whatif_change = ?1 AND v.prediction_error IS NOT NULL",
               path_);
        p.bind(1, change);
        while (p.step()) {
            const auto other = environment(p.i64(1));
            if ((other ? environment_similarity(env, *other) : 0.25) < min_similarity)
                continue;
            ++h.predictions;
            abs_error_sum += std::abs(p.dbl(0));
        }
        h.mean_abs_prediction_error = h.predictions ? abs_error_sum / h.predictions : 0;
    }
    if (h.verified + h.failed == 0 && h.predictions == 0)
        return std::nullopt;
    h.mean_delta = h.verified ? delta_sum / h.verified : 0;
    char buf[256];
    if (h.verified + h.failed == 0)
        std::snprintf(buf, sizeof buf, "%s: no verdict yet on similar environments", key.c_str());
    else if (h.verified)
        std::snprintf(buf, sizeof buf, "%s verified %dx, failed %dx on similar environments (%s%s%s): mean %+.0f %% %s",
                      key.c_str(), h.verified, h.failed, best_reason.c_str(), best_gpu.empty() ? "" : ", ",
                      best_gpu.c_str(), h.mean_delta * 100.0, metric.c_str());
    else
        std::snprintf(buf, sizeof buf, "%s failed %dx on similar environments (%s%s%s)", key.c_str(), h.failed,
                      best_reason.c_str(), best_gpu.empty() ? "" : ", ", best_gpu.c_str());
    h.reason = buf;
    if (h.predictions > 0) {
        std::snprintf(buf, sizeof buf, "; its replay (%s) was off by %.0f %% on average over %d verification(s)",
                      critpath::change_for_suggestion(key).c_str(), 100.0 * h.mean_abs_prediction_error,
                      h.predictions);
        h.reason += buf;
    }
    return h;
}

HistoryLookup KnowledgeBase::history_lookup(const EnvFingerprint& env) const
{
    return [this, env](const std::string& key) { return history(key, env); };
}

} // namespace sl

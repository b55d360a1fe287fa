// Nsight Systems SQLite export reader (nsys 2022.1 .. 2025.5).
//
// The export is opened read-only and defensively (read-only URI, trusted_schema=OFF, defensive mode, triggers and
// views disabled, query_only), so a hostile file can neither run code nor write. Tables and columns are discovered
// at run time: nsys creates tables lazily, the schema drifts across versions and other tools add columns. Each
// activity table is read with one prepared SELECT of only the columns the Trace needs; name ids go through a
// StringIds -> StringPool map filled on first use.
#include "analysis/io/nsys_reader.h"

#include "analysis/io/graph_join.h"

#include <sqlite3.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "analysis/io/input_bounds.h"
#include "analysis/io/input_errors.h"
#include "analysis/io/parallel.h"
#include "analysis/io/sqlite_uri.h"
#include "analysis/trace/checked_math.h"
#include "analysis/trace/errors.h"
#include "analysis/trace/device_rows.h"

extern char** environ;

namespace sl {

namespace {

constexpr const char* kExpected = "an Nsight Systems SQLite export";

// An export another process is writing (nsys, sqlite3) is waited for this long, then refused as locked: SQLite's
// busy handler retries every lock in the meantime. Never called corrupt or truncated.
constexpr int kBusyTimeoutMs = 2000;

bool is_locked(int rc) { return (rc & 0xFF) == SQLITE_BUSY || (rc & 0xFF) == SQLITE_LOCKED; }

[[noreturn]] void throw_locked(const std::string& path, const std::string& where)
{
    throw TraceError(path, where, "an export that no other process is writing",
                     "a file locked by another process (still locked after " + std::to_string(kBusyTimeoutMs / 1000) +
                         " s of retries); try again when the process writing it is done");
}

std::string quote_ident(const std::string& s)
{
    std::string q = "\"";
    for (char c : s) {
        if (c == '"')
            q += '"';
        q += c;
    }
    return q + "\"";
}

std::string printable_prefix(const char* buf, size_t n)
{
    std::string s;
    for (size_t i = 0; i < n && i < 24; ++i) {
        const unsigned char c = static_cast<unsigned char>(buf[i]);
        if (c >= 0x20 && c < 0x7F) {
            s += static_cast<char>(c);
        } else {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            s += b;
        }
    }
    return s;
}

// Checks what can be checked before SQLite sees the file: it exists, is a regular readable file, starts with the
// SQLite header, and is as long as its header says. Returns true when the header says the file is in WAL mode.
bool precheck_file(const std::string& path)
{
    // What happened, said as such (input_errors.h): no such file, a symbolic-link loop, no permission, a FIFO.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw TraceError(path, "", kExpected, open_error_text(errno));
    if (!S_ISREG(st.st_mode))
        throw TraceError(path, "", kExpected, not_regular_file_text(st.st_mode));
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const std::string why = input_file_problem(path);
        throw TraceError(path, "", kExpected, why.empty() ? std::string("a file that cannot be read") : why);
    }
    char h[100] = {};
    in.read(h, sizeof h);
    const size_t n = static_cast<size_t>(in.gcount());
    if (n == 0)
        throw TraceError(path, "file header", kExpected, "an empty (0-byte) file");
    if (n < 16 || std::memcmp(h, "SQLite format 3\0", 16) != 0)
        throw TraceError(path, "file header", kExpected + std::string(" (SQLite header 'SQLite format 3')"),
                         "a file that is not SQLite (starts with '" + printable_prefix(h, n) + "')");
    if (n < 100)
        throw TraceError(path, "file header", "a 100-byte SQLite header",
                         "a truncated file of " + std::to_string(st.st_size) + " bytes");
    const auto u8 = [&](int i) { return static_cast<uint32_t>(static_cast<unsigned char>(h[i])); };
    uint64_t page_size = (u8(16) << 8) | u8(17);
    if (page_size == 1)
        page_size = 65536;
    const uint32_t pages = (u8(28) << 24) | (u8(29) << 16) | (u8(30) << 8) | u8(31);
    const uint32_t change = (u8(24) << 24) | (u8(25) << 16) | (u8(26) << 8) | u8(27);
    const uint32_t valid_for = (u8(92) << 24) | (u8(93) << 16) | (u8(94) << 8) | u8(95);
    if (pages > 0 && change == valid_for && page_size >= 512) {
        const uint64_t expected = page_size * pages;
        if (static_cast<uint64_t>(st.st_size) < expected)
            throw TraceError(path, "file size", "a complete SQLite file of " + std::to_string(expected) + " bytes (" +
                                                    std::to_string(pages) + " pages)",
                             "a truncated file of " + std::to_string(st.st_size) + " bytes");
    }
    // WAL mode (read/write versions 2): opening it would create -wal/-shm files beside it. nsys never writes WAL;
    // without a -wal file there is nothing to replay, so the file can be opened immutable (no side files at all).
    const bool wal = u8(18) == 2 || u8(19) == 2;
    if (wal) {
        struct stat wst {};
        if (::stat((path + "-wal").c_str(), &wst) == 0 && wst.st_size > 0)
            throw TraceError(path, "file header", "a self-contained nsys export",
                             "an SQLite file in WAL mode with pending changes in " + path +
                                 "-wal; run: sqlite3 " + path + " 'PRAGMA wal_checkpoint(TRUNCATE)'");
    }
    return wal;
}

class Stmt {
public:
    Stmt(sqlite3* db, const std::string& sql, const std::string& path, const std::string& where) : path_(path), where_(where)
    {
        if (const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr); rc != SQLITE_OK) {
            const std::string msg = sqlite3_errmsg(db);
            sqlite3_finalize(s_);
            s_ = nullptr;
            if (is_locked(rc))
                throw_locked(path, where);
            throw TraceError(path, where, "a readable table", "an SQLite error: " + msg);
        }
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    // true while there is a row; throws on corruption.
    bool step()
    {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        if (is_locked(rc))
            throw_locked(path_, where_);
        throw TraceError(path_, where_, "readable rows",
                         "a corrupt or truncated SQLite file (" + std::string(sqlite3_errstr(rc)) + ": " +
                             sqlite3_errmsg(sqlite3_db_handle(s_)) + ")");
    }
    int64_t i64(int c) const { return sqlite3_column_int64(s_, c); }
    bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    std::string_view text(int c) const
    {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
        return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(s_, c))) : std::string_view{};
    }
    double f64(int c) const { return sqlite3_column_double(s_, c); }
    int type(int c) const { return sqlite3_column_type(s_, c); }
    // The protected value of a column: its type and number read from it without another column lookup each.
    sqlite3_value* value(int c) const { return sqlite3_column_value(s_, c); }

private:
    sqlite3_stmt* s_ = nullptr;
    std::string path_, where_;
};

template <typename T> T clamp_to(int64_t v)
{
    if (v < 0)
        return 0;
    if (static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
    return static_cast<T>(v);
}

// What one table reader shares with the others, kept to itself while the tables are read (on parallel threads, one
// read-only connection each, when there are threads to use) and merged in table order afterwards. Names, devices,
// processes and threads get local ids in the order the table first uses them; the merge maps them to the Trace's
// ids table by table in the order of the sequential read, so the ids come out as that read assigned them. Bounds
// and counters combine by min, max and sum, which does not depend on the order.
struct Part {
    struct Name {
        int64_t id = 0;          // StringIds id
        std::string literal;     // or a name of its own ("[CUDA graph N]")
        bool is_literal = false;
    };
    std::vector<Name> names;
    std::vector<StrId> name_ids;                        // local -> the Trace's id, set by merge()
    std::vector<uint32_t> name_dense;                   // StringIds id -> local + 1 (0 = not seen yet), small ids
    std::unordered_map<int64_t, uint32_t> name_sparse;  // the other ids
    std::unordered_map<int64_t, uint32_t> graph_names;  // graphId -> local
    std::unordered_map<std::string, uint32_t> texts;    // NVTX text given inline -> local
    std::vector<int64_t> devices, processes, threads;   // local -> the raw id the table gives
    std::unordered_map<int64_t, uint32_t> device_ids, process_ids, thread_ids;
    int64_t last_dev_id = INT64_MIN, last_gpid = INT64_MIN, last_gtid = INT64_MIN;
    uint16_t last_dev = 0, last_proc = 0;
    uint32_t last_thread = 0;
    uint64_t last_stream_key = UINT64_MAX;
    std::set<uint64_t> streams;                         // (local device << 32) | stream
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t bad_intervals = 0;
    std::vector<std::string> warnings;
    // Values of the wrong storage class or out of range, per table and column (see Row).
    struct Bad {
        std::string table, column;
        bool required = false;     // the row cannot be read without it
        size_t count = 0;
        int64_t first_rowid = 0;
        std::string first_found;
    };
    std::vector<Bad> bad;
    size_t truncated_names = 0;
    // NVTX: ranges that never ended, and the non-default domains (name as a local id, or inline text) with the
    // rows that carry them, resolved once the names are the Trace's (finish_nvtx()).
    struct Domain {
        int64_t name = -1;
        std::string text;
    };
    std::vector<size_t> open_ranges;
    std::unordered_map<int64_t, Domain> domains;
    std::vector<std::pair<size_t, int64_t>> range_domain, mark_domain;
    size_t index = 0;                                   // task index (the table order of the sequential read)
    bool reports = false;                               // on the calling thread: may call the progress callback

    static constexpr size_t kDenseNames = size_t{1} << 22;

    uint32_t name(int64_t id)
    {
        if (id >= 0 && static_cast<uint64_t>(id) < kDenseNames) {
            const auto u = static_cast<size_t>(id);
            if (u >= name_dense.size())
                name_dense.resize(std::max(u + 1, name_dense.size() * 2), 0u);
            uint32_t& r = name_dense[u];
            if (r == 0) {
                names.push_back({id, {}, false});
                r = static_cast<uint32_t>(names.size());
            }
            return r - 1;
        }
        auto [it, fresh] = name_sparse.try_emplace(id, static_cast<uint32_t>(names.size()));
        if (fresh)
            names.push_back({id, {}, false});
        return it->second;
    }
    uint32_t text_name(std::string_view text)
    {
        auto [it, fresh] = texts.try_emplace(std::string(text), static_cast<uint32_t>(names.size()));
        if (fresh)
            names.push_back({0, std::string(text), true});
        return it->second;
    }
    uint32_t graph_name(int64_t graph_id)
    {
        auto [it, fresh] = graph_names.try_emplace(graph_id, static_cast<uint32_t>(names.size()));
        if (fresh)
            names.push_back({0, "[CUDA graph " + std::to_string(graph_id) + "]", true});
        return it->second;
    }
    static uint32_t local(std::unordered_map<int64_t, uint32_t>& ids, std::vector<int64_t>& raw, int64_t v)
    {
        auto [it, fresh] = ids.try_emplace(v, static_cast<uint32_t>(raw.size()));
        if (fresh)
            raw.push_back(v);
        return it->second;
    }
    uint16_t device(int64_t id)
    {
        if (id != last_dev_id) {
            last_dev_id = id;
            last_dev = static_cast<uint16_t>(local(device_ids, devices, id));
        }
        return last_dev;
    }
    uint16_t process(int64_t global_pid)
    {
        if (global_pid != last_gpid) {
            last_gpid = global_pid;
            last_proc = static_cast<uint16_t>(local(process_ids, processes, global_pid));
        }
        return last_proc;
    }
    uint32_t thread(int64_t gtid)
    {
        if (gtid != last_gtid) {
            last_gtid = gtid;
            last_thread = local(thread_ids, threads, gtid);
        }
        return last_thread;
    }
    void use_stream(uint16_t dev, int64_t stream)
    {
        const uint64_t key = (static_cast<uint64_t>(dev) << 32) | static_cast<uint32_t>(stream);
        if (key != last_stream_key) {
            last_stream_key = key;
            streams.insert(key);
        }
    }
    // An end before its start is set to the start (counted). (Times beyond +/-2^61 ns never get here: the row is
    // skipped when start or end is read.)
    void fix_interval(int64_t& st, int64_t& en)
    {
        if (en < st) {
            en = st;
            ++bad_intervals;
        }
    }
    void widen(int64_t s, int64_t e)
    {
        lo = std::min(lo, s);
        hi = std::max(hi, e);
    }
};

// One row of an activity table read with each value's SQLite storage class checked (issue: one TEXT 'hello' in
// a kernel's start was read as 0 and made the kernel 361 ms long). An integer column must hold an INTEGER (or a
// REAL with no fraction) inside the column's range; NULL is the column's default unless the column is required.
// Any other value makes the row bad: the reader skips it, and the first bad value of each column is kept with its
// rowid and the count for one warning per column (finish_bad_values()).
class Row {
public:
    Row(const Stmt& s, Part& p, const std::string& table, int rowid_col)
        : s_(s), p_(p), table_(table), rowid_col_(rowid_col)
    {
    }
    void begin() { ok_ = true; }
    bool ok() const { return ok_; }

    int64_t i64(int c, const char* column, int64_t def = 0, bool required = false,
                int64_t lo = std::numeric_limits<int64_t>::min(), int64_t hi = std::numeric_limits<int64_t>::max())
    {
        sqlite3_value* val = s_.value(c);   // one column lookup for the type and the number (the reader's hot loop)
        const int type = sqlite3_value_type(val);
        if (type == SQLITE_INTEGER) {
            const int64_t v = sqlite3_value_int64(val);
            if (v >= lo && v <= hi)
                return v;
        }
        return slow(c, type, column, def, required, lo, hi);
    }
    // A column only tested for NULL (e.g. graphNodeId: a kernel launched by a graph has one).
    bool null(int c) const { return s_.null(c); }

private:
    int64_t slow(int c, int type, const char* column, int64_t def, bool required, int64_t lo, int64_t hi)
    {
        switch (type) {
        case SQLITE_INTEGER: {
            const int64_t v = s_.i64(c);
            bad(column, required, "the integer " + std::to_string(v) + " (outside " + std::to_string(lo) + ".." +
                                      std::to_string(hi) + ")");
            return def;
        }
        case SQLITE_NULL:
            if (required)
                bad(column, true, "NULL");
            return def;
        case SQLITE_FLOAT: {
            const double d = s_.f64(c);
            // An integral REAL inside the range is the same number (SQLite itself stores 5.0 as 5 in an INTEGER
            // column); 1.5, NaN or 1e300 is not.
            if (d == std::floor(d) && d >= -9.2e18 && d <= 9.2e18) {
                const auto v = static_cast<int64_t>(d);
                if (v >= lo && v <= hi)
                    return v;
            }
            char buf[48];
            std::snprintf(buf, sizeof buf, "the REAL %.17g", d);
            bad(column, required, buf);
            return def;
        }
        case SQLITE_TEXT:
            bad(column, required, "the TEXT " + quote_prefix(s_.text(c)));
            return def;
        default:
            bad(column, required, "a BLOB");
            return def;
        }
    }
    void bad(const char* column, bool required, std::string found)
    {
        ok_ = false;
        for (auto& b : p_.bad)
            if (b.column == column && b.table == table_) {
                ++b.count;
                return;
            }
        p_.bad.push_back({table_, column, required, 1, rowid_col_ >= 0 ? s_.i64(rowid_col_) : 0, std::move(found)});
    }
    const Stmt& s_;
    Part& p_;
    const std::string& table_;
    int rowid_col_;
    bool ok_ = true;
};

// A stop that a task takes because an earlier task (in table order) failed: that task's error is the one reported.
struct Aborted {};

class Reader {
public:
    Reader(const std::string& path, const LoadControl& control) : path_(path), control_(control) {}
    ~Reader()
    {
        for (sqlite3* c : extra_)
            if (c)
                sqlite3_close(c);
        if (db_)
            sqlite3_close(db_);
    }

    Trace read();

private:
    void open();
    void open_connection(sqlite3*& db);
    void discover();
    bool has(const std::string& table) const { return tables_.count(table) != 0; }
    bool has_col(const std::string& table, const std::string& col) const
    {
        auto it = tables_.find(table);
        return it != tables_.end() && it->second.count(col) != 0;
    }
    // The column itself when the table has it, else the default expression.
    std::string col(const std::string& table, const std::string& c, const char* def = "NULL") const
    {
        return has_col(table, c) ? quote_ident(c) : std::string(def);
    }
    void require(const std::string& table, std::initializer_list<const char*> cols) const;
    // "rowid", or NULL for a table without one (WITHOUT ROWID), as the last column of a SELECT.
    std::string rowid(const std::string& table) const { return without_rowid_.count(table) ? "NULL" : "rowid"; }
    // After a table's rows: one warning per column with bad values, or the file refused when a required column is
    // bad in most rows (then nothing it says can be trusted).
    void finish_bad_values(Part& p, const std::string& table, size_t rows) const;
    int64_t estimate_rows(sqlite3* db, const std::string& table);

    // Sequential reads (the calling thread, db_).
    void tick(size_t row, const char* stage)
    {
        if ((row & 1023) == 0) {
            control_.check();
            if ((row & 16383) == 0 && row)
                check_memory_budget(path_, std::string(stage) + ", row " + std::to_string(row));
            if ((row & 16383) == 0 && total_rows_ > 0)
                control_.report(std::min(1.0, static_cast<double>(done_rows_ + row) / static_cast<double>(total_rows_)), stage);
        }
    }
    // Table tasks (any thread): cancellation, an earlier task's failure, and progress from the calling thread only.
    void tick(Part& p, size_t row, const char* stage)
    {
        if ((row & 1023) == 0) {
            control_.check();
            if (run_.first_failed.load(std::memory_order_relaxed) < p.index)
                throw Aborted{};
            if ((row & 16383) == 0 && row)
                check_memory_budget(path_, std::string(stage) + ", row " + std::to_string(row));
            const int64_t done = row ? rows_done_.fetch_add(1024, std::memory_order_relaxed) + 1024 : rows_done_.load();
            if (p.reports && (row & 16383) == 0 && total_rows_ > 0)
                control_.report(std::min(1.0, static_cast<double>(done_rows_ + done) / static_cast<double>(total_rows_)), stage);
        }
    }

    void read_strings(sqlite3* db, Part& p);
    StrId str(int64_t id);
    // A name as the trace keeps it: control characters written as \xNN text (input_bounds.h), so no name can move
    // a terminal's cursor or print a line of its own.
    // Cut at kMaxNameBytes (counted): StringIds also holds long strings that are no names (environment blocks), so
    // names are bounded here, where a string becomes one.
    StrId intern_name(std::string_view s)
    {
        std::string escaped, cut;
        if (has_control_chars(s)) {
            escaped = escape_control_chars(s);
            s = escaped;
        }
        if (bound_name(s, cut))
            ++truncated_names_;
        return t_.strings.intern(s);
    }
    void read_meta();
    void read_kernels(sqlite3* db, Part& p);
    void read_graph_trace(sqlite3* db, Part& p);
    void read_graph_nodes();
    void read_runtime(sqlite3* db, Part& p);
    void read_memcpy(sqlite3* db, Part& p);
    void read_memset(sqlite3* db, Part& p);
    void read_syncs(sqlite3* db, Part& p);
    void read_tables();
    void tables_error(size_t from, size_t to);
    void merge(Part& p);
    void read_nvtx(sqlite3* db, Part& p);
    void finish_nvtx(Part& p);
    void read_names_and_devices();

    uint16_t device(int64_t id)
    {
        if (id == last_dev_id_ && last_dev_ != UINT16_MAX)
            return last_dev_;
        last_dev_id_ = id;
        if (const auto it = device_rows_.find(id); it != device_rows_.end()) {
            last_dev_ = it->second;   // O(1): Trace::device_index scans the rows (issue 36 §8)
            return last_dev_;
        }
        try {
            last_dev_ = append_device_row(t_, static_cast<int32_t>(id));   // every row is made here: new
        } catch (const TraceError& e) {
            throw TraceError(path_, e.where(), e.expected(), e.found());
        }
        device_rows_.emplace(id, last_dev_);
        return last_dev_;
    }
    uint16_t process(int64_t global_pid)
    {
        if (global_pid == last_gpid_ && last_proc_ != UINT16_MAX)
            return last_proc_;
        last_gpid_ = global_pid;
        const int64_t pid = (global_pid >> 24) & 0xFFFFFF;
        if (const auto it = process_rows_.find(pid); it != process_rows_.end()) {
            last_proc_ = it->second;   // O(1): Trace::process_index scans the rows (issue 36 §8)
            return last_proc_;
        }
        try {
            last_proc_ = append_process_row(t_, pid);   // every process row is made here: new
        } catch (const TraceError& e) {
            throw TraceError(path_, e.where(), e.expected(), e.found());
        }
        process_rows_.emplace(pid, last_proc_);
        return last_proc_;
    }
    uint32_t thread(int64_t gtid)
    {
        if (gtid == last_gtid_ && last_thread_ != UINT32_MAX)
            return last_thread_;
        auto it = threads_.find(gtid);
        if (it == threads_.end())
            it = threads_.emplace(gtid, append_thread_row(t_, gtid, (gtid >> 24) & 0xFFFFFF, gtid & 0xFFFFFF)).first;
        last_gtid_ = gtid;
        last_thread_ = it->second;
        return last_thread_;
    }
    void widen(int64_t s, int64_t e)
    {
        lo_ = std::min(lo_, s);
        hi_ = std::max(hi_, e);
    }

    std::string path_, uri_;
    const LoadControl& control_;
    sqlite3* db_ = nullptr;
    std::vector<sqlite3*> extra_;                           // one more connection per helper thread
    Trace t_;
    std::map<std::string, std::set<std::string>> tables_;
    std::set<std::string> without_rowid_;
    int64_t total_rows_ = 0, done_rows_ = 0;
    std::atomic<int64_t> rows_done_{0};                     // rows read by the table tasks
    TaskRun run_;
    std::vector<Part> parts_;                               // by task: strings, kernels, API, copies, sets, syncs, NVTX

    // StringIds: raw strings by id (dense vector when ids are compact, else a map), interned on first use.
    std::string blob_;
    std::vector<std::pair<uint32_t, uint32_t>> dense_;      // id -> (offset, length); length UINT32_MAX = absent
    std::unordered_map<int64_t, std::pair<uint32_t, uint32_t>> sparse_;
    std::vector<StrId> dense_ids_;
    std::unordered_map<int64_t, StrId> sparse_ids_;
    static constexpr StrId kUnresolved = UINT32_MAX;
    std::vector<uint8_t> api_flags_;                        // by pool id; 0xFF = not classified yet

    int64_t last_dev_id_ = INT64_MIN, last_gpid_ = INT64_MIN, last_gtid_ = INT64_MIN;
    std::unordered_map<int64_t, uint16_t> device_rows_;   // deviceId -> row
    uint16_t last_dev_ = UINT16_MAX, last_proc_ = UINT16_MAX;
    uint32_t last_thread_ = UINT32_MAX;
    std::unordered_map<int64_t, uint32_t> threads_;        // globalTid -> thread row (every row is made through it)
    std::unordered_map<int64_t, uint16_t> process_rows_;   // pid -> process row (the same)
    std::set<uint64_t> streams_used_;
    std::unordered_set<uint32_t> graph_node_corr_;          // written by the kernel task only
    std::vector<std::pair<uint32_t, int64_t>> kernel_nodes_;  // (kernel row, graphNodeId); the kernel task only
    int64_t lo_ = INT64_MAX, hi_ = INT64_MIN;
    size_t bad_intervals_ = 0, truncated_names_ = 0;
    int64_t file_size_ = 0;
};

void Reader::open()
{
    const bool wal = precheck_file(path_);
    struct stat st {};
    if (::stat(path_.c_str(), &st) == 0)
        file_size_ = static_cast<int64_t>(st.st_size);
    uri_ = sqlite_file_uri(path_, wal ? "mode=ro&immutable=1" : "mode=ro&immutable=0");
    open_connection(db_);
}

// Opens one more read-only, defensive connection to the export into db (which the Reader closes).
void Reader::open_connection(sqlite3*& db)
{
    const int rc = sqlite3_open_v2(uri_.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK)
        throw TraceError(path_, "", kExpected,
                         std::string("a file SQLite cannot open (") + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)) + ")");
    // A lock held by a writer is waited for, a bounded time, before the export is refused as locked.
    sqlite3_busy_timeout(db, kBusyTimeoutMs);
    // Defensive mode: a hostile schema must not run code (triggers, views, untrusted functions) or write anything.
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
#endif
    for (const char* pragma : {"PRAGMA trusted_schema=OFF", "PRAGMA query_only=ON"}) {
        char* err = nullptr;
        if (const int rc = sqlite3_exec(db, pragma, nullptr, nullptr, &err); rc != SQLITE_OK) {
            const std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            if (is_locked(rc))
                throw_locked(path_, pragma);
            throw TraceError(path_, pragma, kExpected, "a file SQLite cannot read (" + msg + ")");
        }
    }
    // A hot rollback journal beside the export (an interrupted write) must be rolled back before the file can be
    // read, which a read-only open cannot do: SQLite says "attempt to write a readonly database". Say what it is.
    sqlite3_stmt* probe = nullptr;
    int prc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &probe, nullptr);
    if (prc == SQLITE_OK)
        prc = sqlite3_step(probe);
    sqlite3_finalize(probe);
    if (is_locked(prc))
        throw_locked(path_, "sqlite_master");
    if (prc != SQLITE_OK && prc != SQLITE_ROW && prc != SQLITE_DONE &&
        (sqlite3_extended_errcode(db) == SQLITE_READONLY_ROLLBACK || (prc & 0xFF) == SQLITE_READONLY)) {
        throw TraceError(path_, "file header", "an export without a pending rollback journal",
                         "a rollback journal " + path_ + "-journal left by an interrupted write; Sightline opens "
                         "exports read-only and does not roll it back. Recover it with `sqlite3 " + path_ +
                         " 'PRAGMA integrity_check'` (which rolls the journal back), or re-export the report");
    }
}

void Reader::discover()
{
    std::vector<std::string> names;
    {
        Stmt s(db_, "SELECT name, sql FROM sqlite_master WHERE type='table'", path_, "sqlite_master");
        while (s.step()) {
            names.emplace_back(s.text(0));
            std::string sql(s.text(1));
            for (auto& c : sql)
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            if (sql.find("WITHOUT ROWID") != std::string::npos)
                without_rowid_.insert(names.back());
        }
    }
    for (const auto& n : names) {
        auto& cols = tables_[n];
        Stmt s(db_, "PRAGMA table_info(" + quote_ident(n) + ")", path_, n);
        while (s.step())
            cols.emplace(s.text(1));
    }
    if (names.empty())
        throw TraceError(path_, "sqlite_master", kExpected, "an SQLite database with no tables");
    bool nsys_table = false;
    for (const auto& n : names)
        nsys_table |= n.rfind("CUPTI_ACTIVITY_KIND_", 0) == 0 || n == "NVTX_EVENTS" || n == "META_DATA_EXPORT" ||
                      n == "EXPORT_META_DATA" || n.rfind("TARGET_INFO_", 0) == 0 || n == "ANALYSIS_DETAILS";
    if (!has("StringIds") || !nsys_table) {
        std::string list;
        for (size_t i = 0; i < names.size() && i < 8; ++i)
            list += (i ? ", " : "") + names[i];
        if (names.size() > 8)
            list += ", ... (" + std::to_string(names.size()) + " tables)";
        throw TraceError(path_, "sqlite_master", kExpected + std::string(" (tables StringIds and CUPTI_ACTIVITY_KIND_* / NVTX_EVENTS / META_DATA_EXPORT)"),
                         "an SQLite database that is not an nsys export (tables: " + list + ")");
    }
}

void Reader::require(const std::string& table, std::initializer_list<const char*> cols) const
{
    std::string missing;
    for (const char* c : cols)
        if (!has_col(table, c))
            missing += (missing.empty() ? "" : ", ") + std::string(c);
    if (!missing.empty()) {
        std::string found;
        for (const auto& c : tables_.at(table))
            found += (found.empty() ? "" : ", ") + c;
        throw TraceError(path_, table, "columns " + missing, "a table with columns " + found);
    }
}

void Reader::finish_bad_values(Part& p, const std::string& table, size_t rows) const
{
    for (const auto& b : p.bad) {
        if (b.table != table)
            continue;
        const std::string where = table + "." + b.column + ", rowid " + std::to_string(b.first_rowid);
        if (b.required && b.count * 2 > rows)
            throw TraceError(path_, where, "integers in column " + b.column + " (SQLite storage class INTEGER)",
                             b.first_found + ", and a bad value in " + std::to_string(b.count) + " of " +
                                 std::to_string(rows) + " rows");
        p.warnings.push_back(table + "." + b.column + ": " + std::to_string(b.count) + " row" +
                             (b.count == 1 ? "" : "s") + " skipped for a value that is not an integer in range (first at rowid " +
                             std::to_string(b.first_rowid) + ": " + b.first_found + ")");
    }
}

int64_t Reader::estimate_rows(sqlite3* db, const std::string& table)
{
    if (!has(table))
        return 0;
    Stmt s(db, "SELECT max(rowid) FROM " + quote_ident(table), path_, table);
    const int64_t max_rowid = s.step() ? std::max<int64_t>(0, s.i64(0)) : 0;
    // max(rowid) is only a hint (rowids may skip): a hostile file sets it near 2^63, and arrays reserved from it
    // would throw a bare bad_alloc. A row takes at least 4 bytes of the file, so the file's size bounds the count.
    return std::min<int64_t>(max_rowid, file_size_ / 4 + 1);
}

void Reader::read_strings(sqlite3* db, Part& p)
{
    const std::string T = "StringIds";
    Stmt s(db, "SELECT id, value, " + rowid(T) + " FROM StringIds", path_, "StringIds");
    Row r(s, p, T, 2);
    std::vector<std::pair<int64_t, std::pair<uint32_t, uint32_t>>> rows;
    int64_t max_id = -1;
    size_t row = 0, null_values = 0;
    int64_t first_null = 0;
    const uint64_t name_limit = name_bytes_limit();   // the strings' bytes, names or not
    std::string escaped;
    while (s.step()) {
        tick(p, row++, "strings");
        r.begin();
        const int64_t id = r.i64(0, "id", 0, true);
        if (!r.ok())
            continue;
        if (s.null(1)) {
            // A NULL string is no name: its users read "[unknown string N]", as for an id StringIds lacks.
            if (null_values++ == 0)
                first_null = id;
            rows.push_back({id, {0u, UINT32_MAX}});
            max_id = std::max(max_id, id);
            continue;
        }
        std::string_view v = s.text(1);
        if (!is_valid_utf8(v)) {   // names are kept, with the bytes that are not UTF-8 as \xNN text
            escaped = escape_invalid_utf8(v);
            v = escaped;
        }
        if (blob_.size() + v.size() > name_limit)
            check_name_bytes(path_, "StringIds, rowid " + std::to_string(s.i64(2)), blob_.size() + v.size());
        if (blob_.size() + v.size() >= UINT32_MAX)
            throw TraceError(path_, "StringIds", "string data under 4 GiB", "more");
        rows.push_back({id, {static_cast<uint32_t>(blob_.size()), static_cast<uint32_t>(v.size())}});
        blob_.append(v);
        max_id = std::max(max_id, id);
    }
    finish_bad_values(p, T, row);
    if (null_values)
        p.warnings.push_back("StringIds.value: " + std::to_string(null_values) + " NULL string" +
                             (null_values == 1 ? "" : "s") + " (first id " + std::to_string(first_null) +
                             "); the names that use them read \"[unknown string N]\"");
    const bool dense = max_id < static_cast<int64_t>(rows.size()) * 4 + 4096;
    if (dense) {
        dense_.assign(static_cast<size_t>(max_id + 1), {0u, UINT32_MAX});
        dense_ids_.assign(dense_.size(), kUnresolved);
    }
    for (const auto& [id, loc] : rows) {
        if (dense && id >= 0)
            dense_[static_cast<size_t>(id)] = loc;
        else
            sparse_[id] = loc;
    }
}

StrId Reader::str(int64_t id)
{
    if (id >= 0 && static_cast<uint64_t>(id) < dense_ids_.size()) {
        StrId& r = dense_ids_[static_cast<size_t>(id)];
        if (r == kUnresolved) {
            const auto [off, len] = dense_[static_cast<size_t>(id)];
            r = len == UINT32_MAX ? t_.strings.intern("[unknown string " + std::to_string(id) + "]")
                                  : intern_name(std::string_view(blob_).substr(off, len));
        }
        return r;
    }
    auto it = sparse_ids_.find(id);
    if (it != sparse_ids_.end())
        return it->second;
    auto loc = sparse_.find(id);
    const StrId r = loc == sparse_.end() || loc->second.second == UINT32_MAX
                        ? t_.strings.intern("[unknown string " + std::to_string(id) + "]")
                        : intern_name(std::string_view(blob_).substr(loc->second.first, loc->second.second));
    sparse_ids_.emplace(id, r);
    return r;
}

void Reader::read_meta()
{
    auto& meta = t_.meta;
    meta.format = "nsys-sqlite";
    meta.source_path = path_;
    for (const char* table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
        if (!has_col(table, "name") || !has_col(table, "value"))
            continue;
        Stmt s(db_, std::string("SELECT name, value FROM ") + table, path_, table);
        while (s.step()) {
            const std::string_view k = s.text(0);
            if (k == "EXPORT_PRODUCT_VERSION")
                meta.tool_version = s.text(1);
            else if (k == "EXPORT_SCHEMA_VERSION")
                meta.schema_version = s.text(1);
        }
    }
    if (has_col("ANALYSIS_DETAILS", "startTime") && has_col("ANALYSIS_DETAILS", "stopTime")) {
        Stmt s(db_, "SELECT startTime, stopTime FROM ANALYSIS_DETAILS", path_, "ANALYSIS_DETAILS");
        if (s.step() && !s.null(0) && !s.null(1) && s.i64(1) >= s.i64(0)) {
            lo_ = clamp_time(s.i64(0));
            hi_ = clamp_time(s.i64(1));
        }
    }
    // The capture length nsys reports. startTime/stopTime are on another clock in most real exports (2023.1 to
    // 2025.5: stopTime - startTime equals duration, but startTime lies anywhere from 0.1 s to 178,000 s from the
    // events), so the window is anchored separately (see run()).
    if (has_col("ANALYSIS_DETAILS", "duration")) {
        Stmt s(db_, "SELECT duration FROM ANALYSIS_DETAILS", path_, "ANALYSIS_DETAILS");
        if (s.step() && !s.null(0) && s.i64(0) > 0)
            meta.reported_capture_ns = s.i64(0);
    }
    if (has_col("TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
        Stmt s(db_, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", path_, "TARGET_INFO_SESSION_START_TIME");
        if (s.step())
            meta.utc_epoch_ns = s.i64(0);
    }
    // Driver / CUDA versions, where the export records the target environment.
    if (has_col("TARGET_INFO_SYSTEM_ENV", "name") && has_col("TARGET_INFO_SYSTEM_ENV", "value")) {
        Stmt s(db_, "SELECT name, value FROM TARGET_INFO_SYSTEM_ENV", path_, "TARGET_INFO_SYSTEM_ENV");
        while (s.step()) {
            const std::string_view k = s.text(0);
            if (k == "NvDriverVersion")
                meta.environment["nvidia_driver"] = s.text(1);
            else if (k == "CudaDriverVersion")
                meta.environment["cuda_driver"] = s.text(1);
            else if (k == "OsDescription")
                meta.environment["os"] = s.text(1);
        }
    }
}

void Reader::read_kernels(sqlite3* db, Part& p)
{
    const std::string T = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (!has(T))
        return;
    require(T, {"start", "end"});
    if (!has_col(T, "demangledName") && !has_col(T, "shortName"))
        require(T, {"demangledName"});
    const std::string name_col = has_col(T, "demangledName") ? "demangledName" : "shortName";
    const std::string short_col = has_col(T, "shortName") ? "shortName" : name_col;
    const std::string sql = "SELECT start, end, " + col(T, "deviceId", "0") + ", " + col(T, "streamId", "0") + ", " +
                            col(T, "correlationId", "0") + ", " + col(T, "globalPid", "0") + ", " + name_col + ", " +
                            short_col + ", " + col(T, "gridX", "1") + ", " + col(T, "gridY", "1") + ", " +
                            col(T, "gridZ", "1") + ", " + col(T, "blockX", "1") + ", " + col(T, "blockY", "1") +
                            ", " + col(T, "blockZ", "1") + ", " + col(T, "registersPerThread", "0") + ", " +
                            col(T, "staticSharedMemory", "0") + ", " + col(T, "dynamicSharedMemory", "0") + ", " +
                            col(T, "graphNodeId") + ", " + col(T, "launchType") + ", " + rowid(T) + " FROM " + T;
    Stmt s(db, sql, path_, T);
    Row v(s, p, T, 19);
    auto& k = t_.kernels;
    k.reserve(static_cast<size_t>(estimate_rows(db, T)));
    size_t row = 0;
    constexpr int64_t u16 = UINT16_MAX, u32 = UINT32_MAX;
    while (s.step()) {
        tick(p, row++, "kernels");
        v.begin();
        int64_t st = v.i64(0, "start", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs),
                en = v.i64(1, "end", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs);
        const int64_t dev_id = v.i64(2, "deviceId", 0, false, INT32_MIN, INT32_MAX);
        const int64_t stream = v.i64(3, "streamId", 0, false, INT32_MIN, u32);
        const auto corr = static_cast<uint32_t>(v.i64(4, "correlationId", 0, false, 0, u32));
        const int64_t gpid = v.i64(5, "globalPid");
        const int64_t name = v.i64(6, name_col.c_str(), 0, true), short_name = v.i64(7, short_col.c_str(), 0, true);
        LaunchShape shape;
        shape.grid_x = static_cast<uint32_t>(v.i64(8, "gridX", 1, false, 0, u32));
        shape.grid_y = static_cast<uint16_t>(v.i64(9, "gridY", 1, false, 0, u16));
        shape.grid_z = static_cast<uint16_t>(v.i64(10, "gridZ", 1, false, 0, u16));
        shape.block_x = static_cast<uint16_t>(v.i64(11, "blockX", 1, false, 0, u16));
        shape.block_y = static_cast<uint16_t>(v.i64(12, "blockY", 1, false, 0, u16));
        shape.block_z = static_cast<uint16_t>(v.i64(13, "blockZ", 1, false, 0, u16));
        shape.registers_per_thread = static_cast<uint16_t>(v.i64(14, "registersPerThread", 0, false, 0, u16));
        const int64_t smem = v.i64(15, "staticSharedMemory", 0, false, 0, u32) +
                             v.i64(16, "dynamicSharedMemory", 0, false, 0, u32);
        shape.shared_memory = clamp_to<uint32_t>(smem);
        const int64_t launch_type = v.i64(18, "launchType");
        if (!v.ok())
            continue;   // counted in one warning per column (finish_bad_values)
        p.fix_interval(st, en);
        p.widen(st, en);
        const uint16_t dev = p.device(dev_id);
        p.use_stream(dev, stream);
        uint8_t flags = 0;
        if (!v.null(17)) {
            flags |= KernelTable::kGraphNode;
            if (corr)
                graph_node_corr_.insert(corr);
            kernel_nodes_.emplace_back(static_cast<uint32_t>(k.start.size()), s.i64(17));
        }
        if (launch_type == 2 || launch_type == 3)
            flags |= KernelTable::kCooperative;
        k.start.push_back(st);
        k.end.push_back(en);
        k.name.push_back(p.name(name));
        k.short_name.push_back(p.name(short_name));
        k.correlation.push_back(corr);
        k.launch_api.push_back(kNoIndex);
        k.device.push_back(dev);
        k.process.push_back(p.process(gpid));
        k.stream.push_back(static_cast<uint32_t>(stream));
        k.shape.push_back(k.intern_shape(shape));
        k.flags.push_back(flags);
    }
    finish_bad_values(p, T, row);
}

// Graph-level tracing: one row per whole graph execution. Rows whose launch also produced node-level kernel rows
// are skipped (no double counting); the rest become one kernel row each, flagged as a graph. Runs in the kernel
// task, after the kernels (it needs their correlation ids).
void Reader::read_graph_trace(sqlite3* db, Part& p)
{
    const std::string T = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
    if (!has(T) || !has_col(T, "start") || !has_col(T, "end"))
        return;
    const std::string sql = "SELECT start, end, " + col(T, "deviceId", "0") + ", " + col(T, "streamId", "0") + ", " +
                            col(T, "correlationId", "0") + ", " + col(T, "globalPid", "0") + ", " +
                            col(T, "graphId", "0") + ", " + rowid(T) + " FROM " + T;
    Stmt s(db, sql, path_, T);
    Row v(s, p, T, 7);
    size_t row = 0, skipped = 0, added = 0;
    while (s.step()) {
        tick(p, row++, "CUDA graphs");
        v.begin();
        int64_t st = v.i64(0, "start", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs),
                en = v.i64(1, "end", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs);
        const int64_t dev_id = v.i64(2, "deviceId", 0, false, INT32_MIN, INT32_MAX);
        const int64_t stream = v.i64(3, "streamId", 0, false, INT32_MIN, UINT32_MAX);
        const auto corr = static_cast<uint32_t>(v.i64(4, "correlationId", 0, false, 0, UINT32_MAX));
        const int64_t gpid = v.i64(5, "globalPid"), graph = v.i64(6, "graphId");
        if (!v.ok())
            continue;
        if (corr && graph_node_corr_.count(corr)) {
            ++skipped;
            continue;
        }
        en = std::max(st, en);
        p.widen(st, en);
        const size_t i = t_.kernels.append(st, en, p.graph_name(graph));
        t_.kernels.device[i] = p.device(dev_id);
        t_.kernels.stream[i] = static_cast<uint32_t>(stream);
        p.use_stream(t_.kernels.device[i], stream);
        t_.kernels.correlation[i] = corr;
        t_.kernels.process[i] = p.process(gpid);
        t_.kernels.flags[i] = KernelTable::kGraphNode;
        ++added;
    }
    finish_bad_values(p, T, row);
    if (skipped)
        p.warnings.push_back(std::to_string(skipped) + " whole-graph rows in " + T +
                             " were skipped because their kernels are listed node by node (not double counted)");
    if (added)
        p.warnings.push_back(std::to_string(added) + " CUDA graph executions were traced at graph level: each "
                             "is one row named \"[CUDA graph N]\"; profile with --cuda-graph-trace=node for kernels");
}

void Reader::read_runtime(sqlite3* db, Part& p)
{
    const std::string T = "CUPTI_ACTIVITY_KIND_RUNTIME";
    if (!has(T))
        return;
    require(T, {"start", "end", "nameId"});
    const std::string sql = "SELECT start, end, " + col(T, "eventClass", "0") + ", " + col(T, "globalTid", "0") + ", " +
                            col(T, "correlationId", "0") + ", nameId, " + rowid(T) + " FROM " + T;
    Stmt s(db, sql, path_, T);
    Row v(s, p, T, 6);
    auto& a = t_.api;
    a.reserve(static_cast<size_t>(estimate_rows(db, T)));
    size_t row = 0;
    while (s.step()) {
        tick(p, row++, "API calls");
        v.begin();
        int64_t st = v.i64(0, "start", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs),
                en = v.i64(1, "end", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs);
        const int64_t cls = v.i64(2, "eventClass");
        const int64_t gtid = v.i64(3, "globalTid");
        const int64_t corr = v.i64(4, "correlationId", 0, false, 0, UINT32_MAX);
        const int64_t name = v.i64(5, "nameId", 0, true);
        if (!v.ok())
            continue;
        p.fix_interval(st, en);
        p.widen(st, en);
        a.start.push_back(st);
        a.end.push_back(en);
        a.name.push_back(p.name(name));
        a.correlation.push_back(static_cast<uint32_t>(corr));
        a.thread.push_back(p.thread(gtid));
        a.api_class.push_back(cls == 0 ? ApiClass::Runtime : cls == 1 ? ApiClass::Driver : ApiClass::Other);
        a.flags.push_back(0);   // set by merge() from the name
    }
    finish_bad_values(p, T, row);
}

void Reader::read_memcpy(sqlite3* db, Part& p)
{
    const std::string T = "CUPTI_ACTIVITY_KIND_MEMCPY";
    if (!has(T))
        return;
    require(T, {"start", "end", "bytes"});
    const std::string sql = "SELECT start, end, " + col(T, "deviceId", "0") + ", " + col(T, "streamId", "0") + ", " +
                            col(T, "correlationId", "0") + ", " + col(T, "globalPid", "0") + ", bytes, " +
                            col(T, "copyKind", "0") + ", " + col(T, "srcKind", "7") + ", " + col(T, "dstKind", "7") +
                            ", " + rowid(T) + " FROM " + T;
    Stmt s(db, sql, path_, T);
    Row v(s, p, T, 10);
    auto& m = t_.memcpy;
    size_t row = 0;
    auto mem_kind = [](int64_t x) { return x >= 0 && x <= 7 ? static_cast<MemKind>(x) : MemKind::Unknown; };
    while (s.step()) {
        tick(p, row++, "memory copies");
        v.begin();
        int64_t st = v.i64(0, "start", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs),
                en = v.i64(1, "end", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs);
        const int64_t dev_id = v.i64(2, "deviceId", 0, false, INT32_MIN, INT32_MAX);
        const int64_t stream = v.i64(3, "streamId", 0, false, INT32_MIN, UINT32_MAX);
        const int64_t corr = v.i64(4, "correlationId", 0, false, 0, UINT32_MAX);
        const int64_t gpid = v.i64(5, "globalPid");
        const int64_t bytes = v.i64(6, "bytes", 0, true, 0);
        const int64_t ck = v.i64(7, "copyKind");
        const int64_t src = v.i64(8, "srcKind", 7), dst = v.i64(9, "dstKind", 7);
        if (!v.ok())
            continue;
        p.fix_interval(st, en);
        p.widen(st, en);
        const size_t i = m.append(st, en, static_cast<uint64_t>(bytes),
                                  ck >= 0 && ck <= 13 ? static_cast<CopyKind>(ck) : CopyKind::Unknown);
        m.device[i] = p.device(dev_id);
        m.stream[i] = static_cast<uint32_t>(stream);
        p.use_stream(m.device[i], stream);
        m.correlation[i] = static_cast<uint32_t>(corr);
        m.process[i] = p.process(gpid);
        m.src_kind[i] = v.null(8) ? MemKind::Unknown : mem_kind(src);
        m.dst_kind[i] = v.null(9) ? MemKind::Unknown : mem_kind(dst);
    }
    finish_bad_values(p, T, row);
}

void Reader::read_memset(sqlite3* db, Part& p)
{
    const std::string T = "CUPTI_ACTIVITY_KIND_MEMSET";
    if (!has(T))
        return;
    require(T, {"start", "end"});
    const std::string sql = "SELECT start, end, " + col(T, "deviceId", "0") + ", " + col(T, "streamId", "0") + ", " +
                            col(T, "correlationId", "0") + ", " + col(T, "globalPid", "0") + ", " +
                            col(T, "bytes", "0") + ", " + col(T, "memKind") + ", " + rowid(T) + " FROM " + T;
    Stmt s(db, sql, path_, T);
    Row v(s, p, T, 8);
    auto& m = t_.memset;
    size_t row = 0;
    while (s.step()) {
        tick(p, row++, "memory sets");
        v.begin();
        int64_t st = v.i64(0, "start", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs),
                en = v.i64(1, "end", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs);
        const int64_t dev_id = v.i64(2, "deviceId", 0, false, INT32_MIN, INT32_MAX);
        const int64_t stream = v.i64(3, "streamId", 0, false, INT32_MIN, UINT32_MAX);
        const int64_t corr = v.i64(4, "correlationId", 0, false, 0, UINT32_MAX);
        const int64_t gpid = v.i64(5, "globalPid");
        const int64_t bytes = v.i64(6, "bytes", 0, false, 0);
        const int64_t mk = v.i64(7, "memKind", -1);
        if (!v.ok())
            continue;
        p.fix_interval(st, en);
        p.widen(st, en);
        const size_t i = m.append(st, en, static_cast<uint64_t>(bytes));
        m.device[i] = p.device(dev_id);
        m.stream[i] = static_cast<uint32_t>(stream);
        p.use_stream(m.device[i], stream);
        m.correlation[i] = static_cast<uint32_t>(corr);
        m.process[i] = p.process(gpid);
        m.mem_kind[i] = mk >= 0 && mk <= 7 ? static_cast<MemKind>(mk) : MemKind::Unknown;
    }
    finish_bad_values(p, T, row);
}

void Reader::read_syncs(sqlite3* db, Part& p)
{
    const std::string T = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    if (!has(T))
        return;
    require(T, {"start", "end"});
    const std::string sql = "SELECT start, end, " + col(T, "deviceId", "0") + ", " + col(T, "streamId", "0") + ", " +
                            col(T, "correlationId", "0") + ", " + col(T, "globalPid", "0") + ", " +
                            col(T, "syncType", "0") + ", " + rowid(T) + " FROM " + T;
    Stmt s(db, sql, path_, T);
    Row v(s, p, T, 7);
    auto& y = t_.syncs;
    size_t row = 0;
    while (s.step()) {
        tick(p, row++, "synchronizations");
        v.begin();
        int64_t st = v.i64(0, "start", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs),
                en = v.i64(1, "end", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs);
        const int64_t dev_id = v.i64(2, "deviceId", 0, false, INT32_MIN, INT32_MAX);
        const int64_t stream = v.i64(3, "streamId", 0, false, INT32_MIN, UINT32_MAX);
        const int64_t corr = v.i64(4, "correlationId", 0, false, 0, UINT32_MAX);
        const int64_t gpid = v.i64(5, "globalPid");
        const int64_t type = v.i64(6, "syncType");
        if (!v.ok())
            continue;
        en = std::max(st, en);
        const size_t i = y.append(st, en);
        y.device[i] = p.device(dev_id);
        y.stream[i] = static_cast<uint32_t>(stream);
        y.correlation[i] = static_cast<uint32_t>(corr);
        y.process[i] = p.process(gpid);
        y.sync_type[i] = clamp_to<uint8_t>(type);
    }
    finish_bad_values(p, T, row);
}

// The string table, the activity tables and NVTX are independent: each is one task with its own connection and its
// own Part, read in parallel when there are threads. Their errors are rethrown and their Parts merged in the order
// the sequential reader used (strings, then the metadata, kernels with graph rows, API calls, copies, sets,
// synchronisations, NVTX), so errors, ids and warnings come out the same (tables_error(), merge(), finish_nvtx()).
void Reader::read_tables()
{
    require("StringIds", {"id", "value"});
    // The tasks, in the order the sequential reader read the tables (merge() and tables_error() rely on it).
    constexpr size_t n = 7;
    parts_.assign(n, Part{});
    const unsigned threads = static_cast<unsigned>(std::min<size_t>(reader_threads(), n));
    extra_.assign(threads > 0 ? threads - 1 : 0, nullptr);
    run_tasks(n, threads, run_, [&](size_t i, unsigned slot) {
        Part& p = parts_[i];
        p.index = i;
        p.reports = slot == 0;
        sqlite3*& db = slot == 0 ? db_ : extra_[slot - 1];
        if (!db)
            open_connection(db);
        switch (i) {   // a switch, not a member-pointer table: GCC 12 -O1 (ASan build) warned on the table
        case 0: read_strings(db, p); break;
        case 1: read_kernels(db, p); read_graph_trace(db, p); break;
        case 2: read_runtime(db, p); break;
        case 3: read_memcpy(db, p); break;
        case 4: read_memset(db, p); break;
        case 5: read_syncs(db, p); break;
        default: read_nvtx(db, p); break;
        }
    });
    done_rows_ += rows_done_.load();
    // A cancel asked for by the last progress report of the calling thread's last table finds no later row check:
    // honour it here, before merging, so a cancel during the table reads always cancels.
    control_.check();
}

// Rethrows the first error of the tasks [from, to) in table order. A task stopped because an earlier one failed
// (Aborted) is passed over: the earlier one's error is the one the sequential read met, and the tasks before that
// ran to the end.
void Reader::tables_error(size_t from, size_t to)
{
    for (size_t i = from; i < to && i < run_.errors.size(); ++i) {
        if (!run_.errors[i])
            continue;
        try {
            std::rethrow_exception(run_.errors[i]);
        } catch (const Aborted&) {
            continue;
        }
    }
}

// Maps one task's local ids to the Trace's, in the order of first use (as the sequential reader assigned them).
void Reader::merge(Part& p)
{
    std::vector<StrId>& names = p.name_ids;
    names.resize(p.names.size());
    for (size_t i = 0; i < names.size(); ++i)
        names[i] = p.names[i].is_literal ? intern_name(p.names[i].literal) : str(p.names[i].id);
    std::vector<uint16_t> devices(p.devices.size()), processes(p.processes.size());
    std::vector<uint32_t> threads(p.threads.size());
    for (size_t i = 0; i < devices.size(); ++i)
        devices[i] = device(p.devices[i]);
    for (size_t i = 0; i < processes.size(); ++i)
        processes[i] = process(p.processes[i]);
    for (size_t i = 0; i < threads.size(); ++i)
        threads[i] = thread(p.threads[i]);
    auto remap = [](auto& column, const auto& map) {
        for (auto& v : column)
            v = map[v];
    };
    switch (p.index) {
    case 1:
        remap(t_.kernels.name, names);
        remap(t_.kernels.short_name, names);
        remap(t_.kernels.device, devices);
        remap(t_.kernels.process, processes);
        break;
    case 2: {
        auto& a = t_.api;
        remap(a.name, names);
        remap(a.thread, threads);
        for (size_t r = 0; r < a.size(); ++r) {
            const StrId name = a.name[r];
            if (name >= api_flags_.size())
                api_flags_.resize(static_cast<size_t>(name) + 1, 0xFF);
            uint8_t& f = api_flags_[name];
            if (f == 0xFF)
                f = classify_api_name(t_.str(name));
            a.flags[r] = f;
        }
        break;
    }
    case 3:
        remap(t_.memcpy.device, devices);
        remap(t_.memcpy.process, processes);
        break;
    case 4:
        remap(t_.memset.device, devices);
        remap(t_.memset.process, processes);
        break;
    case 5:
        remap(t_.syncs.device, devices);
        remap(t_.syncs.process, processes);
        break;
    case 6:
        remap(t_.ranges.name, names);
        remap(t_.ranges.thread, threads);
        remap(t_.marks.name, names);
        remap(t_.marks.thread, threads);
        break;
    default:
        break;
    }
    for (uint64_t key : p.streams)
        streams_used_.insert((static_cast<uint64_t>(devices[key >> 32]) << 32) | (key & 0xFFFFFFFFu));
    if (p.index != 6) {   // NVTX widens the window only after it is anchored (finish_nvtx())
        lo_ = std::min(lo_, p.lo);
        hi_ = std::max(hi_, p.hi);
    }
    bad_intervals_ += p.bad_intervals;
    truncated_names_ += p.truncated_names;
    for (auto& w : p.warnings)
        t_.meta.warnings.push_back(std::move(w));
}

// NVTX ranges and marks. Read as a task like the activity tables; what needs the capture window (ranges that never
// ended close at its end) and the domain prefixes are done by finish_nvtx() after the window is known.
void Reader::read_nvtx(sqlite3* db, Part& p)
{
    const std::string T = "NVTX_EVENTS";
    if (!has(T))
        return;
    require(T, {"start", "eventType"});
    const std::string sql = "SELECT start, " + col(T, "end") + ", eventType, " + col(T, "text") + ", " +
                            col(T, "textId") + ", " + col(T, "globalTid", "0") + ", " + col(T, "domainId") + ", " +
                            rowid(T) + " FROM " + T;
    Stmt s(db, sql, path_, T);
    Row v(s, p, T, 7);
    auto& r = t_.ranges;
    size_t row = 0;
    uint64_t text_bytes = 0;
    std::string cut;
    // Inline texts are names too: bounded in length (counted) and in total.
    auto text_of = [&](int c) {
        std::string_view t = s.text(c);
        if (bound_name(t, cut))
            ++p.truncated_names;
        return t;
    };
    while (s.step()) {
        tick(p, row++, "NVTX");
        v.begin();
        const int64_t type = v.i64(2, "eventType", 0, true);
        const int64_t domain = v.i64(6, "domainId");
        const int64_t text_id = v.i64(4, "textId");
        const int64_t gtid = v.i64(5, "globalTid");
        if (!v.ok())
            continue;
        const bool push_pop = type == 59 || type == 70;
        const bool start_end = type == 60 || type == 71;
        const bool mark = type == 34;
        if (type == 75) {   // NvtxDomainCreate: the domain's name
            Part::Domain d;
            if (!v.null(4))
                d.name = p.name(text_id);
            else
                d.text = text_of(3);
            p.domains[domain] = std::move(d);
            continue;
        }
        if (!push_pop && !start_end && !mark)
            continue;
        int64_t st = v.i64(0, "start", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs);
        const bool is_open = v.null(1);
        int64_t en = is_open ? st : v.i64(1, "end", 0, true, -kMaxTraceTimeNs, kMaxTraceTimeNs);
        if (!v.ok())
            continue;
        uint32_t name = 0;
        if (!v.null(4)) {
            name = p.name(text_id);
        } else {
            const size_t before = p.names.size();
            const std::string_view t = text_of(3);
            name = p.text_name(t);
            if (p.names.size() > before && (text_bytes += t.size()) > name_bytes_limit())
                check_name_bytes(path_, T + ".text, rowid " + std::to_string(s.i64(7)), text_bytes);
        }
        const uint32_t thr = p.thread(gtid);
        if (mark) {
            t_.marks.time.push_back(st);
            t_.marks.name.push_back(name);
            t_.marks.thread.push_back(thr);
            if (domain != 0)
                p.mark_domain.emplace_back(t_.marks.size() - 1, domain);
            continue;
        }
        p.fix_interval(st, en);
        const size_t i = r.append(st, en, name, thr, push_pop ? RangeKind::PushPop : RangeKind::StartEnd);
        if (is_open)
            p.open_ranges.push_back(i);
        else
            p.widen(st, en);
        if (domain != 0)
            p.range_domain.emplace_back(i, domain);
    }
    finish_bad_values(p, T, row);
}

void Reader::finish_nvtx(Part& p)
{
    auto& r = t_.ranges;
    lo_ = std::min(lo_, p.lo);
    hi_ = std::max(hi_, p.hi);
    // Ranges that never closed end at the capture end.
    for (size_t i : p.open_ranges)
        widen(r.start[i], r.start[i]);
    for (size_t i : p.open_ranges)
        r.end[i] = std::max(hi_, r.start[i]);
    if (!p.open_ranges.empty())
        t_.meta.warnings.push_back(std::to_string(p.open_ranges.size()) +
                                   " NVTX ranges never ended; they are closed at the end of the capture");
    // Non-default domains prefix the name: "domain:text" (as nsys' nvtx reports do).
    std::unordered_map<int64_t, std::string> domains;
    for (const auto& [id, d] : p.domains)
        domains[id] = d.name >= 0 ? std::string(t_.str(p.name_ids[static_cast<size_t>(d.name)]))
                                  : has_control_chars(d.text) ? escape_control_chars(d.text) : d.text;
    auto prefixed = [&](StrId name, int64_t domain) {
        auto it = domains.find(domain);
        if (it == domains.end() || it->second.empty())
            return name;
        return t_.strings.intern(it->second + ":" + std::string(t_.str(name)));
    };
    for (const auto& [i, d] : p.range_domain)
        r.name[i] = prefixed(r.name[i], d);
    for (const auto& [i, d] : p.mark_domain)
        t_.marks.name[i] = prefixed(t_.marks.name[i], d);
}

void Reader::read_names_and_devices()
{
    auto& meta = t_.meta;
    if (has_col("ThreadNames", "nameId") && has_col("ThreadNames", "globalTid") && !threads_.empty()) {
        Stmt s(db_, "SELECT globalTid, nameId FROM ThreadNames", path_, "ThreadNames");
        while (s.step()) {
            auto it = threads_.find(s.i64(0));
            if (it != threads_.end())
                meta.threads[it->second].name = t_.str(str(s.i64(1)));
        }
    }
    if (has_col("PROCESSES", "pid") && has_col("PROCESSES", "name") && !meta.processes.empty()) {
        Stmt s(db_, "SELECT pid, name FROM PROCESSES", path_, "PROCESSES");
        while (s.step())
            for (auto& p : meta.processes)
                if (p.pid == s.i64(0) && p.name.empty())
                    p.name = s.text(1);
    }
    const std::string G = "TARGET_INFO_GPU";
    if (has_col(G, "id") && !meta.devices.empty()) {
        // The table lists every GPU of the node; a kernel's deviceId is its id, else the CUDA ordinal the process saw
        // (cuDevice: a CUTLASS benchmark's kernels on deviceId 0 of a node whose rows are ids 1-3, cuDevice 0-2),
        // else, when every row is alike but for its ids, any row.
        struct Row {
            int64_t id = 0, cu_device = -1;
            DeviceInfo info;
        };
        std::vector<Row> rows;
        const std::string sql = "SELECT id, " + col(G, "name") + ", " + col(G, "smCount") + ", " +
                                col(G, "memoryBandwidth") + ", " + col(G, "clockRate") + ", " + col(G, "totalMemory") +
                                ", " + col(G, "l2CacheSize") + ", " + col(G, "computeMajor") + ", " +
                                col(G, "computeMinor") + ", " + col(G, "chipName") + ", " + col(G, "threadsPerWarp") +
                                ", " + col(G, "cuDevice", "-1") + " FROM " + G;
        Stmt s(db_, sql, path_, G);
        while (s.step()) {
            Row r;
            r.id = s.i64(0);
            r.cu_device = s.null(11) ? -1 : s.i64(11);
            DeviceInfo& d = r.info;
            d.name = s.text(1);
            d.sm_count = static_cast<int32_t>(s.i64(2));
            d.memory_bandwidth_Bps = static_cast<double>(s.i64(3));
            d.clock_hz = s.i64(4);
            d.total_memory_bytes = s.i64(5);
            d.l2_cache_bytes = s.i64(6);
            d.compute_major = static_cast<int32_t>(s.i64(7));
            d.compute_minor = static_cast<int32_t>(s.i64(8));
            d.chip = s.text(9);
            d.warp_size = static_cast<int32_t>(s.i64(10));
            rows.push_back(std::move(r));
        }
        auto apply = [](DeviceInfo& d, const DeviceInfo& from, std::string how) {
            const int32_t id = d.id, rank = d.rank;
            d = from;
            d.id = id;
            d.rank = rank;
            d.properties_from = std::move(how);
        };
        auto alike = [](const DeviceInfo& a, const DeviceInfo& b) {
            return a.name == b.name && a.sm_count == b.sm_count && a.memory_bandwidth_Bps == b.memory_bandwidth_Bps &&
                   a.clock_hz == b.clock_hz && a.total_memory_bytes == b.total_memory_bytes &&
                   a.compute_major == b.compute_major && a.compute_minor == b.compute_minor && a.chip == b.chip;
        };
        const bool all_alike = !rows.empty() && std::all_of(rows.begin(), rows.end(), [&](const Row& r) {
            return alike(r.info, rows.front().info);
        });
        for (auto& d : meta.devices) {
            auto by_id = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.id == d.id; });
            auto by_ordinal = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.cu_device == d.id; });
            if (by_id != rows.end())
                apply(d, by_id->info, "");
            else if (by_ordinal != rows.end())
                apply(d, by_ordinal->info, "TARGET_INFO_GPU row id " + std::to_string(by_ordinal->id) +
                                               ", by its CUDA ordinal (cuDevice " + std::to_string(d.id) +
                                               "): no row has id " + std::to_string(d.id));
            else if (all_alike)
                apply(d, rows.front().info, "TARGET_INFO_GPU row id " + std::to_string(rows.front().id) +
                                                ": no row has id or cuDevice " + std::to_string(d.id) + ", and all " +
                                                std::to_string(rows.size()) + " are alike");
        }
    }
    // Streams that carry work, with their type label from TARGET_INFO_CUDA_STREAM when present.
    std::map<int64_t, std::pair<int32_t, std::string>> stream_info;
    const std::string S = "TARGET_INFO_CUDA_STREAM";
    if (has_col(S, "streamId")) {
        std::map<int64_t, std::string> labels;
        if (has_col("ENUM_CUPTI_STREAM_TYPE", "id") && has_col("ENUM_CUPTI_STREAM_TYPE", "label")) {
            Stmt e(db_, "SELECT id, label FROM ENUM_CUPTI_STREAM_TYPE", path_, "ENUM_CUPTI_STREAM_TYPE");
            while (e.step())
                labels[e.i64(0)] = e.text(1);
        }
        Stmt s(db_, "SELECT streamId, " + col(S, "priority", "0") + ", " + col(S, "flag", "0") + " FROM " + S, path_, S);
        while (s.step()) {
            auto it = labels.find(s.i64(2));
            stream_info[s.i64(0)] = {static_cast<int32_t>(s.i64(1)), it == labels.end() ? std::string() : it->second};
        }
    }
    for (uint64_t key : streams_used_) {
        StreamInfo si;
        si.device = static_cast<uint16_t>(key >> 32);
        si.stream = static_cast<uint32_t>(key & 0xFFFFFFFFu);
        auto it = stream_info.find(si.stream);
        if (it != stream_info.end()) {
            si.priority = it->second.first;
            si.label = it->second.second;
        }
        meta.streams.push_back(std::move(si));
    }
}

Trace Reader::read()
{
    open();
    discover();
    for (const char* tb : {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                           "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                           "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "NVTX_EVENTS"})
        total_rows_ += estimate_rows(db_, tb);
    control_.report(0.0, "opening");
    read_tables();
    tables_error(0, 1);   // StringIds
    for (auto& w : parts_[0].warnings)
        t_.meta.warnings.push_back(std::move(w));
    read_meta();
    const int64_t window_lo = lo_, window_hi = hi_;
    lo_ = INT64_MAX;
    hi_ = INT64_MIN;
    tables_error(1, parts_.size());
    for (size_t i = 1; i < parts_.size(); ++i)
        merge(parts_[i]);
    // Capture window (issue 13): the length nsys reports (ANALYSIS_DETAILS.duration) on the events' clock. Event
    // times count from the session start, so the window is [0, duration] when every event lies in it (all real
    // exports in ../shared/data); else [startTime, stopTime] when those bracket the events (exports written by
    // nsys_writer); else it is anchored on the first event and widened to the last, with a warning.
    const int64_t dur = t_.meta.reported_capture_ns;
    const bool have_events = lo_ <= hi_;
    const bool have_window = window_lo != INT64_MAX;
    if (dur > 0) {
        if (!have_events || (lo_ >= 0 && hi_ <= dur)) {
            lo_ = 0;
            hi_ = dur;
            t_.meta.capture_source = "nsys ANALYSIS_DETAILS.duration from the session start";
        } else if (have_window && window_lo <= lo_ && window_hi >= hi_) {
            lo_ = window_lo;
            hi_ = window_hi;
            t_.meta.capture_source = "nsys ANALYSIS_DETAILS.startTime..stopTime";
        } else {
            const int64_t first = lo_;
            hi_ = std::max(hi_, first + dur);
            t_.meta.capture_source = "nsys ANALYSIS_DETAILS.duration from the first event";
            if (hi_ > first + dur)
                t_.meta.warnings.push_back("events run past the capture length nsys reports (ANALYSIS_DETAILS."
                                           "duration); the window was widened to the last event");
        }
    } else if (have_window) {
        lo_ = std::min(lo_, window_lo);
        hi_ = std::max(hi_, window_hi);
        t_.meta.capture_source = "nsys ANALYSIS_DETAILS.startTime..stopTime, widened to the events";
    } else {
        t_.meta.capture_source = "events";
    }
    finish_nvtx(parts_.back());
    parts_.clear();
    read_names_and_devices();
    control_.check();

    auto& meta = t_.meta;
    if (lo_ <= hi_) {
        meta.capture_start = lo_;
        meta.capture_end = hi_;
    }
    if (t_.kernels.size() == 0)
        meta.warnings.push_back(has("CUPTI_ACTIVITY_KIND_KERNEL")
                                    ? "no GPU activity: the kernel table is empty"
                                    : "no GPU activity: the export has no kernel table (CUPTI_ACTIVITY_KIND_KERNEL)");
    if (bad_intervals_)
        meta.warnings.push_back(std::to_string(bad_intervals_) + " rows ended before they started; their end was set "
                                "to their start");
    if (truncated_names_)
        meta.warnings.push_back(std::to_string(truncated_names_) + " names were longer than " +
                                std::to_string(kMaxNameBytes) + " bytes; each was cut there and ends in \"[... N more "
                                "bytes]\"");
    control_.report(1.0, "linking");
    control_.check();   // a cancel asked for by that report stops here, before linking
    t_.finish();
    read_graph_nodes();
    return std::move(t_);
}

// Graph-node ids (--cuda-graph-trace=node): each replayed kernel's node, and the node's creation on the capturing
// thread (CUDA_GRAPH_NODE_EVENTS, or CUDA_GRAPH_EVENTS in exports that keep node rows there), joined by graph_join.h.
void Reader::read_graph_nodes()
{
    if (kernel_nodes_.empty())
        return;
    std::string T;
    for (const char* tb : {"CUDA_GRAPH_NODE_EVENTS", "CUDA_GRAPH_EVENTS"})
        if (has(tb) && has_col(tb, "graphNodeId") && has_col(tb, "start")) {
            T = tb;
            break;
        }
    if (T.empty())
        return;
    Stmt s(db_, "SELECT start, " + col(T, "globalTid", "0") + ", graphNodeId, " + col(T, "originalGraphNodeId") +
                    " FROM " + T,
           path_, T);
    std::vector<GraphNodeOrigin> origins;
    while (s.step()) {
        if (s.null(2))
            continue;
        GraphNodeOrigin o;
        o.created = s.i64(0);
        o.thread = thread(s.i64(1));
        o.node = s.i64(2);
        o.original = s.null(3) ? 0 : s.i64(3);
        origins.push_back(o);
    }
    std::vector<int64_t> node(t_.kernels.size(), 0);
    for (const auto& [row, id] : kernel_nodes_)
        if (row < node.size())
            node[row] = id;
    join_graph_nodes(t_, node, origins);
}

// ---- .nsys-rep / .qdrep --------------------------------------------------------------------------------------------

std::string find_on_path(const std::string& exe)
{
    const char* p = std::getenv("PATH");
    if (!p)
        return {};
    std::string path = p;
    size_t pos = 0;
    while (pos <= path.size()) {
        const size_t next = path.find(':', pos);
        std::string cand = path.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        if (cand.empty())
            cand.push_back('.');
        cand.push_back('/');
        cand.append(exe);
        struct stat st {};
        if (::stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(cand.c_str(), X_OK) == 0)
            return cand;
        if (next == std::string::npos)
            break;
        pos = next + 1;
    }
    return {};
}

std::string shell_quote(const std::string& s)
{
    std::string q = "'";
    for (char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

std::string cache_dir()
{
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    std::string base;
    if (xdg && *xdg)
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::string(home) + "/.cache";
    else
        base = "/tmp";
    return base + "/sightline";
}

void make_dirs(const std::string& dir)
{
    for (size_t pos = 1; pos != std::string::npos;) {
        pos = dir.find('/', pos + 1);
        ::mkdir(dir.substr(0, pos).c_str(), 0755);
    }
}

} // namespace

Trace read_nsys_sqlite(const std::string& path, const LoadControl& control)
{
    Reader r(path, control);
    return r.read();
}

Trace read_nsys_report(const std::string& path, const LoadControl& control)
{
    struct stat st {};
    if (const std::string why = input_file_problem(path); !why.empty())
        throw TraceError(path, "", "an .nsys-rep / .qdrep report", why);
    if (::stat(path.c_str(), &st) != 0)
        throw TraceError(path, "", "an .nsys-rep / .qdrep report", open_error_text(errno));
    std::string suggested = path;
    if (const auto dot = suggested.rfind('.'); dot != std::string::npos && suggested.find('/', dot) == std::string::npos)
        suggested.resize(dot);
    suggested += ".sqlite";
    const std::string nsys = find_on_path("nsys");
    if (nsys.empty())
        throw TraceError(path, "", "an nsys SQLite export (Sightline reads .nsys-rep/.qdrep only through `nsys export`)",
                         "an Nsight Systems report and no `nsys` on PATH; run: nsys export --type sqlite "
                         "--force-overwrite true -o " + shell_quote(suggested) + " " + shell_quote(path) +
                             "  and open " + shell_quote(suggested));
    // Cache key: the report's identity (path, size, modification time), FNV-1a.
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* p, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            h ^= static_cast<const unsigned char*>(p)[i];
            h *= 1099511628211ull;
        }
    };
    mix(path.data(), path.size());
    mix(&st.st_size, sizeof st.st_size);
    mix(&st.st_mtim, sizeof st.st_mtim);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    const std::string dir = cache_dir();
    make_dirs(dir);
    const std::string out = dir + "/" + hex + ".sqlite";
    struct stat cst {};
    if (::stat(out.c_str(), &cst) != 0 || cst.st_size == 0) {
        control.report(0.0, "nsys export");
        const std::string out_base = dir + "/" + hex;   // nsys appends .sqlite
        std::vector<std::string> argv_s = {nsys, "export", "--type", "sqlite", "--force-overwrite", "true",
                                           "-o", out_base, path};
        std::vector<char*> argv;
        for (auto& a : argv_s)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_t pid = 0;
        // nsys gets SIGPIPE as it would from a shell (sightline-cli ignores it, for exit 4 on a closed output).
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        sigset_t def;
        sigemptyset(&def);
        sigaddset(&def, SIGPIPE);
        posix_spawnattr_setsigdefault(&attr, &def);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
        const int spawned = posix_spawn(&pid, nsys.c_str(), nullptr, &attr, argv.data(), environ);
        posix_spawnattr_destroy(&attr);
        if (spawned != 0)
            throw TraceError(path, "", "a successful `nsys export`", std::string("nsys could not be started: ") + std::strerror(spawned));
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || ::stat(out.c_str(), &cst) != 0)
            throw TraceError(path, "", "a successful `nsys export --type sqlite`",
                             "nsys failed (status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                                 "); try: nsys export --type sqlite --force-overwrite true -o " +
                                 shell_quote(suggested) + " " + shell_quote(path));
    }
    Trace t = read_nsys_sqlite(out, control);
    t.meta.source_path = path;
    t.meta.environment["nsys_export_cache"] = out;
    return t;
}

} // namespace sl

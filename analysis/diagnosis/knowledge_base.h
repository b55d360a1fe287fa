#pragma once
// The knowledge base: a SQLite file (default $XDG_DATA_HOME/sightline/knowledge.db) that remembers environments,
// runs, per-operator measurements, findings, suggestions with their state and the user's annotation, and A/B
// verifications. Confidence of a suggestion rises and falls with its verified history on similar environments.
//
// Safety: WAL journal, synchronous=FULL, busy_timeout, every write one IMMEDIATE transaction: two Sightline
// processes can write at once, and a crash (even kill -9 mid-write) loses nothing that was committed. The schema
// version lives in PRAGMA user_version; opening an older file migrates it step by step inside a transaction.
//
// Schema (version 3):
//   environments(id, key UNIQUE, gpu, driver, cuda, libraries_json, model_hash, batch, seq_len, created_at)
//   runs(id, trace_path, trace_hash, recorded_at, env_id, metrics_json)
//   operator_measurements(id, run_id, name, op_class, count, total_ns, avg_ns, e_roof)         -- since v2
//   findings(id, run_id, rule, verdict, severity, subject, expected_gain, confidence, json)
//   suggestions(id, finding_id, run_id, key, text, metric, direction, state, annotation, updated_at)
//                                                               -- annotation, metric, direction since v2
//   verifications(id, suggestion_id, suggestion_key, before_run, after_run, metric, before_value, after_value,
//                 delta, verdict, recorded_at, whatif_change, predicted_value, prediction_error)
//                                                     -- whatif_change, predicted_value, prediction_error since v3

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnosis/findings.h"
#include "analysis/io/fingerprint.h"
#include "analysis/diagnosis/rules.h"

struct sqlite3;

namespace sl {

class KbError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class SuggestionState : uint8_t { Proposed, Accepted, Rejected, Verified, Failed };
const char* suggestion_state_name(SuggestionState s);
std::optional<SuggestionState> parse_suggestion_state(std::string_view s);

struct RunRecord {
    int64_t id = 0;
    std::string trace_path, trace_hash;
    int64_t recorded_at = 0;                    // unix seconds
    int64_t env_id = 0;
    std::map<std::string, double> metrics;      // headline metrics (tpot_median_ns, idle_fraction, ...)
};

struct OperatorMeasurement {
    std::string name, op_class;
    int64_t count = 0, total_ns = 0;
    double avg_ns = 0;
    std::optional<double> e_roof;
};

struct SuggestionRecord {
    int64_t id = 0, finding_id = 0, run_id = 0;
    std::string key;                            // "<rule>/<suggestion id>"
    std::string text, metric, direction;
    std::string subject;                        // the finding's subject
    SuggestionState state = SuggestionState::Proposed;
    std::string annotation;
    int64_t updated_at = 0;
};

struct VerificationRecord {
    int64_t id = 0;
    int64_t suggestion_id = 0;                  // 0 when not tied to a stored suggestion
    std::string suggestion_key;
    int64_t before_run = 0, after_run = 0;
    std::string metric;
    double before_value = 0, after_value = 0;
    double delta = 0;                           // relative: (after - before) / before
    std::string verdict;                        // "verified" | "failed" | "inconclusive"
    int64_t recorded_at = 0;
    // Issue 35 §4: what the replay of the suggestion's change (critpath/whatif.h) predicted for the metric, and the
    // prediction error (after_value - predicted_value) / after_value. Empty without a replay (and in v2 rows).
    std::string change;                         // the what-if change ("cuda-graphs", "remove-sync"); "" = none
    std::optional<double> predicted_value;
    std::optional<double> prediction_error;
};

class KnowledgeBase {
public:
    static constexpr int kSchemaVersion = 3;

    // $XDG_DATA_HOME/sightline/knowledge.db, else ~/.local/share/sightline/knowledge.db.
    static std::string default_path();

    // How a command uses the knowledge base: reading commands (kb list, kb history, analyze --kb) open it read-only,
    // so a read-only file or file system still works and nothing is created by reading.
    enum class Access { ReadWrite, ReadOnly };

    // Opens or creates the file and migrates it to kSchemaVersion. The directory must exist (only the default
    // path's directory is created): a typo in --kb is an error, not a new database. Throws KbError with a sentence
    // when it cannot: no such directory, a file that is not SQLite or an SQLite database that is not a knowledge
    // base, a file that cannot be written, a schema newer than this build knows.
    // ReadOnly: a file that does not exist reads as an empty knowledge base (in memory; nothing is created); an
    // older schema is migrated only when the file can be written.
    explicit KnowledgeBase(const std::string& path, int busy_timeout_ms = 10'000);
    KnowledgeBase(const std::string& path, Access access, int busy_timeout_ms = 10'000);
    bool read_only() const { return read_only_; }
    ~KnowledgeBase();
    KnowledgeBase(const KnowledgeBase&) = delete;
    KnowledgeBase& operator=(const KnowledgeBase&) = delete;

    const std::string& path() const { return path_; }
    int schema_version() const;

    int64_t upsert_environment(const EnvFingerprint& env);
    std::optional<EnvFingerprint> environment(int64_t env_id) const;

    // A run of a trace; returns its id. Findings and measurements are written in the same transaction.
    int64_t record_run(const RunRecord& run, const std::vector<OperatorMeasurement>& ops = {},
                       const std::vector<Finding>& findings = {});
    // record_run unless a run with the same (non-empty) trace hash exists, in one write transaction, so two
    // instances opening the same new trace at once record it once. Returns the run's id.
    int64_t find_or_record_run(const RunRecord& run, const std::vector<OperatorMeasurement>& ops = {},
                               const std::vector<Finding>& findings = {});
    std::optional<RunRecord> run(int64_t id) const;
    // The latest run of a trace with this content hash.
    std::optional<RunRecord> find_run_by_hash(const std::string& trace_hash) const;
    std::vector<RunRecord> runs() const;
    int64_t count(const std::string& table) const;   // rows in a table (tests, `kb stats`)

    std::vector<OperatorMeasurement> operator_measurements(int64_t run_id) const;
    std::vector<SuggestionRecord> suggestions(std::optional<int64_t> run_id = std::nullopt,
                                              std::optional<SuggestionState> state = std::nullopt) const;
    // Changes state (and annotation when given). Throws KbError when the id does not exist.
    void set_suggestion_state(int64_t suggestion_id, SuggestionState state,
                              const std::optional<std::string>& annotation = std::nullopt);

    // Changes only the annotation (one UPDATE): a state another instance set meanwhile is kept. Throws KbError
    // when the id does not exist.
    void set_suggestion_annotation(int64_t suggestion_id, const std::string& annotation);

    int64_t record_verification(const VerificationRecord& v);
    std::vector<VerificationRecord> verifications(const std::string& suggestion_key = {}) const;

    // History of a suggestion over environments at least min_similarity alike to `env`.
    std::optional<SuggestionHistory> history(const std::string& suggestion_key, const EnvFingerprint& env,
                                             double min_similarity = 0.5) const;
    // For EvalOptions::history.
    HistoryLookup history_lookup(const EnvFingerprint& env) const;

private:
    void migrate();
    void open_file(int flags, bool uri);
    int check_schema();   // refuses a foreign database; returns the schema version
    int64_t insert_run(const RunRecord& run, const std::vector<OperatorMeasurement>& ops,
                       const std::vector<Finding>& findings);   // inside the caller's transaction
    std::string path_;
    sqlite3* db_ = nullptr;
    bool read_only_ = false;
};

} // namespace sl

#pragma once
// The time ledger: every finding that promises to remove time names *which* time, and its gain is bounded by it.
//
// Entries form a tree over the GPU-active device time of the trace (the end-to-end basis, "wall"):
//
//   wall ─┬─ idle ─┬─ idle:launch ─┬─ idle:host      gaps the CPU did not feed (idle.h host_wait)
//         │        │               └─ idle:kernel    launch latency between queued kernels (kernel_wait)
//         │        ├─ idle:sync                      gaps behind a host-blocking sync (sync_wait)
//         │        └─ idle:other
//         └─ busy ─┬─ copy:h2d-exposed               H2D copy time not hidden under compute
//                  ├─ comm:exposed ── comm:straggler-wait   communication time not hidden under compute; of it,
//                  │                                 the other ranks' waits for a straggler rank (collectives.h)
//                  ├─ class:<subject>                an operator class's kernel time (from its scope's total_ns)
//                  └─ kernel:<subject>               a kernel name's time (from its scope's total_ns)
//
// A rule names its entry in "removes": {"time": "idle:host", "cap": "host_wait_ns"} ("{subject}" is filled; the
// optional cap is a metric of the finding's scope bounding its own share, e.g. a phase's host wait or a kernel's
// total time). A rule without "removes" claims "wall"; "time": "none" marks a check that promises no time (it is
// left out of the ledger and keeps its rule's severity). The rule's gain (its ns, or its fraction of the scope's
// time, or the midpoint of its range when the trace gives nothing) is the *claim*; the ledger grants
// min(claim, cap, what is left of the entry and of every entry above it). Entries are settled deepest first;
// findings on one entry share what is left in proportion to their claims, so each nanosecond is granted once and
// the sum of all grants never exceeds the wall.
//
// Gating: a finding whose entry is idle time (launch, sync, host, pageable-copy findings) is suppressed when that
// idle time is below gate_fraction of the wall — the GPU was not waiting on it, so removing it saves nothing.
// Severity then follows the bounded end-to-end gain: min(the rule's severity, high >= 10 %, medium >= 3 %,
// low >= 0.5 %, else info).

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/diagnosis/findings.h"
#include "analysis/diagnosis/rules.h"

namespace sl {

struct LedgerOptions {
    double gate_fraction = 0.01;     // idle entries below this share of the wall: their findings are suppressed
    double high_fraction = 0.10;     // bounded end-to-end gain needed for high severity ...
    double medium_fraction = 0.03;   // ... medium ...
    double low_fraction = 0.005;     // ... low (below: info)
};

struct LedgerEntry {
    std::string key, parent;
    double available_ns = 0;         // the time in the trace
    double claimed_ns = 0;           // Σ claims of the findings on this entry (bounded by their caps)
    double granted_ns = 0;           // Σ granted to findings on this entry
    double consumed_ns = 0;          // granted here and in entries below
    std::vector<std::string> findings;   // "rule @ subject"
};

struct SuppressedFinding {
    std::string rule, subject, verdict, entry;
    double available_ns = 0, claimed_ns = 0;
    std::string reason;
};

struct Ledger {
    double wall_ns = 0;
    std::vector<LedgerEntry> entries;           // tree order: parents before children
    std::vector<SuppressedFinding> suppressed;
    double granted_ns() const;                  // Σ granted over all entries (<= wall_ns)
    const LedgerEntry* find(const std::string& key) const;
};

// Bounds, shares and re-ranks `findings` in place (each gets expected_gain.ledger), removes the gated ones (listed
// in Ledger::suppressed) and sets severities from the bounded gains. `scopes` are the ones the findings were
// evaluated on (metrics_binding.h); `rules` gives each finding's "removes".
Ledger apply_ledger(std::vector<Finding>& findings, const std::vector<MetricScope>& scopes, const RuleSet& rules,
                    const LedgerOptions& options = {});

// The severity a bounded end-to-end gain supports.
Severity severity_for_gain(double fraction, const LedgerOptions& options = {});

// {"wall_ns", "granted_ns", "entries": [{key, parent, available_ns, claimed_ns, granted_ns, findings}],
//  "suppressed": [{rule, subject, verdict, time, available_ns, claimed_ns, reason}]}
nlohmann::json ledger_to_json(const Ledger& l);

struct OpClassResult;
// A ledger entry in words for people, in English and Chinese: "idle:host" -> "GPU idle time waiting for the host",
// "class:gemm (decode)" -> "GEMM / GEMV time in decode" (class labels from `classes` when given, else the id).
// Unknown entries come back as they are. The key itself stays in JSON; this is for text.
LocalText ledger_entry_words(const std::string& entry, const OpClassResult* classes = nullptr);

} // namespace sl

#pragma once
// The time ledger: every finding that promises to remove time names *which* time, and its gain is bounded by it.
//
// Entries form a tree over the GPU-active device time of the trace (the end-to-end basis, "wall"):
//
//   wall ─┬─ idle:edge                               idle at the capture's edges (timeline/capture_edge.h): before
//         │                                          the first step or after the last; no finding is granted it
//         ├─ idle ─┬─ idle:launch ─┬─ idle:host ── idle:host:<cause>   gaps the CPU did not feed (idle.h host_wait);
//         │        │               │                of them, those the host spent compiling, autotuning, loading
//         │        │               │                modules or allocating (timeline/host_causes.h)
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
// the findings on one entry are views of the same nanoseconds, and the larger claim keeps them: largest claim first
// (equal claims: the narrower scope first), each is granted what it asks of what the larger ones left, so each
// nanosecond is granted once and the sum of all grants never exceeds the wall.
//
// One claim per kernel: the busy entries that are made of kernels (class:<id>, class:<id> (<phase>),
// class:elementwise-copy, kernel:<name>) are resolved to their kernel rows (KernelPools). Entries over overlapping
// kernels share them: taken in order of their claims, largest first, each keeps the kernels no larger claim took,
// and its time, claims and caps shrink to the share of its kernel time still free — the union is claimed once, and
// the larger claim keeps what two pools share (the fusion of all elementwise kernels and a Roofline finding on the
// elementwise kernels of prefill promise the same nanoseconds once, not twice).
//
// Gating: a finding whose entry is idle time (launch, sync, host, pageable-copy findings) is suppressed when that
// idle time is below gate_fraction of the wall — the GPU was not waiting on it, so removing it saves nothing.
//
// The capture's edges: the trace scope's edge_<cause>_ns metrics (diagnosis/binders/trace_scope.cpp) are taken out
// of their idle entries (idle and every entry of that cause) into idle:edge, which no rule claims: a stall before the
// first step or after the last is the capture's, and a finding that promises to remove idle is granted only the steady state's.
//
// Severity follows the bounded end-to-end gain g (share of the wall) and the finding's confidence c, both ways:
//   high    g >= 10 % and c >= 0.4;   medium  g >= 3 % (or g >= 10 % with c < 0.4);   low  g >= 0.5 %;   else info.
// A rule of kind "remedy" whose gain the trace measured (gain.computed) gets that severity, above or below the
// rule's own, which is then only its default; when the gain is only the rule's range (the trace did not measure
// it), the severity is at most the rule's. A rule of kind "check" keeps its severity.
//
// Evidence minimum: a trace whose GPU did less than min_evidence_busy_ns of work *and* ran fewer than
// min_evidence_kernels kernels (a toy program, a capture that caught a few launches) supports no finding above
// low, whatever its gains: 2 ms of GPU work or 200 kernels is about one decode step of a small model, the least a
// statement about a run can rest on. Each finding so capped says why in its gain's basis (Ledger::thin_evidence).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
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
    double high_confidence = 0.4;    // confidence needed for high (below it a high gain rates medium)
    double min_evidence_busy_ns = 2'000'000;   // evidence minimum (see above): GPU busy time ...
    int64_t min_evidence_kernels = 200;         // ... or kernels; below both, no finding above low
};

// The kernels the busy entries are made of, for the ledger to see which entries overlap. rows(entry) gives the
// kernel rows of a kernel-pool entry ("class:gemm", "class:gemm (decode)", "class:elementwise-copy",
// "kernel:<name>") or nullopt for any other entry; kernel_ns[row] is the kernel's duration.
struct KernelPools {
    std::vector<double> kernel_ns;
    std::function<std::optional<std::vector<uint32_t>>(const std::string& entry)> rows;
};

struct Trace;
struct AnalysisResult;
// Pools from the trace and its analysis: a kernel's class (op_classes.h), its phase (the prefill or decode step whose
// window its start falls in, as the Roofline measures classes per phase) and its name. The result refers to both
// arguments, which must outlive it.
KernelPools kernel_pools(const Trace& trace, const AnalysisResult& analysis);

struct LedgerEntry {
    std::string key, parent;
    double available_ns = 0;         // the time in the trace
    double claimed_ns = 0;           // Σ claims of the findings on this entry (bounded by their caps)
    double granted_ns = 0;           // Σ granted to findings on this entry
    double consumed_ns = 0;          // granted here and in entries below
    std::vector<std::string> findings;   // "rule @ subject"
    // Kernel pools only: the time of its kernels that larger claims on overlapping pools took (available_ns is
    // what was left), and those pools.
    double overlap_ns = 0;
    std::vector<std::string> overlaps;
};

struct SuppressedFinding {
    std::string rule, subject, verdict, entry;
    double available_ns = 0, claimed_ns = 0;
    std::string reason;
};

struct Ledger {
    double wall_ns = 0;
    double edge_ns = 0;                         // idle at the capture's edges (entry idle:edge), granted to none
    // The evidence minimum: what the trace holds, the minimum, and whether it is below it (every finding capped at
    // low), with the reason in words ("0.187 ms of GPU work and 12 kernels: below 2 ms and 200 kernels").
    double evidence_busy_ns = 0;
    int64_t evidence_kernels = 0;
    double min_evidence_busy_ns = 0;
    int64_t min_evidence_kernels = 0;
    bool thin_evidence = false;
    std::string thin_evidence_reason;

    std::vector<LedgerEntry> entries;           // tree order: parents before children
    std::vector<SuppressedFinding> suppressed;
    double granted_ns() const;                  // Σ granted over all entries (<= wall_ns)
    const LedgerEntry* find(const std::string& key) const;
};

// Bounds, shares and re-ranks `findings` in place (each gets expected_gain.ledger), removes the gated ones (listed
// in Ledger::suppressed) and sets severities from the bounded gains. `scopes` are the ones the findings were
// evaluated on (metrics_binding.h); `rules` gives each finding's "removes" and kind; `pools` (optional) the kernels
// of the busy entries (without it, kernel-pool entries are taken as disjoint).
Ledger apply_ledger(std::vector<Finding>& findings, const std::vector<MetricScope>& scopes, const RuleSet& rules,
                    const LedgerOptions& options = {}, const KernelPools* pools = nullptr);

// The severity a bounded end-to-end gain supports (the gain alone).
Severity severity_for_gain(double fraction, const LedgerOptions& options = {});
// The severity a bounded end-to-end gain and a confidence support (the table above).
Severity severity_for(double fraction, double confidence, const LedgerOptions& options = {});
// The severity the ledger gives a finding of a rule: `rule_severity` is the rule's own (its default), `computed`
// whether the trace measured the gain, `check` whether the rule is of kind "check".
Severity ledger_severity(Severity rule_severity, double fraction, double confidence, bool computed, bool check,
                         const LedgerOptions& options = {});

// {"wall_ns", "granted_ns", "edge_ns", "evidence": {"thin", "reason", "busy_ns", "kernels", "min_busy_ns",
//  "min_kernels"},
//  "entries": [{key, parent, available_ns, claimed_ns, granted_ns, findings, overlap_ns, overlaps}],
//  "suppressed": [{rule, subject, verdict, time, available_ns, claimed_ns, reason}]}
nlohmann::json ledger_to_json(const Ledger& l);

struct OpClassResult;
// A ledger entry in words for people, in English and Chinese: "idle:host" -> "GPU idle time waiting for the host",
// "class:gemm (decode)" -> "GEMM / GEMV time in decode" (class labels from `classes` when given, else the id).
// Unknown entries come back as they are. The key itself stays in JSON; this is for text.
LocalText ledger_entry_words(const std::string& entry, const OpClassResult* classes = nullptr);

} // namespace sl

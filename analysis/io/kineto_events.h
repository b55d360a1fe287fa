#pragma once
// The Kineto reader's event handling: the events of one piece of the file, as either parser reads them, handled into
// a Part (tables, names, devices, threads), and parts merged in file order into the trace.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/io/input_bounds.h"
#include "analysis/io/kineto_event.h"
#include "analysis/trace/trace.h"

namespace sl::kineto {

// The events of one piece of the file are handled into a Part: tables, names, devices and threads numbered in the
// order the piece first uses them. Pieces are handled on parallel threads and merged into the trace in file order
// (Part::absorb, then KinetoReader::copy_column), which numbers everything as one pass over the whole file would; a
// single-threaded read goes through the same parts and merge, so both build the same Trace.

// A pid/tid given as a string gets its synthetic id only at the merge; until then it is a local code, a number in
// [kCodeBase, kCodeBase + 2^32) (a number from the file in that range gets a code too, so none is mistaken).
inline constexpr int64_t kCodeBase = INT64_MIN;
inline bool is_code(int64_t v) { return v < kCodeBase + (int64_t{1} << 32); }

struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const
    {
        return std::hash<int64_t>()(p.first * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(p.second));
    }
};

struct FlowEnd {
    int64_t ts;
    uint64_t key;   // hash of (pid, tid) of the event the flow binds to
    uint32_t id;
    char ph;
};

// A flow end whose key uses a local code: its key is hashed again at the merge.
struct CodedFlow {
    size_t index;   // in Part::flows_
    int64_t a, b;   // 's': pid, tid; 'f': device (or pid), stream
};

class Part {
public:
    uint32_t thread_of(const Event& e);
    int64_t id_number(const IdValue& v);
    int64_t local_num(int64_t v);
    uint16_t device_of(const Event& e);
    uint16_t device_row(int64_t device_id);   // the trace's row of a device id (created when missing)
    uint32_t stream_of(const Event& e) const;
    StrId intern_name(std::string_view n);
    void add_name_bytes(size_t n);
    bool bad_event(const Event& e);
    struct BadField {
        uint64_t count = 0;
        std::string first;
    };
    std::map<std::string, BadField> bad_fields_;   // by field, e.g. "args.device"
    uint64_t truncated_names_ = 0, name_bytes_ = 0;
    uint64_t name_limit_ = name_bytes_limit();
    const std::string* path_ = nullptr;           // for the name-limit error

    void note_missing_time();
    void handle_event(Event& e);
    void add_op_args(const Event& e, uint8_t source, int64_t start, int64_t end, int64_t pid, uint32_t corr);
    void handle_metadata_event(const Event& e);
    void absorb(Part& p);

    // What a merge reads. trace_ holds the tables, names (strings), devices (meta.devices), threads (meta.threads,
    // pid/tid as local codes) and the two warnings in the order they first came up.
    Trace trace_;
    struct IdEntry {
        bool is_string;
        std::string str;
        int64_t num;
    };
    std::vector<IdEntry> ids_;   // by local code - kCodeBase
    std::unordered_map<int64_t, std::string> process_names_;
    std::unordered_map<std::pair<int64_t, int64_t>, std::string, PairHash> thread_names_;
    std::vector<FlowEnd> flows_;
    std::vector<CodedFlow> coded_flows_;
    // Set by the merge: the part's names, devices, threads and ids as the trace numbers them.
    std::vector<StrId> names_;
    std::vector<uint16_t> devices_;
    std::vector<uint32_t> threads_of_;
    std::vector<uint32_t> shapes_;   // launch shape ids (interned in part order: first use in file order)
    std::vector<int64_t> merged_ids_;
    bool gpu_without_corr_ = false, api_without_corr_ = false;
    bool python_modules_ = false;   // KinetoReadOptions::python_modules
    uint64_t missing_time_ = 0, negative_dur_ = 0;
    int64_t window_lo_ = INT64_MAX, window_hi_ = INT64_MIN;
    std::map<std::string, int64_t, std::less<>> dropped_;
    std::set<std::string> python_packages_;

private:
    std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> threads_;
    int64_t last_pid_ = 0, last_tid_ = 0;
    uint32_t last_thread_ = UINT32_MAX;
    std::unordered_map<std::string, int64_t> string_ids_;
    std::unordered_map<int64_t, int64_t> num_ids_;
    uint16_t device_cache_[256] = {};
    std::unordered_map<int64_t, uint16_t> device_rows_;   // device ids outside 0..255 -> row (O(1), issue 36 §8)
    std::vector<uint8_t> api_flags_;
};

} // namespace sl::kineto

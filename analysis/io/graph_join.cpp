#include "analysis/io/graph_join.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/io/input_bounds.h"
#include "analysis/io/input_errors.h"
#include "analysis/io/json_input.h"
#include "analysis/io/kineto_reader.h"
#include "analysis/io/load.h"
#include "analysis/io/regex.h"
#include "analysis/trace/errors.h"
#include "analysis/trace/kernel_ops.h"
#include "analysis/trace/cancel_point.h"

namespace sl {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view suf)
{
    return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// A kernel's name as both sides compare it: without a leading "void ", template arguments and the parameter list.
std::string_view base_name(std::string_view n)
{
    if (n.substr(0, 5) == "void ")
        n.remove_prefix(5);
    const size_t cut = n.find_first_of("<(");
    if (cut != std::string_view::npos && cut > 0)
        n = n.substr(0, cut);
    return n;
}

struct Details {
    int64_t batch = 0;
    std::string mode;
};

// execution_details.json: [{"file": ..., "batch_size": N, "mode": "FULL"}, ...] -> file name -> details.
std::map<std::string, Details> read_execution_details(const fs::path& dir)
{
    std::map<std::string, Details> out;
    const fs::path p = dir / "execution_details.json";
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
        return out;
    // A data file: its size bound (16 MiB unless --max-input-size) before it is read, its nesting before it is
    // parsed (a 694 MB file was a bare std::bad_alloc, a 10^6-deep array a stack overflow).
    const std::string text = read_input_file(p.string(), InputKind::DataFile, "a readable execution_details.json");
    const nlohmann::json j = parse_json_input(text, p.string());
    if (!j.is_array())
        throw TraceError(p.string(), "top level", "a list of {\"file\", \"batch_size\", \"mode\"} entries",
                         "another JSON value");
    for (size_t i = 0; i < j.size(); ++i) {
        const auto& e = j[i];
        const std::string where = "entry " + std::to_string(i + 1);
        if (!e.is_object() || !e.contains("file") || !e["file"].is_string())
            throw TraceError(p.string(), where, "an object with a \"file\" name", "none");
        Details d;
        if (e.contains("batch_size")) {
            if (!e["batch_size"].is_number_integer() || e["batch_size"].get<int64_t>() < 0)
                throw TraceError(p.string(), where + " batch_size", "a non-negative integer", e["batch_size"].dump());
            d.batch = e["batch_size"].get<int64_t>();
        }
        if (e.contains("mode") && e["mode"].is_string())
            d.mode = e["mode"].get<std::string>();
        out[e["file"].get<std::string>()] = d;
    }
    return out;
}

bool is_trace_file_name(const std::string& name)
{
    return name != "execution_details.json" && (ends_with(name, ".json") || ends_with(name, ".json.gz"));
}

bool is_begin_capture(std::string_view n) { return contains(n, "StreamBeginCapture"); }
bool is_end_capture(std::string_view n) { return contains(n, "StreamEndCapture"); }

// ---- the capture side ------------------------------------------------------------------------------------------
struct CapturedLaunch {
    uint32_t base = 0;          // id of the kernel's base name (0 = the call names no kernel: matches by position)
    int32_t op = kNoIndex;      // op_args row (capture trace) of its CPU op
    std::string chain, module;
};

struct Window {
    size_t capture = 0;
    size_t index = 0;                               // the window's place among its capture's Begin/EndCapture pairs
    std::vector<CapturedLaunch> launches;
    std::unordered_map<uint32_t, int32_t> counts;   // base id -> launches
};

// Base-name ids shared by both sides of the join.
class Bases {
public:
    uint32_t id(std::string_view name)
    {
        if (name.empty())
            return 0;
        const std::string b(base_name(name));
        auto [it, fresh] = ids_.try_emplace(b, static_cast<uint32_t>(ids_.size() + 1));
        return it->second;
    }

private:
    std::unordered_map<std::string, uint32_t> ids_;
};

struct CaptureWindows {
    std::vector<Window> windows;
    int64_t launches = 0;
};

// Capture windows of one trace: Begin/EndCapture pairs per thread, and the kernel launch calls on that thread between
// them, in call order.
std::vector<std::pair<int64_t, int64_t>> window_spans(const Trace& c, std::vector<uint32_t>& threads)
{
    std::map<uint32_t, std::vector<std::pair<int64_t, int>>> marks;   // thread -> (time, +1 begin / -1 end)
    for (size_t i = 0; i < c.api.size(); ++i) {
        const std::string_view n = c.str(c.api.name[i]);
        if (is_begin_capture(n))
            marks[c.api.thread[i]].push_back({c.api.start[i], +1});
        else if (is_end_capture(n))
            marks[c.api.thread[i]].push_back({c.api.end[i], -1});
    }
    std::vector<std::pair<int64_t, int64_t>> spans;
    threads.clear();
    for (auto& [th, v] : marks) {
        std::sort(v.begin(), v.end());
        int64_t open = 0;
        bool in = false;
        for (const auto& [t, d] : v) {
            if (d > 0 && !in) {
                open = t;
                in = true;
            } else if (d < 0 && in) {
                spans.push_back({open, t});
                threads.push_back(th);
                in = false;
            }
        }
    }
    return spans;
}

CaptureWindows capture_windows(const Trace& c, size_t capture_index, Bases& bases)
{
    CaptureWindows out;
    std::vector<uint32_t> threads;
    const auto spans = window_spans(c, threads);
    if (spans.empty())
        return out;
    // (pid, correlation) -> launch row; (pid, External id) -> innermost CPU op row.
    std::map<std::pair<int64_t, int64_t>, size_t> launch_row, op_row;
    const OpArgsTable& a = c.op_args;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a.source[i] == OpArgsTable::kLaunch && a.correlation[i] != 0)
            launch_row[{a.pid[i], a.correlation[i]}] = i;
        else if (a.source[i] == OpArgsTable::kCpuOp && a.external_id[i] != 0)
            op_row[{a.pid[i], a.external_id[i]}] = i;   // a later row with the same id is an inner op: it wins
    }
    const KernelOps ops(c);
    std::vector<size_t> calls;
    for (size_t i = 0; i < c.api.size(); ++i)
        if (c.api.flags[i] & kApiLaunch)
            calls.push_back(i);
    std::sort(calls.begin(), calls.end(), [&](size_t x, size_t y) { return c.api.start[x] < c.api.start[y]; });
    for (size_t w = 0; w < spans.size(); ++w) {
        Window win;
        win.capture = capture_index;
        win.index = w;
        const auto [lo, hi] = spans[w];
        auto it = std::lower_bound(calls.begin(), calls.end(), lo,
                                   [&](size_t x, int64_t t) { return c.api.start[x] < t; });
        for (; it != calls.end() && c.api.start[*it] <= hi; ++it) {
            const size_t i = *it;
            if (c.api.thread[i] != threads[w])
                continue;
            const uint32_t th = c.api.thread[i];
            const int64_t pid = th < c.meta.threads.size() ? c.meta.threads[th].pid : 0;
            CapturedLaunch l;
            const auto lr = launch_row.find({pid, c.api.correlation[i]});
            if (lr != launch_row.end()) {
                l.base = bases.id(c.str(a.name[lr->second]));
                const auto orow = op_row.find({pid, a.external_id[lr->second]});
                if (orow != op_row.end())
                    l.op = static_cast<int32_t>(orow->second);
            }
            l.chain = ops.around(th, c.api.start[i], false);
            l.module = ops.around(th, c.api.start[i], true);
            win.counts[l.base] += 1;
            win.launches.push_back(std::move(l));
        }
        out.launches += static_cast<int64_t>(win.launches.size());
        if (!win.launches.empty())
            out.windows.push_back(std::move(win));
    }
    return out;
}

// ---- alignment ---------------------------------------------------------------------------------------------------
// The join's cost is bounded (issue 36 §3): one alignment fills at most kMaxAlignCells cells of its band (5 bytes
// each: 80 MB), and the whole join at most kMaxJoinCells (a few seconds). A replay whose kernels are the window's
// launches one for one — the common case — is matched in one pass without a table.
constexpr int64_t kMaxAlignCells = 16'000'000;
constexpr int64_t kMaxJoinCells = 400'000'000;

// Cells the band of align(a, b) fills.
int64_t align_cells(int64_t n, int64_t m)
{
    if (n == 0 || m == 0)
        return 0;
    const int64_t W = std::abs(n - m) + 48;
    return (n + 1) * std::min<int64_t>(m + 1, 2 * W + 1);
}

// Whether a and b are the same sequence (b's 0 matching anything): then each a[i] is b[i].
bool same_sequence(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i] && b[i] != 0)
            return false;
    return true;
}

// Longest common subsequence of a (replayed kernels) and b (captured launches) in a band around the diagonal; b's 0
// matches anything. match[i] = the b position a[i] is aligned to, or -1. Returns the matched count.
int64_t align(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, std::vector<int32_t>& match)
{
    const int64_t n = static_cast<int64_t>(a.size()), m = static_cast<int64_t>(b.size());
    match.assign(a.size(), -1);
    if (n == 0 || m == 0)
        return 0;
    if (same_sequence(a, b)) {
        for (size_t i = 0; i < a.size(); ++i)
            match[i] = static_cast<int32_t>(i);
        return n;
    }
    const int64_t W = std::abs(n - m) + 48;
    auto center = [&](int64_t i) { return i * m / n; };
    auto lo = [&](int64_t i) { return std::max<int64_t>(0, center(i) - W); };
    auto hi = [&](int64_t i) { return std::min<int64_t>(m, center(i) + W); };
    std::vector<std::vector<int32_t>> val(static_cast<size_t>(n + 1));
    std::vector<std::vector<uint8_t>> dir(static_cast<size_t>(n + 1));   // 0 diagonal (match), 1 up, 2 left, 3 none
    auto at = [&](int64_t i, int64_t j) -> int32_t {
        if (j < lo(i) || j > hi(i))
            return -1;
        return val[static_cast<size_t>(i)][static_cast<size_t>(j - lo(i))];
    };
    for (int64_t i = 0; i <= n; ++i) {
        cancel_point();   // a row is at most 2W + 1 cells
        const int64_t l = lo(i), h = hi(i);
        auto& v = val[static_cast<size_t>(i)];
        auto& d = dir[static_cast<size_t>(i)];
        v.assign(static_cast<size_t>(h - l + 1), 0);
        d.assign(static_cast<size_t>(h - l + 1), 3);
        for (int64_t j = l; j <= h; ++j) {
            int32_t best = -1;
            uint8_t how = 3;
            if (j > l) {
                best = v[static_cast<size_t>(j - 1 - l)];
                how = 2;
            }
            if (i > 0) {
                if (const int32_t up = at(i - 1, j); up > best) {
                    best = up;
                    how = 1;
                }
                if (j > 0) {
                    const uint32_t x = a[static_cast<size_t>(i - 1)], y = b[static_cast<size_t>(j - 1)];
                    const int32_t dg = at(i - 1, j - 1);
                    if (dg >= 0 && (x == y || y == 0) && dg + 1 > best) {
                        best = dg + 1;
                        how = 0;
                    }
                }
            }
            v[static_cast<size_t>(j - l)] = std::max(best, 0);
            d[static_cast<size_t>(j - l)] = how;
        }
    }
    int64_t i = n, j = m, matched = 0;
    while (i > 0 || j > 0) {
        if (j < lo(i) || j > hi(i))
            break;
        const uint8_t how = dir[static_cast<size_t>(i)][static_cast<size_t>(j - lo(i))];
        if (how == 0) {
            match[static_cast<size_t>(i - 1)] = static_cast<int32_t>(j - 1);
            ++matched;
            --i;
            --j;
        } else if (how == 1) {
            --i;
        } else if (how == 2) {
            --j;
        } else {
            break;
        }
    }
    return matched;
}

// Upper bound on the LCS: the multiset intersection of the names (a wildcard launch matches anything).
int64_t bound(const std::unordered_map<uint32_t, int32_t>& a, const Window& w)
{
    int64_t n = 0, total_a = 0;
    for (const auto& [id, c] : a) {
        total_a += c;
        const auto it = w.counts.find(id);
        n += it == w.counts.end() ? 0 : std::min(c, it->second);
    }
    const auto wild = w.counts.find(0);
    if (wild != w.counts.end())
        n = std::min(total_a, n + wild->second);
    return n;
}

// The batch a step annotation around a graph launch names: vLLM/SGLang "execute_N_...", SGLang "step[... bs=N ...]".
struct BatchRange {
    uint32_t thread;
    int64_t start, end, batch;
};

std::vector<BatchRange> batch_ranges(const Trace& t)
{
    static const Regex re(R"(^execute_(\d+)_|\bbs=(\d+))");
    std::vector<BatchRange> out;
    std::vector<int64_t> by_name(t.strings.size(), -2);
    for (size_t i = 0; i < t.ranges.size(); ++i) {
        if (t.ranges.kind[i] == RangeKind::CpuOp || t.ranges.kind[i] == RangeKind::PyModule)
            continue;
        const StrId n = t.ranges.name[i];
        if (n >= by_name.size())
            continue;
        if (by_name[n] == -2) {
            std::vector<std::string_view> m;
            by_name[n] = -1;
            if (re.search(t.str(n), m)) {
                const std::string num(m[1].data() ? m[1] : m[2]);
                if (num.size() < 10)
                    by_name[n] = std::stoll(num);
            }
        }
        if (by_name[n] >= 0)
            out.push_back({t.ranges.thread[i], t.ranges.start[i], t.ranges.end[i], by_name[n]});
    }
    return out;
}

// Preference of a capture for a replay batch: the same batch, then the smallest larger one (the graph a server pads a
// batch up to), then unknown, then smaller ones.
std::pair<int, int64_t> batch_preference(int64_t replay_batch, int64_t capture_batch)
{
    if (replay_batch <= 0 || capture_batch <= 0)
        return {1, 0};
    if (capture_batch == replay_batch)
        return {3, 0};
    if (capture_batch > replay_batch)
        return {2, -capture_batch};
    return {0, capture_batch};
}

} // namespace

std::vector<CaptureInput> capture_inputs(const std::string& path, const std::string& source)
{
    std::vector<CaptureInput> out;
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec)) {
        const auto details = read_execution_details(p);
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(p, ec))
            if (e.is_regular_file(ec) && is_trace_file_name(e.path().filename().string()))
                names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        for (const auto& n : names) {
            CaptureInput c;
            c.path = (p / n).string();
            c.source = source;
            if (const auto it = details.find(n); it != details.end()) {
                c.batch_size = it->second.batch;
                c.mode = it->second.mode;
            }
            out.push_back(std::move(c));
        }
        if (out.empty())
            throw TraceError(path, "", "a capture trace (a Kineto .json / .json.gz) in the folder",
                             "no trace file in it");
        return out;
    }
    if (!fs::is_regular_file(p, ec)) {
        const std::string why = input_file_problem(path);   // no such file, a symbolic-link loop, a FIFO, ...
        throw TraceError(path, "", "a capture trace file or a folder of them", why.empty() ? "no such file or folder" : why);
    }
    CaptureInput c;
    c.path = path;
    c.source = source;
    const auto details = read_execution_details(p.has_parent_path() ? p.parent_path() : fs::path("."));
    if (const auto it = details.find(p.filename().string()); it != details.end()) {
        c.batch_size = it->second.batch;
        c.mode = it->second.mode;
    }
    out.push_back(std::move(c));
    return out;
}

std::vector<CaptureInput> captures_beside(const std::string& trace_path)
{
    const fs::path p(trace_path);
    const fs::path dir = (p.has_parent_path() ? p.parent_path() : fs::path(".")) / "capture_traces";
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return {};
    bool any = false;
    for (const auto& e : fs::directory_iterator(dir, ec))
        any = any || (e.is_regular_file(ec) && is_trace_file_name(e.path().filename().string()));
    return any ? capture_inputs(dir.string(), "beside") : std::vector<CaptureInput>{};
}

bool is_capture_trace(const Trace& t)
{
    std::vector<uint32_t> threads;
    const auto spans = window_spans(t, threads);
    if (spans.empty())
        return false;
    int64_t launches = 0;
    for (size_t i = 0; i < t.api.size(); ++i) {
        if (!(t.api.flags[i] & kApiLaunch))
            continue;
        for (size_t w = 0; w < spans.size(); ++w)
            if (t.api.thread[i] == threads[w] && t.api.start[i] >= spans[w].first && t.api.start[i] <= spans[w].second) {
                ++launches;
                break;
            }
    }
    return launches > 0 && launches > static_cast<int64_t>(t.kernels.size());
}

bool has_graph_replay(const Trace& t)
{
    for (size_t i = 0; i < t.api.size(); ++i)
        if (t.api.flags[i] & kApiGraphLaunch)
            return true;
    for (size_t i = 0; i < t.kernels.size(); ++i)
        if (t.kernels.flags[i] & KernelTable::kGraphNode)
            return true;
    return false;
}

LoadedCapture read_capture(const CaptureInput& input, const LoadControl& control)
{
    const InputFormat f = sniff_file(input.path);
    // A capture that cannot be opened is said as such (a symbolic-link loop, no permission), not as a format.
    if (f == InputFormat::Missing)
        if (const std::string why = input_file_problem(input.path); !why.empty())
            throw TraceError(input.path, "", "a graph-capture trace (PyTorch profiler JSON, .json or .json.gz)", why);
    if (f != InputFormat::KinetoJson)
        throw TraceError(input.path, "", "a graph-capture trace (PyTorch profiler JSON, .json or .json.gz)",
                         std::string("a file of another kind (") + input_format_name(f) + ")");
    KinetoReadOptions o;
    o.python_modules = true;
    return {input, read_kineto_json(input.path, control, o)};
}

void join_graph_captures(Trace& replay, const std::vector<LoadedCapture>& captures)
{
    if (captures.empty())
        return;
    Bases bases;
    std::vector<Window> windows;
    std::vector<GraphCaptureJoin> joins(captures.size());
    for (size_t c = 0; c < captures.size(); ++c) {
        const CaptureInput& in = captures[c].input;
        GraphCaptureJoin& j = joins[c];
        j.path = in.path;
        j.source = in.source;
        j.batch_size = in.batch_size;
        j.mode = in.mode;
        CaptureWindows cw = capture_windows(captures[c].trace, c, bases);
        j.graphs = static_cast<int64_t>(cw.windows.size());
        j.captured_launches = cw.launches;
        for (auto& w : cw.windows)
            windows.push_back(std::move(w));
    }
    auto rank_of = [](const Trace& t) -> int64_t {
        const auto it = t.meta.environment.find("distributed.rank");
        if (it == t.meta.environment.end())
            return -1;
        try {
            return std::stoll(it->second);
        } catch (const std::exception&) {
            return -1;
        }
    };
    const int64_t replay_rank = rank_of(replay);

    // Replayed kernels per graph launch, then per stream in start order.
    const KernelTable& K = replay.kernels;
    const KernelOps kops(replay);
    std::map<std::pair<int64_t, uint32_t>, std::vector<uint32_t>> groups;   // (launch key, stream) -> kernel rows
    for (size_t k = 0; k < K.size(); ++k) {
        if (!kops.replayed(k))
            continue;
        const int32_t api = K.launch_api[k];
        const int64_t key = api >= 0 ? api : -1 - static_cast<int64_t>(K.correlation[k]);
        groups[{key, K.stream[k]}].push_back(static_cast<uint32_t>(k));
    }
    std::map<int64_t, std::vector<std::vector<uint32_t>>> launches;   // launch key -> its streams' kernels
    for (auto& [key, rows] : groups) {
        std::sort(rows.begin(), rows.end(), [&](uint32_t x, uint32_t y) { return K.start[x] < K.start[y]; });
        launches[key.first].push_back(std::move(rows));
    }
    const std::vector<BatchRange> batches = batch_ranges(replay);

    struct Choice {
        int64_t window = -1;
        std::vector<std::vector<int32_t>> match;   // per stream, per kernel: position in the window, or -1
    };
    std::map<std::vector<uint32_t>, Choice> seen;   // names of the launch's kernels (streams separated) + batch
    int64_t join_cells = 0;                          // alignment cells filled so far (bounded: kMaxJoinCells)
    std::vector<std::pair<uint32_t, std::pair<size_t, size_t>>> joined;   // kernel -> (window, position)
    std::vector<int64_t> window_first_api(windows.size(), -1);
    for (const auto& [key, streams] : launches) {
        // The launch's batch, from a step annotation around the graph launch call.
        int64_t batch = 0;
        if (key >= 0) {
            const size_t api = static_cast<size_t>(key);
            for (const auto& b : batches)
                if (b.thread == replay.api.thread[api] && b.start <= replay.api.start[api] && b.end >= replay.api.end[api])
                    batch = b.batch;
        }
        std::vector<std::vector<uint32_t>> seqs;
        std::vector<uint32_t> sig;
        for (const auto& rows : streams) {
            std::vector<uint32_t> s;
            s.reserve(rows.size());
            for (uint32_t k : rows)
                s.push_back(bases.id(replay.str(K.name[k])));
            sig.insert(sig.end(), s.begin(), s.end());
            sig.push_back(UINT32_MAX);
            seqs.push_back(std::move(s));
        }
        sig.push_back(static_cast<uint32_t>(batch));
        auto it = seen.find(sig);
        if (it == seen.end()) {
            Choice best;
            int64_t best_matched = 0;
            std::tuple<int, int64_t, int> best_pref{-1, 0, 0};
            std::unordered_map<uint32_t, int32_t> counts;
            for (const auto& s : seqs)
                for (uint32_t id : s)
                    counts[id] += 1;
            for (size_t w = 0; w < windows.size(); ++w) {
                cancel_point();
                const Window& win = windows[w];
                const auto pb = batch_preference(batch, captures[win.capture].input.batch_size);
                const std::tuple<int, int64_t, int> pref{pb.first, pb.second,
                                                         rank_of(captures[win.capture].trace) == replay_rank ? 1 : 0};
                if (bound(counts, win) < best_matched)
                    continue;
                std::vector<uint32_t> b;
                b.reserve(win.launches.size());
                for (const auto& l : win.launches)
                    b.push_back(l.base);
                Choice c;
                c.window = static_cast<int64_t>(w);
                int64_t matched = 0;
                for (const auto& s : seqs) {
                    const int64_t cells = same_sequence(s, b) ? 0 : align_cells(static_cast<int64_t>(s.size()),
                                                                                static_cast<int64_t>(b.size()));
                    const std::string& capture_path = captures[win.capture].input.path;
                    if (cells > kMaxAlignCells)
                        throw TraceError(capture_path,
                                         "capture window " + std::to_string(win.index + 1) + " (" +
                                             std::to_string(b.size()) + " launches) against a graph replay of " +
                                             std::to_string(s.size()) + " kernels",
                                         "a capture window and a replay the join can align within " +
                                             std::to_string(kMaxAlignCells / 1'000'000) +
                                             " million cells (the kernel counts within a few thousand of each other)",
                                         std::to_string(cells / 1'000'000) + " million cells; leave the capture out "
                                         "(--no-capture-search, or no --capture-trace) to analyse the replay alone");
                    join_cells += cells;
                    if (join_cells > kMaxJoinCells)
                        throw TraceError(capture_path, "the capture join",
                                         "captures and replays the join can align within " +
                                             std::to_string(kMaxJoinCells / 1'000'000) + " million cells in all",
                                         "more (" + std::to_string(windows.size()) + " capture windows against " +
                                             std::to_string(launches.size()) + " graph launches of differing "
                                             "kernels); leave the capture out (--no-capture-search, or no "
                                             "--capture-trace) to analyse the replay alone");
                    std::vector<int32_t> m;
                    matched += align(s, b, m);
                    c.match.push_back(std::move(m));
                }
                if (matched > best_matched || (matched == best_matched && matched > 0 && pref > best_pref)) {
                    best_matched = matched;
                    best_pref = pref;
                    best = std::move(c);
                }
            }
            it = seen.emplace(std::move(sig), std::move(best)).first;
        }
        const Choice& ch = it->second;
        if (ch.window < 0)
            continue;
        const size_t w = static_cast<size_t>(ch.window);
        GraphCaptureJoin& j = joins[windows[w].capture];
        j.replays += 1;
        if (window_first_api[w] < 0)
            window_first_api[w] = key;
        std::vector<uint8_t> taken(windows[w].launches.size(), 0);   // a captured launch has one twin per replay
        for (size_t s = 0; s < streams.size(); ++s) {
            j.kernels_replayed += static_cast<int64_t>(streams[s].size());
            for (size_t i = 0; i < streams[s].size(); ++i) {
                const int32_t pos = ch.match[s][i];
                if (pos < 0 || taken[static_cast<size_t>(pos)])
                    continue;
                taken[static_cast<size_t>(pos)] = 1;
                j.kernels_matched += 1;
                joined.push_back({streams[s][i], {w, static_cast<size_t>(pos)}});
            }
        }
    }

    // Copy each twin's CPU op into the replay once, and record the kernels.
    std::sort(joined.begin(), joined.end());
    std::map<std::pair<size_t, int32_t>, int32_t> imported;   // (capture, capture op row) -> replay op row
    OpArgsTable& A = replay.op_args;
    for (const auto& [k, where] : joined) {
        const Window& win = windows[where.first];
        const CapturedLaunch& l = win.launches[where.second];
        int32_t row = kNoIndex;
        if (l.op >= 0) {
            const auto key = std::make_pair(win.capture, l.op);
            auto it = imported.find(key);
            if (it == imported.end()) {
                const Trace& c = captures[win.capture].trace;
                const OpArgsTable& a = c.op_args;
                const size_t o = static_cast<size_t>(l.op);
                const int64_t api = window_first_api[where.first];
                const int64_t s = api >= 0 ? replay.api.start[static_cast<size_t>(api)] : K.start[k];
                const int64_t e = api >= 0 ? replay.api.end[static_cast<size_t>(api)] : K.end[k];
                const size_t r = A.append(OpArgsTable::kCpuOp, s, e, replay.strings.intern(c.str(a.name[o])));
                A.pid[r] = K.process[k] < replay.meta.processes.size() ? replay.meta.processes[K.process[k]].pid : 0;
                A.input_dims[r] = a.input_dims[o];
                A.input_types[r] = a.input_types[o];
                A.concrete_inputs[r] = a.concrete_inputs[o];
                A.collective[r] = a.collective[o];
                A.dtype[r] = a.dtype[o];
                A.pg_name[r] = a.pg_name[o];
                A.pg_ranks[r] = a.pg_ranks[o];
                A.in_nelems[r] = a.in_nelems[o];
                A.out_nelems[r] = a.out_nelems[o];
                A.group_size[r] = a.group_size[o];
                it = imported.emplace(key, static_cast<int32_t>(r)).first;
            }
            row = it->second;
        }
        replay.graph_ops.append(k, row, replay.strings.intern(l.chain), replay.strings.intern(l.module));
    }
    for (auto& j : joins) {
        j.used = j.replays > 0;
        replay.meta.captures.push_back(std::move(j));
    }
}

namespace {

// PyTorch's emit_nvtx range text: "aten::mm, seq = 3, op_id = 5, sizes = [[32, 2880], [2880, 5120]], ...": the op's
// name (before ", seq =" / ", op_id =" / ", sizes =") and the sizes list ("" when absent).
std::pair<std::string, std::string> emit_nvtx_parts(std::string_view text)
{
    size_t cut = text.size();
    for (const char* key : {", seq = ", ", op_id = ", ", sizes = "})
        cut = std::min(cut, text.find(key));
    std::string name(text.substr(0, cut));
    std::string sizes;
    const size_t at = text.find("sizes = [");
    if (at != std::string_view::npos) {
        const size_t open = at + 8;
        int depth = 0;
        for (size_t i = open; i < text.size(); ++i) {
            depth += text[i] == '[' ? 1 : text[i] == ']' ? -1 : 0;
            if (depth == 0) {
                sizes = std::string(text.substr(open, i - open + 1));
                break;
            }
        }
    }
    return {name, sizes};
}

} // namespace

void join_graph_nodes(Trace& t, const std::vector<int64_t>& kernel_node, const std::vector<GraphNodeOrigin>& origins)
{
    if (origins.empty())
        return;
    std::unordered_map<int64_t, size_t> by_node;
    for (size_t i = 0; i < origins.size(); ++i)
        by_node[origins[i].node] = i;
    const KernelOps ops(t);
    GraphCaptureJoin j;
    j.path = t.meta.source_path;
    j.source = "graph-nodes";
    std::set<int64_t> captured, launches;
    std::map<std::string, int32_t> imported;   // innermost range text -> op_args row
    std::vector<std::pair<uint32_t, std::pair<int32_t, std::string>>> rows;
    for (size_t k = 0; k < kernel_node.size() && k < t.kernels.size(); ++k) {
        if (kernel_node[k] == 0)
            continue;
        ++j.kernels_replayed;
        launches.insert(t.kernels.launch_api[k] >= 0 ? t.kernels.launch_api[k] : -1 - int64_t(t.kernels.correlation[k]));
        // The node that was captured: an instantiated node names it in originalGraphNodeId.
        auto it = by_node.find(kernel_node[k]);
        for (int hops = 0; it != by_node.end() && hops < 8; ++hops) {
            const GraphNodeOrigin& o = origins[it->second];
            if (o.original == 0 || o.original == o.node)
                break;
            const auto next = by_node.find(o.original);
            if (next == by_node.end())
                break;
            it = next;
        }
        if (it == by_node.end())
            continue;
        const GraphNodeOrigin& o = origins[it->second];
        const std::string chain = ops.around(o.thread, o.created, false);
        if (chain.empty())
            continue;
        captured.insert(o.node);
        const size_t cut = chain.rfind(" > ");
        const std::string inner = cut == std::string::npos ? chain : chain.substr(cut + 3);
        auto imp = imported.find(inner);
        if (imp == imported.end()) {
            const auto [name, sizes] = emit_nvtx_parts(inner);
            const size_t r = t.op_args.append(OpArgsTable::kCpuOp, o.created, o.created, t.strings.intern(name));
            const uint16_t proc = t.kernels.process[k];
            t.op_args.pid[r] = proc < t.meta.processes.size() ? t.meta.processes[proc].pid : 0;
            t.op_args.input_dims[r] = sizes;
            imp = imported.emplace(inner, static_cast<int32_t>(r)).first;
        }
        // The chain as op names (the emit_nvtx details dropped).
        std::string names;
        size_t from = 0;
        while (from <= chain.size()) {
            const size_t next = chain.find(" > ", from);
            const std::string part = chain.substr(from, next == std::string::npos ? std::string::npos : next - from);
            names += (names.empty() ? "" : " > ") + emit_nvtx_parts(part).first;
            if (next == std::string::npos)
                break;
            from = next + 3;
        }
        rows.push_back({static_cast<uint32_t>(k), {imp->second, names}});
        ++j.kernels_matched;
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [k, v] : rows)
        t.graph_ops.append(k, v.first, t.strings.intern(v.second), 0);
    j.captured_launches = static_cast<int64_t>(captured.size());
    j.replays = static_cast<int64_t>(launches.size());
    j.used = j.kernels_matched > 0;
    if (j.kernels_replayed > 0)
        t.meta.captures.push_back(std::move(j));
}

} // namespace sl

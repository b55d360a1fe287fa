#include "analysis/report/rank_partial.h"

#include "analysis/io/gzip_stream.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/json_input.h"
#include "analysis/trace/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>

#include <zlib.h>

namespace sl {

using nlohmann::json;

RankPartial make_rank_partial(const Trace& t, const AnalysisResult& r, const std::string& trace_path)
{
    RankPartial p;
    const auto& m = t.meta;
    p.trace_path = trace_path;
    p.trace_format = m.format;
    std::error_code ec;
    const auto size = std::filesystem::file_size(trace_path, ec);
    p.trace_bytes = ec ? 0 : static_cast<uint64_t>(size);
    if (auto it = m.environment.find("distributed.rank"); it != m.environment.end()) {
        try {
            p.rank = std::stoi(it->second);
        } catch (const std::exception&) {
        }
    }
    p.world_size = m.world_size;
    if (auto it = m.environment.find("host_name"); it != m.environment.end())
        p.host = it->second;
    p.utc_epoch_ns = m.utc_epoch_ns;
    p.capture_start_ns = m.capture_start;
    p.capture_end_ns = m.capture_end;
    p.wall_ns = r.wall_ns;
    p.kernel_time_ns = r.kernel_time_ns;
    for (const DeviceIdle& d : r.idle.devices) {
        PartialDevice pd;
        if (d.device < m.devices.size()) {
            pd.id = m.devices[d.device].id;
            pd.name = m.devices[d.device].name;
        }
        pd.window_ns = d.window_ns;
        pd.busy_ns = d.busy_ns;
        pd.idle_ns = d.idle_ns;
        pd.host_wait_ns = d.breakdown.host_wait_ns();
        pd.kernel_wait_ns = d.breakdown.kernel_wait_ns();
        pd.sync_wait_ns = d.breakdown.sync_wait_ns();
        pd.dependency_wait_ns = d.breakdown.dependency_wait_ns();
        pd.other_ns = d.breakdown.other_ns();
        p.devices.push_back(std::move(pd));
    }
    const PhaseResult& P = r.phases;
    p.steps.source = step_source_name(P.source);
    p.steps.prefill_steps = P.prefill_steps;
    p.steps.decode_steps = P.decode_steps;
    p.steps.steady_steps = P.steady_steps;
    p.steps.warmup_excluded = P.warmup_excluded;
    p.steps.tpot_median_ns = P.tpot_median_ns;
    p.steps.tpot_p90_ns = P.tpot_p90_ns;
    p.steps.tpot_mean_ns = P.tpot_mean_ns;
    for (const StepInfo& s : P.steps) {
        p.steps.start_ns.push_back(s.start);
        p.steps.wall_ns.push_back(s.wall_ns);
        p.steps.prefill.push_back(s.prefill ? 1 : 0);
        p.steps.warmup.push_back(s.warmup ? 1 : 0);
    }
    for (const auto& c : r.classes.classes)
        p.classes.push_back({c.id, c.time_ns, c.count});
    p.collectives = collective_records(t);
    std::map<std::string, PartialProcessGroup> groups;
    for (auto& c : p.collectives) {
        c.rank = p.rank.value_or(0);
        auto& g = groups[c.process_group];
        g.name = c.process_group;
        g.group_size = std::max(g.group_size, c.group_size);
        g.collectives += 1;
    }
    const auto& a = t.op_args;
    for (size_t i = 0; i < a.size(); ++i)
        if (!a.collective[i].empty() && !a.pg_ranks[i].empty())
            if (auto it = groups.find(a.pg_name[i]); it != groups.end() && it->second.ranks.empty())
                it->second.ranks = a.pg_ranks[i];
    for (auto& [name, g] : groups)
        p.process_groups.push_back(std::move(g));
    p.warnings = m.warnings;
    return p;
}

namespace {

json bytes_json(double b)
{
    if (b >= 0 && b < 9e15 && b == std::floor(b))
        return json(static_cast<int64_t>(b));
    return json(b);
}

} // namespace

json rank_partial_to_json(const RankPartial& p)
{
    json j;
    j["schema"] = kPartialSchema;
    j["trace"] = {{"path", p.trace_path}, {"format", p.trace_format}, {"bytes", p.trace_bytes}};
    json pgs = json::array();
    for (const auto& g : p.process_groups)
        pgs.push_back({{"name", g.name},
                       {"group_size", g.group_size > 0 ? json(g.group_size) : json(nullptr)},
                       {"ranks", g.ranks.empty() ? json(nullptr) : json(g.ranks)},
                       {"collectives", g.collectives}});
    json devs = json::array();
    for (const auto& d : p.devices)
        devs.push_back({{"id", d.id},
                        {"name", d.name},
                        {"window_ns", d.window_ns},
                        {"busy_ns", d.busy_ns},
                        {"idle_ns", d.idle_ns},
                        {"idle_by_cause",
                         {{"host_wait_ns", d.host_wait_ns},
                          {"kernel_wait_ns", d.kernel_wait_ns},
                          {"sync_wait_ns", d.sync_wait_ns},
                          {"dependency_wait_ns", d.dependency_wait_ns},
                          {"other_ns", d.other_ns}}}});
    j["identity"] = {{"rank", p.rank ? json(*p.rank) : json(nullptr)},
                     {"world_size", p.world_size},
                     {"host", p.host.empty() ? json(nullptr) : json(p.host)},
                     {"process_groups", std::move(pgs)}};
    j["time_base"] = {{"unit", "ns"},
                      {"utc_epoch_ns", p.utc_epoch_ns},
                      {"capture_start_ns", p.capture_start_ns},
                      {"capture_end_ns", p.capture_end_ns}};
    j["wall_ns"] = p.wall_ns;
    j["kernel_time_ns"] = p.kernel_time_ns;
    j["devices"] = std::move(devs);
    const PartialSteps& s = p.steps;
    j["steps"] = {{"source", s.source},
                  {"prefill_steps", s.prefill_steps},
                  {"decode_steps", s.decode_steps},
                  {"steady_steps", s.steady_steps},
                  {"warmup_excluded", s.warmup_excluded},
                  {"tpot_median_ns", s.tpot_median_ns},
                  {"tpot_p90_ns", s.tpot_p90_ns},
                  {"tpot_mean_ns", s.tpot_mean_ns},
                  {"start_ns", s.start_ns},
                  {"wall_ns", s.wall_ns},
                  {"prefill", s.prefill},
                  {"warmup", s.warmup}};
    json cls = json::array();
    for (const auto& c : p.classes)
        cls.push_back({{"id", c.id}, {"time_ns", c.time_ns}, {"count", c.count}});
    j["op_classes"] = std::move(cls);

    // Collectives, columnar: one entry per record in each column, the keys (process group, op, ...) in a table.
    std::map<std::tuple<std::string, std::string, int64_t, std::string, bool>, size_t> key_index;
    json keys = json::array();
    json key = json::array(), seq = json::array(), bytes = json::array(), start = json::array(),
         dur = json::array(), lead = json::array(), cover = json::array();
    int64_t prev = 0;
    for (size_t i = 0; i < p.collectives.size(); ++i) {
        const CollectiveRecord& c = p.collectives[i];
        const auto k = std::make_tuple(c.process_group, c.kind, c.group_size, c.dtype, c.has_metadata);
        auto [it, fresh] = key_index.emplace(k, key_index.size());
        if (fresh)
            keys.push_back({{"process_group", c.process_group},
                            {"op", c.kind},
                            {"group_size", c.group_size > 0 ? json(c.group_size) : json(nullptr)},
                            {"dtype", c.dtype},
                            {"metadata", c.has_metadata}});
        key.push_back(it->second);
        seq.push_back(c.seq);
        bytes.push_back(bytes_json(c.bytes));
        start.push_back(i == 0 ? c.start : c.start - prev);
        prev = c.start;
        dur.push_back(c.end - c.start);
        lead.push_back(c.launch_ns == kNoLaunch ? json(nullptr) : json(c.start - c.launch_ns));
        json cv = json::array();
        for (const auto& [s0, e0] : c.cover) {
            cv.push_back(s0 - c.start);
            cv.push_back(e0 - s0);
        }
        cover.push_back(std::move(cv));
    }
    j["collectives"] = {{"count", p.collectives.size()},
                        {"keys", std::move(keys)},
                        {"key", std::move(key)},
                        {"seq", std::move(seq)},
                        {"bytes", std::move(bytes)},
                        {"start_ns", std::move(start)},
                        {"duration_ns", std::move(dur)},
                        {"launch_lead_ns", std::move(lead)},
                        {"cover", std::move(cover)}};
    j["warnings"] = p.warnings;
    return j;
}

namespace {

// Field access that names the file, the place and what was expected.
struct Reader {
    const std::string& source;
    [[noreturn]] void fail(const std::string& where, const std::string& expected, const std::string& found) const
    {
        throw TraceError(source, where, expected, found);
    }
    static std::string type_of(const json& v)
    {
        return v.is_null() ? "null" : std::string(v.type_name());
    }
    const json& at(const json& obj, const std::string& where, const char* key) const
    {
        if (!obj.is_object())
            fail(where, "an object", type_of(obj));
        auto it = obj.find(key);
        if (it == obj.end())
            fail(where, std::string("a field \"") + key + "\"", "none");
        return *it;
    }
    int64_t integer(const json& v, const std::string& where) const
    {
        if (v.is_number_integer())
            return v.get<int64_t>();
        if (v.is_number_unsigned() && v.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX))
            return static_cast<int64_t>(v.get<uint64_t>());
        fail(where, "an integer", v.is_number() ? v.dump() : type_of(v));
    }
    int64_t integer(const json& obj, const std::string& where, const char* key) const
    {
        return integer(at(obj, where, key), where + "." + key);
    }
    double number(const json& obj, const std::string& where, const char* key) const
    {
        const json& v = at(obj, where, key);
        if (!v.is_number())
            fail(where + "." + key, "a number", type_of(v));
        return v.get<double>();
    }
    std::string string(const json& obj, const std::string& where, const char* key, bool nullable = false) const
    {
        const json& v = at(obj, where, key);
        if (nullable && v.is_null())
            return {};
        if (!v.is_string())
            fail(where + "." + key, "a string", type_of(v));
        return v.get<std::string>();
    }
    const json& array(const json& obj, const std::string& where, const char* key, size_t size = SIZE_MAX) const
    {
        const json& v = at(obj, where, key);
        if (!v.is_array())
            fail(where + "." + key, "an array", type_of(v));
        if (size != SIZE_MAX && v.size() != size)
            fail(where + "." + key, std::to_string(size) + " entries (one per record)",
                 std::to_string(v.size()));
        return v;
    }
};

} // namespace

RankPartial rank_partial_from_json(const std::string& text, const std::string& source)
{
    const json j = parse_json_input(text, source);
    const Reader rd{source};
    if (!j.is_object())
        rd.fail("top level", "a sightline.partial/1 object", Reader::type_of(j));
    {
        auto it = j.find("schema");
        const std::string found = it == j.end() ? "no schema" : it->is_string() ? it->get<std::string>() : it->dump();
        if (found != kPartialSchema)
            rd.fail("schema", std::string("\"") + kPartialSchema + "\" (a partial written by `sightline-cli analyze "
                              "--partial` of this version)",
                    quote_prefix(found, 60));
    }
    RankPartial p;
    p.source = source;
    const json& tr = rd.at(j, "top level", "trace");
    p.trace_path = rd.string(tr, "trace", "path");
    p.trace_format = rd.string(tr, "trace", "format");
    p.trace_bytes = static_cast<uint64_t>(std::max<int64_t>(0, rd.integer(tr, "trace", "bytes")));
    const json& id = rd.at(j, "top level", "identity");
    if (const json& r = rd.at(id, "identity", "rank"); !r.is_null()) {
        const int64_t v = rd.integer(r, "identity.rank");
        if (v < 0 || v > INT32_MAX)
            rd.fail("identity.rank", "a rank 0..2147483647", std::to_string(v));
        p.rank = static_cast<int32_t>(v);
    }
    const int64_t ws = rd.integer(id, "identity", "world_size");
    if (ws < 1 || ws > INT32_MAX)
        rd.fail("identity.world_size", "a world size 1..2147483647", std::to_string(ws));
    p.world_size = static_cast<int32_t>(ws);
    p.host = rd.string(id, "identity", "host", true);
    for (const json& g : rd.array(id, "identity", "process_groups")) {
        PartialProcessGroup pg;
        pg.name = rd.string(g, "identity.process_groups[]", "name");
        if (const json& n = rd.at(g, "identity.process_groups[]", "group_size"); !n.is_null())
            pg.group_size = rd.integer(n, "identity.process_groups[].group_size");
        pg.ranks = rd.string(g, "identity.process_groups[]", "ranks", true);
        pg.collectives = rd.integer(g, "identity.process_groups[]", "collectives");
        p.process_groups.push_back(std::move(pg));
    }
    const json& tb = rd.at(j, "top level", "time_base");
    if (rd.string(tb, "time_base", "unit") != "ns")
        rd.fail("time_base.unit", "\"ns\"", rd.string(tb, "time_base", "unit"));
    p.utc_epoch_ns = rd.integer(tb, "time_base", "utc_epoch_ns");
    p.capture_start_ns = rd.integer(tb, "time_base", "capture_start_ns");
    p.capture_end_ns = rd.integer(tb, "time_base", "capture_end_ns");
    p.wall_ns = rd.integer(j, "top level", "wall_ns");
    p.kernel_time_ns = rd.integer(j, "top level", "kernel_time_ns");
    for (const json& d : rd.array(j, "top level", "devices")) {
        PartialDevice pd;
        pd.id = static_cast<int32_t>(rd.integer(d, "devices[]", "id"));
        pd.name = rd.string(d, "devices[]", "name");
        pd.window_ns = rd.integer(d, "devices[]", "window_ns");
        pd.busy_ns = rd.integer(d, "devices[]", "busy_ns");
        pd.idle_ns = rd.integer(d, "devices[]", "idle_ns");
        const json& c = rd.at(d, "devices[]", "idle_by_cause");
        pd.host_wait_ns = rd.integer(c, "devices[].idle_by_cause", "host_wait_ns");
        pd.kernel_wait_ns = rd.integer(c, "devices[].idle_by_cause", "kernel_wait_ns");
        pd.sync_wait_ns = rd.integer(c, "devices[].idle_by_cause", "sync_wait_ns");
        pd.dependency_wait_ns = rd.integer(c, "devices[].idle_by_cause", "dependency_wait_ns");
        pd.other_ns = rd.integer(c, "devices[].idle_by_cause", "other_ns");
        p.devices.push_back(std::move(pd));
    }
    const json& s = rd.at(j, "top level", "steps");
    p.steps.source = rd.string(s, "steps", "source");
    p.steps.prefill_steps = rd.integer(s, "steps", "prefill_steps");
    p.steps.decode_steps = rd.integer(s, "steps", "decode_steps");
    p.steps.steady_steps = rd.integer(s, "steps", "steady_steps");
    p.steps.warmup_excluded = rd.integer(s, "steps", "warmup_excluded");
    p.steps.tpot_median_ns = rd.number(s, "steps", "tpot_median_ns");
    p.steps.tpot_p90_ns = rd.number(s, "steps", "tpot_p90_ns");
    p.steps.tpot_mean_ns = rd.number(s, "steps", "tpot_mean_ns");
    const json& ss = rd.array(s, "steps", "start_ns");
    const size_t nsteps = ss.size();
    for (const json& v : ss)
        p.steps.start_ns.push_back(rd.integer(v, "steps.start_ns[]"));
    for (const json& v : rd.array(s, "steps", "wall_ns", nsteps))
        p.steps.wall_ns.push_back(rd.integer(v, "steps.wall_ns[]"));
    for (const json& v : rd.array(s, "steps", "prefill", nsteps))
        p.steps.prefill.push_back(rd.integer(v, "steps.prefill[]") ? 1 : 0);
    for (const json& v : rd.array(s, "steps", "warmup", nsteps))
        p.steps.warmup.push_back(rd.integer(v, "steps.warmup[]") ? 1 : 0);
    for (const json& c : rd.array(j, "top level", "op_classes"))
        p.classes.push_back({rd.string(c, "op_classes[]", "id"), rd.integer(c, "op_classes[]", "time_ns"),
                             rd.integer(c, "op_classes[]", "count")});

    const json& cj = rd.at(j, "top level", "collectives");
    const int64_t count = rd.integer(cj, "collectives", "count");
    if (count < 0)
        rd.fail("collectives.count", "a count >= 0", std::to_string(count));
    const size_t n = static_cast<size_t>(count);
    struct Key {
        std::string pg, op, dtype;
        int64_t group_size = 0;
        bool metadata = false;
    };
    std::vector<Key> keys;
    for (const json& k : rd.array(cj, "collectives", "keys")) {
        Key key;
        key.pg = rd.string(k, "collectives.keys[]", "process_group");
        key.op = rd.string(k, "collectives.keys[]", "op");
        key.dtype = rd.string(k, "collectives.keys[]", "dtype");
        if (const json& g = rd.at(k, "collectives.keys[]", "group_size"); !g.is_null())
            key.group_size = rd.integer(g, "collectives.keys[].group_size");
        const json& md = rd.at(k, "collectives.keys[]", "metadata");
        if (!md.is_boolean())
            rd.fail("collectives.keys[].metadata", "true or false", Reader::type_of(md));
        key.metadata = md.get<bool>();
        keys.push_back(std::move(key));
    }
    const json& key = rd.array(cj, "collectives", "key", n);
    const json& seq = rd.array(cj, "collectives", "seq", n);
    const json& bytes = rd.array(cj, "collectives", "bytes", n);
    const json& start = rd.array(cj, "collectives", "start_ns", n);
    const json& dur = rd.array(cj, "collectives", "duration_ns", n);
    const json& lead = rd.array(cj, "collectives", "launch_lead_ns", n);
    const json& cover = rd.array(cj, "collectives", "cover", n);
    p.collectives.reserve(n);
    int64_t t = 0;
    for (size_t i = 0; i < n; ++i) {
        const std::string at = "collectives record " + std::to_string(i);
        CollectiveRecord r;
        const int64_t ki = rd.integer(key[i], at + " key");
        if (ki < 0 || static_cast<size_t>(ki) >= keys.size())
            rd.fail(at + " key", "an index into collectives.keys (0.." + std::to_string(keys.size()) + ")",
                    std::to_string(ki));
        const Key& k = keys[static_cast<size_t>(ki)];
        r.rank = p.rank.value_or(0);
        r.process_group = k.pg;
        r.kind = k.op;
        r.dtype = k.dtype;
        r.group_size = k.group_size;
        r.has_metadata = k.metadata;
        r.seq = rd.integer(seq[i], at + " seq");
        if (!bytes[i].is_number() || bytes[i].get<double>() < 0)
            rd.fail(at + " bytes", "a number >= 0", bytes[i].dump());
        r.bytes = bytes[i].get<double>();
        const int64_t ds = rd.integer(start[i], at + " start_ns");
        if (i > 0 && ds < 0)
            rd.fail(at + " start_ns", "a step >= 0 from the record before (records in start order)",
                    std::to_string(ds));
        t = i == 0 ? ds : t + ds;
        r.start = t;
        const int64_t d = rd.integer(dur[i], at + " duration_ns");
        if (d < 0)
            rd.fail(at + " duration_ns", "a duration >= 0", std::to_string(d));
        r.end = r.start + d;
        if (!lead[i].is_null())
            r.launch_ns = r.start - rd.integer(lead[i], at + " launch_lead_ns");
        r.order = static_cast<uint32_t>(i);
        const json& cv = cover[i];
        if (!cv.is_array() || cv.size() % 2 != 0)
            rd.fail(at + " cover", "an array of [offset, length] pairs", cv.dump().substr(0, 60));
        int64_t last = 0;
        for (size_t c = 0; c < cv.size(); c += 2) {
            const int64_t off = rd.integer(cv[c], at + " cover"), len = rd.integer(cv[c + 1], at + " cover");
            if (off < last || len < 0 || off + len > d)
                rd.fail(at + " cover", "sorted, disjoint intervals inside the record's duration",
                        "[" + std::to_string(off) + ", " + std::to_string(len) + "]");
            r.cover.emplace_back(r.start + off, r.start + off + len);
            last = off + len;
        }
        p.collectives.push_back(std::move(r));
    }
    for (const json& w : rd.array(j, "top level", "warnings"))
        if (w.is_string())
            p.warnings.push_back(w.get<std::string>());
    return p;
}

RankPartial read_rank_partial(const std::string& path)
{
    check_input_file(path, InputKind::Trace, "a sightline.partial/1 JSON file (plain or .gz)");
    std::string text;
    {
        GzipStream in(path);   // inflates a .gz, passes plain JSON through; bounded as the readers are
        char buf[1 << 16];
        for (size_t n; (n = in.read(buf, sizeof buf)) > 0;)
            text.append(buf, n);
    }
    // A trace given where its partial belongs: say what to run.
    if (text.rfind("SQLite format 3", 0) == 0 ||
        (text.find("\"traceEvents\"") != std::string::npos && text.find(kPartialSchema) == std::string::npos))
        throw TraceError(path, "byte 0", "a sightline.partial/1 JSON file",
                         "a trace (write its partial with `sightline-cli analyze TRACE --partial -o FILE`)");
    return rank_partial_from_json(text, path);
}

std::string rank_partial_file_bytes(const RankPartial& p, const std::string& path)
{
    std::string text = rank_partial_to_json(p).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".gz") != 0)
        return text;
    if (text.size() > (1ull << 31))
        throw TraceError(path, "gzip", "a partial under 2 GiB to compress", std::to_string(text.size()) + " bytes");
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw TraceError(path, "gzip", "zlib to compress the partial", "deflateInit2 failed");
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(text.data());
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw TraceError(path, "gzip", "the partial compressed", "deflate returned " + std::to_string(rc));
    return out;
}

} // namespace sl

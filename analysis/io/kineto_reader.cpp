// PyTorch profiler (Kineto) Chrome-trace JSON reader.
//
// Design: the file (inflated on the fly when gzipped) is read in pieces into one buffer. A small structural scanner
// walks the top-level object and captures the small metadata values (deviceProperties, distributedInfo, ...). The
// events inside "traceEvents" are read a buffer fill at a time on all threads (issue 18): each thread reads the
// events of its chunk in place, a plain event in one pass (OnePass), any other by finding its byte range (respecting
// strings, escapes and nesting, with a depth limit for garbage) and parsing it with simdjson On-Demand, handles them
// into a Part, and the parts are merged into the columnar Trace in file order (see parallel_step). Nothing but the
// buffer, the parts of two fills and the tables grows with the input: no DOM, no copy of the file.
//
// Timestamps are decimal microseconds; they are converted from the number's text to integer nanoseconds exactly
// (integer part x 1000 + three fractional digits, the fourth rounds half away from zero), so start + duration never
// drifts and no duration turns negative. Times stay relative to baseTimeNanoseconds (TraceMeta::utc_epoch_ns).
//
// The reader's files: kineto_reader_impl.h (the KinetoReader class), kineto_buffer.cpp (the buffer), kineto_chunks.cpp
// (the events, in chunks on all threads, and the merge of the chunks' parts), kineto_event_parser.h (the one-pass
// parser), kineto_simdjson.h (simdjson On-Demand, for any other event), kineto_event.h (the event both give),
// kineto_events.h (an event handled into a Part), and this file (the document, its metadata and what follows the
// last event).

#include "analysis/io/kineto_reader.h"
#include "analysis/io/kineto_reader_impl.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <numeric>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "analysis/trace/checked_math.h"
#include "analysis/trace/clock_offset.h"
#include "analysis/trace/errors.h"
#include "analysis/io/byte_masks.h"
#include "analysis/io/gzip_stream.h"
#include "analysis/io/input_bounds.h"
#include "analysis/io/parallel.h"
#include "analysis/io/json_input.h"
#include "analysis/trace/device_rows.h"

namespace sl::kineto {

std::string describe_byte(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
        return std::string("'") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
}

template <typename T> void KinetoReader::permute(std::vector<T>& v, const std::vector<uint32_t>& order)
{
    if (v.size() != order.size())
        return;
    std::vector<T> out;
    out.reserve(v.size());
    for (uint32_t i : order)
        out.push_back(v[i]);
    v.swap(out);
}

KinetoReader::KinetoReader(const std::string& path, const LoadControl& control, const KinetoReadOptions& options)
    : path_(path), control_(control), options_(options), in_(path)
{
    main_.python_modules_ = options.python_modules;
    main_.path_ = &path_;
    // A small file gets a buffer its size (a compressed one eight times its size) rather than a zero-filled
    // 8 MB chunk; the first refill that does not reach the end grows it to the chunk.
    const uint64_t hint = in_.compressed() ? in_.file_size() * 8 : in_.file_size() + 1;
    buf_.resize(static_cast<size_t>(std::clamp<uint64_t>(hint, kMinChunk, kChunk)) + simdjson::SIMDJSON_PADDING);
    trace_.meta.format = "kineto-json";
    trace_.meta.source_path = path;
    if (!in_.compressed())
        fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);   // when it fails, in_ reads on
}

KinetoReader::~KinetoReader()
{
    if (inflater_ && inflater_->thread.joinable())
        inflater_->thread.join();
    if (fd_ >= 0)
        ::close(fd_);
}

Trace KinetoReader::run()
{
    parse_document();
    finalize();
    return std::move(trace_);
}

void KinetoReader::parse_document()
{
    size_t keep = 0;
    refill(keep);
    if (end_ >= 3 && static_cast<unsigned char>(buf_[0]) == 0xEF && static_cast<unsigned char>(buf_[1]) == 0xBB &&
        static_cast<unsigned char>(buf_[2]) == 0xBF)
        pos_ = 3;
    if (!skip_ws())
        fail("a Kineto/Chrome trace (a JSON object with \"traceEvents\")", "no content (empty file)");
    const char c = buf_[pos_];
    if (c == '[') {
        ++pos_;
        saw_events_ = true;
        parse_events();
    } else if (c == '{') {
        ++pos_;
        parse_top_object();
    } else {
        fail("a Kineto/Chrome trace (a JSON object with \"traceEvents\")", describe_byte(c));
    }
    if (skip_ws())
        fail("the end of the JSON document", describe_byte(buf_[pos_]));
    if (!saw_events_)
        throw TraceError(path_, "top-level object", "a Kineto/Chrome trace with a \"traceEvents\" array",
                         "a JSON object without \"traceEvents\" (not a profiler trace)");
}

void KinetoReader::parse_top_object()
{
    bool first = true;
    for (;;) {
        char c = peek_required("a key or '}' in the top-level object");
        if (c == '}') {
            if (!first && expect_key_)
                fail("a key after ','", "'}'");
            ++pos_;
            return;
        }
        if (!first && !expect_key_) {
            if (c != ',')
                fail("',' or '}' in the top-level object", describe_byte(c));
            ++pos_;
            expect_key_ = true;
            continue;
        }
        if (c != '"')
            fail("a key (a string) in the top-level object", describe_byte(c));
        const size_t kend = complete_value("the rest of a key");
        std::string key(buf_.data() + pos_ + 1, kend - pos_ - 2);
        pos_ = kend;
        c = peek_required("':' after a key in the top-level object");
        if (c != ':')
            fail("':' after key \"" + key + "\"", describe_byte(c));
        ++pos_;
        c = peek_required("a value after ':' in the top-level object");
        if (key == "traceEvents") {
            if (c != '[')
                fail("an array for \"traceEvents\"", describe_byte(c));
            ++pos_;
            saw_events_ = true;
            parse_events();
        } else {
            capture_meta_value(key);
        }
        first = false;
        expect_key_ = false;
    }
}

// Captures a top-level value (scanned across refills, copied piecewise so the buffer need not hold it whole).
void KinetoReader::capture_meta_value(const std::string& key)
{
    // Scalars and small values: find the end within the buffer (refilling as needed).
    std::string text;
    bool keep = true;
    const char c = buf_[pos_];
    if (c != '{' && c != '[') {
        const size_t e = complete_value("the rest of a top-level value");
        text.assign(buf_.data() + pos_, e - pos_);
        pos_ = e;
    } else {
        // Nested value: walk it with a running depth, copying (up to kMaxMetaBytes) as we go.
        int depth = 0;
        bool in_string = false, escape = false;
        for (;;) {
            size_t i = pos_;
            const char* b = buf_.data();
            bool done = false;
            for (; i < end_; ++i) {
                const char ch = b[i];
                if (in_string) {
                    if (escape) escape = false;
                    else if (ch == '\\') escape = true;
                    else if (ch == '"') in_string = false;
                    continue;
                }
                if (ch == '"') in_string = true;
                else if (ch == '{' || ch == '[') {
                    if (++depth > kMaxDepth) {
                        pos_ = i;
                        fail("JSON nested at most " + std::to_string(kMaxDepth) + " levels deep",
                             "deeper nesting (garbage, not a trace)");
                    }
                } else if (ch == '}' || ch == ']') {
                    if (--depth == 0) {
                        ++i;
                        done = true;
                        break;
                    }
                }
            }
            if (keep) {
                if (text.size() + (i - pos_) > kMaxMetaBytes) {
                    keep = false;
                    text.clear();
                    text.shrink_to_fit();
                } else {
                    text.append(b + pos_, i - pos_);
                }
            }
            pos_ = i;
            if (done)
                break;
            size_t k = pos_;
            if (!refill(k))
                fail("the rest of the value of \"" + key + "\"", "the end of the file (truncated JSON?)");
        }
    }
    if (!keep) {
        trace_.meta.warnings.push_back("top-level key \"" + key + "\" is larger than 64 MB and was skipped");
        return;
    }
    nlohmann::json j;
    size_t deep_at = 0;
    if (json_nesting(text, kMaxJsonDepth, &deep_at) > kMaxJsonDepth)
        fail("JSON nested at most " + std::to_string(kMaxJsonDepth) + " deep for top-level key \"" + key + "\"",
             "deeper nesting at byte " + std::to_string(deep_at) + " of its value");
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& ex) {
        // Our words, not the JSON library's ("[json.exception.parse_error.101] ...").
        fail("valid JSON for top-level key \"" + key + "\"",
             "malformed JSON at byte " + std::to_string(ex.byte) + " of its value");
    } catch (const std::exception&) {
        fail("valid JSON for top-level key \"" + key + "\"", "malformed JSON");
    }
    apply_meta(key, j);
}

std::string KinetoReader::scalar_text(const nlohmann::json& v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float() || v.is_boolean())
        return v.dump();
    return {};
}

void KinetoReader::apply_meta(const std::string& key, const nlohmann::json& j)
{
    auto& m = trace_.meta;
    if (key == "schemaVersion") {
        m.schema_version = scalar_text(j);
    } else if (key == "baseTimeNanoseconds") {
        if (j.is_number_integer() || j.is_number_unsigned())
            m.utc_epoch_ns = j.get<int64_t>();
        else if (j.is_number_float())
            m.utc_epoch_ns = static_cast<int64_t>(j.get<double>());
    } else if (key == "deviceProperties" || key == "computeProperties") {
        if (j.is_array())
            device_props_ = j;
    } else if (key == "distributedInfo") {
        if (j.is_object()) {
            if (j.contains("rank") && j["rank"].is_number_integer()) {
                rank_ = j["rank"].get<int32_t>();
                m.environment["distributed.rank"] = std::to_string(rank_);
            }
            if (j.contains("world_size") && j["world_size"].is_number_integer())
                m.world_size = std::max(1, j["world_size"].get<int32_t>());
            for (const char* k : {"backend", "nccl_version"})
                if (j.contains(k) && !scalar_text(j[k]).empty())
                    m.environment[std::string("distributed.") + k] = scalar_text(j[k]);
        }
    } else if (j.is_string() || j.is_number() || j.is_boolean()) {
        // Versions and flags (cupti_version, cuda_runtime_version, hip_runtime_version, record_shapes, ...).
        static const char* const known[] = {
            "cupti_version", "cuda_runtime_version", "cuda_driver_version", "roctracer_version",
            "hip_runtime_version", "hip_driver_version", "pytorch_version", "torch_version", "kineto_version",
            "record_shapes", "with_stack", "with_flops", "with_modules", "profile_memory", "trace_id",
            "host_name", "displayTimeUnit"};
        for (const char* k : known)
            if (key == k)
                m.environment[key] = scalar_text(j);
        if (key == "pytorch_version" || key == "torch_version")
            m.tool_version = "PyTorch " + scalar_text(j);
    } else if (key == "metadata" && j.is_object()) {
        // TraceLens-style user metadata: keep the scalar entries that name versions.
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key().find("version") != std::string::npos && !scalar_text(it.value()).empty())
                m.environment["metadata." + it.key()] = scalar_text(it.value());
    }
}

bool KinetoReader::needs_sort(const std::vector<int64_t>& start)
{
    return !std::is_sorted(start.begin(), start.end());
}

std::vector<uint32_t> KinetoReader::order_by_start(const std::vector<int64_t>& start)
{
    std::vector<uint32_t> order(start.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return start[a] < start[b]; });
    return order;
}

void KinetoReader::sort_tables()
{
    auto& k = trace_.kernels;
    if (needs_sort(k.start)) {
        const auto o = order_by_start(k.start);
        permute(k.start, o); permute(k.end, o); permute(k.name, o); permute(k.short_name, o);
        permute(k.correlation, o); permute(k.launch_api, o); permute(k.device, o); permute(k.process, o);
        permute(k.stream, o); permute(k.shape, o); permute(k.flags, o); permute(k.blocks_per_sm, o);
        permute(k.warps_per_sm, o); permute(k.est_occupancy_pct, o);
    }
    auto& m = trace_.memcpy;
    if (needs_sort(m.start)) {
        const auto o = order_by_start(m.start);
        permute(m.start, o); permute(m.end, o); permute(m.bytes, o); permute(m.copy_kind, o);
        permute(m.src_kind, o); permute(m.dst_kind, o); permute(m.device, o); permute(m.process, o);
        permute(m.stream, o); permute(m.correlation, o); permute(m.launch_api, o);
    }
    auto& s = trace_.memset;
    if (needs_sort(s.start)) {
        const auto o = order_by_start(s.start);
        permute(s.start, o); permute(s.end, o); permute(s.bytes, o); permute(s.mem_kind, o);
        permute(s.device, o); permute(s.process, o); permute(s.stream, o); permute(s.correlation, o);
        permute(s.launch_api, o);
    }
    auto& y = trace_.syncs;
    if (needs_sort(y.start)) {
        const auto o = order_by_start(y.start);
        permute(y.start, o); permute(y.end, o); permute(y.device, o); permute(y.process, o);
        permute(y.stream, o); permute(y.correlation, o); permute(y.sync_type, o); permute(y.api, o);
    }
    auto& a = trace_.api;
    if (needs_sort(a.start)) {
        const auto o = order_by_start(a.start);
        permute(a.start, o); permute(a.end, o); permute(a.name, o); permute(a.correlation, o);
        permute(a.thread, o); permute(a.api_class, o); permute(a.flags, o);
    }
    auto& g = trace_.gpu_ranges;
    if (needs_sort(g.start)) {
        const auto o = order_by_start(g.start);
        permute(g.start, o); permute(g.end, o); permute(g.name, o); permute(g.device, o); permute(g.stream, o);
    }
}

void KinetoReader::keep_python_frames()
{
    auto& r = trace_.ranges;
    std::vector<uint32_t> python;
    for (size_t i = 0; i < r.size(); ++i)
        if (r.kind[i] == RangeKind::PythonFunction)
            python.push_back(static_cast<uint32_t>(i));
    if (python.size() <= kMaxPythonFrames)
        return;
    std::vector<uint8_t> keep(r.size(), 1);
    std::vector<uint32_t> rest;
    for (uint32_t i : python) {
        keep[i] = 0;
        if (trace_.str(r.name[i]).starts_with("nn.Module: "))
            keep[i] = 1;
        else
            rest.push_back(i);
    }
    const size_t modules = python.size() - rest.size();
    const size_t budget = kMaxPythonFrames > modules ? kMaxPythonFrames - modules : 0;
    if (budget < rest.size()) {
        // Longest first; ties by row (file order).
        std::nth_element(rest.begin(), rest.begin() + static_cast<ptrdiff_t>(budget), rest.end(),
                         [&](uint32_t a, uint32_t b) {
                             const int64_t da = r.end[a] - r.start[a], db = r.end[b] - r.start[b];
                             return da != db ? da > db : a < b;
                         });
        rest.resize(budget);
    }
    for (uint32_t i : rest)
        keep[i] = 1;
    size_t out = 0;
    for (size_t i = 0; i < r.size(); ++i) {
        if (!keep[i])
            continue;
        r.start[out] = r.start[i];
        r.end[out] = r.end[i];
        r.name[out] = r.name[i];
        r.thread[out] = r.thread[i];
        r.kind[out] = r.kind[i];
        r.depth[out] = r.depth[i];
        ++out;
    }
    const int64_t dropped = static_cast<int64_t>(r.size() - out);
    for (auto* v : {&r.start, &r.end})
        v->resize(out);
    r.name.resize(out);
    r.thread.resize(out);
    r.kind.resize(out);
    r.depth.resize(out);
    trace_.meta.warnings.push_back(std::to_string(dropped) + " short python_function frames were left out (the " +
                                   std::to_string(kMaxPythonFrames) +
                                   " longest and every nn.Module frame are kept)");
}

// Events that carry no "correlation" arg are linked through their ac2g / async flow instead: the flow's start
// sits on the launching call (same pid, tid, ts), its finish on the GPU activity.
void KinetoReader::link_by_flows()
{
    if (flows_.empty() || (!gpu_without_corr_ && !api_without_corr_))
        return;
    auto cmp = [](const FlowEnd& a, const FlowEnd& b) {
        return a.ph != b.ph ? a.ph < b.ph : a.key != b.key ? a.key < b.key : a.ts < b.ts;
    };
    std::sort(flows_.begin(), flows_.end(), cmp);
    auto find = [&](char ph, uint64_t key, int64_t ts) -> uint32_t {
        const FlowEnd probe{ts, key, 0, ph};
        auto it = std::lower_bound(flows_.begin(), flows_.end(), probe, cmp);
        if (it != flows_.end() && it->ph == ph && it->key == key && it->ts == ts)
            return it->id;
        return 0;
    };
    auto gpu_key = [](int64_t device_id, uint32_t stream) {
        return static_cast<uint64_t>(device_id) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(stream);
    };
    const auto& devs = trace_.meta.devices;
    auto fix = [&](auto& t) {
        for (size_t i = 0; i < t.size(); ++i)
            if (t.correlation[i] == 0)
                t.correlation[i] = find('f', gpu_key(devs[t.device[i]].id, t.stream[i]), t.start[i]);
    };
    if (gpu_without_corr_) {
        fix(trace_.kernels);
        fix(trace_.memcpy);
        fix(trace_.memset);
    }
    if (api_without_corr_) {
        auto& a = trace_.api;
        const auto& th = trace_.meta.threads;
        for (size_t i = 0; i < a.size(); ++i)
            if (a.correlation[i] == 0) {
                const auto& t = th[a.thread[i]];
                a.correlation[i] = find(
                    's', static_cast<uint64_t>(t.pid) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(t.tid),
                    a.start[i]);
            }
    }
    std::vector<FlowEnd>().swap(flows_);
}

// Devices: rank and the properties the trace gives. deviceProperties lists the devices the process saw, numbered
// from 0, while the GPU ops may carry another numbering (ROCm: the node's agent, e.g. 9 or 2 for the one device a
// process saw). An op's device takes the entry with its id; failing that for every device, the entries in order
// (the k-th device the ops use, by id, takes the k-th entry) when there are enough; failing that, any entry when
// all are alike but for their id. properties_from says which, when not by id.
void KinetoReader::map_device_properties()
{
    auto& m = trace_.meta;
    std::vector<const nlohmann::json*> props;
    for (const auto& p : device_props_)
        if (p.is_object())
            props.push_back(&p);
    auto id_of = [](const nlohmann::json& p) -> std::optional<int64_t> {
        if (p.contains("id") && p["id"].is_number_integer())
            return p["id"].get<int64_t>();
        return std::nullopt;
    };
    auto apply = [](DeviceInfo& d, const nlohmann::json& p) {
        auto geti = [&](const char* k) -> int64_t {
            return p.contains(k) && p[k].is_number() ? p[k].get<int64_t>() : 0;
        };
        if (p.contains("name") && p["name"].is_string())
            d.name = p["name"].get<std::string>();
        d.sm_count = static_cast<int32_t>(geti("numSms"));
        d.total_memory_bytes = geti("totalGlobalMem");
        d.compute_major = static_cast<int32_t>(geti("computeMajor"));
        d.compute_minor = static_cast<int32_t>(geti("computeMinor"));
        d.warp_size = static_cast<int32_t>(geti("warpSize"));
    };
    std::vector<size_t> unmatched;
    for (size_t i = 0; i < m.devices.size(); ++i) {
        DeviceInfo& d = m.devices[i];
        d.rank = rank_;
        auto it = std::find_if(props.begin(), props.end(), [&](const nlohmann::json* p) { return id_of(*p) == d.id; });
        if (it != props.end())
            apply(d, **it);
        else
            unmatched.push_back(i);
    }
    if (unmatched.empty() || props.empty())
        return;
    auto ordinal = [](size_t k) {
        const char* suffix = k % 10 == 1 && k % 100 != 11 ? "st" : k % 10 == 2 && k % 100 != 12 ? "nd"
                             : k % 10 == 3 && k % 100 != 13 ? "rd" : "th";
        return std::to_string(k) + suffix;
    };
    auto entry_name = [&](const nlohmann::json& p) {
        const auto id = id_of(p);
        return "deviceProperties entry " + (id ? "id " + std::to_string(*id) : std::string("without id"));
    };
    if (unmatched.size() == m.devices.size() && m.devices.size() <= props.size()) {
        std::vector<size_t> by_id(m.devices.size());
        std::iota(by_id.begin(), by_id.end(), size_t{0});
        std::sort(by_id.begin(), by_id.end(), [&](size_t a, size_t b) { return m.devices[a].id < m.devices[b].id; });
        std::vector<const nlohmann::json*> listed = props;
        std::stable_sort(listed.begin(), listed.end(), [&](const nlohmann::json* a, const nlohmann::json* b) {
            return id_of(*a).value_or(INT64_MAX) < id_of(*b).value_or(INT64_MAX);
        });
        for (size_t k = 0; k < by_id.size(); ++k) {
            DeviceInfo& d = m.devices[by_id[k]];
            apply(d, *listed[k]);
            d.properties_from = entry_name(*listed[k]) + ", by order: device " + std::to_string(d.id) +
                                " is the " + ordinal(k + 1) + " of the " + std::to_string(by_id.size()) +
                                " device(s) the GPU ops use, and no entry has its id";
        }
        return;
    }
    auto alike = [&](const nlohmann::json& a, const nlohmann::json& b) {
        nlohmann::json x = a, y = b;
        x.erase("id");
        y.erase("id");
        return x == y;
    };
    const bool all_alike = std::all_of(props.begin(), props.end(), [&](const nlohmann::json* p) {
        return alike(*p, *props.front());
    });
    for (size_t i : unmatched) {
        DeviceInfo& d = m.devices[i];
        if (all_alike) {
            apply(d, *props.front());
            d.properties_from = entry_name(*props.front()) + ": no entry has id " + std::to_string(d.id) +
                                ", and all " + std::to_string(props.size()) + " are alike but for their id";
        } else {
            m.warnings.push_back("device " + std::to_string(d.id) + " of the GPU ops has no deviceProperties entry "
                                 "(the " + std::to_string(props.size()) + " entries differ and cannot be matched "
                                 "by order): its name and properties are unknown");
        }
    }
}

void KinetoReader::finalize()
{
    auto& m = trace_.meta;
    control_.report(1.0, "linking");
    link_by_flows();
    std::vector<FlowEnd>().swap(flows_);

    // Thread and process names, processes for every host pid, the rank everywhere.
    // op_args rows are keyed by (rank, pid, id) against the devices' rank (collectives, KernelOps): the same rank here.
    std::fill(trace_.op_args.rank.begin(), trace_.op_args.rank.end(), rank_);
    for (auto& t : m.threads) {
        auto it = thread_names_.find({t.pid, t.tid});
        if (it != thread_names_.end())
            t.name = it->second;
        t.rank = rank_;
    }
    // One row per host pid, through a map (Trace::process_index scans the rows: quadratic in pids, issue 36 §8).
    std::unordered_map<int64_t, uint16_t> proc_of_pid;
    for (size_t i = 0; i < m.processes.size(); ++i)
        if (m.processes[i].rank == rank_)
            proc_of_pid.emplace(m.processes[i].pid, static_cast<uint16_t>(i));
    for (const auto& t : m.threads)
        if (!proc_of_pid.count(t.pid)) {
            try {
                proc_of_pid[t.pid] = append_process_row(trace_, t.pid, rank_);
            } catch (const TraceError& e) {
                throw TraceError(path_, e.where(), e.expected(), e.found());
            }
        }
    for (auto& p : m.processes) {
        auto it = process_names_.find(p.pid);
        if (it != process_names_.end())
            p.name = it->second;
    }
    const bool gpu_rows = trace_.kernels.size() + trace_.memcpy.size() + trace_.memset.size() +
                              trace_.syncs.size() > 0;
    if (m.processes.empty() && gpu_rows)
        trace_.process_index(0, rank_);

    // GPU rows belong to the host process whose API call launched them (by correlation); unlinked ones to the
    // process that made the most API calls.
    if (m.processes.size() > 1) {
        std::vector<uint32_t> calls(m.processes.size(), 0);
        std::vector<uint16_t> proc_of_thread(m.threads.size());
        for (size_t t = 0; t < m.threads.size(); ++t)
            proc_of_thread[t] = proc_of_pid[m.threads[t].pid];
        for (uint32_t t : trace_.api.thread)
            ++calls[proc_of_thread[t]];
        const auto main_proc =
            static_cast<uint16_t>(std::max_element(calls.begin(), calls.end()) - calls.begin());
        std::vector<uint32_t> by_corr(trace_.api.size());
        std::iota(by_corr.begin(), by_corr.end(), 0u);
        const auto& ac = trace_.api.correlation;
        std::sort(by_corr.begin(), by_corr.end(), [&](uint32_t a, uint32_t b) { return ac[a] < ac[b]; });
        auto assign = [&](auto& t) {
            for (size_t i = 0; i < t.size(); ++i) {
                t.process[i] = main_proc;
                const uint32_t c = t.correlation[i];
                if (c == 0)
                    continue;
                auto it = std::lower_bound(by_corr.begin(), by_corr.end(), c,
                                           [&](uint32_t idx, uint32_t v) { return ac[idx] < v; });
                if (it != by_corr.end() && ac[*it] == c)
                    t.process[i] = proc_of_thread[trace_.api.thread[*it]];
            }
        };
        assign(trace_.kernels);
        assign(trace_.memcpy);
        assign(trace_.memset);
        assign(trace_.syncs);
    }

    map_device_properties();
    // Streams used by GPU rows.
    {
        // Distinct pairs through a hash set (sorting a pair per row was a tenth of the calling thread's serial
        // work after the events), then sorted.
        std::vector<std::pair<uint16_t, uint32_t>> used;
        std::unordered_set<uint64_t> seen;
        auto collect = [&](const std::vector<uint16_t>& dev, const std::vector<uint32_t>& str) {
            uint64_t last = UINT64_MAX;
            for (size_t i = 0; i < dev.size(); ++i) {
                const uint64_t key = static_cast<uint64_t>(dev[i]) << 32 | str[i];
                if (key != last && seen.insert(key).second)
                    used.emplace_back(dev[i], str[i]);
                last = key;
            }
            std::sort(used.begin(), used.end());
        };
        collect(trace_.kernels.device, trace_.kernels.stream);
        collect(trace_.memcpy.device, trace_.memcpy.stream);
        collect(trace_.memset.device, trace_.memset.stream);
        for (const auto& [dev, str] : used) {
            StreamInfo s;
            s.device = dev;
            s.stream = str;
            m.streams.push_back(s);
        }
    }
    if (window_lo_ <= window_hi_) {
        m.capture_start = window_lo_;
        m.capture_end = window_hi_;
    }
    if (m.tool_version.empty())
        m.tool_version = m.schema_version.empty() ? "Kineto" : "Kineto schema " + m.schema_version;
    if (m.world_size < 1)
        m.world_size = 1;
    if (trace_.kernels.blocks_per_sm.size() != trace_.kernels.size()) {
        trace_.kernels.blocks_per_sm.clear();
        trace_.kernels.warps_per_sm.clear();
        trace_.kernels.est_occupancy_pct.clear();
    }
    keep_python_frames();
    sort_tables();
    trace_.finish();
    // Host/device clock offset (issue 13): put the GPU ops on the host clock and say so, so the offset never
    // reads as queue delay or idle time.
    if (const ClockOffset off = detect_clock_offset(trace_); off.detected) {
        shift_gpu_times_and_capture(trace_, off.shift_ns);   // the Trace span with them: it held their clock too
        m.clock_shift_ns = off.shift_ns;
        m.clock_shift_reason = off.reason;
        m.warnings.push_back("host and device clocks disagree: " + off.reason + "; GPU times were moved by " +
                             std::to_string(off.shift_ns) + " ns onto the host clock");
    }
    if (!dropped_.empty()) {
        int64_t total = 0;
        std::string list;
        for (const auto& [c, n] : dropped_) {
            total += n;
            list += (list.empty() ? "" : ", ") + c + " " + std::to_string(n);
        }
        m.dropped_events = std::map<std::string, int64_t>(dropped_.begin(), dropped_.end());
        m.warnings.push_back(std::to_string(total) + " events of kinds Sightline does not read were dropped (" +
                             list + ")");
    }
    // Values the events carried that the trace could not keep as they were (input_bounds.h, checked_math.h).
    for (const auto& [field, b] : main_.bad_fields_) {
        const std::string events = std::to_string(b.count) + " event" + (b.count == 1 ? "" : "s");
        if (field == "ts + dur")   // dropped, not clamped (issue 36 §5)
            m.warnings.push_back(events + " dropped: " + (b.count == 1 ? "its time lies" : "their times lie") +
                                 " beyond +/-2^61 ns (73 years) of the origin, which no capture spans (first: " +
                                 b.first + ")");
        else
            m.warnings.push_back(events + " skipped for " + field + " that is not an integer in range (first: " +
                                 b.first + ")");
    }
    if (main_.truncated_names_)
        m.warnings.push_back(std::to_string(main_.truncated_names_) + " names were longer than " +
                             std::to_string(kMaxNameBytes) + " bytes; each was cut there and ends in \"[... N more "
                             "bytes]\"");
    if (!python_packages_.empty()) {
        std::string list;
        for (const auto& pkg : python_packages_)
            list += (list.empty() ? "" : ",") + pkg;
        m.environment["python_frameworks"] = list;
    }
    m.capture_source = window_lo_ <= window_hi_ ? "kineto Trace span" : "events";
    if (window_lo_ <= window_hi_)
        m.reported_capture_ns = window_hi_ - window_lo_;
    // A capture window from the "Trace" span must still cover every event.
    int64_t lo = m.capture_start, hi = m.capture_end;
    auto widen = [&](const std::vector<int64_t>& s, const std::vector<int64_t>& e) {
        for (size_t i = 0; i < s.size(); ++i) {
            lo = std::min(lo, s[i]);
            hi = std::max(hi, e[i]);
        }
    };
    widen(trace_.kernels.start, trace_.kernels.end);
    widen(trace_.memcpy.start, trace_.memcpy.end);
    widen(trace_.memset.start, trace_.memset.end);
    m.capture_start = lo;
    m.capture_end = hi;
    if (m.clock_shift_ns != 0 &&
        (m.capture_start != m.uncorrected_capture_start || m.capture_end != m.uncorrected_capture_end))
        m.capture_source += ", corrected with the GPU clock";
}

} // namespace sl::kineto

namespace sl {

Trace read_kineto_json(const std::string& path, const LoadControl& control)
{
    return read_kineto_json(path, control, KinetoReadOptions{});
}

Trace read_kineto_json(const std::string& path, const LoadControl& control, const KinetoReadOptions& options)
{
    kineto::KinetoReader reader(path, control, options);
    return reader.run();
}

} // namespace sl

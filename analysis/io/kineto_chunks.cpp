// The Kineto reader's events (kineto_reader_impl.h): the "traceEvents" array read a buffer fill at a time on all
// threads, each chunk of the buffer scanned, parsed and handled into a Part of its own, the parts merged into the
// trace in file order; what a chunk cannot do alone is done one event at a time on the calling thread.
#include "analysis/io/kineto_reader_impl.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <type_traits>

#include <sys/mman.h>

#include "analysis/io/input_bounds.h"
#include "analysis/io/kineto_event_parser.h"
#include "analysis/io/kineto_simdjson.h"
#include "analysis/trace/errors.h"

namespace sl::kineto {

// ---- merging a part into the trace, in file order ------------------------------------------------------------
void KinetoReader::populate(const void* p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    constexpr uintptr_t kPage = 4096;
    if (bytes < 16 * kPage)
        return;
    const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
    const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
    if (hi > lo)
        ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);   // advice: errors change nothing
#else
    (void)p;
    (void)bytes;
#endif
}

// Makes room in v for add more elements. Capacity grows to the next power of two, as push_back grows it, so a
// column's capacity (Trace::memory_bytes) does not depend on how its rows came in pieces. The pages about to be
// written are faulted in with one madvise (in a VM a page fault costs more than copying the page).
template <typename T> void KinetoReader::grow(std::vector<T>& v, size_t add)
{
    const size_t need = v.size() + add;
    if (need > v.capacity()) {
        std::vector<T> bigger;
        bigger.reserve(std::bit_ceil(need));
        populate(bigger.data(), need * sizeof(T));
        if constexpr (std::is_same_v<T, std::string>)
            bigger.insert(bigger.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
        else
            bigger.insert(bigger.end(), v.begin(), v.end());
        v.swap(bigger);
    } else {
        populate(v.data() + v.size(), add * sizeof(T));
    }
}

template <typename T> void KinetoReader::cat(std::vector<T>& dst, std::vector<T>& src)
{
    if constexpr (std::is_same_v<T, std::string>)
        dst.insert(dst.end(), std::make_move_iterator(src.begin()), std::make_move_iterator(src.end()));
    else
        dst.insert(dst.end(), src.begin(), src.end());
}

template <typename T, typename Map> void KinetoReader::remap(std::vector<T>& col, size_t from, const Map& m)
{
    for (size_t i = from; i < col.size(); ++i)
        col[i] = static_cast<T>(m[col[i]]);
}

// Every column of every table the reader fills (beside sort_tables(), which permutes the same columns):
// f(column of t, the same column of s).
template <typename F> void KinetoReader::for_columns(Trace& t, Trace& s, F&& f)
{
    auto& k = t.kernels;
    auto& ks = s.kernels;
    f(k.start, ks.start); f(k.end, ks.end); f(k.name, ks.name); f(k.short_name, ks.short_name);
    f(k.correlation, ks.correlation); f(k.launch_api, ks.launch_api); f(k.device, ks.device);
    f(k.process, ks.process); f(k.stream, ks.stream); f(k.shape, ks.shape);
    f(k.flags, ks.flags); f(k.blocks_per_sm, ks.blocks_per_sm); f(k.warps_per_sm, ks.warps_per_sm);
    f(k.est_occupancy_pct, ks.est_occupancy_pct);
    auto& m = t.memcpy;
    auto& ms = s.memcpy;
    f(m.start, ms.start); f(m.end, ms.end); f(m.bytes, ms.bytes); f(m.copy_kind, ms.copy_kind);
    f(m.src_kind, ms.src_kind); f(m.dst_kind, ms.dst_kind); f(m.device, ms.device);
    f(m.process, ms.process); f(m.stream, ms.stream); f(m.correlation, ms.correlation);
    f(m.launch_api, ms.launch_api);
    auto& z = t.memset;
    auto& zs = s.memset;
    f(z.start, zs.start); f(z.end, zs.end); f(z.bytes, zs.bytes); f(z.mem_kind, zs.mem_kind);
    f(z.device, zs.device); f(z.process, zs.process); f(z.stream, zs.stream);
    f(z.correlation, zs.correlation); f(z.launch_api, zs.launch_api);
    auto& y = t.syncs;
    auto& ys = s.syncs;
    f(y.start, ys.start); f(y.end, ys.end); f(y.device, ys.device); f(y.process, ys.process);
    f(y.stream, ys.stream); f(y.correlation, ys.correlation); f(y.sync_type, ys.sync_type);
    f(y.api, ys.api);
    auto& a = t.api;
    auto& as = s.api;
    f(a.start, as.start); f(a.end, as.end); f(a.name, as.name); f(a.correlation, as.correlation);
    f(a.thread, as.thread); f(a.api_class, as.api_class); f(a.flags, as.flags);
    auto& r = t.ranges;
    auto& rs = s.ranges;
    f(r.start, rs.start); f(r.end, rs.end); f(r.name, rs.name); f(r.thread, rs.thread);
    f(r.kind, rs.kind); f(r.depth, rs.depth);
    auto& g = t.gpu_ranges;
    auto& gs = s.gpu_ranges;
    f(g.start, gs.start); f(g.end, gs.end); f(g.name, gs.name); f(g.device, gs.device);
    f(g.stream, gs.stream);
    auto& o = t.op_args;
    auto& os = s.op_args;
    f(o.source, os.source); f(o.start, os.start); f(o.end, os.end); f(o.name, os.name);
    f(o.rank, os.rank); f(o.pid, os.pid); f(o.external_id, os.external_id);
    f(o.correlation, os.correlation); f(o.input_dims, os.input_dims); f(o.input_types, os.input_types);
    f(o.concrete_inputs, os.concrete_inputs); f(o.collective, os.collective); f(o.dtype, os.dtype);
    f(o.pg_name, os.pg_name); f(o.pg_ranks, os.pg_ranks); f(o.in_nelems, os.in_nelems);
    f(o.out_nelems, os.out_nelems); f(o.group_size, os.group_size);
}

// ---- events ------------------------------------------------------------------------------------------------------
void KinetoReader::parse_events()
{
    in_events_ = true;
    sep_ = Sep::First;
    for (;;) {
        const uint64_t before = event_index_;
        parallel_step();
        if ((before >> 16) != (event_index_ >> 16)) {
            control_.check();
            check_memory_budget(path_, "event " + std::to_string(event_index_) + " (byte " +
                                           std::to_string(file_pos_) + ")");
            if (control_.progress) {
                const double total = static_cast<double>(std::max<uint64_t>(1, in_.file_size()));
                const double done = static_cast<double>(file_pos_);
                control_.report(std::min(1.0, done / total), "events");
            }
        }
        if (sequential_step())
            break;
    }
    flush_pending();
    in_events_ = false;
}

// Parses the event object in [b, e) into ev; on failure returns false and, when msg is given, says why.
bool KinetoReader::parse_event(od::parser& parser, size_t b, size_t e, Event& ev, std::string* msg) const
{
    try {
        od::document doc = parser.iterate(buf_.data() + b, e - b, buf_.size() - b);
        od::object obj = doc.get_object();
        parse_event_fields(obj, ev);
        return true;
    } catch (const simdjson::simdjson_error& ex) {
        if (msg)
            *msg = describe_json_error(ex.error());
        return false;
    }
}

// Scans, parses and handles the events from p (scan state sep) into part, inside the buffer: stops at the first
// event starting at or after stop_at, and before anything it cannot do alone (see above). Reads buf_ only, so
// chunks run on several threads at once.
KinetoReader::ChunkEnd KinetoReader::scan_chunk(size_t p, Sep sep, size_t stop_at, od::parser& parser, Part& part) const
{
    const char* b = buf_.data();
    ChunkEnd r;
    for (;;) {
        while (p < end_ && is_ws(b[p]))
            ++p;
        r.pos = p;
        r.sep = sep;
        if (p >= end_)
            return r;
        if (sep == Sep::AfterEvent) {
            if (b[p] != ',')
                return r;
            ++p;
            sep = Sep::AfterComma;
            continue;
        }
        if (b[p] != '{')
            return r;
        if (p >= stop_at) {
            r.at_start = true;
            return r;
        }
        Event ev;
        if (const char* next = parse_plain_event(b + p, b + end_, ev)) {
            part.handle_event(ev);
            ++r.events;
            p = static_cast<size_t>(next - b);
            sep = Sep::AfterEvent;
            continue;
        }
        ev = Event();
        size_t e = kNpos;
        try {
            e = scan_value(p);
        } catch (const TraceError&) {   // nested too deep: sequential_step() says so with the event's index
            return r;
        }
        if (e == kNpos)
            return r;
        if (!parse_event(parser, p, e, ev, nullptr))
            return r;
        part.handle_event(ev);
        ++r.events;
        p = e;
        sep = Sep::AfterEvent;
    }
}

// A likely event start at or after p: a '{' after "}," and before '"' (whitespace allowed between). Only a guess
// (it could sit inside a string or a nested value): the scan of the chunk before it confirms it or not.
size_t KinetoReader::guess_event_start(size_t p) const
{
    const char* b = buf_.data();
    while (p < end_) {
        const void* q = std::memchr(b + p, '{', end_ - p);
        if (!q)
            return kNpos;
        const size_t i = static_cast<size_t>(static_cast<const char*>(q) - b);
        size_t j = i;
        while (j > pos_ && is_ws(b[j - 1]))
            --j;
        if (j > pos_ && b[j - 1] == ',') {
            --j;
            while (j > pos_ && is_ws(b[j - 1]))
                --j;
            size_t n = i + 1;
            while (n < end_ && is_ws(b[n]))
                ++n;
            if (j > pos_ && b[j - 1] == '}' && n < end_ && b[n] == '"')
                return i;
        }
        p = i + 1;
    }
    return kNpos;
}

// An empty part; its columns keep their capacity from step to step (fresh ones would fault in their pages anew).
Part* KinetoReader::acquire_part()
{
    if (free_.empty()) {
        parts_.push_back(std::make_unique<Part>());
        parts_.back()->python_modules_ = options_.python_modules;
        parts_.back()->path_ = &path_;
        return parts_.back().get();
    }
    Part* p = free_.back();
    free_.pop_back();
    Trace tables = std::move(p->trace_);
    *p = Part();
    p->python_modules_ = options_.python_modules;
    p->path_ = &path_;
    for_columns(tables, tables, [](auto& col, auto&) { col.clear(); });
    tables.kernels.shapes.clear();        // a part's shapes are its own, numbered from 0 again
    tables.kernels.shape_ids.clear();
    p->trace_.kernels = std::move(tables.kernels);
    p->trace_.memcpy = std::move(tables.memcpy);
    p->trace_.memset = std::move(tables.memset);
    p->trace_.syncs = std::move(tables.syncs);
    p->trace_.api = std::move(tables.api);
    p->trace_.ranges = std::move(tables.ranges);
    p->trace_.gpu_ranges = std::move(tables.gpu_ranges);
    p->trace_.op_args = std::move(tables.op_args);
    return p;
}

// A step: the chunks of the buffer are scanned into parts while, in the same run of tasks, the parts absorbed in
// the step before have their rows copied into the trace (so the copying fills the threads' idle time). Then the
// confirmed parts are absorbed (numbered, in file order) and wait for the next run.
void KinetoReader::parallel_step()
{
    const size_t len = end_ - pos_;
    const size_t want = std::min<size_t>(parse_threads_, std::max<size_t>(1, len / kMinChunkBytes));
    std::vector<size_t> starts{pos_};
    for (size_t k = 1; k < want; ++k) {
        const size_t g = guess_event_start(pos_ + len / want * k);
        if (g != kNpos && g > starts.back())
            starts.push_back(g);
    }
    const size_t chunks = starts.size();
    std::vector<ChunkEnd> ends(chunks);
    std::vector<Part*> scan(chunks);
    for (size_t k = 0; k < chunks; ++k)
        scan[k] = acquire_part();
    if (parsers_.size() < parse_threads_)
        parsers_.resize(parse_threads_);
    const size_t copies = pending_.empty() ? 0 : columns() + 1;
    TaskRun run;
    run_tasks(chunks + copies, parse_threads_, run, [&](size_t k, unsigned slot) {
        if (k >= chunks) {
            copy_column(k - chunks);
            return;
        }
        const size_t stop = k + 1 < chunks ? starts[k + 1] : kNpos;
        ends[k] = scan_chunk(starts[k], k == 0 ? sep_ : Sep::AfterComma, stop, parsers_[slot], *scan[k]);
    });
    rethrow_first(run);   // not a parse error (out of memory)
    free_.insert(free_.end(), pending_.begin(), pending_.end());
    pending_.clear();
    size_t merged = 0;
    while (merged < chunks) {
        const ChunkEnd& r = ends[merged];
        main_.absorb(*scan[merged]);
        pending_.push_back(scan[merged]);
        ++merged;
        event_index_ += r.events;
        pos_ = r.pos;
        sep_ = r.sep;
        const bool next_confirmed =
            merged < chunks && r.at_start && r.pos == starts[merged] && r.sep == Sep::AfterComma;
        if (!next_confirmed)
            break;
    }
    free_.insert(free_.end(), scan.begin() + static_cast<std::ptrdiff_t>(merged), scan.end());
}

// Copies the rows of the absorbed parts still pending into the trace.
void KinetoReader::flush_pending()
{
    if (pending_.empty())
        return;
    TaskRun run;
    run_tasks(columns() + 1, parse_threads_, run, [&](size_t c, unsigned) { copy_column(c); });
    rethrow_first(run);
    free_.insert(free_.end(), pending_.begin(), pending_.end());
    pending_.clear();
}

// One step through the event array on the calling thread, refilling the buffer as needed: a separator, the end
// of the array or one event. Returns true at the end of the array.
bool KinetoReader::sequential_step()
{
    if (sep_ == Sep::AfterEvent) {
        const char c = peek_required("',' or ']' after an event");
        if (c == ']') {
            ++pos_;
            return true;
        }
        if (c != ',')
            fail("',' or ']' after an event", describe_byte(c));
        ++pos_;
        sep_ = Sep::AfterComma;
        return false;
    }
    const bool first = sep_ == Sep::First;
    const char c = peek_required(first ? "an event object or ']' in \"traceEvents\"" : "an event object after ','");
    if (c == ']') {
        if (!first)
            fail("an event object after ','", "']'");
        ++pos_;
        return true;
    }
    if (c != '{')
        fail("an event object ('{') in \"traceEvents\"", describe_byte(c));
    const size_t e = complete_value("the rest of the event object");
    if (parsers_.empty())
        parsers_.resize(1);
    Event ev;
    std::string msg;
    if (!parse_event(parsers_[0], pos_, e, ev, &msg))
        throw TraceError(path_,
                         "byte " + std::to_string(offset_of(pos_)) + ", event " + std::to_string(event_index_),
                         "a valid JSON event object", msg);
    Part* part = acquire_part();
    part->handle_event(ev);
    main_.absorb(*part);
    pending_.push_back(part);
    pos_ = e;
    ++event_index_;
    sep_ = Sep::AfterEvent;
    return false;
}

size_t KinetoReader::columns()
{
    if (column_kinds_.empty()) {
        auto is = [](const void* col, std::initializer_list<const void*> of) {
            return std::find(of.begin(), of.end(), col) != of.end();
        };
        const Trace& t = trace_;
        for_columns(trace_, trace_, [&](auto& col, auto&) {
            const void* c = &col;
            column_kinds_.push_back(
                is(c, {&t.kernels.name, &t.kernels.short_name, &t.api.name, &t.ranges.name, &t.gpu_ranges.name,
                       &t.op_args.name})                                           ? Numbered::Name
                : is(c, {&t.kernels.device, &t.memcpy.device, &t.memset.device, &t.syncs.device,
                         &t.gpu_ranges.device})                                    ? Numbered::Device
                : is(c, {&t.api.thread, &t.ranges.thread})                          ? Numbered::Thread
                : is(c, {&t.op_args.pid})                                          ? Numbered::Pid
                : is(c, {&t.kernels.shape})                                        ? Numbered::Shape
                                                                                   : Numbered::No);
        });
    }
    return column_kinds_.size();
}

// Task c of a copy: column c of every pending part appended to the trace's in file order, renumbered; task
// columns() copies the flow ends.
void KinetoReader::copy_column(size_t c)
{
    if (c == column_kinds_.size()) {
        size_t add = 0;
        for (const Part* p : pending_)
            add += p->flows_.size();
        grow(flows_, add);
        for (const Part* p : pending_)
            flows_.insert(flows_.end(), p->flows_.begin(), p->flows_.end());
        return;
    }
    const Numbered kind = column_kinds_[c];
    for (size_t k = 0; k < pending_.size(); ++k) {
        Part& p = *pending_[k];
        size_t i = 0;
        for_columns(trace_, p.trace_, [&](auto& dst, auto& src) {
            if (i++ != c)
                return;
            using T = typename std::decay_t<decltype(dst)>::value_type;
            if (k == 0) {
                size_t add = 0;
                for (Part* q : pending_) {
                    size_t j = 0;
                    for_columns(q->trace_, q->trace_, [&](auto& col, auto&) {
                        if (j++ == c)
                            add += col.size();
                    });
                }
                grow(dst, add);
            }
            const size_t from = dst.size();
            cat(dst, src);
            if constexpr (std::is_integral_v<T>) {
                if (kind == Numbered::Name)
                    remap(dst, from, p.names_);
                else if (kind == Numbered::Device)
                    remap(dst, from, p.devices_);
                else if (kind == Numbered::Shape)
                    remap(dst, from, p.shapes_);
                else if (kind == Numbered::Thread)
                    remap(dst, from, p.threads_of_);
                else if (kind == Numbered::Pid && !p.merged_ids_.empty())
                    for (size_t r = from; r < dst.size(); ++r) {
                        const auto v = static_cast<int64_t>(dst[r]);
                        if (is_code(v))
                            dst[r] = static_cast<T>(p.merged_ids_[static_cast<size_t>(v - kCodeBase)]);
                    }
            }
        });
    }
}

void KinetoReader::rethrow_first(const TaskRun& run)
{
    for (const auto& e : run.errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace sl::kineto

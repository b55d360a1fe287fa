#pragma once
// The Kineto reader (kineto_reader.cpp has its design): the class, whose members live in three files along what they
// do: kineto_buffer.cpp (the read buffer: refills, plain reads, background inflating, finding a value's end),
// kineto_chunks.cpp (the events, read in chunks on all threads, and merging the chunks' parts in file order),
// kineto_reader.cpp (the document, its metadata, and what is done after the last event). Internal to the reader:
// analysis/io/kineto_reader.h is its interface.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "analysis/io/gzip_stream.h"
#include "analysis/io/kineto_event.h"
#include "analysis/io/kineto_events.h"
#include "analysis/io/kineto_reader.h"
#include "analysis/io/parallel.h"
#include "analysis/trace/trace.h"

namespace sl::kineto {

namespace od = simdjson::ondemand;

inline constexpr size_t kChunk = 8u << 20;            // bytes read per refill
inline constexpr size_t kMinChunk = 4u << 10;          // the smallest first buffer
inline constexpr size_t kMaxEventBytes = 64u << 20;   // one event larger than this is garbage, not a trace (issue 17:
                                                       // 256 MB let one 1 GB string in a 1 MB .gz reach 548 MB)
inline constexpr size_t kMaxMetaBytes = 64u << 20;    // a top-level metadata value we keep (bigger ones are skipped)
inline constexpr size_t kNpos = static_cast<size_t>(-1);

// A byte as an error message says it: 'x', or "byte 0x01".
std::string describe_byte(char c);

class KinetoReader {
public:
    KinetoReader(const std::string& path, const LoadControl& control, const KinetoReadOptions& options);
    ~KinetoReader();
    KinetoReader(const KinetoReader&) = delete;
    KinetoReader& operator=(const KinetoReader&) = delete;

    Trace run();

private:
    // ---- buffer --------------------------------------------------------------------------------------------------
    size_t avail() const { return end_ - pos_; }
    uint64_t offset_of(size_t p) const { return base_offset_ + p; }

    bool refill(size_t& keep_from);
    size_t read_plain(size_t n);

    // .json.gz after the first fill: content is inflated in blocks of kInflateBlock; with threads the next block is
    // inflated on a thread of its own while the events of this one are handled (inflating was serial work of the
    // calling thread), so reading goes at zlib's speed. A block whose data is corrupt raises its error when it is
    // taken, whatever the thread count. Appends up to room bytes at end_; 0 at the end of the content.
    struct Inflater {
        std::vector<char> data;
        size_t got = 0, used = 0;
        bool filled = false, eof = false;
        uint64_t file_pos = 0;
        std::exception_ptr error;
        std::thread thread;
    };

    void inflate_block(Inflater& f);
    size_t read_inflated(size_t room);
    std::string where() const;
    [[noreturn]] void fail(const std::string& expected, const std::string& found) const;
    bool skip_ws();
    char peek_required(const char* expected);
    size_t scan_string(size_t p) const;
    size_t scan_value(size_t p) const;
    size_t complete_value(const char* what);

    // ---- document ------------------------------------------------------------------------------------------------
    void parse_document();
    void parse_top_object();
    void capture_meta_value(const std::string& key);
    static std::string scalar_text(const nlohmann::json& v);
    void apply_meta(const std::string& key, const nlohmann::json& j);

    // ---- events --------------------------------------------------------------------------------------------------
    // The events in the buffer are handled in steps: a step splits what the buffer holds from pos_ on into one chunk
    // per thread at guessed event starts, scans, parses and handles each chunk into its own Part on its own thread,
    // and merges the parts in file order for as long as each chunk's scan ended exactly where the next chunk began
    // (so a wrong guess costs time, never a wrong result). What a chunk cannot do alone (an event cut by the end of
    // the buffer, the end of the array, anything malformed) is left to sequential_step(), which refills the buffer
    // and gives the errors the reader always gave, naming the first bad event's byte and index.
    enum class Sep : uint8_t { First, AfterEvent, AfterComma };   // where between events a scan is

    struct ChunkEnd {
        size_t pos = 0;          // where the scan stopped
        Sep sep = Sep::First;
        uint64_t events = 0;     // events handled
        bool at_start = false;   // stopped at an event start at or after its stop_at
    };

    void parse_events();
    bool parse_event(od::parser& parser, size_t b, size_t e, Event& ev, std::string* msg) const;
    ChunkEnd scan_chunk(size_t p, Sep sep, size_t stop_at, od::parser& parser, Part& part) const;
    size_t guess_event_start(size_t p) const;
    Part* acquire_part();
    void parallel_step();
    void flush_pending();
    bool sequential_step();

    // ---- merging a part into the trace, in file order ------------------------------------------------------------
    template <typename T> static void grow(std::vector<T>& v, size_t add);
    static void populate(const void* p, size_t bytes);
    template <typename T> static void cat(std::vector<T>& dst, std::vector<T>& src);
    template <typename T, typename Map> static void remap(std::vector<T>& col, size_t from, const Map& m);
    template <typename F> static void for_columns(Trace& t, Trace& s, F&& f);

    // Columns for_columns() visits, and what each holds that a part numbers its own way.
    enum class Numbered : uint8_t { No, Name, Device, Thread, Pid, Shape };
    size_t columns();
    void copy_column(size_t c);
    static void rethrow_first(const TaskRun& run);

    // ---- after the last event ------------------------------------------------------------------------------------
    template <typename T> static void permute(std::vector<T>& v, const std::vector<uint32_t>& order);
    static bool needs_sort(const std::vector<int64_t>& start);
    static std::vector<uint32_t> order_by_start(const std::vector<int64_t>& start);
    void sort_tables();

    // python_function frames beyond kMaxPythonFrames (a with_stack trace of a long run records every call): the
    // longest are kept (they are the outer frames, visible at every zoom), and every "nn.Module: " frame (the
    // module path of the CPU ops); a warning counts the rest. Decided on the merged table (file order), so
    // the result does not depend on the thread count.
    static constexpr size_t kMaxPythonFrames = 1'000'000;
    void keep_python_frames();
    void link_by_flows();
    void map_device_properties();
    void finalize();

    std::string path_;
    const LoadControl& control_;
    KinetoReadOptions options_;
    GzipStream in_;
    int fd_ = -1;              // plain JSON: read with pread after the first fill (read_plain)
    uint64_t file_pos_ = 0;    // bytes of the file read so far (in_ is busy on another thread while inflating)
    static constexpr size_t kInflateBlock = 4u << 20;
    std::unique_ptr<Inflater> inflater_;
    std::vector<char> buf_;
    size_t pos_ = 0, end_ = 0;
    uint64_t base_offset_ = 0;
    bool eof_ = false;
    bool in_events_ = false, saw_events_ = false, expect_key_ = false;
    uint64_t event_index_ = 0;
    // Event parsing (issue 18): one parser per thread, one Part per chunk of a step.
    static constexpr size_t kMinChunkBytes = 64u << 10;   // a step splits the buffer into chunks at least this big
    unsigned parse_threads_ = reader_threads();
    Sep sep_ = Sep::First;
    std::vector<od::parser> parsers_;
    std::vector<std::unique_ptr<Part>> parts_;   // every part made; each is free, scanned into or pending
    std::vector<Part*> free_, pending_;           // pending: absorbed, rows not yet copied into the trace

    // The trace and what finalize() reads, held by the reader's own part, which absorbs the chunks' parts.
    Part main_;
    Trace& trace_ = main_.trace_;
    std::unordered_map<int64_t, std::string>& process_names_ = main_.process_names_;
    std::unordered_map<std::pair<int64_t, int64_t>, std::string, PairHash>& thread_names_ = main_.thread_names_;
    std::vector<FlowEnd>& flows_ = main_.flows_;
    bool& gpu_without_corr_ = main_.gpu_without_corr_;
    bool& api_without_corr_ = main_.api_without_corr_;
    int64_t& window_lo_ = main_.window_lo_;
    int64_t& window_hi_ = main_.window_hi_;
    std::map<std::string, int64_t, std::less<>>& dropped_ = main_.dropped_;
    std::set<std::string>& python_packages_ = main_.python_packages_;
    int32_t rank_ = 0;
    nlohmann::json device_props_;
    std::vector<Numbered> column_kinds_;   // see columns()
};

} // namespace sl::kineto

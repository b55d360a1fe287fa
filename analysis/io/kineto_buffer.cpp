// The Kineto reader's read buffer (kineto_reader_impl.h): the file read in pieces into one buffer (pread on all
// threads for plain JSON, inflated a block ahead on a thread of its own for .json.gz), and the end of a JSON value
// found in it across refills.
#include "analysis/io/kineto_reader_impl.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include <unistd.h>

#include "analysis/io/byte_masks.h"
#include "analysis/io/kineto_event_parser.h"
#include "analysis/trace/errors.h"

namespace sl::kineto {

// Reads more content; keeps [keep_from, end_) (moved to the front). Returns false at the end of content.
bool KinetoReader::refill(size_t& keep_from)
{
    if (eof_)
        return false;
    if (keep_from > 0) {
        std::memmove(buf_.data(), buf_.data() + keep_from, end_ - keep_from);
        end_ -= keep_from;
        pos_ -= keep_from;
        base_offset_ += keep_from;
        keep_from = 0;
    }
    const size_t data_cap = buf_.size() - simdjson::SIMDJSON_PADDING;
    if (data_cap < kChunk && base_offset_ + end_ > 0) {
        buf_.resize(kChunk + simdjson::SIMDJSON_PADDING);   // a small first buffer did not hold the file
    } else if (end_ == data_cap) {
        if (data_cap >= kMaxEventBytes + kChunk)
            throw TraceError(path_, where(), "JSON values (events) smaller than 64 MB",
                             "a single value larger than that");
        buf_.resize(std::min(data_cap * 2, kMaxEventBytes + kChunk) + simdjson::SIMDJSON_PADDING);
    }
    const size_t cap = buf_.size() - simdjson::SIMDJSON_PADDING;
    size_t got = 0;
    if (fd_ >= 0 && base_offset_ + end_ > 0) {
        const size_t want = cap - end_;
        got = read_plain(want);
        end_ += got;
        eof_ = got < want;
    } else if (in_.compressed() && base_offset_ + end_ > 0) {
        got = read_inflated(cap - end_);
        end_ += got;
        eof_ = got == 0;
    } else {
        while (end_ < cap) {
            const size_t k = in_.read(buf_.data() + end_, cap - end_);
            if (k == 0) {
                eof_ = true;
                break;
            }
            end_ += k;
            got += k;
            if (got >= kChunk)
                break;
        }
        file_pos_ = in_.file_position();
    }
    // Padding: blanks, then the NUL that stops OnePass's runs of blanks.
    std::memset(buf_.data() + end_, ' ', simdjson::SIMDJSON_PADDING - 1);
    buf_[end_ + simdjson::SIMDJSON_PADDING - 1] = kOnePassStop;
    return got > 0;
}

// Plain JSON after the first fill: n bytes at the content offset (the file offset) read straight into the
// buffer by pread, in one piece per thread, so copying file pages is not one thread's job. Fewer at the end.
size_t KinetoReader::read_plain(size_t n)
{
    const uint64_t off = base_offset_ + end_;
    const size_t pieces = std::min<size_t>(parse_threads_, std::max<size_t>(1, n / (1u << 20)));
    const size_t per = (n + pieces - 1) / pieces;
    std::vector<size_t> got(pieces, 0);
    std::vector<int> err(pieces, 0);
    TaskRun run;
    run_tasks(pieces, parse_threads_, run, [&](size_t i, unsigned) {
        const size_t lo = i * per, hi = std::min(n, lo + per);
        while (lo + got[i] < hi) {
            const ssize_t k = ::pread(fd_, buf_.data() + end_ + lo + got[i], hi - lo - got[i],
                                      static_cast<off_t>(off + lo + got[i]));
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                err[i] = k < 0 ? errno : 0;
                break;
            }
            got[i] += static_cast<size_t>(k);
        }
    });
    size_t total = 0;
    for (size_t i = 0; i < pieces; ++i) {
        if (err[i] != 0)
            throw TraceError(path_, "byte " + std::to_string(off + i * per + got[i]), "readable data",
                             std::strerror(err[i]));
        total += got[i];
        if (got[i] < std::min(n, (i + 1) * per) - i * per)
            break;   // the end of the file
    }
    file_pos_ = off + total;
    return total;
}

void KinetoReader::inflate_block(Inflater& f)
{
    f.got = f.used = 0;
    f.error = nullptr;
    try {
        while (f.got < f.data.size()) {
            const size_t k = in_.read(f.data.data() + f.got, f.data.size() - f.got);
            if (k == 0) {
                f.eof = true;
                break;
            }
            f.got += k;
        }
        f.file_pos = in_.file_position();
    } catch (...) {
        f.error = std::current_exception();
    }
    f.filled = true;
}

size_t KinetoReader::read_inflated(size_t room)
{
    if (!inflater_) {
        inflater_ = std::make_unique<Inflater>();
        inflater_->data.resize(kInflateBlock);
    }
    Inflater& f = *inflater_;
    if (f.thread.joinable())
        f.thread.join();
    if (!f.filled)
        inflate_block(f);
    if (f.error)
        std::rethrow_exception(f.error);
    file_pos_ = f.file_pos;
    const size_t n = std::min(room, f.got - f.used);
    std::memcpy(buf_.data() + end_, f.data.data() + f.used, n);
    f.used += n;
    if (f.used == f.got && !f.eof) {
        f.filled = false;
        if (parse_threads_ > 1) {
            try {
                f.thread = std::thread([this, &f] { inflate_block(f); });
            } catch (const std::system_error&) {
                // No thread to be had: the next block is inflated when it is needed.
            }
        }
    }
    return n;
}

std::string KinetoReader::where() const
{
    std::string w = "byte " + std::to_string(offset_of(pos_));
    if (in_events_)
        w += ", event " + std::to_string(event_index_);
    return w;
}

[[noreturn]] void KinetoReader::fail(const std::string& expected, const std::string& found) const
{
    throw TraceError(path_, where(), expected, found);
}

// Skips whitespace; returns false at the end of content.
bool KinetoReader::skip_ws()
{
    for (;;) {
        while (pos_ < end_ && is_ws(buf_[pos_]))
            ++pos_;
        if (pos_ < end_)
            return true;
        size_t keep = pos_;
        if (!refill(keep))
            return false;
    }
}

char KinetoReader::peek_required(const char* expected)
{
    if (!skip_ws())
        fail(expected, "the end of the file (truncated JSON?)");
    return buf_[pos_];
}

// End (one past) of the string starting at p (buf_[p] == '"') within [p, end_), or kNpos when incomplete.
size_t KinetoReader::scan_string(size_t p) const
{
    const char* b = buf_.data();
    size_t i = p + 1;
    for (;;) {
        const void* q = std::memchr(b + i, '"', end_ - i);
        if (!q)
            return kNpos;
        const size_t j = static_cast<size_t>(static_cast<const char*>(q) - b);
        size_t k = j;
        while (k > p + 1 && b[k - 1] == '\\')
            --k;
        if (((j - k) & 1) == 0)
            return j + 1;
        i = j + 1;
    }
}

// End (one past) of the JSON value starting at p, kNpos when the buffer ends first. Throws on nesting deeper
// than kMaxDepth. Bracket mismatches are left to the JSON parser that reads the value.
//
// Objects and arrays are walked 64 bytes at a time: vector compares (byte_masks.h) give bit masks of quotes,
// backslashes and brackets, and only those positions are visited, so long kernel names cost a few instructions
// per 64 bytes.
size_t KinetoReader::scan_value(size_t p) const
{
    const char* b = buf_.data();
    const char c = b[p];
    if (c == '"')
        return scan_string(p);
    if (c == '{' || c == '[') {
        int depth = 0;
        bool in_string = false;
        size_t skip = kNpos;   // position of a character escaped by a backslash
        for (size_t i = p; i < end_; i += 64) {
            // buf_ has SIMDJSON_PADDING (>= 64) readable bytes past end_.
            const bytes::StructureMasks bm = bytes::json_structure(b + i);
            const uint64_t mq = bm.quote, mb = bm.backslash, mo = bm.open, mc = bm.close;
            uint64_t m = mq | mb | mo | mc;
            if (end_ - i < 64)
                m &= (uint64_t(1) << (end_ - i)) - 1;
            while (m) {
                const int bit = __builtin_ctzll(m);
                m &= m - 1;
                const size_t q = i + static_cast<size_t>(bit);
                if (q == skip)
                    continue;
                const uint64_t one = uint64_t(1) << bit;
                if (in_string) {
                    if (mb & one)
                        skip = q + 1;
                    else if (mq & one)
                        in_string = false;
                } else if (mq & one) {
                    in_string = true;
                } else if (mo & one) {
                    if (++depth > kMaxDepth)
                        throw TraceError(path_, "byte " + std::to_string(offset_of(q)) +
                                                    (in_events_ ? ", event " + std::to_string(event_index_) : ""),
                                         "JSON nested at most " + std::to_string(kMaxDepth) + " levels deep",
                                         "deeper nesting (garbage, not a trace)");
                } else if (mc & one) {
                    if (--depth == 0)
                        return q + 1;
                }
            }
        }
        return kNpos;
    }
    size_t i = p;
    while (i < end_) {
        const char ch = b[i];
        if (ch == ',' || ch == '}' || ch == ']' || is_ws(ch))
            return i;
        ++i;
    }
    return eof_ ? i : kNpos;
}

// Finds the complete value at pos_ (refilling as needed); returns its end.
size_t KinetoReader::complete_value(const char* what)
{
    for (;;) {
        const size_t e = scan_value(pos_);
        if (e != kNpos)
            return e;
        size_t keep = pos_;
        if (!refill(keep))
            fail(what, "the end of the file (truncated JSON?)");
    }
}

} // namespace sl::kineto

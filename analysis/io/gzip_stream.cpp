#include "analysis/io/gzip_stream.h"

#include <algorithm>
#include <cstring>
#include <sys/stat.h>
#include <zlib.h>

#include "analysis/io/input_bounds.h"
#include "analysis/trace/errors.h"

namespace sl {

struct GzipStream::Z {
    z_stream s{};
    bool live = false;       // inflateInit2 succeeded
    bool in_member = false;  // inside a gzip member (started, not yet at Z_STREAM_END)
};

static constexpr size_t kInputChunk = 1 << 20;
static constexpr size_t kMinInputChunk = 4 << 10;

GzipStream::GzipStream(std::string path) : path_(std::move(path)), z_(std::make_unique<Z>())
{
    file_ = std::fopen(path_.c_str(), "rb");
    if (!file_)
        throw TraceError(path_, "", "a readable file", std::strerror(errno));
    struct stat st {};
    if (::fstat(fileno(file_), &st) == 0)
        file_size_ = static_cast<uint64_t>(st.st_size);
    // The input buffer is the file's size when that is smaller than a chunk (a zero-filled 1 MB buffer per small
    // file was most of the time spent reading one; the fuzz targets read thousands of small files a second).
    in_.resize(static_cast<size_t>(std::clamp<uint64_t>(file_size_ + 1, kMinInputChunk, kInputChunk)));
    refill_input();
    if (in_end_ - in_begin_ >= 2 && in_[in_begin_] == 0x1f && in_[in_begin_ + 1] == 0x8b) {
        gzip_ = true;
        if (inflateInit2(&z_->s, 15 + 16) != Z_OK)
            throw TraceError(path_, "", "zlib to initialise", "an out-of-memory condition");
        z_->live = true;
    }
}

GzipStream::~GzipStream()
{
    if (z_ && z_->live)
        inflateEnd(&z_->s);
    if (file_)
        std::fclose(file_);
}

bool GzipStream::refill_input()
{
    if (at_eof_)
        return false;
    if (in_begin_ < in_end_ && in_begin_ > 0) {
        std::memmove(in_.data(), in_.data() + in_begin_, in_end_ - in_begin_);
        in_end_ -= in_begin_;
        in_begin_ = 0;
    } else if (in_begin_ == in_end_) {
        in_begin_ = in_end_ = 0;
    }
    const size_t got = std::fread(in_.data() + in_end_, 1, in_.size() - in_end_, file_);
    if (got == 0) {
        if (std::ferror(file_))
            throw TraceError(path_, "byte " + std::to_string(file_pos_), "readable data", std::strerror(errno));
        at_eof_ = true;
        return false;
    }
    in_end_ += got;
    return true;
}

size_t GzipStream::read_raw(char* dst, size_t n)
{
    size_t done = 0;
    while (done < n) {
        if (in_begin_ == in_end_ && !at_eof_ && n - done >= in_.size()) {
            // A large read with nothing buffered goes straight into the caller's buffer: one copy out of the page
            // cache instead of two (issue 18: copying file pages was an eighth of reading a large plain JSON).
            const size_t got = std::fread(dst + done, 1, n - done, file_);
            if (got == 0) {
                if (std::ferror(file_))
                    throw TraceError(path_, "byte " + std::to_string(file_pos_), "readable data", std::strerror(errno));
                at_eof_ = true;
                break;
            }
            file_pos_ += got;
            done += got;
            continue;
        }
        if (in_begin_ == in_end_ && !refill_input())
            break;
        const size_t k = std::min(n - done, in_end_ - in_begin_);
        std::memcpy(dst + done, in_.data() + in_begin_, k);
        in_begin_ += k;
        file_pos_ += k;
        done += k;
    }
    return done;
}

size_t GzipStream::read(char* dst, size_t n)
{
    if (done_ || n == 0)
        return 0;
    if (!gzip_) {
        const size_t k = read_raw(dst, n);
        if (k == 0)
            done_ = true;
        out_pos_ += k;
        return k;
    }
    check_memory_budget(path_, "inflated byte " + std::to_string(out_pos_) + " (compressed byte " +
                                   std::to_string(file_pos_) + ")");
    z_stream& s = z_->s;
    s.next_out = reinterpret_cast<Bytef*>(dst);
    s.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    const uInt want = s.avail_out;
    while (s.avail_out > 0) {
        if (in_begin_ == in_end_) {
            if (!refill_input()) {
                if (z_->in_member)
                    throw TraceError(path_, "compressed byte " + std::to_string(file_pos_),
                                     "the rest of the gzip stream", "the end of the file (truncated .gz?)");
                done_ = true;
                break;
            }
        }
        if (!z_->in_member) {
            // Between members: another member must start with the gzip magic; anything else ends the content
            // (gzip(1) ignores such trailing garbage too, e.g. zero padding from tape or block devices).
            if (in_end_ - in_begin_ < 2 && !at_eof_)
                refill_input();
            if (in_end_ - in_begin_ < 2 || in_[in_begin_] != 0x1f || in_[in_begin_ + 1] != 0x8b) {
                file_pos_ += in_end_ - in_begin_;
                in_begin_ = in_end_;
                done_ = true;
                break;
            }
            inflateReset(&s);
            z_->in_member = true;
        }
        s.next_in = in_.data() + in_begin_;
        s.avail_in = static_cast<uInt>(in_end_ - in_begin_);
        const uInt out_before = s.avail_out;
        const int rc = inflate(&s, Z_NO_FLUSH);
        const size_t used = (in_end_ - in_begin_) - s.avail_in;
        in_begin_ += used;
        file_pos_ += used;
        if (rc == Z_STREAM_END) {
            z_->in_member = false;
            continue;
        }
        if (rc == Z_BUF_ERROR && used == 0 && s.avail_out == out_before) {
            // No progress possible with this input: needs more bytes.
            if (in_begin_ == in_end_)
                continue;
            if (!refill_input())
                throw TraceError(path_, "compressed byte " + std::to_string(file_pos_),
                                 "the rest of the gzip stream", "the end of the file (truncated .gz?)");
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            throw TraceError(path_, "compressed byte " + std::to_string(file_pos_), "valid gzip data",
                             std::string("corrupt data (zlib: ") + (s.msg ? s.msg : "error") + ")");
    }
    const size_t produced = want - s.avail_out;
    out_pos_ += produced;
    // Stops as soon as the content passes the limit for the compressed bytes read so far: a small .gz that inflates
    // to terabytes costs about 64 MiB of inflating, never the memory to hold it.
    if (out_pos_ > inflated_size_limit(file_pos_))
        throw TraceError(path_, "inflated byte " + std::to_string(out_pos_) + ", compressed byte " + std::to_string(file_pos_),
                         inflated_limit_text(file_pos_), "a .gz that inflates further (" +
                                                             std::to_string(out_pos_ / std::max<uint64_t>(1, file_pos_)) +
                                                             " times so far)");
    return produced;
}

} // namespace sl

#pragma once
// A byte stream over a file that inflates gzip (including concatenated members) on the fly and passes other files
// through unchanged. Readers pull fixed-size pieces, so a 500 MB .json.gz never sits in memory whole.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace sl {

class GzipStream {
public:
    // Opens path read-only. Throws TraceError when it cannot be opened. The gzip magic (1f 8b) selects inflation.
    explicit GzipStream(std::string path);
    ~GzipStream();
    GzipStream(const GzipStream&) = delete;
    GzipStream& operator=(const GzipStream&) = delete;

    // Fills dst with up to n bytes of (decompressed) content; returns 0 only at the end of the content. Throws
    // TraceError on corrupt or truncated compressed data, naming the compressed byte offset; on content inflating
    // past inflated_size_limit() of the compressed bytes read (input_bounds.h), as soon as it does; and when the
    // process is over its memory budget (checked once per call).
    size_t read(char* dst, size_t n);

    bool compressed() const { return gzip_; }
    uint64_t file_size() const { return file_size_; }
    // Bytes of the file consumed so far (for progress).
    uint64_t file_position() const { return file_pos_; }
    // Bytes of content handed out so far.
    uint64_t content_position() const { return out_pos_; }
    const std::string& path() const { return path_; }

private:
    size_t read_raw(char* dst, size_t n);
    bool refill_input();

    std::string path_;
    std::FILE* file_ = nullptr;
    bool gzip_ = false;
    bool at_eof_ = false;        // the file has no more bytes
    bool done_ = false;          // content finished
    uint64_t file_size_ = 0, file_pos_ = 0, out_pos_ = 0;
    std::vector<unsigned char> in_;
    size_t in_begin_ = 0, in_end_ = 0;
    struct Z;
    std::unique_ptr<Z> z_;
};

} // namespace sl

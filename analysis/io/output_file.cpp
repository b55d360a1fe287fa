#include "analysis/io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>

#include "analysis/io/input_bounds.h"

namespace sl {

OutputError::OutputError(std::string path, std::string reason)
    : std::runtime_error("cannot write " + terminal_safe(path) + ": " + reason), path_(std::move(path)),
      reason_(std::move(reason))
{
}

OutputIsInput::OutputIsInput(std::string output, std::string input)
    : std::runtime_error("refusing to write " + terminal_safe(output) + ": it is the input " + terminal_safe(input) +
                         " (the same file); give another output path"),
      output_(std::move(output)), input_(std::move(input))
{
}

OutputProtected::OutputProtected(std::string output, std::string what_it_is)
    : std::runtime_error("refusing to write " + terminal_safe(output) + ": it is " + what_it_is +
                         "; give another output path, or --force to replace it"),
      output_(std::move(output))
{
}

namespace {

struct ProtectedPath {
    std::string path;   // absolute, normalised
    std::string what;   // "the default knowledge base"
};
std::vector<ProtectedPath>& protected_paths()   // under g_inputs_mutex
{
    static std::vector<ProtectedPath> v;
    return v;
}
std::atomic<bool> g_force{false};

// An absolute path with ".", ".." and the links of its existing part resolved, for a file that may not exist yet.
std::string normal_path(const std::string& p)
{
    std::error_code ec;
    const std::filesystem::path a = std::filesystem::absolute(p, ec);
    if (ec)
        return p;
    const std::filesystem::path c = std::filesystem::weakly_canonical(a, ec);
    return ec ? a.lexically_normal().string() : c.string();
}

// The application id of an SQLite database (header offset 68, big-endian); nullopt when the file is no SQLite
// database (or cannot be read: then there is nothing this process could lose by not reading it either).
std::optional<uint32_t> sqlite_application_id(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    unsigned char h[72] = {};
    const ssize_t n = ::pread(fd, h, sizeof h, 0);
    ::close(fd);
    static const char kMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
    if (n < 16 || std::memcmp(h, kMagic, sizeof kMagic) != 0)
        return std::nullopt;
    if (n < 72)
        return 0u;
    return (uint32_t(h[68]) << 24) | (uint32_t(h[69]) << 16) | (uint32_t(h[70]) << 8) | uint32_t(h[71]);
}

struct NotedInput {
    dev_t dev;
    ino_t ino;
    std::string path;
};

std::mutex g_inputs_mutex;
std::vector<NotedInput>& noted()
{
    static std::vector<NotedInput> v;
    return v;
}

// Temporaries in flight: fixed storage a signal handler can read without locks or allocation.
constexpr int kSlots = 64;
constexpr size_t kSlotPath = PATH_MAX + 64;
struct Slot {
    std::atomic<int> state{0};   // 0 free, 1 being filled, 2 holds a path to remove
    char path[kSlotPath];
};
Slot g_slots[kSlots];

int claim_slot(const std::string& path)
{
    if (path.size() + 1 > kSlotPath)
        return -1;
    for (int i = 0; i < kSlots; ++i) {
        int expected = 0;
        if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
            std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
            g_slots[i].state.store(2);
            return i;
        }
    }
    return -1;   // more than kSlots at once: still written safely, only not removed by a signal handler
}

void release_slot(int i)
{
    if (i >= 0)
        g_slots[i].state.store(0);
}

std::string errno_text(int e) { return std::strerror(e); }

// Follows symbolic links at the end of the path (not in its directories: the kernel resolves those), so that a
// link to an output stays a link and the file it names is replaced.
std::string resolve_final_links(const std::string& path)
{
    std::string p = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return p;
        std::string buf(PATH_MAX, '\0');
        const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
        if (n <= 0)
            return p;
        buf.resize(static_cast<size_t>(n));
        if (buf[0] != '/') {
            const auto slash = p.rfind('/');
            buf = (slash == std::string::npos ? std::string() : p.substr(0, slash + 1)) + buf;
        }
        p = buf;
    }
    throw OutputError(path, "too many levels of symbolic links");
}

std::string directory_of(const std::string& p)
{
    const auto slash = p.rfind('/');
    if (slash == std::string::npos)
        return ".";
    if (slash == 0)
        return "/";
    return p.substr(0, slash);
}

std::string base_of(const std::string& p)
{
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

mode_t process_umask()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("Umask:", 0) == 0)
            return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    return 022;
}

// write(2) until done; false with errno set on failure.
bool write_all(int fd, const char* p, size_t n)
{
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (w == 0) {
            errno = EIO;
            return false;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

void fsync_directory(const std::string& dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::fsync(fd);   // best effort: some file systems refuse fsync on a directory (EINVAL)
    ::close(fd);
}

} // namespace

void note_input_file(const std::string& path)
{
    struct stat st {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0)
        return;
    std::lock_guard<std::mutex> lock(g_inputs_mutex);
    for (const auto& n : noted())
        if (n.dev == st.st_dev && n.ino == st.st_ino)
            return;
    noted().push_back({st.st_dev, st.st_ino, path});
}

void protect_output_path(const std::string& path, const std::string& what_it_is)
{
    if (path.empty())
        return;
    const std::string p = normal_path(path);
    std::lock_guard<std::mutex> lock(g_inputs_mutex);
    for (const auto& x : protected_paths())
        if (x.path == p)
            return;
    protected_paths().push_back({p, what_it_is});
}

void set_force_overwrite(bool force) { g_force.store(force); }

void check_output_is_not_protected(const std::string& output)
{
    if (output.empty() || g_force.load())
        return;
    struct stat out {};
    const bool exists = ::stat(output.c_str(), &out) == 0;
    const std::string norm = exists ? std::string() : normal_path(output);
    std::vector<ProtectedPath> list;
    {
        std::lock_guard<std::mutex> lock(g_inputs_mutex);
        list = protected_paths();
    }
    // The file itself and the files SQLite keeps beside it: replacing the write-ahead log loses what it holds.
    static const char* const kCompanions[][2] = {
        {"", ""}, {"-wal", "the write-ahead log of "}, {"-shm", "the shared-memory index of "},
        {"-journal", "the rollback journal of "}};
    for (const auto& p : list)
        for (const auto& [suffix, words] : kCompanions) {
            const std::string candidate = p.path + suffix;
            struct stat st {};
            const bool same = exists ? ::stat(candidate.c_str(), &st) == 0 && st.st_dev == out.st_dev &&
                                           st.st_ino == out.st_ino
                                     : normal_path(candidate) == norm;
            if (same)
                throw OutputProtected(output, std::string(words) + p.what + " (" + terminal_safe(candidate) + ")");
        }
    if (exists && S_ISREG(out.st_mode))
        if (const auto id = sqlite_application_id(output); id && *id != kSightlineSqliteApplicationId)
            throw OutputProtected(output, "an SQLite database Sightline did not write (a knowledge base, an nsys "
                                          "export or another program's data)");
}

std::vector<std::string> noted_input_files()
{
    std::lock_guard<std::mutex> lock(g_inputs_mutex);
    std::vector<std::string> v;
    for (const auto& n : noted())
        v.push_back(n.path);
    return v;
}

void check_output_is_not_input(const std::string& output, const std::vector<std::string>& inputs)
{
    struct stat out {};
    if (output.empty() || ::stat(output.c_str(), &out) != 0) {
        check_output_is_not_protected(output);   // a knowledge base not created yet is still the knowledge base
        return;   // nothing there yet (a dangling link included): no input can be lost
    }
    for (const auto& in : inputs) {
        struct stat st {};
        if (!in.empty() && ::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
            throw OutputIsInput(output, in);
    }
    {
        std::lock_guard<std::mutex> lock(g_inputs_mutex);
        for (const auto& n : noted())
            if (n.dev == out.st_dev && n.ino == out.st_ino)
                throw OutputIsInput(output, n.path);
    }
    check_output_is_not_protected(output);
}

TempOutput::TempOutput(const std::string& target, const std::vector<std::string>& inputs) : target_(target)
{
    if (target.empty())
        throw OutputError(target, "no output path given");
    check_output_is_not_input(target, inputs);
    resolved_ = resolve_final_links(target);
    struct stat st {};
    const bool exists = ::stat(resolved_.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        throw OutputError(target, "it is a directory");
    if (exists && !S_ISREG(st.st_mode))
        throw OutputError(target, "not a regular file (this output needs a file it can rename into place)");
    const std::string dir = directory_of(resolved_);
    std::string tmpl = dir + "/." + base_of(resolved_) + ".sightline-XXXXXX";
    // The temporary's name must fit in the directory: a long base name is cut (the name is ours, not the user's).
    if (base_of(tmpl).size() > NAME_MAX)
        tmpl = dir + "/.sightline-output-XXXXXX";
    const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0)
        throw OutputError(target, errno_text(errno) + " (creating a temporary file in " + dir + ")");
    temp_ = tmpl;
    slots_.push_back(claim_slot(temp_));
    // The new file gets the old one's permissions, or those a new file would get.
    const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~process_umask());
    ::fchmod(fd, mode);
    if (exists && ::geteuid() == 0 && ::fchown(fd, st.st_uid, st.st_gid) != 0) {
        // best effort: the content is what matters
    }
    // Closed at once: a writer (SQLite) opens the path itself, and a second descriptor of ours closing later would
    // drop its POSIX locks.
    if (::close(fd) != 0) {
        const int e = errno;
        ::unlink(temp_.c_str());
        release_slot(slots_.back());
        slots_.clear();
        temp_.clear();
        throw OutputError(target, errno_text(e));
    }
}

TempOutput::~TempOutput()
{
    if (!committed_ && !temp_.empty()) {
        ::unlink(temp_.c_str());
        for (size_t i = 1; i < slots_.size(); ++i)
            if (slots_[i] >= 0)
                ::unlink(g_slots[slots_[i]].path);
    }
    for (int s : slots_)
        release_slot(s);
}

void TempOutput::also_remove(const std::string& suffix)
{
    slots_.push_back(claim_slot(temp_ + suffix));
}

void TempOutput::commit()
{
    auto fail = [&](int e) {
        ::unlink(temp_.c_str());
        throw OutputError(target_, errno_text(e) + " (" + terminal_safe(target_) + " was left as it was)");
    };
    const int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fail(errno);
    if (::fsync(fd) != 0) {
        const int e = errno;
        ::close(fd);
        fail(e);
    }
    if (::close(fd) != 0)
        fail(errno);
    if (::rename(temp_.c_str(), resolved_.c_str()) != 0)
        fail(errno);
    committed_ = true;
    fsync_directory(directory_of(resolved_));
}

void write_output_file(const std::string& path, std::string_view bytes, const std::vector<std::string>& inputs)
{
    if (path.empty())
        throw OutputError(path, "no output path given");
    check_output_is_not_input(path, inputs);
    const std::string real = resolve_final_links(path);
    struct stat st {};
    if (::stat(real.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            throw OutputError(path, "it is a directory");
        // A device or a pipe (/dev/null, /dev/stdout, a FIFO): written directly, there is nothing to replace.
        const int fd = ::open(real.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            throw OutputError(path, errno_text(errno));
        if (!write_all(fd, bytes.data(), bytes.size())) {
            const int e = errno;
            ::close(fd);
            throw OutputError(path, errno_text(e));
        }
        if (::close(fd) != 0)
            throw OutputError(path, errno_text(errno));
        return;
    }
    TempOutput tmp(path, inputs);
    const int fd = ::open(tmp.path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        throw OutputError(path, errno_text(errno));
    if (!write_all(fd, bytes.data(), bytes.size())) {
        const int e = errno;
        ::close(fd);
        throw OutputError(path, errno_text(e) + " (" + terminal_safe(path) + " was left as it was)");
    }
    if (::close(fd) != 0)
        throw OutputError(path, errno_text(errno) + " (" + terminal_safe(path) + " was left as it was)");
    tmp.commit();
}

void write_standard_output(std::string_view bytes)
{
    errno = 0;
    const size_t n = std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    int e = errno;
    if (n == bytes.size() && std::fflush(stdout) == 0)
        return;
    if (!e)
        e = errno ? errno : EIO;
    std::clearerr(stdout);
    throw OutputError("standard output", errno_text(e));
}

void remove_temporaries_signal_safe() noexcept
{
    for (auto& s : g_slots)
        if (s.state.load() == 2)
            ::unlink(s.path);
}

} // namespace sl

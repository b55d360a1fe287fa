#include "analysis/io/input_errors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sl {

std::string open_error_text(int e)
{
    switch (e) {
    case ENOENT: return "no such file";
    case ENOTDIR: return "no such file (a part of its path is not a folder)";
    case ELOOP: return "a symbolic link loop (too many levels of symbolic links)";
    case EACCES:
    case EPERM: return "a file this user may not read (permission denied)";
    case ENAMETOOLONG: return "a name too long for the file system";
    case EISDIR: return "a directory";
    default: return std::string("a file that cannot be opened (") + std::strerror(e) + ")";
    }
}

std::string not_regular_file_text(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    const char* kind = S_ISFIFO(m)   ? "a FIFO (named pipe)"
                       : S_ISCHR(m)  ? "a character device"
                       : S_ISBLK(m)  ? "a block device"
                       : S_ISSOCK(m) ? "a socket"
                                     : "a special file";
    return std::string(kind) + ", not a regular file; pipes and devices are not read";
}

std::string input_file_problem(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return open_error_text(errno);
    if (!S_ISREG(st.st_mode))
        return not_regular_file_text(st.st_mode);
    // A regular file: open() does not block, and says whether this user may read it (stat() does not).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return open_error_text(errno);
    ::close(fd);
    return {};
}

} // namespace sl

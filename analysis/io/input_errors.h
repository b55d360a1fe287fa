#pragma once
// Why an input file cannot be read, said as what happened (issue 36 §10): a symbolic-link loop is ELOOP, an
// unreadable file is "permission denied", a FIFO or /dev/stdin is "not a regular file" — never "no such file" for
// a file that is there, and never the name of a file format for a file that could not be opened.
#include <string>
#include <sys/types.h>

namespace sl {

// The words for errno `e` from stat() or open() of an input: "no such file", "a symbolic link loop (too many
// levels of symbolic links)", "a file this user may not read (permission denied)", ...; the system's text otherwise.
std::string open_error_text(int e);

// "a FIFO (named pipe), not a regular file; pipes and devices are not read" for a stat() mode that is not a
// regular file ("a directory" for a directory).
std::string not_regular_file_text(mode_t mode);

// Why `path` cannot be read as an input file, or "" when it is a regular file this process may open for reading.
// Checked with stat() and an open() for reading that does not block (a FIFO is refused before it is opened).
std::string input_file_problem(const std::string& path);

} // namespace sl

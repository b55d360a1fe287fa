#pragma once
// Writing outputs without destroying what the user has.
//
//  - An output is never one of the inputs: the target is compared with every input file by device and inode after
//    the kernel resolves its path (symbolic links, hard links, "dir/../file"), so `-o trace.sqlite` is refused
//    before anything is written.
//  - A regular file (or a new one) is written to a temporary in the same directory, fsync'd, then renamed over the
//    target: a failure at any point (a full disk, a signal, an I/O error) leaves the previous file as it was. A
//    target that is a symbolic link is followed, so the link stays a link. Devices and pipes (/dev/null,
//    /dev/stdout, a FIFO) are written directly.
//  - Every write, fsync and close is checked; a failure names the path and the system's reason.
//  - An output never replaces what the user keeps (OutputProtected), whatever the command read: the knowledge base
//    in use and the default one (noted with protect_output_path(), with their -wal, -shm and -journal companions,
//    compared by device and inode and, for a file not there yet, by path), and any existing SQLite database that
//    Sightline did not write (its header's application id is not kSightlineSqliteApplicationId: a knowledge base, an
//    nsys export). `--force` (set_force_overwrite()) lifts this guard, never the output-is-an-input one.
//
// Temporaries in flight are listed where a signal handler can remove them (remove_temporaries_signal_safe()).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sl {

// An output that could not be written. what() is "cannot write PATH: REASON".
class OutputError : public std::runtime_error {
public:
    OutputError(std::string path, std::string reason);
    const std::string& path() const { return path_; }
    const std::string& reason() const { return reason_; }

private:
    std::string path_, reason_;
};

// An output that is the same file as an input. what() names both.
class OutputIsInput : public std::runtime_error {
public:
    OutputIsInput(std::string output, std::string input);
    const std::string& output() const { return output_; }
    const std::string& input() const { return input_; }

private:
    std::string output_, input_;
};

// An output that would replace the knowledge base or another SQLite database the user keeps. what() names both
// the output and what it is, and says how to go ahead (another path, or --force).
class OutputProtected : public std::runtime_error {
public:
    OutputProtected(std::string output, std::string what_it_is);
    const std::string& output() const { return output_; }

private:
    std::string output_;
};

// The application id (SQLite header, offset 68) of every SQLite file Sightline writes as an output (`generate`'s
// nsys-like exports): such a file may be replaced by a later output; any other SQLite database may not.
inline constexpr uint32_t kSightlineSqliteApplicationId = 0x536C6E65;   // "Slne"

// Notes a file no output may replace (e.g. "the default knowledge base"), with its -wal, -shm and -journal
// companions. The path need not exist yet.
void protect_output_path(const std::string& path, const std::string& what_it_is);
// `--force`: an output may replace a protected file or a foreign SQLite database (never an input).
void set_force_overwrite(bool force);
// Throws OutputProtected when `output` is a protected path or an existing SQLite database Sightline did not write,
// unless set_force_overwrite(true). Called by check_output_is_not_input().
void check_output_is_not_protected(const std::string& output);

// The inputs of this process: every file check_input_file() accepted (traces, --ncu, --model, rule and data
// files, ...) is noted here, so an output is checked against every file the command read, whatever option named it.
void note_input_file(const std::string& path);
std::vector<std::string> noted_input_files();

// Throws OutputIsInput when `output` (once the kernel resolves it) is the same file as a noted input or as one of
// `inputs` (paths that do not exist are passed over). A target that does not exist yet is no input. Then
// check_output_is_not_protected() (OutputProtected).
void check_output_is_not_input(const std::string& output, const std::vector<std::string>& inputs = {});

// Writes `bytes` to `path` as described above. Throws OutputIsInput, OutputProtected or OutputError.
void write_output_file(const std::string& path, std::string_view bytes, const std::vector<std::string>& inputs = {});

// Writes to standard output and flushes it; throws OutputError("standard output", reason) on failure
// (`> /dev/full`, a closed pipe).
void write_standard_output(std::string_view bytes);

// For writers that need a path of their own (SQLite, gzip): a temporary in the target's directory, committed by
// rename. The destructor removes the temporary (and the side files named with also_remove()) unless committed.
class TempOutput {
public:
    // Checks the target against the inputs and the protected files, and creates the temporary. Throws OutputIsInput,
    // OutputProtected or OutputError.
    explicit TempOutput(const std::string& target, const std::vector<std::string>& inputs = {});
    ~TempOutput();
    TempOutput(const TempOutput&) = delete;
    TempOutput& operator=(const TempOutput&) = delete;

    const std::string& path() const { return temp_; }     // write here
    const std::string& target() const { return target_; } // the path as the user gave it
    // A side file the writer may leave beside the temporary (e.g. temp + "-journal"), removed with it.
    void also_remove(const std::string& suffix);
    // fsyncs the temporary, renames it over the target and fsyncs the directory. Throws OutputError (the
    // temporary is then removed and the target untouched).
    void commit();

private:
    std::string target_, resolved_, temp_;
    std::vector<int> slots_;
    bool committed_ = false;
};

// Removes every temporary in flight, with async-signal-safe calls only (for SIGINT/SIGTERM handlers).
void remove_temporaries_signal_safe() noexcept;

} // namespace sl

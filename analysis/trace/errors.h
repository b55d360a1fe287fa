#pragma once
// Errors a user can act on: which file, where in it (table, line, byte offset), what was expected, what was found.

#include <stdexcept>
#include <string>

namespace sl {

class TraceError : public std::runtime_error {
public:
    TraceError(std::string file, std::string where, std::string expected, std::string found);
    const std::string& file() const { return file_; }
    const std::string& where() const { return where_; }
    const std::string& expected() const { return expected_; }
    const std::string& found() const { return found_; }

private:
    std::string file_, where_, expected_, found_;
};

// Thrown when a LoadControl's cancel flag was raised; not an error to report.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

} // namespace sl

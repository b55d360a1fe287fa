#pragma once
// Shared by the fuzz targets: a scratch file per process for the readers that take a path, and the one rule of
// every harness — only sl::TraceError (a located, user-facing error) may leave a reader; anything else is a finding.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>

#include "analysis/trace/errors.h"

namespace sl::fuzz {

inline std::string scratch_path(const char* suffix)
{
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/sl-fuzz-" + std::to_string(::getpid()) + suffix;
}

inline std::string write_scratch(const uint8_t* data, size_t size, const char* suffix)
{
    const std::string path = scratch_path(suffix);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

// Runs f; TraceError is the expected way to refuse bad input. A bare library exception aborts (a finding).
template <typename F> void expect_located_errors(F&& f)
{
    try {
        f();
    } catch (const sl::TraceError&) {
    } catch (const std::exception& e) {
        std::fprintf(stderr, "FINDING: a bare exception reached the caller: %s\n", e.what());
        std::abort();
    }
}

} // namespace sl::fuzz

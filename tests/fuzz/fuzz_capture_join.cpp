// A graph replay and the trace of its capture, joined (issue 36 §3): the input is two Kineto JSON texts separated by
// a NUL byte (replay, then capture). Both are read as the CLI reads them, then joined; the join's cost is bounded
// (an error past its cap, never a hang or a quadratic table), and only sl::TraceError may leave it.
#include <cstring>
#include <string>

#include "analysis/io/graph_join.h"
#include "analysis/io/kineto_reader.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const auto* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
    if (!nul)
        return 0;
    const size_t cut = static_cast<size_t>(nul - data);
    const std::string replay_path = sl::fuzz::write_scratch(data, cut, "-replay.json");
    const std::string capture_path = sl::fuzz::write_scratch(nul + 1, size - cut - 1, "-capture.json");
    sl::fuzz::expect_located_errors([&] {
        sl::Trace replay = sl::read_kineto_json(replay_path);
        sl::CaptureInput in;
        in.path = capture_path;
        in.source = "option";
        std::vector<sl::LoadedCapture> captures;
        captures.push_back(sl::read_capture(in));
        sl::join_graph_captures(replay, captures);
    });
    return 0;
}

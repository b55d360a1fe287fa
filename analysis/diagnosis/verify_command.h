#pragma once
// A suggestion's verification command for the trace it will be compared with (issue 37 §8). The shipped rules write
// NVIDIA's as an Nsight Systems run ("nsys profile ... -o after <your inference command> && sightline-cli compare
// {trace} after.nsys-rep ..."). A trace recorded with the PyTorch profiler (Kineto JSON) is verified the way it was
// recorded: the user's own command under torch.profiler, compared with the trace it saves; never `nsys profile`.
// The command is the one the trace records (metadata "command", "cmdline" or "command_line") when it has one, else
// the marked placeholder "<your command>".

#include <string>

namespace sl {

struct TraceMeta;

// The command line the trace records, or "" (Kineto's trace-level metadata, as the reader keeps it).
std::string recorded_command(const TraceMeta& meta);

// `verify` as it applies to a trace of `format` (TraceMeta::format: "nsys-sqlite" | "kineto-json"):
//   - kineto-json: a leading "nsys profile ... && " becomes "<run CMD under torch.profiler, saving
//     after.pt.trace.json.gz> && " and "after.nsys-rep" "after.pt.trace.json.gz";
//   - any format: "<your inference command>" becomes the recorded command when there is one.
// Other commands (ncu, rocprofv3, sightline-cli analyze) are returned unchanged.
std::string verify_command_for_trace(const std::string& verify, const std::string& format,
                                     const std::string& command);

} // namespace sl

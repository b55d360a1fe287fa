#pragma once
// The analysis loop of seed 004 (figure 1) for sightline-cli: profile, deep-dive, verify. The loop itself (running
// nsys / ncu, analysing, the knowledge base) is analysis/profile_loop.h, shared with the GUI's dialogs; here are the
// terminal's parts: Ctrl-C handling, printing what the loop says, the tool checks with the version printed.

#include <atomic>
#include <string>
#include <vector>

#include "analysis/profile_loop.h"
#include "app/cli/command.h"

namespace sl::cli {

// kExitTool (3) and kExitInterrupted (130) are in command.h with the other exit codes.

// SIGINT/SIGTERM set this flag (the first time; a second Ctrl-C ends sightline-cli at once).
std::atomic<bool>& interrupted();
void install_interrupt_handler();

// The loop's words on stdout (flushed), stopped by Ctrl-C.
LoopIo cli_io();

// Finds nsys / ncu (ToolInfo::error explains a missing or too-old one) and prints the version used.
ToolInfo check_nsys();
ToolInfo check_ncu();

// Splits "sightline-cli X [options] -- COMMAND..." into options and the command. False when there is no "--" or
// no command after it.
bool split_command(const std::vector<std::string>& argv, std::vector<std::string>& options,
                   std::vector<std::string>& command);

} // namespace sl::cli

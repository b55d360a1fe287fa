#pragma once
// Per-command help: `sightline-cli COMMAND --help` (or -h) prints it and exits 0.

#include <string>
#include <vector>

#include "app/cli/command.h"

namespace sl::cli {

// True when -h or --help is among a command's arguments.
bool is_help_request(const std::vector<std::string>& args);
// "Usage: sightline-cli SYNOPSIS", what the command does, its options (kb: its verbs) and the exit codes.
std::string command_help(const Command& c);

} // namespace sl::cli

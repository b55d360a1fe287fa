#pragma once
// The rank traces of a many-rank run named by one argument (issue 38 §2–3): a folder (its trace files, one per rank),
// a glob ('ranks/*.json.gz', quoted so the shell leaves it), or one file. `analyze DIR/` and `scale-out` read them.

#include <string>
#include <vector>

namespace sl {

// True when `arg` names a folder or is a glob pattern (has *, ? or [) that is not itself an existing file.
bool names_rank_set(const std::string& arg);

// The files `arg` names, in natural order (rank2 before rank10): a folder's regular files whose names end in .json,
// .json.gz, .sqlite or .nsys-rep (partials, *.partial.json[.gz], and hidden files left out; not recursive); a glob's
// regular-file matches but partials; or `arg` itself. Throws TraceError naming `arg` when nothing matches, the folder
// cannot be read, or a glob matches only folders.
std::vector<std::string> rank_files(const std::string& arg);

// Natural order of two names: runs of digits compare by value, the rest byte by byte.
bool natural_less(const std::string& a, const std::string& b);

} // namespace sl

#pragma once
// A SQLite "file:" URI for a path on disk, as the readers open databases read-only (an nsys export, the knowledge
// base): the path percent-encoded where a URI would read it otherwise ('%', '?', '#', control and non-ASCII bytes).

#include <string>

namespace sl {

// "file:<path, encoded>?<query>", e.g. sqlite_file_uri("/a b?.sqlite", "mode=ro&immutable=1").
std::string sqlite_file_uri(const std::string& path, const std::string& query);

} // namespace sl

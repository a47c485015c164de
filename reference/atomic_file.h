// Writes a whole file atomically: the bytes go to a temporary file in the same directory, which is renamed
// over `path` only once everything was written and flushed. A failure leaves no partial file behind and
// throws std::runtime_error naming the path.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace skinref {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// The temporary path used for `path` (exposed for tools that must hand a file name to a library).
std::string temporary_path_for(const std::string& path);

// Renames `temporary` over `path`; removes `temporary` and throws on failure.
void commit_temporary(const std::string& temporary, const std::string& path);

}  // namespace skinref

// What an engine said about a query, read from its log however large the log is: the line that names the query
// (a batch log holds a line per query), else the last line that is not blank, quoted as safe text
// (safe_text.h). Memory stays bounded whatever the engine printed: the log is read in blocks, and of each line
// only its first kQuotedTextBytes are kept.
//
// Contract:
// - log_message(path, prefix): the first line that starts with `prefix` (when `prefix` is not empty), else the
//   last line with a character other than blanks; "" when the log is missing or has none. Lines end at \n; a
//   \r before it is dropped. Longer lines are quoted to kQuotedTextBytes and marked as cut.
#pragma once

#include <string>

namespace skinref::engine_process {

std::string log_message(const std::string& path, const std::string& prefix);

}  // namespace skinref::engine_process

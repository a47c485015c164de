// Text that came from outside skinref (an engine's log, a message it printed, a path it wrote) made safe to
// quote in a report: valid UTF-8 of printable characters, on one line, of bounded length. Whatever bytes an
// engine prints, the JSON, Markdown, HTML and JUnit reports that quote them can be written and read.
//
// Contract:
// - safe_text(bytes, max_bytes): every well-formed UTF-8 sequence of a printable character is kept as it is;
//   a byte that does not start a well-formed sequence (a Latin-1 or Windows-1252 byte, a truncated sequence,
//   an overlong form, a surrogate, anything above U+10FFFF) becomes U+FFFD; a control character (C0, DEL and
//   the C1 range U+0080..U+009F) becomes the visible text \xNN (\n, \r and \t too: the result is one line).
// - The result is at most `max_bytes` bytes plus the marker " ... (N more bytes)", cut at a character's end.
// - Deterministic and total: no input throws.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace skinref::engine_process {

// How much of an engine's text a report quotes by default: a line of a log, an error message.
constexpr size_t kQuotedTextBytes = 240;

std::string safe_text(std::string_view bytes, size_t max_bytes = kQuotedTextBytes);

// The same for the first bytes of a longer text of `total_bytes` (a line read in part): the marker counts the
// bytes left of the whole.
std::string safe_text(std::string_view bytes, size_t max_bytes, size_t total_bytes);

}  // namespace skinref::engine_process

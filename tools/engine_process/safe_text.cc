#include "engine_process/safe_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace skinref::engine_process {
namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER

// The length of the well-formed UTF-8 sequence at `at` (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF), with its code point; 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view bytes, size_t at, uint32_t& code_point) {
  const auto byte = [&](size_t i) { return uint8_t(bytes[at + i]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  }
  size_t length = 0;
  uint32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, minimum = 0x80, code_point = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, minimum = 0x800, code_point = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, minimum = 0x10000, code_point = lead & 0x07u;
  } else {
    return 0;
  }
  if (at + length > bytes.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3Fu);
  }
  if (code_point < minimum || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
  return length;
}

bool is_control(uint32_t code_point) { return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F); }

}  // namespace

std::string safe_text(std::string_view bytes, size_t max_bytes) { return safe_text(bytes, max_bytes, bytes.size()); }

std::string safe_text(std::string_view bytes, size_t max_bytes, size_t total_bytes) {
  std::string text;
  size_t at = 0;
  while (at < bytes.size()) {
    uint32_t code_point = 0;
    const size_t length = utf8_sequence(bytes, at, code_point);
    std::string piece;
    if (length == 0) {
      piece = kReplacement;
    } else if (is_control(code_point)) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", unsigned(code_point));
      piece = escaped;
    } else {
      piece.assign(bytes.substr(at, length));
    }
    if (text.size() + piece.size() > max_bytes) break;
    text += piece;
    at += length == 0 ? 1 : length;
  }
  total_bytes = std::max(total_bytes, bytes.size());
  if (at < total_bytes) text += " ... (" + std::to_string(total_bytes - at) + " more bytes)";
  return text;
}

}  // namespace skinref::engine_process

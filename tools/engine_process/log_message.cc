#include "engine_process/log_message.h"

#include "engine_process/safe_text.h"

#include <fstream>
#include <vector>

namespace skinref::engine_process {
namespace {

constexpr size_t kBlockBytes = 1 << 16;

// One line as it streams by: its first bytes, and how long it is in all.
struct LineStart {
  std::string kept;
  size_t length = 0;
  bool blank = true;

  void add(char c) {
    if (kept.size() < kQuotedTextBytes * 4) kept.push_back(c);  // room for safe_text's escapes of raw bytes
    ++length;
    if (c != ' ' && c != '\t' && c != '\r') blank = false;
  }
  std::string quoted() const {
    std::string text = kept;
    size_t total = length;
    if (!text.empty() && text.back() == '\r' && length == kept.size()) {
      text.pop_back();
      --total;
    }
    return safe_text(text, kQuotedTextBytes, total);
  }
};

}  // namespace

std::string log_message(const std::string& path, const std::string& prefix) {
  std::ifstream log(path, std::ios::binary);
  if (!log) return "";
  std::vector<char> block(kBlockBytes);
  LineStart line;
  std::string last, named;
  const auto end_line = [&]() {
    if (!line.blank) {
      last = line.quoted();
      if (named.empty() && !prefix.empty() && line.kept.compare(0, prefix.size(), prefix) == 0) named = last;
    }
    line = LineStart{};
  };
  while (log) {
    log.read(block.data(), std::streamsize(block.size()));
    const std::streamsize got = log.gcount();
    for (std::streamsize i = 0; i < got; ++i) {
      if (block[size_t(i)] == '\n') end_line();
      else line.add(block[size_t(i)]);
    }
    if (got == 0) break;
  }
  end_line();
  return named.empty() ? last : named;
}

}  // namespace skinref::engine_process

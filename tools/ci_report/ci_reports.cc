#include "ci_report/ci_reports.h"

#include "core/atomic_file.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace skinref {
namespace {

// Decodes one UTF-8 sequence at `i` (advancing it); an invalid sequence gives U+FFFD and one byte.
uint32_t next_code_point(const std::string& text, size_t& i) {
  const unsigned char lead = static_cast<unsigned char>(text[i]);
  const int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + size_t(length) > text.size()) {
    ++i;
    return 0xFFFD;
  }
  uint32_t code = length == 1 ? lead : lead & (0x7Fu >> length);
  for (int k = 1; k < length; ++k) {
    const unsigned char next = static_cast<unsigned char>(text[i + size_t(k)]);
    if ((next >> 6) != 0x2) {
      ++i;
      return 0xFFFD;
    }
    code = (code << 6) | (next & 0x3Fu);
  }
  i += size_t(length);
  return code;
}

void append_utf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += char(code);
  } else if (code < 0x800) {
    out += char(0xC0 | (code >> 6));
    out += char(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += char(0xE0 | (code >> 12));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  } else {
    out += char(0xF0 | (code >> 18));
    out += char(0x80 | ((code >> 12) & 0x3F));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  }
}

// XML 1.0's Char production: tab, newline, carriage return and the ranges below; anything else (terminal
// escape codes, NUL) cannot appear even escaped.
bool xml_char(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

}  // namespace

std::string html_escaped(const std::string& text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

namespace {

std::string xml_escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const uint32_t code = next_code_point(text, i);
    switch (code) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += "&#10;"; break;  // kept in attributes too
      case '\r': out += "&#13;"; break;
      case '\t': out += "&#9;"; break;
      default: append_utf8(out, xml_char(code) ? code : 0xFFFD);
    }
  }
  return out;
}

// Element text keeps its newlines readable.
std::string xml_text(const std::string& text) {
  std::string escaped = xml_escaped(text), out;
  size_t at = 0;
  for (size_t found; (found = escaped.find("&#10;", at)) != std::string::npos; at = found + 5)
    out += escaped.substr(at, found - at) + "\n";
  return out + escaped.substr(at);
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds < 0.0 ? 0.0 : seconds);
  return buffer;
}


}  // namespace

void write_junit(const std::string& path, const std::string& suite, const std::vector<JunitCase>& cases,
                 const std::string& system_out) {
  size_t failures = 0, errors = 0, skipped = 0;
  double total = 0.0;
  for (const JunitCase& c : cases) {
    failures += c.outcome == JunitOutcome::Failed;
    errors += c.outcome == JunitOutcome::Error;
    skipped += c.outcome == JunitOutcome::Skipped;
    total += c.seconds;
  }
  const std::string counts = " tests=\"" + std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
                             "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) +
                             "\" time=\"" + seconds_text(total) + "\"";
  write_file_atomically(path, [&](std::ostream& out) {
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites name=\"" << xml_escaped(suite) << "\"" << counts << ">\n";
    out << "  <testsuite name=\"" << xml_escaped(suite) << "\"" << counts << ">\n";
    for (const JunitCase& c : cases) {
      out << "    <testcase classname=\"" << xml_escaped(c.classname) << "\" name=\"" << xml_escaped(c.name)
          << "\" time=\"" << seconds_text(c.seconds) << "\"";
      const char* element = c.outcome == JunitOutcome::Failed  ? "failure"
                             : c.outcome == JunitOutcome::Error   ? "error"
                             : c.outcome == JunitOutcome::Skipped ? "skipped"
                                                                  : nullptr;
      if (!element) {
        out << "/>\n";
        continue;
      }
      out << ">\n      <" << element << " message=\"" << xml_escaped(c.message) << "\"";
      if (c.outcome != JunitOutcome::Skipped) out << " type=\"" << element << "\"";
      if (c.details.empty()) {
        out << "/>\n";
      } else {
        out << ">" << xml_text(c.details) << "</" << element << ">\n";
      }
      out << "    </testcase>\n";
    }
    if (!system_out.empty()) out << "    <system-out>" << xml_text(system_out) << "</system-out>\n";
    out << "  </testsuite>\n</testsuites>\n";
  });
}

JunitCase junit_from_output(const std::string& classname, const std::string& name, double seconds, int exit_code,
                            const std::string& output) {
  JunitCase c;
  c.classname = classname;
  c.name = name;
  c.seconds = seconds;
  c.outcome = exit_code == 0 ? JunitOutcome::Passed : JunitOutcome::Failed;
  std::istringstream lines(output);
  std::string line, last, verdict;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    last = line;
    const size_t text = line.find_first_not_of(' ');
    for (const char* prefix : {"PASS", "FAIL", "matches", "no known"})
      if (line.compare(text, std::string(prefix).size(), prefix) == 0) verdict = line.substr(text);
  }
  if (c.outcome == JunitOutcome::Failed) {
    c.message = verdict.empty() ? last : verdict;
    c.details = output;
  }
  return c;
}

TeeOutput::TeeOutput() : original_(std::cout.rdbuf()), buffer_(original_, copy_.rdbuf()) {
  std::cout.rdbuf(&buffer_);
}

TeeOutput::~TeeOutput() { std::cout.rdbuf(original_); }

int TeeOutput::Buffer::overflow(int c) {
  if (c == traits_type::eof()) return traits_type::not_eof(c);
  copy_->sputc(char(c));
  return terminal_->sputc(char(c));
}

std::streamsize TeeOutput::Buffer::xsputn(const char* s, std::streamsize n) {
  copy_->sputn(s, n);
  return terminal_->sputn(s, n);
}

std::string Shard::describe() const {
  return count == 1 ? std::string() : "shard " + std::to_string(index) + "/" + std::to_string(count);
}

ProgressLine::ProgressLine(size_t total) : total_(total), terminal_(isatty(STDERR_FILENO) == 1) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::step(const std::string& label) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  if (!terminal_) return;
  std::string line = "[" + std::to_string(done_) + (total_ > 0 ? "/" + std::to_string(total_) : std::string()) + "] " + label;
  // Cut in place: GCC 12 at -O2 reports a -Warray-bounds false positive on line.substr(0, 97) + "...".
  if (line.size() > 100) {
    line.resize(97);
    line += "...";
  }
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  dirty_ = true;
}

void ProgressLine::finish() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!dirty_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  dirty_ = false;
}

}  // namespace skinref

// What skinref gives CI systems: JUnit XML reports (--junit FILE), shards of a long check spread over
// machines (--shard I/N or the test runners' shard variables), and a progress line on a terminal.
//
// Contract:
// - write_junit(): one <testsuites> holding one <testsuite> of `cases`, in the layout Jenkins, GitLab, GitHub
//   and Azure read (tests/tools/junit.xsd states it; a test validates against it with xmllint and parses the
//   result): each case a <testcase classname name time>, with <failure message type>, <error message type> or
//   <skipped message> by outcome and the details as the element's text; the output a command printed in
//   <system-out>. Text is escaped, and characters XML 1.0 cannot hold are replaced by U+FFFD. The file is
//   written atomically (core/atomic_file.h).
// - TeeOutput: while it lives, what is written to std::cout also goes into a string (the command's output
//   for <system-out>), and still reaches the terminal.
// - junit_from_output(): a command's one test case from its exit status and what it printed: passed on exit 0,
//   failed otherwise, with the last line starting "PASS", "FAIL", "matches" or "no known" (else the last
//   line) as the message.
// - Shard: shard I of N of a list: item k belongs to shard k mod N, so the shards of one list are disjoint and
//   together cover it, with no coordinator (cli/cli_args.h's parse_shard() reads it from --shard I/N or the test
//   runners' variables).
// - ProgressLine: "[k/N] label" ("[k] label" for a total of 0: not known in advance) rewritten in place on
//   stderr while stderr is a terminal, cleared by finish() or the destructor; nothing at all when stderr is not a terminal (CI logs stay as they were). Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

namespace skinref {

enum class JunitOutcome { Passed, Failed, Error, Skipped };

struct JunitCase {
  std::string classname;  // e.g. "skinref.golden.vulkan"
  std::string name;       // e.g. the case name, or "REF.skv vs TEST.skv"
  double seconds = 0.0;
  JunitOutcome outcome = JunitOutcome::Passed;
  std::string message;  // one line: why it failed, errored or was skipped
  std::string details;  // several lines
};

// `text` for HTML text and attribute values: & < > " ' as entities (the HTML reports of golden and
// conformance).
std::string html_escaped(const std::string& text);

void write_junit(const std::string& path, const std::string& suite, const std::vector<JunitCase>& cases,
                 const std::string& system_out = "");

JunitCase junit_from_output(const std::string& classname, const std::string& name, double seconds, int exit_code,
                            const std::string& output);

class TeeOutput {
 public:
  TeeOutput();
  ~TeeOutput();
  TeeOutput(const TeeOutput&) = delete;
  TeeOutput& operator=(const TeeOutput&) = delete;
  std::string text() const { return copy_.str(); }

 private:
  class Buffer : public std::streambuf {
   public:
    Buffer(std::streambuf* terminal, std::streambuf* copy) : terminal_(terminal), copy_(copy) {}
    int overflow(int c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override { return terminal_->pubsync(); }

   private:
    std::streambuf* terminal_;
    std::streambuf* copy_;
  };
  std::ostringstream copy_;
  std::streambuf* original_;
  Buffer buffer_;
};

struct Shard {
  size_t index = 0, count = 1;
  bool owns(size_t item) const { return item % count == index; }
  std::string describe() const;  // "shard I/N" ("" for the whole list)
};

class ProgressLine {
 public:
  explicit ProgressLine(size_t total);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  // One more item done; `label` names it.
  void step(const std::string& label);
  void finish();
  bool shown() const { return terminal_; }

 private:
  std::mutex mutex_;
  size_t total_ = 0, done_ = 0;
  bool terminal_ = false, dirty_ = false;
};

}  // namespace skinref

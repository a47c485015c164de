// Shared by the libFuzzer targets of tests/fuzz/: the outcome policy and a per-process temp file.
//
// Outcome policy (mirrors tools/cli/main.cc, which maps UsageError, skinref::InputError and every other
// std::exception to one stderr line and exit 2): an input the code refuses by throwing skinref::InputError
// or any std::exception is a normal, handled input. Anything else is a finding: a crash, a sanitizer report
// (ASan, UBSan), a non-std exception (the CLI would only say "unknown error"), libFuzzer's own out-of-memory
// (-rss_limit_mb, and -malloc_limit_mb for one allocation) and timeout (-timeout) reports.
#pragma once

#include "core/input_error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <unistd.h>

namespace skinref::fuzz {

// Runs `body`; returns normally when it succeeds or throws what the CLI reports as bad input (exit 2).
template <class Body>
void run_guarded(Body&& body) {
  try {
    body();
  } catch (const skinref::InputError&) {
  } catch (const std::exception&) {
  } catch (...) {
    std::fprintf(stderr, "skinref fuzz: an exception that is not a std::exception escaped\n");
    std::abort();
  }
}

// A file of this process for readers that take a path: $TMPDIR (else /dev/shm, else /tmp), named by the
// target, the pid and `extension`; rewritten for every input. Removed at exit.
class TempFile {
 public:
  TempFile(const std::string& target, const std::string& extension) {
    const char* dir = std::getenv("TMPDIR");
    std::string base = dir != nullptr && *dir != '\0' ? dir : (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    path_ = base + "/skinref-fuzz-" + target + "-" + std::to_string(getpid()) + extension;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& write(const uint8_t* data, size_t size) {
    FILE* file = std::fopen(path_.c_str(), "wb");
    if (file == nullptr) {
      std::perror(path_.c_str());
      std::abort();  // the harness's own failure, not the input's
    }
    if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
    std::fclose(file);
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace skinref::fuzz

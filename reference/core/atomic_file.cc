// Atomic whole-file writes: a temporary file next to the target, written, flushed and closed with every
// stream state checked, then renamed over the target. Any failure removes the temporary and throws.
#include "core/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

namespace skinref {
namespace {

std::string os_error_text(int error_number) {
  return error_number != 0 ? std::string(std::strerror(error_number)) : std::string("unknown I/O error");
}

// Best effort: the temporary may not exist (creation failed) and a failure here must not hide the first one.
void remove_quietly(const std::string& temporary) {
  std::error_code ignored;
  std::filesystem::remove(temporary, ignored);
}

}  // namespace

std::string temporary_path_for(const std::string& path) {
  // The pid separates processes, the counter separates concurrent writers in one process.
  static std::atomic<unsigned long long> counter{0};
  return path + ".tmp-" + std::to_string(static_cast<long long>(::getpid())) + "-" +
         std::to_string(counter.fetch_add(1));
}

void commit_temporary(const std::string& temporary, const std::string& path) {
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    remove_quietly(temporary);
    throw std::runtime_error("cannot write " + path + ": renaming " + temporary + " failed: " + error.message());
  }
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string temporary = temporary_path_for(path);
  {
    errno = 0;
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out.is_open()) {
      const int error_number = errno;
      remove_quietly(temporary);
      throw std::runtime_error("cannot write " + path + ": cannot create " + temporary + ": " +
                               os_error_text(error_number));
    }
    try {
      write(out);
    } catch (...) {
      out.close();
      remove_quietly(temporary);
      throw;
    }
    errno = 0;
    out.flush();
    if (!out) {
      const int error_number = errno;
      out.close();
      remove_quietly(temporary);
      throw std::runtime_error("cannot write " + path + ": writing " + temporary + " failed: " +
                               os_error_text(error_number));
    }
    errno = 0;
    out.close();
    if (out.fail()) {
      const int error_number = errno;
      remove_quietly(temporary);
      throw std::runtime_error("cannot write " + path + ": closing " + temporary + " failed: " +
                               os_error_text(error_number));
    }
  }
  commit_temporary(temporary, path);
}

StagedFiles::~StagedFiles() {
  for (const auto& [temporary, path] : staged_) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
  }
}

void StagedFiles::stage(const std::string& path, const std::function<void(const std::string&)>& write) {
  const std::string temporary = temporary_path_for(path);
  staged_.emplace_back(temporary, path);
  write(temporary);
}

void StagedFiles::commit_all() {
  while (!staged_.empty()) {
    const auto [temporary, path] = staged_.front();
    staged_.erase(staged_.begin());
    commit_temporary(temporary, path);
  }
}

}  // namespace skinref

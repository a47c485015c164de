// Writes a whole file atomically: the bytes go to a temporary file in the same directory, which is renamed
// over `path` only once everything was written and flushed. A failure leaves no partial file behind and
// throws std::runtime_error naming the path.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace skinref {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// The temporary path used for `path` (exposed for tools that must hand a file name to a library).
std::string temporary_path_for(const std::string& path);

// Renames `temporary` over `path`; removes `temporary` and throws on failure.
void commit_temporary(const std::string& temporary, const std::string& path);

// Several outputs of one command, each written to its temporary first and renamed over its target only once
// every one was written (commit_all()), so that a failure while writing any leaves none of them changed.
// The destructor removes the temporaries that were not committed. A failure of a rename in commit_all()
// leaves the outputs renamed before it in place (renames cannot be made atomic as a group).
class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();

  // `write` must create the file it is given (the temporary).
  void stage(const std::string& path, const std::function<void(const std::string&)>& write);
  void commit_all();

 private:
  std::vector<std::pair<std::string, std::string>> staged_;  // (temporary, target)
};

}  // namespace skinref

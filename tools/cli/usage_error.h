// The error of a command line that is not one skinref accepts: an unknown command or option, a missing or
// malformed value. main() prints its one-line message and exits 2 (commands.h).
#pragma once

#include <stdexcept>
#include <string>

namespace skinref::cli {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace skinref::cli

// The one error type for bad input (files, built-in names, command-line values): the CLI maps it to exit 2.
//
// Contract: `file` is the path the user gave (or builtin:NAME); `json_path` is a JSON pointer into the glTF
// (e.g. "/accessors/7/count"), or empty when the problem is not located in the JSON; `expected` says what
// was expected and, where useful, what was found. what() is one line: "FILE: JSON_PATH: EXPECTED".
#pragma once

#include <stdexcept>
#include <string>

namespace skinref {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string json_path, std::string expected)
      : std::runtime_error(format(file, json_path, expected)),
        file_(std::move(file)),
        json_path_(std::move(json_path)),
        expected_(std::move(expected)) {}

  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& expected() const { return expected_; }

 private:
  static std::string format(const std::string& file, const std::string& path, const std::string& expected) {
    std::string line = file.empty() ? std::string("<input>") : file;
    if (!path.empty()) line += ": " + path;
    return line + ": " + expected;
  }
  std::string file_;
  std::string json_path_;
  std::string expected_;
};

}  // namespace skinref

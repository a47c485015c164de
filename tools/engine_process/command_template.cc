#include "engine_process/command_template.h"

namespace skinref::engine_process {
namespace {

enum class Quoting { Bare, Single, Double };

const char* quoting_name(Quoting quoting) {
  switch (quoting) {
    case Quoting::Bare: return "bare";
    case Quoting::Single: return "single quotes";
    case Quoting::Double: return "double quotes";
  }
  return "?";
}

// The placeholder of `names` that starts at `at`, or "".
std::string placeholder_at(const std::string& command, size_t at, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    const std::string placeholder = "{" + name + "}";
    if (command.compare(at, placeholder.size(), placeholder) == 0) return placeholder;
  }
  return "";
}

}  // namespace

std::string placeholder_in_quotes(const std::string& command, const std::vector<std::string>& names) {
  Quoting quoting = Quoting::Bare;
  bool escaped = false;  // the previous character was a quoting backslash
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    const std::string placeholder = placeholder_at(command, i, names);
    if (!placeholder.empty() && (quoting != Quoting::Bare || escaped))
      return placeholder + " at byte " + std::to_string(i) + " is inside " +
             (escaped ? std::string("a backslash's quoting") : quoting_name(quoting));
    if (escaped) {
      escaped = false;
      continue;
    }
    switch (quoting) {
      case Quoting::Bare:
        if (c == '\\') escaped = true;
        else if (c == '\'') quoting = Quoting::Single;
        else if (c == '"') quoting = Quoting::Double;
        break;
      case Quoting::Single:
        if (c == '\'') quoting = Quoting::Bare;
        break;
      case Quoting::Double:
        if (c == '\\') escaped = true;
        else if (c == '"') quoting = Quoting::Bare;
        break;
    }
  }
  return "";
}

std::string substitute(const std::string& command, const PlaceholderValues& values) {
  std::string out;
  for (size_t i = 0; i < command.size();) {
    bool replaced = false;
    for (const auto& [name, value] : values) {
      const std::string placeholder = "{" + name + "}";
      if (command.compare(i, placeholder.size(), placeholder) == 0) {
        out += shell_quote(value);
        i += placeholder.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += command[i++];
  }
  return out;
}

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace skinref::engine_process

// Parsing a command's arguments against its declarations with CLI11 (see command_decl.h).
#include "cli/command_decl.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <map>

namespace skinref::cli {
namespace {

// How far a mistyped name may be from a declared one and still be suggested: a third of its length (so
// "--thread" finds "--threads", and "--out" is not suggested for "--bogus"), and never more than this.
constexpr size_t kMaxSuggestionEdits = 3;

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

const OptionDecl* find_option(const CommandDecl& command, const std::string& name) {
  for (const OptionDecl& option : command.options)
    if (option.name == name) return &option;
  return nullptr;
}

std::string unknown_option_message(const CommandDecl& command, const std::string& name) {
  std::vector<std::string> names{"--help"};
  for (const OptionDecl& option : command.options) names.push_back(option.name);
  std::string message = command.path + ": unknown option " + name;
  if (const std::optional<std::string> nearest = nearest_name(name, names)) return message + "; did you mean " + *nearest + "?";
  std::string list;
  for (const std::string& known : names) list += (list.empty() ? "" : ", ") + known;
  return message + "; allowed: " + list + " (skinref help " + command.path + ")";
}

// CLI11 would take a following option as this one's value ("--out --time 1"); a value never starts with "--".
void refuse_missing_values(std::span<const std::string> args, const CommandDecl& command) {
  for (size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
    if (args[i].rfind("--", 0) != 0 || args[i].find('=') != std::string::npos) continue;
    const OptionDecl* option = find_option(command, args[i]);
    if (option == nullptr || option->value.empty()) continue;
    if (i + 1 == args.size() || args[i + 1].rfind("--", 0) == 0)
      throw UsageError(command.path + ": option " + args[i] + " needs a value (" + option->value + ")");
  }
}

// Every option bound to a list of strings: CLI11 checks the count (Throw: a second --time is an error) and the
// choices; ParsedArgs keeps the texts for the commands' own checks.
ParsedArgs run_cli11(std::span<const std::string> args, const CommandDecl& command) {
  CLI::App app{command.summary, "skinref " + command.path};
  app.set_help_flag();  // --help was handled before; no option of CLI11's own
  app.allow_extras(true);
  std::vector<std::string> positionals;
  app.add_option("ARGS", positionals);
  std::map<std::string, std::vector<std::string>> given;
  std::map<std::string, bool> flags;
  for (const OptionDecl& declared : command.options) {
    if (declared.value.empty()) {
      app.add_flag(declared.name, flags[declared.name])->multi_option_policy(CLI::MultiOptionPolicy::Throw);
      continue;
    }
    CLI::Option* option = app.add_option(declared.name, given[declared.name])->expected(1)->allow_extra_args(false);
    option->multi_option_policy(declared.repeatable ? CLI::MultiOptionPolicy::TakeAll : CLI::MultiOptionPolicy::Throw);
    if (!declared.choices.empty()) option->check(CLI::IsMember(declared.choices));
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes its arguments last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    throw UsageError(command.path + ": " + error.what());
  }
  for (const std::string& extra : app.remaining()) {
    if (extra != "--" && extra.size() > 1 && extra[0] == '-')
      throw UsageError(unknown_option_message(command, extra.substr(0, extra.find('='))));
  }
  ParsedArgs parsed;
  parsed.arguments.assign(args.begin(), args.end());
  parsed.positionals = positionals;
  for (const OptionDecl& declared : command.options) {
    if (declared.value.empty()) {
      if (app.count(declared.name) > 0) parsed.flags.push_back(declared.name);
      continue;
    }
    const std::vector<std::string>& values = given[declared.name];
    if (values.empty()) continue;
    parsed.values[declared.name] = values.back();
    if (declared.repeatable) parsed.repeated[declared.name] = values;
  }
  return parsed;
}

}  // namespace

std::vector<OptionDecl> joined(std::vector<OptionDecl> a, std::initializer_list<std::vector<OptionDecl>> groups) {
  for (const std::vector<OptionDecl>& group : groups) {
    for (const OptionDecl& option : group) {
      const bool present = std::any_of(a.begin(), a.end(), [&](const OptionDecl& o) { return o.name == option.name; });
      if (!present) a.push_back(option);
    }
  }
  return a;
}

std::optional<std::string> nearest_name(const std::string& typed, std::span<const std::string> names) {
  std::optional<std::string> best;
  size_t best_distance = std::min(kMaxSuggestionEdits, std::max<size_t>(1, typed.size() / 3)) + 1;
  for (const std::string& name : names) {
    const size_t distance = edit_distance(typed, name);
    if (distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

ParsedArgs parse_command_line(std::span<const std::string> args, const CommandDecl& command) {
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg == "--help" || arg == "-h") {
      ParsedArgs parsed;
      parsed.help = true;
      return parsed;
    }
  }
  refuse_missing_values(args, command);
  return run_cli11(args, command);
}

}  // namespace skinref::cli

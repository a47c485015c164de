// The declarations of skinref's command line: every command, subcommand and option is declared once, with its
// value, accepted choices, default and help. Everything a user reads about the command line comes from them:
// the parser (parse_command_line(), on CLI11), `skinref help [CMD [SUB]]`, every `CMD --help`, and docs/cli.md
// (`skinref help --markdown`, which a test compares with the committed page).
//
// Contract:
// - parse_command_line(): CLI11 parses `args` against the command's options (`--key value`, `--key=value`,
//   flags, repeatable options, `--` ending the options); a choice outside `choices` is refused there, naming
//   the option and the value. Every problem is a UsageError prefixed with the command's path; an unknown option
//   suggests the nearest declared one ("did you mean --threads?"). `--help`/`-h` anywhere before `--` sets
//   ParsedArgs::help and nothing else is checked. Values (numbers, files) are the commands' to check.
// - nearest_name(): the closest of `names` to a mistyped `typed` by edit distance, when close enough to be the
//   likely intent (at most a third of its length, and at most 3 edits); nothing otherwise.
// - command_help() and markdown_reference() format declarations only: no command runs.
#pragma once

#include "cli/cli_args.h"

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace skinref::cli {

struct OptionDecl {
  std::string name;                  // with the leading "--"
  std::string value;                 // the value's placeholder ("SECONDS", "FILE.json"); empty for a flag
  std::string help;                  // one paragraph, wrapped when printed
  std::vector<std::string> choices;  // the accepted values, from the enum's own name table; empty: any text
  std::string default_value;         // printed as "default: X" when the help does not say it; empty: none
  bool repeatable = false;           // may be given more than once (ParsedArgs::values_of() lists them in order)

  OptionDecl(std::string name_, std::string value_, std::string help_, std::vector<std::string> choices_ = {},
             std::string default_value_ = "", bool repeatable_ = false)
      : name(std::move(name_)), value(std::move(value_)), help(std::move(help_)), choices(std::move(choices_)),
        default_value(std::move(default_value_)), repeatable(repeatable_) {}
};

struct CommandDecl {
  std::string path;                   // "skin", "conformance run"
  std::string summary;                // one line, for the list of commands
  std::vector<std::string> synopsis;  // the usage lines' text after "skinref PATH "
  std::string description;            // paragraphs, one per line ("\n" between them)
  std::vector<OptionDecl> options;
  int (*run)(const ParsedArgs&) = nullptr;  // null for a command that only holds subcommands
  std::vector<CommandDecl> subcommands;

  CommandDecl(std::string path_, std::string summary_, std::vector<std::string> synopsis_, std::string description_,
              std::vector<OptionDecl> options_, int (*run_)(const ParsedArgs&), std::vector<CommandDecl> subcommands_ = {})
      : path(std::move(path_)), summary(std::move(summary_)), synopsis(std::move(synopsis_)),
        description(std::move(description_)), options(std::move(options_)), run(run_),
        subcommands(std::move(subcommands_)) {}
};

// `a` followed by the options of each group, in order: the shared groups are declared once and appended.
std::vector<OptionDecl> joined(std::vector<OptionDecl> a, std::initializer_list<std::vector<OptionDecl>> groups);

ParsedArgs parse_command_line(std::span<const std::string> args, const CommandDecl& command);

std::optional<std::string> nearest_name(const std::string& typed, std::span<const std::string> names);

// "usage: skinref PATH ...", the description, then every option with its help (or the subcommands).
std::string command_help(const CommandDecl& command);
// The page docs/cli.md: every command and subcommand, its usage, description and a table of its options.
std::string markdown_reference(std::span<const CommandDecl> commands);

}  // namespace skinref::cli

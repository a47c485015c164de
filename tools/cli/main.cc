// The skinref command line: dispatches to the subcommands and maps every error to one stderr line and an
// exit status (0 success, 1 comparison failed, 2 bad input or usage).
#include "cli/cli_args.h"
#include "cli/command_decl.h"
#include "cli/commands.h"

#include "core/input_error.h"

#include <malloc.h>

#include <algorithm>
#include <climits>
#include <exception>
#include <optional>
#include <span>
#include <iostream>
#include <string>
#include <vector>

#ifndef SKINREF_VERSION
#define SKINREF_VERSION "0.1.0"
#endif

namespace skinref::cli {

const std::vector<CommandDecl>& all_commands() {
  static const std::vector<CommandDecl> kCommands{
      info_command(),    pose_command(),     skin_command(),   export_command(),
      render_command(),  devices_command(),  compare_command(), bisect_command(),
      diagnose_command(), golden_command(),  conformance_command(), shader_interface_command(),
  };
  return kCommands;
}

namespace {

std::string general_usage() {
  std::string text =
      "usage: skinref COMMAND [ARGS...]\n"
      "       skinref help [COMMAND [SUBCOMMAND]] | help --markdown | --help | --version\n"
      "MODEL is a .gltf/.glb path, an FBX, Collada or other file Assimp reads, or builtin:NAME.\n"
      "Commands:\n";
  // The summaries start in one column, two spaces after the longest name.
  size_t name_width = 0;
  for (const CommandDecl& command : all_commands()) name_width = std::max(name_width, command.path.size());
  for (const CommandDecl& command : all_commands())
    text += "  " + command.path + std::string(name_width + 2 - command.path.size(), ' ') + command.summary + "\n";
  text +=
      "Run 'skinref help COMMAND' or 'skinref COMMAND --help' for a command's options (docs/cli.md has them all).\n"
      "Exit status: 0 success, 1 comparison failed, 2 bad input or usage (one line on stderr).\n";
  return text;
}

// The command (or subcommand) `name` among `commands`, or a UsageError that suggests the nearest.
const CommandDecl& find_command(const std::vector<CommandDecl>& commands, const std::string& name,
                                const std::string& parent) {
  std::vector<std::string> names;
  for (const CommandDecl& command : commands) {
    const std::string own = command.path.substr(parent.empty() ? 0 : parent.size() + 1);
    if (own == name) return command;
    names.push_back(own);
  }
  const std::string what = parent.empty() ? "command" : parent + " subcommand";
  if (const std::optional<std::string> nearest = nearest_name(name, names))
    throw UsageError("unknown " + what + " '" + name + "'; did you mean '" + *nearest + "'?");
  std::string list;
  for (const std::string& known : names) list += (list.empty() ? "" : ", ") + known;
  throw UsageError("unknown " + what + " '" + name + "'; " + (parent.empty() ? "commands" : "subcommands") + ": " +
                   list + " (see skinref help" + (parent.empty() ? "" : " " + parent) + ")");
}

// The command that `words` name from the front (a command, then a subcommand where it has them); `used` says
// how many words named it.
const CommandDecl& resolve_command(std::span<const std::string> words, size_t& used) {
  const CommandDecl* command = &find_command(all_commands(), words[0], "");
  used = 1;
  while (!command->subcommands.empty() && used < words.size() && words[used].rfind("-", 0) != 0) {
    command = &find_command(command->subcommands, words[used], command->path);
    ++used;
  }
  return *command;
}

int print_help(std::span<const std::string> words) {
  if (words.empty()) {
    std::cout << general_usage();
    return kExitOk;
  }
  if (words[0] == "--markdown") {
    if (words.size() > 1) throw UsageError("help --markdown: takes nothing more (it prints docs/cli.md)");
    std::cout << markdown_reference(all_commands());
    return kExitOk;
  }
  size_t used = 0;
  const CommandDecl& command = resolve_command(words, used);
  if (used < words.size()) throw UsageError("help: unexpected '" + words[used] + "' after '" + command.path + "'");
  std::cout << command_help(command);
  return kExitOk;
}

// Messages from libraries may span lines; the contract is one line per error.
std::string one_line(const std::string& message) {
  std::string line;
  for (char c : message) {
    if (c == '\n' || c == '\r') {
      if (!line.empty() && line.back() != ' ') line += "; ";
    } else {
      line.push_back(c);
    }
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == ';')) line.pop_back();
  return line.empty() ? std::string("unknown error") : line;
}

int report(const std::string& message) {
  std::cout.flush();
  std::cerr << "skinref: " << one_line(message) << std::endl;
  return kExitBadInput;
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("no command given; run 'skinref --help'");
  const std::string& first = args[0];
  if (first == "--help" || first == "-h") return print_help({});
  if (first == "--version") {
    std::cout << "skinref " << SKINREF_VERSION << "\n";
    return kExitOk;
  }
  if (first == "help") return print_help(std::span<const std::string>(args).subspan(1));
  size_t used = 0;
  const CommandDecl& command = resolve_command(args, used);
  const std::span<const std::string> rest = std::span<const std::string>(args).subspan(used);
  if (command.run == nullptr) {
    // A command of subcommands given none: its help, or which subcommand it needs.
    if (!rest.empty() && (rest[0] == "--help" || rest[0] == "-h")) return print_help(std::span<const std::string>(args).first(used));
    std::string names;
    for (const CommandDecl& sub : command.subcommands) names += (names.empty() ? "" : ", ") + sub.path.substr(command.path.size() + 1);
    throw UsageError(command.path + ": expected a subcommand: " + names + " (see skinref help " + command.path + ")");
  }
  const ParsedArgs parsed = parse_command_line(rest, command);
  if (parsed.help) {
    std::cout << command_help(command);
    return kExitOk;
  }
  return command.run(parsed);
}

// A command evaluates a scene several times (golden check: per time, the reference, a backend, two renders),
// each time allocating buffers of the vertex count: 72 MB of doubles for builtin:million's skinned vertices.
// glibc maps every block over 32 MB afresh and gives it back on free, so each evaluation paid its page faults
// again: 854,000 of them, 5.7 s of system time in golden check's 14 s on million-lbs (cpu). Taking every block
// from the heap and never trimming it keeps freed pages for the next evaluation: 176,000 faults, 4 s in all.
// The process holds its peak footprint until it exits, which a command that exits after one job can afford.
void keep_freed_memory_for_reuse() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
}

}  // namespace
}  // namespace skinref::cli

int main(int argc, char** argv) {
  using namespace skinref::cli;
  keep_freed_memory_for_reuse();
  try {
    const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    const int status = dispatch(args);
    std::cout.flush();
    if (!std::cout) return report("writing to standard output failed");
    return status;
  } catch (const UsageError& error) {
    return report(error.what());
  } catch (const skinref::InputError& error) {
    return report(error.what());
  } catch (const std::exception& error) {
    // I/O and other failures: from the user's side these are bad input (an unwritable path, a full disk).
    return report(error.what());
  } catch (...) {
    return report("unknown error");
  }
}

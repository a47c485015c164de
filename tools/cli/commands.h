// The skinref subcommands, each declared in its own cmd_*.cc (command_decl.h), and the tool's exit statuses.
//
// Contract: a command's run function receives its parsed arguments (never with `help` set: main prints the
// help), writes its output file atomically (never a partial file), and reports every problem by throwing
// (cli::UsageError, skinref::InputError or another std::exception); main() turns those into one stderr line
// "skinref: <message>" and kExitBadInput.
#pragma once

#include "cli/command_decl.h"

#include <vector>

namespace skinref::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitComparisonFailed = 1;
inline constexpr int kExitBadInput = 2;

CommandDecl info_command();
CommandDecl pose_command();
CommandDecl skin_command();
CommandDecl export_command();
CommandDecl render_command();
CommandDecl devices_command();
CommandDecl compare_command();
CommandDecl bisect_command();
CommandDecl diagnose_command();
CommandDecl golden_command();
CommandDecl conformance_command();
CommandDecl shader_interface_command();

// Every command, in the order `skinref help` lists them.
const std::vector<CommandDecl>& all_commands();

}  // namespace skinref::cli

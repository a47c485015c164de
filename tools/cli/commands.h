// Entry points of the skinref subcommands, each in its own cmd_*.cc, and the tool's exit statuses.
//
// Contract: a command receives the arguments after its name, writes its output file atomically (never a
// partial file), prints its usage and returns kExitOk for --help, and reports every problem by throwing
// (cli::UsageError, skinref::InputError or another std::exception); main() turns those into one stderr
// line "skinref: <message>" and kExitBadInput.
#pragma once

#include <span>
#include <string>

namespace skinref::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitComparisonFailed = 1;
inline constexpr int kExitBadInput = 2;

int run_info(std::span<const std::string> args);
int run_pose(std::span<const std::string> args);
int run_skin(std::span<const std::string> args);
int run_export(std::span<const std::string> args);
int run_render(std::span<const std::string> args);
int run_devices(std::span<const std::string> args);
int run_compare(std::span<const std::string> args);
int run_bisect(std::span<const std::string> args);
int run_diagnose(std::span<const std::string> args);
int run_golden(std::span<const std::string> args);
int run_conformance(std::span<const std::string> args);
int run_shader_interface(std::span<const std::string> args);

// Usage text of each command (several lines, ending in a newline).
std::string info_usage();
std::string pose_usage();
std::string skin_usage();
std::string export_usage();
std::string render_usage();
std::string devices_usage();
std::string compare_usage();
std::string bisect_usage();
std::string diagnose_usage();
std::string golden_usage();
std::string conformance_usage();
std::string shader_interface_usage();

}  // namespace skinref::cli

// The skinref command line: dispatches to the subcommands and maps every error to one stderr line and an
// exit status (0 success, 1 comparison failed, 2 bad input or usage).
#include "cli/cli_args.h"
#include "cli/commands.h"

#include "core/input_error.h"

#include <malloc.h>

#include <algorithm>
#include <climits>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#ifndef SKINREF_VERSION
#define SKINREF_VERSION "0.1.0"
#endif

namespace skinref::cli {
namespace {

struct Command {
  const char* name;
  int (*run)(std::span<const std::string>);
  std::string (*usage)();
  const char* summary;
};

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands{
      {"info", run_info, info_usage, "describe a model's scenes, nodes, meshes, skins and animations"},
      {"pose", run_pose, pose_usage, "dump the evaluated pose (local, global, palettes) as JSON"},
      {"skin", run_skin, skin_usage, "dump skinned world-space vertices as .json, .skv or .ply"},
      {"export", run_export, export_usage, "write a model (e.g. builtin:NAME) as .gltf or .glb"},
      {"render", run_render, render_usage, "rasterize a posed model to a PNG (the reference image)"},
      {"devices", run_devices, devices_usage, "list the Vulkan devices that --device can select"},
      {"compare", run_compare, compare_usage, "compare two images: metrics, pass/fail, heat map"},
      {"bisect", run_bisect, bisect_usage, "the first pipeline stage where a float32 run leaves the reference"},
      {"diagnose", run_diagnose, diagnose_usage, "name the engine conventions that explain an engine's vertex dumps"},
      {"golden", run_golden, golden_usage, "regenerate (update) or check the golden images and dumps"},
      {"conformance", run_conformance, conformance_usage,
       "the conformance suite: generate it, or check that the committed one is current"},
      {"shader-interface", run_shader_interface, shader_interface_usage,
       "draft the interface JSON of a skinning vertex shader from its SPIR-V"},
  };
  return kCommands;
}

const Command* find_command(const std::string& name) {
  for (const Command& command : commands()) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

std::string general_usage() {
  std::string text =
      "usage: skinref COMMAND [ARGS...]\n"
      "       skinref help [COMMAND] | --help | --version\n"
      "MODEL is a .gltf/.glb path, an FBX, Collada or other file Assimp reads, or builtin:NAME.\n"
      "Commands:\n";
  // The summaries start in one column, two spaces after the longest name.
  size_t name_width = 0;
  for (const Command& command : commands()) name_width = std::max(name_width, std::string(command.name).size());
  for (const Command& command : commands()) {
    const std::string name = command.name;
    text += "  " + name + std::string(name_width + 2 - name.size(), ' ') + command.summary + "\n";
  }
  text +=
      "Run 'skinref COMMAND --help' for a command's options.\n"
      "Exit status: 0 success, 1 comparison failed, 2 bad input or usage (one line on stderr).\n";
  return text;
}

std::string unknown_command_message(const std::string& name) {
  std::string names;
  for (const Command& command : commands()) names += (names.empty() ? "" : ", ") + std::string(command.name);
  return "unknown command '" + name + "'; commands: " + names + " (see skinref --help)";
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
  if (first == "--help" || first == "-h") {
    std::cout << general_usage();
    return kExitOk;
  }
  if (first == "--version") {
    std::cout << "skinref " << SKINREF_VERSION << "\n";
    return kExitOk;
  }
  if (first == "help") {
    if (args.size() == 1) {
      std::cout << general_usage();
      return kExitOk;
    }
    if (args.size() > 2) throw UsageError("help: expected at most one COMMAND");
    const Command* command = find_command(args[1]);
    if (command == nullptr) throw UsageError(unknown_command_message(args[1]));
    std::cout << command->usage();
    return kExitOk;
  }
  const Command* command = find_command(first);
  if (command == nullptr) throw UsageError(unknown_command_message(first));
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  return command->run(rest);
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

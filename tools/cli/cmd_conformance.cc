// `skinref conformance generate|check`: the conformance suite (conformance/suite.h). This file parses the
// command line and prints; the suite is the conformance layer's.
// Exit: 0 done (check: the folder equals the generator's output), 1 check found a difference, 2 usage.
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "conformance/suite.h"

#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#ifndef SKINREF_CONFORMANCE_DIR
#error "SKINREF_CONFORMANCE_DIR must name the source tree's conformance folder (set by CMakeLists.txt)"
#endif

namespace skinref::cli {
std::string conformance_usage() {
  return "usage: skinref conformance generate [--suite DIR]\n"
         "       skinref conformance check [--suite DIR]\n"
         "  The conformance suite: one small glTF file per rule of glTF 2.0 on skins, animation and morph targets,\n"
         "  each with the reference's outputs at its times and the bounds a correct float32 engine stays within\n"
         "  (docs/conformance.md). Layout: DIR/suite.json, DIR/cases/ID/ID.gltf, ID.bin and expected.json.\n"
         "  generate  writes the suite from its generator (every file atomically) and prints, per case and\n"
         "            departure class, the error/bound that planting the departure reaches\n"
         "  check     regenerates the suite in memory and compares it with DIR byte for byte\n"
         "  --suite DIR  the suite's folder (default " SKINREF_CONFORMANCE_DIR ")\n"
         "  Exit status: 0 done or equal, 1 check found a difference (listed), 2 usage.\n";
}

namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string joined;
  for (const std::string& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  return joined;
}

void print_sensitivities(const conformance::GeneratedSuite& suite, std::ostream& out) {
  size_t planted = 0, below_minimum = 0;
  for (const conformance::GeneratedCase& c : suite.cases)
    for (const conformance::Sensitivity& s : c.sensitivities) {
      std::ostringstream line;
      line << "  " << std::left << std::setw(40) << c.definition->id << " " << std::setw(3) << s.departure << " ";
      if (s.conventions.empty()) {
        line << "not yet planted (no convention names it)";
      } else {
        ++planted;
        if (s.ratio < conformance::kMinimumSensitivity) ++below_minimum;
        line << std::setw(44) << join(s.conventions) << " error/bound " << std::scientific << std::setprecision(2)
             << s.ratio << " at t = " << std::defaultfloat << s.time << " (" << s.attribute << " " << s.vertex << ")";
        if (!s.below_minimum_reason.empty()) line << "\n      below " << conformance::kMinimumSensitivity << ": "
                                                  << s.below_minimum_reason;
      }
      out << line.str() << "\n";
    }
  out << "conformance: " << suite.cases.size() << " cases, " << planted << " planted departures, " << below_minimum
      << " below error/bound " << conformance::kMinimumSensitivity << "\n";
}

std::optional<std::string> parse_suite_dir(std::span<const std::string> args, const std::string& command) {
  static const std::vector<OptionSpec> kOptions{{"--suite", true}};
  const ParsedArgs parsed = parse_args(args, kOptions, command);
  if (parsed.help) {
    std::cout << conformance_usage();
    return std::nullopt;
  }
  require_positionals(parsed, 0, "no arguments", command);
  return parsed.value("--suite").value_or(SKINREF_CONFORMANCE_DIR);
}

int run_conformance_generate(std::span<const std::string> args) {
  const std::optional<std::string> dir = parse_suite_dir(args, "conformance generate");
  if (!dir) return kExitOk;
  const conformance::GeneratedSuite suite = conformance::generate_suite();
  conformance::write_suite(suite, *dir);
  print_sensitivities(suite, std::cout);
  std::cout << "conformance: wrote " << suite.files.size() << " files under " << *dir << "\n";
  return kExitOk;
}

int run_conformance_check(std::span<const std::string> args) {
  const std::optional<std::string> dir = parse_suite_dir(args, "conformance check");
  if (!dir) return kExitOk;
  const conformance::GeneratedSuite suite = conformance::generate_suite();
  const std::vector<std::string> differences = conformance::check_suite(suite, *dir);
  for (const std::string& difference : differences) std::cout << *dir << "/" << difference << "\n";
  if (!differences.empty()) {
    std::cout << "conformance: " << differences.size() << " files differ from the generator's output; "
              << "run skinref conformance generate and commit the result\n";
    return kExitComparisonFailed;
  }
  std::cout << "conformance: " << suite.files.size() << " files under " << *dir << " equal the generator's\n";
  return kExitOk;
}

}  // namespace

int run_conformance(std::span<const std::string> args) {
  if (args.empty()) throw UsageError("conformance: expected 'generate' or 'check' (see skinref conformance --help)");
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << conformance_usage();
    return kExitOk;
  }
  const std::span<const std::string> rest = args.subspan(1);
  if (args[0] == "generate") return run_conformance_generate(rest);
  if (args[0] == "check") return run_conformance_check(rest);
  throw UsageError("conformance: unknown subcommand '" + args[0] + "'; expected generate or check");
}

}  // namespace skinref::cli

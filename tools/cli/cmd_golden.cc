// `skinref golden update|check`: the golden images and dumps of golden/manifest.json (golden_manifest.h,
// golden/README.md). This file parses the command line; the work is golden/golden_update.h and
// golden/golden_check.h.
// Exit: 0 all pass (skips allowed), 1 any failure, 2 bad manifest, usage or a case that cannot be set up (an
// unknown animation or joint, an unreadable recipe).
#include "cli/backend_args.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "golden/golden_case.h"
#include "golden/golden_check.h"
#include "golden/golden_update.h"

#include <iostream>
#include <optional>

#ifndef SKINREF_GOLDEN_DIR
#error "SKINREF_GOLDEN_DIR must name the source tree's golden folder (set by CMakeLists.txt)"
#endif
#ifndef SKINREF_CORPUS_DIR
#error "SKINREF_CORPUS_DIR must name the default corpus folder (set by CMakeLists.txt)"
#endif

namespace skinref::cli {
std::string golden_usage() {
  return "usage: skinref golden update [--filter GLOB] [--golden-dir DIR] [--threads N]\n"
         "       skinref golden check --backend reference|cpu|vulkan [--filter GLOB] [--golden-dir DIR]\n"
         "                            [--report DIR] [--device NAME|INDEX] [--validate] [--threads N]\n"
         "                            [--shader FILE --interface FILE.json] [--junit FILE.xml] [--shard I/N]\n"
         "  The golden images and dumps listed in DIR/manifest.json (default: the source tree's golden/ folder;\n"
         "  format and policy in its README.md), under DIR/cases/NAME/tTIME.png, .skv (f64), .pose.json.\n"
         "  update  regenerates them from the reference (cases in parallel, every file written atomically);\n"
         "          do it deliberately, and look at the images before committing them\n"
         "  check   computes every output with the backend and compares: reference bit for bit; vulkan the whole\n"
         "          GPU pipeline (animation pass, skinning, rendering) with the image within the case's\n"
         "          tolerance and the pose and vertices within their derived float32 bounds; cpu the fast float32\n"
         "          CPU backend's vertices (the reference's pose) within those bounds and the reference rasterizer's\n"
         "          image within the vulkan image tolerance. A missing golden is a failure. On a failure it names\n"
         "          the first diverging stage and where.\n"
         "  --filter GLOB       only the cases whose names match (shell pattern, e.g. 'twist-*'); must match one\n"
         "  --golden-dir DIR    the golden folder (default " SKINREF_GOLDEN_DIR ")\n"
         "  --threads N         cases run at once, 1 to 1024 (default: the hardware threads; vulkan: 1)\n"
         "  --report DIR        check: write DIR/index.html (golden, actual and difference images, metrics, stage)\n"
         "  --device, --validate  the Vulkan device and validation layer (see skinref render --help)\n"
         "  --shader, --interface  vulkan: your own skinning shader in place of skinref's (see skinref skin --help),\n"
         "                      its vertices held to the any-order bounds; cases of another method or with more\n"
         "                      influences than it reads are skipped, each with its reason\n"
         "  --junit FILE        check: also write a JUnit XML report, one test case per golden case, for CI\n"
         "                      dashboards (Jenkins, GitLab, GitHub, Azure)\n"
         "  --shard I/N         check: only the cases k of the selection with k mod N = I (0-based), so that N\n"
         "                      machines share the check; default from GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS, else\n"
         "                      Bazel's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS\n"
         "  On a terminal a progress line shows the cases done; nothing extra when the output is not a terminal.\n"
         "  Corpus cases (model corpus:PATH, the corpus from SKINREF_CORPUS_DIR or " SKINREF_CORPUS_DIR ")\n"
         "  are skipped with a line 'SKIPPED: corpus not found ...' when it is absent.\n"
         "  Exit status: 0 every output passed (skips allowed), 1 any failed or is missing, 2 bad manifest or usage.\n";
}

namespace {

// The subcommand's options (no positional argument), or nullopt once --help has printed the usage.
std::optional<ParsedArgs> parse_golden_args(std::span<const std::string> args, std::span<const OptionSpec> options,
                                            const std::string& command) {
  ParsedArgs parsed = parse_args(args, options, command);
  if (parsed.help) {
    std::cout << golden_usage();
    return std::nullopt;
  }
  require_positionals(parsed, 0, "no arguments", command);
  return parsed;
}

int run_golden_update(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--filter", true}, {"--golden-dir", true}, {"--threads", true}};
  const std::optional<ParsedArgs> options = parse_golden_args(args, kOptions, "golden update");
  if (!options) return kExitOk;
  const ParsedArgs& parsed = *options;
  golden::GoldenUpdateSettings settings;
  settings.golden_dir = parsed.value("--golden-dir").value_or(SKINREF_GOLDEN_DIR);
  settings.filter = parsed.value("--filter");
  settings.threads = golden::default_threads();
  if (const std::optional<std::string> text = parsed.value("--threads"))
    settings.threads = int(parse_integer(*text, "--threads", 1, golden::kMaxGoldenThreads));
  golden::update_goldens(settings);
  return kExitOk;
}

int run_golden_check(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--backend", true},    {"--filter", true}, {"--golden-dir", true},
                                                {"--report", true},     {"--device", true}, {"--validate", false},
                                                {"--threads", true},    {"--shader", true}, {"--interface", true},
                                                {"--junit", true},      {"--shard", true}};
  const std::optional<ParsedArgs> options = parse_golden_args(args, kOptions, "golden check");
  if (!options) return kExitOk;
  const ParsedArgs& parsed = *options;
  golden::GoldenCheckSettings settings;
  require_value(parsed, "--backend", "golden check");
  const bool cpu = parse_backend_kind(*parsed.value("--backend")) == BackendKind::Cpu;
  // The backend options as the other commands check them; the GPU pose: the whole pipeline on the GPU.
  settings.backend = parse_backend(parsed, PoseSelection{}, "golden check", !cpu);
  const bool vulkan = settings.backend.kind == BackendKind::Vulkan;
  settings.golden_dir = parsed.value("--golden-dir").value_or(SKINREF_GOLDEN_DIR);
  settings.filter = parsed.value("--filter");
  settings.report_dir = parsed.value("--report");
  settings.junit_path = parsed.value("--junit");
  settings.threads = vulkan ? 1 : golden::default_threads();
  if (const std::optional<std::string> text = parsed.value("--threads")) {
    settings.threads = int(parse_integer(*text, "--threads", 1, golden::kMaxGoldenThreads));
    if (vulkan && settings.threads != 1)
      throw UsageError("golden check: --backend vulkan checks one case at a time (--threads 1)");
  }
  settings.shard = parse_shard(parsed, "golden check");
  settings.command_line = "skinref golden check";
  for (const std::string& arg : args) settings.command_line += " " + arg;
  switch (golden::check_goldens(settings)) {
    case golden::GoldenCheckOutcome::AllPassed: return kExitOk;
    case golden::GoldenCheckOutcome::SomeFailed: return kExitComparisonFailed;
    case golden::GoldenCheckOutcome::SetupError: return kExitBadInput;
  }
  return kExitBadInput;  // not reached: every outcome is named above
}

}  // namespace

int run_golden(std::span<const std::string> args) {
  if (args.empty()) throw UsageError("golden: expected 'update' or 'check' (see skinref golden --help)");
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << golden_usage();
    return kExitOk;
  }
  const std::span<const std::string> rest = args.subspan(1);
  if (args[0] == "update") return run_golden_update(rest);
  if (args[0] == "check") return run_golden_check(rest);
  throw UsageError("golden: unknown subcommand '" + args[0] + "'; expected update or check");
}

}  // namespace skinref::cli


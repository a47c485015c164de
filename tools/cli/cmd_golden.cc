// `skinref golden update|check`: the golden images and dumps of golden/manifest.json (golden_manifest.h,
// golden/README.md). This file parses the command line; the work is golden/golden_update.h and
// golden/golden_check.h.
// Exit: 0 all pass (skips allowed), 1 any failure, 2 bad manifest, usage or a case that cannot be set up (an
// unknown animation or joint, an unreadable recipe).
#include "cli/backend_args.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/option_groups.h"
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
namespace {

int run_golden_update(const ParsedArgs& parsed) {
  require_positionals(parsed, 0, "no arguments", "golden update");
  golden::GoldenUpdateSettings settings;
  settings.golden_dir = parsed.value("--golden-dir").value_or(SKINREF_GOLDEN_DIR);
  settings.filter = parsed.value("--filter");
  settings.threads = golden::default_threads();
  if (const std::optional<std::string> text = parsed.value("--threads"))
    settings.threads = int(parse_integer(*text, "--threads", 1, golden::kMaxGoldenThreads));
  golden::update_goldens(settings);
  return kExitOk;
}

int run_golden_check(const ParsedArgs& parsed) {
  require_positionals(parsed, 0, "no arguments", "golden check");
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
  for (const std::string& arg : parsed.arguments) settings.command_line += " " + arg;
  switch (golden::check_goldens(settings)) {
    case golden::GoldenCheckOutcome::AllPassed: return kExitOk;
    case golden::GoldenCheckOutcome::SomeFailed: return kExitComparisonFailed;
    case golden::GoldenCheckOutcome::SetupError: return kExitBadInput;
  }
  return kExitBadInput;  // not reached: every outcome is named above
}

// The options both subcommands take.
std::vector<OptionDecl> golden_selection_options() {
  return {
      {"--filter", "GLOB", "Only the cases whose names match (a shell pattern, e.g. 'twist-*'); it must match one."},
      {"--golden-dir", "DIR", "The golden folder; default: the source tree's golden/ (where skinref was built)."},
      {"--threads", "N", "Cases run at once, 1 to 1024; default: the hardware threads (vulkan: 1)."},
  };
}

CommandDecl golden_update_command() {
  return {"golden update",
          "regenerate the golden images and dumps from the reference",
          {"[--filter GLOB] [--golden-dir DIR] [--threads N]"},
          "Regenerates the goldens listed in DIR/manifest.json from the reference (cases in parallel, every file "
          "written atomically). Do it deliberately, and look at the images before committing them.",
          golden_selection_options(),
          run_golden_update};
}

CommandDecl golden_check_command() {
  const std::vector<OptionDecl> backend = backend_options(BackendUse::Skinning);
  OptionDecl backend_choice = backend.front();  // --backend, its choices from kBackendKinds
  backend_choice.help = "The backend that computes every output; required.";
  backend_choice.default_value.clear();
  std::vector<OptionDecl> own{
      backend_choice,
      {"--report", "DIR", "Write DIR/index.html: golden, actual and difference images, metrics, the stage."},
      {"--junit", "FILE.xml", "Also write a JUnit XML report, one test case per golden case, for CI dashboards "
                              "(Jenkins, GitLab, GitHub, Azure)."},
      {"--shard", "I/N", "Only the cases k of the selection with k mod N = I (0-based), so that N machines share the "
                         "check; default from GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS, else Bazel's "
                         "TEST_SHARD_INDEX/TEST_TOTAL_SHARDS."},
  };
  std::vector<OptionDecl> vulkan;
  for (const OptionDecl& option : backend)
    if (option.name == "--device" || option.name == "--validate" || option.name == "--shader" || option.name == "--interface")
      vulkan.push_back(option);
  return {"golden check",
          "check every golden against a backend's outputs",
          {"--backend " + backend_choice.value + " [--filter GLOB] [--golden-dir DIR] [--report DIR] [OPTIONS]"},
          "Computes every output with the backend and compares: reference bit for bit; vulkan the whole GPU "
          "pipeline (animation pass, skinning, rendering) with the image within the case's tolerance and the pose "
          "and vertices within their derived float32 bounds; cpu the fast float32 CPU backend's vertices (the "
          "reference's pose) within those bounds and the reference rasterizer's image within the vulkan image "
          "tolerance. A missing golden is a failure. On a failure it names the first diverging stage and where. "
          "With --shader, the user shader's vertices are held to the any-order bounds; cases of another method or "
          "with more influences than it reads are skipped, each with its reason.\n"
          "On a terminal a progress line shows the cases done. Corpus cases (model corpus:PATH, the corpus from "
          "SKINREF_CORPUS_DIR, else the corpus folder CMake was configured with, ../shared/corpus beside the source "
          "tree by default) are skipped with a line 'SKIPPED: corpus not found ...' "
          "when it is absent.\n"
          "Exit status: 0 every output passed (skips allowed), 1 any failed or is missing, 2 bad manifest or usage.",
          joined(std::move(own), {golden_selection_options(), vulkan}),
          run_golden_check};
}

}  // namespace

CommandDecl golden_command() {
  CommandDecl command{"golden", "regenerate (update) or check the golden images and dumps", {}, "", {}, nullptr, {}};
  command.description =
      "The golden images and dumps listed in DIR/manifest.json (default: the source tree's golden/ folder; format "
      "and policy in its README.md), under DIR/cases/NAME/tTIME.png, .skv (f64), .pose.json.";
  command.subcommands = {golden_update_command(), golden_check_command()};
  return command;
}

}  // namespace skinref::cli


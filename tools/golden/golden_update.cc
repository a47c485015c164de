// `skinref golden update`: every selected case is evaluated by the reference at each of its times and written
// to GOLDEN_DIR/cases/NAME/<stem>.png, .skv (f64) and .pose.json; a case's files are staged in temporaries and
// renamed together once all were written, so an interrupted update leaves every golden file whole (old or
// new). Cases run in parallel (--threads); leftovers in a case's folder (outputs of times no longer listed,
// temporaries of an interrupted run) are removed once the case's files are in place.
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "golden/golden_case.h"

#include "core/atomic_file.h"
#include "io/image_io.h"
#include "backend/backend.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <set>
#include <memory>
#include <stdexcept>
#include <thread>

#ifndef SKINREF_GOLDEN_DIR
#error "SKINREF_GOLDEN_DIR must name the source tree's golden folder (set by CMakeLists.txt)"
#endif

namespace skinref::cli {
namespace {

namespace fs = std::filesystem;

// Writes every output of one case; returns a line for the log.
std::string update_case(const GoldenCase& golden_case, const std::string& golden_dir) {
  const PreparedCase prepared = prepare_case(golden_case, golden_dir);
  const std::unique_ptr<Backend> reference = make_backend(BackendKind::Reference);
  const fs::path dir = case_dir(golden_dir, golden_case);
  fs::create_directories(dir);
  StagedFiles staged;  // renamed together once every file was written; removed on any failure
  std::set<std::string> outputs;
  auto stage = [&](const std::string& name, const std::function<void(const std::string&)>& write) {
    outputs.insert(name);
    staged.stage((dir / name).string(), write);
  };
  for (const double time : golden_case.times) {
    const std::string stem = golden_output_stem(time);
    // The goldens are the reference's outputs, through the same Backend interface that `golden check` uses.
    const CaseOutputs outputs = evaluate_case(prepared, *reference, time);
    const EvaluatedPose& pose = outputs.pose;
    const std::vector<WorldPrimitive>& vertices = outputs.vertices;
    const RenderResult& rendered = outputs.rendered;
    stage(stem + ".png", [&](const std::string& path) { write_png(rendered.image, path); });
    if (golden_case.dumps) {
      const std::string skv = skv_bytes(vertices), json = pose_bytes(prepared.scene, pose);
      stage(stem + ".skv", [&](const std::string& path) {
        write_file_atomically(path, [&](std::ostream& out) { out << skv; });
      });
      stage(stem + ".pose.json", [&](const std::string& path) {
        write_file_atomically(path, [&](std::ostream& out) { out << json; });
      });
    }
  }
  staged.commit_all();
  // Leftovers: outputs of times no longer listed, or temporaries of an interrupted run.
  std::vector<std::string> removed;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && outputs.count(name) == 0) {
      fs::remove(entry.path());
      removed.push_back(name);
    }
  }
  std::string line = "wrote " + (fs::path("cases") / golden_case.name).string() + ": " + std::to_string(outputs.size()) +
                     " files (" + std::to_string(golden_case.times.size()) +
                     (golden_case.times.size() == 1 ? " time)" : " times)");
  if (!removed.empty()) {
    line += "; removed";
    for (const std::string& name : removed) line += " " + name;
  }
  return line;
}

}  // namespace

int run_golden_update(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--filter", true}, {"--golden-dir", true}, {"--threads", true}};
  const ParsedArgs parsed = parse_args(args, kOptions, "golden update");
  if (parsed.help) {
    std::cout << golden_usage();
    return kExitOk;
  }
  require_positionals(parsed, 0, "no arguments", "golden update");
  const std::string golden_dir = parsed.value("--golden-dir").value_or(SKINREF_GOLDEN_DIR);
  int threads = default_threads();
  if (const std::optional<std::string> text = parsed.value("--threads")) {
    threads = int(parse_integer(*text, "--threads", 1, kMaxGoldenThreads));
  }
  const GoldenManifest manifest = load_golden_manifest(golden_manifest_path(golden_dir));
  const std::vector<const GoldenCase*> cases = select_cases(manifest, parsed.value("--filter"));

  const auto start = std::chrono::steady_clock::now();
  const bool terminal = isatty(STDOUT_FILENO) == 1;
  const bool corpus = fs::is_directory(corpus_dir());
  std::mutex output_mutex;
  std::atomic<size_t> next{0};
  size_t done = 0, skipped = 0;
  std::vector<std::string> errors(cases.size());
  auto print = [&](const std::string& line) {  // under output_mutex
    if (terminal) std::cout << "\r\033[K";
    std::cout << line << "\n";
  };
  auto worker = [&] {
    for (size_t i = next++; i < cases.size(); i = next++) {
      const GoldenCase& golden_case = *cases[i];
      std::string line;
      bool skip = false;
      if (golden_case.corpus() && !corpus) {
        line = corpus_skip_line(golden_case, "keeps its goldens");
        skip = true;
      } else {
        try {
          line = update_case(golden_case, golden_dir);
        } catch (const std::exception& error) {
          errors[i] = golden_case.name + ": " + error.what();
          line = "error: case " + errors[i];
        }
      }
      const std::lock_guard<std::mutex> lock(output_mutex);
      ++done;
      skipped += skip ? 1 : 0;
      // A progress line on a terminal; one line per case in a log.
      if (terminal) {
        if (skip || !errors[i].empty()) print(line);
        std::cout << "\r\033[K[" << done << "/" << cases.size() << "] " << golden_case.name << std::flush;
      } else {
        print(line);
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t workers = std::min<size_t>(size_t(threads), cases.size());
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  if (terminal) std::cout << "\r\033[K";

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string failures;
  size_t failed = 0;
  for (const std::string& error : errors) {
    if (error.empty()) continue;
    ++failed;
    failures += (failures.empty() ? "" : "; ") + error;
  }
  std::cout << "golden update: " << (cases.size() - skipped - failed) << " cases written, " << skipped << " skipped, "
            << failed << " failed, into " << golden_dir << " in " << format("%.1f", seconds) << " s (" << threads
            << " threads); look at the images before committing them\n";
  if (failed > 0) throw std::runtime_error("golden update: " + std::to_string(failed) + " cases failed: " + failures);
  return kExitOk;
}

}  // namespace skinref::cli

// `skinref golden update`: every selected case is evaluated by the reference at each of its times and written
// to GOLDEN_DIR/cases/NAME/<stem>.png, .skv (f64) and .pose.json. The whole set is staged: GOLDEN_DIR/cases is
// first copied as hard links into the sibling GOLDEN_DIR/.cases-staging (so that cases outside --filter keep
// their files), the selected cases are written there (each file to a temporary, then renamed, which replaces
// a link without touching the committed file), and the staging folder is then swapped with cases/ in one step
// (renameat2 RENAME_EXCHANGE) and the old set removed. A kill at any moment (SIGKILL included) leaves cases/
// holding either the old set or the complete new one; the next run removes a leftover staging or old folder
// first, and nothing ever reads them as goldens. Cases run in parallel (--threads); leftovers in a case's
// folder (outputs of times no longer listed) are removed in the staged set.
#include "golden/golden_update.h"

#include "golden/golden_case.h"

#include "core/atomic_file.h"
#include "core/fan_out.h"
#include "io/image_io.h"
#include "backend/backend.h"

#include <fcntl.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc 2.28)
#include <unistd.h>

#include <cerrno>
#include <cstring>

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


namespace skinref::golden {
namespace {

namespace fs = std::filesystem;

// The staged set and, for the fallback where RENAME_EXCHANGE is not supported, the old set during the swap.
fs::path staging_dir(const std::string& golden_dir) { return fs::path(golden_dir) / ".cases-staging"; }
fs::path old_dir(const std::string& golden_dir) { return fs::path(golden_dir) / ".cases-old"; }
fs::path cases_dir(const std::string& golden_dir) { return fs::path(golden_dir) / "cases"; }

// What an interrupted update left: a staging folder (never complete as far as anyone knows: removed), or the
// fallback swap's old folder (cases/ restored from it when the kill came between its two renames).
void clean_up_interrupted_update(const std::string& golden_dir) {
  const fs::path cases = cases_dir(golden_dir), old = old_dir(golden_dir), staging = staging_dir(golden_dir);
  if (!fs::exists(cases) && fs::exists(old)) fs::rename(old, cases);
  fs::remove_all(old);
  fs::remove_all(staging);
}

// The staging folder as a copy of cases/ made of hard links (a plain copy where links are refused).
void stage_current_set(const std::string& golden_dir) {
  const fs::path cases = cases_dir(golden_dir), staging = staging_dir(golden_dir);
  fs::create_directories(staging);
  if (!fs::exists(cases)) return;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(cases)) {
    const fs::path target = staging / fs::relative(entry.path(), cases);
    if (entry.is_directory()) {
      fs::create_directories(target);
    } else if (entry.is_regular_file()) {
      std::error_code error;
      fs::create_hard_link(entry.path(), target, error);
      if (error) fs::copy_file(entry.path(), target);
    }
  }
}

// Swaps the staged set in: one renameat2(RENAME_EXCHANGE) where the file system supports it, else two renames
// (cases/ -> .cases-old, staging -> cases/) that clean_up_interrupted_update() completes after a kill.
void swap_in_staged_set(const std::string& golden_dir) {
  const fs::path cases = cases_dir(golden_dir), old = old_dir(golden_dir), staging = staging_dir(golden_dir);
  if (!fs::exists(cases)) {
    fs::rename(staging, cases);
    return;
  }
  if (renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, cases.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(staging);  // now the old set
    return;
  }
  if (errno != EINVAL && errno != ENOSYS)
    throw std::runtime_error("golden update: cannot swap " + staging.string() + " with " + cases.string() + ": " +
                             std::strerror(errno));
  fs::rename(cases, old);
  fs::rename(staging, cases);
  fs::remove_all(old);
}

// Writes every output of one case into the staged set; returns a line for the log.
std::string update_case(const GoldenCase& golden_case, const std::string& golden_dir) {
  const PreparedCase prepared = prepare_case(golden_case, golden_dir);
  const std::unique_ptr<Backend> reference = make_backend(BackendKind::Reference);
  const fs::path dir = staging_dir(golden_dir) / golden_case.name;
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

void update_goldens(const GoldenUpdateSettings& settings) {
  const std::string& golden_dir = settings.golden_dir;
  const int threads = settings.threads;
  const GoldenManifest manifest = load_golden_manifest(golden_manifest_path(golden_dir));
  const std::vector<const GoldenCase*> cases = select_cases(manifest, settings.filter);

  const auto start = std::chrono::steady_clock::now();
  clean_up_interrupted_update(golden_dir);
  stage_current_set(golden_dir);
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
  run_concurrently(std::min<size_t>(size_t(threads), cases.size()), worker);
  if (terminal) std::cout << "\r\033[K";
  // Failed cases kept their old files in the staged set, as before: the others' new files go in all at once.
  swap_in_staged_set(golden_dir);

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
}

}  // namespace skinref::golden

// The conformance runner: drives an engine, a black box behind a command line, over the suite's queries (one
// per case and time), and records how each query ended. What the engine wrote is judged afterwards
// (verdict.h).
//
// Contract:
// - Two protocols (docs/conformance.md, "The adapter contract"):
//   - per query: `query_command` with the placeholders {model} (the case's .gltf, absolute), {animation} (its
//     index, 0), {time} (seconds, the shortest decimal that reads back as the query's float32 time), {out}
//     (the .skv to write) and {case}; each substituted value is shell-quoted. Queries run `jobs` at a time.
//   - batch: `batch_command` with {queries}, a JSON file {"format": "skinref-conformance-queries",
//     "version": 1, "queries": [{"case", "model", "animation", "time", "out"}, ...]}; one process writes them
//     all, for engines with a costly start-up. Its time limit is the per-query limit times the queries.
// - Every process runs under its time limit in its own process group (engine_process.h). A query is "ok"
//   when its process exited 0 and its dump exists; otherwise its status says what happened ("exit 3",
//   "killed by signal 11 (Segmentation fault)", "timed out after 30 s", "no output"). Nothing an engine does
//   stops the run.
// - Layout under `out_dir`: dumps/CASE/tTIME.skv, logs/CASE/tTIME.log (batch: logs/batch.log), run.json (the
//   engine's name, version and commands, and every query's status and seconds), rewritten atomically after
//   each query so that an interrupted run can resume: with `resume`, queries that were ok and whose dump is
//   still there are not run again.
#pragma once

#include "conformance/conformance_case.h"
#include "conformance/queries_file.h"

#include <string>
#include <vector>

namespace skinref::conformance {

struct EngineSpec {
  std::string name;
  std::string version;
  std::string query_command;
  std::string batch_command;
  double timeout_seconds = 60.0;
  int jobs = 1;
};

struct QueryResult {
  Query query;
  std::string status;  // "ok", or what went wrong
  double seconds = 0.0;
  bool ok() const { return status == "ok"; }
};

struct RunRecord {
  EngineSpec engine;
  std::vector<QueryResult> results;
};

// The shortest decimal that reads back as `time` ("0.5", "1.25", "0.515625").
std::string time_text(double time);

// One query per case (those whose id matches `filter`, a shell pattern; empty: all) and time, with the
// case's model under `suite_dir` and its outputs under `out_dir`.
std::vector<Query> suite_queries(const std::string& suite_dir, const std::string& out_dir, const std::string& filter);

RunRecord run_engine(const EngineSpec& engine, const std::vector<Query>& queries, const std::string& out_dir,
                     bool resume);

// The run.json of a run under `out_dir`, read back (skinref conformance report judges it again); InputError
// when it is missing or not one.
RunRecord read_run_record(const std::string& out_dir);

}  // namespace skinref::conformance

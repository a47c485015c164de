// The conformance runner: drives an engine, a black box behind a command line, over the suite's queries (one
// per case and time), and records how each query ended. What the engine wrote is judged afterwards
// (verdict.h). Nothing the engine does loses the record or fools the verdict (docs/conformance.md, "The
// runner's guarantees").
//
// Contract:
// - Two protocols (docs/conformance.md, "The adapter contract"):
//   - per query: `query_command` with the placeholders {model} (the query's own copy of the case's .gltf,
//     absolute), {animation} (its index, 0), {time} (seconds, the shortest decimal that reads back as the
//     query's float32 time), {out} (the .skv to write) and {case}; each substituted value is shell-quoted, and a
//     template with a placeholder inside quotes is refused (engine_process/command_template.h). Queries run
//     `jobs` at a time, each in its working folder.
//   - batch: `batch_command` with {queries}, a JSON file {"format": "skinref-conformance-queries",
//     "version": 1, "queries": [{"case", "model", "animation", "time", "out"}, ...]}; one process writes them
//     all, for engines with a costly start-up. Its time limit is the per-query limit times the queries.
// - Every process runs under its time limit in its own process group (engine_process/engine_process.h), and
//   what it leaves outside the group is killed at its end. A query is "ok" when its process exited 0 and its
//   dump is a regular file; otherwise its status says what happened ("exit 3", "killed by signal 11
//   (Segmentation fault)", "timed out after 30 s", "no output", "could not start: ..." when its log, output
//   folder or working copy cannot be made). Nothing an engine does stops the run.
// - Inputs: with `suite_dir`, the suite's input hashes are read from its suite.json and every input is checked
//   against them before the run starts (InputError when one differs); each query with a `work` folder gets its
//   own read-only copy there (query_inputs.h), and the record keeps the hashes for the verdict.
// - Layout under `out_dir`: dumps/CASE/tTIME.skv, logs/CASE/tTIME.log (batch: logs/batch.log),
//   work/CASE/tTIME/ (the copies), run.json (run_record.h), rewritten atomically after each query. If
//   `out_dir` is removed during the run, run_engine() throws InputError once its queries have ended.
// - resume: queries that were ok and whose dump is still there are not run again, when the previous run.json
//   is of the same engine (name, version, commands) and the same inputs; another engine is an InputError naming
//   what changed, unless `force_new_engine`, which starts over; other inputs start over.
// - Stopping: when a stop signal arrives (engine_process/stop_signals.h), the running queries are killed at
//   once, no query starts, and the record is written with the rest "not run (stopped by SIGINT to the runner)"
//   and `stopped_by` set.
#pragma once

#include "conformance/conformance_case.h"
#include "conformance/queries_file.h"
#include "conformance/run_record.h"

#include <string>
#include <vector>

namespace skinref::conformance {

struct RunOptions {
  bool resume = false;
  bool force_new_engine = false;
  std::string suite_dir;  // "": the queries read their models where they are, unchecked
};

// The status of a query that did not run, and whether a status is one.
constexpr const char* kNotRun = "not run";
bool is_not_run(const std::string& status);
// The status of a query the runner could not start (its log, output folder or copy could not be made).
bool is_could_not_start(const std::string& status);

// The shortest decimal that reads back as `time` ("0.5", "1.25", "0.515625").
std::string time_text(double time);

// One query per case (those whose id matches `filter`, a shell pattern; empty: all) and time, with the
// case's model under `suite_dir` and its outputs and working folder under `out_dir`.
std::vector<Query> suite_queries(const std::string& suite_dir, const std::string& out_dir, const std::string& filter);

RunRecord run_engine(const EngineSpec& engine, const std::vector<Query>& queries, const std::string& out_dir,
                     const RunOptions& options);

// The run.json of a run under `out_dir`, read back (skinref conformance report judges it again); InputError
// when it is missing or not one.
RunRecord read_run_record(const std::string& out_dir);

// The placeholders of each protocol, for checking a template before a run.
const std::vector<std::string>& query_placeholders();
const std::vector<std::string>& batch_placeholders();

}  // namespace skinref::conformance

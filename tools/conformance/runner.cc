#include "conformance/runner.h"

#include "conformance/query_inputs.h"
#include "core/atomic_file.h"
#include "core/fan_out.h"
#include "core/input_error.h"
#include "engine_process/command_template.h"
#include "engine_process/engine_process.h"
#include "engine_process/safe_text.h"
#include "engine_process/stop_signals.h"
#include "engine_process/stray_processes.h"

#include <fnmatch.h>

#include <atomic>
#include <charconv>
#include <exception>
#include <filesystem>
#include <mutex>

namespace skinref::conformance {
namespace {

namespace fs = std::filesystem;
using engine_process::ProcessEnd;
using engine_process::ProcessOutcome;

// Writes the record; InputError when the run's folder is gone (an engine removed it, or the user did).
void save_record(const RunRecord& record, const std::string& out_dir) {
  std::error_code error;
  if (!fs::is_directory(out_dir, error))
    throw InputError(out_dir, "", "the run's folder, which was removed while the run went on; nothing more is written");
  const std::string text = run_record_text(record);
  write_file_atomically((fs::path(out_dir) / "run.json").string(), [&text](std::ostream& out) { out << text; });
}

std::string stopped_status(int signal) {
  ProcessOutcome stopped;
  stopped.end = ProcessEnd::Stopped;
  stopped.code = signal;
  return std::string(kNotRun) + " (" + engine_process::describe_outcome(stopped, 0) + ")";
}

// The previous run's ok queries whose dump is still there, when it was the same engine on the same inputs.
std::vector<bool> already_done(const EngineSpec& engine, const RunRecord& record, const RunOptions& options,
                               const std::string& out_dir, std::vector<QueryResult>& results) {
  std::vector<bool> done(results.size(), false);
  const std::string path = (fs::path(out_dir) / "run.json").string();
  RunRecord previous;
  try {
    previous = read_run_record_file(path);
  } catch (const InputError&) {
    return done;  // none, or unreadable: everything runs again
  }
  const std::vector<std::string> changes = engine_changes(previous.engine, engine);
  if (!changes.empty() && !options.force_new_engine) {
    std::string said;
    for (const std::string& change : changes) said += (said.empty() ? "" : "; ") + change;
    throw InputError(path, "/engine", "the engine that made the run, to resume it: " + said +
                                          " (run again without --resume, or add --force-new-engine to start over)");
  }
  if (!changes.empty() || previous.inputs != record.inputs) return done;
  for (const QueryResult& q : previous.results)
    for (size_t i = 0; i < results.size(); ++i) {
      std::error_code error;
      if (q.query.case_id == results[i].query.case_id && q.query.time == results[i].query.time && q.ok() &&
          fs::is_regular_file(results[i].query.out, error)) {
        done[i] = true;
        results[i].status = "ok";
        results[i].seconds = q.seconds;
        results[i].strays = q.strays;
      }
    }
  return done;
}

std::string status_of(const ProcessOutcome& outcome, double timeout, const std::string& dump) {
  if (outcome.end == ProcessEnd::Stopped) return stopped_status(outcome.code);
  if (outcome.end != ProcessEnd::Exited || outcome.code != 0)
    return engine_process::describe_outcome(outcome, timeout);
  std::error_code error;
  return fs::is_regular_file(dump, error) ? "ok" : "no output";
}

// The folders a query writes to, its old dump gone, its copy of the case made; std::runtime_error naming what
// could not be.
void prepare_query(const Query& q, const InputHashes& inputs) {
  std::error_code error;
  for (const fs::path& folder : {fs::path(q.out).parent_path(), fs::path(q.log).parent_path()}) {
    fs::create_directories(folder, error);
    if (error) throw std::runtime_error(folder.string() + ": cannot create the folder: " + error.message());
  }
  fs::remove(q.out, error);
  if (error) throw std::runtime_error(q.out + ": cannot remove the previous dump: " + error.message());
  prepare_query_inputs(q, inputs);
}

constexpr const char* kCouldNotStart = "could not start: ";

std::string could_not_start(const std::exception& e) {
  return kCouldNotStart + engine_process::safe_text(e.what(), 1000);
}

// The run's shared state: the results, the record, and the first error that ends the run (its folder gone).
struct RunState {
  const EngineSpec& engine;
  const std::string& out_dir;
  RunRecord& record;
  std::vector<QueryResult>& results;
  std::mutex mutex;
  std::exception_ptr fatal;
};

void run_one_query(RunState& state, size_t i) {
  const Query& q = state.results[i].query;
  QueryResult result = state.results[i];
  try {
    prepare_query(q, state.record.inputs);
    const std::string command = engine_process::substitute(
        state.engine.query_command, {{"model", engine_model(q)}, {"animation", std::to_string(q.animation)},
                                     {"time", time_text(q.time)}, {"out", q.out}, {"case", q.case_id}});
    const ProcessOutcome outcome =
        engine_process::run_engine_command(command, q.log, state.engine.timeout_seconds, q.work);
    result.status = status_of(outcome, state.engine.timeout_seconds, q.out);
    result.seconds = outcome.seconds;
    result.strays = outcome.strays;
  } catch (const std::exception& e) {
    result.status = could_not_start(e);
  }
  const std::lock_guard<std::mutex> lock(state.mutex);
  state.results[i] = result;
  state.record.results = state.results;
  try {
    save_record(state.record, state.out_dir);
  } catch (...) {
    if (!state.fatal) state.fatal = std::current_exception();
  }
}

void run_queries_one_by_one(RunState& state, const std::vector<bool>& done) {
  std::atomic<size_t> next{0};
  const auto worker = [&]() {
    for (size_t i = next++; i < state.results.size(); i = next++) {
      if (done[i]) continue;
      if (engine_process::stop_signal() != 0) break;
      {
        const std::lock_guard<std::mutex> lock(state.mutex);
        if (state.fatal) break;
      }
      run_one_query(state, i);
    }
  };
  run_concurrently(size_t(std::max(1, state.engine.jobs)), worker);
}

// The batch's status for query `i`: its dump if the batch wrote it before it ended, else the batch's ending.
std::string batch_status(const ProcessOutcome& outcome, double limit, const Query& query) {
  if (outcome.end == ProcessEnd::Stopped) return stopped_status(outcome.code);
  std::error_code error;
  if (fs::is_regular_file(query.out, error)) return "ok";
  return outcome.end == ProcessEnd::Exited && outcome.code == 0
             ? "no output"
             : "no output (the batch " + engine_process::describe_outcome(outcome, limit) + ")";
}

void run_queries_in_batch(RunState& state, const std::vector<bool>& done) {
  std::vector<size_t> pending;
  for (size_t i = 0; i < state.results.size(); ++i) {
    if (done[i]) continue;
    try {
      prepare_query(state.results[i].query, state.record.inputs);
      pending.push_back(i);
    } catch (const std::exception& e) {
      state.results[i].status = could_not_start(e);
    }
  }
  if (pending.empty() || engine_process::stop_signal() != 0) return;
  std::vector<Query> pending_queries;
  for (size_t i : pending) pending_queries.push_back(state.results[i].query);
  const std::string queries_path = (fs::path(state.out_dir) / "queries.json").string();
  const std::string text = queries_file_text(pending_queries);
  write_file_atomically(queries_path, [&text](std::ostream& out) { out << text; });
  const double limit = state.engine.timeout_seconds * double(pending.size());
  const std::string log = (fs::path(state.out_dir) / "logs" / "batch.log").string();
  const std::string work = (fs::path(state.out_dir) / "work").string();
  ProcessOutcome outcome;
  std::string failed_to_start;
  try {
    outcome = engine_process::run_engine_command(
        engine_process::substitute(state.engine.batch_command, {{"queries", queries_path}}), log, limit, work);
  } catch (const std::exception& e) {
    failed_to_start = could_not_start(e);
  }
  for (size_t i : pending) {
    QueryResult& r = state.results[i];
    r.query.log = log;
    r.seconds = outcome.seconds / double(pending.size());
    r.strays = outcome.strays;
    r.status = failed_to_start.empty() ? batch_status(outcome, limit, r.query) : failed_to_start;
  }
}

// The suite's input hashes for the queries' cases, checked against the suite's files.
InputHashes checked_inputs(const std::string& suite_dir, const std::vector<Query>& queries) {
  const InputHashes all = read_input_hashes(suite_dir);
  InputHashes used;
  for (const Query& q : queries)
    if (const auto found = all.find(q.case_id); found != all.end()) used[q.case_id] = found->second;
  const std::vector<std::string> changes = suite_input_changes(suite_dir, used);
  if (!changes.empty())
    throw InputError(suite_dir, "", "the suite as generated, but " + changes.front() + " (" +
                                        std::to_string(changes.size()) + " files differ; run skinref conformance check)");
  return used;
}

}  // namespace

bool is_not_run(const std::string& status) { return status.rfind(kNotRun, 0) == 0; }

bool is_could_not_start(const std::string& status) { return status.rfind(kCouldNotStart, 0) == 0; }

const std::vector<std::string>& query_placeholders() {
  static const std::vector<std::string> kNames{"model", "animation", "time", "out", "case"};
  return kNames;
}

const std::vector<std::string>& batch_placeholders() {
  static const std::vector<std::string> kNames{"queries"};
  return kNames;
}

RunRecord read_run_record(const std::string& out_dir) {
  return read_run_record_file((fs::path(out_dir) / "run.json").string());
}

std::string time_text(double time) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, time);
  return std::string(buffer, result.ptr);
}

std::vector<Query> suite_queries(const std::string& suite_dir, const std::string& out_dir, const std::string& filter) {
  std::vector<Query> queries;
  const fs::path out = fs::absolute(fs::path(out_dir));
  for (const ConformanceCase& c : conformance_cases()) {
    if (!filter.empty() && fnmatch(filter.c_str(), c.id.c_str(), 0) != 0) continue;
    for (double time : c.times) {
      Query q;
      q.case_id = c.id;
      q.model = fs::absolute(fs::path(suite_dir) / "cases" / c.id / (c.id + ".gltf")).lexically_normal().string();
      q.time = time;
      const std::string stem = "t" + time_text(time);
      q.out = (out / "dumps" / c.id / (stem + ".skv")).lexically_normal().string();
      q.log = (out / "logs" / c.id / (stem + ".log")).lexically_normal().string();
      q.work = (out / "work" / c.id / stem).lexically_normal().string();
      queries.push_back(std::move(q));
    }
  }
  return queries;
}

RunRecord run_engine(const EngineSpec& engine, const std::vector<Query>& queries, const std::string& out_dir,
                     const RunOptions& options) {
  const bool batch = !engine.batch_command.empty();
  const std::string refused = engine_process::placeholder_in_quotes(
      batch ? engine.batch_command : engine.query_command, batch ? batch_placeholders() : query_placeholders());
  if (!refused.empty())
    throw std::invalid_argument("the engine's command: " + refused + "; write placeholders bare, skinref quotes "
                                "each value itself");
  engine_process::become_subreaper();  // strays of the queries are handed to the runner, not to init
  RunRecord record;
  record.engine = engine;
  if (!options.suite_dir.empty()) record.inputs = checked_inputs(options.suite_dir, queries);
  std::vector<QueryResult> results;
  for (const Query& q : queries) results.push_back({q, kNotRun, 0.0, 0});
  fs::create_directories(fs::path(out_dir) / "logs");
  const std::vector<bool> done =
      options.resume ? already_done(engine, record, options, out_dir, results) : std::vector<bool>(queries.size());
  RunState state{engine, out_dir, record, results, {}, nullptr};
  if (batch)
    run_queries_in_batch(state, done);
  else
    run_queries_one_by_one(state, done);
  if (state.fatal) std::rethrow_exception(state.fatal);
  record.stopped_by = engine_process::stop_signal();
  for (QueryResult& r : results)
    if (record.stopped_by != 0 && r.status == kNotRun) r.status = stopped_status(record.stopped_by);
  record.results = results;
  save_record(record, out_dir);
  return record;
}

}  // namespace skinref::conformance

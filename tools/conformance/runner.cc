#include "conformance/runner.h"

#include "conformance/engine_process.h"
#include "core/atomic_file.h"
#include "core/input_error.h"

#include <fnmatch.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

namespace skinref::conformance {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// {name} replaced by the shell-quoted value of each placeholder, everything else as written.
std::string substitute(const std::string& command, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  for (size_t i = 0; i < command.size();) {
    bool replaced = false;
    for (const auto& [name, value] : values) {
      const std::string placeholder = "{" + name + "}";
      if (command.compare(i, placeholder.size(), placeholder) == 0) {
        out += shell_quote(value);
        i += placeholder.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += command[i++];
  }
  return out;
}

Json record_json(const RunRecord& record) {
  Json queries = Json::array();
  for (const QueryResult& r : record.results)
    queries.push_back({{"case", r.query.case_id}, {"time", r.query.time}, {"status", r.status},
                       {"seconds", r.seconds}, {"model", r.query.model}, {"dump", r.query.out}, {"log", r.query.log}});
  return {{"format", "skinref-conformance-run"},
          {"version", 1},
          {"engine", {{"name", record.engine.name}, {"version", record.engine.version},
                      {"query_command", record.engine.query_command}, {"batch_command", record.engine.batch_command},
                      {"timeout_seconds", record.engine.timeout_seconds}}},
          {"queries", queries}};
}

void save_record(const RunRecord& record, const std::string& out_dir) {
  const std::string text = record_json(record).dump(2) + "\n";
  write_file_atomically((fs::path(out_dir) / "run.json").string(), [&text](std::ostream& out) { out << text; });
}

// The statuses of a previous run of the same queries: ok ones whose dump is still there are kept.
std::vector<bool> already_done(const std::vector<Query>& queries, const std::string& out_dir,
                               std::vector<QueryResult>& results) {
  std::vector<bool> done(queries.size(), false);
  std::ifstream in(fs::path(out_dir) / "run.json");
  if (!in) return done;
  Json previous;
  try {
    previous = Json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return done;  // unreadable: everything runs again
  }
  for (const Json& q : previous.value("queries", Json::array()))
    for (size_t i = 0; i < queries.size(); ++i)
      if (q.value("case", "") == queries[i].case_id && q.value("time", -1.0) == queries[i].time &&
          q.value("status", "") == "ok" && fs::exists(queries[i].out)) {
        done[i] = true;
        results[i].status = "ok";
        results[i].seconds = q.value("seconds", 0.0);
      }
  return done;
}

std::string status_of(const ProcessOutcome& outcome, double timeout, const std::string& dump) {
  if (outcome.end != ProcessEnd::Exited || outcome.code != 0) return describe_outcome(outcome, timeout);
  return fs::exists(dump) ? "ok" : "no output";
}

void run_queries_one_by_one(const EngineSpec& engine, std::vector<QueryResult>& results, const std::vector<bool>& done,
                            RunRecord& record, const std::string& out_dir) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  const auto worker = [&]() {
    for (size_t i = next++; i < results.size(); i = next++) {
      if (done[i]) continue;
      const Query& q = results[i].query;
      fs::remove(q.out);
      const std::string command =
          substitute(engine.query_command, {{"model", q.model}, {"animation", std::to_string(q.animation)},
                                            {"time", time_text(q.time)}, {"out", q.out}, {"case", q.case_id}});
      const ProcessOutcome outcome = run_engine_command(command, q.log, engine.timeout_seconds);
      const std::lock_guard<std::mutex> lock(mutex);
      results[i].status = status_of(outcome, engine.timeout_seconds, q.out);
      results[i].seconds = outcome.seconds;
      record.results = results;
      save_record(record, out_dir);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, engine.jobs); ++t) threads.emplace_back(worker);
  for (std::thread& thread : threads) thread.join();
}

void run_queries_in_batch(const EngineSpec& engine, std::vector<QueryResult>& results, const std::vector<bool>& done,
                          const std::string& out_dir) {
  std::vector<Query> pending_queries;
  for (size_t i = 0; i < results.size(); ++i) {
    if (done[i]) continue;
    fs::remove(results[i].query.out);
    pending_queries.push_back(results[i].query);
  }
  const size_t pending = pending_queries.size();
  if (pending == 0) return;
  const std::string queries_path = (fs::path(out_dir) / "queries.json").string();
  const std::string text = queries_file_text(pending_queries);
  write_file_atomically(queries_path, [&text](std::ostream& out) { out << text; });
  const double limit = engine.timeout_seconds * double(pending);
  const std::string log = (fs::path(out_dir) / "logs" / "batch.log").string();
  const ProcessOutcome outcome =
      run_engine_command(substitute(engine.batch_command, {{"queries", queries_path}}), log, limit);
  for (size_t i = 0; i < results.size(); ++i) {
    if (done[i]) continue;
    results[i].query.log = log;
    results[i].seconds = outcome.seconds / double(pending);
    // A dump the batch wrote before it failed still counts; the others take the batch's ending.
    if (fs::exists(results[i].query.out))
      results[i].status = "ok";
    else
      results[i].status = outcome.end == ProcessEnd::Exited && outcome.code == 0
                              ? "no output"
                              : "no output (the batch " + describe_outcome(outcome, limit) + ")";
  }
}

}  // namespace

RunRecord read_run_record(const std::string& out_dir) {
  const std::string path = (fs::path(out_dir) / "run.json").string();
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "a run record (skinref conformance run writes it)");
  RunRecord record;
  try {
    const Json json = Json::parse(in);
    if (json.at("format") != "skinref-conformance-run" || json.at("version") != 1)
      throw InputError(path, "/format", "skinref-conformance-run version 1");
    const Json& engine = json.at("engine");
    record.engine.name = engine.at("name").get<std::string>();
    record.engine.version = engine.at("version").get<std::string>();
    record.engine.query_command = engine.at("query_command").get<std::string>();
    record.engine.batch_command = engine.at("batch_command").get<std::string>();
    record.engine.timeout_seconds = engine.at("timeout_seconds").get<double>();
    for (const Json& q : json.at("queries")) {
      QueryResult r;
      r.query.case_id = q.at("case").get<std::string>();
      r.query.time = q.at("time").get<double>();
      r.query.model = q.at("model").get<std::string>();
      r.query.out = q.at("dump").get<std::string>();
      r.query.log = q.at("log").get<std::string>();
      r.status = q.at("status").get<std::string>();
      r.seconds = q.at("seconds").get<double>();
      record.results.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, "", std::string("a run record as skinref conformance run writes it (") + e.what() + ")");
  }
  return record;
}

std::string time_text(double time) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, time);
  return std::string(buffer, result.ptr);
}

std::vector<Query> suite_queries(const std::string& suite_dir, const std::string& out_dir, const std::string& filter) {
  std::vector<Query> queries;
  for (const ConformanceCase& c : conformance_cases()) {
    if (!filter.empty() && fnmatch(filter.c_str(), c.id.c_str(), 0) != 0) continue;
    for (double time : c.times) {
      Query q;
      q.case_id = c.id;
      q.model = fs::absolute(fs::path(suite_dir) / "cases" / c.id / (c.id + ".gltf")).lexically_normal().string();
      q.time = time;
      const std::string stem = "t" + time_text(time);
      q.out = fs::absolute(fs::path(out_dir) / "dumps" / c.id / (stem + ".skv")).lexically_normal().string();
      q.log = fs::absolute(fs::path(out_dir) / "logs" / c.id / (stem + ".log")).lexically_normal().string();
      queries.push_back(std::move(q));
    }
  }
  return queries;
}

RunRecord run_engine(const EngineSpec& engine, const std::vector<Query>& queries, const std::string& out_dir,
                     bool resume) {
  RunRecord record;
  record.engine = engine;
  std::vector<QueryResult> results;
  for (const Query& q : queries) {
    results.push_back({q, "not run", 0.0});
    fs::create_directories(fs::path(q.out).parent_path());
    fs::create_directories(fs::path(q.log).parent_path());
  }
  fs::create_directories(fs::path(out_dir) / "logs");
  const std::vector<bool> done = resume ? already_done(queries, out_dir, results) : std::vector<bool>(queries.size());
  if (engine.batch_command.empty())
    run_queries_one_by_one(engine, results, done, record, out_dir);
  else
    run_queries_in_batch(engine, results, done, out_dir);
  record.results = results;
  save_record(record, out_dir);
  return record;
}

}  // namespace skinref::conformance

#include "conformance/run_record.h"

#include "core/input_error.h"
#include "core/stream_bytes.h"
#include "core/strict_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <set>

namespace skinref::conformance {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kRunFormat = "skinref-conformance-run";
constexpr int kRunVersion = 2;
// More stray processes than a process table holds is not a count the runner wrote.
constexpr double kMaxStrays = 1 << 22;
// The stop signals a record names (engine_process/stop_signals.h).
constexpr std::pair<int, const char*> kSignalNames[] = {{SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}};

std::string signal_name(int signal) {
  for (const auto& [number, name] : kSignalNames)
    if (number == signal) return name;
  return "signal " + std::to_string(signal);
}

// Reads one member of an object: present, of the type asked, else an InputError at its pointer.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  const nlohmann::json& member(const nlohmann::json& object, const std::string& pointer, const char* key) const {
    if (!object.is_object()) throw InputError(path_, pointer, "an object, got " + describe_json_value(object));
    const auto it = object.find(key);
    if (it == object.end()) throw InputError(path_, pointer, std::string("a \"") + key + "\" member");
    return *it;
  }
  std::string text(const nlohmann::json& object, const std::string& pointer, const char* key) const {
    const nlohmann::json& value = member(object, pointer, key);
    if (!value.is_string()) throw InputError(path_, pointer + "/" + key, "a string, got " + describe_json_value(value));
    return value.get<std::string>();
  }
  double number(const nlohmann::json& object, const std::string& pointer, const char* key, double minimum) const {
    const nlohmann::json& value = member(object, pointer, key);
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < minimum)
      throw InputError(path_, pointer + "/" + key,
                       "a finite number >= " + std::to_string(minimum) + ", got " + describe_json_value(value));
    return value.get<double>();
  }
  void known(const nlohmann::json& object, const std::string& pointer, const std::set<std::string>& keys) const {
    for (const auto& [key, value] : object.items())
      if (!keys.count(key)) throw InputError(path_, pointer + "/" + json_pointer_token(key), "no member \"" + key + "\"");
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

EngineSpec read_engine(const Reader& r, const nlohmann::json& engine) {
  r.known(engine, "/engine", {"name", "version", "query_command", "batch_command", "timeout_seconds"});
  EngineSpec spec;
  spec.name = r.text(engine, "/engine", "name");
  spec.version = r.text(engine, "/engine", "version");
  spec.query_command = r.text(engine, "/engine", "query_command");
  spec.batch_command = r.text(engine, "/engine", "batch_command");
  spec.timeout_seconds = r.number(engine, "/engine", "timeout_seconds", 0.0);
  if (spec.timeout_seconds <= 0) throw InputError(r.path(), "/engine/timeout_seconds", "a positive number of seconds");
  return spec;
}

QueryResult read_result(const Reader& r, const nlohmann::json& q, const std::string& pointer, int version) {
  if (version >= 2)
    r.known(q, pointer, {"case", "time", "status", "seconds", "strays", "model", "work", "dump", "log"});
  else
    r.known(q, pointer, {"case", "time", "status", "seconds", "model", "dump", "log"});
  QueryResult result;
  result.query.case_id = r.text(q, pointer, "case");
  result.query.time = r.number(q, pointer, "time", 0.0);
  result.query.model = r.text(q, pointer, "model");
  result.query.out = r.text(q, pointer, "dump");
  result.query.log = r.text(q, pointer, "log");
  result.status = r.text(q, pointer, "status");
  result.seconds = r.number(q, pointer, "seconds", 0.0);
  if (version >= 2) {
    result.query.work = r.text(q, pointer, "work");
    const double strays = r.number(q, pointer, "strays", 0.0);
    if (strays != std::floor(strays) || strays > kMaxStrays)
      throw InputError(r.path(), pointer + "/strays", "a count of processes, got " + std::to_string(strays));
    result.strays = size_t(strays);
  }
  return result;
}

InputHashes read_inputs(const Reader& r, const nlohmann::json& inputs) {
  if (!inputs.is_object()) throw InputError(r.path(), "/inputs", "an object of cases, got " + describe_json_value(inputs));
  InputHashes hashes;
  for (const auto& [case_id, files] : inputs.items()) {
    const std::string pointer = "/inputs/" + json_pointer_token(case_id);
    if (!files.is_object()) throw InputError(r.path(), pointer, "an object of files, got " + describe_json_value(files));
    for (const auto& [file, hash] : files.items()) {
      if (!hash.is_string())
        throw InputError(r.path(), pointer + "/" + json_pointer_token(file), "a hash, got " + describe_json_value(hash));
      hashes[case_id][file] = hash.get<std::string>();
    }
  }
  return hashes;
}

int read_stopped_by(const Reader& r, const nlohmann::json& document) {
  if (!document.contains("stopped_by")) return 0;
  const std::string name = r.text(document, "", "stopped_by");
  for (const auto& [number, known] : kSignalNames)
    if (name == known) return number;
  throw InputError(r.path(), "/stopped_by", "SIGINT, SIGTERM or SIGHUP, got \"" + name + "\"");
}

}  // namespace

std::string run_record_text(const RunRecord& record) {
  Json queries = Json::array();
  for (const QueryResult& r : record.results)
    queries.push_back({{"case", r.query.case_id}, {"time", r.query.time}, {"status", r.status},
                       {"seconds", r.seconds}, {"strays", r.strays}, {"model", r.query.model},
                       {"work", r.query.work}, {"dump", r.query.out}, {"log", r.query.log}});
  Json document = {{"format", kRunFormat},
                   {"version", kRunVersion},
                   {"engine", {{"name", record.engine.name}, {"version", record.engine.version},
                               {"query_command", record.engine.query_command},
                               {"batch_command", record.engine.batch_command},
                               {"timeout_seconds", record.engine.timeout_seconds}}}};
  if (record.stopped_by != 0) document["stopped_by"] = signal_name(record.stopped_by);
  document["inputs"] = record.inputs;
  document["queries"] = queries;
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

RunRecord read_run_record_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a run record (skinref conformance run writes it)");
  const std::string text = read_stream_bytes(in);
  if (in.bad()) throw InputError(path, "", "a readable run record");
  const nlohmann::json document = parse_strict_json(text, path);
  const Reader r(path);
  if (!document.is_object()) throw InputError(path, "", "a JSON object, got " + describe_json_value(document));
  if (r.text(document, "", "format") != kRunFormat) throw InputError(path, "/format", std::string("\"") + kRunFormat + "\"");
  const nlohmann::json& version_value = r.member(document, "", "version");
  if (version_value != 1 && version_value != 2)
    throw InputError(path, "/version", "1 or 2, got " + describe_json_value(version_value));
  const int version = version_value.get<int>();
  if (version >= 2)
    r.known(document, "", {"format", "version", "engine", "stopped_by", "inputs", "queries"});
  else
    r.known(document, "", {"format", "version", "engine", "queries"});
  RunRecord record;
  record.engine = read_engine(r, r.member(document, "", "engine"));
  if (version >= 2) {
    record.stopped_by = read_stopped_by(r, document);
    record.inputs = read_inputs(r, r.member(document, "", "inputs"));
  }
  const nlohmann::json& queries = r.member(document, "", "queries");
  if (!queries.is_array()) throw InputError(path, "/queries", "an array, got " + describe_json_value(queries));
  for (size_t i = 0; i < queries.size(); ++i)
    record.results.push_back(read_result(r, queries[i], "/queries/" + std::to_string(i), version));
  return record;
}

std::vector<std::string> engine_changes(const EngineSpec& before, const EngineSpec& now) {
  std::vector<std::string> changes;
  const auto compare = [&changes](const char* what, const std::string& a, const std::string& b) {
    if (a != b) changes.push_back(std::string("the engine's ") + what + " '" + a + "' is now '" + b + "'");
  };
  compare("name", before.name, now.name);
  compare("version", before.version, now.version);
  compare("query command", before.query_command, now.query_command);
  compare("batch command", before.batch_command, now.batch_command);
  return changes;
}

}  // namespace skinref::conformance

// A conformance run's record, run.json under the run's folder: the engine (its name, version, commands and time
// limit), the hashes of the suite's inputs the run began with, each query's status, and the signal that stopped
// the run early, if one did. The runner rewrites it atomically after each query, so that an interrupted run
// can resume and `conformance report` can judge a run again.
//
// Contract:
// - run_record_text(record): {"format": "skinref-conformance-run", "version": 2, "engine": {...},
//   "stopped_by": "SIGINT" (only when stopped), "inputs": {CASE: {FILE: "fnv1a64:..."}}, "queries": [{"case",
//   "time", "status", "seconds", "strays", "model", "work", "dump", "log"}, ...]}; text that is not UTF-8 (a
//   path, a command) is written with U+FFFD for its bad bytes, so the record is always written.
// - read_run_record_file(path): the record; version 1 (before inputs, work folders, strays and stops) reads
//   too. Anything else is an InputError naming the file, the JSON pointer and what was expected: not JSON, a
//   member missing, unknown or mistyped, a time or seconds not finite or negative, a timeout not positive.
// - engine_changes(before, now): what differs between two engines' identities (name, version, query and batch
//   commands), one phrase each: "the engine's name 'a' is now 'b'"; empty when they are the same engine.
#pragma once

#include "conformance/queries_file.h"

#include <map>
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
  size_t strays = 0;   // processes outside the query's group killed at its end
  bool ok() const { return status == "ok"; }
};

// Per case, its input files (by name in the case's folder) and their content hashes, from suite.json.
using InputHashes = std::map<std::string, std::map<std::string, std::string>>;

struct RunRecord {
  EngineSpec engine;
  InputHashes inputs;     // empty: not checked (a record made by hand, or of version 1)
  int stopped_by = 0;     // the signal that stopped the run, 0 when it ran to its end
  std::vector<QueryResult> results;
};

std::string run_record_text(const RunRecord& record);

RunRecord read_run_record_file(const std::string& path);

std::vector<std::string> engine_changes(const EngineSpec& before, const EngineSpec& now);

}  // namespace skinref::conformance

// The batch protocol's queries file (docs/conformance.md, "The adapter contract"): the runner writes it for a
// batch command, and `skinref skin --queries` reads it (skinref's own backends as a batch engine).
//
// Contract:
// - Query: one case at one time; `log` is where the runner sends its engine's output and `work` the query's
//   working folder (neither in the file).
// - queries_file_text(queries): {"format": "skinref-conformance-queries", "version": 1, "queries": [{"case",
//   "model", "animation", "time", "out"}, ...]}, indented by two spaces, with a final newline; "model" is
//   engine_model() (the query's own copy).
// - read_queries_file(path): the queries of such a file. Anything else is an InputError naming the file, the
//   JSON pointer and what was expected: not JSON, another format or version, a member missing, mistyped or
//   unknown, an animation index below 0, a time that is not finite, an empty path.
#pragma once

#include <string>
#include <vector>

namespace skinref::conformance {

struct Query {
  std::string case_id;
  std::string model;  // absolute path of the case's .gltf
  int animation = 0;
  double time = 0.0;
  std::string out;    // absolute path of the dump to write
  std::string log;
  std::string work;   // the query's working folder, holding its own copy of the case's files; "": none
};

// The model the engine is given: the copy in the query's working folder, or `model` when it has none.
std::string engine_model(const Query& query);

std::string queries_file_text(const std::vector<Query>& queries);

std::vector<Query> read_queries_file(const std::string& path);

}  // namespace skinref::conformance

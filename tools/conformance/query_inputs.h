// The inputs an engine query reads, guarded. Each query gets its own copy of its case's files (the .gltf and its
// buffer) in a working folder of its own, made read-only, and the engine is given the copy; the suite's files
// carry their content hashes in suite.json. Before judging, the suite's files and every copy are checked
// against those hashes, so that an engine that writes to its input is named for it, and the reference is
// never recomputed from a file the engine changed.
//
// Contract:
// - read_input_hashes(suite_dir): per case, its input files and their hashes, from suite.json's "inputs";
//   InputError when suite.json is missing or holds none.
// - suite_input_changes(suite_dir, hashes): the suite's input files that are missing or whose content is not
//   the hash's ("cases/ID/ID.bin differs from its hash in suite.json"); the runner refuses to start on them.
// - prepare_query_inputs(query, hashes): (re)creates `query.work` holding a read-only copy of each input of the
//   query's case from the folder of `query.model`; std::runtime_error naming the file and the reason when it
//   cannot.
// - input_changes(query, ran, hashes): how the query's inputs differ from their hashes: its copy of a file
//   changed or removed (when the query `ran`: one that never started has no copy), or the suite's own file
//   changed or removed; empty when none did, or when `hashes` has no entry
//   for the case (a record without hashes).
// - The hashes are io/vertex_dump.h's content hashes (FNV-1a, 64 bits): they catch a file changed by accident
//   or by an engine's writer, not a collision forged on purpose.
#pragma once

#include "conformance/run_record.h"

#include <string>
#include <vector>

namespace skinref::conformance {

InputHashes read_input_hashes(const std::string& suite_dir);

std::vector<std::string> suite_input_changes(const std::string& suite_dir, const InputHashes& hashes);

void prepare_query_inputs(const Query& query, const InputHashes& hashes);

std::vector<std::string> input_changes(const Query& query, bool ran, const InputHashes& hashes);

}  // namespace skinref::conformance

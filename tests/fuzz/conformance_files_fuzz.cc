// libFuzzer target `conformance_files`: the two files of a conformance run that skinref reads back, the run
// record (run.json: `conformance run --resume` and `conformance report` read it, and an engine can write it)
// and the batch protocol's queries file (`skinref skin --queries` reads it) (conformance/run_record.h,
// conformance/queries_file.h).
//
// Contract: the first byte chooses the reader (even: run record, odd: queries file); the rest is written to a
// per-process temp file and read. What reads is written back and must read back to the same values (a
// mismatch aborts: a finding). Bound on work per input: one read and one round trip, linear in the input's
// size. Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "conformance/queries_file.h"
#include "conformance/run_record.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace {

using namespace skinref::conformance;

void fail(const char* what) {
  std::fprintf(stderr, "skinref fuzz: %s does not read back as written\n", what);
  std::abort();
}

bool same_query(const Query& a, const Query& b) {
  return a.case_id == b.case_id && a.model == b.model && a.animation == b.animation && a.time == b.time &&
         a.out == b.out;
}

void round_trip_run_record(const std::string& path) {
  const RunRecord record = read_run_record_file(path);
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << run_record_text(record); }
  const RunRecord back = read_run_record_file(path);
  if (!engine_changes(record.engine, back.engine).empty() ||
      record.engine.timeout_seconds != back.engine.timeout_seconds || record.inputs != back.inputs ||
      record.stopped_by != back.stopped_by || record.results.size() != back.results.size())
    fail("a run record");
  for (size_t i = 0; i < record.results.size(); ++i) {
    const QueryResult& a = record.results[i];
    const QueryResult& b = back.results[i];
    if (a.query.case_id != b.query.case_id || a.query.time != b.query.time || a.query.model != b.query.model ||
        a.query.out != b.query.out || a.query.log != b.query.log || a.query.work != b.query.work ||
        a.status != b.status || a.seconds != b.seconds || a.strays != b.strays)
      fail("a run record's query");
  }
}

void round_trip_queries(const std::string& path) {
  const std::vector<Query> queries = read_queries_file(path);
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << queries_file_text(queries); }
  const std::vector<Query> back = read_queries_file(path);
  if (back.size() != queries.size()) fail("a queries file");
  for (size_t i = 0; i < queries.size(); ++i)
    if (!same_query(queries[i], back[i])) fail("a queries file's query");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static skinref::fuzz::TempFile file("conformance_files", ".json");
  skinref::fuzz::run_guarded([&] {
    const std::string path = file.write(data + 1, size - 1);
    if (data[0] % 2 == 0)
      round_trip_run_record(path);
    else
      round_trip_queries(path);
  });
  return 0;
}

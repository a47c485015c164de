// libFuzzer target `skv`: the .skv vertex dump reader (io/vertex_dump.h read_vertices_skv), as compare,
// bisect and diagnose use it.
//
// Contract: the bytes are written to a per-process temp file NAME.skv and read with read_vertices_skv(); a
// dump that reads is written again with write_vertices_skv() into memory (the writer on what the reader
// accepted). Bound on work per input: one read and one in-memory write, both linear in the input's size.
// Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "io/vertex_dump.h"

#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static fuzz::TempFile file("skv", ".skv");
  fuzz::run_guarded([&] {
    const VertexDump dump = read_vertices_skv(file.write(data, size));
    std::ostringstream out;
    write_vertices_skv(dump, out);
  });
  return 0;
}

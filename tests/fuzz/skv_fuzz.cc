// libFuzzer target `skv`: the .skv vertex dump readers: skinref's (io/vertex_dump.h read_vertices_skv), as
// compare, bisect and diagnose use it, and the C header engines write and read with (include/skinref/dump.h,
// skinref_skv_open and skinref_skv_load).
//
// Contract: the bytes are written to a per-process temp file NAME.skv and read with read_vertices_skv(); a
// dump that reads is written again with write_vertices_skv() into memory (the writer on what the reader
// accepted). The same file is then opened and loaded with the C header, whose errors are values, not
// exceptions. Bound on work per input: two reads and one in-memory write, each linear in the input's size.
// Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "io/vertex_dump.h"

#define SKINREF_DUMP_IMPLEMENTATION
#include "skinref/dump.h"

#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static fuzz::TempFile file("skv", ".skv");
  const std::string path = file.write(data, size);
  fuzz::run_guarded([&] {
    const VertexDump dump = read_vertices_skv(path);
    std::ostringstream out;
    write_vertices_skv(dump, out);
  });
  skinref_skv skv;
  skinref_dump_error error;
  if (skinref_skv_open(path.c_str(), &skv, &error) == SKINREF_DUMP_OK) {
    skinref_skv_load(&skv, SKINREF_DUMP_F32, &error);
    skinref_skv_close(&skv);
  }
  return 0;
}

// Dumps of skinned vertices: JSON, the binary .skv format, and PLY.
//
// .skv, version 1 or 2 (all little-endian; documented in docs/formats.md):
//   header (32 bytes): magic "SKINREFV" (8 bytes), u32 version, u32 precision = 4 (f32) or 8 (f64),
//                      u32 primitive_count, u32 flags, u64 record_bytes
//   version 1: flags = 0, record_bytes = 0. Version 2: flags bit 0 set when a record follows the header:
//                      record_bytes of UTF-8 JSON (at most 1 MiB), the DumpRecord below.
//   Writers write version 1 when the dump has no record, so readers of version 1 keep working.
//   per primitive: a 32-byte record: i32 node, i32 mesh, i32 primitive, u32 attributes (bit 0 skinned,
//                  bit 1 normals, bit 2 tangents), u64 vertex_count, u64 reserved = 0,
//                  followed by positions (3 x count), normals (3 x count, if bit 1), tangents (4 x count,
//                  if bit 2) as f32 or f64.
// JSON: {"format":"skinref-vertices","version":1,"precision":"f64","record":{...},"primitives":[{"node":N,"mesh":M,
//        "primitive":P,"skinned":true,"positions":[x,y,z,...],"normals":[...],"tangents":[...]}]}
//        with every double printed to round-trip (17 significant digits).
// PLY: binary little-endian, float vertices (x y z nx ny nz) and triangle faces of every primitive merged;
//      for viewing in MeshLab or Blender, not for comparison.
// Every writer is atomic (see atomic_file.h).
#pragma once

#include "core/conventions.h"
#include "core/scene.h"
#include "core/vertices.h"

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skinref {

enum class DumpPrecision { F32 = 4, F64 = 8 };

// What a dump says about how it was made, so that compare, bisect and diagnose check against the same
// moment and rules: {"writer": "skinref", "model": "...", "animation": "0", "time": 0.5, "method": "lbs",
// "palette": "reference"|"own", "conventions": {"NAME": "VALUE", ...}, "model_hash": "fnv1a64:...",
// "ranges": [...], "joint_names": [...], "precision": "f32", "layout": "xyz-interleaved"}. Every key is optional; an engine's
// writer may fill in what it knows. `palette` "reference": the skinning used the reference's palettes
// (rounded to float32); "own": the writer computed its own animation and palette.
// A merged vertex buffer: an engine that keeps several primitives in one buffer writes it as one .skv
// primitive, and its record's "ranges" say which vertices belong to which primitive:
// [{"node": N, "mesh": M, "primitive": P, "first": F, "count": C, "skinned": true}, ...].
struct VertexRange {
  int node = -1, mesh = -1, primitive = -1;
  uint64_t first = 0, count = 0;
  bool skinned = true;
};
// The writers also state "precision" ("f32" or "f64", as the header) and "layout": "xyz-interleaved" (per
// primitive, the positions' x y z of vertex 0, 1, ..., then the normals' likewise, then the tangents' x y z w);
// a reader refuses a record whose precision contradicts the header or whose layout is another.
// `joint_names`: optional, the engine's joints by name in its palette order (checked against the model by
// compare, bisect and diagnose).
// `animation` is an index, "rest", or "recipe:FILE" for a recipe's run. The weight policy and the normal
// convention are the conventions' "weights" and "normals".
struct DumpRecord {
  bool present = false;
  std::string writer, model, animation, method, palette;
  std::string model_hash;  // "fnv1a64:" + 16 hex digits of the model file's bytes (model_content_hash())
  std::optional<double> time;
  std::optional<Conventions> conventions;
  std::vector<VertexRange> ranges;  // a merged buffer's primitives; empty: one .skv primitive each
  std::vector<std::string> joint_names;
};
nlohmann::ordered_json dump_record_json(const DumpRecord& record);
// Throws std::invalid_argument naming the key that is wrong.
DumpRecord dump_record_from_json(const nlohmann::ordered_json& json);

struct VertexDump {
  DumpPrecision precision = DumpPrecision::F64;
  DumpRecord record;
  std::vector<WorldPrimitive> primitives;  // node/mesh/primitive/skinned + vertices
};

// Chooses the format by the extension of `path` (.json, .skv, .ply); throws InputError otherwise.
void write_vertex_dump(const Scene& scene, const VertexDump& dump, const std::string& path);

void write_vertices_json(const VertexDump& dump, std::ostream& out);
void write_vertices_skv(const VertexDump& dump, std::ostream& out);
void write_vertices_ply(const Scene& scene, const VertexDump& dump, std::ostream& out);

// Reads a .skv file back (f32 data widened to double); throws InputError on any malformed header or size, and
// on the first NaN or infinite value (naming its byte offset, primitive, attribute, vertex and component). A
// merged buffer (a record with "ranges", over exactly one .skv primitive) is split into its primitives; a range
// outside the buffer is refused.
VertexDump read_vertices_skv(const std::string& path);

// The largest .skv file that can hold a dump of `primitives`' vertex counts: the header, the largest record
// (1 MiB), and per primitive its 32-byte record with positions, normals and tangents in f64. A file larger than
// this is not such a dump, which a caller can say from its size before reading it.
uint64_t max_skv_bytes(const std::vector<WorldPrimitive>& primitives);

// The identity of a model file's bytes, "fnv1a64:" + 16 hex digits (FNV-1a, 64 bits), for records; "" for a
// builtin:NAME (the name is exact) and for a file that cannot be read.
std::string model_content_hash(const std::string& spec);
// The same identity of bytes in memory.
std::string content_hash_of_bytes(std::string_view bytes);

}  // namespace skinref

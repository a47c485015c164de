// Dumps of skinned vertices: JSON, the binary .skv format, and PLY.
//
// .skv, version 1 (all little-endian; documented in the README):
//   header (32 bytes): magic "SKINREFV" (8 bytes), u32 version = 1, u32 precision = 4 (f32) or 8 (f64),
//                      u32 primitive_count, u32 flags = 0, u64 reserved = 0
//   per primitive: a 32-byte record: i32 node, i32 mesh, i32 primitive, u32 attributes (bit 0 skinned,
//                  bit 1 normals, bit 2 tangents), u64 vertex_count, u64 reserved = 0,
//                  followed by positions (3 x count), normals (3 x count, if bit 1), tangents (4 x count,
//                  if bit 2) as f32 or f64.
// JSON: {"format":"skinref-vertices","version":1,"precision":"f64","primitives":[{"node":N,"mesh":M,
//        "primitive":P,"skinned":true,"positions":[x,y,z,...],"normals":[...],"tangents":[...]}]}
//        with every double printed to round-trip (17 significant digits).
// PLY: binary little-endian, float vertices (x y z nx ny nz) and triangle faces of every primitive merged;
//      for viewing in MeshLab or Blender, not for comparison.
// Every writer is atomic (see atomic_file.h).
#pragma once

#include "core/scene.h"
#include "core/vertices.h"

#include <string>
#include <vector>

namespace skinref {

enum class DumpPrecision { F32 = 4, F64 = 8 };

struct VertexDump {
  DumpPrecision precision = DumpPrecision::F64;
  std::vector<WorldPrimitive> primitives;  // node/mesh/primitive/skinned + vertices
};

// Chooses the format by the extension of `path` (.json, .skv, .ply); throws InputError otherwise.
void write_vertex_dump(const Scene& scene, const VertexDump& dump, const std::string& path);

void write_vertices_json(const VertexDump& dump, std::ostream& out);
void write_vertices_skv(const VertexDump& dump, std::ostream& out);
void write_vertices_ply(const Scene& scene, const VertexDump& dump, std::ostream& out);

// Reads a .skv file back (f32 data widened to double); throws InputError on any malformed header or size.
VertexDump read_vertices_skv(const std::string& path);

}  // namespace skinref

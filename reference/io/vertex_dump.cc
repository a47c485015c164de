// Vertex dumps: the writer that picks the format from the file name, the checks the formats share, and the
// content hashes that tie a dump to its model. The formats are in vertex_dump_json.cc (17-digit doubles),
// vertex_dump_skv.cc (explicit little-endian bytes, read back with every header field and size checked) and
// vertex_dump_ply.cc (binary PLY for viewers); the layouts are in vertex_dump.h.
#include "io/vertex_dump.h"

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/vertex_dump_common.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace skinref {

std::string primitive_label(size_t index) { return "vertex dump primitive " + std::to_string(index); }

// The attribute arrays must be empty or vertex-count long; anything else is a caller bug, not bad input.
void check_attribute_sizes(const WorldPrimitive& primitive, size_t index) {
  const size_t n = primitive.vertices.positions.size();
  const size_t normals = primitive.vertices.normals.size();
  const size_t tangents = primitive.vertices.tangents.size();
  if ((normals != 0 && normals != n) || (tangents != 0 && tangents != n)) {
    throw std::runtime_error(primitive_label(index) + ": " + std::to_string(n) + " positions but " +
                             std::to_string(normals) + " normals and " + std::to_string(tangents) +
                             " tangents (each must be 0 or the vertex count)");
  }
}


namespace {

bool has_suffix(const std::string& text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    const char c = text[text.size() - suffix.size() + i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower != suffix[i]) return false;
  }
  return true;
}


}  // namespace

void write_vertex_dump(const Scene& scene, const VertexDump& dump, const std::string& path) {
  if (has_suffix(path, ".json")) {
    write_file_atomically(path, [&](std::ostream& out) { write_vertices_json(dump, out); });
  } else if (has_suffix(path, ".skv")) {
    write_file_atomically(path, [&](std::ostream& out) { write_vertices_skv(dump, out); });
  } else if (has_suffix(path, ".ply")) {
    write_file_atomically(path, [&](std::ostream& out) { write_vertices_ply(scene, dump, out); });
  } else {
    throw InputError(path, "", "a vertex dump file name ending in .json, .skv or .ply");
  }
}

namespace {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits

void fnv1a_update(uint64_t& hash, const char* bytes, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    hash ^= uint8_t(bytes[i]);
    hash *= 0x100000001b3ull;
  }
}

std::string fnv1a_text(uint64_t hash) {
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace

std::string content_hash_of_bytes(std::string_view bytes) {
  uint64_t hash = kFnvOffsetBasis;
  fnv1a_update(hash, bytes.data(), bytes.size());
  return fnv1a_text(hash);
}

std::string model_content_hash(const std::string& spec) {
  if (spec.rfind("builtin:", 0) == 0) return "";
  std::ifstream in(spec, std::ios::binary);
  if (!in) return "";
  uint64_t hash = kFnvOffsetBasis;
  char buffer[65536];
  while (in) {
    in.read(buffer, sizeof buffer);
    fnv1a_update(hash, buffer, size_t(in.gcount()));
  }
  if (in.bad()) return "";
  return fnv1a_text(hash);
}

}  // namespace skinref

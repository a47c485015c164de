// Vertex dumps as binary little-endian PLY (vertex_dump.h), for viewers: every primitive's vertices, the faces of
// its triangles.
#include "io/vertex_dump.h"

#include "io/vertex_dump_common.h"

#include "core/scene.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace skinref {
namespace {

const Primitive& scene_primitive_for(const Scene& scene, const WorldPrimitive& primitive, size_t index) {
  if (primitive.mesh < 0 || static_cast<size_t>(primitive.mesh) >= scene.meshes.size()) {
    throw std::runtime_error(primitive_label(index) + ": mesh " + std::to_string(primitive.mesh) +
                             " is not in the scene (" + std::to_string(scene.meshes.size()) + " meshes)");
  }
  const Mesh& mesh = scene.meshes[static_cast<size_t>(primitive.mesh)];
  if (primitive.primitive < 0 || static_cast<size_t>(primitive.primitive) >= mesh.primitives.size()) {
    throw std::runtime_error(primitive_label(index) + ": primitive " + std::to_string(primitive.primitive) +
                             " is not in mesh " + std::to_string(primitive.mesh) + " (" +
                             std::to_string(mesh.primitives.size()) + " primitives)");
  }
  return mesh.primitives[static_cast<size_t>(primitive.primitive)];
}

}  // namespace

void write_vertices_ply(const Scene& scene, const VertexDump& dump, std::ostream& out) {
  // Every primitive's vertices are listed; faces come from Triangles primitives, their indices offset by
  // the vertices listed before them. PLY's `int` indices bound the total vertex count.
  constexpr uint64_t kMaxPlyIndex = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
  uint64_t vertex_total = 0;
  uint64_t face_total = 0;
  for (size_t i = 0; i < dump.primitives.size(); ++i) {
    const WorldPrimitive& primitive = dump.primitives[i];
    check_attribute_sizes(primitive, i);
    const Primitive& source = scene_primitive_for(scene, primitive, i);
    const size_t n = primitive.vertices.positions.size();
    if (source.topology == Topology::Triangles) {
      if (source.indices.size() % 3 != 0) {
        throw std::runtime_error(primitive_label(i) + ": " + std::to_string(source.indices.size()) +
                                 " triangle indices, not a multiple of 3");
      }
      for (uint32_t index : source.indices) {
        if (index >= n) {
          throw std::runtime_error(primitive_label(i) + ": triangle index " + std::to_string(index) +
                                   " is not below the dumped vertex count " + std::to_string(n));
        }
      }
      face_total += source.indices.size() / 3;
    }
    vertex_total += n;
    if (vertex_total > kMaxPlyIndex + 1) {
      throw std::runtime_error("vertex dump: too many vertices for PLY int indices");
    }
  }

  std::string bytes =
      "ply\n"
      "format binary_little_endian 1.0\n"
      "element vertex " +
      std::to_string(vertex_total) +
      "\n"
      "property float x\n"
      "property float y\n"
      "property float z\n"
      "property float nx\n"
      "property float ny\n"
      "property float nz\n"
      "element face " +
      std::to_string(face_total) +
      "\n"
      "property list uchar int vertex_indices\n"
      "end_header\n";
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

  for (const WorldPrimitive& primitive : dump.primitives) {
    const SkinnedVertices& vertices = primitive.vertices;
    bytes.clear();
    for (size_t v = 0; v < vertices.positions.size(); ++v) {
      for (int c = 0; c < 3; ++c) put_f32(bytes, static_cast<float>(vertices.positions[v][c]));
      // Zero normals when the primitive has none: the vertex layout is the same for every primitive.
      for (int c = 0; c < 3; ++c) {
        put_f32(bytes, vertices.normals.empty() ? 0.0f : static_cast<float>(vertices.normals[v][c]));
      }
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  uint64_t offset = 0;
  for (size_t i = 0; i < dump.primitives.size(); ++i) {
    const WorldPrimitive& primitive = dump.primitives[i];
    const Primitive& source = scene_primitive_for(scene, primitive, i);
    if (source.topology == Topology::Triangles) {
      bytes.clear();
      for (size_t t = 0; t + 2 < source.indices.size(); t += 3) {
        bytes.push_back(static_cast<char>(3));
        for (size_t k = 0; k < 3; ++k) put_i32(bytes, static_cast<int32_t>(offset + source.indices[t + k]));
      }
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    offset += primitive.vertices.positions.size();
  }
}

}  // namespace skinref

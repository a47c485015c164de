#include "gpu/buffer_bytes.h"

#include "core/input_error.h"

namespace skinref::gpu {

void put_matrix_columns(std::vector<std::byte>& bytes, size_t at, const Mat4& m) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) put_float(bytes, at + 4 * size_t(4 * c + r), m(r, c));
}

void put_matrix_rows(std::vector<std::byte>& bytes, size_t at, const Mat4& m, int rows) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < 4; ++c) put_float(bytes, at + 4 * size_t(4 * r + c), m(r, c));
}

PaddedInfluences padded_influences(const Scene& scene, int node, size_t primitive, uint32_t influences,
                                   const std::string& interface_path) {
  const Node& n = scene.nodes[size_t(node)];
  const Primitive& prim = scene.meshes[size_t(n.mesh)].primitives[primitive];
  const bool skinned = n.skin >= 0;
  const size_t count = prim.vertex_count();
  const uint32_t stored = skinned ? uint32_t(prim.influences_per_vertex) : 1u;
  if (stored > influences)
    throw InputError(scene.source, "",
                     "at most " + std::to_string(influences) + " influences per vertex, as the shader reads (" +
                         interface_path + "); node " + std::to_string(node) + " '" + n.name + "' primitive " +
                         std::to_string(primitive) + " has " + std::to_string(stored) +
                         ": load it as an engine's importer would, with --convention influences=top" +
                         std::to_string(influences) + "-renormalized");
  PaddedInfluences padded;
  padded.joints.assign(count * influences, 0u);
  padded.weights.assign(count * influences, 0.0);
  for (size_t v = 0; v < count; ++v)
    for (uint32_t i = 0; i < stored; ++i) {
      padded.joints[v * influences + i] = skinned ? prim.joints[v * stored + i] : 0u;
      padded.weights[v * influences + i] = skinned ? prim.weights[v * stored + i] : 1.0;
    }
  return padded;
}

}  // namespace skinref::gpu

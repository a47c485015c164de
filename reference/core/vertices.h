// Vertex values: what the skinning stages produce, and what the dumps, the rasterizers, the bounds and every
// backend exchange.
//
// Contract:
// - SkinnedVertices: world-space positions, normals and tangents of one primitive; normals and tangents are
//   empty when the primitive has none, else as long as positions. Tangent w (handedness) is the bind one.
// - WorldPrimitive: one drawn primitive of a node (see drawn_nodes(), core/scene.h) with its vertices;
//   `skinned` says whether the node's skin palette moved it (else its global matrix did).
#pragma once

#include "core/math_types.h"

#include <vector>

namespace skinref {

struct SkinnedVertices {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<Vec4> tangents;
};

struct WorldPrimitive {
  int node = -1;
  int mesh = -1;
  int primitive = -1;
  bool skinned = false;
  SkinnedVertices vertices;
};

}  // namespace skinref

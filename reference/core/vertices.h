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

#include <limits>
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

// The size of a set of world primitives: the diagonal of their positions' bounding box (0 when empty). The
// unit diagnose and the bounds tests state errors in ("of the extent").
inline double positions_extent(const std::vector<WorldPrimitive>& primitives) {
  Vec3 low = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 high = -low;
  for (const WorldPrimitive& p : primitives)
    for (const Vec3& position : p.vertices.positions) {
      low = low.cwiseMin(position);
      high = high.cwiseMax(position);
    }
  return low.x() <= high.x() ? (high - low).norm() : 0.0;
}

}  // namespace skinref

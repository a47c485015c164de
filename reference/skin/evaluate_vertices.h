// The reference's vertex pipeline for one evaluated pose: morph -> skin, producing world-space vertices of
// every drawn primitive.
//
// Contract:
// - Primitives are listed in drawn_nodes() order (core/scene.h), each node's mesh primitives in order. Nodes
//   outside the active scene are not listed.
// - A node with a skin is skinned with its skin's palette by options.method (skin_primitive()); its own
//   transform is ignored (glTF). A node with a mesh and no skin is transformed rigidly by its global matrix
//   (normals by normal_matrix, tangents by the linear part, both normalized), whatever the method. Morph
//   targets apply before either.
#pragma once

#include "core/pose.h"
#include "core/vertices.h"
#include "skin/options.h"

#include <vector>

namespace skinref {

// The reference stage of options.method on one primitive: skin_lbs() or skin_dqs().
void skin_primitive(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output);

std::vector<WorldPrimitive> evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& options);

}  // namespace skinref

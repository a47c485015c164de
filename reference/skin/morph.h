// Stage: morph targets, applied to bind-space attributes before skinning.
//
// Contract (glTF 2.0, "Morph Targets"): p = p0 + sum_k w_k * dP_k, likewise for normals and the xyz of
// tangents (w kept). The weights are the node's (LocalPose::morph_weights): sampled, else node.weights, else
// mesh.weights, else zeros. A target without deltas for an attribute contributes nothing to it. Normals and
// tangents are not renormalized here (skinning does it). Outputs have the primitive's vertex count; an
// attribute the primitive lacks stays empty. Summation order is target order, so results are reproducible.
#pragma once

#include "core/scene.h"

#include <span>

namespace skinref {

struct MorphedAttributes {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<Vec4> tangents;
};

MorphedAttributes apply_morph_targets(const Primitive& primitive, std::span<const double> weights);

// The summation behind apply_morph_targets(): adds sum_k w_k * dP_k (and the normal and tangent deltas) to the
// given attributes in place, targets in order, zero weights skipped. Also the morph-order=after-skinning
// convention's step (skin/skinning_conventions.h), on skinned attributes.
void add_morph_deltas(const Primitive& primitive, std::span<const double> weights, MorphedAttributes& attributes);

}  // namespace skinref

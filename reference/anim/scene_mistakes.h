// The load-stage implementation mistakes (core/mistakes.h): how a mistaken reader takes the file's values,
// applied to a Scene once, as the load conventions are (io/load_conventions.h).
//
// Contract: apply_scene_mistakes() rewrites `scene` in place and leaves it valid (finalize_scene() is run
// again when rotations change, so the slerp tables follow them):
// - quaternion-order=wxyz: every stored rotation (x, y, z, w) (nodes' rest rotations, rotation keys and their
//   CUBICSPLINE tangents) is read as the quaternion with w = x, x = y, y = z, z = w; nodes' rest rotations are
//   then normalized, as a node's rotation always is (core/scene.h).
// - rotations=conjugated: each of those quaternions becomes (-x, -y, -z, w) (after the reordering).
// - handedness=mesh-z-negated: every primitive's positions, normals, tangents (xyz) and morph deltas have z
//   negated; the nodes, keys and inverse bind matrices are left as stored.
#pragma once

#include "core/conventions.h"
#include "core/scene.h"

namespace skinref {
void apply_scene_mistakes(Scene& scene, const Mistakes& mistakes);
}  // namespace skinref

// The load-stage engine conventions (core/conventions.h) as a transformation of a loaded Scene: what an
// engine's importer does to the file's skins before anything is sampled. (joint-sentinel is applied while
// reading JOINTS: io/gltf_load.h.)
//
// Contract: apply_load_conventions() rewrites `scene` in place and leaves it valid (finalize_scene() holds):
// - influences=first-set keeps JOINTS_0/WEIGHTS_0 (influences_per_vertex 4) of every skinned primitive;
//   influences=topK keeps per vertex the K largest weights, in decreasing order (equal weights: the earlier
//   slot first), padded with (joint 0, weight 0) to a multiple of 4; -renormalized then divides the kept
//   weights by their sum (a zero sum stays zero). A primitive with no more influences than kept is unchanged
//   by the limit, but still renormalized.
// - inverse-bind=from-rest-pose replaces every skin's IBM_i by the inverse of joint i's global transform in
//   the rest pose (node TRS, every ancestor), as an engine that ignores the stored matrices does.
#pragma once
#include "core/conventions.h"
#include "core/scene.h"
namespace skinref {
void apply_load_conventions(Scene& scene, const LoadConventions& conventions);
}  // namespace skinref

// The load-stage engine conventions (core/conventions.h) as a transformation of a loaded Scene: what an
// engine's importer does to the file's skins before anything is sampled. (joint-sentinel is applied while
// reading JOINTS: io/gltf_load.h.)
//
// Contract: apply_load_conventions() rewrites `scene` in place and leaves it valid (finalize_scene() holds):
// - influences=first-set keeps JOINTS_0/WEIGHTS_0 (influences_per_vertex 4) of every skinned primitive, and
//   influences=first-N-sets the first N sets;
//   influences=topK keeps per vertex the K largest weights, in decreasing order (equal weights: the earlier
//   slot first), padded with (joint 0, weight 0) to a multiple of 4; -renormalized then divides the kept
//   weights by their sum (a zero sum stays zero). A primitive with no more influences than kept is unchanged
//   by the limit, but still renormalized.
// - influences=first-influence (a mistake): the first slot alone, its weight as stored, padded with (joint 0,
//   weight 0) to 4.
// - weight-decoding (first, as an importer decodes before anything else): every influence set stored as
//   normalized unsigned integers (Primitive::weight_set_max) has its weights read back to their integers c
//   and used as raw integers (w = c); float sets unchanged.
// - node-matrix: nodes the file gave by `matrix` get the identity (ignored) or |scale| (reflection-lost: the
//   decomposition carries a reflection as a negative x scale).
// - channel-target=first-named moves each channel to the first node with its target's name (an unnamed target
//   keeps its channel); two channels may then animate one property, the later in the file winning.
// - joint-index=node reads each skinned primitive's JOINTS value k as a node index: the skin joint whose
//   node is k, or joint 0 where node k is no joint of the skin (a mesh two skins share: the first's).
// - morph-normals=ignored clears every morph target's NORMAL and TANGENT deltas.
// - inverse-bind=from-rest-pose replaces every skin's IBM_i by the inverse of joint i's global transform in
//   the rest pose (node TRS, every ancestor), as an engine that ignores the stored matrices does.
#pragma once
#include "core/conventions.h"
#include "core/scene.h"
namespace skinref {
void apply_load_conventions(Scene& scene, const LoadConventions& conventions);
}  // namespace skinref

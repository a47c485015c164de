// The reference's animation pipeline for one clip at one time: sample -> local to model -> palettes.
//
// Contract:
// - `animation` is an index into scene.animations, or -1 for the rest pose; `time` is the clip's own time
//   in seconds (sample_animation() clamps it to the key range).
// - The result holds the local pose, the model pose and one palette per skin (compute_palette()).
//   Recipes (blends, masks, IK) build an EvaluatedPose through anim/recipe.h instead; anim/pose_selection.h
//   chooses between the two.
// - Under engine conventions (core/conventions.h), `time` is the playback's time and each stage applies its
//   own: the time conventions map it to the sampled time (convention_sample_time(), anim/time_mapping.h;
//   EvaluatedPose::time stays `time`), morph-defaults=ignored starts the morph weights at 0 instead of
//   node.weights / mesh.weights, rest-values=identity gives each node the clip animates the identity's
//   translation, rotation or scale where no channel of the clip animates them, the sampling conventions read
//   the keys (anim/sampling.h), morph-targets=K then keeps each node's K largest |weights| (equal: the
//   earlier target) and sets the others to 0 (morph-targets=0: every weight 0), shear=dropped stores every global transform as the TRS nearest
//   it (the column lengths as scale, the nearest rotation by SVD; each node's from its parent's stored one),
//   and skeleton-ancestors and joint-cap shape the palette (anim/palette.h). The scene must already have its
//   load and clip conventions applied (io/load_conventions.h, anim/clip_conventions.h). Conventions{} gives
//   the same bits as the overload without them. The pose-stage mistakes (core/mistakes.h) apply at their stages:
//   time-unit scales the time before the time conventions, animation=not-played leaves the rest pose, the
//   sampling, hierarchy and morph-weights mistakes as anim/pose_mistakes.h defines them (the morph weights
//   moved before morph-targets keeps the largest), the palette mistakes in compute_palette().
#pragma once

#include "core/conventions.h"
#include "core/pose.h"

namespace skinref {

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time);
EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time, const Conventions& conventions);

}  // namespace skinref

// Bounds for a recipe's pose (anim/recipe.h: blends, masks, cross-fades, additive layers, IK): how far any
// correct float32 engine's evaluation of the recipe can be from the reference's, per value, in the layout of
// PoseErrorBounds (verify/pose_error_bounds.h); docs/error_bounds.md, "Recipes", derives it.
//
// Contract:
// - Inputs: the scene, the recipe, the engine's float32 global time tau.
// - Sampling: every clip the recipe samples, by the any-order sampling bounds
//   (any_order_local_error_bounds()) at the clip time the reference maps tau to, where the engine's own clip
//   time may differ by tol::kTimeMappingUlps of |tau| + |clip time|.
// - Blend and additive layers (combine_recipe()), then IK (apply_recipe_ik()): first-order bounds through
//   the step's Jacobian, computed by central differences of the reference's own step: per output value,
//   sum over inputs of |d out / d in| (in's error + 16 ulp of |in|), + 16 ulp of |out|
//   (tol::kAnyOrderRecipeUlps: the engine's float evaluation taken as backward stable), raised by a
//   quarter (tol::kLinearizedBoundSafety). Inputs are every sampled value, layer weight, mask entry, cross-fade weight
//   and IK target and pole; IK's also every local value of the nodes above or in its chains.
// - Then local to model and palettes as any_order_pose_bounds_from_locals().
// - ik_nodes: per node, 1 when an IK step changed its local transform (the stage bisection names those
//   values, and the globals below them, as IK's), else 0.
// - A step that is discontinuous at the pose (a hemisphere choice within reach) gets a huge derivative and
//   so a bound that claims little, rather than a wrong one.
#pragma once

#include "anim/recipe.h"
#include "verify/pose_error_bounds.h"

#include <vector>

namespace skinref {

struct RecipePoseBounds {
  PoseErrorBounds pose;
  std::vector<char> ik_nodes;  // per node
};

RecipePoseBounds recipe_pose_error_bounds(const Scene& scene, const Recipe& recipe, double tau);

}  // namespace skinref

// The one check of a float32 run's vertices against the reference, which compare, bisect, golden check, the
// conformance verdict and diagnose all make: the reference pose the run is held to, the bounds of the pose the
// run computed itself, the vertex bounds under a bounds model, and every vertex of the run within them.
//
// Contract:
// - RunPose says how the run came by its pose: a recipe at `time`, or clip `animation` (-1: the rest pose) at
//   `time` under `conventions`; `own_pose` when it computed its pose and palette itself (their float32 error
//   is then part of its vertices' bounds), and the engine's fitted sampling allowances (none: the model's own).
// - reference_pose(): evaluate_recipe() or evaluate_pose() under the conventions (anim/).
// - run_pose_bounds(): the recipe's bounds (recipe_bounds.h) at `time`, or the clip's at the time the
//   conventions map `time` to, under the model and allowances (engine_allowances.h; no allowance gives
//   pose_error_bounds() itself).
// - VertexCheck names the reference side of one comparison; check_bounds() is its vertex bounds
//   (vertex_error_bounds(), bounds_model.h) and verify_vertices() those bounds with the comparison of `test`
//   against `reference` (compare_vertices(), vertex_compare.h: InputError when the dumps are not the model's).
//   verify_within() compares within bounds already made (diagnose reuses them across candidates, the
//   conformance verdict across a case's two tiers).
// - verify_run() is the whole check from a RunPose: the reference pose, its run's pose bounds when
//   `own_pose`, the reference's vertices (evaluated when `reference` is null), the bounds and the comparison.
#pragma once

#include "anim/recipe.h"
#include "core/conventions.h"
#include "core/pose.h"
#include "core/scene.h"
#include "core/vertices.h"
#include "skin/options.h"
#include "verify/bounds_model.h"
#include "verify/engine_allowances.h"
#include "verify/recipe_bounds.h"
#include "verify/vertex_compare.h"

#include <optional>
#include <vector>

namespace skinref {

struct RunPose {
  const Recipe* recipe = nullptr;  // a recipe's pose; `animation` is then not used
  int animation = -1;
  double time = 0.0;
  Conventions conventions;  // glTF 2.0
  bool own_pose = true;     // the run sampled and built its palette itself
  EngineAllowances allowances;
};

EvaluatedPose reference_pose(const Scene& scene, const RunPose& run);
RecipePoseBounds run_pose_bounds(const Scene& scene, const RunPose& run, BoundsModel model);

struct VertexCheck {
  const Scene& scene;
  const EvaluatedPose& reference_pose;
  SkinningOptions options;
  BoundsModel model = BoundsModel::AnyOrder;
  const PoseErrorBounds* run_pose_bounds = nullptr;  // when the run computed its own pose
};

struct VertexVerdict {
  std::vector<PrimitiveErrorBounds> bounds;
  VertexComparison comparison;
};

std::vector<PrimitiveErrorBounds> check_bounds(const VertexCheck& check);
VertexVerdict verify_vertices(const VertexCheck& check, const std::vector<WorldPrimitive>& reference,
                              const std::vector<WorldPrimitive>& test);
VertexComparison verify_within(const Scene& scene, const std::vector<WorldPrimitive>& reference,
                               const std::vector<WorldPrimitive>& test, const std::vector<PrimitiveErrorBounds>& bounds);

struct RunVerdict {
  EvaluatedPose pose;
  std::optional<PoseErrorBounds> pose_bounds;  // when own_pose
  std::vector<WorldPrimitive> reference;       // the reference's vertices (as given, or evaluated)
  VertexVerdict vertices;
};

RunVerdict verify_run(const Scene& scene, const RunPose& run, const SkinningOptions& options, BoundsModel model,
                      const std::vector<WorldPrimitive>* reference, const std::vector<WorldPrimitive>& test);

}  // namespace skinref

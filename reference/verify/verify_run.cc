// The one check of a run's vertices (see verify_run.h).
#include "verify/verify_run.h"

#include "anim/evaluate_pose.h"
#include "anim/time_mapping.h"
#include "skin/evaluate_vertices.h"

namespace skinref {

EvaluatedPose reference_pose(const Scene& scene, const RunPose& run) {
  return run.recipe ? evaluate_recipe(scene, *run.recipe, run.time)
                    : evaluate_pose(scene, run.animation, run.time, run.conventions);
}

RecipePoseBounds run_pose_bounds(const Scene& scene, const RunPose& run, BoundsModel model) {
  if (run.recipe) return recipe_pose_error_bounds(scene, *run.recipe, run.time);
  const double sample_time = convention_sample_time(scene, run.animation, run.time, run.conventions);
  return {pose_error_bounds_allowing(model, scene, run.animation, sample_time, run.allowances), {}};
}

std::vector<PrimitiveErrorBounds> check_bounds(const VertexCheck& check) {
  return vertex_error_bounds(check.model, check.scene, check.reference_pose, check.options, check.run_pose_bounds);
}

VertexVerdict verify_vertices(const VertexCheck& check, const std::vector<WorldPrimitive>& reference,
                              const std::vector<WorldPrimitive>& test) {
  VertexVerdict verdict;
  verdict.bounds = check_bounds(check);
  verdict.comparison = verify_within(check.scene, reference, test, verdict.bounds);
  return verdict;
}

VertexComparison verify_within(const Scene& scene, const std::vector<WorldPrimitive>& reference,
                               const std::vector<WorldPrimitive>& test, const std::vector<PrimitiveErrorBounds>& bounds) {
  return compare_vertices(scene, reference, test, bounds);
}

RunVerdict verify_run(const Scene& scene, const RunPose& run, const SkinningOptions& options, BoundsModel model,
                      const std::vector<WorldPrimitive>* reference, const std::vector<WorldPrimitive>& test) {
  RunVerdict verdict;
  verdict.pose = reference_pose(scene, run);
  if (run.own_pose) verdict.pose_bounds = run_pose_bounds(scene, run, model).pose;
  verdict.reference = reference ? *reference : evaluate_vertices(scene, verdict.pose, options, run.conventions);
  const VertexCheck check{scene, verdict.pose, options, model, verdict.pose_bounds ? &*verdict.pose_bounds : nullptr};
  verdict.vertices = verify_vertices(check, verdict.reference, test);
  return verdict;
}

}  // namespace skinref

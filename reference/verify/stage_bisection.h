// Stage bisection: where a float32 run of the pipeline (the Vulkan path, or an engine's dumps) first left the
// reference, stage by stage, each against its derived bound (pose_error_bounds.h, vertex_error_bounds.h).
//
// Contract:
// - Stages, in pipeline order: time mapping (the clip time the playback time mapped to, when both poses
//   know it: EvaluatedPose::clip_time; bound: tol::kTimeMappingUlps ulp of |time| + |clip time|: a
//   subtraction, a product by the rate, a remainder and an addition), sampling (each node's local TRS), local to model (global matrices), palette (each skin joint's JM
//   and normal matrix), morph (each node's morph weights: named here, just before the skinning they feed,
//   rather than with the TRS), skinning (positions, normals, tangents). A test rotation q is compared in the
//   reference's hemisphere (q and -q are one rotation) unless bits are compared.
// - Inputs: the scene; the reference pose (evaluate_pose at the float run's time) and the float run's pose
//   (gpu_evaluate_pose, or read_pose_dump of an engine's dump) with the pose bounds; the reference vertices
//   and the float run's with the vertex bounds. `test_pose` may be null (the float run used the reference's
//   palettes, --palette reference): the pose stages are then not examined.
// - Output: the first stage with any value over its bound (or Stage::None), how many values of that stage
//   are over, and the worst one (largest error / bound): a readable location ("node 3 'elbow' rotation.z",
//   "skin 0 joint 5 (node 7 'hand') palette (1,3)", "primitive 0 (node 2, mesh 0) vertex 117 normal"), its
//   node / joint / vertex indices, error and bound. Later stages are not reported: they inherit the error.
// - Structural mismatches (node counts, skins, primitives) throw InputError. Within bounds, a float run
//   without normals or tangents (a positions-only dump, a user's shader that writes positions and normals)
//   is examined on the attributes it has; compared bit for bit, every attribute must be there.
#pragma once

#include "core/pose.h"
#include "core/vertices.h"
#include "verify/pose_error_bounds.h"
#include "verify/vertex_error_bounds.h"

#include <string>
#include <vector>

namespace skinref {

enum class PipelineStage { TimeMapping, Sampling, Blend, LocalToModel, Ik, Palette, Morph, Skinning, None };

// "time-mapping", "sampling", "blend", "local-to-model", "ik", "palette", "morph", "skinning", "none"
const char* pipeline_stage_name(PipelineStage stage);

struct StageDivergence {
  PipelineStage stage = PipelineStage::None;
  size_t values_over = 0;   // in that stage
  size_t values_checked = 0;  // over all stages examined
  std::string location;     // of the worst value
  int node = -1;            // the worst value's node (sampling, local to model; the joint's node for palette)
  int skin = -1, joint = -1;
  int primitive_index = -1;
  long long vertex = -1;
  double error = 0.0, bound = 0.0;
};

// A recipe's pose (anim/recipe.h): its local TRS is the blend's (sampling, blending and additive layers), and
// IK changes some nodes after local to model. Given `ik_nodes` (per node, 1 where IK changed its local
// transform: recipe_pose_error_bounds()), the stages are blend (the local TRS of the other nodes), local to
// model (the globals of nodes outside the IK nodes' subtrees), ik (the IK nodes' local TRS and the globals of
// their subtrees), then palette, morph and skinning as for a clip.
struct RecipeStages {
  std::vector<char> ik_nodes;
};

StageDivergence bisect_stages(const Scene& scene, const EvaluatedPose& reference_pose, const EvaluatedPose* test_pose,
                              const PoseErrorBounds* pose_bounds, const std::vector<WorldPrimitive>& reference_vertices,
                              const std::vector<WorldPrimitive>& test_vertices,
                              const std::vector<PrimitiveErrorBounds>& vertex_bounds,
                              const RecipeStages* recipe = nullptr);

// The same walk for two runs that must agree exactly (the reference against its own goldens): a value is
// over when it differs at all (vertices component by component: "vertex 7 position.y"), and the location is
// the first differing value of the first stage with one. `actual_pose` may be null (vertices only).
StageDivergence first_differing_stage(const Scene& scene, const EvaluatedPose& expected_pose,
                                      const EvaluatedPose* actual_pose,
                                      const std::vector<WorldPrimitive>& expected_vertices,
                                      const std::vector<WorldPrimitive>& actual_vertices);

}  // namespace skinref

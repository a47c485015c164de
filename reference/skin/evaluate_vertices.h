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

#include "skin/morph.h"
#include "core/conventions.h"

#include <deque>
#include <vector>

namespace skinref {

// The reference stage of options.method on one primitive: skin_lbs() or skin_dqs().
void skin_primitive(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output);

std::vector<WorldPrimitive> evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& options);

// The vertex pipeline under engine conventions (core/conventions.h). options.weights and options.normals
// come from the conventions (skinning_options_under()); the conventions the stages lack run as the steps of
// skin/skinning_conventions.h around them: morph-order=after-skinning, mesh-node, weights=l2, zero-weights,
// normals=blend-upper3x3 and normalize=no (LBS only: under DQS they throw std::invalid_argument). The pose
// carries the morph-weight conventions (anim/evaluate_pose.h). Rigid mesh nodes (no skin) follow glTF
// whatever the conventions. The skinning mistakes (core/mistakes.h): skinning=skipped gives each skinned vertex
// as it entered skinning (bind space, morphed); joint-offset=1 reads joint j as j + 1 from the skin's palette
// with one identity entry past its end; mesh-node=applied-twice applies M M. With Conventions{}: the same
// bits as evaluate_vertices(scene, pose, options).
std::vector<WorldPrimitive> evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& options, const Conventions& conventions);
// `options` with weights and normals as the skinning conventions set them: weights=sum -> Renormalize (else
// AsStored), normals=blend-normal-matrices -> BlendedNormalMatrices (else InverseTransposeOfBlend).
SkinningOptions skinning_options_under(SkinningOptions options, const SkinningConventions& conventions);

// evaluate_vertices() in its two steps, for callers that skin one pose repeatedly (the reference backend's
// skinning job, the benchmarks): prepare_vertices() applies the morph targets and gathers every drawn
// primitive's SkinningInput; skin_prepared() runs the skinning pass into `output`, resized to one
// WorldPrimitive per drawn primitive (vertex arrays reused across calls). The same bits as
// evaluate_vertices(). The inputs point into the scene, the pose and the PreparedVertices itself: the scene
// and the pose must outlive it, and it moves but does not copy.
struct PreparedPrimitive {
  int node = -1, mesh = -1, primitive = -1;
  bool skinned = false;
  MorphedAttributes morphed;           // empty when the primitive has no morph targets
  std::vector<uint32_t> rigid_joints;  // a rigid node's one influence per vertex: joint 0 ...
  std::vector<double> rigid_weights;   // ... with weight 1
  SkinningInput input;
};

struct PreparedVertices {
  PreparedVertices() = default;
  PreparedVertices(PreparedVertices&&) = default;
  PreparedVertices& operator=(PreparedVertices&&) = default;
  PreparedVertices(const PreparedVertices&) = delete;
  PreparedVertices& operator=(const PreparedVertices&) = delete;

  std::vector<PreparedPrimitive> primitives;  // drawn_nodes() order
  std::deque<JointPalette> rigid_palettes;    // one per rigid node; a deque, so that inputs may point at them
  SkinningOptions options;
};

PreparedVertices prepare_vertices(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options);
void skin_prepared(const PreparedVertices& prepared, std::vector<WorldPrimitive>& output);

}  // namespace skinref

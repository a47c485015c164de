// The whole reference pipeline for one scene at one time: sample -> local to model -> palettes ->
// morph -> skin, producing world-space vertices of every drawn primitive.
//
// Contract:
// - `animation` is an index into scene.animations, or -1 for the rest pose.
// - Primitives are listed in scene order: a depth-first walk of the active scene's roots (children in file
//   order), each node's mesh primitives in order. Nodes outside the active scene are not listed.
// - A node with a skin is skinned (LBS, or DQS with SkinningOptions::method) with its skin's palette; its
//   own transform is ignored (glTF). A node with a mesh and no skin is transformed rigidly by its global
//   matrix (normals by normal_matrix, tangents by the linear part, both normalized). Morph targets apply
//   before either.
#pragma once

#include "palette.h"
#include "pose.h"
#include "skinning_lbs.h"

#include <vector>

namespace skinref {

struct EvaluatedPose {
  int animation = -1;
  double time = 0.0;
  LocalPose local;
  ModelPose model;
  std::vector<JointPalette> palettes;  // per skin
};

struct WorldPrimitive {
  int node = -1;
  int mesh = -1;
  int primitive = -1;
  bool skinned = false;
  SkinnedVertices vertices;
};

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time);

std::vector<WorldPrimitive> evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& options);

// Nodes with a mesh in the active scene, in the order evaluate_vertices lists them.
std::vector<int> drawn_nodes(const Scene& scene);

}  // namespace skinref

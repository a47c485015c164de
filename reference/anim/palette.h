// Stage: the joint palette of one skin.
//
// Contract (glTF 2.0, "Skins"): for joint i of the skin, JM_i = G(joint_i) * IBM_i, where G is the joint
// node's global transform from the ModelPose. The transform of the node that uses the skin is NOT applied:
// the palette maps bind-space vertices straight to world space. Per joint also the normal matrix
// normal_matrix(upper 3x3 of JM_i) (inverse transpose up to a positive factor; normals are normalized after
// use). Output vectors are skin.joints.size() long.
#pragma once

#include "core/pose.h"

namespace skinref {

JointPalette compute_palette(const Scene& scene, const ModelPose& model_pose, int skin);

}  // namespace skinref

// Stage: the joint palette of one skin.
//
// Contract (glTF 2.0, "Skins"): for joint i of the skin, JM_i = G(joint_i) * IBM_i, where G is the joint
// node's global transform from the ModelPose. The transform of the node that uses the skin is NOT applied:
// the palette maps bind-space vertices straight to world space. Per joint also the normal matrix
// normal_matrix(upper 3x3 of JM_i) (inverse transpose up to a positive factor; normals are normalized after
// use). Output vectors are skin.joints.size() long.
//
// Convention skeleton-ancestors=dropped (core/conventions.h): G is taken from the skin's skeleton root down,
// the transforms of the nodes above it dropped: G'(j) = G(parent(root))^-1 * G(j). The root is
// skin.skeleton, else the nearest common ancestor of the joints. (mesh-node, the other palette convention,
// is per mesh node rather than per skin: skin/evaluate_vertices.h applies it.)
// skeleton-ancestors=doubled (a mistake): G'(j) = G(parent(root)) * G(j).
// The palette mistakes (core/mistakes.h): with B the inverse bind matrix as inverse-bind-use takes it (IBM,
// the identity, IBM IBM or IBM^T) and P = G B (or B G under palette-product=inverse-bind-times-global), full
// 4x4 products, JM_i = P (or P^T under palette-matrices=transposed) with its last row set to (0, 0, 0, 1): the
// upper rows are what reaches a vertex's xyz.
// Convention joint-cap=N: entries N and beyond are the identity (skinning and normal matrix), as in an engine
// whose palette holds N matrices and never uploads the rest.
#pragma once
#include "core/conventions.h"
#include "core/pose.h"
namespace skinref {
JointPalette compute_palette(const Scene& scene, const ModelPose& model_pose, int skin,
                             const PaletteConventions& conventions = {}, const Mistakes& mistakes = {});
// The skin's skeleton root: skin.skeleton, else the nearest common ancestor of its joints (-1: none).
int skeleton_root(const Scene& scene, int skin);
}  // namespace skinref

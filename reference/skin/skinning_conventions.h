// The skinning-stage engine conventions (core/conventions.h) that skin_lbs() and skin_dqs() do not implement
// themselves, as steps around them. evaluate_vertices() (skin/evaluate_vertices.h) composes them; the
// defaults (glTF 2.0) never reach this file.
//
// Contract:
// - adjust_influences(): weights=l2 divides a vertex's weights by their L2 norm sqrt(sum w^2);
//   zero-weights=joint0 gives a vertex whose weights sum to exactly 0 the skin's joint 0 with weight 1
//   (skinref's default keeps it at its bind pose). The weight mistakes come first: weights=equal gives each of
//   a vertex's k slots 1/k, weights=ones each 1 (the weights ignored), weights=last-from-others the last slot
//   1 - the sum of the others. weights=sum is not done here: it is
//   SkinningOptions::weights = WeightPolicy::Renormalize, which every backend implements.
// - skin_lbs_normal_variant(): LBS, positions exactly as skin_lbs() defines them (B = sum w_i JM_i in
//   influence order, p' = B (p, 1); a zero-sum vertex keeps its bind attributes), for the normal conventions
//   skin_lbs() lacks. With B3 the upper 3x3 of B:
//     normals=inverse-transpose       n' = B3^-T n        (the true inverse transpose: its length matters
//                                                           when normalize=no)
//     normals=blend-normal-matrices   n' = sum w_i N_i n   (N_i the palette's normal matrices: the cofactor
//                                                           of JM_i, = the inverse transpose for rigid joints)
//     normals=blend-upper3x3          n' = B3 n            (the tutorials' mat3(B) * n)
//     normals=as-point                n' = B (n, 1)        (B's translation added: `B * vec4(n, 1.0)`)
//     normals=unskinned               n' = n, t' = t      (a mistake: both left in bind space)
//     normals=blend-inverse-transposes n' = sum w_i JM_i3^-T n (ozz-animation's SkinningJob given the joints'
//                                                           inverse transposes; = blend-normal-matrices where
//                                                           every det JM_i3 is 1; a singular joint adds 0)
//   tangents t'.xyz = B3 t.xyz, w kept; normalize=yes normalizes both, normalize=no leaves them.
//   Weights are used as the options say (WeightPolicy).
// - add_morph_deltas_after_skinning(): morph-order=after-skinning, p' += sum_k w_k dP_k (likewise normals and
//   tangent xyz; renormalized when `normalize`), targets in order, zero weights skipped.
// - apply_mesh_node_transform(): mesh-node=applied or inverse: positions by M (or M^-1), normals by its
//   normal matrix and tangents by its linear part, renormalized when `normalize`.
// - apply_mesh_node_normal_mismatch(): mesh-node=normals-by-normal-matrix-times-inverse: normals alone by
//   N(M) M^-1 = (M M^T)^-1 (the linear parts): their direction when `normalize` (each keeps its length), the map
//   itself otherwise; positions and tangents kept.
#pragma once
#include "core/conventions.h"
#include "core/scene.h"
#include "skin/options.h"
#include <span>
#include <vector>
namespace skinref {
struct AdjustedInfluences {
  std::vector<uint32_t> joints;
  std::vector<double> weights;
};
bool influences_need_adjusting(const SkinningConventions& conventions);
AdjustedInfluences adjust_influences(std::span<const uint32_t> joints, std::span<const double> weights,
                                     int influences_per_vertex, const SkinningConventions& conventions);
// True when the normal conventions need skin_lbs_normal_variant() rather than skin_lbs().
bool needs_normal_variant(const SkinningConventions& conventions);
void skin_lbs_normal_variant(const SkinningInput& input, const SkinningOptions& options,
                             const SkinningConventions& conventions, SkinnedVertices& output);
void add_morph_deltas_after_skinning(const Primitive& primitive, std::span<const double> weights, bool normalize,
                                     SkinnedVertices& vertices);
void apply_mesh_node_transform(const Mat4& transform, bool normalize, SkinnedVertices& vertices);
void apply_mesh_node_normal_mismatch(const Mat4& mesh_node, bool normalize, SkinnedVertices& vertices);
Mat3 mesh_node_normal_mismatch(const Mat4& mesh_node);  // N(M) M^-1 = (M M^T)^-1 of the linear part
}  // namespace skinref

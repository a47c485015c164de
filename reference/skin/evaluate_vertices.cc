#include "skin/evaluate_vertices.h"

#include "skin/dqs.h"
#include "skin/lbs.h"
#include "skin/morph.h"

#include <stdexcept>

namespace skinref {

void skin_primitive(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output) {
  switch (options.method) {
    case SkinningMethod::Lbs: skin_lbs(input, options, output); return;
    case SkinningMethod::Dqs: skin_dqs(input, options, output); return;
  }
  throw std::invalid_argument("skin_primitive: not a SkinningMethod");
}

std::vector<WorldPrimitive> evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& options) {
  std::vector<WorldPrimitive> result;
  for (int n : drawn_nodes(scene)) {
    const Node& node = scene.nodes[size_t(n)];
    const Mesh& mesh = scene.meshes[size_t(node.mesh)];
    // A rigid node is skinned by a one-joint palette holding its global matrix, with weight 1: the same
    // kernel, and the same bits as a dedicated transform (1 * x == x).
    JointPalette rigid;
    if (node.skin < 0) {
      rigid.skinning = {pose.model.global[size_t(n)]};
      rigid.normal = {normal_matrix(rigid.skinning[0].topLeftCorner<3, 3>())};
    }
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      WorldPrimitive out;
      out.node = n;
      out.mesh = node.mesh;
      out.primitive = int(p);
      out.skinned = node.skin >= 0;
      MorphedAttributes morphed;
      const bool morphing = !prim.targets.empty();
      if (morphing) morphed = apply_morph_targets(prim, pose.local.morph_weights[size_t(n)]);
      SkinningInput in;
      in.positions = morphing ? morphed.positions : prim.positions;
      in.normals = morphing ? morphed.normals : prim.normals;
      in.tangents = morphing ? morphed.tangents : prim.tangents;
      std::vector<uint32_t> rigid_joints;
      std::vector<double> rigid_weights;
      if (out.skinned) {
        in.influences_per_vertex = prim.influences_per_vertex;
        in.joints = prim.joints;
        in.weights = prim.weights;
        in.palette = &pose.palettes[size_t(node.skin)];
      } else {
        rigid_joints.assign(prim.vertex_count(), 0);
        rigid_weights.assign(prim.vertex_count(), 1.0);
        in.influences_per_vertex = 1;
        in.joints = rigid_joints;
        in.weights = rigid_weights;
        in.palette = &rigid;
      }
      // The method applies to skinned nodes only; a rigid node's one-joint palette is LBS's single influence.
      if (out.skinned) skin_primitive(in, options, out.vertices);
      else skin_lbs(in, options, out.vertices);
      result.push_back(std::move(out));
    }
  }
  return result;
}

}  // namespace skinref

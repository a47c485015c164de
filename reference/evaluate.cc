#include "evaluate.h"

#include "local_to_model.h"
#include "morph.h"
#include "sampling.h"
#include "skinning_dqs.h"

namespace skinref {

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time) {
  EvaluatedPose pose;
  pose.animation = animation;
  pose.time = time;
  pose.local = rest_pose(scene);
  if (animation >= 0) sample_animation(scene, animation, time, pose.local);
  pose.model = local_to_model(scene, pose.local);
  pose.palettes.reserve(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) pose.palettes.push_back(compute_palette(scene, pose.model, int(s)));
  return pose;
}

std::vector<int> drawn_nodes(const Scene& scene) {
  std::vector<int> nodes;
  std::vector<int> stack(scene.roots.rbegin(), scene.roots.rend());
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (scene.nodes[size_t(n)].mesh >= 0) nodes.push_back(n);
    const auto& children = scene.nodes[size_t(n)].children;
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return nodes;
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
      // DQS applies to skinned nodes only; a rigid node's one-joint palette is the same under either method.
      if (out.skinned && options.method == SkinningMethod::Dqs) skin_dqs(in, options, out.vertices);
      else skin_lbs(in, options, out.vertices);
      result.push_back(std::move(out));
    }
  }
  return result;
}

}  // namespace skinref

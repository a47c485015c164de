#include "io/load_conventions.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace skinref {
namespace {

void limit_influences(Primitive& prim, const LoadConventions& conventions) {
  const size_t k = size_t(prim.influences_per_vertex);
  if (k == 0) return;
  const size_t n = prim.vertex_count();
  size_t kept = k;
  if (conventions.influences == InfluenceLimit::FirstSet) kept = std::min<size_t>(k, 4);
  if (conventions.influences == InfluenceLimit::FirstSets) kept = std::min<size_t>(k, size_t(conventions.influence_count));
  if (conventions.influences == InfluenceLimit::Largest) kept = std::min<size_t>(k, size_t(conventions.influence_count));
  if (conventions.influences == InfluenceLimit::FirstInfluence) kept = 1;
  const bool sort = conventions.influences == InfluenceLimit::Largest;
  const size_t stride = (kept + 3) / 4 * 4;
  std::vector<uint32_t> joints(n * stride, 0);
  std::vector<double> weights(n * stride, 0.0);
  std::vector<size_t> order(k);
  for (size_t v = 0; v < n; ++v) {
    const double* w = &prim.weights[v * k];
    std::iota(order.begin(), order.end(), size_t(0));
    if (sort) std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return w[a] > w[b]; });
    double sum = 0.0;
    for (size_t i = 0; i < kept; ++i) {
      joints[v * stride + i] = prim.joints[v * k + order[i]];
      weights[v * stride + i] = w[order[i]];
      sum += w[order[i]];
    }
    if (conventions.renormalize_limited && sum > 0.0)
      for (size_t i = 0; i < kept; ++i) weights[v * stride + i] /= sum;
  }
  prim.influences_per_vertex = int(stride);
  prim.weight_set_max.clear();  // the kept weights mix sets; they were decoded before (apply_load_conventions)
  prim.joints = std::move(joints);
  prim.weights = std::move(weights);
}

void inverse_bind_from_rest_pose(Scene& scene) {
  std::vector<Mat4> global(scene.nodes.size());
  for (int n : scene.node_order) {
    const Mat4 local = compose_trs(scene.nodes[size_t(n)].rest);
    const int parent = scene.nodes[size_t(n)].parent;
    global[size_t(n)] = parent < 0 ? local : multiply_affine(global[size_t(parent)], local);
  }
  for (Skin& skin : scene.skins) {
    for (size_t j = 0; j < skin.joints.size(); ++j) {
      Mat4 inverse = global[size_t(skin.joints[j])].inverse();
      inverse.row(3) << 0.0, 0.0, 0.0, 1.0;
      skin.inverse_bind[j] = inverse;
    }
  }
}

// weight-decoding: each normalized set's weights read back to their integers c, then decoded as the engine does.
void decode_weights(Primitive& prim, WeightDecoding decoding) {
  const size_t k = size_t(prim.influences_per_vertex);
  for (size_t set = 0; set < prim.weight_set_max.size(); ++set) {
    const double max = double(prim.weight_set_max[set]);
    if (max == 0.0) continue;
    for (size_t v = 0; v < prim.vertex_count(); ++v)
      for (size_t c = 0; c < 4; ++c) {
        double& w = prim.weights[v * k + set * 4 + c];
        const double integer = std::round(w * max);
        switch (decoding) {
          case WeightDecoding::Normalized: break;
          case WeightDecoding::Raw: w = integer; break;
        }
      }
  }
}

void apply_node_matrix(Scene& scene, NodeMatrix rule) {
  for (Node& node : scene.nodes) {
    if (!node.had_matrix) continue;
    switch (rule) {
      case NodeMatrix::Used: break;
      case NodeMatrix::Ignored: node.rest = Transform{}; break;
      case NodeMatrix::ReflectionLost: node.rest.scale = node.rest.scale.cwiseAbs(); break;
    }
  }
}

// channel-target=first-named: each channel moves to the first node named as its target (unnamed: unchanged).
void target_channels_by_name(Scene& scene) {
  for (Animation& animation : scene.animations)
    for (AnimationChannel& channel : animation.channels) {
      const std::string& name = scene.nodes[size_t(channel.node)].name;
      if (name.empty()) continue;
      for (size_t n = 0; n < scene.nodes.size(); ++n)
        if (scene.nodes[n].name == name) {
          channel.node = int(n);
          break;
        }
    }
}

// joint-index=node: JOINTS value k picks the skin joint whose node is k (a node that is no joint: joint 0).
void joints_as_node_indices(Scene& scene) {
  std::vector<bool> remapped(scene.meshes.size(), false);  // a mesh two skinned nodes share, once
  for (const Node& node : scene.nodes) {
    if (node.skin < 0 || node.mesh < 0 || remapped[size_t(node.mesh)]) continue;
    remapped[size_t(node.mesh)] = true;
    const std::vector<int>& joints = scene.skins[size_t(node.skin)].joints;
    for (Primitive& prim : scene.meshes[size_t(node.mesh)].primitives)
      for (uint32_t& j : prim.joints) {
        const auto at = std::find(joints.begin(), joints.end(), int(j));
        j = at == joints.end() ? 0u : uint32_t(at - joints.begin());
      }
  }
}

}  // namespace

void apply_load_conventions(Scene& scene, const LoadConventions& conventions) {
  if (conventions.weight_decoding != WeightDecoding::Normalized)
    for (Mesh& mesh : scene.meshes)
      for (Primitive& prim : mesh.primitives) decode_weights(prim, conventions.weight_decoding);
  if (conventions.node_matrix != NodeMatrix::Used) apply_node_matrix(scene, conventions.node_matrix);
  if (conventions.channel_target == ChannelTarget::FirstNamed) target_channels_by_name(scene);
  if (conventions.joint_index == JointIndexSpace::Node) joints_as_node_indices(scene);
  if (conventions.morph_normals == MorphNormals::Ignored)
    for (Mesh& mesh : scene.meshes)
      for (Primitive& prim : mesh.primitives)
        for (MorphTarget& target : prim.targets) {
          target.normal_deltas.clear();
          target.tangent_deltas.clear();
        }
  if (conventions.influences != InfluenceLimit::All) {
    std::vector<bool> limited(scene.meshes.size(), false);  // a mesh two skinned nodes share, once
    for (const Node& node : scene.nodes) {
      if (node.skin < 0 || node.mesh < 0 || limited[size_t(node.mesh)]) continue;
      limited[size_t(node.mesh)] = true;
      for (Primitive& prim : scene.meshes[size_t(node.mesh)].primitives)
        if (prim.influences_per_vertex > 0 && !prim.joints.empty()) limit_influences(prim, conventions);
    }
  }
  if (conventions.inverse_bind == InverseBind::FromRestPose) inverse_bind_from_rest_pose(scene);
}

}  // namespace skinref

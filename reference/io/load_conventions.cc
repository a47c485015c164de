#include "io/load_conventions.h"

#include <algorithm>
#include <numeric>

namespace skinref {
namespace {

void limit_influences(Primitive& prim, const LoadConventions& conventions) {
  const size_t k = size_t(prim.influences_per_vertex);
  if (k == 0) return;
  const size_t n = prim.vertex_count();
  size_t kept = k;
  if (conventions.influences == InfluenceLimit::FirstSet) kept = std::min<size_t>(k, 4);
  if (conventions.influences == InfluenceLimit::Largest) kept = std::min<size_t>(k, size_t(conventions.influence_count));
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

}  // namespace

void apply_load_conventions(Scene& scene, const LoadConventions& conventions) {
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

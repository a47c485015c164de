#include "anim/evaluate_pose.h"

#include "anim/local_to_model.h"
#include "anim/palette.h"
#include "anim/pose_mistakes.h"
#include "anim/sampling.h"
#include "anim/time_mapping.h"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace skinref {
namespace {

// morph-targets=K: the K largest |w| of each node stay, the others become 0.
void keep_largest_morph_weights(LocalPose& pose, int max_targets) {
  for (std::vector<double>& weights : pose.morph_weights) {
    if (weights.size() <= size_t(max_targets)) continue;
    std::vector<size_t> order(weights.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return std::abs(weights[a]) > std::abs(weights[b]); });
    for (size_t i = size_t(max_targets); i < order.size(); ++i) weights[order[i]] = 0.0;
  }
}

// rest-values=identity: on each node the clip animates, the properties it does not animate take the
// identity's value instead of the node's own.
void identity_rest_values(const Scene& scene, int animation, LocalPose& pose) {
  if (animation < 0) return;
  struct Animated {
    bool node = false, translation = false, rotation = false, scale = false;
  };
  std::vector<Animated> animated(scene.nodes.size());
  for (const AnimationChannel& channel : scene.animations[size_t(animation)].channels) {
    Animated& a = animated[size_t(channel.node)];
    switch (channel.path) {
      case ChannelPath::Translation: a.translation = a.node = true; break;
      case ChannelPath::Rotation: a.rotation = a.node = true; break;
      case ChannelPath::Scale: a.scale = a.node = true; break;
      case ChannelPath::Weights: break;  // morph weights have no identity other than their defaults
    }
  }
  for (size_t n = 0; n < animated.size(); ++n) {
    if (!animated[n].node) continue;
    Transform& local = pose.local[n];
    if (!animated[n].translation) local.translation = Vec3::Zero();
    if (!animated[n].rotation) local.rotation = Quat::Identity();
    if (!animated[n].scale) local.scale = Vec3::Ones();
  }
}

// The TRS nearest an affine matrix: its translation, the length of each column as the scale (the first
// negative where the determinant is), and the rotation nearest the columns so scaled (U V^T of their SVD).
Mat4 nearest_trs(const Mat4& m) {
  Mat3 linear = m.topLeftCorner<3, 3>();
  Transform trs;
  trs.translation = m.topRightCorner<3, 1>();
  for (int c = 0; c < 3; ++c) trs.scale[c] = linear.col(c).norm();
  if (linear.determinant() < 0.0) trs.scale[0] = -trs.scale[0];
  for (int c = 0; c < 3; ++c)
    if (trs.scale[c] != 0.0) linear.col(c) /= trs.scale[c];  // a zero scale (glTF allows it) keeps its column 0
  const Eigen::JacobiSVD<Mat3> svd(linear, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU();
  // A column of 0 leaves the nearest orthogonal matrix free to be a reflection: keep it a rotation.
  if ((u * svd.matrixV().transpose()).determinant() < 0.0) u.col(2) = -u.col(2);
  trs.rotation = Quat(Mat3(u * svd.matrixV().transpose())).normalized();
  return compose_trs(trs);
}

// shear=dropped: every global transform stored as TRS, each node's built from its parent's stored one.
void drop_global_shear(const Scene& scene, const LocalPose& local, ModelPose& model) {
  for (int n : scene.node_order) {
    const int parent = scene.nodes[size_t(n)].parent;
    const Mat4 own = compose_trs(local.local[size_t(n)]);
    model.global[size_t(n)] = nearest_trs(parent < 0 ? own : multiply_affine(model.global[size_t(parent)], own));
  }
}

// morph-defaults: the unanimated weights rest_pose() gave (node.weights, else mesh.weights) replaced by zeros, or
// by mesh.weights alone.
void apply_morph_defaults(const Scene& scene, MorphDefaults defaults, LocalPose& local) {
  switch (defaults) {
    case MorphDefaults::Used:
      return;
    case MorphDefaults::Ignored:
      for (std::vector<double>& weights : local.morph_weights) std::fill(weights.begin(), weights.end(), 0.0);
      return;
    case MorphDefaults::MeshOnly:
      for (size_t n = 0; n < scene.nodes.size(); ++n) {
        std::vector<double>& weights = local.morph_weights[n];
        const int mesh = scene.nodes[n].mesh;
        if (mesh < 0 || weights.empty()) continue;
        const std::vector<double>& mesh_weights = scene.meshes[size_t(mesh)].default_weights;
        if (mesh_weights.size() == weights.size()) weights = mesh_weights;
        else std::fill(weights.begin(), weights.end(), 0.0);
      }
      return;
  }
}

}  // namespace

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time) {
  return evaluate_pose(scene, animation, time, Conventions{});
}

EvaluatedPose evaluate_pose(const Scene& scene, int animation, double time, const Conventions& conventions) {
  EvaluatedPose pose;
  pose.animation = animation;
  pose.time = time;
  pose.local = rest_pose(scene);
  apply_morph_defaults(scene, conventions.morph.defaults, pose.local);
  if (conventions.palette.rest_values == RestValues::Identity) identity_rest_values(scene, animation, pose.local);
  const Mistakes& mistakes = conventions.mistakes;
  pose.clip_time = convention_sample_time(scene, animation, time, conventions);
  const bool played = animation >= 0 && mistakes.animation == AnimationPlayback::Played;
  if (played && sampling_mistaken(mistakes))
    sample_animation_with_mistakes(scene, animation, pose.clip_time, pose.local, conventions.sampling, mistakes);
  else if (played)
    sample_animation(scene, animation, pose.clip_time, pose.local, conventions.sampling);
  apply_morph_weight_mistake(mistakes.morph_weights, pose.local);
  if (conventions.morph.negative_weights == NegativeMorphWeights::Clamped)
    for (std::vector<double>& weights : pose.local.morph_weights)
      for (double& w : weights) w = std::max(w, 0.0);
  if (conventions.morph.max_targets != kEveryMorphTarget) keep_largest_morph_weights(pose.local, conventions.morph.max_targets);
  if (hierarchy_mistaken(mistakes)) local_to_model_with_mistakes(scene, pose.local, mistakes, pose.model);
  else pose.model = local_to_model(scene, pose.local);
  if (conventions.palette.shear == GlobalShear::Dropped) drop_global_shear(scene, pose.local, pose.model);
  pose.palettes.reserve(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s)
    pose.palettes.push_back(compute_palette(scene, pose.model, int(s), conventions.palette, mistakes));
  return pose;
}

}  // namespace skinref

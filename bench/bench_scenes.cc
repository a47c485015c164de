#include "bench/bench_scenes.h"

#include "anim/evaluate_pose.h"
#include "anim/local_to_model.h"
#include "core/pose.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace skinref::bench {
namespace {

// A fixed, well-mixed function of the vertex index (SplitMix64's finalizer), so that vertex v is the same in
// every scene and no state is carried between vertices.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// 21 bits of `bits` starting at `shift` as a value in [-1, 1): a multiple of 2^-20, exact in float32.
double unit_field(uint64_t bits, int shift) { return double((bits >> shift) & 0x1FFFFFu) / 1048576.0 - 1.0; }

bool branch_start(int joint) { return joint > 0 && joint % 6 == 0; }

// Joints 0 .. joints-1 as nodes 0 .. joints-1, children in increasing order; the root is a scene root.
void add_skeleton(Scene& scene, int joints) {
  for (int j = 0; j < joints; ++j) {
    Node node;
    node.name = "joint" + std::to_string(j);
    // Branches step sideways (alternating sides) so that the tree spreads; chains go up their parent's y.
    node.rest.translation =
        branch_start(j) ? Vec3((j / 6) % 2 == 0 ? 0.2 : -0.2, 0.1, 0.05) : Vec3(0.0, j == 0 ? 0.0 : 0.25, 0.0);
    node.rest.rotation = Quat(Eigen::AngleAxisd(0.1 * double(j % 3 - 1), Vec3::UnitZ()));
    scene.nodes.push_back(std::move(node));
    const int parent = bench_joint_parent(j);
    if (parent >= 0) scene.nodes[size_t(parent)].children.push_back(j);
  }
  scene.roots.push_back(0);
}

AnimationSampler linear_sampler(std::vector<double> times, std::vector<double> values, int components) {
  AnimationSampler sampler;
  sampler.interpolation = Interpolation::Linear;
  sampler.times = std::move(times);
  sampler.values = std::move(values);
  sampler.components = components;
  return sampler;
}

void add_channel(Animation& animation, int node, ChannelPath path, AnimationSampler sampler) {
  animation.channels.push_back(AnimationChannel{int(animation.samplers.size()), node, path});
  animation.samplers.push_back(std::move(sampler));
}

std::vector<double> key_times(int keys, double duration) {
  std::vector<double> times;
  for (int k = 0; k < keys; ++k) times.push_back(duration * double(k) / double(keys - 1));
  return times;
}

// Rotation keys rest * AngleAxis(angle(k), axis) and translation keys rest + offset(k), per joint.
template <class Angle, class Offset>
void add_joint_channels(Animation& animation, const Scene& scene, int joint, const std::vector<double>& times,
                        const Vec3& axis, Angle angle, bool translate, Offset offset) {
  const Transform& rest = scene.nodes[size_t(joint)].rest;
  std::vector<double> rotations, translations;
  for (size_t k = 0; k < times.size(); ++k) {
    const Quat q = rest.rotation * Quat(Eigen::AngleAxisd(angle(int(k)), axis.normalized()));
    const auto xyzw = quat_to_xyzw(q);
    rotations.insert(rotations.end(), xyzw.begin(), xyzw.end());
    const Vec3 t = rest.translation + offset(int(k));
    translations.insert(translations.end(), {t.x(), t.y(), t.z()});
  }
  add_channel(animation, joint, ChannelPath::Rotation, linear_sampler(times, std::move(rotations), 4));
  if (translate) add_channel(animation, joint, ChannelPath::Translation, linear_sampler(times, std::move(translations), 3));
}

void finish_animation(Scene& scene, Animation animation) {
  double end = 0.0;
  for (const AnimationSampler& sampler : animation.samplers) end = std::max(end, sampler.times.back());
  animation.start_time = 0.0;
  animation.end_time = end;
  scene.animations.push_back(std::move(animation));
}

}  // namespace

int bench_joint_parent(int joint) {
  if (joint <= 0) return -1;
  return branch_start(joint) ? joint / 3 : joint - 1;
}

Scene make_animation_bench_scene(int joints) {
  if (joints < 1) throw std::invalid_argument("make_animation_bench_scene: joints must be >= 1");
  Scene scene;
  scene.source = "bench:animation joints=" + std::to_string(joints);
  add_skeleton(scene, joints);
  const auto add_clip = [&](const char* name, int keys, double duration, double axis_twist) {
    Animation animation;
    animation.name = name;
    const std::vector<double> times = key_times(keys, duration);
    for (int j = 0; j < joints; ++j) {
      const Vec3 axis(std::sin(axis_twist * j), 1.0, std::cos(axis_twist * j));
      add_joint_channels(
          animation, scene, j, times, axis, [&](int k) { return 0.6 * std::sin(0.7 * k + 0.11 * j); },
          j == 0 || branch_start(j), [&](int k) { return Vec3(0.03 * std::sin(1.3 * k + j), 0.02 * k, 0.0); });
    }
    finish_animation(scene, std::move(animation));
  };
  add_clip("sway", 4, 1.0, 0.3);
  add_clip("twist", 5, 1.6, 0.17);
  finalize_scene(scene);
  return scene;
}

Scene make_skinning_bench_scene(size_t vertices, int influences) {
  if (vertices < 1 || vertices > size_t(std::numeric_limits<uint32_t>::max()))
    throw std::invalid_argument("make_skinning_bench_scene: vertices must be in [1, 2^32 - 1]");
  if (influences != 1 && influences != 2 && influences != 4 && influences != 8)
    throw std::invalid_argument("make_skinning_bench_scene: influences must be 1, 2, 4 or 8");
  constexpr int kJoints = kSkinningBenchJoints;
  Scene scene;
  scene.source = "bench:skinning vertices=" + std::to_string(vertices) + " influences=" + std::to_string(influences);
  add_skeleton(scene, kJoints);

  // The clip: angles 0.3 + 0.25 k + 0.05 (j mod 7) rad (all in (0, pi), about one axis per joint) and
  // translation offsets with every component non-zero at every key, so no joint is at rest at any time.
  Animation animation;
  animation.name = "bench";
  const std::vector<double> times = {0.0, 0.4, 1.0};
  for (int j = 0; j < kJoints; ++j) {
    const Vec3 axis(std::sin(0.9 * j), 1.0, std::cos(0.9 * j) + 0.5);
    add_joint_channels(
        animation, scene, j, times, axis, [&](int k) { return 0.3 + 0.25 * k + 0.05 * (j % 7); }, true,
        [&](int k) { return Vec3(0.02 * (k + 1), 0.01 * (1 + j % 5), -0.015 * (k + 1)); });
  }
  finish_animation(scene, std::move(animation));

  Skin skin;
  skin.name = "bench_skin";
  for (int j = 0; j < kJoints; ++j) skin.joints.push_back(j);
  skin.inverse_bind.assign(size_t(kJoints), Mat4::Identity());  // replaced by the inverse rest globals below
  skin.skeleton = 0;
  scene.skins.push_back(std::move(skin));

  // A one-vertex placeholder with one whole influence set, for finalize_scene(); replaced below.
  Primitive placeholder;
  placeholder.topology = Topology::Points;
  placeholder.positions = {Vec3::Zero()};
  placeholder.influences_per_vertex = 4;
  placeholder.joints = {0, 0, 0, 0};
  placeholder.weights = {1.0, 0.0, 0.0, 0.0};
  Mesh mesh;
  mesh.name = "bench_mesh";
  mesh.primitives.push_back(std::move(placeholder));
  scene.meshes.push_back(std::move(mesh));
  Node holder;
  holder.name = "bench_skinned";
  holder.mesh = 0;
  holder.skin = 0;
  scene.nodes.push_back(std::move(holder));
  scene.roots.push_back(kJoints);
  finalize_scene(scene);

  const ModelPose rest = local_to_model(scene, rest_pose(scene));
  for (int j = 0; j < kJoints; ++j) scene.skins[0].inverse_bind[size_t(j)] = rest.global[size_t(j)].inverse();

  Primitive& prim = scene.meshes[0].primitives[0];
  const size_t k = size_t(influences);
  prim.positions.resize(vertices);
  prim.normals.resize(vertices);
  prim.influences_per_vertex = influences;
  prim.joints.resize(vertices * k);
  prim.weights.resize(vertices * k);
  Vec3* positions = prim.positions.data();
  Vec3* normals = prim.normals.data();
  uint32_t* joints = prim.joints.data();
  double* weights = prim.weights.data();
  // The skeleton spans about y in [0, 8]; positions fill a box around it.
  for (size_t v = 0; v < vertices; ++v) {
    const uint64_t h0 = mix(3 * uint64_t(v)), h1 = mix(3 * uint64_t(v) + 1), h2 = mix(3 * uint64_t(v) + 2);
    positions[v] = Vec3(unit_field(h0, 0), 4.0 * (unit_field(h0, 21) + 1.0), unit_field(h0, 42));
    Vec3 n(unit_field(h1, 0), unit_field(h1, 21), unit_field(h1, 42));
    const double length = std::sqrt(n.x() * n.x() + n.y() * n.y() + n.z() * n.z());
    normals[v] = length < 1e-3 ? Vec3(0.0, 1.0, 0.0) : Vec3(n.x() / length, n.y() / length, n.z() / length);
    // Joints base + i * step (mod 64) with an odd step: distinct for up to 64 influences.
    const uint32_t base = uint32_t(h2 & 63u), step = 2u * uint32_t((h2 >> 6) & 3u) + 1u;
    // Weights a_i / 256: a_i in [1, 32] for i >= 1, a_0 the rest (>= 32), so the sum is exactly 1.
    uint32_t rest_units = 256;
    for (size_t i = 1; i < k; ++i) {
      const uint32_t units = 1u + uint32_t((h2 >> (16 + 5 * i)) & 31u);
      joints[v * k + i] = (base + uint32_t(i) * step) & 63u;
      weights[v * k + i] = double(units) / 256.0;
      rest_units -= units;
    }
    joints[v * k] = base;
    weights[v * k] = double(rest_units) / 256.0;
  }
  return scene;
}

const Primitive& SkinningBenchScene::primitive() const { return scene.meshes.at(0).primitives.at(0); }

const SkinningBenchScene& SkinningBenchFixture::scene(size_t vertices, int influences) {
  if (scene_ && scene_->vertices == vertices && scene_->influences == influences) return *scene_;
  job_.reset();
  scene_.reset();
  auto built = std::make_unique<SkinningBenchScene>();
  built->vertices = vertices;
  built->influences = influences;
  built->scene = make_skinning_bench_scene(vertices, influences);
  built->pose = evaluate_pose(built->scene, 0, kSkinningBenchTime);
  scene_ = std::move(built);
  return *scene_;
}

SkinningJob& SkinningBenchFixture::job(Backend& backend, size_t vertices, int influences, SkinningMethod method) {
  const SkinningBenchScene& current = scene(vertices, influences);
  if (job_ && job_backend_ == &backend && job_method_ == method) return *job_;
  job_.reset();
  SkinningOptions options;
  options.method = method;
  job_ = backend.prepare_skinning(current.scene, current.pose, options);
  job_backend_ = &backend;
  job_method_ = method;
  return *job_;
}

void SkinningBenchFixture::release() {
  job_.reset();  // before the scene: a CPU job may point into it
  job_backend_ = nullptr;
  scene_.reset();
}

SkinningBenchFixture& skinning_bench_fixture() {
  static SkinningBenchFixture fixture;
  return fixture;
}

}  // namespace skinref::bench

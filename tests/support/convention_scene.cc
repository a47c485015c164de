#include "support/convention_scene.h"

#include <cmath>
#include <random>

namespace skinref::testing {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

constexpr double kPi = 3.14159265358979323846;

double f32(double value) { return double(float(value)); }
Vec3 f32(const Vec3& v) { return Vec3(f32(v.x()), f32(v.y()), f32(v.z())); }

Quat axis_angle(const Vec3& axis, double degrees) {
  const Quat q(Eigen::AngleAxisd(degrees * kPi / 180.0, axis.normalized()));
  return Quat(f32(q.w()), f32(q.x()), f32(q.y()), f32(q.z()));
}

int add_node(Scene& scene, const std::string& name, int parent, const Vec3& t, const Quat& r = Quat::Identity(),
             const Vec3& s = Vec3::Ones()) {
  Node node;
  node.name = name;
  node.rest.translation = f32(t);
  node.rest.rotation = r;
  node.rest.scale = f32(s);
  scene.nodes.push_back(node);
  const int index = int(scene.nodes.size()) - 1;
  if (parent >= 0) scene.nodes[size_t(parent)].children.push_back(index);
  else scene.roots.push_back(index);
  return index;
}

// (x, y, z, w) of q scaled to norm `norm`, rounded to float32, optionally in the other hemisphere.
void push_key(std::vector<double>& values, const Quat& q, double norm, bool flip) {
  const double sign = flip ? -norm : norm;
  for (double c : {q.x(), q.y(), q.z(), q.w()}) values.push_back(f32(c * sign));
}

AnimationSampler sampler(Interpolation interpolation, std::vector<double> times, std::vector<double> values,
                         int components) {
  AnimationSampler s;
  s.interpolation = interpolation;
  s.times = std::move(times);
  s.values = std::move(values);
  s.components = components;
  return s;
}

// The scene's nodes, by role.
struct ConventionNodes {
  int world, hips, spine, arm, hand;  // the skeleton under "world" (hips is the skeleton root)
  int body;                           // the mesh node, outside the skeleton
};

// The nodes (in this order: world, hips, spine, arm, hand, body) and the skin over hips..hand.
ConventionNodes add_nodes_and_skin(Scene& scene) {
  ConventionNodes n;
  n.world = add_node(scene, "world", -1, Vec3(0.3, -0.2, 0.1), axis_angle(Vec3::UnitX(), 20.0));
  n.hips = add_node(scene, "hips", n.world, Vec3(0, 0, 0));
  n.spine = add_node(scene, "spine", n.hips, Vec3(0, 1, 0));
  n.arm = add_node(scene, "arm", n.spine, Vec3(0, 1, 0));
  n.hand = add_node(scene, "hand", n.arm, Vec3(0, 1, 0));
  n.body = add_node(scene, "body", -1, Vec3(0.5, 0.0, -0.3), axis_angle(Vec3::UnitY(), 30.0), Vec3(1.3, 1.2, 1.0));

  Skin skin;
  skin.name = "skeleton";
  skin.joints = {n.hips, n.spine, n.arm, n.hand};
  skin.skeleton = n.hips;
  for (int j = 0; j < 4; ++j) {  // the bind pose: joints straight up the Y axis, no world transform
    Mat4 ibm = Mat4::Identity();
    ibm(1, 3) = -double(j);
    skin.inverse_bind.push_back(ibm);
  }
  scene.skins.push_back(skin);
  return n;
}

// The tube: rings every 0.25 from 0 to 3.5, 8 segments.
constexpr int kTubeRings = 15, kTubeSegments = 8;

// A tube along Y, radius 0.3: positions, normals, tangents and twelve influences per vertex.
void add_tube_vertices(Primitive& prim) {
  prim.influences_per_vertex = 12;
  const int rings = kTubeRings, segments = kTubeSegments;
  for (int r = 0; r < rings; ++r) {
    const double y = 0.25 * r;
    // Each joint's weight (proximity to joints at y = 0, 1, 2, 3, the sum scaled by 0.85..1.15) is split
    // over the three sets in shares that depend on the joint and the ring, so that every subset (the first
    // set, the K largest) renormalized is a different blend.
    double proximity[4], total = 0.0;
    for (int j = 0; j < 4; ++j) {
      proximity[j] = std::max(0.0, 1.0 - std::abs(y - double(j)) / 1.6);
      total += proximity[j];
    }
    const double scale = 0.85 + 0.3 * double(r % 5) / 4.0;
    for (int s = 0; s < segments; ++s) {
      const double angle = 2.0 * kPi * s / segments;
      const Vec3 radial(std::cos(angle), 0.0, std::sin(angle));
      prim.positions.push_back(f32(Vec3(0.3 * radial.x(), y, 0.3 * radial.z())));
      prim.normals.push_back(f32(radial));
      prim.tangents.push_back(Vec4(f32(-radial.z()), 0.0, f32(radial.x()), 1.0));
      for (int set = 0; set < 3; ++set)
        for (int j = 0; j < 4; ++j) {
          const double first = 0.15 + 0.2 * double((j + r) % 3);   // 0.15, 0.35 or 0.55
          const double second = 0.5 * (1.0 - first) + 0.1 * double(j % 2);
          const double share = set == 0 ? first : set == 1 ? second : 1.0 - first - second;
          // Ring 0 has no weights at all; a segment-dependent wobble keeps a ring's vertices distinct.
          const double w = r == 0 ? 0.0 : proximity[j] / total * share * scale * (1.0 + 0.02 * s);
          prim.joints.push_back(uint32_t((j + set) % 4));  // each set lists the joints in another order
          prim.weights.push_back(f32(w));
        }
    }
  }
}

// Two triangles between each pair of neighbouring rings' segments.
void add_tube_indices(Primitive& prim) {
  const int rings = kTubeRings, segments = kTubeSegments;
  for (int r = 0; r + 1 < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      const uint32_t a = uint32_t(r * segments + s), b = uint32_t(r * segments + (s + 1) % segments);
      const uint32_t c = a + uint32_t(segments), d = b + uint32_t(segments);
      prim.indices.insert(prim.indices.end(), {a, c, b, b, c, d});
    }
  prim.indexed = true;
}

// Nine morph targets (bulges, shears, lifts of different sizes), normal deltas on the first.
void add_tube_targets(Primitive& prim) {
  for (int t = 0; t < 9; ++t) {
    MorphTarget target;
    const double size = 0.05 + 0.02 * t;
    for (size_t v = 0; v < prim.positions.size(); ++v) {
      const Vec3& p = prim.positions[v];
      const Vec3 delta = t % 3 == 0   ? Vec3(size * p.x(), 0.0, size * p.z())
                         : t % 3 == 1 ? Vec3(-size * p.z() * p.y(), 0.0, size * p.x() * p.y())
                                      : Vec3(0.0, size * p.y(), 0.0);
      target.position_deltas.push_back(f32(delta));
      if (t == 0) target.normal_deltas.push_back(f32(Vec3(0.0, 0.1, 0.0)));
    }
    prim.targets.push_back(target);
  }
}

// The tube mesh with its default morph weights, on the body node under skin 0.
void add_tube_mesh(Scene& scene, int body) {
  Primitive prim;
  add_tube_vertices(prim);
  add_tube_indices(prim);
  add_tube_targets(prim);
  Mesh mesh;
  mesh.name = "tube";
  mesh.primitives.push_back(prim);
  for (double w : {0.6, -0.5, 0.42, 0.35, -0.3, 0.25, 0.2, -0.15, 0.1}) mesh.default_weights.push_back(f32(w));
  scene.meshes.push_back(mesh);
  scene.nodes[size_t(body)].mesh = 0;
  scene.nodes[size_t(body)].skin = 0;
}

// Spine rotation: 0, 150, 300 (stored in the other hemisphere), 340 degrees about Z; keys of norm 1.0004.
AnimationSampler spine_rotation_sampler() {
  std::vector<double> values;
  const double angles[] = {0.0, 150.0, 300.0, 340.0};
  for (int k = 0; k < 4; ++k) push_key(values, axis_angle(Vec3(0.2, 0.1, 1.0), angles[k]), 1.0004, k == 2);
  return sampler(Interpolation::Linear, {0.5, 1.0, 1.5, 2.0}, values, 4);
}

// Hand rotation, CUBICSPLINE about X: 0, 60, -40 degrees, tangents (per second) of 3 rad/s.
AnimationSampler hand_rotation_sampler() {
  std::vector<double> values;
  const double angles[] = {0.0, 60.0, -40.0};
  for (int k = 0; k < 3; ++k) {
    const Quat q = axis_angle(Vec3::UnitX(), angles[k]);
    const double half = angles[k] * kPi / 360.0;
    // d/dt of (sin(a/2), 0, 0, cos(a/2)) at da/dt = 6 rad/s: 3 * (cos(a/2), 0, 0, -sin(a/2)), large on purpose
    const double tangent[4] = {f32(3.0 * std::cos(half)), 0.0, 0.0, f32(-3.0 * std::sin(half))};
    values.insert(values.end(), tangent, tangent + 4);                       // in-tangent
    values.insert(values.end(), {q.x(), q.y(), q.z(), q.w()});                // value
    values.insert(values.end(), tangent, tangent + 4);                       // out-tangent
  }
  return sampler(Interpolation::CubicSpline, {0.5, 1.25, 2.0}, values, 4);
}

// Animation "main", keys from 0.5 s to 2 s: spine rotation and scale, arm translation (STEP), hand rotation.
Animation main_animation(const ConventionNodes& n) {
  Animation animation;
  animation.name = "main";
  auto add_channel = [&](int node, ChannelPath path, AnimationSampler s) {
    animation.samplers.push_back(std::move(s));
    animation.channels.push_back({int(animation.samplers.size()) - 1, node, path});
  };
  add_channel(n.spine, ChannelPath::Rotation, spine_rotation_sampler());
  add_channel(n.spine, ChannelPath::Scale,
              sampler(Interpolation::Linear, {0.5, 2.0}, {1.0, 1.0, 1.0, f32(1.3), f32(0.8), f32(1.1)}, 3));
  add_channel(n.arm, ChannelPath::Translation,
              sampler(Interpolation::Step, {0.5, 1.0, 1.5, 2.0},
                      {0.0, 1.0, 0.0, f32(0.1234), f32(1.0567), f32(-0.0789), f32(-0.2), f32(0.9), f32(0.15),
                       f32(0.05), f32(1.2), f32(0.3)},
                      3));
  add_channel(n.hand, ChannelPath::Rotation, hand_rotation_sampler());
  animation.start_time = 0.5;
  animation.end_time = 2.0;
  return animation;
}

}  // namespace

Scene make_convention_scene() {
  Scene scene;
  scene.source = "test:convention-scene";
  const ConventionNodes nodes = add_nodes_and_skin(scene);
  add_tube_mesh(scene, nodes.body);
  scene.animations.push_back(main_animation(nodes));
  finalize_scene(scene);
  return scene;
}

std::vector<std::vector<double>> convention_case_times(const std::vector<std::string>& assignments, unsigned seed) {
  std::mt19937 random(seed);
  auto uniform = [&](double low, double high) {
    return double(float(std::uniform_real_distribution<double>(low, high)(random)));
  };
  auto pick = [&](std::initializer_list<double> values) {
    const std::vector<double> list(values);
    return list[size_t(std::uniform_int_distribution<int>(0, int(list.size()) - 1)(random))];
  };
  auto value_of = [&](const std::string& name) -> std::string {
    for (const std::string& a : assignments)
      if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
    return "";
  };
  std::vector<std::vector<double>> cases;
  for (int i = 0; i < 3; ++i) {
    if (!value_of("step-boundary").empty()) {
      cases.push_back({pick({1.0, 1.5, 2.0})});
    } else if (!value_of("at-end").empty()) {
      cases.push_back({2.0 * pick({1.0, 2.0, 3.0}), uniform(2.3, 3.7)});
    } else if (!value_of("wrap-period").empty() || !value_of("playback").empty()) {
      cases.push_back({uniform(2.1, 3.4)});  // past the end, away from the loops' restarts
    } else if (!value_of("key-rotation").empty() || !value_of("key-translation-scale").empty()) {
      cases.push_back({pick({1.0, 1.5})});  // spine rotation keys; the arm's STEP keys too
    } else if (!value_of("resample").empty()) {
      const double hz = std::stod(value_of("resample"));
      cases.push_back({double(float(pick({1.0, 1.5, 2.0}) - uniform(0.2, 0.8) / hz))});
    } else if (value_of("rotation") == "lerp") {
      cases.push_back({uniform(1.1, 1.4)});  // the interval whose second key is in the other hemisphere
    } else if (!value_of("rotation").empty()) {
      cases.push_back({pick({uniform(0.6, 0.9), uniform(1.1, 1.4)})});
    } else {
      cases.push_back({uniform(0.55, 1.95)});
    }
  }
  return cases;
}

}  // namespace skinref::testing

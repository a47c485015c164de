// The built-in scenes (`builtin:NAME`): small skinned models whose expected behaviour is known in closed
// form, plus one large model for throughput. Every stored value is rounded through float32 so that an
// export to glTF and a reload reproduce the Scene bit for bit.
//
// Conventions shared by every scene:
// - One skinned mesh with one indexed triangle primitive, normals on every vertex, counter-clockwise
//   winding seen from outside (the geometric normal of each triangle points along the vertex normals).
// - The skinned mesh node is a root of its own (identity transform) except in `node-transforms`.
// - Inverse bind matrices are the inverses of the joints' rest (bind) global transforms.
// - One animation named "main" (LINEAR) and one opaque, single-sided material with its own colour.
// - Unused influence slots hold joint 0 with weight 0. Weights are rounded to float32 and then the largest
//   is replaced by the float32 nearest to 1 - (sum of the others), so each vertex's stored weights sum to 1
//   within one float32 rounding of 1 (adjusting the largest, not the last, never turns a zero weight
//   negative).
// - Rest rotations are exactly unit in float32 (identity, or every component +-1/2): loaders normalize
//   rest rotations, and only exactly unit quaternions survive that bit for bit.
//
// Dimensions (vertices / joints / influences per vertex):
//   twist             33 rings x 24 segments = 792 / 2 / 4. Open cylinder (no caps) of radius kTwistRadius
//                     along +X over [0, kTwistLength], rings every kTwistLength / 32, so ring 16 lies at
//                     exactly kTwistLength / 2. joint0 (root, origin) -> joint1 at (kTwistLength / 2, 0, 0).
//                     w1 = clamp((x - L/4) / (L/2), 0, 1), w0 = 1 - w1. joint1 twists about +X: keys at
//                     0, 0.25, 0.5, 0.75, 1.0 s with 0, 45, 90, 135, 180 degrees.
//   bend              21 rings x 16 segments = 336 / 3 / 4. Open tube of radius 0.15 along +X over [0, 2],
//                     rings every 0.1. shoulder (root, origin) -> elbow (x = 1) -> wrist (x = 2). Shoulder
//                     to elbow ramp over x in [0.8, 1.2], elbow to wrist over [1.8, 2]. Elbow about +Z:
//                     0, 90, 0 degrees at 0, 0.5, 1.0 s.
//   chain64           127 rings x 12 segments = 1524 / 64 / 4 (2 used). 64 joints in a chain along +Y, 0.1
//                     apart; open tube of radius 0.05 with a ring at every joint and halfway between. Each
//                     vertex: the joint at or below it and the next one, linear ramp. Every joint rotates
//                     about +Z by 4 degrees x sin(2 pi (t / 2 - k / 16)) (a travelling wave), keys every
//                     0.25 s over [0, 2].
//   eight-influences  16 x 16 grid = 256 / 9 / 8. Flat square [-1, 1]^2 in the XZ plane, normals +Y. A root
//                     joint at the origin with 8 children on a circle of radius 1.5 at height 0.25; every
//                     vertex has the 8 children as influences (two sets), weights proportional to the
//                     inverse distance to each. Each child bobs along Y by 0.2 x sin(2 pi (t + k / 8)),
//                     keys every 0.125 s over [0, 1].
//   node-transforms   32 / 2 / 4. A box [0, 2] x [-0.25, 0.25]^2, its long faces split at x = 1; jointA
//                     at the origin, jointB at x = 1 (at bind), weights wB = x / 2, wA = 1 - wB. The mesh
//                     node has its own TRS and is the child of another node with a TRS; the joints hang
//                     under a third root with a TRS. jointB bends about +Z: 0, 60, 0 degrees at 0, 0.5,
//                     1.0 s.
//   million           1001 rings x 1000 segments = 1,001,000 / 32 / 4. Open tube of radius 0.3 along +Y over
//                     [0, 6.2]; 32 joints in a chain 0.2 apart. Weights: uniform cubic B-spline basis of the
//                     joint coordinate y / 0.2 over 4 consecutive joints (clamped at the ends). Joints 1..31
//                     rotate about +Z by 3 degrees x sin(pi t), keys every 0.25 s over [0, 2].
#include "io/builtin_scenes.h"

#include "core/input_error.h"

#include <Eigen/LU>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
namespace {

constexpr double kPi = std::numbers::pi;

// The double nearest to `value` that a float32 can hold: the one rounding every stored value goes through.
// The float goes through a volatile: GCC 12.2 at -O2 miscompiles a pair of adjacent (double)(float) casts
// that its SLP vectorizer merges, dropping the rounding altogether (the stored values then are not float32).
// CMakeLists.txt also turns that vectorizer off; the volatile keeps this right wherever it is compiled.
double f32(double value) {
  const volatile float rounded = static_cast<float>(value);
  return static_cast<double>(rounded);
}

Vec3 f32(const Vec3& v) { return Vec3(f32(v.x()), f32(v.y()), f32(v.z())); }

double radians(double degrees) { return degrees * kPi / 180.0; }

// Unit axis times the half-angle sine, rounded to float32 (keys need not be exactly unit: sampling
// renormalizes; rest rotations use exact_rotation instead).
Quat axis_angle_f32(const Vec3& unit_axis, double angle) {
  const double s = std::sin(0.5 * angle);
  return quat_from_xyzw(f32(unit_axis.x() * s), f32(unit_axis.y() * s), f32(unit_axis.z() * s),
                        f32(std::cos(0.5 * angle)));
}

Transform make_trs(const Vec3& translation, const Quat& rotation = Quat::Identity(),
                   const Vec3& scale = Vec3::Ones()) {
  Transform t;
  t.translation = f32(translation);
  t.rotation = quat_from_xyzw(f32(rotation.x()), f32(rotation.y()), f32(rotation.z()), f32(rotation.w()));
  t.scale = f32(scale);
  return t;
}

int add_node(Scene& scene, const std::string& name, const Transform& rest = Transform()) {
  Node node;
  node.name = name;
  node.rest = rest;
  scene.nodes.push_back(std::move(node));
  return static_cast<int>(scene.nodes.size()) - 1;
}

// Also records the parent, which bind_globals() needs before finalize_scene() recomputes it.
void add_child(Scene& scene, int parent, int child) {
  scene.nodes[parent].children.push_back(child);
  scene.nodes[child].parent = parent;
}

// A chain of `count` joints "joint0".."joint<count-1>" along +Y: joint0 is a new scene root at the origin,
// each further joint the child of the previous one, `spacing` above it. Returns the nodes in chain order.
std::vector<int> add_joint_chain(Scene& scene, int count, double spacing) {
  std::vector<int> joints;
  for (int k = 0; k < count; ++k) {
    const Transform rest = k == 0 ? Transform() : make_trs(Vec3(0.0, spacing, 0.0));
    joints.push_back(add_node(scene, "joint" + std::to_string(k), rest));
    if (k > 0) add_child(scene, joints[k - 1], joints[k]);
  }
  scene.roots.push_back(joints[0]);
  return joints;
}

// Rest global transforms, one forward pass. Every scene here creates parents before their children.
std::vector<Mat4> bind_globals(const Scene& scene) {
  std::vector<Mat4> global(scene.nodes.size());
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    const Mat4 local = compose_trs(scene.nodes[n].rest);
    const int parent = scene.nodes[n].parent;
    global[n] = parent < 0 ? local : Mat4(global[parent] * local);
  }
  return global;
}

// The inverse of an affine matrix with an exact (0, 0, 0, 1) last row, rounded to float32.
Mat4 inverse_affine_f32(const Mat4& m) {
  const Mat3 linear_inverse = Mat3(m.topLeftCorner<3, 3>()).inverse();
  const Vec3 translation = -(linear_inverse * Vec3(m.block<3, 1>(0, 3)));
  Mat4 out = Mat4::Zero();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) out(r, c) = f32(linear_inverse(r, c));
    out(r, 3) = f32(translation[r]);
  }
  out(3, 3) = 1.0;
  return out;
}

// A skin over `joints` whose inverse bind matrices invert the joints' rest globals.
int add_skin(Scene& scene, const std::string& name, const std::vector<int>& joints, int skeleton) {
  const std::vector<Mat4> global = bind_globals(scene);
  Skin skin;
  skin.name = name;
  skin.joints = joints;
  skin.skeleton = skeleton;
  skin.inverse_bind.reserve(joints.size());
  for (int joint : joints) skin.inverse_bind.push_back(inverse_affine_f32(global[joint]));
  scene.skins.push_back(std::move(skin));
  return static_cast<int>(scene.skins.size()) - 1;
}

int add_material(Scene& scene, const std::string& name, const Vec4& base_color) {
  Material material;
  material.name = name;
  material.base_color_factor = Vec4(f32(base_color[0]), f32(base_color[1]), f32(base_color[2]), f32(base_color[3]));
  material.double_sided = false;
  scene.materials.push_back(std::move(material));
  return static_cast<int>(scene.materials.size()) - 1;
}

// Rounds one vertex's weights to float32 and makes them sum to 1 as closely as float32 allows: the largest
// weight becomes the float32 nearest to 1 - (sum of the others). The others are at most 7 float32 values
// in [0, 1], so their double sum is exact and the stored sum is off by at most half a float32 ulp of the
// largest weight.
void round_weights_f32(std::span<double> weights) {
  size_t largest = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    weights[i] = f32(weights[i]);
    if (weights[i] > weights[largest]) largest = i;
  }
  double others = 0.0;
  for (size_t i = 0; i < weights.size(); ++i)
    if (i != largest) others += weights[i];
  weights[largest] = f32(1.0 - others);
}

// Influences of one ring of a tube (or any group of vertices that share them).
struct Influences {
  std::vector<uint32_t> joints;
  std::vector<double> weights;
};

// An orthonormal frame for a tube: `axis` along the tube, u x v == axis, so that walking the angle from u
// towards v and the rings along the axis gives outward-facing counter-clockwise triangles.
struct TubeFrame {
  Vec3 axis;
  Vec3 u;
  Vec3 v;
};

const TubeFrame kAlongX{Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
const TubeFrame kAlongY{Vec3::UnitY(), Vec3::UnitZ(), Vec3::UnitX()};

// An open tube: ring r at axis coordinate ring_coords[r], `segments` vertices per ring at angles
// 2 pi s / segments, radial normals, and per-ring influences copied to every vertex of the ring
// (`ring_influences` holds ring_coords.size() * influences_per_vertex entries). Sines and cosines are
// computed once per segment and every vector is reserved, so a million vertices take a few milliseconds.
Primitive make_tube(const std::vector<double>& ring_coords, int segments, double radius, const TubeFrame& frame,
                    int influences_per_vertex, const Influences& ring_influences, int material) {
  const size_t rings = ring_coords.size();
  const size_t segs = static_cast<size_t>(segments);
  const size_t ipv = static_cast<size_t>(influences_per_vertex);
  std::vector<Vec3> radial(segs);
  std::vector<Vec3> offset(segs);
  for (size_t s = 0; s < segs; ++s) {
    const double angle = 2.0 * kPi * static_cast<double>(s) / static_cast<double>(segs);
    const Vec3 direction = std::cos(angle) * frame.u + std::sin(angle) * frame.v;
    radial[s] = f32(direction);
    offset[s] = radius * direction;  // rounded with the axis coordinate below
  }

  Primitive prim;
  prim.topology = Topology::Triangles;
  prim.indexed = true;
  prim.material = material;
  prim.influences_per_vertex = influences_per_vertex;
  const size_t n = rings * segs;
  prim.positions.reserve(n);
  prim.normals.reserve(n);
  prim.joints.reserve(n * ipv);
  prim.weights.reserve(n * ipv);
  for (size_t r = 0; r < rings; ++r) {
    const Vec3 centre = ring_coords[r] * frame.axis;
    const auto joints_begin = ring_influences.joints.begin() + static_cast<std::ptrdiff_t>(r * ipv);
    const auto weights_begin = ring_influences.weights.begin() + static_cast<std::ptrdiff_t>(r * ipv);
    for (size_t s = 0; s < segs; ++s) {
      prim.positions.push_back(f32(Vec3(centre + offset[s])));
      prim.normals.push_back(radial[s]);
      prim.joints.insert(prim.joints.end(), joints_begin, joints_begin + static_cast<std::ptrdiff_t>(ipv));
      prim.weights.insert(prim.weights.end(), weights_begin, weights_begin + static_cast<std::ptrdiff_t>(ipv));
    }
  }

  prim.indices.reserve((rings - 1) * segs * 6);
  for (size_t r = 0; r + 1 < rings; ++r) {
    for (size_t s = 0; s < segs; ++s) {
      const auto a = static_cast<uint32_t>(r * segs + s);
      const auto b = static_cast<uint32_t>(r * segs + (s + 1) % segs);
      const auto c = static_cast<uint32_t>((r + 1) * segs + s);
      const auto d = static_cast<uint32_t>((r + 1) * segs + (s + 1) % segs);
      prim.indices.insert(prim.indices.end(), {a, b, c, b, d, c});
    }
  }
  return prim;
}

// A flat grid of (nu + 1) x (nv + 1) vertices origin + (i / nu) edge_u + (j / nv) edge_v; edge_u x edge_v
// points along `normal`, so the triangles face that way. Returns the index of its first vertex.
uint32_t append_grid(Primitive& prim, const Vec3& origin, const Vec3& edge_u, const Vec3& edge_v, int nu, int nv,
                     const Vec3& normal) {
  const auto first = static_cast<uint32_t>(prim.positions.size());
  for (int j = 0; j <= nv; ++j) {
    for (int i = 0; i <= nu; ++i) {
      const Vec3 p = origin + (static_cast<double>(i) / nu) * edge_u + (static_cast<double>(j) / nv) * edge_v;
      prim.positions.push_back(f32(p));
      prim.normals.push_back(f32(normal));
    }
  }
  const auto row = static_cast<uint32_t>(nu + 1);
  for (int j = 0; j < nv; ++j) {
    for (int i = 0; i < nu; ++i) {
      const uint32_t a = first + static_cast<uint32_t>(j) * row + static_cast<uint32_t>(i);
      const uint32_t b = a + 1;
      const uint32_t c = a + row;
      const uint32_t d = c + 1;
      prim.indices.insert(prim.indices.end(), {a, b, c, b, d, c});
    }
  }
  return first;
}

AnimationSampler make_sampler(const std::vector<double>& times, const std::vector<double>& values, int components) {
  AnimationSampler sampler;
  sampler.interpolation = Interpolation::Linear;
  sampler.components = components;
  sampler.times.reserve(times.size());
  for (double t : times) sampler.times.push_back(f32(t));
  sampler.values.reserve(values.size());
  for (double v : values) sampler.values.push_back(f32(v));
  return sampler;
}

// Values of rotation keys about a fixed axis, (x, y, z, w) per key.
std::vector<double> rotation_keys(const Vec3& unit_axis, const std::vector<double>& angles) {
  std::vector<double> values;
  values.reserve(angles.size() * 4);
  for (double angle : angles) {
    const auto xyzw = quat_to_xyzw(axis_angle_f32(unit_axis, angle));
    values.insert(values.end(), xyzw.begin(), xyzw.end());
  }
  return values;
}

void add_channel(Animation& animation, int node, ChannelPath path, AnimationSampler sampler) {
  animation.samplers.push_back(std::move(sampler));
  AnimationChannel channel;
  channel.sampler = static_cast<int>(animation.samplers.size()) - 1;
  channel.node = node;
  channel.path = path;
  animation.channels.push_back(channel);
}

void add_animation(Scene& scene, Animation animation) {
  bool any = false;
  for (const AnimationSampler& s : animation.samplers) {
    animation.start_time = any ? std::min(animation.start_time, s.times.front()) : s.times.front();
    animation.end_time = any ? std::max(animation.end_time, s.times.back()) : s.times.back();
    any = true;
  }
  scene.animations.push_back(std::move(animation));
}

std::vector<double> key_times(int count, double step) {
  std::vector<double> times;
  times.reserve(static_cast<size_t>(count));
  for (int k = 0; k < count; ++k) times.push_back(static_cast<double>(k) * step);
  return times;
}

// The mesh, its skinned root node and the scene's roots; then finalize (parents, order, validation).
void add_skinned_mesh(Scene& scene, const std::string& name, Primitive prim, int skin, Transform rest = Transform(),
                      int parent = -1) {
  Mesh mesh;
  mesh.name = name;
  mesh.primitives.push_back(std::move(prim));
  scene.meshes.push_back(std::move(mesh));
  const int node = add_node(scene, name, rest);
  scene.nodes[node].mesh = static_cast<int>(scene.meshes.size()) - 1;
  scene.nodes[node].skin = skin;
  if (parent >= 0) add_child(scene, parent, node);
  else scene.roots.push_back(node);
}

Scene make_twist() {
  Scene scene;
  scene.source = "builtin:twist";
  const int joint0 = add_node(scene, "joint0");
  const int joint1 = add_node(scene, "joint1", make_trs(Vec3(kTwistLength / 2.0, 0.0, 0.0)));
  add_child(scene, joint0, joint1);
  scene.roots.push_back(joint0);
  const int skin = add_skin(scene, "twist_skin", {joint0, joint1}, joint0);
  const int material = add_material(scene, "twist_material", Vec4(0.85, 0.35, 0.2, 1.0));

  constexpr int kRings = 33;     // 32 intervals: ring 16 is the middle
  constexpr int kSegments = 24;
  std::vector<double> rings(kRings);
  Influences influences;
  for (int r = 0; r < kRings; ++r) {
    const double x = kTwistLength * static_cast<double>(r) / (kRings - 1);
    rings[r] = x;
    // (x - L/4) / (L/2): exactly 0.5 at the middle ring, multiples of 1/16 elsewhere (exact in float32).
    const double w1 = std::clamp((x - kTwistLength / 4.0) / (kTwistLength / 2.0), 0.0, 1.0);
    std::array<double, 4> w{1.0 - w1, w1, 0.0, 0.0};
    round_weights_f32(w);
    influences.joints.insert(influences.joints.end(), {0, 1, 0, 0});
    influences.weights.insert(influences.weights.end(), w.begin(), w.end());
  }
  add_skinned_mesh(scene, "twist_mesh",
                   make_tube(rings, kSegments, kTwistRadius, kAlongX, 4, influences, material), skin);

  Animation animation;
  animation.name = "main";
  add_channel(animation, joint1, ChannelPath::Rotation,
              make_sampler(key_times(5, kTwistDuration / 4.0),
                           rotation_keys(Vec3::UnitX(), {0.0, radians(45), radians(90), radians(135), radians(180)}),
                           4));
  add_animation(scene, std::move(animation));
  finalize_scene(scene);
  return scene;
}

Scene make_bend() {
  Scene scene;
  scene.source = "builtin:bend";
  const int shoulder = add_node(scene, "shoulder");
  const int elbow = add_node(scene, "elbow", make_trs(Vec3(1.0, 0.0, 0.0)));
  const int wrist = add_node(scene, "wrist", make_trs(Vec3(1.0, 0.0, 0.0)));
  add_child(scene, shoulder, elbow);
  add_child(scene, elbow, wrist);
  scene.roots.push_back(shoulder);
  const int skin = add_skin(scene, "arm_skin", {shoulder, elbow, wrist}, shoulder);
  const int material = add_material(scene, "arm_material", Vec4(0.2, 0.55, 0.85, 1.0));

  constexpr int kRings = 21;
  std::vector<double> rings(kRings);
  Influences influences;
  for (int r = 0; r < kRings; ++r) {
    rings[r] = static_cast<double>(r) / 10.0;
    // In tenths: elbow ramps in over rings 8..12 (x 0.8..1.2), the wrist over rings 18..20 (x 1.8..2).
    const double elbow_in = std::clamp((r - 8) / 4.0, 0.0, 1.0);
    const double wrist_in = std::clamp((r - 18) / 2.0, 0.0, 1.0);
    std::array<double, 4> w{1.0 - elbow_in, elbow_in * (1.0 - wrist_in), wrist_in, 0.0};
    round_weights_f32(w);
    influences.joints.insert(influences.joints.end(), {0, 1, 2, 0});
    influences.weights.insert(influences.weights.end(), w.begin(), w.end());
  }
  add_skinned_mesh(scene, "arm_mesh", make_tube(rings, 16, 0.15, kAlongX, 4, influences, material), skin);

  Animation animation;
  animation.name = "main";
  add_channel(animation, elbow, ChannelPath::Rotation,
              make_sampler({0.0, 0.5, 1.0}, rotation_keys(Vec3::UnitZ(), {0.0, radians(90), 0.0}), 4));
  add_animation(scene, std::move(animation));
  finalize_scene(scene);
  return scene;
}

Scene make_chain64() {
  Scene scene;
  scene.source = "builtin:chain64";
  constexpr int kJoints = 64;
  constexpr double kSpacing = 0.1;
  const std::vector<int> joints = add_joint_chain(scene, kJoints, kSpacing);
  const int skin = add_skin(scene, "chain_skin", joints, joints[0]);
  const int material = add_material(scene, "chain_material", Vec4(0.3, 0.75, 0.35, 1.0));

  constexpr int kRings = 2 * (kJoints - 1) + 1;  // at every joint and halfway between
  std::vector<double> rings(kRings);
  Influences influences;
  for (int r = 0; r < kRings; ++r) {
    rings[r] = static_cast<double>(r) * (kSpacing / 2.0);
    const int below = std::min(r / 2, kJoints - 2);  // the last ring sits on the last joint
    const double above_weight = static_cast<double>(r - 2 * below) / 2.0;  // 0, 0.5 or 1
    std::array<double, 4> w{1.0 - above_weight, above_weight, 0.0, 0.0};
    round_weights_f32(w);
    influences.joints.insert(influences.joints.end(),
                             {static_cast<uint32_t>(below), static_cast<uint32_t>(below + 1), 0, 0});
    influences.weights.insert(influences.weights.end(), w.begin(), w.end());
  }
  add_skinned_mesh(scene, "chain_mesh", make_tube(rings, 12, 0.05, kAlongY, 4, influences, material), skin);

  Animation animation;
  animation.name = "main";
  const std::vector<double> times = key_times(9, 0.25);
  for (int k = 0; k < kJoints; ++k) {
    std::vector<double> angles;
    for (double t : times) angles.push_back(radians(4.0) * std::sin(2.0 * kPi * (t / 2.0 - k / 16.0)));
    add_channel(animation, joints[k], ChannelPath::Rotation,
                make_sampler(times, rotation_keys(Vec3::UnitZ(), angles), 4));
  }
  add_animation(scene, std::move(animation));
  finalize_scene(scene);
  return scene;
}

Scene make_eight_influences() {
  Scene scene;
  scene.source = "builtin:eight-influences";
  constexpr int kSatellites = 8;
  constexpr double kCircleRadius = 1.5;
  constexpr double kHeight = 0.25;
  const int root = add_node(scene, "root");
  scene.roots.push_back(root);
  std::vector<int> joints{root};
  std::vector<Vec3> joint_positions;
  for (int k = 0; k < kSatellites; ++k) {
    const double angle = 2.0 * kPi * k / kSatellites;
    const Transform rest = make_trs(Vec3(kCircleRadius * std::cos(angle), kHeight, kCircleRadius * std::sin(angle)));
    joints.push_back(add_node(scene, "satellite" + std::to_string(k), rest));
    add_child(scene, root, joints.back());
    joint_positions.push_back(rest.translation);  // the root sits at the origin
  }
  const int skin = add_skin(scene, "satellite_skin", joints, root);
  const int material = add_material(scene, "grid_material", Vec4(0.9, 0.75, 0.15, 1.0));

  constexpr int kCells = 15;  // 16 x 16 vertices
  Primitive prim;
  prim.topology = Topology::Triangles;
  prim.indexed = true;
  prim.material = material;
  // edge_u (+X) x edge_v (-Z) = +Y: the grid faces up.
  append_grid(prim, Vec3(-1.0, 0.0, 1.0), Vec3(2.0, 0.0, 0.0), Vec3(0.0, 0.0, -2.0), kCells, kCells, Vec3::UnitY());
  prim.influences_per_vertex = kSatellites;
  prim.joints.reserve(prim.vertex_count() * kSatellites);
  prim.weights.reserve(prim.vertex_count() * kSatellites);
  for (const Vec3& p : prim.positions) {
    std::array<double, kSatellites> w{};
    double total = 0.0;
    for (int k = 0; k < kSatellites; ++k) {
      w[k] = 1.0 / (p - joint_positions[k]).norm();  // the joints are off the plane: never a zero distance
      total += w[k];
    }
    for (double& wk : w) wk /= total;
    round_weights_f32(w);
    for (int k = 0; k < kSatellites; ++k) {
      prim.joints.push_back(static_cast<uint32_t>(k + 1));  // skin joint 0 is the root
      prim.weights.push_back(w[k]);
    }
  }
  add_skinned_mesh(scene, "grid_mesh", std::move(prim), skin);

  Animation animation;
  animation.name = "main";
  const std::vector<double> times = key_times(9, 0.125);
  for (int k = 0; k < kSatellites; ++k) {
    const Vec3 rest = scene.nodes[joints[k + 1]].rest.translation;
    std::vector<double> values;
    for (double t : times) {
      values.insert(values.end(),
                    {rest.x(), kHeight + 0.2 * std::sin(2.0 * kPi * (t + static_cast<double>(k) / kSatellites)),
                     rest.z()});
    }
    add_channel(animation, joints[k + 1], ChannelPath::Translation, make_sampler(times, values, 3));
  }
  add_animation(scene, std::move(animation));
  finalize_scene(scene);
  return scene;
}

// glTF 2.0, "Skins": the transform of the node that instantiates a skinned mesh, and of that node's
// ancestors, is ignored; vertices go to world space through G(joint) * IBM only. This scene gives the mesh
// node and its parent non-identity transforms (non-uniform scale included), so an implementation that
// wrongly applies them moves every vertex. The joints hang under a different root, "armature", with its
// own TRS (translation, 120 degrees about (1, 1, 1), uniform scale 2) that jointA's rest TRS undoes: at
// bind, jointA's global is exactly the identity and jointB's a translation by (1, 0, 0), so the joints sit
// on the box; an implementation that leaves the non-joint ancestor out of G moves the mesh too.
// All these rotations have components +-1/2 or 0, 1 and the translations and scales are dyadic, so the
// bind globals and inverse bind matrices are exact.
Scene make_node_transforms() {
  Scene scene;
  scene.source = "builtin:node-transforms";
  const Vec3 armature_translation(0.5, -0.25, 0.75);
  const Quat armature_rotation = quat_from_xyzw(0.5, 0.5, 0.5, 0.5);
  constexpr double kArmatureScale = 2.0;
  const int armature = add_node(scene, "armature",
                                make_trs(armature_translation, armature_rotation, Vec3::Constant(kArmatureScale)));
  // (T R S)^-1 = T(-R^T t / s) R^T S(1 / s) for a uniform scale s; R is a permutation here, so this is exact.
  const Quat inverse_rotation = armature_rotation.conjugate();
  const Vec3 undo_translation = -(rotation_matrix(inverse_rotation) * armature_translation) / kArmatureScale;
  const int joint_a = add_node(scene, "jointA",
                               make_trs(undo_translation, inverse_rotation, Vec3::Constant(1.0 / kArmatureScale)));
  const int joint_b = add_node(scene, "jointB", make_trs(Vec3(1.0, 0.0, 0.0)));
  add_child(scene, armature, joint_a);
  add_child(scene, joint_a, joint_b);
  const int mesh_parent = add_node(scene, "mesh_parent",
                                   make_trs(Vec3(-2.0, 1.0, 0.5), quat_from_xyzw(0.0, 0.0, 1.0, 0.0),
                                            Vec3(2.0, 0.5, 1.0)));
  scene.roots = {armature, mesh_parent};
  const int skin = add_skin(scene, "box_skin", {joint_a, joint_b}, joint_a);
  const int material = add_material(scene, "box_material", Vec4(0.6, 0.3, 0.8, 1.0));

  Primitive prim;
  prim.topology = Topology::Triangles;
  prim.indexed = true;
  prim.material = material;
  constexpr double h = 0.25;
  const Vec3 along(2.0, 0.0, 0.0);
  // Long faces: edge_u along +X (2 cells, split at x = 1), edge_v chosen so that edge_u x edge_v = normal.
  append_grid(prim, Vec3(0.0, h, h), along, Vec3(0.0, 0.0, -2.0 * h), 2, 1, Vec3::UnitY());
  append_grid(prim, Vec3(0.0, -h, -h), along, Vec3(0.0, 0.0, 2.0 * h), 2, 1, -Vec3::UnitY());
  append_grid(prim, Vec3(0.0, -h, h), along, Vec3(0.0, 2.0 * h, 0.0), 2, 1, Vec3::UnitZ());
  append_grid(prim, Vec3(0.0, h, -h), along, Vec3(0.0, -2.0 * h, 0.0), 2, 1, -Vec3::UnitZ());
  // End caps: +Y x +Z = +X at x = 2, +Z x +Y = -X at x = 0.
  append_grid(prim, Vec3(2.0, -h, -h), Vec3(0.0, 2.0 * h, 0.0), Vec3(0.0, 0.0, 2.0 * h), 1, 1, Vec3::UnitX());
  append_grid(prim, Vec3(0.0, -h, -h), Vec3(0.0, 0.0, 2.0 * h), Vec3(0.0, 2.0 * h, 0.0), 1, 1, -Vec3::UnitX());
  prim.influences_per_vertex = 4;
  for (const Vec3& p : prim.positions) {
    std::array<double, 4> w{1.0 - p.x() / 2.0, p.x() / 2.0, 0.0, 0.0};  // x is 0, 1 or 2
    round_weights_f32(w);
    prim.joints.insert(prim.joints.end(), {0, 1, 0, 0});
    prim.weights.insert(prim.weights.end(), w.begin(), w.end());
  }
  add_skinned_mesh(scene, "box_mesh", std::move(prim), skin,
                   make_trs(Vec3(0.3, 0.2, -0.1), quat_from_xyzw(-0.5, 0.5, -0.5, 0.5), Vec3(1.25, 1.25, 1.25)),
                   mesh_parent);

  Animation animation;
  animation.name = "main";
  add_channel(animation, joint_b, ChannelPath::Rotation,
              make_sampler({0.0, 0.5, 1.0}, rotation_keys(Vec3::UnitZ(), {0.0, radians(60), 0.0}), 4));
  add_animation(scene, std::move(animation));
  finalize_scene(scene);
  return scene;
}

// Uniform cubic B-spline basis at u in [0, 1): weights of the control points k-1, k, k+1, k+2.
std::array<double, 4> cubic_bspline_basis(double u) {
  const double u2 = u * u;
  const double u3 = u2 * u;
  return {(1.0 - u) * (1.0 - u) * (1.0 - u) / 6.0, (3.0 * u3 - 6.0 * u2 + 4.0) / 6.0,
          (-3.0 * u3 + 3.0 * u2 + 3.0 * u + 1.0) / 6.0, u3 / 6.0};
}

Scene make_million() {
  Scene scene;
  scene.source = "builtin:million";
  constexpr int kJoints = 32;
  constexpr double kSpacing = 0.2;
  constexpr int kRings = 1001;
  constexpr int kSegments = 1000;
  const std::vector<int> joints = add_joint_chain(scene, kJoints, kSpacing);
  const int skin = add_skin(scene, "million_skin", joints, joints[0]);
  const int material = add_material(scene, "million_material", Vec4(0.7, 0.7, 0.75, 1.0));

  std::vector<double> rings(kRings);
  Influences influences;
  influences.joints.reserve(kRings * 4);
  influences.weights.reserve(kRings * 4);
  for (int r = 0; r < kRings; ++r) {
    // Joint coordinate s in [0, kJoints - 1]: the tube runs from the first joint to the last.
    const double s = static_cast<double>(r) * (kJoints - 1) / (kRings - 1);
    rings[r] = s * kSpacing;
    const int k = std::min(static_cast<int>(std::floor(s)), kJoints - 1);
    const std::array<double, 4> basis = cubic_bspline_basis(s - k);
    // Four consecutive joints starting at `first`; basis points beyond the chain fold onto its end joints.
    const int first = std::clamp(k - 1, 0, kJoints - 4);
    std::array<double, 4> w{};
    for (int i = 0; i < 4; ++i) w[std::clamp(k - 1 + i, 0, kJoints - 1) - first] += basis[i];
    round_weights_f32(w);
    for (int i = 0; i < 4; ++i) {
      influences.joints.push_back(static_cast<uint32_t>(first + i));
      influences.weights.push_back(w[i]);
    }
  }
  add_skinned_mesh(scene, "million_mesh", make_tube(rings, kSegments, 0.3, kAlongY, 4, influences, material), skin);

  Animation animation;
  animation.name = "main";
  const std::vector<double> times = key_times(9, 0.25);
  std::vector<double> angles;
  for (double t : times) angles.push_back(radians(3.0) * std::sin(kPi * t));
  const std::vector<double> keys = rotation_keys(Vec3::UnitZ(), angles);
  for (int k = 1; k < kJoints; ++k)
    add_channel(animation, joints[k], ChannelPath::Rotation, make_sampler(times, keys, 4));
  add_animation(scene, std::move(animation));
  finalize_scene(scene);
  return scene;
}

}  // namespace

std::vector<std::string> builtin_scene_names() {
  return {"twist", "bend", "chain64", "eight-influences", "node-transforms", "million"};
}

Scene make_builtin_scene(const std::string& name) {
  if (name == "twist") return make_twist();
  if (name == "bend") return make_bend();
  if (name == "chain64") return make_chain64();
  if (name == "eight-influences") return make_eight_influences();
  if (name == "node-transforms") return make_node_transforms();
  if (name == "million") return make_million();
  std::string known;
  for (const std::string& n : builtin_scene_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("builtin:" + name, "", "a known built-in scene: " + known);
}

}  // namespace skinref

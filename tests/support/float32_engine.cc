#include "support/float32_engine.h"

#include "verify/float_model.h"

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>

namespace skinref::test {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using M4 = std::array<float, 16>;  // row-major: m[r * 4 + c]
using V3 = std::array<float, 3>;

// The rounding mode of + - * / and sqrt for a scope. The file is compiled with -frounding-math
// (CMakeLists.txt), so that the compiler neither folds nor moves operations across a change of mode.
class RoundingScope {
 public:
  explicit RoundingScope(int mode) : saved_(std::fegetround()) { std::fesetround(mode); }
  ~RoundingScope() { std::fesetround(saved_); }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_;
};

M4 identity() {
  M4 m{};
  m[0] = m[5] = m[10] = m[15] = 1.0f;
  return m;
}

// a * b, each entry summed from the last term to the first.
M4 multiply(const M4& a, const M4& b) {
  M4 out{};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      float sum = 0.0f;
      for (int k = 3; k >= 0; --k) sum += a[r * 4 + k] * b[k * 4 + c];
      out[r * 4 + c] = sum;
    }
  return out;
}

M4 from_mat4(const Mat4& m) {
  M4 out{};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out[r * 4 + c] = float(m(r, c));
  return out;
}

V3 transform_point(const M4& m, const V3& p) {
  V3 out{};
  for (int r = 0; r < 3; ++r) out[r] = m[r * 4 + 3] + m[r * 4 + 2] * p[2] + m[r * 4 + 1] * p[1] + m[r * 4 + 0] * p[0];
  return out;
}

V3 normalized(const V3& v) {
  const float length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return length > 0.0f ? V3{v[0] / length, v[1] / length, v[2] / length} : v;
}

struct Quaternion {
  float x = 0, y = 0, z = 0, w = 1;
};

double exact_length(const Quaternion& q) {
  return std::sqrt(double(q.x) * q.x + double(q.y) * q.y + double(q.z) * q.z + double(q.w) * q.w);
}

// By sqrt and division in float; or, with a bias, at the allowance's edge: the exact normalization (in double, to
// nearest) times (1 + bias u), then rounded in the engine's mode.
Quaternion normalized(const Quaternion& q, const Float32EngineChoices& choices) {
  if (choices.normalize_bias_ulps == 0.0) {
    const float length = std::sqrt(q.w * q.w + q.z * q.z + q.y * q.y + q.x * q.x);
    return length > 0.0f ? Quaternion{q.x / length, q.y / length, q.z / length, q.w / length} : q;
  }
  double scaled[4];
  {
    RoundingScope nearest(FE_TONEAREST);
    const double length = exact_length(q);
    if (length == 0.0) return q;
    const double factor = (1.0 + choices.normalize_bias_ulps * tol::kFloatUlp) / length;
    scaled[0] = q.x * factor, scaled[1] = q.y * factor, scaled[2] = q.z * factor, scaled[3] = q.w * factor;
  }
  return {float(scaled[0]), float(scaled[1]), float(scaled[2]), float(scaled[3])};
}

// The slerp weights of the stored keys a, b (b on a's side) at u: by acos and sin in float, switching to lerp
// below 1e-3 rad; or, with a bias, at the allowance's edge: the exact weights (in double, to nearest, from the
// exact unit keys) times (1 + bias u), then rounded in the engine's mode.
void slerp_weights(const Quaternion& a, const Quaternion& b, float d, float u, const Float32EngineChoices& choices,
                   float& wa, float& wb) {
  if (choices.slerp_weight_bias_ulps == 0.0) {
    wa = 1.0f - u, wb = u;
    const float theta = std::acos(std::min(d, 1.0f));
    if (theta > 1e-3f) {
      const float s = std::sin(theta);
      wa = std::sin((1.0f - u) * theta) / s;
      wb = std::sin(u * theta) / s;
    }
    return;
  }
  double ca = 1.0 - double(u), cb = u;
  {
    RoundingScope nearest(FE_TONEAREST);
    const double dot = (double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z + double(a.w) * b.w) /
                       (exact_length(a) * exact_length(b));
    const double theta = std::acos(std::min(dot, 1.0));
    if (theta > 0.0) {
      ca = std::sin((1.0 - u) * theta) / std::sin(theta);
      cb = std::sin(u * theta) / std::sin(theta);
    }
    ca *= 1.0 + choices.slerp_weight_bias_ulps * tol::kFloatUlp;
    cb *= 1.0 + choices.slerp_weight_bias_ulps * tol::kFloatUlp;
  }
  wa = float(ca), wb = float(cb);
}

Quaternion slerp(const Quaternion& stored_a, Quaternion stored_b, float u, const Float32EngineChoices& choices) {
  const Quaternion a = normalized(stored_a, choices);
  Quaternion b = normalized(stored_b, choices);
  float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  if (d < 0.0f) {
    b = {-b.x, -b.y, -b.z, -b.w};
    stored_b = {-stored_b.x, -stored_b.y, -stored_b.z, -stored_b.w};
    d = -d;
  }
  float wa = 0.0f, wb = 0.0f;
  slerp_weights(stored_a, stored_b, d, u, choices, wa, wb);
  const Quaternion sum{wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w};
  return choices.renormalize_slerp ? normalized(sum, choices) : sum;
}

struct Trs {
  V3 translation{0, 0, 0};
  Quaternion rotation;
  V3 scale{1, 1, 1};
};

// The rotation part of R by the engine's form.
void engine_rotation(const Quaternion& q, RotationMatrixForm form, M4& r) {
  switch (form) {
    case RotationMatrixForm::UnitAssuming:
      r[0] = 1 - 2 * (q.y * q.y + q.z * q.z);
      r[5] = 1 - 2 * (q.x * q.x + q.z * q.z);
      r[10] = 1 - 2 * (q.x * q.x + q.y * q.y);
      break;
    case RotationMatrixForm::Homogeneous:
      r[0] = q.w * q.w + q.x * q.x - q.y * q.y - q.z * q.z;
      r[5] = q.w * q.w - q.x * q.x + q.y * q.y - q.z * q.z;
      r[10] = q.w * q.w - q.x * q.x - q.y * q.y + q.z * q.z;
      break;
    case RotationMatrixForm::Godot: {
      const float s = 2.0f / (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
      r[0] = 1 - s * (q.y * q.y + q.z * q.z);
      r[5] = 1 - s * (q.x * q.x + q.z * q.z);
      r[10] = 1 - s * (q.x * q.x + q.y * q.y);
      r[1] = s * (q.x * q.y - q.w * q.z);
      r[2] = s * (q.x * q.z + q.w * q.y);
      r[4] = s * (q.x * q.y + q.w * q.z);
      r[6] = s * (q.y * q.z - q.w * q.x);
      r[8] = s * (q.x * q.z - q.w * q.y);
      r[9] = s * (q.y * q.z + q.w * q.x);
      return;
    }
  }
  r[1] = 2 * (q.x * q.y - q.w * q.z);
  r[2] = 2 * (q.x * q.z + q.w * q.y);
  r[4] = 2 * (q.x * q.y + q.w * q.z);
  r[6] = 2 * (q.y * q.z - q.w * q.x);
  r[8] = 2 * (q.x * q.z - q.w * q.y);
  r[9] = 2 * (q.y * q.z + q.w * q.x);
}

M4 local_matrix(const Trs& trs, const Float32EngineChoices& choices) {
  M4 t = identity(), r = identity(), s = identity();
  for (int i = 0; i < 3; ++i) t[i * 4 + 3] = trs.translation[size_t(i)];
  engine_rotation(trs.rotation, choices.rotation_matrix_form, r);
  s[0] = trs.scale[0];
  s[5] = trs.scale[1];
  s[10] = trs.scale[2];
  return multiply(multiply(t, r), s);
}

// Sampler `s` at t: `components` floats.
std::vector<float> sample(const AnimationSampler& s, ChannelPath path, float t, const Float32EngineChoices& choices) {
  const size_t c = size_t(s.components), n = s.times.size();
  const bool cubic = s.interpolation == Interpolation::CubicSpline;
  auto value = [&](size_t k, size_t i) { return float(s.values[(cubic ? k * 3 + 1 : k) * c + i]); };
  std::vector<float> out(c);
  size_t k = 0;
  if (n == 1 || t <= float(s.times.front())) {
    for (size_t i = 0; i < c; ++i) out[i] = value(0, i);
  } else if (t >= float(s.times.back())) {
    for (size_t i = 0; i < c; ++i) out[i] = value(n - 1, i);
  } else {
    while (float(s.times[k + 1]) <= t) ++k;
    const float t0 = float(s.times[k]), t1 = float(s.times[k + 1]);
    const float u = (t - t0) / (t1 - t0);
    if (t == t0 || s.interpolation == Interpolation::Step) {
      for (size_t i = 0; i < c; ++i) out[i] = value(k, i);
    } else if (s.interpolation == Interpolation::Linear) {
      if (path == ChannelPath::Rotation) {
        const Quaternion q = slerp({value(k, 0), value(k, 1), value(k, 2), value(k, 3)},
                                   {value(k + 1, 0), value(k + 1, 1), value(k + 1, 2), value(k + 1, 3)}, u, choices);
        return {q.x, q.y, q.z, q.w};
      }
      for (size_t i = 0; i < c; ++i) out[i] = (1.0f - u) * value(k, i) + u * value(k + 1, i);
    } else {
      const float d = t1 - t0;
      // Hermite in Horner form: h00 = (2u - 3)u^2 + 1, h10 = ((u - 2)u + 1)u, h01 = (3 - 2u)u^2, h11 = (u - 1)u^2.
      const float h00 = (2 * u - 3) * u * u + 1, h10 = ((u - 2) * u + 1) * u;
      const float h01 = (3 - 2 * u) * u * u, h11 = (u - 1) * u * u;
      for (size_t i = 0; i < c; ++i) {
        const float b0 = float(s.values[(k * 3 + 2) * c + i]), a1 = float(s.values[((k + 1) * 3) * c + i]);
        out[i] = h11 * d * a1 + h01 * value(k + 1, i) + h10 * d * b0 + h00 * value(k, i);
      }
    }
  }
  if (path == ChannelPath::Rotation) {
    const Quaternion q = normalized(Quaternion{out[0], out[1], out[2], out[3]}, choices);
    return {q.x, q.y, q.z, q.w};
  }
  return out;
}

void walk(const Scene& scene, int node, const M4& parent, const std::vector<Trs>& locals,
          const Float32EngineChoices& choices, std::vector<M4>& globals) {
  globals[size_t(node)] = multiply(parent, local_matrix(locals[size_t(node)], choices));
  for (int child : scene.nodes[size_t(node)].children)
    walk(scene, child, globals[size_t(node)], locals, choices, globals);
}

// The engine's pose: each node's local TRS and its morph weights.
struct EnginePose {
  std::vector<Trs> locals;
  std::vector<std::vector<float>> morph;  // per node; sized by its mesh's first primitive's targets
};

// The rest pose: the nodes' rest TRS (rotations normalized) and their default morph weights.
EnginePose rest_pose(const Scene& scene, const Float32EngineChoices& choices) {
  EnginePose pose;
  pose.locals.resize(scene.nodes.size());
  pose.morph.resize(scene.nodes.size());
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    const Transform& rest = scene.nodes[n].rest;
    pose.locals[n].translation = {float(rest.translation.x()), float(rest.translation.y()),
                                  float(rest.translation.z())};
    pose.locals[n].rotation = normalized(Quaternion{float(rest.rotation.x()), float(rest.rotation.y()),
                                                    float(rest.rotation.z()), float(rest.rotation.w())},
                                         choices);
    pose.locals[n].scale = {float(rest.scale.x()), float(rest.scale.y()), float(rest.scale.z())};
    const Node& node = scene.nodes[n];
    if (node.mesh >= 0) {
      const std::vector<double>& defaults =
          !node.morph_weights.empty() ? node.morph_weights : scene.meshes[size_t(node.mesh)].default_weights;
      const size_t targets = scene.meshes[size_t(node.mesh)].primitives.empty()
                                 ? 0
                                 : scene.meshes[size_t(node.mesh)].primitives[0].targets.size();
      pose.morph[n].assign(targets, 0.0f);
      for (size_t t = 0; t < targets && t < defaults.size(); ++t) pose.morph[n][t] = float(defaults[t]);
    }
  }
  return pose;
}

// Each channel of the clip sampled at `time`, over the rest pose.
void apply_clip(const Animation& clip, float time, const Float32EngineChoices& choices, EnginePose& pose) {
  for (const AnimationChannel& channel : clip.channels) {
    const std::vector<float> v = sample(clip.samplers[size_t(channel.sampler)], channel.path, time, choices);
    Trs& local = pose.locals[size_t(channel.node)];
    std::vector<float>& morph = pose.morph[size_t(channel.node)];
    switch (channel.path) {
      case ChannelPath::Translation: local.translation = {v[0], v[1], v[2]}; break;
      case ChannelPath::Rotation: local.rotation = {v[0], v[1], v[2], v[3]}; break;
      case ChannelPath::Scale: local.scale = {v[0], v[1], v[2]}; break;
      case ChannelPath::Weights:
        for (size_t t = 0; t < v.size() && t < morph.size(); ++t) morph[t] = v[t];
        break;
    }
  }
}

// Every node's global matrix: the active scene's roots first, then the nodes outside it.
std::vector<M4> global_matrices(const Scene& scene, const std::vector<Trs>& locals,
                                const Float32EngineChoices& choices) {
  std::vector<M4> globals(scene.nodes.size(), identity());
  for (int root : scene.roots) walk(scene, root, identity(), locals, choices, globals);
  for (size_t n = 0; n < scene.nodes.size(); ++n)  // nodes outside the active scene
    if (scene.nodes[n].parent < 0 && std::find(scene.roots.begin(), scene.roots.end(), int(n)) == scene.roots.end())
      walk(scene, int(n), identity(), locals, choices, globals);
  return globals;
}

// The joint matrices G * IBM of a node's skin; empty for a rigid node.
std::vector<M4> skin_palette(const Scene& scene, const Node& node, const std::vector<M4>& globals) {
  std::vector<M4> palette;
  if (node.skin >= 0) {
    const Skin& skin = scene.skins[size_t(node.skin)];
    for (size_t j = 0; j < skin.joints.size(); ++j)
      palette.push_back(multiply(globals[size_t(skin.joints[j])], from_mat4(skin.inverse_bind[j])));
  }
  return palette;
}

// A primitive's bind attributes in float, with its morph targets added in reverse order.
struct MorphedAttributes {
  std::vector<V3> positions, normals, tangents;  // tangents without w (that stays the stored one)
};

MorphedAttributes morphed_attributes(const Primitive& prim, const std::vector<float>& weights) {
  const size_t count = prim.vertex_count();
  MorphedAttributes m;
  m.positions.resize(count);
  m.normals.resize(prim.normals.size());
  m.tangents.resize(prim.tangents.size());
  for (size_t v = 0; v < count; ++v)
    m.positions[v] = {float(prim.positions[v].x()), float(prim.positions[v].y()), float(prim.positions[v].z())};
  for (size_t v = 0; v < m.normals.size(); ++v)
    m.normals[v] = {float(prim.normals[v].x()), float(prim.normals[v].y()), float(prim.normals[v].z())};
  for (size_t v = 0; v < m.tangents.size(); ++v)
    m.tangents[v] = {float(prim.tangents[v].x()), float(prim.tangents[v].y()), float(prim.tangents[v].z())};
  for (size_t t = prim.targets.size(); t-- > 0;) {
    const float w = t < weights.size() ? weights[t] : 0.0f;
    if (w == 0.0f) continue;
    const MorphTarget& target = prim.targets[t];
    for (size_t v = 0; v < target.position_deltas.size(); ++v)
      for (int i = 0; i < 3; ++i) m.positions[v][size_t(i)] += w * float(target.position_deltas[v][i]);
    for (size_t v = 0; v < target.normal_deltas.size() && v < m.normals.size(); ++v)
      for (int i = 0; i < 3; ++i) m.normals[v][size_t(i)] += w * float(target.normal_deltas[v][i]);
    for (size_t v = 0; v < target.tangent_deltas.size() && v < m.tangents.size(); ++v)
      for (int i = 0; i < 3; ++i) m.tangents[v][size_t(i)] += w * float(target.tangent_deltas[v][i]);
  }
  return m;
}

// One vertex's blend: the blended matrix (for normals and tangents), the blended position and the weights' sum.
struct BlendedVertex {
  M4 blended{};
  V3 position{0, 0, 0};
  float sum = 0.0f;
};

// A rigid vertex by the node's global matrix; a skinned one with positions blended, influences in reverse order.
BlendedVertex blend_vertex(const Primitive& prim, size_t v, const V3& bind_position, const M4* rigid_global,
                           const std::vector<M4>& palette) {
  const size_t k = size_t(prim.influences_per_vertex);
  BlendedVertex out;
  if (rigid_global) {
    out.blended = *rigid_global;
    out.position = transform_point(out.blended, bind_position);
    out.sum = 1.0f;
    return out;
  }
  for (size_t i = k; i-- > 0;) {  // influences in reverse order, positions blended
    const float w = float(prim.weights[v * k + i]);
    out.sum += w;
    if (w == 0.0f) continue;
    const M4& joint = palette[prim.joints[v * k + i]];
    const V3 moved = transform_point(joint, bind_position);
    for (int e = 0; e < 3; ++e) out.position[size_t(e)] += w * moved[size_t(e)];
    for (int e = 0; e < 16; ++e) out.blended[size_t(e)] += w * joint[size_t(e)];
  }
  return out;
}

// A normal by the cofactor of the blended upper 3x3 (row-major), sign-corrected: det * inverse transpose;
// normalized.
V3 skinned_normal(const M4& blended, const V3& m) {
  const float* b = blended.data();
  const float c00 = b[5] * b[10] - b[6] * b[9], c01 = b[6] * b[8] - b[4] * b[10], c02 = b[4] * b[9] - b[5] * b[8];
  const float c10 = b[2] * b[9] - b[1] * b[10], c11 = b[0] * b[10] - b[2] * b[8], c12 = b[1] * b[8] - b[0] * b[9];
  const float c20 = b[1] * b[6] - b[2] * b[5], c21 = b[2] * b[4] - b[0] * b[6], c22 = b[0] * b[5] - b[1] * b[4];
  const float det = b[0] * c00 + b[1] * c01 + b[2] * c02;
  V3 r{c00 * m[0] + c01 * m[1] + c02 * m[2], c10 * m[0] + c11 * m[1] + c12 * m[2],
       c20 * m[0] + c21 * m[1] + c22 * m[2]};
  if (det < 0.0f) r = {-r[0], -r[1], -r[2]};
  return normalized(r);
}

// A tangent's direction by the blended upper 3x3; normalized.
V3 skinned_tangent(const M4& blended, const V3& t) {
  const float* b = blended.data();
  V3 r{b[0] * t[0] + b[1] * t[1] + b[2] * t[2], b[4] * t[0] + b[5] * t[1] + b[6] * t[2],
       b[8] * t[0] + b[9] * t[1] + b[10] * t[2]};
  return normalized(r);
}

// A primitive's vertices skinned (or moved rigidly when `rigid_global` is set); a vertex whose weights sum to 0
// keeps its morphed bind attributes.
void skin_primitive(const Primitive& prim, const MorphedAttributes& m, const M4* rigid_global,
                    const std::vector<M4>& palette, SkinnedVertices& sv) {
  const size_t count = prim.vertex_count();
  sv.positions.resize(count);
  sv.normals.resize(m.normals.size());
  sv.tangents.resize(m.tangents.size());
  for (size_t v = 0; v < count; ++v) {
    const BlendedVertex b = blend_vertex(prim, v, m.positions[v], rigid_global, palette);
    if (b.sum == 0.0f) {  // no influence: the bind attributes
      sv.positions[v] = Vec3(m.positions[v][0], m.positions[v][1], m.positions[v][2]);
      if (!m.normals.empty()) sv.normals[v] = Vec3(m.normals[v][0], m.normals[v][1], m.normals[v][2]);
      if (!m.tangents.empty())
        sv.tangents[v] = Vec4(m.tangents[v][0], m.tangents[v][1], m.tangents[v][2], float(prim.tangents[v].w()));
      continue;
    }
    sv.positions[v] = Vec3(b.position[0], b.position[1], b.position[2]);
    if (!m.normals.empty()) {
      const V3 r = skinned_normal(b.blended, m.normals[v]);
      sv.normals[v] = Vec3(r[0], r[1], r[2]);
    }
    if (!m.tangents.empty()) {
      const V3 r = skinned_tangent(b.blended, m.tangents[v]);
      sv.tangents[v] = Vec4(r[0], r[1], r[2], float(prim.tangents[v].w()));
    }
  }
}

}  // namespace

std::vector<WorldPrimitive> float32_engine_vertices(const Scene& scene, int animation, float time,
                                                    const Float32EngineChoices& choices) {
  // Every step below runs in the engine's rounding mode.
  const RoundingScope mode(choices.round_toward_zero ? FE_TOWARDZERO : FE_TONEAREST);
  EnginePose pose = rest_pose(scene, choices);
  if (animation >= 0) apply_clip(scene.animations[size_t(animation)], time, choices, pose);
  const std::vector<M4> globals = global_matrices(scene, pose.locals, choices);

  std::vector<WorldPrimitive> result;
  for (int n : drawn_nodes(scene)) {
    const Node& node = scene.nodes[size_t(n)];
    const std::vector<M4> palette = skin_palette(scene, node, globals);
    const M4* rigid_global = node.skin < 0 ? &globals[size_t(n)] : nullptr;
    const Mesh& mesh = scene.meshes[size_t(node.mesh)];
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      WorldPrimitive& out = result.emplace_back();
      out.node = n;
      out.mesh = node.mesh;
      out.primitive = int(p);
      out.skinned = node.skin >= 0;
      const MorphedAttributes morphed = morphed_attributes(prim, pose.morph[size_t(n)]);
      skin_primitive(prim, morphed, rigid_global, palette, out.vertices);
    }
  }
  return result;
}

}  // namespace skinref::test

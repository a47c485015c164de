#version 450
// Compute skinning (gpu/skinning_gpu.h), one vertex per invocation: morph targets first, then linear blend
// skinning or dual quaternion skinning (specialization constant 0), over any number of influences (push
// constant). The formulas and their order of operations follow the reference kernels
// (reference/skin/lbs.cc, reference/skin/dqs.cc), in float32. Every primitive of a scene lives in the same
// arrays; the push constants say where this dispatch's primitive starts in each.

layout(local_size_x = 64) in;

// The method's kernel: SkinningMethodDescriptor::shader_method (reference/skin/method.h), one constant per
// method below; rigid nodes run kRigidNodeMethod's (LBS).
layout(constant_id = 0) const uint kMethod = 0;
const uint kMethodLbs = 0u;
const uint kMethodDqs = 1u;

const uint kHasNormals = 1u;
const uint kHasTangents = 2u;
const uint kRenormalize = 4u;
const uint kBlendNormalMatrices = 8u;
const uint kRigid = 16u;  // one implicit influence: palette entry 0 with weight 1 (a rigid node's global matrix)
const uint kNone = 0xFFFFFFFFu;

// Bind-space attributes, xyz(w) of each vec4 (w unused except for tangents' handedness).
layout(std430, set = 0, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, set = 0, binding = 1) readonly buffer Normals { vec4 normals[]; };
layout(std430, set = 0, binding = 2) readonly buffer Tangents { vec4 tangents[]; };
// influences per vertex, flattened as in Primitive::joints / weights.
layout(std430, set = 0, binding = 3) readonly buffer Joints { uint joints[]; };
layout(std430, set = 0, binding = 4) readonly buffer Weights { float weights[]; };
// Per morph target of non-zero weight: start of its position, normal and tangent deltas in `deltas` (kNone
// when the target has none for that attribute) and the weight's bits.
layout(std430, set = 0, binding = 5) readonly buffer Targets { uvec4 targets[]; };
layout(std430, set = 0, binding = 6) readonly buffer Deltas { vec4 deltas[]; };
// Per palette entry: JM's top three rows (x, y, z, w: the translation in w), its normal matrix (three rows),
// and for DQS five vec4: the rigid part's real and dual quaternions (x, y, z, w) and the non-rigid part's rows.
// Rows of four rather than columns of three: every lane of each 16-byte load is used, three loads per
// influence instead of four part-used ones. The joints of neighbouring vertices can differ, so these loads
// diverge, and their count and width appear to set the time: on an NVIDIA H200 (the benchmarks' random joints, 16M vertices), LBS
// with 4 influences went from 0.82 to 0.48 ms per pass, 0.44 to 0.75 of the device's copy bandwidth.
layout(std430, set = 0, binding = 7) readonly buffer Palette { vec4 palette_rows[]; };
layout(std430, set = 0, binding = 8) readonly buffer NormalRows { vec4 normal_rows[]; };
layout(std430, set = 0, binding = 9) readonly buffer DualQuaternions { vec4 dual_quaternions[]; };
layout(std430, set = 0, binding = 10) writeonly buffer OutPositions { vec4 out_positions[]; };
layout(std430, set = 0, binding = 11) writeonly buffer OutNormals { vec4 out_normals[]; };
layout(std430, set = 0, binding = 12) writeonly buffer OutTangents { vec4 out_tangents[]; };

layout(push_constant) uniform Push {
  uint vertex_offset;     // the primitive's first vertex in the vertex arrays
  uint vertex_count;
  uint first_vertex;      // this dispatch's first vertex within the primitive (large primitives are split)
  uint influences;
  uint influence_offset;  // the primitive's first entry in joints / weights
  uint palette_offset;    // the skin's (or rigid node's) first palette entry
  uint target_offset;
  uint target_count;
  uint flags;
} pc;

// v * (1 / |v|), |v| = sqrt((x*x + y*y) + z*z); a zero vector stays zero (GLSL's normalize() would not).
vec3 normalized(vec3 v) {
  float len = sqrt((v.x * v.x + v.y * v.y) + v.z * v.z);
  return len > 0.0 ? v * (1.0 / len) : v;
}

uint joint_of(uint base, uint i) { return (pc.flags & kRigid) != 0u ? 0u : joints[base + i]; }
float weight_of(uint base, uint i) { return (pc.flags & kRigid) != 0u ? 1.0 : weights[base + i]; }

// The bind attributes of vertex v (local: its index within the primitive) with the morph targets applied,
// in target order: p = p0 + sum_k dP_k * w_k (reference/skin/morph.cc).
void morphed_attributes(uint v, uint local, bool has_normals, bool has_tangents, out vec3 p, out vec3 n,
                        out vec4 t) {
  p = positions[v].xyz;
  n = has_normals ? normals[v].xyz : vec3(0.0);
  t = has_tangents ? tangents[v] : vec4(0.0);
  for (uint k = 0u; k < pc.target_count; ++k) {
    uvec4 target = targets[pc.target_offset + k];
    float w = uintBitsToFloat(target.w);
    if (target.x != kNone) p = p + deltas[target.x + local].xyz * w;
    if (has_normals && target.y != kNone) n = n + deltas[target.y + local].xyz * w;
    if (has_tangents && target.z != kNone) t.xyz = t.xyz + deltas[target.z + local].xyz * w;
  }
}

// The (morphed) bind attributes, unskinned: for a vertex with nothing to blend.
void write_unskinned(uint v, vec3 p, vec3 n, vec4 t, bool has_normals, bool has_tangents) {
  out_positions[v] = vec4(p, 1.0);
  if (has_normals) out_normals[v] = vec4(n, 0.0);
  if (has_tangents) out_tangents[v] = t;
}

// B = sum_i w_i JM_i, in influence order, row by row (each element's sum as column by column), as B's columns.
void blend_matrix_columns(uint base, uint count, float sum, bool renormalize, out vec3 c0, out vec3 c1,
                          out vec3 c2, out vec3 c3) {
  float w = renormalize ? weight_of(base, 0u) / sum : weight_of(base, 0u);
  uint j = 3u * (pc.palette_offset + joint_of(base, 0u));
  vec4 b0 = palette_rows[j] * w, b1 = palette_rows[j + 1u] * w, b2 = palette_rows[j + 2u] * w;
  for (uint i = 1u; i < count; ++i) {
    w = renormalize ? weight_of(base, i) / sum : weight_of(base, i);
    j = 3u * (pc.palette_offset + joint_of(base, i));
    b0 = b0 + palette_rows[j] * w;
    b1 = b1 + palette_rows[j + 1u] * w;
    b2 = b2 + palette_rows[j + 2u] * w;
  }
  c0 = vec3(b0.x, b1.x, b2.x);
  c1 = vec3(b0.y, b1.y, b2.y);
  c2 = vec3(b0.z, b1.z, b2.z);
  c3 = vec3(b0.w, b1.w, b2.w);
}

// The LBS normal before normalizing: the blended normal matrices applied to n, or else B's cofactor matrix.
vec3 lbs_normal(uint base, uint count, float sum, bool renormalize, vec3 c0, vec3 c1, vec3 c2, vec3 n) {
  vec3 result;
  if ((pc.flags & kBlendNormalMatrices) != 0u) {
    // sum_i w_i N_i (rows), then N n.
    vec3 r0 = vec3(0.0), r1 = vec3(0.0), r2 = vec3(0.0);
    for (uint i = 0u; i < count; ++i) {
      float w = renormalize ? weight_of(base, i) / sum : weight_of(base, i);
      uint j = 3u * (pc.palette_offset + joint_of(base, i));
      r0 = r0 + normal_rows[j].xyz * w;
      r1 = r1 + normal_rows[j + 1u].xyz * w;
      r2 = r2 + normal_rows[j + 2u].xyz * w;
    }
    result = vec3(dot(r0, n), dot(r1, n), dot(r2, n));
  } else {
    // The cofactor matrix of B's linear part (det * inverse transpose), columns K0..K2, with the sign of
    // the determinant so that mirrored normals point outwards.
    vec3 k0 = cross(c1, c2), k1 = cross(c2, c0), k2 = cross(c0, c1);
    float det = (c0.x * k0.x + c1.x * k1.x) + c2.x * k2.x;
    result = (k0 * n.x + k1 * n.y) + k2 * n.z;
    if (det < 0.0) result = -result;
  }
  return result;
}

// Linear blend skinning of vertex v, whose weights sum to `sum` (not zero).
void skin_lbs(uint v, uint base, uint count, float sum, bool renormalize, vec3 p, vec3 n, vec4 t,
              bool has_normals, bool has_tangents) {
  vec3 c0, c1, c2, c3;
  blend_matrix_columns(base, count, sum, renormalize, c0, c1, c2, c3);
  out_positions[v] = vec4(((c0 * p.x + c1 * p.y) + c2 * p.z) + c3, 1.0);
  if (has_normals) out_normals[v] = vec4(normalized(lbs_normal(base, count, sum, renormalize, c0, c1, c2, n)), 0.0);
  if (has_tangents) out_tangents[v] = vec4(normalized((c0 * t.x + c1 * t.y) + c2 * t.z), t.w);
}

// The weighted sums of the influences' dual quaternions (real, dual) and of their non-rigid parts' rows
// (s0..s2). Antipodality: every rigid part is brought into the hemisphere of the first influence of non-zero
// weight (the weights' sum is not zero, so there is one).
void blend_dual_quaternions(uint base, uint count, float sum, bool renormalize, out vec4 real, out vec4 dual,
                            out vec3 s0, out vec3 s1, out vec3 s2) {
  uint pivot = 0u;
  while (pivot + 1u < count && weight_of(base, pivot) == 0.0) ++pivot;
  vec4 pivot_real = dual_quaternions[5u * (pc.palette_offset + joint_of(base, pivot))];
  s0 = vec3(0.0);
  s1 = vec3(0.0);
  s2 = vec3(0.0);
  real = vec4(0.0);
  dual = vec4(0.0);
  for (uint i = 0u; i < count; ++i) {
    float w = renormalize ? weight_of(base, i) / sum : weight_of(base, i);
    uint e = 5u * (pc.palette_offset + joint_of(base, i));
    vec4 q = dual_quaternions[e];
    float wq = dot(q, pivot_real) < 0.0 ? -w : w;
    real = real + q * wq;
    dual = dual + dual_quaternions[e + 1u] * wq;
    s0 = s0 + dual_quaternions[e + 2u].xyz * w;
    s1 = s1 + dual_quaternions[e + 3u].xyz * w;
    s2 = s2 + dual_quaternions[e + 4u].xyz * w;
  }
}

// R(real / |real|) (rows) and the translation 2 (d conj(r)).vec() of the normalized parts: products of two
// components each, so one factor 2 / |real|^2 (norm2 = |real|^2, not zero) normalizes both.
void rigid_motion(vec4 real, vec4 dual, float norm2, out vec3 rot0, out vec3 rot1, out vec3 rot2,
                  out vec3 translation) {
  float two = 2.0 / norm2;
  float rx = real.x, ry = real.y, rz = real.z, rw = real.w;
  rot0 = vec3(1.0 - two * (ry * ry + rz * rz), two * (rx * ry - rz * rw), two * (rx * rz + ry * rw));
  rot1 = vec3(two * (rx * ry + rz * rw), 1.0 - two * (rx * rx + rz * rz), two * (ry * rz - rx * rw));
  rot2 = vec3(two * (rx * rz - ry * rw), two * (ry * rz + rx * rw), 1.0 - two * (rx * rx + ry * ry));
  translation = two * ((rw * dual.xyz - dual.w * real.xyz) + cross(real.xyz, dual.xyz));
}

// Dual quaternion skinning of vertex v by the blended dual quaternion (real, dual), |real|^2 = norm2 (not
// zero), and the blended non-rigid rows s0..s2.
void skin_dqs(uint v, vec4 real, vec4 dual, float norm2, vec3 s0, vec3 s1, vec3 s2, vec3 p, vec3 n, vec4 t,
              bool has_normals, bool has_tangents) {
  vec3 rot0, rot1, rot2, translation;
  rigid_motion(real, dual, norm2, rot0, rot1, rot2, translation);

  // Phase 1: the blended non-rigid part S; phase 2: the blended rigid motion.
  vec3 scaled = vec3(dot(s0, p), dot(s1, p), dot(s2, p));
  out_positions[v] = vec4(vec3(dot(rot0, scaled), dot(rot1, scaled), dot(rot2, scaled)) + translation, 1.0);
  if (has_normals) {
    // Rows of S's cofactor matrix, negated for a negative determinant.
    vec3 k0 = cross(s1, s2), k1 = cross(s2, s0), k2 = cross(s0, s1);
    float det = dot(s0, k0);
    vec3 ns = vec3(dot(k0, n), dot(k1, n), dot(k2, n));
    if (det < 0.0) ns = -ns;
    out_normals[v] = vec4(normalized(vec3(dot(rot0, ns), dot(rot1, ns), dot(rot2, ns))), 0.0);
  }
  if (has_tangents) {
    vec3 ts = vec3(dot(s0, t.xyz), dot(s1, t.xyz), dot(s2, t.xyz));
    out_tangents[v] = vec4(normalized(vec3(dot(rot0, ts), dot(rot1, ts), dot(rot2, ts))), t.w);
  }
}

void main() {
  uint local = pc.first_vertex + gl_GlobalInvocationID.x;
  if (local >= pc.vertex_count) return;
  uint v = pc.vertex_offset + local;
  bool has_normals = (pc.flags & kHasNormals) != 0u;
  bool has_tangents = (pc.flags & kHasTangents) != 0u;

  vec3 p, n;
  vec4 t;
  morphed_attributes(v, local, has_normals, has_tangents, p, n, t);

  uint count = (pc.flags & kRigid) != 0u ? 1u : pc.influences;
  uint base = pc.influence_offset + local * count;
  float sum = weight_of(base, 0u);
  for (uint i = 1u; i < count; ++i) sum = sum + weight_of(base, i);
  bool renormalize = (pc.flags & kRenormalize) != 0u;

  switch (kMethod) {  // one case per method, no default (a new method adds its case and its constant above)
    case kMethodLbs: {
      if (sum == 0.0) {  // no influence: the (morphed) bind attributes, as the reference keeps them
        write_unskinned(v, p, n, t, has_normals, has_tangents);
        return;
      }
      skin_lbs(v, base, count, sum, renormalize, p, n, t, has_normals, has_tangents);
      break;
    }
    case kMethodDqs: {
      if (sum == 0.0) {
        write_unskinned(v, p, n, t, has_normals, has_tangents);
        return;
      }
      vec4 real, dual;
      vec3 s0, s1, s2;
      blend_dual_quaternions(base, count, sum, renormalize, real, dual, s0, s1, s2);
      float norm2 = dot(real, real);
      if (norm2 == 0.0) {  // only with negative weights: no rotation to normalize
        write_unskinned(v, p, n, t, has_normals, has_tangents);
        return;
      }
      skin_dqs(v, real, dual, norm2, s0, s1, s2, p, n, t, has_normals, has_tangents);
      break;
    }
  }
}

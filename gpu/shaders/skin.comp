#version 450
// Compute skinning (gpu/skinning_gpu.h), one vertex per invocation: morph targets first, then linear blend
// skinning or dual quaternion skinning (specialization constant 0), over any number of influences (push
// constant). The formulas and their order of operations follow the reference kernels
// (reference/skin/lbs.cc, reference/skin/dqs.cc), in float32. Every primitive of a scene lives in the same
// arrays; the push constants say where this dispatch's primitive starts in each.

layout(local_size_x = 64) in;

// 0: LBS (also every rigid node), 1: DQS.
layout(constant_id = 0) const uint kMethod = 0;

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

void main() {
  uint local = pc.first_vertex + gl_GlobalInvocationID.x;
  if (local >= pc.vertex_count) return;
  uint v = pc.vertex_offset + local;
  bool has_normals = (pc.flags & kHasNormals) != 0u;
  bool has_tangents = (pc.flags & kHasTangents) != 0u;

  // Morph targets, in target order: p = p0 + sum_k dP_k * w_k (reference/skin/morph.cc).
  vec3 p = positions[v].xyz;
  vec3 n = has_normals ? normals[v].xyz : vec3(0.0);
  vec4 t = has_tangents ? tangents[v] : vec4(0.0);
  for (uint k = 0u; k < pc.target_count; ++k) {
    uvec4 target = targets[pc.target_offset + k];
    float w = uintBitsToFloat(target.w);
    if (target.x != kNone) p = p + deltas[target.x + local].xyz * w;
    if (has_normals && target.y != kNone) n = n + deltas[target.y + local].xyz * w;
    if (has_tangents && target.z != kNone) t.xyz = t.xyz + deltas[target.z + local].xyz * w;
  }

  uint count = (pc.flags & kRigid) != 0u ? 1u : pc.influences;
  uint base = pc.influence_offset + local * count;
  float sum = weight_of(base, 0u);
  for (uint i = 1u; i < count; ++i) sum = sum + weight_of(base, i);
  bool renormalize = (pc.flags & kRenormalize) != 0u;

  if (kMethod == 0u) {
    if (sum == 0.0) {  // no influence: the (morphed) bind attributes, as the reference keeps them
      out_positions[v] = vec4(p, 1.0);
      if (has_normals) out_normals[v] = vec4(n, 0.0);
      if (has_tangents) out_tangents[v] = t;
      return;
    }
    // B = sum_i w_i JM_i, in influence order, row by row (each element's sum as column by column).
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
    // B's columns.
    vec3 c0 = vec3(b0.x, b1.x, b2.x), c1 = vec3(b0.y, b1.y, b2.y), c2 = vec3(b0.z, b1.z, b2.z),
         c3 = vec3(b0.w, b1.w, b2.w);
    out_positions[v] = vec4(((c0 * p.x + c1 * p.y) + c2 * p.z) + c3, 1.0);
    if (has_normals) {
      vec3 result;
      if ((pc.flags & kBlendNormalMatrices) != 0u) {
        // sum_i w_i N_i (rows), then N n.
        vec3 r0 = vec3(0.0), r1 = vec3(0.0), r2 = vec3(0.0);
        for (uint i = 0u; i < count; ++i) {
          w = renormalize ? weight_of(base, i) / sum : weight_of(base, i);
          j = 3u * (pc.palette_offset + joint_of(base, i));
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
      out_normals[v] = vec4(normalized(result), 0.0);
    }
    if (has_tangents) out_tangents[v] = vec4(normalized((c0 * t.x + c1 * t.y) + c2 * t.z), t.w);
  } else {
    if (sum == 0.0) {
      out_positions[v] = vec4(p, 1.0);
      if (has_normals) out_normals[v] = vec4(n, 0.0);
      if (has_tangents) out_tangents[v] = t;
      return;
    }
    // Antipodality: every rigid part is brought into the hemisphere of the first influence of non-zero
    // weight (sum != 0, so there is one).
    uint pivot = 0u;
    while (pivot + 1u < count && weight_of(base, pivot) == 0.0) ++pivot;
    vec4 pivot_real = dual_quaternions[5u * (pc.palette_offset + joint_of(base, pivot))];
    vec3 s0 = vec3(0.0), s1 = vec3(0.0), s2 = vec3(0.0);
    vec4 real = vec4(0.0), dual = vec4(0.0);
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
    float norm2 = dot(real, real);
    if (norm2 == 0.0) {  // only with negative weights: no rotation to normalize
      out_positions[v] = vec4(p, 1.0);
      if (has_normals) out_normals[v] = vec4(n, 0.0);
      if (has_tangents) out_tangents[v] = t;
      return;
    }
    // R(real / |real|) and the translation 2 (d conj(r)).vec() of the normalized parts: products of two
    // components each, so one factor 2 / |real|^2 normalizes both.
    float two = 2.0 / norm2;
    float rx = real.x, ry = real.y, rz = real.z, rw = real.w;
    vec3 rot0 = vec3(1.0 - two * (ry * ry + rz * rz), two * (rx * ry - rz * rw), two * (rx * rz + ry * rw));
    vec3 rot1 = vec3(two * (rx * ry + rz * rw), 1.0 - two * (rx * rx + rz * rz), two * (ry * rz - rx * rw));
    vec3 rot2 = vec3(two * (rx * rz - ry * rw), two * (ry * rz + rx * rw), 1.0 - two * (rx * rx + ry * ry));
    vec3 translation = two * ((rw * dual.xyz - dual.w * real.xyz) + cross(real.xyz, dual.xyz));

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
}

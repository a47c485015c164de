#version 450
// Animation on the GPU (gpu/animation_gpu.h), three stages chosen by specialization constant 0:
//   0 sampling: one invocation per channel, writing the node's local TRS or morph weights;
//   1 local to model: one invocation per node of one depth level, G = G(parent) * compose_trs(local);
//   2 palettes: one invocation per (skin, joint) entry, JM = G(joint) * IBM and its normal matrix.
// The formulas and their order of operations follow the reference (reference/anim/sampling.cc,
// reference/core/math_types.cc, reference/anim/palette.cc), in float32.

layout(local_size_x = 64) in;

layout(constant_id = 0) const uint kStage = 0;

const uint kStep = 0u;
const uint kLinear = 1u;
const uint kCubicSpline = 2u;
const uint kTranslation = 0u;
const uint kRotation = 1u;
const uint kScale = 2u;
const uint kWeights = 3u;

struct SamplerInfo {
  uint interpolation;
  uint key_count;
  uint times_offset;     // first key time in `times`
  uint values_offset;    // first value in `values` (x3 per key for CUBICSPLINE: in-tangent, value, out-tangent)
  uint components;
  uint table_offset;     // first interval in `slerp_table` (LINEAR rotations only)
  uint unit_key_offset;  // first key in `unit_keys` (LINEAR rotations only)
  uint pad;
};

layout(std430, set = 0, binding = 0) readonly buffer Times { float times[]; };
layout(std430, set = 0, binding = 1) readonly buffer Values { float values[]; };
layout(std430, set = 0, binding = 2) readonly buffer UnitKeys { vec4 unit_keys[]; };
// Per interval of a LINEAR rotation sampler: (sign, angle, sin angle, cos angle), scene.h's SlerpIntervals.
layout(std430, set = 0, binding = 3) readonly buffer SlerpTable { vec4 slerp_table[]; };
layout(std430, set = 0, binding = 4) readonly buffer Samplers { SamplerInfo samplers[]; };
// Per channel: sampler, node, path, first morph weight of the node (weights channels).
layout(std430, set = 0, binding = 5) readonly buffer Channels { uvec4 channels[]; };
// Per node: translation (xyz), rotation (xyzw), scale (xyz); starts as the rest pose.
layout(std430, set = 0, binding = 6) buffer Locals { vec4 locals[]; };
layout(std430, set = 0, binding = 7) buffer MorphWeights { float morph_weights[]; };
layout(std430, set = 0, binding = 8) readonly buffer Parents { int parents[]; };
layout(std430, set = 0, binding = 9) readonly buffer LevelNodes { uint level_nodes[]; };
layout(std430, set = 0, binding = 10) buffer Globals { mat4 globals[]; };
layout(std430, set = 0, binding = 11) readonly buffer PaletteNodes { uint palette_nodes[]; };
layout(std430, set = 0, binding = 12) readonly buffer InverseBinds { mat4 inverse_binds[]; };
layout(std430, set = 0, binding = 13) writeonly buffer Palette { mat4 palette[]; };
layout(std430, set = 0, binding = 14) writeonly buffer NormalRows { vec4 normal_rows[]; };

layout(push_constant) uniform Push {
  uint offset;  // first channel / entry of level_nodes / palette entry of this dispatch
  uint count;
  float time;
  uint pad;
} pc;

// ---- sampling ------------------------------------------------------------------------------------------------

// sin and cos on [0, pi/2] (where slerp needs them: u * angle with the short-path angle <= pi/2) by their
// Taylor series to x^13 and x^14; truncation below 7e-10 at pi/2 and far less for small x.
float sin_quadrant(float x) {
  float x2 = x * x;
  float p = 1.0 / 6227020800.0;
  p = p * x2 - 1.0 / 39916800.0;
  p = p * x2 + 1.0 / 362880.0;
  p = p * x2 - 1.0 / 5040.0;
  p = p * x2 + 1.0 / 120.0;
  p = p * x2 - 1.0 / 6.0;
  return x + x * x2 * p;
}

float cos_quadrant(float x) {
  float x2 = x * x;
  float p = -1.0 / 87178291200.0;
  p = p * x2 + 1.0 / 479001600.0;
  p = p * x2 - 1.0 / 3628800.0;
  p = p * x2 + 1.0 / 40320.0;
  p = p * x2 - 1.0 / 720.0;
  p = p * x2 + 1.0 / 24.0;
  p = p * x2 - 0.5;
  return 1.0 + x2 * p;
}

float key_value(SamplerInfo s, uint k, uint i) {
  uint key = s.interpolation == kCubicSpline ? k * 3u + 1u : k;
  return values[s.values_offset + key * s.components + i];
}

// Writes component i of the sampled value to the channel's destination.
void store(uvec4 channel, uint i, float value) {
  if (channel.z == kWeights) {
    morph_weights[channel.w + i] = value;
  } else {
    uint slot = channel.y * 3u + channel.z;  // translation, rotation, scale in that order
    locals[slot][i] = value;
  }
}

void normalize_rotation(uvec4 channel) {
  uint slot = channel.y * 3u + kRotation;
  vec4 q = locals[slot];
  float len = sqrt(((q.x * q.x + q.y * q.y) + q.z * q.z) + q.w * q.w);
  if (len > 0.0) locals[slot] = vec4(q.x / len, q.y / len, q.z / len, q.w / len);
}

void sample_channel(uint index) {
  uvec4 channel = channels[index];
  SamplerInfo s = samplers[channel.x];
  uint c = s.components;
  uint n = s.key_count;
  float t = pc.time;
  bool rotation = channel.z == kRotation;

  // Which key to copy, or the interval k and u.
  uint copy_key = 0xFFFFFFFFu;
  uint k = 0u;
  if (n == 1u || t <= times[s.times_offset]) {
    copy_key = 0u;
  } else if (t >= times[s.times_offset + n - 1u]) {
    copy_key = n - 1u;
  } else {
    uint lo = 0u, hi = n - 1u;  // times[lo] <= t < times[hi]
    while (hi - lo > 1u) {
      uint mid = (lo + hi) / 2u;
      if (times[s.times_offset + mid] <= t) lo = mid; else hi = mid;
    }
    k = lo;
    if (t == times[s.times_offset + k] || s.interpolation == kStep) copy_key = k;
  }

  if (copy_key != 0xFFFFFFFFu) {
    for (uint i = 0u; i < c; ++i) store(channel, i, key_value(s, copy_key, i));
  } else {
    float t0 = times[s.times_offset + k], t1 = times[s.times_offset + k + 1u];
    if (s.interpolation == kLinear) {
      float u = (t - t0) / (t1 - t0);
      if (rotation) {
        // Slerp from the derived table, as reference/anim/sampling.cc's slerp_interval; already unit length.
        vec4 a = unit_keys[s.unit_key_offset + k];
        vec4 b = unit_keys[s.unit_key_offset + k + 1u];
        vec4 table = slerp_table[s.table_offset + k];  // sign, angle, sin angle, cos angle
        float wa, wb;
        if (table.z < 1e-12) {
          wa = 1.0 - u;
          wb = u;
        } else {
          float sin_u = sin_quadrant(u * table.y);
          float cos_u = cos_quadrant(u * table.y);
          wa = cos_u - table.w * sin_u / table.z;
          wb = sin_u / table.z;
        }
        wb *= table.x;
        vec4 q = vec4(a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb);
        float len = sqrt((q.x * q.x + q.y * q.y) + (q.z * q.z + q.w * q.w));
        locals[channel.y * 3u + kRotation] = vec4(q.x / len, q.y / len, q.z / len, q.w / len);
        return;
      }
      for (uint i = 0u; i < c; ++i) {
        float a = key_value(s, k, i), b = key_value(s, k + 1u, i);
        store(channel, i, a + (b - a) * u);
      }
    } else {
      float d = t1 - t0;
      float u = (t - t0) / d;
      float u2 = u * u, u3 = u2 * u;
      float h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
      float h10 = (u3 - 2.0 * u2 + u) * d;
      float h01 = -2.0 * u3 + 3.0 * u2;
      float h11 = (u3 - u2) * d;
      for (uint i = 0u; i < c; ++i) {
        float v0 = values[s.values_offset + (k * 3u + 1u) * c + i];
        float b0 = values[s.values_offset + (k * 3u + 2u) * c + i];         // out-tangent of key k
        float v1 = values[s.values_offset + ((k + 1u) * 3u + 1u) * c + i];
        float a1 = values[s.values_offset + ((k + 1u) * 3u) * c + i];       // in-tangent of key k+1
        store(channel, i, h00 * v0 + h10 * b0 + h01 * v1 + h11 * a1);
      }
    }
  }
  if (rotation) normalize_rotation(channel);
}

// ---- local to model ------------------------------------------------------------------------------------------

mat4 compose_trs(vec3 t, vec4 q, vec3 s) {
  float x = q.x, y = q.y, z = q.z, w = q.w;
  mat3 r;  // r[column][row]
  r[0][0] = 1.0 - 2.0 * (y * y + z * z);
  r[1][0] = 2.0 * (x * y - z * w);
  r[2][0] = 2.0 * (x * z + y * w);
  r[0][1] = 2.0 * (x * y + z * w);
  r[1][1] = 1.0 - 2.0 * (x * x + z * z);
  r[2][1] = 2.0 * (y * z - x * w);
  r[0][2] = 2.0 * (x * z - y * w);
  r[1][2] = 2.0 * (y * z + x * w);
  r[2][2] = 1.0 - 2.0 * (x * x + y * y);
  mat4 m;
  for (int col = 0; col < 3; ++col) m[col] = vec4(r[col][0] * s[col], r[col][1] * s[col], r[col][2] * s[col], 0.0);
  m[3] = vec4(t, 1.0);
  return m;
}

// a * b for affine matrices (last rows (0, 0, 0, 1)), reference/core/math_types.cc's multiply_affine.
mat4 multiply_affine(mat4 a, mat4 b) {
  mat4 m;
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 3; ++r) m[c][r] = (a[0][r] * b[c][0] + a[1][r] * b[c][1]) + a[2][r] * b[c][2];
    m[c][3] = 0.0;
  }
  for (int r = 0; r < 3; ++r) m[3][r] = m[3][r] + a[3][r];
  m[3][3] = 1.0;
  return m;
}

void local_to_model(uint index) {
  uint node = level_nodes[index];
  mat4 local = compose_trs(locals[node * 3u].xyz, locals[node * 3u + 1u], locals[node * 3u + 2u].xyz);
  int parent = parents[node];
  globals[node] = parent < 0 ? local : multiply_affine(globals[uint(parent)], local);
}

// ---- palettes ------------------------------------------------------------------------------------------------

void palette_entry(uint entry) {
  mat4 jm = multiply_affine(globals[palette_nodes[entry]], inverse_binds[entry]);
  palette[entry] = jm;
  // normal_matrix(): the cofactor matrix, negated when the determinant is negative. a(r, c) = jm[c][r].
  float c00 = jm[1][1] * jm[2][2] - jm[2][1] * jm[1][2];
  float c01 = jm[2][1] * jm[0][2] - jm[0][1] * jm[2][2];
  float c02 = jm[0][1] * jm[1][2] - jm[1][1] * jm[0][2];
  float c10 = jm[2][0] * jm[1][2] - jm[1][0] * jm[2][2];
  float c11 = jm[0][0] * jm[2][2] - jm[2][0] * jm[0][2];
  float c12 = jm[1][0] * jm[0][2] - jm[0][0] * jm[1][2];
  float c20 = jm[1][0] * jm[2][1] - jm[2][0] * jm[1][1];
  float c21 = jm[2][0] * jm[0][1] - jm[0][0] * jm[2][1];
  float c22 = jm[0][0] * jm[1][1] - jm[1][0] * jm[0][1];
  float det = jm[0][0] * c00 + jm[1][0] * c01 + jm[2][0] * c02;
  float sign = det < 0.0 ? -1.0 : 1.0;
  normal_rows[entry * 3u] = vec4(c00, c01, c02, 0.0) * sign;
  normal_rows[entry * 3u + 1u] = vec4(c10, c11, c12, 0.0) * sign;
  normal_rows[entry * 3u + 2u] = vec4(c20, c21, c22, 0.0) * sign;
}

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count) return;
  if (kStage == 0u) sample_channel(pc.offset + i);
  else if (kStage == 1u) local_to_model(pc.offset + i);
  else palette_entry(pc.offset + i);
}

// Dual quaternion skinning in HLSL (compiled by glslc -x hlsl), planar buffers: float4 positions and normals,
// four 32-bit joint indices and four float weights per vertex, and per bone its unit dual quaternion (real
// x y z w, then dual x y z w). The blend takes each bone's quaternion into the hemisphere of the first
// influence of non-zero weight (antipodality), normalizes by the real part's length, and applies the rigid
// motion: p' = p + 2 r.xyz x (r.xyz x p + r.w p) + 2 (r.w d.xyz - d.w r.xyz + r.xyz x d.xyz). Interface:
// engine_dqs.json. Only rigid bone motion is representable, as in every DQS engine: a palette with scale or
// shear is not what this shader models.
struct Draw {
  uint vertex_count;
};
[[vk::push_constant]] ConstantBuffer<Draw> draw;

[[vk::binding(0, 0)]] StructuredBuffer<float4> positions;
[[vk::binding(1, 0)]] StructuredBuffer<float4> normals;
[[vk::binding(2, 0)]] StructuredBuffer<uint4> joints;
[[vk::binding(3, 0)]] StructuredBuffer<float4> weights;
[[vk::binding(4, 0)]] StructuredBuffer<float4> bone_dual_quaternions;  // two per bone: real, dual
[[vk::binding(5, 0)]] RWStructuredBuffer<float4> skinned_positions;
[[vk::binding(6, 0)]] RWStructuredBuffer<float4> skinned_normals;

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint v = id.x;
  if (v >= draw.vertex_count) return;
  uint4 j = joints[v];
  float4 w = weights[v];

  uint pivot = 0;
  while (pivot < 3 && w[pivot] == 0.0) ++pivot;
  float4 pivot_real = bone_dual_quaternions[2 * j[pivot]];
  float4 real = float4(0, 0, 0, 0), dual = float4(0, 0, 0, 0);
  for (uint i = 0; i < 4; ++i) {
    float4 q = bone_dual_quaternions[2 * j[i]];
    float4 d = bone_dual_quaternions[2 * j[i] + 1];
    float s = dot(q, pivot_real) < 0.0 ? -w[i] : w[i];
    real += s * q;
    dual += s * d;
  }
  float len = length(real);
  float3 p = positions[v].xyz;
  float3 n = normals[v].xyz;
  if (len == 0.0) {  // no influence: the bind attributes
    skinned_positions[v] = float4(p, 1.0);
    skinned_normals[v] = float4(n, 0.0);
    return;
  }
  real /= len;
  dual /= len;
  float3 r = real.xyz;
  float3 moved = p + 2.0 * cross(r, cross(r, p) + real.w * p);
  float3 translation = 2.0 * (real.w * dual.xyz - dual.w * r + cross(r, dual.xyz));
  skinned_positions[v] = float4(moved + translation, 1.0);
  float3 turned = n + 2.0 * cross(r, cross(r, n) + real.w * n);
  skinned_normals[v] = float4(normalize(turned), 0.0);
}

#version 450
// A typical engine's vertex-stage linear blend skinning, written as a compute shader: one interleaved vertex
// struct, four influences with 8-bit joint indices packed in one word, bone matrices as three float4 rows (the
// 48-byte "3x4" palette most engines upload), and positions and normals written interleaved. Normals use the
// cofactor of the blended matrix (its inverse transpose up to a positive factor), which stays right under
// blending and non-uniform scale. Interface: engine_lbs.json. skinref checks it with
//   skinref skin MODEL --backend vulkan --validate --shader engine_lbs.comp --interface engine_lbs.json --out x.skv
layout(local_size_x = 128) in;

// 48 bytes per vertex: position xyz, normal xyz, joints (4 x u8), weights xyzw, 4 bytes of padding.
layout(std430, set = 0, binding = 0) readonly buffer VertexData { float vertex_data[]; };
// Per bone: the top three rows of its skinning matrix (G * inverse bind).
layout(std430, set = 0, binding = 1) readonly buffer Bones { vec4 bone_rows[]; };
// Per vertex: skinned position (w = 1) then skinned normal (w = 0).
layout(std430, set = 0, binding = 2) writeonly buffer Skinned { vec4 skinned[]; };

layout(push_constant) uniform Draw { uint vertex_count; } draw;

void main() {
  uint v = gl_GlobalInvocationID.x;
  if (v >= draw.vertex_count) return;
  uint base = v * 12u;
  vec3 position = vec3(vertex_data[base], vertex_data[base + 1u], vertex_data[base + 2u]);
  vec3 normal = vec3(vertex_data[base + 3u], vertex_data[base + 4u], vertex_data[base + 5u]);
  uint packed_joints = floatBitsToUint(vertex_data[base + 6u]);
  vec4 weights = vec4(vertex_data[base + 7u], vertex_data[base + 8u], vertex_data[base + 9u], vertex_data[base + 10u]);

  // Blend the bones' rows by weight.
  vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
  for (uint i = 0u; i < 4u; ++i) {
    uint bone = (packed_joints >> (8u * i)) & 0xFFu;
    r0 += weights[i] * bone_rows[3u * bone];
    r1 += weights[i] * bone_rows[3u * bone + 1u];
    r2 += weights[i] * bone_rows[3u * bone + 2u];
  }
  vec4 p = vec4(position, 1.0);
  skinned[2u * v] = vec4(dot(r0, p), dot(r1, p), dot(r2, p), 1.0);

  // Cofactor of the blended 3x3 (rows r0..r2): columns c0..c2 of the matrix are the rows' components.
  vec3 c0 = vec3(r0.x, r1.x, r2.x), c1 = vec3(r0.y, r1.y, r2.y), c2 = vec3(r0.z, r1.z, r2.z);
  mat3 cofactor = mat3(cross(c1, c2), cross(c2, c0), cross(c0, c1));
  float det = dot(c0, cross(c1, c2));
  vec3 n = cofactor * normal;
  if (det < 0.0) n = -n;
  float len = length(n);
  skinned[2u * v + 1u] = vec4(len > 0.0 ? n / len : n, 0.0);
}

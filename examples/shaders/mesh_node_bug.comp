#version 450
// Linear blend skinning with a planted bug, for trying diagnose: the skinned result is also multiplied by the
// skinned mesh node's own world matrix, as an engine does that draws a skinned mesh like a rigid one. glTF 2.0
// says that matrix is ignored (joint matrices already place the mesh); on a model whose mesh node is not at
// the origin the vertices move, and `skinref diagnose` names the convention mesh-node=applied.
// Another layout from engine_lbs.comp: planar float4 positions and normals, 16-bit joints (two per word),
// column-major 4x4 bone matrices, and positions and normals written as packed float3 arrays.
layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, set = 0, binding = 1) readonly buffer Normals { vec4 normals[]; };
layout(std430, set = 0, binding = 2) readonly buffer Joints { uint joint_pairs[]; };  // 4 x u16 per vertex
layout(std430, set = 0, binding = 3) readonly buffer Weights { vec4 weights[]; };
layout(std430, set = 0, binding = 4) readonly buffer Bones { mat4 bones[]; };
layout(std430, set = 0, binding = 5) readonly buffer Model { mat4 model; };           // the mesh node's world matrix
layout(std430, set = 0, binding = 6) writeonly buffer OutPositions { float out_positions[]; };
layout(std430, set = 0, binding = 7) writeonly buffer OutNormals { float out_normals[]; };

layout(push_constant) uniform Draw {
  uint bone_count;
  uint vertex_count;
} draw;

void main() {
  uint v = gl_GlobalInvocationID.x;
  if (v >= draw.vertex_count) return;
  uvec4 j = uvec4(joint_pairs[2u * v] & 0xFFFFu, joint_pairs[2u * v] >> 16u, joint_pairs[2u * v + 1u] & 0xFFFFu,
                  joint_pairs[2u * v + 1u] >> 16u);
  j = min(j, uvec4(draw.bone_count - 1u));
  vec4 w = weights[v];
  mat4 skin = w.x * bones[j.x] + w.y * bones[j.y] + w.z * bones[j.z] + w.w * bones[j.w];
  skin = model * skin;  // the bug: glTF ignores the skinned mesh node's transform
  vec3 p = (skin * vec4(positions[v].xyz, 1.0)).xyz;
  vec3 n = normalize(transpose(inverse(mat3(skin))) * normals[v].xyz);
  out_positions[3u * v] = p.x;
  out_positions[3u * v + 1u] = p.y;
  out_positions[3u * v + 2u] = p.z;
  out_normals[3u * v] = n.x;
  out_normals[3u * v + 1u] = n.y;
  out_normals[3u * v + 2u] = n.z;
}

// A skinning vertex shader of the engine kind: the palette as the top three rows of each joint's matrix
// (mat3x4, 48 bytes) in a storage buffer sized at run time, planar vertex streams (positions, normals, then
// unsigned-byte joints beside float weights), and world-space position and normal varyings for lighting.
// skinref captures the varyings: tutorial_skinning.vert's gl_Position is not needed here.
//   skinref skin MODEL --backend vulkan --shader examples/shaders/rows_storage_skinning.vert
//       --interface examples/shaders/rows_storage_skinning.json --out engine.skv
#version 450

layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in uvec4 inJoints;
layout(location = 3) in vec4 inWeights;

layout(std140, set = 0, binding = 0) uniform Camera {
  mat4 viewProjection;
};
layout(std430, set = 0, binding = 1) readonly buffer Palette {
  vec4 rows[];  // joint j: rows[3j], rows[3j + 1], rows[3j + 2]
};

layout(location = 0) out vec3 worldPosition;
layout(location = 1) out vec3 worldNormal;

// Joint j's matrix from its three rows (the fourth is 0 0 0 1).
mat4 joint_matrix(uint j) {
  return transpose(mat4(rows[3u * j], rows[3u * j + 1u], rows[3u * j + 2u], vec4(0.0, 0.0, 0.0, 1.0)));
}

void main() {
  mat4 skin = inWeights.x * joint_matrix(inJoints.x) + inWeights.y * joint_matrix(inJoints.y) +
              inWeights.z * joint_matrix(inJoints.z) + inWeights.w * joint_matrix(inJoints.w);
  vec4 world = skin * vec4(inPosition, 1.0);
  worldPosition = world.xyz;
  worldNormal = transpose(inverse(mat3(skin))) * inNormal;
  gl_Position = viewProjection * world;
}

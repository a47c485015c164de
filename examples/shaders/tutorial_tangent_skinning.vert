// The tutorials' skinning vertex shader with a tangent for normal mapping: the tutorial_skinning.vert shader,
// plus a vec4 tangent (xyz and the bitangent's sign w) moved by the blended matrix, as glTF's tangents are.
// skinref captures the three outputs (interface tutorial_tangent_skinning.json):
//   skinref skin MODEL --backend vulkan --shader examples/shaders/tutorial_tangent_skinning.vert
//       --interface examples/shaders/tutorial_tangent_skinning.json --out engine.skv
#version 450

const int MAX_BONES = 512;
const int MAX_BONE_INFLUENCE = 4;

layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 norm;
layout(location = 2) in ivec4 boneIds;
layout(location = 3) in vec4 weights;
layout(location = 4) in vec4 tangent;

layout(std140, binding = 0) uniform Matrices {
  mat4 finalBonesMatrices[MAX_BONES];
  mat4 model;
  mat4 view;
  mat4 projection;
};

layout(location = 0) out vec3 Normal;
layout(location = 1) out vec4 Tangent;

void main() {
  mat4 skinMatrix = mat4(0.0);
  for (int i = 0; i < MAX_BONE_INFLUENCE; i++) {
    if (boneIds[i] == -1) continue;
    skinMatrix += finalBonesMatrices[boneIds[i]] * weights[i];
  }
  vec4 totalPosition = skinMatrix * vec4(pos, 1.0);
  vec3 totalNormal = transpose(inverse(mat3(skinMatrix))) * norm;
  Normal = mat3(model) * totalNormal;
  Tangent = vec4(mat3(model) * (mat3(skinMatrix) * tangent.xyz), tangent.w);
  gl_Position = projection * view * model * totalPosition;
}

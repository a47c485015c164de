// The skinning vertex shader of the tutorials: a uniform block of mat4 bones[512] with the model, view and
// projection matrices, ivec4 joint indices where -1 means "no joint", a loop that sums the weighted bone
// matrices, and the normal by the blended matrix's inverse transpose. skinref runs it as written:
//   skinref skin MODEL --backend vulkan --shader examples/shaders/tutorial_skinning.vert
//       --interface examples/shaders/tutorial_skinning.json --out engine.skv
#version 450

const int MAX_BONES = 512;
const int MAX_BONE_INFLUENCE = 4;

layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 norm;
layout(location = 2) in ivec4 boneIds;
layout(location = 3) in vec4 weights;

layout(std140, binding = 0) uniform Matrices {
  mat4 finalBonesMatrices[MAX_BONES];
  mat4 model;
  mat4 view;
  mat4 projection;
};

layout(location = 0) out vec3 Normal;

void main() {
  // The blended skinning matrix; the normal by its inverse transpose (the normal of the deformed surface).
  mat4 skinMatrix = mat4(0.0);
  for (int i = 0; i < MAX_BONE_INFLUENCE; i++) {
    if (boneIds[i] == -1) continue;
    skinMatrix += finalBonesMatrices[boneIds[i]] * weights[i];
  }
  vec4 totalPosition = skinMatrix * vec4(pos, 1.0);
  vec3 totalNormal = transpose(inverse(mat3(skinMatrix))) * norm;
  Normal = mat3(model) * totalNormal;
  gl_Position = projection * view * model * totalPosition;
}

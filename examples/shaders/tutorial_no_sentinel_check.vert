// The tutorial shader (tutorial_skinning.vert) without its check for the "no joint" index -1: a slot of
// weight 0 reads finalBonesMatrices[-1], outside the block. skinref gives such slots NaN weights, which only a
// shader that reads them sees, and names the failure. Interface: tutorial_skinning.json.
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
    skinMatrix += finalBonesMatrices[boneIds[i]] * weights[i];
  }
  vec4 totalPosition = skinMatrix * vec4(pos, 1.0);
  vec3 totalNormal = transpose(inverse(mat3(skinMatrix))) * norm;
  Normal = mat3(model) * totalNormal;
  gl_Position = projection * view * model * totalPosition;
}

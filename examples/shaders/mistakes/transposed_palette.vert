// A mistake (docs/mistakes.md): the tutorial shader (../tutorial_skinning.vert) with its bone matrices read in
// the other majority, `transpose(finalBonesMatrices[boneIds[i]])`, as a shader does that compensates for a
// row-major upload that was in fact column-major. The vertex gets the upper three rows of each JM^T: R^T p, the
// rotation the other way, and the joint's translation lands in w, which the captured xyz drops.
// What a user sees: the mesh turns the other way and stays about the origin, whatever the skeleton does.
// skinref diagnose names it: palette-matrices=transposed.
// The slot guard is the tutorial's: a "no joint" slot (-1, weight 0) adds nothing here as in the reference.
// Interface: ../tutorial_skinning.json. tests/gpu/mistake_shaders_test.cc runs it on builtin:bend.
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
  mat4 skinMatrix = mat4(0.0);
  for (int i = 0; i < MAX_BONE_INFLUENCE; i++) {
    if (boneIds[i] == -1) continue;
    skinMatrix += transpose(finalBonesMatrices[boneIds[i]]) * weights[i];  // the slip: transposed
  }
  vec4 totalPosition = skinMatrix * vec4(pos, 1.0);
  vec3 totalNormal = transpose(inverse(mat3(skinMatrix))) * norm;
  Normal = mat3(model) * totalNormal;
  gl_Position = projection * view * model * totalPosition;
}

// A mistake (docs/mistakes.md): the tutorial shader (../tutorial_skinning.vert) giving every slot the same
// weight, `* 0.25` where it means `* weights[i]`.
// What a user sees: vertices are smeared between joints, pulled towards the joints of slots that should weigh
// little or nothing (joint 0, the usual padding).
// skinref diagnose names it: weights=equal.
// The model and the "no joint" sentinel: the reference gives every one of the 4 slots the same weight, the slots
// of weight 0 included, each with the joint the file stores there. The runner writes -1 (and a NaN weight)
// into every slot of weight 0 (gpu/user_vertex_skinning.cc, fill_vertices), so a shader can match only where
// no slot weighs 0, or where the joint behind every -1 is 0, as `max(boneIds[i], 0)` would assume. On
// builtin:bend it is not: its joints are (0, 1, 2, 0) on every ring, weight 0 or not, so the reference blends
// joints 1 and 2 where the shader sees -1, and diagnose names nothing. The test
// (tests/gpu/mistake_shaders_test.cc) runs it on builtin:eight-influences read as one JOINTS/WEIGHTS set
// (--convention influences=first-set, given to skin, and to diagnose as known), where all 4 slots weigh more
// than 0: no -1 is written, the tutorial's guard never fires, and the shader computes the formula exactly.
// Interface: ../tutorial_skinning.json.
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
    skinMatrix += finalBonesMatrices[boneIds[i]] * 0.25;  // the slip: 1 / MAX_BONE_INFLUENCE, not weights[i]
  }
  vec4 totalPosition = skinMatrix * vec4(pos, 1.0);
  vec3 totalNormal = transpose(inverse(mat3(skinMatrix))) * norm;
  Normal = mat3(model) * totalNormal;
  gl_Position = projection * view * model * totalPosition;
}

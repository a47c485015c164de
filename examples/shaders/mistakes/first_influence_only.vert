// A mistake (docs/mistakes.md): the tutorial shader (../tutorial_skinning.vert) blending the first influence
// slot alone, at its weight as stored (not renormalized): its loop runs to 1 instead of MAX_BONE_INFLUENCE,
// `skinMatrix = finalBonesMatrices[boneIds[0]] * weights[0]`.
// What a user sees: vertices shared between joints shrink towards the origin (by their first weight), and
// seams tear between joints.
// skinref diagnose names it: influences=first-influence.
// The model and the "no joint" sentinel: tests/gpu/mistake_shaders_test.cc runs it on builtin:eight-influences
// loaded with one JOINTS/WEIGHTS set (skin --convention influences=first-set, the 4 slots this shader reads;
// diagnose is given no convention, since first-influence is itself a value of `influences`). There every slot
// weighs more than 0 (inverse distances), so the runner writes no -1 (gpu/user_vertex_skinning.cc writes -1,
// with a NaN weight, into every slot of weight 0) and the tutorial's guard never fires. builtin:bend would not
// do: slot 0 weighs 0 on its rings at x >= 1.2, where this shader gives the origin (a zero matrix) while the
// reference keeps a vertex with no weight in its bind pose (reference/skin/lbs.h).
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
  for (int i = 0; i < 1; i++) {  // the slip: the first slot alone, not MAX_BONE_INFLUENCE
    if (boneIds[i] == -1) continue;
    skinMatrix += finalBonesMatrices[boneIds[i]] * weights[i];
  }
  vec4 totalPosition = skinMatrix * vec4(pos, 1.0);
  vec3 totalNormal = transpose(inverse(mat3(skinMatrix))) * norm;
  Normal = mat3(model) * totalNormal;
  gl_Position = projection * view * model * totalPosition;
}

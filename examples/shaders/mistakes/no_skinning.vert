// A mistake (docs/mistakes.md): the tutorial shader (../tutorial_skinning.vert) computes its skinning matrix
// and then never applies it: the bind-space position and normal are passed through, `vec4(pos, 1.0)` and
// `norm`.
// What a user sees: the mesh stays in its bind pose (a T-pose) while the skeleton animates.
// skinref diagnose names it: skinning=skipped.
// The model: on a mesh whose rest pose is its bind pose, skipping the skinning gives the rest pose, which is
// also what a clip never played gives (animation=not-played) and, on builtin:bend, whose clip ends where it
// starts, a clip run in frames or milliseconds; diagnose then names the first of those equal explanations in
// pipeline order (time-unit=frames on builtin:bend) and lists skinning=skipped after it. The test
// (tests/gpu/mistake_shaders_test.cc) runs it on conformance/cases/bind-pose-differs-from-rest-pose, where the
// bind pose is neither the rest pose nor a pose of the clip. The sentinel plays no part: whatever the slots
// hold, the outputs are the inputs, as the reference's p' = p, n' = n.
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
    skinMatrix += finalBonesMatrices[boneIds[i]] * weights[i];
  }
  vec4 totalPosition = vec4(pos, 1.0);  // the slip: skinMatrix never applied
  vec3 totalNormal = norm;
  Normal = mat3(model) * totalNormal;
  gl_Position = projection * view * model * totalPosition;
}

// A mistake (docs/mistakes.md): the tutorial shader (../tutorial_skinning.vert) blending the first influence
// slot alone, at its weight as stored (not renormalized): the loop runs `i < 1` instead of
// `i < MAX_BONE_INFLUENCE`, as `finalBonesMatrices[boneIds[0]] * weights[0]`.
// What a user sees: vertices shared between joints shrink towards the origin (by their slot 0 weight), seams
// tear between joints; vertices whose first slot is empty do not follow their joints at all.
// skinref diagnose names it: influences=first-influence.
// The "no joint" sentinel: the runner writes -1, and a NaN weight, into every slot of weight 0
// (gpu/user_vertex_skinning.cc, fill_vertices). On builtin:bend slot 0 has weight 0 on the rings at x >= 1.2
// (all their weight on the elbow and wrist), so there boneIds[0] == -1 and no slot is read. The reference under
// influences=first-influence gives such a vertex no weight at all, and a vertex whose weights sum to 0 keeps
// its bind pose (reference/skin/lbs.h; zero-weights=bind-pose). The line after the loop does the same: no
// weighted slot, the identity. Without it those vertices would go to the origin with NaN normals (the inverse
// of a zero matrix), which the reference does not compute, and diagnose could not name the mistake.
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
  for (int i = 0; i < 1; i++) {  // the slip: the first slot alone
    if (boneIds[i] == -1) continue;
    skinMatrix += finalBonesMatrices[boneIds[i]] * weights[i];
  }
  if (boneIds[0] == -1) skinMatrix = mat4(1.0);  // no weighted slot read: the bind pose, as the reference
  vec4 totalPosition = skinMatrix * vec4(pos, 1.0);
  vec3 totalNormal = transpose(inverse(mat3(skinMatrix))) * norm;
  Normal = mat3(model) * totalNormal;
  gl_Position = projection * view * model * totalPosition;
}

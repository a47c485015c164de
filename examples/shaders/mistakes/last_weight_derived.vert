// A mistake (docs/mistakes.md): the tutorial shader (../tutorial_skinning.vert) deriving its last weight from
// the others, `1.0 - weights.x - weights.y - weights.z`, instead of reading weights.w (an old DirectX and FBX
// habit).
// What a user sees: wherever the stored weights do not sum to 1, or the last slot was not the derived one,
// vertices are pulled towards the last slot's joint: spikes at the padded slots.
// skinref diagnose names it: weights=last-from-others.
// The model and the "no joint" sentinel: on a mesh whose stored weights sum to 1 the derived weight is the
// stored one, and the mistake changes nothing. That is builtin:bend (its last slot weighs 0 and the others sum
// to 1; diagnose says "matches glTF 2.0" there, exit 0). Besides, the runner writes -1 and a NaN weight into
// every slot of weight 0 (gpu/user_vertex_skinning.cc, fill_vertices), which the sum of x, y, z would read.
// The test (tests/gpu/mistake_shaders_test.cc) runs it on builtin:eight-influences read as one JOINTS/WEIGHTS
// set (--convention influences=first-set, given to skin, and to diagnose as known): the first 4 of 8
// inverse-distance weights, all above 0 (no -1 is written, the tutorial's guard never fires) and summing to
// well under 1, so the derived weight differs from the stored one at every vertex, as the reference's
// 1 - (w0 + w1 + w2) does.
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
  // The slip: the fourth weight derived from the other three, weights.w never read.
  vec4 w = vec4(weights.xyz, 1.0 - weights.x - weights.y - weights.z);
  mat4 skinMatrix = mat4(0.0);
  for (int i = 0; i < MAX_BONE_INFLUENCE; i++) {
    if (boneIds[i] == -1) continue;
    skinMatrix += finalBonesMatrices[boneIds[i]] * w[i];
  }
  vec4 totalPosition = skinMatrix * vec4(pos, 1.0);
  vec3 totalNormal = transpose(inverse(mat3(skinMatrix))) * norm;
  Normal = mat3(model) * totalNormal;
  gl_Position = projection * view * model * totalPosition;
}

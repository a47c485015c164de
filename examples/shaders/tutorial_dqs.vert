// Dual quaternion skinning in a vertex shader, as the DQS tutorials write it (Kavan et al. 2008): a uniform
// block of two vec4 per bone (the real part x y z w, then the dual part), ivec4 joint indices and vec4 weights;
// each bone's quaternion taken into the hemisphere of the first one of non-zero weight, the blend normalized by
// its real part's length, and the rigid motion applied to the position and the normal. skinref runs it as
// written, with --method dqs:
//   skinref skin MODEL --method dqs --backend vulkan --shader examples/shaders/tutorial_dqs.vert
//       --interface examples/shaders/tutorial_dqs.json --out engine.skv
// Only rigid bone motion is representable, as in every DQS engine: a palette with scale or shear is not what
// this shader models.
#version 450

const int MAX_BONES = 256;

layout(location = 0) in vec3 pos;
layout(location = 1) in vec3 norm;
layout(location = 2) in ivec4 boneIds;
layout(location = 3) in vec4 weights;

layout(std140, binding = 0) uniform Bones {
  vec4 boneDualQuaternions[2 * MAX_BONES];  // per bone: real, dual
  mat4 model;
  mat4 view;
  mat4 projection;
};

layout(location = 0) out vec3 Normal;

void main() {
  int pivot = 0;
  while (pivot < 3 && weights[pivot] == 0.0) ++pivot;
  vec4 pivotReal = boneDualQuaternions[2 * boneIds[pivot]];
  vec4 real = vec4(0.0), dual = vec4(0.0);
  for (int i = 0; i < 4; i++) {
    if (weights[i] == 0.0) continue;
    vec4 q = boneDualQuaternions[2 * boneIds[i]];
    vec4 d = boneDualQuaternions[2 * boneIds[i] + 1];
    float w = dot(q, pivotReal) < 0.0 ? -weights[i] : weights[i];
    real += w * q;
    dual += w * d;
  }
  float len = length(real);
  real /= len;
  dual /= len;
  vec3 r = real.xyz;
  vec3 moved = pos + 2.0 * cross(r, cross(r, pos) + real.w * pos);
  vec3 translation = 2.0 * (real.w * dual.xyz - dual.w * r + cross(r, dual.xyz));
  vec3 turned = norm + 2.0 * cross(r, cross(r, norm) + real.w * norm);
  Normal = mat3(model) * turned;
  gl_Position = projection * view * model * vec4(moved + translation, 1.0);
}

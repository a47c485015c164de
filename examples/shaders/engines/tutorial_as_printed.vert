// The skinning vertex shader of a Vulkan tutorial, as printed: the model, view and projection in a
// UniformBufferObject at binding 0, the bones in a block of their own at binding 1, a texture coordinate passed
// through to the fragment shader, ivec4 joints where a negative index means "no joint", and the normal moved by
// each bone as a direction, vec4(n, 0), and blended.
//   skinref skin MODEL --backend vulkan --validate --shader examples/shaders/engines/tutorial_as_printed.vert
//       --interface examples/shaders/engines/tutorial_as_printed.json --out engine.skv
#version 450

layout(binding = 0) uniform UniformBufferObject {
  mat4 model;
  mat4 view;
  mat4 proj;
} ubo;

layout(binding = 1) uniform BoneBuffer {
  mat4 bones[512];
} boneBuffer;

layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec2 inTexCoord;
layout(location = 3) in ivec4 skinIndices;
layout(location = 4) in vec4 skinWeights;

layout(location = 0) out vec3 outNormal;
layout(location = 1) out vec2 outTexCoord;

void main() {
  vec4 skinnedPosition = vec4(0.0);
  vec3 skinnedNormal = vec3(0.0);
  for (int i = 0; i < 4; i++) {
    if (skinIndices[i] >= 0) {
      mat4 bone = boneBuffer.bones[skinIndices[i]];
      skinnedPosition += bone * vec4(inPosition, 1.0) * skinWeights[i];
      skinnedNormal += (bone * vec4(inNormal, 0.0)).xyz * skinWeights[i];
    }
  }
  gl_Position = ubo.proj * ubo.view * ubo.model * skinnedPosition;
  outNormal = mat3(ubo.model) * skinnedNormal;
  outTexCoord = inTexCoord;
}

// A batched skinning vertex shader, as engines write one to draw many characters from one allocation: every
// skin's bones in one storage buffer (set 1), each draw's first bone in a push constant beside the model matrix,
// the view and projection in a per-frame block (set 0), and MAX_BONES a specialization constant the engine sets
// when it builds the pipeline (the index is clamped to it, as engines guard a bad joint). The bones' declarations
// are shared with the engine's other shaders through an #include from another folder.
//   skinref skin MODEL --backend vulkan --validate --shader examples/shaders/engines/batched_skins.vert
//       --interface examples/shaders/engines/batched_skins.json
//       --shader-include examples/shaders/engines/include --out engine.skv
#version 450

#include "batched_bones.glsl"

layout(set = 0, binding = 0) uniform Frame {
  mat4 view;
  mat4 projection;
} frame;

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in uvec4 joints;
layout(location = 3) in vec4 weights;
layout(location = 4) in vec4 color;

layout(location = 0) out vec3 worldNormal;
layout(location = 1) out vec4 vertexColor;

void main() {
  mat4 skin = weights.x * bone(joints.x) + weights.y * bone(joints.y) + weights.z * bone(joints.z) +
              weights.w * bone(joints.w);
  vec4 world = draw.model * skin * vec4(position, 1.0);
  worldNormal = normalize(mat3(draw.model) * transpose(inverse(mat3(skin))) * normal);
  vertexColor = color;
  gl_Position = frame.projection * frame.view * world;
}

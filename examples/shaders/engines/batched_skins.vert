// A batched skinning vertex shader, as engines write one to draw many characters from one allocation: every
// skin's bones in one storage buffer (set 1), each draw's first bone in a push constant beside the model matrix,
// the view and projection in a per-frame block (set 0), and MAX_BONES a specialization constant the engine sets
// when it builds the pipeline (the index is clamped to it, as engines guard a bad joint).
//   skinref skin MODEL --backend vulkan --validate --shader examples/shaders/engines/batched_skins.vert
//       --interface examples/shaders/engines/batched_skins.json --out engine.skv
#version 450

layout(constant_id = 0) const uint MAX_BONES = 1;

layout(set = 0, binding = 0) uniform Frame {
  mat4 view;
  mat4 projection;
} frame;

layout(std430, set = 1, binding = 0) readonly buffer AllBones {
  mat4 bones[];
} allBones;

layout(push_constant) uniform Draw {
  mat4 model;
  uint boneOffset;
} draw;

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in uvec4 joints;
layout(location = 3) in vec4 weights;
layout(location = 4) in vec4 color;

layout(location = 0) out vec3 worldNormal;
layout(location = 1) out vec4 vertexColor;

mat4 bone(uint joint) { return allBones.bones[draw.boneOffset + min(joint, MAX_BONES - 1u)]; }

void main() {
  mat4 skin = weights.x * bone(joints.x) + weights.y * bone(joints.y) + weights.z * bone(joints.z) +
              weights.w * bone(joints.w);
  vec4 world = draw.model * skin * vec4(position, 1.0);
  worldNormal = normalize(mat3(draw.model) * transpose(inverse(mat3(skin))) * normal);
  vertexColor = color;
  gl_Position = frame.projection * frame.view * world;
}

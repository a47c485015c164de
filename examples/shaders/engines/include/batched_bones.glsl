// The bones of every skin of a batch, shared by an engine's skinning shaders (#include "batched_bones.glsl",
// found with glslc -I, skinref's --shader-include): one storage buffer (set 1), the draw's first bone and model
// matrix in push constants, MAX_BONES a specialization constant that clamps the index.
layout(constant_id = 0) const uint MAX_BONES = 1;

layout(std430, set = 1, binding = 0) readonly buffer AllBones {
  mat4 bones[];
} allBones;

layout(push_constant) uniform Draw {
  mat4 model;
  uint boneOffset;
} draw;

mat4 bone(uint joint) { return allBones.bones[draw.boneOffset + min(joint, MAX_BONES - 1u)]; }

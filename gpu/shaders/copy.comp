#version 450
// A plain device-memory copy in a compute shader, the yardstick of skinning's device time (bench/
// bench_vulkan.cc): some drivers run vkCmdCopyBuffer on a copy engine slower than the shader cores' own
// loads and stores (an NVIDIA H200: 0.85 against 4.28 TB/s, read + write), so the copy bandwidth a skinning pass is
// compared with is the larger of the two. One vec4 per invocation and step, grid-stride.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer Source { vec4 source[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Destination { vec4 destination[]; };

layout(push_constant) uniform Push {
  uint count;  // vec4 elements
} pc;

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) destination[i] = source[i];
}

// A user's skinning compute shader, loaded and checked against its interface before anything runs
// (`--shader FILE --interface FILE.json`).
//
// Contract:
// - load_user_shader() reads SPIR-V (.spv), or compiles GLSL (.comp, .glsl) or HLSL (.hlsl) with glslc found
//   on PATH (compute stage; HLSL with the interface's entry point). A compile error is an InputError naming
//   the shader and glslc's first message.
// - The SPIR-V is reflected with SPIRV-Cross (not parsed here) and held to the interface; any contradiction
//   is an InputError naming the interface file and the binding or push constant it could not match:
//   - the entry point exists and is a compute shader with local size (N, 1, 1), N equal to the interface's
//     workgroup_size when given;
//   - the shader's resources are storage buffers of set 0 and at most one push-constant block: a uniform
//     buffer, image or sampler is refused (skinref would have nothing to bind to it);
//   - every storage buffer of the shader is described, and every described binding exists;
//   - a per-vertex or per-palette-entry buffer is a block whose only member is a runtime array, and the
//     interface's stride is a whole number of that array's elements (a `vec4 v[]` of stride 16 holds
//     float4 elements; a `float f[]` may hold elements of any multiple of 4 bytes); a model-matrix buffer's
//     block holds at least the element;
//   - a buffer the interface writes to is not declared readonly, and one it reads from not writeonly;
//   - every push-constant member is a 32-bit scalar at an offset the interface fills, and every value the
//     interface gives lands on such a member.
#pragma once

#include "gpu/shader_interface.h"

#include <cstdint>
#include <string>
#include <vector>

namespace skinref::gpu {

struct ReflectedBuffer {
  uint32_t set = 0, binding = 0;
  std::string name;
  size_t fixed_bytes = 0;     // the block's size without its runtime array
  uint32_t array_stride = 0;  // the runtime array's stride; 0 when the block has none
  size_t member_count = 0;
  bool read_only = false, write_only = false;
};

struct ReflectedPushMember {
  uint32_t offset = 0;
  std::string name;
  bool scalar32 = false;  // a 32-bit int, uint or float
};

struct ShaderReflection {
  std::vector<std::string> entry_points;  // compute entry points
  uint32_t local_size[3] = {1, 1, 1};
  std::vector<ReflectedBuffer> buffers;
  uint32_t push_bytes = 0;
  std::vector<ReflectedPushMember> push_members;
  std::vector<std::string> other_resources;  // "uniform buffer 'X' (set S, binding B)", images, samplers
};

struct UserShader {
  std::string path;  // as given
  std::vector<uint32_t> spirv;
  ShaderInterface interface;
  ShaderReflection reflection;
};

// Reflection alone (the tests use it on skinref's own shaders). `path` names the shader in errors.
ShaderReflection reflect_spirv(const std::vector<uint32_t>& spirv, const std::string& path);
// Throws InputError (naming interface.path) on the first contradiction listed above.
void check_shader_interface(const ShaderInterface& interface, const ShaderReflection& reflection);

// `include_dirs`: glslc's -I folders for the shader's #includes.
UserShader load_user_shader(const std::string& shader_path, const std::string& interface_path,
                            const std::vector<std::string>& include_dirs = {});

}  // namespace skinref::gpu

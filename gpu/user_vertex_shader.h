// A user's skinning vertex shader, loaded and checked against its interface (gpu/vertex_interface.h) before
// anything runs, and given transform feedback (gpu/spirv_xfb.h) so that its outputs can be captured.
//
// Contract:
// - load_user_vertex_shader() reads SPIR-V (.spv) or compiles GLSL (.vert, .glsl) or HLSL (.hlsl, the
//   interface's entry point) with glslc as a vertex shader, its #includes looked up in `include_dirs`.
// - The SPIR-V is reflected with SPIRV-Cross and held to the interface; a contradiction is an InputError naming
//   the interface file and what it could not match:
//   - a vertex entry point of the interface's name;
//   - every vertex input of the shader is described, and every described location exists, with a format of
//     the input's numeric type (float for SFLOAT and UNORM, int for SINT, uint for UINT) and at least its
//     component count;
//   - the shader's descriptors are uniform or storage blocks of set 0, each of the palette's or an identity
//     matrix's binding, of the kind the interface says, and large enough for what is written there;
//   - the outputs named exist: gl_Position is written, a location is an Output variable of 3 or 4 floats.
// - `captured` is the shader with transform feedback on buffer 0: the position (16 bytes) at offset 0, the normal
//   (its 12 or 16 bytes) at 16, the tangent (16 bytes) at 32; `capture_stride` bytes per vertex (32, or 48
//   with a tangent: capture_stride()).
#pragma once

#include "gpu/vertex_interface.h"

#include <cstdint>
#include <string>
#include <vector>

namespace skinref::gpu {

// Bytes per vertex of the capture: the position and the normal's 16 each, and the tangent's where it is captured.
inline uint32_t capture_stride(const VertexInterface& interface) { return interface.tangent ? 48u : 32u; }

struct ReflectedBlock {
  uint32_t set = 0, binding = 0;
  BlockDescriptor descriptor = BlockDescriptor::Uniform;
  size_t bytes = 0;  // the declared size (a runtime array counted as empty)
  bool runtime_array = false;
  std::string name;
};

struct UserVertexShader {
  std::string path;
  std::vector<uint32_t> spirv;     // as compiled
  std::vector<uint32_t> captured;  // with transform feedback
  VertexInterface interface;
  std::vector<ReflectedBlock> blocks;  // the descriptor bindings the pipeline declares
  uint32_t capture_stride = 32;        // capture_stride(interface)
};

UserVertexShader load_user_vertex_shader(const std::string& shader_path, const std::string& interface_path,
                                         const std::vector<std::string>& include_dirs = {});

}  // namespace skinref::gpu

// A user's shader as SPIR-V words: read from a .spv file, or compiled from GLSL or HLSL by glslc found on PATH.
//
// Contract:
// - read_spirv(): the file's words, refused (InputError naming `shown_as`) unless a whole number of 32-bit words
//   of at least the 5-word header starting with SPIR-V's magic number.
// - compile_with_glslc(): `glslc -fshader-stage=STAGE --target-env=vulkan1.1` (HLSL with `-x hlsl` and the entry
//   point, and `-I DIR` for each include folder) into a temporary file, read back and removed. No glslc on PATH, or a shader it refuses, is an
//   InputError naming the shader and glslc's first message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skinref::gpu {

std::vector<uint32_t> read_spirv(const std::string& path, const std::string& shown_as);
// `stage`: glslc's name of it, "compute" or "vertex"; `include_dirs`: glslc's -I folders for #include.
std::vector<uint32_t> compile_with_glslc(const std::string& path, const std::string& stage, bool hlsl,
                                         const std::string& entry_point,
                                         const std::vector<std::string>& include_dirs = {});

}  // namespace skinref::gpu

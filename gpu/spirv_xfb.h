// Transform feedback added to a user's vertex shader as compiled, without touching its source: the SPIR-V
// gains the TransformFeedback capability, the Xfb execution mode on its entry point, and XfbBuffer, XfbStride
// and Offset decorations on the outputs skinref captures (the Vulkan spec's "Transform Feedback" chapter).
//
// Contract:
// - add_transform_feedback() returns a copy of `spirv` in which each `captures` output is written to transform
//   feedback buffer 0 at its byte offset, every vertex `stride` bytes apart. An output is the BuiltIn Position
//   (a member of the gl_PerVertex block, or a variable of its own as HLSL compiles it) or a variable of the
//   Output storage class with that Location. Nothing else changes: the new words are inserted in the sections
//   SPIR-V's logical layout assigns them (capabilities, execution modes, annotations).
// - An output that is not in the shader, an entry point that is not found, or words that are not SPIR-V, is
//   an InputError naming `shown_as` and what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace skinref::gpu {

struct XfbCapture {
  bool builtin_position = false;  // else the Output variable at `location`
  uint32_t location = 0;
  uint32_t offset = 0;  // bytes within the vertex's record, a multiple of 4
};

std::vector<uint32_t> add_transform_feedback(const std::vector<uint32_t>& spirv, const std::string& entry_point,
                                             const std::vector<XfbCapture>& captures, uint32_t stride,
                                             const std::string& shown_as);

}  // namespace skinref::gpu

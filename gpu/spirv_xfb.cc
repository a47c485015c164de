#include "gpu/spirv_xfb.h"

#include "core/input_error.h"

#include <algorithm>
#include <map>
#include <optional>

namespace skinref::gpu {
namespace {

// SPIR-V numbers used here (the SPIR-V specification, section 3).
constexpr uint32_t kMagic = 0x07230203u;
constexpr uint32_t kHeaderWords = 5;
enum Op : uint32_t {
  OpSourceContinued = 2, OpSource = 3, OpSourceExtension = 4, OpName = 5, OpMemberName = 6, OpString = 7,
  OpLine = 8, OpExtension = 10, OpExtInstImport = 11, OpMemoryModel = 14, OpEntryPoint = 15,
  OpExecutionMode = 16, OpCapability = 17, OpTypePointer = 32, OpVariable = 59, OpDecorate = 71,
  OpMemberDecorate = 72, OpDecorationGroup = 73, OpGroupDecorate = 74, OpGroupMemberDecorate = 75,
  OpNoLine = 317, OpModuleProcessed = 330, OpExecutionModeId = 331, OpDecorateId = 332,
  OpDecorateString = 5632, OpMemberDecorateString = 5633
};
constexpr uint32_t kCapabilityTransformFeedback = 53;
constexpr uint32_t kExecutionModeXfb = 11;
constexpr uint32_t kDecorationBuiltIn = 11, kDecorationLocation = 30, kDecorationOffset = 35,
                   kDecorationXfbBuffer = 36, kDecorationXfbStride = 37;
constexpr uint32_t kBuiltInPosition = 0;
constexpr uint32_t kStorageOutput = 3;

struct Instruction {
  size_t at = 0;  // word index
  uint32_t opcode = 0, count = 0;
  uint32_t word(const std::vector<uint32_t>& w, size_t i) const { return i < count ? w[at + i] : 0u; }
};

bool is_annotation(uint32_t op) {
  return op == OpDecorate || op == OpMemberDecorate || op == OpDecorationGroup || op == OpGroupDecorate ||
         op == OpGroupMemberDecorate || op == OpDecorateId || op == OpDecorateString || op == OpMemberDecorateString;
}
bool is_preamble_or_debug(uint32_t op) {
  return op == OpCapability || op == OpExtension || op == OpExtInstImport || op == OpMemoryModel ||
         op == OpEntryPoint || op == OpExecutionMode || op == OpExecutionModeId || op == OpString ||
         op == OpSourceExtension || op == OpSource || op == OpSourceContinued || op == OpName ||
         op == OpMemberName || op == OpModuleProcessed || op == OpLine || op == OpNoLine;
}

// The literal string starting at word `first` of an instruction, and the word after it.
std::string literal_string(const std::vector<uint32_t>& words, const Instruction& in, size_t first, size_t& next) {
  std::string text;
  for (size_t i = first; i < in.count; ++i) {
    const uint32_t w = words[in.at + i];
    for (int b = 0; b < 4; ++b) {
      const char c = char((w >> (8 * b)) & 0xFFu);
      if (c == '\0') {
        next = i + 1;
        return text;
      }
      text += c;
    }
  }
  next = in.count;
  return text;
}

// What the module declares about its outputs.
struct OutputFacts {
  std::optional<uint32_t> entry_function;
  std::map<uint32_t, uint32_t> location_of;        // variable -> Location
  std::optional<uint32_t> position_variable;       // a variable decorated BuiltIn Position
  std::optional<uint32_t> per_vertex_struct;       // a struct whose member 0.. is BuiltIn Position
  uint32_t position_member = 0;
  std::map<uint32_t, uint32_t> output_pointer_to;  // pointer type (Output) -> pointee
  std::map<uint32_t, uint32_t> output_variable_type;  // Output variable -> its pointer type
};

std::vector<Instruction> instructions(const std::vector<uint32_t>& words, const std::string& shown_as) {
  if (words.size() < kHeaderWords || words[0] != kMagic)
    throw InputError(shown_as, "", "SPIR-V with its 5-word header (magic number 0x07230203)");
  std::vector<Instruction> result;
  for (size_t at = kHeaderWords; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > words.size())
      throw InputError(shown_as, "word " + std::to_string(at), "a SPIR-V instruction within the module");
    result.push_back(Instruction{at, words[at] & 0xFFFFu, count});
    at += count;
  }
  return result;
}

OutputFacts read_facts(const std::vector<uint32_t>& w, const std::vector<Instruction>& ins, const std::string& entry) {
  OutputFacts facts;
  for (const Instruction& in : ins) {
    if (in.opcode == OpEntryPoint) {
      size_t next = 0;
      if (literal_string(w, in, 3, next) == entry) facts.entry_function = in.word(w, 2);
    } else if (in.opcode == OpDecorate && in.word(w, 2) == kDecorationLocation) {
      facts.location_of[in.word(w, 1)] = in.word(w, 3);
    } else if (in.opcode == OpDecorate && in.word(w, 2) == kDecorationBuiltIn && in.word(w, 3) == kBuiltInPosition) {
      facts.position_variable = in.word(w, 1);
    } else if (in.opcode == OpMemberDecorate && in.word(w, 3) == kDecorationBuiltIn &&
               in.word(w, 4) == kBuiltInPosition) {
      facts.per_vertex_struct = in.word(w, 1);
      facts.position_member = in.word(w, 2);
    } else if (in.opcode == OpTypePointer && in.word(w, 2) == kStorageOutput) {
      facts.output_pointer_to[in.word(w, 1)] = in.word(w, 3);
    } else if (in.opcode == OpVariable && in.word(w, 3) == kStorageOutput) {
      facts.output_variable_type[in.word(w, 2)] = in.word(w, 1);
    }
  }
  return facts;
}

std::vector<uint32_t> op(uint32_t opcode, std::vector<uint32_t> operands) {
  operands.insert(operands.begin(), (uint32_t(operands.size() + 1) << 16) | opcode);
  return operands;
}

}  // namespace

std::vector<uint32_t> add_transform_feedback(const std::vector<uint32_t>& spirv, const std::string& entry_point,
                                             const std::vector<XfbCapture>& captures, uint32_t stride,
                                             const std::string& shown_as) {
  const std::vector<Instruction> ins = instructions(spirv, shown_as);
  const OutputFacts facts = read_facts(spirv, ins, entry_point);
  if (!facts.entry_function) throw InputError(shown_as, "", "an entry point named \"" + entry_point + "\"");
  std::vector<uint32_t> decorations;
  auto append = [&decorations](const std::vector<uint32_t>& words) {
    decorations.insert(decorations.end(), words.begin(), words.end());
  };
  auto buffer_and_stride = [&](uint32_t variable) {
    append(op(OpDecorate, {variable, kDecorationXfbBuffer, 0}));
    append(op(OpDecorate, {variable, kDecorationXfbStride, stride}));
  };
  for (const XfbCapture& capture : captures) {
    if (capture.builtin_position && facts.per_vertex_struct) {
      // The gl_PerVertex block: the member holds the offset, the block's variable the buffer and stride.
      std::optional<uint32_t> block_variable;
      for (const auto& [variable, pointer] : facts.output_variable_type)
        if (facts.output_pointer_to.count(pointer) && facts.output_pointer_to.at(pointer) == *facts.per_vertex_struct)
          block_variable = variable;
      if (!block_variable) throw InputError(shown_as, "", "an output variable of the gl_PerVertex block");
      append(op(OpMemberDecorate, {*facts.per_vertex_struct, facts.position_member, kDecorationOffset, capture.offset}));
      buffer_and_stride(*block_variable);
    } else if (capture.builtin_position) {
      if (!facts.position_variable || !facts.output_variable_type.count(*facts.position_variable))
        throw InputError(shown_as, "", "an output decorated BuiltIn Position (gl_Position, SV_Position)");
      append(op(OpDecorate, {*facts.position_variable, kDecorationOffset, capture.offset}));
      buffer_and_stride(*facts.position_variable);
    } else {
      std::optional<uint32_t> variable;
      for (const auto& [id, location] : facts.location_of)
        if (location == capture.location && facts.output_variable_type.count(id)) variable = id;
      if (!variable)
        throw InputError(shown_as, "", "an output variable at location " + std::to_string(capture.location));
      append(op(OpDecorate, {*variable, kDecorationOffset, capture.offset}));
      buffer_and_stride(*variable);
    }
  }
  // Where each part goes: after the first capability, after the last entry point, after the last annotation
  // (or before the first type when there is none).
  size_t after_capability = 0, after_entry = 0, annotations_end = 0, first_other = spirv.size();
  for (const Instruction& in : ins) {
    if (in.opcode == OpCapability && after_capability == 0) after_capability = in.at + in.count;
    if (in.opcode == OpEntryPoint) after_entry = in.at + in.count;
    if (is_annotation(in.opcode)) annotations_end = in.at + in.count;
    if (!is_preamble_or_debug(in.opcode) && !is_annotation(in.opcode) && first_other == spirv.size())
      first_other = in.at;
  }
  if (annotations_end == 0) annotations_end = first_other;
  std::vector<uint32_t> out(spirv.begin(), spirv.begin() + long(after_capability));
  const std::vector<uint32_t> capability = op(OpCapability, {kCapabilityTransformFeedback});
  out.insert(out.end(), capability.begin(), capability.end());
  out.insert(out.end(), spirv.begin() + long(after_capability), spirv.begin() + long(after_entry));
  const std::vector<uint32_t> mode = op(OpExecutionMode, {*facts.entry_function, kExecutionModeXfb});
  out.insert(out.end(), mode.begin(), mode.end());
  out.insert(out.end(), spirv.begin() + long(after_entry), spirv.begin() + long(annotations_end));
  out.insert(out.end(), decorations.begin(), decorations.end());
  out.insert(out.end(), spirv.begin() + long(annotations_end), spirv.end());
  return out;
}

}  // namespace skinref::gpu

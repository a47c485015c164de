#include "gpu/vertex_interface.h"

#include "gpu/interface_json.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>

namespace skinref::gpu {
namespace {

constexpr std::array<VertexAttribute, 5> kVertexAttributes = {VertexAttribute::Position, VertexAttribute::Normal,
                                                             VertexAttribute::Tangent, VertexAttribute::Joints,
                                                             VertexAttribute::Weights};
constexpr std::array<VertexFormat, 9> kVertexFormats = {
    VertexFormat::R32G32B32_SFLOAT,  VertexFormat::R32G32B32A32_SFLOAT, VertexFormat::R8G8B8A8_UINT,
    VertexFormat::R16G16B16A16_UINT, VertexFormat::R16G16B16A16_SINT,   VertexFormat::R32G32B32A32_UINT,
    VertexFormat::R32G32B32A32_SINT, VertexFormat::R8G8B8A8_UNORM,      VertexFormat::R16G16B16A16_UNORM};
constexpr std::array<PaletteLayout, 4> kPaletteLayouts = {PaletteLayout::Mat4, PaletteLayout::Mat4RowMajor,
                                                          PaletteLayout::Mat3x4Rows, PaletteLayout::DualQuaternion};
constexpr std::array<BlockDescriptor, 2> kDescriptors = {BlockDescriptor::Uniform, BlockDescriptor::Storage};
constexpr std::array<IdentityFormat, 2> kIdentityFormats = {IdentityFormat::Mat4, IdentityFormat::Mat3};

// The largest palette a block may declare (a uniform block of mat4 is 64 KiB at 1,024).
constexpr uint32_t kMaxPaletteJoints = 1u << 16;

const char* palette_layout_name(PaletteLayout layout) {
  switch (layout) {
    case PaletteLayout::Mat4: return "mat4";
    case PaletteLayout::Mat4RowMajor: return "mat4-row-major";
    case PaletteLayout::Mat3x4Rows: return "mat3x4-rows";
    case PaletteLayout::DualQuaternion: return "dual-quaternion";
  }
  return "?";
}
const char* descriptor_name(BlockDescriptor descriptor) {
  switch (descriptor) {
    case BlockDescriptor::Uniform: return "uniform";
    case BlockDescriptor::Storage: return "storage";
  }
  return "?";
}
const char* identity_format_name(IdentityFormat format) {
  switch (format) {
    case IdentityFormat::Mat4: return "mat4";
    case IdentityFormat::Mat3: return "mat3";
  }
  return "?";
}

// The formats each attribute may take.
std::vector<VertexFormat> formats_for(VertexAttribute attribute) {
  switch (attribute) {
    case VertexAttribute::Position:
    case VertexAttribute::Normal: return {VertexFormat::R32G32B32_SFLOAT, VertexFormat::R32G32B32A32_SFLOAT};
    case VertexAttribute::Tangent: return {VertexFormat::R32G32B32A32_SFLOAT};
    case VertexAttribute::Joints:
      return {VertexFormat::R8G8B8A8_UINT, VertexFormat::R16G16B16A16_UINT, VertexFormat::R16G16B16A16_SINT,
              VertexFormat::R32G32B32A32_UINT, VertexFormat::R32G32B32A32_SINT};
    case VertexAttribute::Weights:
      return {VertexFormat::R32G32B32A32_SFLOAT, VertexFormat::R8G8B8A8_UNORM, VertexFormat::R16G16B16A16_UNORM};
  }
  return {};
}

bool is_signed(VertexFormat format) {
  return format == VertexFormat::R16G16B16A16_SINT || format == VertexFormat::R32G32B32A32_SINT;
}

VertexInput parse_input(const std::string& file, const Json& json, const std::string& path) {
  ObjectReader reader(file, json, path);
  VertexInput input;
  input.location = reader.count("location", 0, 31);
  input.binding = reader.count("binding", 0, 31);
  input.offset = reader.optional_count("offset", 0, 2047).value_or(0);
  input.attribute = reader.choice("attribute", kVertexAttributes, vertex_attribute_name);
  input.format = reader.choice("format", kVertexFormats, vertex_format_name);
  const std::vector<VertexFormat> allowed = formats_for(input.attribute);
  if (std::find(allowed.begin(), allowed.end(), input.format) == allowed.end()) {
    std::string names;
    for (VertexFormat f : allowed) names += std::string(names.empty() ? "" : ", ") + vertex_format_name(f);
    reader.fail(reader.at("format"), std::string("for ") + vertex_attribute_name(input.attribute) + ": " + names);
  }
  const bool influence = input.attribute == VertexAttribute::Joints || input.attribute == VertexAttribute::Weights;
  if (influence) input.first = reader.optional_count("first", 0, 15).value_or(0);
  if (const Json* sentinel = reader.find("sentinel")) {
    if (input.attribute != VertexAttribute::Joints) reader.fail(reader.at("sentinel"), "a sentinel on joints only");
    if (!sentinel->is_number_integer()) reader.fail(reader.at("sentinel"), "an integer");
    const int64_t value = sentinel->get<int64_t>();
    const int64_t low = is_signed(input.format) ? -(int64_t(1) << (8 * vertex_format_bytes(input.format) / 4 - 1)) : 0;
    const int64_t high = is_signed(input.format) ? -low - 1
                                                 : (int64_t(1) << (8 * vertex_format_bytes(input.format) / 4)) - 1;
    if (value < low || value > high)
      reader.fail(reader.at("sentinel"), "a value the format holds, " + std::to_string(low) + " to " +
                                             std::to_string(high) + ", got " + std::to_string(value));
    input.sentinel = value;
  }
  reader.no_other_keys();
  return input;
}

PaletteBlock parse_palette(const std::string& file, const Json& json) {
  ObjectReader reader(file, json, "/palette");
  PaletteBlock palette;
  palette.binding = reader.count("binding", 0, 1023);
  palette.descriptor = reader.choice("descriptor", kDescriptors, descriptor_name);
  palette.offset = reader.optional_count("offset", 0, 1u << 24).value_or(0);
  palette.layout = reader.choice("layout", kPaletteLayouts, palette_layout_name);
  palette.joints = reader.count("joints", 1, kMaxPaletteJoints);
  if (palette.offset % 16 != 0) reader.fail(reader.at("offset"), "a multiple of 16 bytes");
  reader.no_other_keys();
  return palette;
}

VertexOutput parse_output(ObjectReader& outputs, const char* key, bool builtin_allowed) {
  VertexOutput output;
  const Json& json = outputs.need(key);
  if (json.is_string()) {
    if (!builtin_allowed || json != "gl_Position") outputs.fail(outputs.at(key), "\"gl_Position\" or {\"location\": N}");
    output.builtin_position = true;
    return output;
  }
  ObjectReader reader(outputs.file(), json, outputs.at(key));
  output.location = reader.count("location", 0, 31);
  reader.no_other_keys();
  return output;
}

// Inputs' locations once each; joints and weights covering slots 0 to influences - 1 once each.
void check_inputs(const VertexInterface& result, ObjectReader& reader) {
  std::set<uint32_t> locations;
  for (size_t i = 0; i < result.inputs.size(); ++i) {
    const VertexInput& input = result.inputs[i];
    const std::string at = "/inputs/" + std::to_string(i);
    if (!locations.insert(input.location).second) reader.fail(at + "/location", "a location not described twice");
    const bool bound = std::any_of(result.vertex_buffers.begin(), result.vertex_buffers.end(),
                                   [&](const VertexBufferBinding& b) { return b.binding == input.binding; });
    if (!bound) reader.fail(at + "/binding", "a binding listed in \"vertex_buffers\"");
  }
  for (VertexAttribute attribute : {VertexAttribute::Joints, VertexAttribute::Weights}) {
    std::vector<int> covered(result.influences, 0);
    for (size_t i = 0; i < result.inputs.size(); ++i) {
      const VertexInput& input = result.inputs[i];
      if (input.attribute != attribute) continue;
      for (uint32_t c = 0; c < vertex_format_components(input.format); ++c)
        if (input.first + c < result.influences) ++covered[input.first + c];
    }
    for (uint32_t slot = 0; slot < result.influences; ++slot)
      if (covered[slot] != 1)
        reader.fail("/inputs", std::string("inputs of ") + vertex_attribute_name(attribute) + " covering influence slot " +
                                   std::to_string(slot) + " once (of \"influences\": " +
                                   std::to_string(result.influences) + "), got " + std::to_string(covered[slot]));
  }
  if (!result.input_of(VertexAttribute::Position)) reader.fail("/inputs", "a position input");
  if (result.normal && !result.input_of(VertexAttribute::Normal))
    reader.fail("/outputs/normal", "a normal input to skin (the interface has none)");
  if (result.tangent && !result.input_of(VertexAttribute::Tangent))
    reader.fail("/outputs/tangent", "a tangent input to skin (the interface has none)");
}

}  // namespace

const char* vertex_attribute_name(VertexAttribute attribute) {
  switch (attribute) {
    case VertexAttribute::Position: return "position";
    case VertexAttribute::Normal: return "normal";
    case VertexAttribute::Tangent: return "tangent";
    case VertexAttribute::Joints: return "joints";
    case VertexAttribute::Weights: return "weights";
  }
  return "?";
}

const char* vertex_format_name(VertexFormat format) {
  switch (format) {
    case VertexFormat::R32G32B32_SFLOAT: return "R32G32B32_SFLOAT";
    case VertexFormat::R32G32B32A32_SFLOAT: return "R32G32B32A32_SFLOAT";
    case VertexFormat::R8G8B8A8_UINT: return "R8G8B8A8_UINT";
    case VertexFormat::R16G16B16A16_UINT: return "R16G16B16A16_UINT";
    case VertexFormat::R16G16B16A16_SINT: return "R16G16B16A16_SINT";
    case VertexFormat::R32G32B32A32_UINT: return "R32G32B32A32_UINT";
    case VertexFormat::R32G32B32A32_SINT: return "R32G32B32A32_SINT";
    case VertexFormat::R8G8B8A8_UNORM: return "R8G8B8A8_UNORM";
    case VertexFormat::R16G16B16A16_UNORM: return "R16G16B16A16_UNORM";
  }
  return "?";
}

uint32_t vertex_format_components(VertexFormat format) {
  return format == VertexFormat::R32G32B32_SFLOAT ? 3u : 4u;
}

uint32_t vertex_format_bytes(VertexFormat format) {
  switch (format) {
    case VertexFormat::R32G32B32_SFLOAT: return 12;
    case VertexFormat::R8G8B8A8_UINT:
    case VertexFormat::R8G8B8A8_UNORM: return 4;
    case VertexFormat::R16G16B16A16_UINT:
    case VertexFormat::R16G16B16A16_SINT:
    case VertexFormat::R16G16B16A16_UNORM: return 8;
    case VertexFormat::R32G32B32A32_SFLOAT:
    case VertexFormat::R32G32B32A32_UINT:
    case VertexFormat::R32G32B32A32_SINT: return 16;
  }
  return 0;
}

uint32_t palette_entry_bytes(PaletteLayout layout) {
  switch (layout) {
    case PaletteLayout::Mat4:
    case PaletteLayout::Mat4RowMajor: return 64u;
    case PaletteLayout::Mat3x4Rows: return 48u;
    case PaletteLayout::DualQuaternion: return 32u;
  }
  return 64u;
}

const VertexInput* VertexInterface::input_of(VertexAttribute attribute) const {
  for (const VertexInput& input : inputs)
    if (input.attribute == attribute) return &input;
  return nullptr;
}

VertexInterface parse_vertex_interface(const std::string& path) {
  const Json json = read_interface_json(path);
  ObjectReader reader(path, json, "");
  if (reader.string("format") != "skinref-shader-interface") reader.fail("/format", "\"skinref-shader-interface\"");
  reader.count("version", 1, 1);
  if (reader.string("stage") != "vertex") reader.fail("/stage", "\"vertex\"");
  VertexInterface result;
  result.path = path;
  result.name = reader.optional_string("name").value_or(std::filesystem::path(path).filename().string());
  result.entry_point = reader.optional_string("entry_point").value_or("main");
  result.method = reader.choice("method", kSkinningMethods, skinning_method_name);
  result.influences = reader.count("influences", 1, 16);
  const Json& buffers = reader.array("vertex_buffers");
  std::set<uint32_t> bindings;
  for (size_t b = 0; b < buffers.size(); ++b) {
    ObjectReader entry(path, buffers[b], "/vertex_buffers/" + std::to_string(b));
    const VertexBufferBinding binding{entry.count("binding", 0, 31), entry.count("stride", 4, 2048)};
    entry.no_other_keys();
    if (!bindings.insert(binding.binding).second) entry.fail(entry.at("binding"), "a binding not described twice");
    result.vertex_buffers.push_back(binding);
  }
  const Json& inputs = reader.array("inputs");
  for (size_t i = 0; i < inputs.size(); ++i)
    result.inputs.push_back(parse_input(path, inputs[i], "/inputs/" + std::to_string(i)));
  result.palette = parse_palette(path, reader.need("palette"));
  // A vertex shader blends what the palette holds: matrices for LBS, dual quaternions for DQS.
  const bool dual_quaternions = result.palette.layout == PaletteLayout::DualQuaternion;
  if (dual_quaternions != (result.method == SkinningMethod::Dqs))
    reader.fail("/palette/layout", result.method == SkinningMethod::Dqs
                                       ? std::string("dual-quaternion for method dqs, got ") +
                                             palette_layout_name(result.palette.layout)
                                       : std::string("mat4, mat4-row-major or mat3x4-rows for method lbs, got "
                                                     "dual-quaternion"));
  if (const Json* identities = reader.find("identity_matrices")) {
    if (!identities->is_array()) reader.fail("/identity_matrices", "an array");
    for (size_t m = 0; m < identities->size(); ++m) {
      ObjectReader entry(path, (*identities)[m], "/identity_matrices/" + std::to_string(m));
      IdentityMatrix matrix;
      matrix.binding = entry.count("binding", 0, 1023);
      matrix.offset = entry.count("offset", 0, 1u << 24);
      matrix.format = entry.choice("format", kIdentityFormats, identity_format_name);
      entry.no_other_keys();
      if (matrix.offset % 16 != 0) entry.fail(entry.at("offset"), "a multiple of 16 bytes");
      result.identities.push_back(matrix);
    }
  }
  ObjectReader outputs(path, reader.need("outputs"), "/outputs");
  result.position = parse_output(outputs, "position", true);
  if (outputs.find("normal")) result.normal = parse_output(outputs, "normal", false);
  if (outputs.find("tangent")) result.tangent = parse_output(outputs, "tangent", false);
  outputs.no_other_keys();
  reader.no_other_keys();
  check_inputs(result, reader);
  return result;
}

}  // namespace skinref::gpu

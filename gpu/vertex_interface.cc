#include "gpu/vertex_interface.h"

#include "gpu/interface_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <set>

namespace skinref::gpu {
namespace {

// The attributes named by a word alone; texcoord:N, color:N and _NAME are read apart.
constexpr std::array<VertexAttribute, 7> kNamedAttributes = {
    VertexAttribute::Position, VertexAttribute::Normal, VertexAttribute::Tangent, VertexAttribute::Joints,
    VertexAttribute::Weights,  VertexAttribute::Zero,   VertexAttribute::Constant};
// The attribute sets a primitive may have (glTF names TEXCOORD_n and COLOR_n from 0).
constexpr uint32_t kMaxAttributeSet = 15;
constexpr std::array<PaletteLayout, 4> kPaletteLayouts = {PaletteLayout::Mat4, PaletteLayout::Mat4RowMajor,
                                                          PaletteLayout::Mat3x4Rows, PaletteLayout::DualQuaternion};
constexpr std::array<BlockDescriptor, 5> kDescriptors = {BlockDescriptor::Uniform, BlockDescriptor::Storage,
                                                         BlockDescriptor::UniformTexelBuffer,
                                                         BlockDescriptor::StorageTexelBuffer, BlockDescriptor::SampledImage};
// The largest palette image side skinref makes (Vulkan guarantees 4,096; 16,384 is every desktop GPU's).
constexpr uint32_t kMaxImageSide = 16384;
constexpr std::array<IdentityFormat, 2> kIdentityFormats = {IdentityFormat::Mat4, IdentityFormat::Mat3};
constexpr std::array<ConstantType, 4> kConstantTypes = {ConstantType::Bool, ConstantType::Int, ConstantType::Uint,
                                                        ConstantType::Float};
// Descriptor sets an interface may name (Vulkan guarantees 4 bound at once).
constexpr uint32_t kMaxSets = 3;
// Push constants Vulkan guarantees (maxPushConstantsSize is at least 128 bytes).
constexpr uint32_t kMaxPushConstantBytes = 256;

const char* constant_type_name(ConstantType type) {
  switch (type) {
    case ConstantType::Bool: return "bool";
    case ConstantType::Int: return "int";
    case ConstantType::Uint: return "uint";
    case ConstantType::Float: return "float";
  }
  return "?";
}

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

}  // namespace

const char* descriptor_name(BlockDescriptor descriptor) {
  switch (descriptor) {
    case BlockDescriptor::Uniform: return "uniform";
    case BlockDescriptor::Storage: return "storage";
    case BlockDescriptor::UniformTexelBuffer: return "uniform-texel-buffer";
    case BlockDescriptor::StorageTexelBuffer: return "storage-texel-buffer";
    case BlockDescriptor::SampledImage: return "sampled-image";
  }
  return "?";
}

namespace {

const char* identity_format_name(IdentityFormat format) {
  switch (format) {
    case IdentityFormat::Mat4: return "mat4";
    case IdentityFormat::Mat3: return "mat3";
  }
  return "?";
}

// Whether `attribute` may be fed in `format` (any other attribute: any format).
bool admits(VertexAttribute attribute, VertexFormat format) {
  const bool float32 = format.type == ComponentType::Sfloat && format.bits == 32;
  switch (attribute) {
    case VertexAttribute::Position:
    case VertexAttribute::Normal: return float32 && format.components >= 3;
    case VertexAttribute::Tangent: return float32 && format.components == 4;
    case VertexAttribute::Joints:  // integers, or float32 as WebGL engines read their indices
      return format.type == ComponentType::Uint || format.type == ComponentType::Sint || float32;
    case VertexAttribute::Weights: return format.type == ComponentType::Sfloat || format.type == ComponentType::Unorm;
    case VertexAttribute::Texcoord:
    case VertexAttribute::Color:
    case VertexAttribute::Custom:
    case VertexAttribute::Zero:
    case VertexAttribute::Constant: return true;
  }
  return false;
}

const char* admitted_formats(VertexAttribute attribute) {
  switch (attribute) {
    case VertexAttribute::Position:
    case VertexAttribute::Normal: return "R32G32B32_SFLOAT or R32G32B32A32_SFLOAT";
    case VertexAttribute::Tangent: return "R32G32B32A32_SFLOAT";
    case VertexAttribute::Joints: return "a UINT or SINT format, or R32..._SFLOAT";
    case VertexAttribute::Weights: return "an SFLOAT or UNORM format";
    case VertexAttribute::Texcoord:
    case VertexAttribute::Color:
    case VertexAttribute::Custom:
    case VertexAttribute::Zero:
    case VertexAttribute::Constant: return "a vertex format";
  }
  return "?";
}

// "texcoord:1" -> 1, or nullopt when `text` is not `prefix` followed by a set number.
std::optional<uint32_t> attribute_set(const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) != 0 || text.size() == prefix.size() || text.size() > prefix.size() + 2) return std::nullopt;
  uint32_t set = 0;
  for (size_t i = prefix.size(); i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    set = set * 10 + uint32_t(text[i] - '0');
  }
  return set <= kMaxAttributeSet ? std::optional<uint32_t>(set) : std::nullopt;
}

// The "attribute" of an input: a word, texcoord:N, color:N or _NAME.
void parse_attribute(ObjectReader& reader, VertexInput& input) {
  const std::string text = reader.string("attribute");
  for (VertexAttribute a : kNamedAttributes)
    if (text == vertex_attribute_name(a)) {
      input.attribute = a;
      return;
    }
  if (const auto set = attribute_set(text, "texcoord:")) {
    input.attribute = VertexAttribute::Texcoord;
    input.set = *set;
  } else if (const auto colour = attribute_set(text, "color:")) {
    input.attribute = VertexAttribute::Color;
    input.set = *colour;
  } else if (text.size() > 1 && text.size() <= 64 && text[0] == '_') {
    input.attribute = VertexAttribute::Custom;
    input.custom = text;
  } else {
    reader.fail(reader.at("attribute"), "position, normal, tangent, joints, weights, texcoord:N, color:N (N 0 to " +
                                            std::to_string(kMaxAttributeSet) + "), _NAME, zero or constant, got \"" +
                                            text + "\"");
  }
}

void parse_constant_value(ObjectReader& reader, VertexInput& input) {
  const Json* value = reader.find("value");
  if (input.attribute != VertexAttribute::Constant) {
    if (value) reader.fail(reader.at("value"), "a value on a constant input only");
    return;
  }
  if (!value || !value->is_array() || value->empty() || value->size() > 4)
    reader.fail(reader.at("value"), "an array of 1 to 4 finite numbers for a constant input");
  for (size_t c = 0; c < value->size(); ++c) {
    const Json& number = (*value)[c];
    if (!number.is_number() || !std::isfinite(number.get<double>()))
      reader.fail(reader.at("value") + "/" + std::to_string(c), "a finite number");
    input.value[c] = number.get<double>();
  }
  for (size_t c = value->size(); c < 4; ++c) input.value[c] = c == 3 ? 1.0 : 0.0;
}

VertexInput parse_input(const std::string& file, const Json& json, const std::string& path) {
  ObjectReader reader(file, json, path);
  VertexInput input;
  input.location = reader.count("location", 0, 31);
  input.binding = reader.count("binding", 0, 31);
  input.offset = reader.optional_count("offset", 0, 2047).value_or(0);
  parse_attribute(reader, input);
  const std::string format = reader.string("format");
  const std::optional<VertexFormat> parsed = parse_vertex_format(format);
  if (!parsed)
    reader.fail(reader.at("format"), "a Vulkan vertex format: SFLOAT of 16 or 32 bits, UNORM or SNORM of 8 or 16, "
                                     "UINT or SINT of 8, 16 or 32, 1 to 4 components (e.g. R32G32_SFLOAT), got \"" +
                                         format + "\"");
  input.format = *parsed;
  if (!admits(input.attribute, input.format))
    reader.fail(reader.at("format"), std::string("for ") + vertex_input_source(input) + ": " +
                                         admitted_formats(input.attribute) + ", got " + format);
  parse_constant_value(reader, input);
  const bool influence = input.attribute == VertexAttribute::Joints || input.attribute == VertexAttribute::Weights;
  if (influence) input.first = reader.optional_count("first", 0, 15).value_or(0);
  if (const Json* sentinel = reader.find("sentinel")) {
    if (input.attribute != VertexAttribute::Joints) reader.fail(reader.at("sentinel"), "a sentinel on joints only");
    if (!sentinel->is_number_integer()) reader.fail(reader.at("sentinel"), "an integer");
    const int64_t value = sentinel->get<int64_t>();
    const int64_t low = smallest_integer(input.format), high = largest_integer(input.format);
    if (value < low || value > high)
      reader.fail(reader.at("sentinel"), "a value the format holds, " + std::to_string(low) + " to " +
                                             std::to_string(high) + ", got " + std::to_string(value));
    input.sentinel = value;
  }
  reader.no_other_keys();
  return input;
}

JointOffset parse_joint_offset(const std::string& file, const Json& json) {
  ObjectReader reader(file, json, "/palette/joint_offset");
  JointOffset offset;
  offset.value = reader.count("value", 0, 1u << 20);
  if (reader.find("push_constant")) {
    offset.push_constant = true;
    offset.offset = reader.count("push_constant", 0, kMaxPushConstantBytes - 4);
  } else {
    offset.set = reader.optional_count("set", 0, kMaxSets).value_or(0);
    offset.binding = reader.count("binding", 0, 1023);
    offset.offset = reader.count("offset", 0, 1u << 24);
  }
  if (offset.offset % 4 != 0) reader.fail(reader.at(offset.push_constant ? "push_constant" : "offset"), "a multiple of 4 bytes");
  reader.no_other_keys();
  return offset;
}

PaletteBlock parse_palette(const std::string& file, const Json& json) {
  ObjectReader reader(file, json, "/palette");
  PaletteBlock palette;
  palette.set = reader.optional_count("set", 0, kMaxSets).value_or(0);
  palette.binding = reader.count("binding", 0, 1023);
  palette.descriptor = reader.choice("descriptor", kDescriptors, descriptor_name);
  palette.offset = reader.optional_count("offset", 0, 1u << 24).value_or(0);
  palette.layout = reader.choice("layout", kPaletteLayouts, palette_layout_name);
  palette.joints = reader.count("joints", 1, kMaxPaletteJoints);
  if (palette.offset % 16 != 0) reader.fail(reader.at("offset"), "a multiple of 16 bytes");
  if (palette.descriptor == BlockDescriptor::SampledImage) {
    palette.width = reader.count("width", 1, kMaxImageSide);
    palette.height = reader.count("height", 1, kMaxImageSide);
    const uint64_t texels = uint64_t(palette.width) * palette.height;
    const uint64_t needed = palette.offset / 16 + uint64_t(palette.joints) * palette_entry_bytes(palette.layout) / 16;
    if (needed > texels)
      reader.fail(reader.at("height"), "an image of at least " + std::to_string(needed) + " texels for " +
                                           std::to_string(palette.joints) + " joints, got " +
                                           std::to_string(palette.width) + " x " + std::to_string(palette.height));
  }
  if (const Json* offset = reader.find("joint_offset")) {
    palette.joint_offset = parse_joint_offset(file, *offset);
    if (palette.joint_offset->value >= palette.joints)
      reader.fail(reader.at("joint_offset") + "/value", "an entry below \"joints\" (" + std::to_string(palette.joints) + ")");
  }
  reader.no_other_keys();
  return palette;
}

IdentityMatrix parse_identity(const std::string& file, const Json& json, const std::string& path) {
  ObjectReader entry(file, json, path);
  IdentityMatrix matrix;
  if (const Json* push = entry.find("push_constant")) {
    if (*push != true) entry.fail(entry.at("push_constant"), "true, or no such key for a matrix in a block");
    matrix.push_constant = true;
  } else {
    matrix.set = entry.optional_count("set", 0, kMaxSets).value_or(0);
    matrix.binding = entry.count("binding", 0, 1023);
  }
  matrix.offset = entry.count("offset", 0, matrix.push_constant ? kMaxPushConstantBytes - 48 : 1u << 24);
  matrix.format = entry.choice("format", kIdentityFormats, identity_format_name);
  entry.no_other_keys();
  if (matrix.offset % 16 != 0) entry.fail(entry.at("offset"), "a multiple of 16 bytes");
  return matrix;
}

std::vector<SpecializationConstant> parse_specialization(const std::string& file, const Json& list) {
  if (!list.is_array()) throw InputError(file, "/specialization_constants", "an array");
  std::vector<SpecializationConstant> constants;
  std::set<uint32_t> ids;
  for (size_t i = 0; i < list.size(); ++i) {
    ObjectReader entry(file, list[i], "/specialization_constants/" + std::to_string(i));
    SpecializationConstant constant;
    constant.id = entry.count("id", 0, 65535);
    constant.type = entry.choice("type", kConstantTypes, constant_type_name);
    const Json& value = entry.need("value");
    const bool integral = constant.type != ConstantType::Float;
    const bool fits = value.is_number() && std::isfinite(value.get<double>()) &&
                      (!integral || (value.is_number_integer() &&
                                     value.get<double>() >= (constant.type == ConstantType::Int ? -2147483648.0 : 0.0) &&
                                     value.get<double>() <= (constant.type == ConstantType::Bool ? 1.0
                                                             : constant.type == ConstantType::Int ? 2147483647.0
                                                                                                  : 4294967295.0)));
    if (!fits) entry.fail(entry.at("value"), std::string("a value of type ") + constant_type_name(constant.type));
    constant.value = value.get<double>();
    entry.no_other_keys();
    if (!ids.insert(constant.id).second) entry.fail(entry.at("id"), "an id not given twice");
    constants.push_back(constant);
  }
  return constants;
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

// What the interface places in push constants lies within the bytes it declares for them.
void check_push_constant_use(const VertexInterface& result, ObjectReader& reader) {
  for (size_t m = 0; m < result.identities.size(); ++m) {
    const IdentityMatrix& matrix = result.identities[m];
    const uint32_t end = matrix.offset + (matrix.format == IdentityFormat::Mat4 ? 64u : 48u);
    if (matrix.push_constant && end > result.push_constant_bytes)
      reader.fail("/identity_matrices/" + std::to_string(m),
                  "a matrix within \"push_constants\" (" + std::to_string(result.push_constant_bytes) +
                      " bytes), up to byte " + std::to_string(end));
  }
  const std::optional<JointOffset>& offset = result.palette.joint_offset;
  if (offset && offset->push_constant && offset->offset + 4 > result.push_constant_bytes)
    reader.fail("/palette/joint_offset/push_constant", "an offset within \"push_constants\" (" +
                                                           std::to_string(result.push_constant_bytes) + " bytes)");
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
    case VertexAttribute::Texcoord: return "texcoord";
    case VertexAttribute::Color: return "color";
    case VertexAttribute::Custom: return "custom";
    case VertexAttribute::Zero: return "zero";
    case VertexAttribute::Constant: return "constant";
  }
  return "?";
}

std::string vertex_input_source(const VertexInput& input) {
  switch (input.attribute) {
    case VertexAttribute::Texcoord:
    case VertexAttribute::Color: return std::string(vertex_attribute_name(input.attribute)) + ":" + std::to_string(input.set);
    case VertexAttribute::Custom: return input.custom;
    case VertexAttribute::Position:
    case VertexAttribute::Normal:
    case VertexAttribute::Tangent:
    case VertexAttribute::Joints:
    case VertexAttribute::Weights:
    case VertexAttribute::Zero:
    case VertexAttribute::Constant: return vertex_attribute_name(input.attribute);
  }
  return "?";
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
  // A vertex shader blends what the palette holds: matrices, or dual quaternions (the method's PaletteBlend).
  const bool dual_quaternions = result.palette.layout == PaletteLayout::DualQuaternion;
  const SkinningMethodDescriptor method = skinning_method_descriptor(result.method);
  bool wants_dual_quaternions = false;
  switch (method.palette) {
    case PaletteBlend::Matrices: wants_dual_quaternions = false; break;
    case PaletteBlend::DualQuaternions: wants_dual_quaternions = true; break;
  }
  if (dual_quaternions != wants_dual_quaternions)
    reader.fail("/palette/layout", wants_dual_quaternions
                                       ? std::string("dual-quaternion for method ") + method.name + ", got " +
                                             palette_layout_name(result.palette.layout)
                                       : std::string("mat4, mat4-row-major or mat3x4-rows for method ") +
                                             method.name + ", got dual-quaternion");
  if (const Json* identities = reader.find("identity_matrices")) {
    if (!identities->is_array()) reader.fail("/identity_matrices", "an array");
    for (size_t m = 0; m < identities->size(); ++m)
      result.identities.push_back(parse_identity(path, (*identities)[m], "/identity_matrices/" + std::to_string(m)));
  }
  if (const Json* push = reader.find("push_constants")) {
    ObjectReader entry(path, *push, "/push_constants");
    result.push_constant_bytes = entry.count("bytes", 4, kMaxPushConstantBytes);
    if (result.push_constant_bytes % 4 != 0) entry.fail(entry.at("bytes"), "a multiple of 4 bytes");
    entry.no_other_keys();
  }
  if (const Json* constants = reader.find("specialization_constants"))
    result.specialization = parse_specialization(path, *constants);
  check_push_constant_use(result, reader);
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

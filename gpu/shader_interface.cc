#include "gpu/shader_interface.h"

#include "gpu/interface_json.h"

#include "core/enum_names.h"
#include "core/input_error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace skinref::gpu {
namespace {


constexpr std::array<ShaderAttribute, 11> kAttributes = {
    ShaderAttribute::Position,        ShaderAttribute::Normal,        ShaderAttribute::Tangent,
    ShaderAttribute::Joints,          ShaderAttribute::Weights,       ShaderAttribute::SkinnedPosition,
    ShaderAttribute::SkinnedNormal,   ShaderAttribute::SkinnedTangent, ShaderAttribute::Palette,
    ShaderAttribute::DualQuaternion,  ShaderAttribute::ModelMatrix};

constexpr std::array<AttributeFormat, 10> kFormats = {
    AttributeFormat::Float3,          AttributeFormat::Float4,       AttributeFormat::Uint8,
    AttributeFormat::Uint16,          AttributeFormat::Uint32,       AttributeFormat::Float32,
    AttributeFormat::Mat4ColumnMajor, AttributeFormat::Mat4RowMajor, AttributeFormat::Mat3x4RowMajor,
    AttributeFormat::DualQuat};

constexpr std::array<PushValue, 3> kPushValues = {PushValue::VertexCount, PushValue::Influences,
                                                  PushValue::PaletteSize};

const char* push_value_name(PushValue value) {
  switch (value) {
    case PushValue::VertexCount: return "vertex_count";
    case PushValue::Influences: return "influences";
    case PushValue::PaletteSize: return "palette_size";
  }
  return "?";
}

ElementKind kind_of(ShaderAttribute attribute) {
  switch (attribute) {
    case ShaderAttribute::Palette:
    case ShaderAttribute::DualQuaternion: return ElementKind::PaletteEntry;
    case ShaderAttribute::ModelMatrix: return ElementKind::Single;
    case ShaderAttribute::Position:
    case ShaderAttribute::Normal:
    case ShaderAttribute::Tangent:
    case ShaderAttribute::Joints:
    case ShaderAttribute::Weights:
    case ShaderAttribute::SkinnedPosition:
    case ShaderAttribute::SkinnedNormal:
    case ShaderAttribute::SkinnedTangent: return ElementKind::Vertex;
  }
  return ElementKind::Vertex;  // not reached: every attribute is named above (-Werror=switch)
}

bool is_output(ShaderAttribute attribute) {
  return attribute == ShaderAttribute::SkinnedPosition || attribute == ShaderAttribute::SkinnedNormal ||
         attribute == ShaderAttribute::SkinnedTangent;
}

// The formats an attribute may take, for the error message and the check.
std::vector<AttributeFormat> formats_for(ShaderAttribute attribute) {
  switch (attribute) {
    case ShaderAttribute::Tangent:
    case ShaderAttribute::SkinnedTangent: return {AttributeFormat::Float4};
    case ShaderAttribute::Joints: return {AttributeFormat::Uint8, AttributeFormat::Uint16, AttributeFormat::Uint32};
    case ShaderAttribute::Weights: return {AttributeFormat::Float32};
    case ShaderAttribute::Palette:
      return {AttributeFormat::Mat4ColumnMajor, AttributeFormat::Mat4RowMajor, AttributeFormat::Mat3x4RowMajor};
    case ShaderAttribute::DualQuaternion: return {AttributeFormat::DualQuat};
    case ShaderAttribute::ModelMatrix: return {AttributeFormat::Mat4ColumnMajor, AttributeFormat::Mat4RowMajor};
    case ShaderAttribute::Position:
    case ShaderAttribute::Normal:
    case ShaderAttribute::SkinnedPosition:
    case ShaderAttribute::SkinnedNormal: return {AttributeFormat::Float3, AttributeFormat::Float4};
  }
  return {AttributeFormat::Float3, AttributeFormat::Float4};  // not reached: every attribute is named above
}

uint32_t format_size(AttributeFormat format, uint32_t influences) {
  switch (format) {
    case AttributeFormat::Float3: return 12;
    case AttributeFormat::Float4: return 16;
    case AttributeFormat::Uint8: return influences;
    case AttributeFormat::Uint16: return 2 * influences;
    case AttributeFormat::Uint32:
    case AttributeFormat::Float32: return 4 * influences;
    case AttributeFormat::Mat4ColumnMajor:
    case AttributeFormat::Mat4RowMajor: return 64;
    case AttributeFormat::Mat3x4RowMajor: return 48;
    case AttributeFormat::DualQuat: return 32;
  }
  return 0;
}

InterfaceAttribute parse_attribute(const std::string& file, const Json& json, const std::string& path,
                                   uint32_t influences) {
  ObjectReader reader(file, json, path);
  InterfaceAttribute attribute;
  attribute.attribute = reader.choice("attribute", kAttributes, shader_attribute_name);
  attribute.format = reader.choice("format", kFormats, attribute_format_name);
  attribute.offset = reader.optional_count("offset", 0, 1u << 16).value_or(0);
  reader.no_other_keys();
  const std::vector<AttributeFormat> allowed = formats_for(attribute.attribute);
  if (std::find(allowed.begin(), allowed.end(), attribute.format) == allowed.end()) {
    std::string names;
    for (AttributeFormat f : allowed) names += std::string(names.empty() ? "" : ", ") + attribute_format_name(f);
    reader.fail(reader.at("format"), std::string("for ") + shader_attribute_name(attribute.attribute) + ": " + names +
                                         ", got " + attribute_format_name(attribute.format));
  }
  attribute.size = format_size(attribute.format, influences);
  return attribute;
}

InterfaceBuffer parse_buffer(const std::string& file, const Json& json, const std::string& path, uint32_t influences) {
  ObjectReader reader(file, json, path);
  InterfaceBuffer buffer;
  buffer.binding = reader.count("binding", 0, 1023);
  const Json& attributes = reader.array("attributes");
  if (attributes.empty()) reader.fail(reader.at("attributes"), "at least one attribute");
  for (size_t a = 0; a < attributes.size(); ++a)
    buffer.attributes.push_back(
        parse_attribute(file, attributes[a], reader.at("attributes") + "/" + std::to_string(a), influences));
  buffer.kind = kind_of(buffer.attributes.front().attribute);
  buffer.written = is_output(buffer.attributes.front().attribute);
  uint32_t end = 0;
  for (size_t a = 0; a < buffer.attributes.size(); ++a) {
    const InterfaceAttribute& attribute = buffer.attributes[a];
    const std::string at = reader.at("attributes") + "/" + std::to_string(a);
    if (kind_of(attribute.attribute) != buffer.kind || is_output(attribute.attribute) != buffer.written)
      reader.fail(at + "/attribute",
                  std::string("attributes of one kind in a buffer (per-vertex inputs, per-vertex outputs, palette "
                              "entries or the model matrix), got ") +
                      shader_attribute_name(attribute.attribute) + " beside " +
                      shader_attribute_name(buffer.attributes.front().attribute));
    if (attribute.offset % 4 != 0) reader.fail(at + "/offset", "a multiple of 4 bytes");
    for (size_t b = 0; b < a; ++b) {
      const InterfaceAttribute& other = buffer.attributes[b];
      if (attribute.offset < other.offset + other.size && other.offset < attribute.offset + attribute.size)
        reader.fail(at + "/offset", std::string("bytes not shared with ") + shader_attribute_name(other.attribute) +
                                        " (offset " + std::to_string(other.offset) + ", " +
                                        std::to_string(other.size) + " bytes)");
    }
    end = std::max(end, attribute.offset + ((attribute.size + 3) / 4) * 4);
  }
  // The stride defaults to the packed element; a given stride must hold every attribute.
  buffer.stride = reader.optional_count("stride", 4, 1u << 16).value_or(end);
  if (buffer.stride < end || buffer.stride % 4 != 0)
    reader.fail(reader.at("stride"), "a multiple of 4 bytes of at least " + std::to_string(end) +
                                         " (the attributes' extent), got " + std::to_string(buffer.stride));
  reader.no_other_keys();
  return buffer;
}

}  // namespace

const char* shader_attribute_name(ShaderAttribute attribute) {
  switch (attribute) {
    case ShaderAttribute::Position: return "position";
    case ShaderAttribute::Normal: return "normal";
    case ShaderAttribute::Tangent: return "tangent";
    case ShaderAttribute::Joints: return "joints";
    case ShaderAttribute::Weights: return "weights";
    case ShaderAttribute::SkinnedPosition: return "skinned_position";
    case ShaderAttribute::SkinnedNormal: return "skinned_normal";
    case ShaderAttribute::SkinnedTangent: return "skinned_tangent";
    case ShaderAttribute::Palette: return "palette";
    case ShaderAttribute::DualQuaternion: return "dual_quaternion";
    case ShaderAttribute::ModelMatrix: return "model_matrix";
  }
  return "?";
}

const char* attribute_format_name(AttributeFormat format) {
  switch (format) {
    case AttributeFormat::Float3: return "float3";
    case AttributeFormat::Float4: return "float4";
    case AttributeFormat::Uint8: return "uint8";
    case AttributeFormat::Uint16: return "uint16";
    case AttributeFormat::Uint32: return "uint32";
    case AttributeFormat::Float32: return "float32";
    case AttributeFormat::Mat4ColumnMajor: return "mat4-column-major";
    case AttributeFormat::Mat4RowMajor: return "mat4-row-major";
    case AttributeFormat::Mat3x4RowMajor: return "mat3x4-row-major";
    case AttributeFormat::DualQuat: return "dualquat";
  }
  return "?";
}

const InterfaceBuffer* ShaderInterface::buffer_of(ShaderAttribute attribute, const InterfaceAttribute** found) const {
  for (const InterfaceBuffer& buffer : buffers)
    for (const InterfaceAttribute& a : buffer.attributes)
      if (a.attribute == attribute) {
        if (found) *found = &a;
        return &buffer;
      }
  return nullptr;
}

ShaderInterface parse_shader_interface(const std::string& path) {
  const Json json = read_interface_json(path);
  ObjectReader reader(path, json, "");
  if (reader.string("format") != "skinref-shader-interface")
    reader.fail("/format", "\"skinref-shader-interface\"");
  if (reader.count("version", 1, 1) != 1) reader.fail("/version", "1");
  if (reader.optional_string("stage").value_or("compute") != "compute")
    reader.fail("/stage", "\"compute\" here (a vertex stage's interface is read by parse_vertex_interface())");
  ShaderInterface result;
  result.path = path;
  result.name = reader.optional_string("name").value_or(std::filesystem::path(path).filename().string());
  result.entry_point = reader.optional_string("entry_point").value_or("main");
  result.workgroup_size = reader.optional_count("workgroup_size", 1, 1024);
  result.method = reader.choice("method", kSkinningMethods, skinning_method_name);
  result.influences = reader.count("influences", 1, 16);

  const Json& buffers = reader.array("buffers");
  std::set<uint32_t> bindings;
  for (size_t b = 0; b < buffers.size(); ++b) {
    const std::string at = "/buffers/" + std::to_string(b);
    InterfaceBuffer buffer = parse_buffer(path, buffers[b], at, result.influences);
    if (!bindings.insert(buffer.binding).second)
      reader.fail(at + "/binding", "a binding not described twice, got " + std::to_string(buffer.binding) + " again");
    for (const InterfaceAttribute& attribute : buffer.attributes)
      if (result.buffer_of(attribute.attribute))
        reader.fail(at, std::string("each attribute in one buffer, got ") + shader_attribute_name(attribute.attribute) +
                            " twice");
    result.buffers.push_back(std::move(buffer));
  }

  // What every skinning shader needs, and what its method needs.
  auto require = [&](ShaderAttribute attribute, const std::string& why) {
    if (!result.buffer_of(attribute))
      reader.fail("/buffers", std::string("a buffer holding ") + shader_attribute_name(attribute) + " (" + why + ")");
  };
  require(ShaderAttribute::Position, "the bind positions");
  require(ShaderAttribute::Joints, "the influences' joints");
  require(ShaderAttribute::Weights, "the influences' weights");
  require(ShaderAttribute::SkinnedPosition, "the result");
  const SkinningMethodDescriptor method = skinning_method_descriptor(result.method);
  switch (method.palette) {
    case PaletteBlend::Matrices:
      require(ShaderAttribute::Palette, std::string(method.label) + " blends the palette's matrices");
      break;
    case PaletteBlend::DualQuaternions:
      require(ShaderAttribute::DualQuaternion, std::string(method.label) + " blends the palette's dual quaternions");
      break;
  }
  if (result.buffer_of(ShaderAttribute::SkinnedNormal)) require(ShaderAttribute::Normal, "skinned normals need them");
  if (result.buffer_of(ShaderAttribute::SkinnedTangent)) require(ShaderAttribute::Tangent, "skinned tangents need them");

  if (const Json* push = reader.find("push_constants")) {
    if (!push->is_array()) reader.fail("/push_constants", "an array");
    std::set<uint32_t> offsets;
    for (size_t p = 0; p < push->size(); ++p) {
      const std::string at = "/push_constants/" + std::to_string(p);
      ObjectReader entry(path, (*push)[p], at);
      InterfacePush value;
      value.offset = entry.count("offset", 0, 124);
      value.value = entry.choice("value", kPushValues, push_value_name);
      entry.no_other_keys();
      if (value.offset % 4 != 0 || !offsets.insert(value.offset).second)
        entry.fail(at + "/offset", "a multiple of 4 not used by another push constant");
      result.push_constants.push_back(value);
    }
  }
  reader.no_other_keys();
  return result;
}

}  // namespace skinref::gpu

// A user's skinning compute shader described for skinref: which storage buffer holds what, in which layout,
// and what the push constants carry (`--interface FILE.json`, docs/vulkan.md "Your own skinning shader").
//
// Contract:
// - parse_shader_interface() reads the JSON; any key, value or combination it cannot honour is an InputError
//   naming the file, the JSON path (e.g. "/buffers/2/attributes/0/format") and what was expected. Nothing is
//   checked against the shader here: user_shader.h does that with the SPIR-V's reflection.
// - Buffers are storage buffers of descriptor set 0. Each holds elements of one kind: per vertex (bind
//   attributes in, skinned attributes out), per palette entry (the skinning matrices or dual quaternions), or a
//   single element (the skinned mesh node's model matrix). An element is `stride` bytes; each attribute sits
//   at its `offset` within it, so one buffer per attribute ("planar") and one struct per vertex
//   ("interleaved") are both expressed.
// - Formats: positions, normals and skinned outputs float3 or float4 (inputs padded with w = 1 for positions,
//   0 for normals, the handedness for tangents; outputs' w ignored except a tangent's); joints uint8, uint16
//   or uint32 components, `influences` of them packed from the offset; weights float32 components; palette
//   mat4 (column- or row-major) or mat3x4-row-major (the top three rows); dual quaternions dualquat (real
//   x y z w, dual x y z w); the model matrix mat4 (either order).
// - Push constants: 32-bit values at byte offsets, each one of the values the host knows per dispatch.
// - The shader skins one vertex per invocation along x: the host dispatches ceil(vertex_count / local size x)
//   groups per drawn primitive.
#pragma once

#include "skin/method.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skinref::gpu {

enum class ShaderAttribute {
  Position, Normal, Tangent, Joints, Weights,            // per vertex, read
  SkinnedPosition, SkinnedNormal, SkinnedTangent,        // per vertex, written
  Palette, DualQuaternion,                               // per palette entry, read
  ModelMatrix                                            // one element, read: the skinned mesh node's global matrix
};

enum class AttributeFormat {
  Float3, Float4,
  Uint8, Uint16, Uint32, Float32,                        // components, `influences` of them
  Mat4ColumnMajor, Mat4RowMajor, Mat3x4RowMajor,
  DualQuat
};

enum class PushValue {
  VertexCount,    // the primitive's vertices
  Influences,     // the interface's influences per vertex
  PaletteSize     // palette entries bound for the primitive
};

enum class ElementKind { Vertex, PaletteEntry, Single };

struct InterfaceAttribute {
  ShaderAttribute attribute = ShaderAttribute::Position;
  AttributeFormat format = AttributeFormat::Float3;
  uint32_t offset = 0;  // bytes within the element
  uint32_t size = 0;    // bytes it occupies (from the format and the influence count)
};

struct InterfaceBuffer {
  uint32_t binding = 0;
  uint32_t stride = 0;  // bytes per element
  ElementKind kind = ElementKind::Vertex;
  bool written = false;  // holds skinned outputs
  std::vector<InterfaceAttribute> attributes;
};

struct InterfacePush {
  uint32_t offset = 0;
  PushValue value = PushValue::VertexCount;
};

struct ShaderInterface {
  std::string path;                     // the JSON file, for messages
  std::string name;                     // "name", else the file name: the dumps' writer says "user shader NAME"
  std::string entry_point = "main";
  std::optional<uint32_t> workgroup_size;  // local size x the shader must declare, when given
  SkinningMethod method = kDefaultSkinningMethod;
  uint32_t influences = 4;              // per vertex, 1 to 16
  std::vector<InterfaceBuffer> buffers;
  std::vector<InterfacePush> push_constants;

  // The buffer and attribute that hold `attribute`, or nullptr.
  const InterfaceBuffer* buffer_of(ShaderAttribute attribute, const InterfaceAttribute** found = nullptr) const;
};

ShaderInterface parse_shader_interface(const std::string& path);

const char* shader_attribute_name(ShaderAttribute attribute);
const char* attribute_format_name(AttributeFormat format);

}  // namespace skinref::gpu

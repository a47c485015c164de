// A Vulkan vertex format as skinref writes one for a user's vertex shader: the type of its components, their
// bits and their count, named as Vulkan names it (R32G32_SFLOAT, R8G8B8A8_UNORM, R16_SINT, ...). Every format a
// vertex input of float, int or uint type may read is one: SFLOAT of 16 or 32 bits, UNORM and SNORM of 8 or
// 16, UINT and SINT of 8, 16 or 32, one to four components (which a device reads is its own: the pipeline asks
// it, gpu/user_vertex_skinning.h).
//
// Contract:
// - parse_vertex_format(name): the format of a Vulkan name with the VK_FORMAT_ prefix left off; nullopt for any
//   other text (packed, scaled, sRGB, 64-bit and compressed formats are not vertex formats skinref writes).
// - vertex_format_name(format): the name back; vertex_format_bytes(format): bits / 8 x components.
// - put_vertex_component(bytes, at, format, c, value): component c of a vertex at byte `at`: SFLOAT rounded to
//   float32 or to half (to nearest even); UNORM and SNORM clamped to [0, 1] or [-1, 1] and rounded to the
//   nearest code; UINT and SINT rounded to the nearest integer and clamped to the format's range.
// - smallest_integer(format), largest_integer(format): the range of a UINT or SINT component.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skinref::gpu {

enum class ComponentType { Sfloat, Unorm, Snorm, Uint, Sint };

struct VertexFormat {
  ComponentType type = ComponentType::Sfloat;
  uint32_t bits = 32;
  uint32_t components = 3;
  friend bool operator==(const VertexFormat&, const VertexFormat&) = default;
};

std::optional<VertexFormat> parse_vertex_format(const std::string& name);
std::string vertex_format_name(VertexFormat format);
uint32_t vertex_format_bytes(VertexFormat format);
inline uint32_t vertex_format_components(VertexFormat format) { return format.components; }
const char* component_type_name(ComponentType type);  // "SFLOAT", "UNORM", ...

void put_vertex_component(std::vector<std::byte>& bytes, size_t at, VertexFormat format, uint32_t c, double value);

int64_t smallest_integer(VertexFormat format);
int64_t largest_integer(VertexFormat format);

// The float32 value's nearest half (IEEE 754 binary16, ties to even), as its bits.
uint16_t half_bits(float value);

}  // namespace skinref::gpu

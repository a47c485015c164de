#include "gpu/vertex_format.h"

#include "gpu/buffer_bytes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace skinref::gpu {
namespace {

constexpr std::array<ComponentType, 5> kComponentTypes = {ComponentType::Sfloat, ComponentType::Unorm,
                                                          ComponentType::Snorm, ComponentType::Uint,
                                                          ComponentType::Sint};
constexpr const char* kChannels = "RGBA";

bool bits_allowed(ComponentType type, uint32_t bits) {
  switch (type) {
    case ComponentType::Sfloat: return bits == 16 || bits == 32;
    case ComponentType::Unorm:
    case ComponentType::Snorm: return bits == 8 || bits == 16;
    case ComponentType::Uint:
    case ComponentType::Sint: return bits == 8 || bits == 16 || bits == 32;
  }
  return false;
}

}  // namespace

const char* component_type_name(ComponentType type) {
  switch (type) {
    case ComponentType::Sfloat: return "SFLOAT";
    case ComponentType::Unorm: return "UNORM";
    case ComponentType::Snorm: return "SNORM";
    case ComponentType::Uint: return "UINT";
    case ComponentType::Sint: return "SINT";
  }
  return "?";
}

std::optional<VertexFormat> parse_vertex_format(const std::string& name) {
  for (ComponentType type : kComponentTypes)
    for (uint32_t bits : {8u, 16u, 32u})
      for (uint32_t components = 1; components <= 4; ++components) {
        const VertexFormat format{type, bits, components};
        if (bits_allowed(type, bits) && vertex_format_name(format) == name) return format;
      }
  return std::nullopt;
}

std::string vertex_format_name(VertexFormat format) {
  std::string name;
  for (uint32_t c = 0; c < format.components && c < 4; ++c) name += kChannels[c] + std::to_string(format.bits);
  return name + "_" + component_type_name(format.type);
}

uint32_t vertex_format_bytes(VertexFormat format) { return format.bits / 8 * format.components; }

int64_t smallest_integer(VertexFormat format) {
  return format.type == ComponentType::Sint ? -(int64_t(1) << (format.bits - 1)) : 0;
}

int64_t largest_integer(VertexFormat format) {
  return format.type == ComponentType::Sint ? (int64_t(1) << (format.bits - 1)) - 1 : (int64_t(1) << format.bits) - 1;
}

uint16_t half_bits(float value) {
  uint32_t f = 0;
  std::memcpy(&f, &value, 4);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t magnitude = f & 0x7FFFFFFFu;
  if (magnitude >= 0x7F800000u) return uint16_t(sign | 0x7C00u | (magnitude > 0x7F800000u ? 0x200u : 0u));
  if (magnitude >= 0x477FF000u) return uint16_t(sign | 0x7C00u);  // rounds to beyond 65504: infinity
  if (magnitude < 0x38800000u) {                                    // a half subnormal (or zero)
    const uint32_t mantissa = (magnitude & 0x007FFFFFu) | 0x00800000u;
    const int shift = 113 - int(magnitude >> 23) + 13;
    if (shift > 24) return uint16_t(sign);
    const uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u), midpoint = 1u << (shift - 1);
    return uint16_t(sign | (half + (rest > midpoint || (rest == midpoint && (half & 1u)))));
  }
  const uint32_t biased = magnitude - 0x38000000u;  // exponent rebiased from 127 to 15
  const uint32_t half = biased >> 13, rest = biased & 0x1FFFu;
  return uint16_t(sign | (half + (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))));
}

void put_vertex_component(std::vector<std::byte>& bytes, size_t at, VertexFormat format, uint32_t c, double value) {
  const size_t where = at + size_t(c) * format.bits / 8;
  switch (format.type) {
    case ComponentType::Sfloat:
      if (format.bits == 32) put_float(bytes, where, value);
      else put_value(bytes, where, half_bits(float(value)));
      return;
    case ComponentType::Unorm:
    case ComponentType::Snorm: {
      const double low = format.type == ComponentType::Unorm ? 0.0 : -1.0;
      const double scale = format.type == ComponentType::Unorm ? double((1u << format.bits) - 1) : double((1u << (format.bits - 1)) - 1);
      const long code = std::lround(std::clamp(std::isnan(value) ? 0.0 : value, low, 1.0) * scale);
      if (format.bits == 8) put_value(bytes, where, uint8_t(code & 0xFF));
      else put_value(bytes, where, uint16_t(code & 0xFFFF));
      return;
    }
    case ComponentType::Uint:
    case ComponentType::Sint: {
      const double rounded = std::isnan(value) ? 0.0 : std::nearbyint(value);
      const int64_t integer = int64_t(std::clamp(rounded, double(smallest_integer(format)), double(largest_integer(format))));
      if (format.bits == 8) put_value(bytes, where, uint8_t(uint64_t(integer) & 0xFFu));
      else if (format.bits == 16) put_value(bytes, where, uint16_t(uint64_t(integer) & 0xFFFFu));
      else put_value(bytes, where, uint32_t(uint64_t(integer) & 0xFFFFFFFFu));
      return;
    }
  }
}

}  // namespace skinref::gpu

// What the vertex dump formats share (vertex_dump_json.cc, vertex_dump_skv.cc, vertex_dump_ply.cc); internal to
// the io layer.
//
// Contract:
// - put_u32() .. put_f64(): append a value's little-endian bytes, byte by byte, so that the host's layout never
//   matters (f32 and f64 as their IEEE-754 bits).
// - primitive_label(i): "vertex dump primitive I", how messages name a dump's primitive.
// - check_attribute_sizes(): throws std::runtime_error (a caller's bug, not bad input) unless the primitive's
//   normals and tangents are each empty or as many as its positions.
#pragma once

#include "core/vertices.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>

namespace skinref {

inline void put_u32(std::string& bytes, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<char>((value >> shift) & 0xffu));
}

inline void put_u64(std::string& bytes, uint64_t value) {
  for (int shift = 0; shift < 64; shift += 8) bytes.push_back(static_cast<char>((value >> shift) & 0xffu));
}

inline void put_i32(std::string& bytes, int32_t value) { put_u32(bytes, static_cast<uint32_t>(value)); }
inline void put_f32(std::string& bytes, float value) { put_u32(bytes, std::bit_cast<uint32_t>(value)); }
inline void put_f64(std::string& bytes, double value) { put_u64(bytes, std::bit_cast<uint64_t>(value)); }

std::string primitive_label(size_t index);
void check_attribute_sizes(const WorldPrimitive& primitive, size_t index);

}  // namespace skinref

// The bytes the host writes into and reads back from a user shader's buffers (gpu/user_skinning.h,
// gpu/user_vertex_skinning.h): values copied byte for byte (never by casting the buffer), floats rounded to
// float32 on the way in, and the influences a shader reads, padded to its count.
//
// Contract:
// - put_float() rounds to the nearest float32; put_value() copies the value's bytes; get_float() reads one
//   float32; put_matrix_columns() and put_matrix_rows() write a matrix's floats in column or row order. Every
//   offset is the caller's to keep inside the vector.
// - padded_influences(): the vertex's stored influences (a rigid node's vertex: joint 0, weight 1) followed by
//   (joint 0, weight 0) up to `influences` per vertex. More stored influences than that is an InputError naming
//   the node, the primitive, the interface and the convention that limits them at load
//   (influences=topK-renormalized).
#pragma once

#include "core/scene.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace skinref::gpu {

inline void put_float(std::vector<std::byte>& bytes, size_t at, double value) {
  const float f = static_cast<float>(value);
  std::memcpy(bytes.data() + at, &f, sizeof f);
}

template <class T>
void put_value(std::vector<std::byte>& bytes, size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

inline float get_float(const std::vector<std::byte>& bytes, size_t at) {
  float f;
  std::memcpy(&f, bytes.data() + at, sizeof f);
  return f;
}

// A matrix as float32 from `at`: its four columns (column-major, 16 floats), or its first `rows` rows (row-major:
// 4 rows, or 3 for the top rows of an affine matrix).
void put_matrix_columns(std::vector<std::byte>& bytes, size_t at, const Mat4& m);
void put_matrix_rows(std::vector<std::byte>& bytes, size_t at, const Mat4& m, int rows);

struct PaddedInfluences {
  std::vector<uint32_t> joints;  // `influences` per vertex
  std::vector<double> weights;
};

PaddedInfluences padded_influences(const Scene& scene, int node, size_t primitive, uint32_t influences,
                                   const std::string& interface_path);

}  // namespace skinref::gpu

// Internal to skin/lbs.cc and its SIMD translation units: the per-range LBS kernels and the scalar
// helpers they share. Every kernel performs the same IEEE operations in the same order per vertex (see the
// comment at the top of skin/lbs.cc), so all of them give identical bits.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace skinref::lbs_detail {

constexpr int kBlock = 16;  // doubles per joint in the packed palette: columns c0..c3, each (x, y, z, 0)

struct KernelArgs {
  const double* positions;  // 3 per vertex
  const double* normals;    // 3 per vertex or null
  const double* tangents;   // 4 per vertex or null
  const uint32_t* joints;
  const double* weights;
  int influences;
  const double* columns;          // kBlock per joint, each joint's block 64-byte aligned (loads do not rely on it)
  const double* normal_matrices;  // 9 per joint, row-major
  size_t joint_count;
  bool blend_normal_matrices;
  double* out_positions;
  double* out_normals;
  double* out_tangents;
};

// Skins vertices [begin, end); returns `end`, or the first vertex with a joint index outside the palette.
using RangeKernel = size_t (*)(const KernelArgs&, size_t begin, size_t end);

// Kernels for an influence count and weight policy; null where this build or CPU lacks the instructions.
RangeKernel scalar_kernel(int influences, bool renormalize);
RangeKernel avx2_kernel(int influences, bool renormalize);
RangeKernel avx512_kernel(int influences, bool renormalize);

// Sums the vertex's weights in influence order; false when they sum to 0 or a joint index is out of range
// (`bad_joint` then says which). kFixed > 0: the influence count, known at compile time.
template <int kFixed>
inline bool weight_sum(const KernelArgs& a, size_t v, double* sum, bool* bad_joint) {
  const int k = kFixed > 0 ? kFixed : a.influences;
  const uint32_t* jv = a.joints + v * size_t(k);
  const double* wv = a.weights + v * size_t(k);
  double s = wv[0];
  bool bad = jv[0] >= a.joint_count;
#pragma GCC unroll 8
  for (int i = 1; i < k; ++i) {
    s += wv[i];
    bad |= jv[i] >= a.joint_count;
  }
  *sum = s;
  *bad_joint = bad;
  return !bad && s != 0.0;
}

inline void copy_bind(const KernelArgs& a, size_t v) {
  for (int e = 0; e < 3; ++e) a.out_positions[v * 3 + e] = a.positions[v * 3 + e];
  if (a.normals)
    for (int e = 0; e < 3; ++e) a.out_normals[v * 3 + e] = a.normals[v * 3 + e];
  if (a.tangents)
    for (int e = 0; e < 4; ++e) a.out_tangents[v * 4 + e] = a.tangents[v * 4 + e];
}

// v / |v| as v * (1 / sqrt((x*x + y*y) + z*z)); a zero vector stays zero.
inline void normalize3(double* v) {
  const double len = std::sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]);
  if (len > 0.0) {
    const double inv = 1.0 / len;
    v[0] *= inv;
    v[1] *= inv;
    v[2] *= inv;
  }
}

// Blended normal matrices (NormalMode::BlendedNormalMatrices): sum_i w_i N_i, then N * n, normalized.
// Scalar in every kernel.
inline void blended_normal(const KernelArgs& a, size_t v, double sum, bool renormalize, double* out) {
  const uint32_t* jv = a.joints + v * size_t(a.influences);
  const double* wv = a.weights + v * size_t(a.influences);
  double nm[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < a.influences; ++i) {
    const double w = renormalize ? wv[i] / sum : wv[i];
    const double* q = a.normal_matrices + size_t(jv[i]) * 9;
    for (int e = 0; e < 9; ++e) nm[e] += w * q[e];
  }
  const double* n = a.normals + v * 3;
  for (int r = 0; r < 3; ++r) out[r] = (nm[r * 3] * n[0] + nm[r * 3 + 1] * n[1]) + nm[r * 3 + 2] * n[2];
  normalize3(out);
}

}  // namespace skinref::lbs_detail

// Internal to skin/dqs.cc and its SIMD translation unit (skin/dqs_avx512.cc): the palette entry, the kernel
// arguments and the per-range kernels. Raw pointers only (no Eigen), so that nothing inline is compiled with
// different instruction sets in different translation units.
#pragma once

#include <cstddef>
#include <cstdint>

namespace skinref::dqs_detail {

// One palette joint, split into its non-rigid part S (row-major) and its rigid part as a unit dual quaternion
// (real and dual parts, each stored w, x, y, z). Laid out for the SIMD kernel's aligned loads: real and dual
// fill one 64-byte line, S[0..7] the next, S[8] the third.
struct alignas(64) DqJoint {
  double real[4];
  double dual[4];
  double s[9];
};
constexpr size_t kJointDoubles = sizeof(DqJoint) / sizeof(double);
static_assert(kJointDoubles == 24);

struct KernelArgs {
  const double* positions;  // 3 per vertex
  const double* normals;    // 3 per vertex or null
  const double* tangents;   // 4 per vertex or null
  const uint32_t* joints;
  const double* weights;
  int influences;
  const DqJoint* palette;
  size_t joint_count;
  bool renormalize;
  double* out_positions;
  double* out_normals;
  double* out_tangents;
};

// Skins vertices [begin, end); returns `end`, or the first vertex with a joint index outside the palette.
using RangeKernel = size_t (*)(const KernelArgs&, size_t begin, size_t end);

// The scalar kernel for an influence count (any weight policy; compile-time counts 1, 2, 4, 8).
RangeKernel scalar_kernel(int influences);
// The AVX-512 kernel, or null where this build or CPU lacks AVX-512F. Groups of 8 vertices it does not take
// (see skin/dqs_avx512.cc) go through `scalar_kernel(influences)`.
RangeKernel avx512_kernel(int influences, bool renormalize);

}  // namespace skinref::dqs_detail

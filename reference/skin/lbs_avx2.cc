// The SIMD LBS kernel for AVX2, built with -mavx2 (CMakeLists.txt) and chosen at run time only on CPUs
// that have it. -ffp-contract=off applies here too: no FMA, the scalar kernel's bits.
#if defined(__AVX2__)
#define SKINREF_SIMD_NAMESPACE avx2
#include "skin/lbs_simd.inc"

namespace skinref::lbs_detail {
RangeKernel avx2_kernel(int influences, bool renormalize) {
  return __builtin_cpu_supports("avx2") ? avx2::kernel(influences, renormalize) : nullptr;
}
}  // namespace skinref::lbs_detail
#else
#include "skin/lbs_kernels.h"
namespace skinref::lbs_detail {
RangeKernel avx2_kernel(int, bool) { return nullptr; }
}  // namespace skinref::lbs_detail
#endif

// The SIMD LBS kernel with an AVX-512 blend, built with -mavx512f (CMakeLists.txt) and chosen at run time
// only on CPUs that have it. -ffp-contract=off applies here too: no FMA, the scalar kernel's bits.
#if defined(__AVX512F__)
#define SKINREF_SIMD_NAMESPACE avx512
#include "skin/lbs_simd.inc"

namespace skinref::lbs_detail {
RangeKernel avx512_kernel(int influences, bool renormalize) {
  return __builtin_cpu_supports("avx512f") ? avx512::kernel(influences, renormalize) : nullptr;
}
}  // namespace skinref::lbs_detail
#else
#include "skin/lbs_kernels.h"
namespace skinref::lbs_detail {
RangeKernel avx512_kernel(int, bool) { return nullptr; }
}  // namespace skinref::lbs_detail
#endif

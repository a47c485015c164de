// The SIMD LBS kernel with an AVX-512 blend, built with -mavx512f (CMakeLists.txt) and chosen at run time
// only on CPUs that have it. -ffp-contract=off applies here too: no FMA, the scalar kernel's bits.
#define SKINREF_SIMD_AVX512 1
#include "skin/lbs_simd.inc"

// The SIMD LBS kernel for AVX2, built with -mavx2 (CMakeLists.txt) and chosen at run time only on CPUs
// that have it. -ffp-contract=off applies here too: no FMA, the scalar kernel's bits.
#define SKINREF_SIMD_AVX2 1
#include "skin/lbs_simd.inc"

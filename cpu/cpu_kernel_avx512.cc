// The CPU backend's kernel on 16 lanes, built with -mavx512f -mfma (CMakeLists.txt); -ffp-contract=off applies too.
#define SKINREF_CPU_AVX512 1
#include "cpu/cpu_kernel.inc"

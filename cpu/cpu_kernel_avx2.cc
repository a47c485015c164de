// The CPU backend's kernel on 8 lanes, built with -mavx2 -mfma (CMakeLists.txt); -ffp-contract=off applies too.
#define SKINREF_CPU_AVX2 1
#include "cpu/cpu_kernel.inc"

// The CPU backend's scalar kernel (one lane): the fallback on every CPU, and the bits the wider kernels are
// tested against.
#define SKINREF_CPU_SCALAR 1
#include "cpu/cpu_kernel.inc"

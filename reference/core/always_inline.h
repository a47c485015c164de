// SKINREF_ALWAYS_INLINE (before a function) and SKINREF_LAMBDA_ALWAYS_INLINE (after a lambda's parameters,
// where GCC takes only the GNU spelling): force a SIMD kernel's step into its caller, so that the step's vector
// registers stay registers in the release build (the kernels were split into named steps; their instructions
// are those of one function). Empty in the sanitizer builds: GCC's AddressSanitizer instruments every stack slot of the
// inlined whole, and compiling cpu_kernel_avx512.cc took 90 s instead of 13 s there. Inlining changes no
// result: each step's operations and their order are the same (-ffp-contract=off), only where they live.
#pragma once

#include "core/sanitizers.h"

#if defined(SKINREF_UNDER_ASAN)
#define SKINREF_ALWAYS_INLINE
#define SKINREF_LAMBDA_ALWAYS_INLINE
#endif
#ifndef SKINREF_ALWAYS_INLINE
#define SKINREF_ALWAYS_INLINE [[gnu::always_inline]]
#define SKINREF_LAMBDA_ALWAYS_INLINE __attribute__((always_inline))
#endif

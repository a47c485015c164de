// SKINREF_UNDER_ASAN: defined (as 1) when this translation unit is compiled with AddressSanitizer, by either
// compiler: GCC says so with __SANITIZE_ADDRESS__, clang with __has_feature(address_sanitizer) (clang 14 does not
// define the former). The sanitizer tree (./run test) and the fuzz tree are both such builds. Code that must
// behave differently under ASan (the address-space limit of Assimp's child, forced inlining, what a test
// expects of a child's stderr) tests this one macro.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define SKINREF_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SKINREF_UNDER_ASAN 1
#endif
#endif

namespace skinref {
#if defined(SKINREF_UNDER_ASAN)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
}  // namespace skinref

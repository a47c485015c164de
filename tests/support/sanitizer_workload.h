// How much of builtin:million a test runs in this build. Under the sanitizers (./run test's build-asan tree) a
// test takes the million-vertex scene through its code once: one time, one container, one pass. The point
// there is memory safety with buffers of that size, which a second time or view through the same code does not
// add, and each costs tens of seconds of CPU under ASan at -O1 (docs/testing.md). Every other scene runs in full there,
// and the release tree's million golden cases check the scene's bits and images at every golden time.
#pragma once

#include "core/sanitizers.h"

#include <string>

namespace skinref::test {

inline bool once_under_sanitizers(const std::string& scene_name) {
  return kUnderAddressSanitizer && scene_name == "million";
}

}  // namespace skinref::test

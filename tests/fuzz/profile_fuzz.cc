// libFuzzer target `profile`: the engine profile reader (profile/engine_profile.h), as `conformance run|report
// --profile` and `diagnose --profile` use it.
//
// Contract: the bytes are written to a per-process temp file profile.json and read with read_engine_profile();
// a profile that reads is described and written back, and the written JSON must read back to the same
// conventions and allowances (a mismatch aborts: a finding). Bound on work per input: one read and one round
// trip, linear in the input's size. Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "profile/engine_profile.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static fuzz::TempFile file("profile", ".json");
  fuzz::run_guarded([&] {
    const EngineProfile profile = read_engine_profile(file.write(data, size));
    describe_engine_profile(profile);
    const EngineProfile back = profile_from_json(nlohmann::json::parse(profile_json(profile).dump()), "round trip");
    if (back.settings != profile.settings || back.allowances.rotation != profile.allowances.rotation ||
        back.allowances.translation_scale != profile.allowances.translation_scale ||
        back.allowances.interpolation != profile.allowances.interpolation) {
      std::fprintf(stderr, "skinref fuzz: a profile does not read back as written\n");
      std::abort();
    }
  });
  return 0;
}

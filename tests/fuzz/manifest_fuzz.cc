// libFuzzer target `manifest`: the golden manifest reader (tools/golden/golden_manifest.h), as golden check
// and golden update use it.
//
// Contract: the bytes are written to a per-process temp file manifest.json in its own directory and read
// with load_golden_manifest(); for every case that loads, golden_output_stem() of each of its times and
// vulkan_image_tolerance() are computed. Bound on work per input: one read, linear in the input's size.
// Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "golden/golden_manifest.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  using namespace skinref::golden;
  static fuzz::TempFile file("manifest", ".json");
  fuzz::run_guarded([&] {
    const GoldenManifest manifest = load_golden_manifest(file.write(data, size));
    for (const GoldenCase& golden_case : manifest.cases) {
      for (double time : golden_case.times) golden_output_stem(time);
      vulkan_image_tolerance(golden_case);
    }
  });
  return 0;
}

// libFuzzer target `shader_interface`: the readers of a user's shader description (gpu/interface_json.h,
// gpu/shader_interface.h, gpu/vertex_interface.h) and the SPIR-V transform feedback patch (gpu/spirv_xfb.h),
// none of which needs a Vulkan device.
//
// Contract: the first byte selects what the rest is. Even: an interface file, written to a temporary file and
// read by interface_stage(), parse_shader_interface() and parse_vertex_interface(). Odd: SPIR-V words
// (little-endian; a trailing partial word dropped) given to add_transform_feedback() for the entry point
// "main", capturing BuiltIn Position at 0 and the outputs at locations 0 and 1 at 16 and 32, then again with
// the patched words (a patched module must patch again). Bound on work per input: linear in its size.
// Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "gpu/interface_json.h"
#include "gpu/shader_interface.h"
#include "gpu/spirv_xfb.h"
#include "gpu/vertex_interface.h"

#include <cstring>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static fuzz::TempFile file("shader_interface", ".json");
  if (size == 0) return 0;
  const bool spirv = (data[0] & 1u) != 0;
  ++data, --size;
  if (!spirv) {
    file.write(data, size);
    fuzz::run_guarded([&] { gpu::interface_stage(file.path()); });
    fuzz::run_guarded([&] { gpu::parse_shader_interface(file.path()); });
    fuzz::run_guarded([&] { gpu::parse_vertex_interface(file.path()); });
    return 0;
  }
  std::vector<uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);
  const std::vector<gpu::XfbCapture> captures{{true, 0, 0}, {false, 0, 16}, {false, 1, 32}};
  fuzz::run_guarded([&] {
    const std::vector<uint32_t> patched = gpu::add_transform_feedback(words, "main", captures, 48, "fuzz.spv");
    gpu::add_transform_feedback(patched, "main", captures, 48, "fuzz.spv");
  });
  return 0;
}

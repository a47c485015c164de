// libFuzzer target `gltf`: glTF 2.0 JSON (.gltf) and binary (.glb) bytes through the loader and the whole
// reference evaluation.
//
// Contract: the bytes go to load_gltf_memory() (io/gltf_load.h; GLB by its magic, else JSON) with external
// URIs resolved against a directory that does not exist. On a scene that loads, it evaluates the rest pose
// and the first animation at two times (0 and half its end time; anim/evaluate_pose.h), skins each pose with
// LBS and with DQS (skin/evaluate_vertices.h), and renders the rest pose's LBS vertices at 32x32 with the auto
// camera of the rest pose (raster/render.h). A scene that loads is loaded again under each of the loader's
// reading departures (accessor-addressing=packed, =view-start, sparse=ignored; io/accessor.h), which read
// other bytes of the same buffers, and its rest pose skinned with LBS. Bound on work per input: at most 3
// poses, 6 skinning passes and one 32x32 render for the scene as specified, 3 loads and 3 passes more, one
// thread; the loader's own limits bound the scene. Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "anim/evaluate_pose.h"
#include "io/gltf_load.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "skin/evaluate_vertices.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

void evaluate(const skinref::Scene& scene, const skinref::EvaluatedPose& pose, bool render) {
  using namespace skinref;
  SkinningOptions lbs;
  lbs.method = SkinningMethod::Lbs;
  SkinningOptions dqs;
  dqs.method = SkinningMethod::Dqs;
  fuzz::run_guarded([&] {
    const std::vector<WorldPrimitive> primitives = evaluate_vertices(scene, pose, lbs);
    if (render) {
      fuzz::run_guarded([&] {
        RenderOptions options;
        options.width = 32;
        options.height = 32;
        const RenderCamera camera = auto_camera(scene, -1, lbs, 1.0);
        render_scene(scene, pose, primitives, camera, options);
      });
    }
  });
  fuzz::run_guarded([&] { evaluate_vertices(scene, pose, dqs); });
}

// The same bytes as an engine with a reading departure reads them: none may read outside the buffers.
void load_as_departures(const std::string& bytes) {
  using namespace skinref;
  for (int departure = 0; departure < 3; ++departure) {
    LoadConventions reading;
    if (departure == 0) reading.accessor_addressing = AccessorAddressing::Packed;
    if (departure == 1) reading.accessor_addressing = AccessorAddressing::ViewStart;
    if (departure == 2) reading.sparse = SparseAccessors::Ignored;
    fuzz::run_guarded([&] {
      const Scene scene = load_gltf_memory(bytes, "fuzz.gltf", "/nonexistent/skinref-fuzz", reading);
      fuzz::run_guarded([&] { evaluate_vertices(scene, evaluate_pose(scene, -1, 0.0), SkinningOptions{}); });
    });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::run_guarded([&] {
    const Scene scene = load_gltf_memory(bytes, "fuzz.gltf", "/nonexistent/skinref-fuzz");
    fuzz::run_guarded([&] { evaluate(scene, evaluate_pose(scene, -1, 0.0), true); });
    if (!scene.animations.empty()) {
      const double end = scene.animations[0].end_time;
      for (double time : {0.0, std::isfinite(end) ? 0.5 * end : 0.0}) {
        fuzz::run_guarded([&] { evaluate(scene, evaluate_pose(scene, 0, time), false); });
      }
    }
    load_as_departures(bytes);
  });
  return 0;
}

// Rendering throughput: BM_Render/<model>/<W>x<H>/<renderer> for builtin:million (2,000,000 triangles) and
// CesiumMan from the corpus (when present; skipped with the path otherwise), at 512x512 and 1920x1080, shaded
// view, the same scene, pose, skinned vertices and auto camera for every renderer; items/s = frames/s.
// - reference_1t, reference_all: render_scene() (clip transform, rasterization with Vulkan's rules, shading,
//   sRGB encoding) on one thread and on every hardware thread.
// - vulkan: gpu_render() end to end (bench_vulkan.h); only registered when the Vulkan path is built.
// The scene, its skinned vertices (reference, animation 0 at its mid time) and the cameras are computed once,
// outside the timed loops, and kept for the process. Wall-clock time: with several threads (or a device) the
// work happens outside the calling thread.
#include "anim/evaluate_pose.h"
#include "backend/backend.h"
#include "bench/bench_common.h"
#include "core/scene.h"
#include "io/builtin_scenes.h"
#include "io/load_model.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "skin/evaluate_vertices.h"
#if SKINREF_HAVE_VULKAN
#include "bench/bench_vulkan.h"
#endif

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#ifndef SKINREF_CORPUS_DIR
#error "SKINREF_CORPUS_DIR must be defined by the build (see CMakeLists.txt)"
#endif

namespace skinref::bench {
namespace {

// A posed scene ready to draw: everything the renderers need but the camera.
struct RenderFixture {
  std::string label;
  Scene scene;
  EvaluatedPose pose;  // the pose the primitives were skinned at (the renderers' winding per node)
  std::vector<WorldPrimitive> primitives;
  int animation = -1;
  size_t triangles = 0;
  std::map<std::pair<int, int>, RenderCamera> cameras;  // auto camera per image size (its aspect)
};

std::string corpus_dir() {
  if (const char* env = std::getenv("SKINREF_CORPUS_DIR"); env != nullptr && *env != '\0') return env;
  return SKINREF_CORPUS_DIR;
}

std::unique_ptr<RenderFixture> make_fixture(const std::string& label, Scene scene) {
  auto fixture = std::make_unique<RenderFixture>();
  fixture->label = label;
  fixture->scene = std::move(scene);
  fixture->animation = fixture->scene.animations.empty() ? -1 : 0;
  const double time = fixture->animation < 0 ? 0.0 : 0.5 * fixture->scene.animations[0].end_time;
  fixture->pose = evaluate_pose(fixture->scene, fixture->animation, time);
  fixture->primitives = evaluate_vertices(fixture->scene, fixture->pose, {});
  for (const WorldPrimitive& drawn : fixture->primitives) {
    const Primitive& primitive = fixture->scene.meshes[drawn.mesh].primitives[drawn.primitive];
    if (primitive.topology == Topology::Triangles) fixture->triangles += primitive.indices.size() / 3;
  }
  return fixture;
}

RenderFixture* million_fixture() {
  static const std::unique_ptr<RenderFixture> fixture = make_fixture("builtin:million", make_builtin_scene("million"));
  return fixture.get();
}

const std::string& cesium_man_path() {
  static const std::string path =
      (std::filesystem::path(corpus_dir()) / "glTF-Sample-Assets/CesiumMan/glTF-Binary/CesiumMan.glb").string();
  return path;
}

// Null when the corpus is absent.
RenderFixture* cesium_man_fixture() {
  static const std::unique_ptr<RenderFixture> fixture =
      std::filesystem::is_regular_file(cesium_man_path()) ? make_fixture("CesiumMan", load_model(cesium_man_path()))
                                                          : nullptr;
  return fixture.get();
}

enum class Model { Million, CesiumMan };
enum class Renderer { Reference1t, ReferenceAll, Vulkan };

void run_render(benchmark::State& state, Model model, int width, int height, Renderer renderer) {
  RenderFixture* fixture = nullptr;
  try {
    fixture = model == Model::Million ? million_fixture() : cesium_man_fixture();
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  if (fixture == nullptr) {
    static const std::string message =
        "corpus model not found at " + cesium_man_path() + ": set SKINREF_CORPUS_DIR (CMake cache or environment)";
    state.SkipWithError(message.c_str());
    return;
  }
  auto camera = fixture->cameras.find({width, height});
  if (camera == fixture->cameras.end()) {
    const double aspect = static_cast<double>(width) / height;
    camera = fixture->cameras.emplace(std::make_pair(width, height),
                                      auto_camera(fixture->scene, fixture->animation, {}, aspect)).first;
  }
  RenderOptions options;
  options.width = width;
  options.height = height;
  options.view = RenderView::Shaded;
  options.threads = renderer == Renderer::ReferenceAll ? all_threads() : 1;
  const std::string what = fixture->label + " triangles=" + std::to_string(fixture->triangles) + " " +
                           std::to_string(width) + "x" + std::to_string(height);
  // The same frame through the Backend interface: the reference rasterizer, or Vulkan end to end (vertex
  // upload, pipelines, draw, readback of the image).
  static const std::unique_ptr<Backend> reference = make_backend(BackendKind::Reference);
  Backend* backend = reference.get();
  std::string where = "reference threads=" + std::to_string(options.threads);
  if (renderer == Renderer::Vulkan) {
#if SKINREF_HAVE_VULKAN
    std::string device;
    backend = bench_vulkan_backend(state, &device);
    if (backend == nullptr) return;
    where = "vulkan, end to end; " + device;
#else
    state.SkipWithError("the Vulkan path was not built");
    return;
#endif
  }
  for (auto _ : state) {
    try {
      RenderResult result = backend->render(fixture->scene, fixture->pose, fixture->primitives, camera->second, options);
      benchmark::DoNotOptimize(result.image.pixels.data());
      benchmark::ClobberMemory();
    } catch (const std::exception& error) {
      state.SkipWithError(error.what());
      break;
    }
  }
  if (state.error_occurred()) return;
  state.SetItemsProcessed(state.iterations());  // items/s = frames/s
  state.SetLabel("frames; " + what + " " + where);
}

}  // namespace

void register_render_benchmarks() {
  std::vector<std::pair<Renderer, const char*>> renderers = {{Renderer::Reference1t, "reference_1t"},
                                                             {Renderer::ReferenceAll, "reference_all"}};
#if SKINREF_HAVE_VULKAN
  renderers.emplace_back(Renderer::Vulkan, "vulkan");
#endif
  const std::pair<Model, const char*> models[] = {{Model::Million, "million"}, {Model::CesiumMan, "CesiumMan"}};
  const std::pair<int, int> sizes[] = {{512, 512}, {1920, 1080}};
  for (const auto& [model, model_name] : models) {
    for (const auto& [width, height] : sizes) {
      for (const auto& [renderer, renderer_name] : renderers) {
        const std::string name = std::string("BM_Render/") + model_name + "/" + std::to_string(width) + "x" +
                                 std::to_string(height) + "/" + renderer_name;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [model = model, width = width, height = height,
                                      renderer = renderer](benchmark::State& state) {
                                       run_render(state, model, width, height, renderer);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
}

}  // namespace skinref::bench

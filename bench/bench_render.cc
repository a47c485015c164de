// Throughput of the reference renderer: render_scene (clip transform, rasterization with Vulkan's rules,
// shading, sRGB encoding) of builtin:million and of CesiumMan from the corpus, shaded view, at 512x512 and
// 1920x1080, on one thread and on every hardware thread; frames/s. The scene, its skinned vertices (animation
// 0 at its mid time) and the auto camera are computed once, outside the timed loop.
#include "builtin_scenes.h"
#include "camera.h"
#include "evaluate.h"
#include "gltf_load.h"
#include "render.h"
#include "scene.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#ifndef SKINREF_CORPUS_DIR
#error "SKINREF_CORPUS_DIR must be defined by the build (see CMakeLists.txt)"
#endif

namespace skinref {
namespace {

// A posed scene ready to draw: everything render_scene needs but the camera.
struct RenderFixture {
  std::string label;
  Scene scene;
  EvaluatedPose pose;  // the pose the primitives were skinned at (render_scene's winding per node)
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

// Built on first use (outside any timed loop) and kept for the process; null when the model is absent.
RenderFixture* million_fixture() {
  static const std::unique_ptr<RenderFixture> fixture = make_fixture("builtin:million", make_builtin_scene("million"));
  return fixture.get();
}

const std::string& cesium_man_path() {
  static const std::string path =
      (std::filesystem::path(corpus_dir()) / "glTF-Sample-Assets/CesiumMan/glTF-Binary/CesiumMan.glb").string();
  return path;
}

RenderFixture* cesium_man_fixture() {
  static const std::unique_ptr<RenderFixture> fixture =
      std::filesystem::is_regular_file(cesium_man_path()) ? make_fixture("CesiumMan", load_model(cesium_man_path()))
                                                          : nullptr;
  return fixture.get();
}

enum class Model { Million, CesiumMan };

void run_render(benchmark::State& state, Model model, int width, int height, int threads) {
  RenderFixture* fixture = nullptr;
  try {
    fixture = model == Model::Million ? million_fixture() : cesium_man_fixture();
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  if (fixture == nullptr) {
    state.SkipWithError(("corpus model not found at " + cesium_man_path() +
                         ": set SKINREF_CORPUS_DIR (CMake cache or environment)").c_str());
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
  options.threads = threads;
  for (auto _ : state) {
    RenderResult result =
        render_scene(fixture->scene, fixture->pose, fixture->primitives, camera->second, options);
    benchmark::DoNotOptimize(result.image.pixels.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());  // items/s = frames/s
  state.SetLabel("frames; " + fixture->label + " triangles=" + std::to_string(fixture->triangles) + " " +
                 std::to_string(width) + "x" + std::to_string(height) + " threads=" + std::to_string(threads));
}

// BM_Render/<model>/<width>x<height>/threads:<n>, registered during static initialisation like BENCHMARK().
// Wall-clock time: with several threads the work happens on worker threads.
bool register_render_benchmarks() {
  const int all_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<int> thread_counts = {1};
  if (all_threads > 1) thread_counts.push_back(all_threads);
  const std::pair<Model, const char*> models[] = {{Model::Million, "million"}, {Model::CesiumMan, "CesiumMan"}};
  const std::pair<int, int> sizes[] = {{512, 512}, {1920, 1080}};
  for (const auto& [model, model_name] : models) {
    for (const auto& [width, height] : sizes) {
      for (const int threads : thread_counts) {
        const std::string name = std::string("BM_Render/") + model_name + "/" + std::to_string(width) + "x" +
                                 std::to_string(height) + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(),
                                     [model, width, height, threads](benchmark::State& state) {
                                       run_render(state, model, width, height, threads);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
  return true;
}

[[maybe_unused]] const bool kRenderBenchmarksRegistered = register_render_benchmarks();

}  // namespace
}  // namespace skinref

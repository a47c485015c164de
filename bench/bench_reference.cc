// Throughput of the double-precision reference: LBS of builtin:million's skinned primitive (vertices/s, one
// thread and all hardware threads), DQS of the same (one thread), full pose evaluation (sampling +
// local-to-model + palette) of builtin:chain64 (poses/s), and sample + 50/50 blend + local-to-model of two
// clips on hand-built chains (poses/s). Scenes are built once, outside the timed loops.
#include "blending.h"
#include "builtin_scenes.h"
#include "evaluate.h"
#include "local_to_model.h"
#include "pose.h"
#include "sampling.h"
#include "scene.h"
#include "skinning_dqs.h"
#include "skinning_lbs.h"
#include "time_mapping.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace skinref {
namespace {

// builtin:million posed at t = 0.5, and where its largest skinned primitive is (indices, so that the struct
// can be moved freely).
struct SkinnedFixture {
  Scene scene;
  EvaluatedPose pose;
  int mesh = -1;
  int primitive = -1;
  int skin = -1;
};

SkinnedFixture make_million_fixture() {
  SkinnedFixture fixture;
  fixture.scene = make_builtin_scene("million");
  fixture.pose = evaluate_pose(fixture.scene, fixture.scene.animations.empty() ? -1 : 0, 0.5);
  size_t largest = 0;
  for (const Node& node : fixture.scene.nodes) {
    if (node.mesh < 0 || node.skin < 0) continue;
    const std::vector<Primitive>& primitives = fixture.scene.meshes[node.mesh].primitives;
    for (size_t p = 0; p < primitives.size(); ++p) {
      if (primitives[p].influences_per_vertex == 0 || primitives[p].vertex_count() <= largest) continue;
      largest = primitives[p].vertex_count();
      fixture.mesh = node.mesh;
      fixture.primitive = static_cast<int>(p);
      fixture.skin = node.skin;
    }
  }
  return fixture;
}

// Built on first use (outside any timed loop) and kept for the process.
const SkinnedFixture& million_fixture() {
  static const SkinnedFixture fixture = make_million_fixture();
  return fixture;
}

const Scene& chain64_scene() {
  static const Scene scene = make_builtin_scene("chain64");
  return scene;
}

// The skinning input of builtin:million's skinned primitive, its first `vertex_limit` vertices (0: all), posed
// at t = 0.5; nullopt, with the benchmark skipped and the reason given, when there is none.
struct MillionInput {
  const Primitive* primitive = nullptr;
  size_t vertices = 0;
  SkinningInput input;
};

std::optional<MillionInput> million_input(benchmark::State& state, size_t vertex_limit) {
  const SkinnedFixture* fixture = nullptr;
  try {
    fixture = &million_fixture();
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return std::nullopt;
  }
  if (fixture->primitive < 0) {
    state.SkipWithError("builtin:million has no skinned primitive");
    return std::nullopt;
  }
  MillionInput million;
  million.primitive = &fixture->scene.meshes[fixture->mesh].primitives[fixture->primitive];
  const Primitive& primitive = *million.primitive;
  million.vertices = vertex_limit == 0 ? primitive.vertex_count() : std::min(vertex_limit, primitive.vertex_count());
  const size_t influences = million.vertices * static_cast<size_t>(primitive.influences_per_vertex);
  SkinningInput& input = million.input;
  input.positions = std::span<const Vec3>(primitive.positions).first(million.vertices);
  if (!primitive.normals.empty()) input.normals = std::span<const Vec3>(primitive.normals).first(million.vertices);
  input.influences_per_vertex = primitive.influences_per_vertex;
  input.joints = std::span<const uint32_t>(primitive.joints).first(influences);
  input.weights = std::span<const double>(primitive.weights).first(influences);
  input.palette = &fixture->pose.palettes[fixture->skin];
  return million;
}

// Skins the first `vertex_limit` vertices (0: all) of builtin:million's skinned primitive per iteration.
void run_lbs(benchmark::State& state, int threads, size_t vertex_limit, SkinningKernel kernel) {
  const std::optional<MillionInput> million = million_input(state, vertex_limit);
  if (!million) return;
  const Primitive& primitive = *million->primitive;
  const size_t vertices = million->vertices;
  const SkinningInput& input = million->input;
  SkinningOptions options;
  options.threads = threads;
  options.kernel = kernel;
  if (!skinning_kernel_available(kernel)) {
    state.SkipWithError("kernel not available on this CPU");
    return;
  }

  // Allocated once: skin_lbs resizes to the same size on every later iteration, which costs nothing.
  SkinnedVertices output;
  for (auto _ : state) {
    skin_lbs(input, options, output);
    benchmark::DoNotOptimize(output.positions.data());
    benchmark::DoNotOptimize(output.normals.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(vertices));
  state.SetLabel(std::string(skinning_kernel_name(kernel)) +
                 " vertices=" + std::to_string(vertices) +
                 " influences=" + std::to_string(primitive.influences_per_vertex) +
                 " threads=" + std::to_string(threads));
}

void BM_ReferenceLbs_Million(benchmark::State& state) { run_lbs(state, 1, 0, SkinningKernel::Auto); }
BENCHMARK(BM_ReferenceLbs_Million)->Unit(benchmark::kMillisecond)->UseRealTime();

// Each kernel alone (they give identical bits): what CPUs without AVX-512 or AVX2 run.
void BM_ReferenceLbs_Million_Avx2(benchmark::State& state) { run_lbs(state, 1, 0, SkinningKernel::Avx2); }
BENCHMARK(BM_ReferenceLbs_Million_Avx2)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_ReferenceLbs_Million_Scalar(benchmark::State& state) { run_lbs(state, 1, 0, SkinningKernel::Scalar); }
BENCHMARK(BM_ReferenceLbs_Million_Scalar)->Unit(benchmark::kMillisecond)->UseRealTime();

// The first 16,384 vertices only (about 2.4 MB of inputs and outputs, resident in L2/L3): the kernel's
// arithmetic throughput without main-memory traffic, to tell compute limits from bandwidth limits.
void BM_ReferenceLbs_CacheResident(benchmark::State& state) { run_lbs(state, 1, 16384, SkinningKernel::Auto); }
BENCHMARK(BM_ReferenceLbs_CacheResident)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Wall-clock time: the threaded variant's work happens on worker threads, which the main thread's CPU time
// would not count.
void BM_ReferenceLbs_Million_AllThreads(benchmark::State& state) {
  run_lbs(state, std::max(1, static_cast<int>(std::thread::hardware_concurrency())), 0, SkinningKernel::Auto);
}
BENCHMARK(BM_ReferenceLbs_Million_AllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();

// DQS of the same primitive (one scalar kernel; the per-joint polar decompositions run once per call, inside
// the timed loop, as in every real use).
void BM_ReferenceDqs_Million(benchmark::State& state) {
  const std::optional<MillionInput> million = million_input(state, 0);
  if (!million) return;
  const Primitive& primitive = *million->primitive;
  const SkinningInput& input = million->input;
  SkinningOptions options;
  options.method = SkinningMethod::Dqs;
  options.threads = 1;
  SkinnedVertices output;
  for (auto _ : state) {
    skin_dqs(input, options, output);
    benchmark::DoNotOptimize(output.positions.data());
    benchmark::DoNotOptimize(output.normals.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(primitive.vertex_count()));
  state.SetLabel("dqs vertices=" + std::to_string(primitive.vertex_count()) +
                 " influences=" + std::to_string(primitive.influences_per_vertex) + " threads=1");
}
BENCHMARK(BM_ReferenceDqs_Million)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_EvaluatePose_Chain64(benchmark::State& state) {
  const Scene* scene = nullptr;
  try {
    scene = &chain64_scene();
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  if (scene->animations.empty()) {
    state.SkipWithError("builtin:chain64 has no animation");
    return;
  }
  // Times step deterministically through the clip so that every key interval gets sampled.
  constexpr int kTimeSteps = 64;
  const double duration = scene->animations[0].end_time;
  int64_t step = 0;
  for (auto _ : state) {
    const double time = duration * static_cast<double>(step % kTimeSteps) / kTimeSteps;
    EvaluatedPose pose = evaluate_pose(*scene, 0, time);
    benchmark::DoNotOptimize(pose.palettes.data());
    benchmark::ClobberMemory();
    ++step;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("poses; nodes=" + std::to_string(scene->nodes.size()));
}

BENCHMARK(BM_EvaluatePose_Chain64)->Unit(benchmark::kMicrosecond);

// A chain of `joints` nodes (each 0.1 along its parent's y) with two looping clips of different lengths:
// LINEAR rotation channels on every joint, 4 keys over 1 s and 5 keys over 1.6 s, angles from fixed formulas.
Scene blend_chain_scene(int joints) {
  Scene scene;
  scene.source = "bench:blend-chain" + std::to_string(joints);
  for (int j = 0; j < joints; ++j) {
    Node node;
    node.name = "joint" + std::to_string(j);
    node.rest.translation = Vec3(0.0, 0.1, 0.0);
    if (j + 1 < joints) node.children = {j + 1};
    scene.nodes.push_back(node);
  }
  scene.roots = {0};
  const auto add_clip = [&](const char* name, int keys, double duration, double axis_twist) {
    Animation animation;
    animation.name = name;
    for (int j = 0; j < joints; ++j) {
      AnimationSampler sampler;
      sampler.interpolation = Interpolation::Linear;
      sampler.components = 4;
      const Vec3 axis = Vec3(std::sin(axis_twist * j), 1.0, std::cos(axis_twist * j)).normalized();
      for (int k = 0; k < keys; ++k) {
        sampler.times.push_back(duration * k / (keys - 1));
        const Quat q(Eigen::AngleAxisd(0.6 * std::sin(0.7 * k + 0.11 * j), axis));
        const auto xyzw = quat_to_xyzw(q);
        sampler.values.insert(sampler.values.end(), xyzw.begin(), xyzw.end());
      }
      animation.samplers.push_back(std::move(sampler));
      animation.channels.push_back(AnimationChannel{j, j, ChannelPath::Rotation});
    }
    animation.end_time = duration;
    scene.animations.push_back(std::move(animation));
  };
  add_clip("sway", 4, 1.0, 0.3);
  add_clip("twist", 5, 1.6, 0.17);
  finalize_scene(scene);
  return scene;
}

// Per iteration: both clips sampled (looping, at a global time stepping by a fixed increment), blended
// 50/50 and taken to model space. Poses and the rest pose are allocated once; each iteration copies the
// prepared rest pose into the clip poses (same sizes, so no allocation there).
void BM_SampleBlendLocalToModel(benchmark::State& state) {
  const int joints = static_cast<int>(state.range(0));
  const Scene scene = blend_chain_scene(joints);
  const LocalPose rest = rest_pose(scene);
  LocalPose sway = rest, twist = rest;
  Playback sway_playback, twist_playback;
  sway_playback.animation = 0;
  sway_playback.mode = PlaybackMode::Loop;
  twist_playback.animation = 1;
  twist_playback.mode = PlaybackMode::Loop;
  const BlendLayer layers[2] = {{&sway, 0.5, {}}, {&twist, 0.5, {}}};
  int64_t step = 0;
  for (auto _ : state) {
    const double tau = 0.0137 * static_cast<double>(step % 1000);
    sway = rest;
    twist = rest;
    sample_animation(scene, 0, clip_local_time(sway_playback, scene.animations[0].end_time, tau), sway);
    sample_animation(scene, 1, clip_local_time(twist_playback, scene.animations[1].end_time, tau), twist);
    const LocalPose blended = blend_poses(layers, rest);
    const ModelPose model = local_to_model(scene, blended);
    benchmark::DoNotOptimize(model.global.data());
    benchmark::ClobberMemory();
    ++step;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("poses; joints=" + std::to_string(joints));
}

BENCHMARK(BM_SampleBlendLocalToModel)->Arg(64)->Arg(200)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace skinref

BENCHMARK_MAIN();

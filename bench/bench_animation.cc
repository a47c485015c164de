// Pose evaluation throughput, one thread, on make_animation_bench_scene(N) for N in 64, 200, 1000 (a branching
// tree, two looping clips; bench_scenes.h):
// - BM_AnimationClip/joints:<N>: one clip sampled onto the rest pose and taken to model space, what an
//   animation library's sampling job followed by its local-to-model job does (ozz-animation's figures are of
//   this kind).
// - BM_Animation/joints:<N>: both clips sampled, blended 50/50 and taken to model space.
// The global time steps by a fixed increment (looping), so that every key interval gets sampled; items/s =
// poses/s. The scene is built and the poses allocated outside the timed loop, and reused from one iteration to
// the next, as an engine reuses its buffers. The single clip samples onto the same pose every time: the
// properties it animates are overwritten and the others keep their rest values, so it starts from a copy of
// the rest pose made once. The blend copies the rest pose into both clip poses each time (same sizes, no
// allocation), since blend_poses reads every property of both.
//
// The machine's limit for BM_AnimationClip (counter pose_limit/s, and fraction_of_limit = poses/s over it):
// the bytes one pose touches at the least, over the one-thread copy bandwidth measured in the same run
// (BM_Copy/cpu_1t, read + write bytes). Bytes per pose: per animated channel two keys of its value and their
// two times (LINEAR: the interval's ends), per node the local transform written (translation, rotation, scale:
// 10 doubles) and read back, its parent's global matrix read and its own written (16 doubles each). The
// working set of a 64-joint pose (about 40 KB) stays in L2, so a fraction above 1 is possible: the figure
// says how far the implementation is from moving its bytes at memory speed, not from the core's peak.
#include "anim/blending.h"
#include "anim/local_to_model.h"
#include "anim/sampling.h"
#include "anim/time_mapping.h"
#include "bench/bench_common.h"
#include "bench/bench_scenes.h"
#include "core/pose.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <exception>
#include <string>

namespace skinref::bench {
namespace {

// Bytes one pose of animation `clip` touches at the least (the comment at the top).
double bytes_per_pose(const Scene& scene, int clip) {
  const Animation& animation = scene.animations[size_t(clip)];
  double bytes = 0.0;
  for (const AnimationChannel& channel : animation.channels) {
    const AnimationSampler& sampler = animation.samplers[size_t(channel.sampler)];
    bytes += 2.0 * (double(sampler.components) + 1.0) * sizeof(double);
  }
  const double local = 10.0 * sizeof(double), global = 16.0 * sizeof(double);
  bytes += double(scene.nodes.size()) * (2.0 * local + 2.0 * global);
  return bytes;
}

void run_animation_clip(benchmark::State& state, int joints) {
  const Scene scene = make_animation_bench_scene(joints);
  const LocalPose rest = rest_pose(scene);
  LocalPose sway = rest;
  Playback playback;
  playback.animation = 0;
  playback.mode = PlaybackMode::Loop;
  double copy_bandwidth = 0.0;
  try {
    copy_bandwidth = cpu_copy_bytes_per_second(1);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  ModelPose model;
  int64_t step = 0;
  for (auto _ : state) {
    const double tau = 0.0137 * static_cast<double>(step % 1000);
    sample_animation(scene, 0, clip_local_time(playback, scene.animations[0].end_time, tau), sway);
    local_to_model(scene, sway, model);
    benchmark::DoNotOptimize(model.global.data());
    benchmark::ClobberMemory();
    ++step;
  }
  state.SetItemsProcessed(state.iterations());
  const double bytes = bytes_per_pose(scene, 0);
  state.counters["bytes_per_pose"] = bytes;
  state.counters["pose_limit/s"] = copy_bandwidth / bytes;
  state.counters["fraction_of_limit"] =
      benchmark::Counter(bytes / copy_bandwidth, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("poses; sample 1 clip + local to model, joints=" + std::to_string(joints));
}

void run_animation(benchmark::State& state, int joints) {
  const Scene scene = make_animation_bench_scene(joints);
  const LocalPose rest = rest_pose(scene);
  LocalPose sway = rest, twist = rest;
  Playback sway_playback, twist_playback;
  sway_playback.animation = 0;
  sway_playback.mode = PlaybackMode::Loop;
  twist_playback.animation = 1;
  twist_playback.mode = PlaybackMode::Loop;
  const BlendLayer layers[2] = {{&sway, 0.5, {}}, {&twist, 0.5, {}}};
  ModelPose model;
  int64_t step = 0;
  for (auto _ : state) {
    const double tau = 0.0137 * static_cast<double>(step % 1000);
    sway = rest;
    twist = rest;
    sample_animation(scene, 0, clip_local_time(sway_playback, scene.animations[0].end_time, tau), sway);
    sample_animation(scene, 1, clip_local_time(twist_playback, scene.animations[1].end_time, tau), twist);
    const LocalPose blended = blend_poses(layers, rest);
    local_to_model(scene, blended, model);
    benchmark::DoNotOptimize(model.global.data());
    benchmark::ClobberMemory();
    ++step;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("poses; sample 2 clips + blend + local to model, joints=" + std::to_string(joints));
}

}  // namespace

void register_animation_benchmarks() {
  for (const int joints : {64, 200, 1000}) {
    benchmark::RegisterBenchmark(("BM_AnimationClip/joints:" + std::to_string(joints)).c_str(),
                                 [joints](benchmark::State& state) { run_animation_clip(state, joints); })
        ->Unit(benchmark::kMicrosecond);
  }
  for (const int joints : {64, 200, 1000}) {
    benchmark::RegisterBenchmark(("BM_Animation/joints:" + std::to_string(joints)).c_str(),
                                 [joints](benchmark::State& state) { run_animation(state, joints); })
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace skinref::bench

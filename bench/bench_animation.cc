// Pose evaluation throughput: BM_Animation/joints:<N> for N in 64, 200, 1000, on
// make_animation_bench_scene(N) (a branching tree, two looping clips; bench_scenes.h), one thread.
// Per iteration: both clips sampled onto the rest pose (looping, at a global time stepping by a fixed
// increment, so that every key interval gets sampled), blended 50/50 and taken to model space; items/s =
// poses/s. The scene is built and the poses allocated outside the timed loop; each iteration copies the
// prepared rest pose into the clip poses (same sizes, no allocation there), as an engine reuses its buffers.
#include "anim/blending.h"
#include "anim/local_to_model.h"
#include "anim/sampling.h"
#include "anim/time_mapping.h"
#include "bench/bench_common.h"
#include "bench/bench_scenes.h"
#include "core/pose.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace skinref::bench {
namespace {

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
  state.SetLabel("poses; sample 2 clips + blend + local to model, joints=" + std::to_string(joints));
}

}  // namespace

void register_animation_benchmarks() {
  for (const int joints : {64, 200, 1000}) {
    benchmark::RegisterBenchmark(("BM_Animation/joints:" + std::to_string(joints)).c_str(),
                                 [joints](benchmark::State& state) { run_animation(state, joints); })
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace skinref::bench

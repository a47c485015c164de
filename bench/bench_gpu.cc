// Throughput of GPU compute skinning (gpu/skinning_gpu.h) against the device's own copy bandwidth.
//
// BM_GpuCopy: one vkCmdCopyBuffer between two device-local buffers (1 GiB, less where the largest
// device-local heap / 8 or maxMemoryAllocationSize is smaller: 256 MiB on lavapipe's 2 GiB heap), timed by
// timestamp queries around the copy. bytes/s counts the read and the write (2 x size): the memory traffic a
// streaming kernel can hope for on this device. The highest value measured in this process is kept for
// BM_GpuSkin (measured there, once, outside the timed loop, when BM_GpuCopy is filtered out).
//
// BM_GpuSkin/dqs:{0,1}/copies:{1,16}: gpu_evaluate_vertices() on builtin:million (1,001,000 vertices, 4
// influences, positions + normals; copies:1) and on the same skinned primitive's vertex arrays replicated 16
// times into one primitive (16,016,000 vertices; copies:16), LBS (dqs:0) or DQS (dqs:1), posed at t = 0.5.
// - The benchmark time is the device time (UseManualTime, GpuTiming::device_ms: timestamps around the
//   skinning dispatches only), so vertices/s and bytes/s say what the shader achieves.
// - e2e_vertices/s uses GpuTiming::end_to_end_ms instead: conversion to float32, buffer creation, upload,
//   dispatch, readback and conversion back to doubles (pipeline creation excluded, as the function documents).
//   On a discrete GPU this is dominated by host work and PCIe transfers, hence the two figures.
// - bytes/s models the traffic skin.comp must have per vertex: vec4 position, normal (and tangent) in, uint
//   joint and float weight per influence in, vec4 position, normal (and tangent) out; for builtin:million
//   16 + 16 + 4 x 4 + 4 x 4 + 16 + 16 = 96 bytes. Palette reads (32 joints, cache-resident) are not counted.
//   fraction_of_copy = bytes/s / BM_GpuCopy's bytes/s (the aim on an H200: >= 0.7 at 16M+ vertices).
// - Fixed iteration counts: each iteration also costs the end-to-end time, 10^3 to 10^4 times the device
//   time on a fast GPU, so a minimum time counted in device time would run for a very long time.
// - copies:16 needs several GB of host memory and seconds per iteration on a CPU device (lavapipe): skipped
//   there unless SKINREF_BENCH_LARGE=1. lavapipe's maxStorageBufferRange (128 MiB) is below the 256 MB each
//   16M array needs, so there gpu_evaluate_vertices refuses it and the case is skipped with that message.
//
// One Vulkan context for the process, created on first use, without validation (the layer costs time per
// call; tests/gpu_*_test.cc run the same code with it). SKINREF_BENCH_DEVICE selects the device as
// ContextOptions::device does (index or name substring). Scenes are built on first use, outside the timed
// loops, and kept, so that filtering a benchmark out does not pay for its scene. The device's name is each
// benchmark's label (BENCHMARK_MAIN is in bench_reference.cc, so no custom context is added before the run).
#include "builtin_scenes.h"
#include "context.h"
#include "evaluate.h"
#include "scene.h"
#include "skinning_gpu.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
namespace {

using gpu::Context;

// ---- the context ---------------------------------------------------------------------------------------------

struct ContextSlot {
  bool tried = false;
  std::unique_ptr<Context> context;
  std::string error;
};

// The process's context, or null with the benchmark skipped and the reason given (no driver, unknown device,
// no timestamps). Creation is attempted once.
Context* bench_context(benchmark::State& state) {
  static ContextSlot slot;
  if (!slot.tried) {
    slot.tried = true;
    try {
      gpu::ContextOptions options;
      options.validate = false;
      if (const char* device = std::getenv("SKINREF_BENCH_DEVICE"); device != nullptr && *device != '\0')
        options.device = device;
      slot.context = std::make_unique<Context>(options);
    } catch (const std::exception& error) {
      slot.error = std::string("no Vulkan context: ") + error.what();
    }
  }
  if (!slot.context) {
    state.SkipWithError(slot.error.c_str());
    return nullptr;
  }
  if (!slot.context->timestamps_supported()) {
    static const std::string message = "device '" + slot.context->info().name +
                                       "' has no timestamp queries on its queue (timestampComputeAndGraphics / "
                                       "timestampPeriod), so device time cannot be measured";
    state.SkipWithError(message.c_str());
    return nullptr;
  }
  return slot.context.get();
}

std::string device_label(const Context& context) {
  return "device=" + context.info().name + " [" + context.info().type + "]";
}

// Device time in ms between two timestamps of the context's queue family (taken modulo 2^timestampValidBits).
double timestamp_interval_ms(const Context& context, const uint64_t stamps[2]) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical_device(), &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical_device(), &count, families.data());
  const uint32_t bits = families.at(context.queue_family()).timestampValidBits;
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return double((stamps[1] - stamps[0]) & mask) * context.timestamp_period_ns() * 1e-6;
}

// ---- device copy bandwidth -----------------------------------------------------------------------------------

constexpr VkDeviceSize kMiB = VkDeviceSize{1} << 20;
constexpr VkDeviceSize kMaxCopySize = 1024 * kMiB;

// 1 GiB, or less: an eighth of the largest device-local heap (two such buffers must fit next to whatever else
// the process holds) and at most maxMemoryAllocationSize; whole MiB.
VkDeviceSize copy_size(const Context& context) {
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(context.physical_device(), &memory);
  VkDeviceSize heap = 0;
  for (uint32_t h = 0; h < memory.memoryHeapCount; ++h)
    if ((memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0)
      heap = std::max(heap, memory.memoryHeaps[h].size);
  VkPhysicalDeviceMaintenance3Properties maintenance3{};
  maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  VkPhysicalDeviceProperties2 properties{};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties.pNext = &maintenance3;
  vkGetPhysicalDeviceProperties2(context.physical_device(), &properties);
  VkDeviceSize size = std::min({kMaxCopySize, heap / 8, VkDeviceSize(maintenance3.maxMemoryAllocationSize)});
  size = size / kMiB * kMiB;
  if (size == 0) throw std::runtime_error("the device has no device-local heap of at least 8 MiB to copy within");
  return size;
}

// Two device-local buffers (filled once, so that no first touch is timed) and a timestamp query pool; copy_ms()
// times one copy of the whole source into the destination.
class CopyRig {
 public:
  explicit CopyRig(Context& context) : context_(context), size_(copy_size(context)) {
    try {
      source_ = context.create_buffer(size_, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                      false);
      destination_ = context.create_buffer(size_, VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
      VkQueryPoolCreateInfo info{};
      info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
      info.queryType = VK_QUERY_TYPE_TIMESTAMP;
      info.queryCount = 2;
      VK_CHECK(vkCreateQueryPool(context.device(), &info, nullptr, &queries_));
      context.submit_and_wait([&](VkCommandBuffer cmd) {
        vkCmdFillBuffer(cmd, source_.buffer, 0, VK_WHOLE_SIZE, 0x3F800000u);  // 1.0f
        vkCmdFillBuffer(cmd, destination_.buffer, 0, VK_WHOLE_SIZE, 0u);
      });
    } catch (...) {
      release();
      throw;
    }
  }
  ~CopyRig() { release(); }
  CopyRig(const CopyRig&) = delete;
  CopyRig& operator=(const CopyRig&) = delete;

  VkDeviceSize size() const { return size_; }

  double copy_ms() {
    context_.submit_and_wait([&](VkCommandBuffer cmd) {
      // Earlier submissions wrote both buffers (the fills, the previous copy): transfer writes before this
      // copy's reads and writes.
      VkMemoryBarrier barrier{};
      barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
      barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                           nullptr, 0, nullptr);
      vkCmdResetQueryPool(cmd, queries_, 0, 2);
      // The same brackets as the skinning dispatches (skinning_gpu.cc), so that the two times compare.
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
      const VkBufferCopy region{0, 0, size_};
      vkCmdCopyBuffer(cmd, source_.buffer, destination_.buffer, 1, &region);
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
    });
    uint64_t stamps[2] = {0, 0};
    VK_CHECK(vkGetQueryPoolResults(context_.device(), queries_, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    return timestamp_interval_ms(context_, stamps);
  }

 private:
  void release() {
    if (queries_ != VK_NULL_HANDLE) vkDestroyQueryPool(context_.device(), queries_, nullptr);
    queries_ = VK_NULL_HANDLE;
    if (destination_.buffer != VK_NULL_HANDLE) context_.destroy(destination_);
    if (source_.buffer != VK_NULL_HANDLE) context_.destroy(source_);
  }

  Context& context_;
  VkDeviceSize size_ = 0;
  gpu::Buffer source_, destination_;
  VkQueryPool queries_ = VK_NULL_HANDLE;
};

// The highest copy bandwidth (read + write bytes per second) measured in this process; 0 until measured.
double g_copy_bytes_per_second = 0.0;

// Measures it (one copy to warm up, then the best of five) when no BM_GpuCopy run has.
double copy_bytes_per_second(Context& context) {
  if (g_copy_bytes_per_second > 0.0) return g_copy_bytes_per_second;
  CopyRig rig(context);
  rig.copy_ms();
  for (int i = 0; i < 5; ++i) {
    const double ms = rig.copy_ms();
    if (ms > 0.0) g_copy_bytes_per_second = std::max(g_copy_bytes_per_second, 2.0 * double(rig.size()) / (ms * 1e-3));
  }
  if (g_copy_bytes_per_second <= 0.0) throw std::runtime_error("the device reported zero time for every copy");
  return g_copy_bytes_per_second;
}

void BM_GpuCopy(benchmark::State& state) {
  Context* context = bench_context(state);
  if (context == nullptr) return;
  try {
    CopyRig rig(*context);
    double total_ms = 0.0;
    for (auto _ : state) {
      const double ms = rig.copy_ms();
      state.SetIterationTime(ms * 1e-3);
      total_ms += ms;
    }
    if (total_ms <= 0.0) {
      state.SkipWithError("the device reported zero time for the copies");
      return;
    }
    const double bytes_per_second = 2.0 * double(rig.size()) * double(state.iterations()) / (total_ms * 1e-3);
    g_copy_bytes_per_second = std::max(g_copy_bytes_per_second, bytes_per_second);
    state.counters["bytes/s"] = benchmark::Counter(bytes_per_second, benchmark::Counter::kDefaults,
                                                   benchmark::Counter::kIs1024);
    state.SetLabel("copy of " + std::to_string(rig.size() / kMiB) + " MiB, read + write; " + device_label(*context));
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}
// First, so that BM_GpuSkin's fraction_of_copy uses its measurement.
BENCHMARK(BM_GpuCopy)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- skinning ------------------------------------------------------------------------------------------------

struct SkinFixture {
  Scene scene;
  EvaluatedPose pose;
  size_t vertices = 0;
  int influences = 0;
  double bytes_per_pass = 0.0;  // the traffic model of the header comment, summed over the drawn primitives
};

template <class T>
void replicate(std::vector<T>& values, size_t copies) {
  const size_t n = values.size();
  values.resize(n * copies);
  for (size_t c = 1; c < copies; ++c) std::copy_n(values.begin(), n, values.begin() + std::ptrdiff_t(c * n));
}

// builtin:million, its largest skinned primitive's per-vertex arrays repeated `copies` times (indices stay
// those of one copy: valid, since they are below the vertex count, and unused by skinning), posed at t = 0.5.
SkinFixture make_skin_fixture(size_t copies) {
  SkinFixture fixture;
  fixture.scene = make_builtin_scene("million");
  if (copies > 1) {
    Primitive* largest = nullptr;
    for (const Node& node : fixture.scene.nodes) {
      if (node.mesh < 0 || node.skin < 0) continue;
      for (Primitive& primitive : fixture.scene.meshes[size_t(node.mesh)].primitives)
        if (largest == nullptr || primitive.vertex_count() > largest->vertex_count()) largest = &primitive;
    }
    if (largest == nullptr) throw std::runtime_error("builtin:million has no skinned primitive");
    replicate(largest->positions, copies);
    replicate(largest->normals, copies);
    replicate(largest->tangents, copies);
    replicate(largest->texcoords0, copies);
    replicate(largest->joints, copies);
    replicate(largest->weights, copies);
    for (MorphTarget& target : largest->targets) {
      replicate(target.position_deltas, copies);
      replicate(target.normal_deltas, copies);
      replicate(target.tangent_deltas, copies);
    }
    fixture.scene.source = "builtin:million x" + std::to_string(copies);
    finalize_scene(fixture.scene);  // checks the replicated counts
  }
  fixture.pose = evaluate_pose(fixture.scene, fixture.scene.animations.empty() ? -1 : 0, 0.5);

  for (int n : drawn_nodes(fixture.scene)) {
    const Node& node = fixture.scene.nodes[size_t(n)];
    for (const Primitive& primitive : fixture.scene.meshes[size_t(node.mesh)].primitives) {
      // The model counts vertex streams only; morph deltas would add to it and these scenes have none.
      if (!primitive.targets.empty()) throw std::logic_error("the bytes model assumes no morph targets");
      const size_t count = primitive.vertex_count();
      const size_t vec4_streams = 1 + (primitive.normals.empty() ? 0 : 1) + (primitive.tangents.empty() ? 0 : 1);
      const size_t influences = node.skin >= 0 ? size_t(primitive.influences_per_vertex) : 0;
      const size_t bytes_per_vertex = 2 * vec4_streams * 4 * sizeof(float) + influences * (sizeof(uint32_t) + sizeof(float));
      fixture.vertices += count;
      fixture.influences = std::max(fixture.influences, int(influences));
      fixture.bytes_per_pass += double(count * bytes_per_vertex);
    }
  }
  return fixture;
}

// Built on first use (outside any timed loop) and kept for the process.
const SkinFixture& skin_fixture(int64_t copies) {
  if (copies == 1) {
    static const SkinFixture million = make_skin_fixture(1);
    return million;
  }
  if (copies == 16) {
    static const SkinFixture million_x16 = make_skin_fixture(16);
    return million_x16;
  }
  throw std::invalid_argument("BM_GpuSkin: copies must be 1 or 16, got " + std::to_string(copies));
}

bool large_cases_enabled() {
  const char* value = std::getenv("SKINREF_BENCH_LARGE");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// range(0): 0 LBS, 1 DQS; range(1): copies of builtin:million's skinned primitive.
void BM_GpuSkin(benchmark::State& state) {
  const bool dqs = state.range(0) != 0;
  const int64_t copies = state.range(1);
  Context* context = bench_context(state);
  if (context == nullptr) return;
  if (copies > 1 && context->info().type == "cpu" && !large_cases_enabled()) {
    state.SkipWithError(
        "16M vertices on a CPU device take several GB and seconds per iteration; set SKINREF_BENCH_LARGE=1 to run it");
    return;
  }
  const SkinFixture* fixture = nullptr;
  double copy_bandwidth = 0.0;
  try {
    fixture = &skin_fixture(copies);
    copy_bandwidth = copy_bytes_per_second(*context);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }

  SkinningOptions options;
  options.method = dqs ? SkinningMethod::Dqs : SkinningMethod::Lbs;
  double device_ms = 0.0, end_to_end_ms = 0.0;
  for (auto _ : state) {
    gpu::GpuTiming timing;
    try {
      const std::vector<WorldPrimitive> result =
          gpu::gpu_evaluate_vertices(*context, fixture->scene, fixture->pose, options, &timing);
      benchmark::DoNotOptimize(result.data());
    } catch (const std::exception& error) {
      state.SkipWithError(error.what());
      break;
    }
    state.SetIterationTime(timing.device_ms * 1e-3);
    device_ms += timing.device_ms;
    end_to_end_ms += timing.end_to_end_ms;
  }
  if (state.error_occurred()) return;
  if (device_ms <= 0.0 || end_to_end_ms <= 0.0) {
    state.SkipWithError("the device reported zero skinning time");
    return;
  }

  const double iterations = double(state.iterations());
  const double bytes_per_second = fixture->bytes_per_pass * iterations / (device_ms * 1e-3);
  using benchmark::Counter;
  state.counters["vertices/s"] = Counter(double(fixture->vertices) * iterations / (device_ms * 1e-3));
  state.counters["e2e_vertices/s"] = Counter(double(fixture->vertices) * iterations / (end_to_end_ms * 1e-3));
  state.counters["bytes/s"] = Counter(bytes_per_second, Counter::kDefaults, Counter::kIs1024);
  state.counters["copy_bytes/s"] = Counter(copy_bandwidth, Counter::kDefaults, Counter::kIs1024);
  state.counters["fraction_of_copy"] = Counter(bytes_per_second / copy_bandwidth);
  state.SetLabel(std::string(dqs ? "dqs" : "lbs") + " vertices=" + std::to_string(fixture->vertices) +
                 " influences=" + std::to_string(fixture->influences) + "; " + device_label(*context));
}
BENCHMARK(BM_GpuSkin)
    ->ArgNames({"dqs", "copies"})
    ->ArgsProduct({{0, 1}, {1}})
    ->Iterations(10)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuSkin)
    ->ArgNames({"dqs", "copies"})
    ->ArgsProduct({{0, 1}, {16}})
    ->Iterations(4)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace skinref

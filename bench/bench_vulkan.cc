#include "bench/bench_vulkan.h"

#include "backend/vulkan_backend.h"
#include "bench/bench_common.h"
#include "bench/bench_scenes.h"
#include "gpu/compute.h"
#include "gpu/context.h"
#include "copy_comp.h"  // build/shaders: gpu/shaders/copy.comp as SPIR-V

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref::bench {
namespace {

using gpu::Context;

// ---- the context ---------------------------------------------------------------------------------------------

struct ContextSlot {
  bool tried = false;
  std::unique_ptr<Context> context;
  std::unique_ptr<Backend> backend;  // the vulkan backend over `context`
  std::string error;
  std::unique_ptr<Backend> user_backend;  // the same with the user's shader (--shader), made on first use
  std::string user_error;
};

UserShaderFiles& user_shader_storage() {
  static UserShaderFiles files;
  return files;
}

ContextSlot& context_slot_storage() {
  static ContextSlot slot;
  return slot;
}

// The slot, with the context made on first use.
ContextSlot& context_slot() {
  ContextSlot& slot = context_slot_storage();
  if (!slot.tried) {
    slot.tried = true;
    try {
      gpu::ContextOptions options;
      const char* validate = std::getenv("SKINREF_BENCH_VALIDATE");
      options.validate = validate != nullptr && std::string(validate) == "1";
      if (const char* device = std::getenv("SKINREF_BENCH_DEVICE"); device != nullptr && *device != '\0')
        options.device = device;
      slot.context = std::make_unique<Context>(options);
      slot.backend = make_vulkan_backend(*slot.context, false);
    } catch (const std::exception& error) {
      slot.error = std::string("no Vulkan context: ") + error.what();
    }
  }
  return slot;
}

}  // namespace

bool release_vulkan_context() {
  ContextSlot& slot = context_slot_storage();
  slot.user_backend.reset();  // the backends' objects before the device they belong to
  slot.backend.reset();
  bool clean = true;
  if (slot.context) {
    const gpu::ValidationCounts counts = slot.context->validation_counts();
    if (counts.warning + counts.error > 0) {
      clean = false;
      std::fprintf(stderr, "skinref_bench: the validation layer reported %u warning(s) and %u error(s):\n",
                   counts.warning, counts.error);
      for (const std::string& message : slot.context->validation_messages())
        std::fprintf(stderr, "  %s\n", message.c_str());
    }
  }
  slot.context.reset();  // with validation, a Vulkan object still alive here stops the process (gpu/context.h)
  return clean;
}

namespace {

// The process's context, or null with the case skipped and the reason given.
Context* bench_context(benchmark::State& state, bool need_timestamps) {
  ContextSlot& slot = context_slot();
  if (!slot.context) {
    state.SkipWithError(slot.error.c_str());
    return nullptr;
  }
  if (need_timestamps && !slot.context->timestamps_supported()) {
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
      const VkBufferUsageFlags usage =
          VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
      source_ = context.resources().create_buffer(size_, usage, false);
      destination_ = context.resources().create_buffer(size_, usage, false);
      // The shader copy's range: what one storage-buffer binding may address, whole vec4s.
      shader_size_ = std::min<VkDeviceSize>(size_, context.limits().maxStorageBufferRange) / 16 * 16;
      shader_ = std::make_unique<gpu::ComputeProgram>(context, std::span<const uint32_t>(k_copy_comp), 2u,
                                                      uint32_t(sizeof(uint32_t)));
      const VkDescriptorBufferInfo buffers[2] = {{source_.buffer, 0, shader_size_}, {destination_.buffer, 0, shader_size_}};
      shader_->bind_buffers(buffers);
      shader_->prepare(0);
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
  VkDeviceSize shader_size() const { return shader_size_; }

  // warm_up_busy_passes() (bench_common.h) on the shader copy: the passes per timed batch, 0 when refused.
  int warm_up_shader_copies() {
    return warm_up_busy_passes([this](int passes) { return shader_copy_ms(passes) * 1e-3; });
  }

  // Times `passes` copies of shader_size() bytes by the compute shader gpu/shaders/copy.comp, back to back in
  // one submission (the device kept busy, as the skinning passes are: bench_common.h); ms per copy.
  double shader_copy_ms(int passes = 1) {
    if (!shader_->timestamps()) return 0.0;
    const uint32_t count = uint32_t(shader_size_ / 16);
    const uint32_t groups = std::min<uint32_t>((count + 255) / 256, context_.limits().maxComputeWorkGroupCount[0]);
    context_.submit_and_wait([&](VkCommandBuffer cmd) {
      gpu::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      shader_->bind(cmd, 0);
      shader_->push(cmd, &count, sizeof count);
      shader_->record_start(cmd);
      for (int pass = 0; pass < passes; ++pass) {
        if (pass > 0)  // each copy writes the same destination
          gpu::memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
        vkCmdDispatch(cmd, groups, 1, 1);
      }
      shader_->record_end(cmd);
    });
    return shader_->elapsed_ms() / passes;
  }

  double copy_ms() {
    context_.submit_and_wait([&](VkCommandBuffer cmd) {
      // Earlier submissions wrote both buffers (the fills, the previous copy): transfer writes before this
      // copy's reads and writes.
      gpu::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
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
    shader_.reset();
    if (queries_ != VK_NULL_HANDLE) vkDestroyQueryPool(context_.device(), queries_, nullptr);
    queries_ = VK_NULL_HANDLE;
    if (destination_.buffer != VK_NULL_HANDLE) context_.resources().destroy(destination_);
    if (source_.buffer != VK_NULL_HANDLE) context_.resources().destroy(source_);
  }

  Context& context_;
  VkDeviceSize size_ = 0, shader_size_ = 0;
  gpu::Buffer source_, destination_;
  std::unique_ptr<gpu::ComputeProgram> shader_;
  VkQueryPool queries_ = VK_NULL_HANDLE;
};

// The highest copy bandwidth (read + write bytes per second) measured in this process; 0 until measured.
double g_copy_bytes_per_second = 0.0;

// Measures it (a warm-up, then the best of five: one vkCmdCopyBuffer, one batch of busy shader copies) when no
// BM_Copy/vulkan run has.
double gpu_copy_bytes_per_second(Context& context) {
  if (g_copy_bytes_per_second > 0.0) return g_copy_bytes_per_second;
  CopyRig rig(context);
  rig.copy_ms();
  const int passes = rig.warm_up_shader_copies();
  for (int i = 0; i < 5; ++i) {
    const double ms = rig.copy_ms(), shader_ms = passes > 0 ? rig.shader_copy_ms(passes) : 0.0;
    if (ms > 0.0) g_copy_bytes_per_second = std::max(g_copy_bytes_per_second, 2.0 * double(rig.size()) / (ms * 1e-3));
    if (shader_ms > 0.0)
      g_copy_bytes_per_second = std::max(g_copy_bytes_per_second, 2.0 * double(rig.shader_size()) / (shader_ms * 1e-3));
  }
  if (g_copy_bytes_per_second <= 0.0) throw std::runtime_error("the device reported zero time for every copy");
  return g_copy_bytes_per_second;
}

void run_gpu_copy(benchmark::State& state) {
  Context* context = bench_context(state, true);
  if (context == nullptr) return;
  try {
    // After a warm-up, each iteration: one vkCmdCopyBuffer and one batch of shader copies (busy, per copy), each
    // timed by its own timestamps; the iteration's time is the faster one's time for the same bytes (the
    // figure skinning is compared with).
    CopyRig rig(*context);
    const int passes = rig.warm_up_shader_copies();
    double transfer_ms = 0.0, shader_ms = 0.0;
    for (auto _ : state) {
      const double ms = rig.copy_ms(), shader = passes > 0 ? rig.shader_copy_ms(passes) : 0.0;
      const double transfer_rate = ms > 0.0 ? double(rig.size()) / ms : 0.0;
      const double shader_rate = shader > 0.0 ? double(rig.shader_size()) / shader : 0.0;
      const double best_rate = std::max(transfer_rate, shader_rate);
      state.SetIterationTime(best_rate > 0.0 ? double(rig.size()) / best_rate * 1e-3 : 0.0);
      transfer_ms += ms;
      shader_ms += shader;
    }
    if (transfer_ms <= 0.0 && shader_ms <= 0.0) {
      state.SkipWithError("the device reported zero time for the copies");
      return;
    }
    const double iterations = double(state.iterations());
    const double transfer = transfer_ms > 0.0 ? 2.0 * double(rig.size()) * iterations / (transfer_ms * 1e-3) : 0.0;
    const double shader = shader_ms > 0.0 ? 2.0 * double(rig.shader_size()) * iterations / (shader_ms * 1e-3) : 0.0;
    const double bytes_per_second = std::max(transfer, shader);
    g_copy_bytes_per_second = std::max(g_copy_bytes_per_second, bytes_per_second);
    state.counters["bytes/s"] = bytes_per_second;
    state.counters["transfer_bytes/s"] = transfer;
    state.counters["shader_bytes/s"] = shader;
    state.SetLabel("copy of " + std::to_string(rig.size() / kMiB) + " MiB, read + write, the faster of " +
                   "vkCmdCopyBuffer and a compute shader (" + (shader > transfer ? "shader" : "vkCmdCopyBuffer") +
                   "); " + device_label(*context));
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
  }
}

std::string mebibytes(double bytes) { return std::to_string(static_cast<long long>(bytes / double(kMiB))) + " MiB"; }

}  // namespace

void set_user_shader(const UserShaderFiles& files) { user_shader_storage() = files; }
const UserShaderFiles& user_shader() { return user_shader_storage(); }

void run_user_shader_skinning(benchmark::State& state, size_t vertices, int influences) {
  Context* context = bench_context(state, true);
  if (context == nullptr) return;
  ContextSlot& slot = context_slot();
  if (!slot.user_backend && slot.user_error.empty()) {
    try {
      slot.user_backend = make_vulkan_backend(*context, false, user_shader().shader, user_shader().interface);
    } catch (const std::exception& error) {
      slot.user_error = error.what();
    }
  }
  if (!slot.user_backend) {
    state.SkipWithError(slot.user_error.c_str());
    return;
  }
  // The largest array a shader reads, at the interface's widest (a vec4 per vertex): within the device's range.
  const double array = 64.0 * double(vertices), range = double(context->limits().maxStorageBufferRange);
  if (array > range) {
    static std::string message;  // SkipWithError keeps the pointer until the case is reported
    message = "a " + mebibytes(array) + " vertex array exceeds maxStorageBufferRange (" + mebibytes(range) +
              "); needs a GPU";
    state.SkipWithError(message.c_str());
    return;
  }
  double copy_bandwidth = 0.0;
  try {
    copy_bandwidth = gpu_copy_bytes_per_second(*context);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  // The user's shader runs as the default method (docs/benchmarks.md: LBS).
  run_backend_skinning(state, *slot.user_backend, 1, vertices, influences, kDefaultSkinningMethod, PassTime::Device,
                       copy_bandwidth, "device time; " + slot.user_backend->summary().substr(2));
}

void register_vulkan_copy_benchmark() {
  benchmark::RegisterBenchmark("BM_Copy/vulkan", run_gpu_copy)->UseManualTime()->Unit(benchmark::kMillisecond);
}

void run_vulkan_skinning(benchmark::State& state, size_t vertices, int influences, SkinningMethod method,
                         bool end_to_end) {
  Context* context = bench_context(state, !end_to_end);
  if (context == nullptr) return;
  // skinning_gpu.cc refuses the same arrays, but only after converting every input: say so up front.
  const double vec4_array = 16.0 * double(vertices), influence_array = 4.0 * double(influences) * double(vertices);
  const double range = double(context->limits().maxStorageBufferRange);
  if (std::max(vec4_array, influence_array) > range) {
    static std::string message;  // SkipWithError keeps the pointer until the case is reported
    message = "a " + mebibytes(std::max(vec4_array, influence_array)) + " array exceeds maxStorageBufferRange (" +
              mebibytes(range) + "); needs a GPU";
    state.SkipWithError(message.c_str());
    return;
  }
  double copy_bandwidth = 0.0;
  try {
    copy_bandwidth = gpu_copy_bytes_per_second(*context);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }

  run_backend_skinning(state, *context_slot().backend, 1, vertices, influences, method,
                       end_to_end ? PassTime::EndToEnd : PassTime::Device, copy_bandwidth,
                       std::string(end_to_end ? "end to end" : "device time") + "; " + device_label(*context));
}

Backend* bench_vulkan_backend(benchmark::State& state, std::string* device) {
  Context* context = bench_context(state, false);
  if (context == nullptr) return nullptr;
  *device = device_label(*context);
  return context_slot().backend.get();
}

std::string vulkan_device_description() {
  const ContextSlot& slot = context_slot();
  if (!slot.context) return "unavailable: " + slot.error;
  const gpu::DeviceInfo& info = slot.context->info();
  return info.name + " [" + info.type + "], driver " + info.driver + ", Vulkan " +
         std::to_string(VK_API_VERSION_MAJOR(info.api_version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(info.api_version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(info.api_version));
}

}  // namespace skinref::bench

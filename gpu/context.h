// A headless Vulkan context: instance without any window system, optional validation, one physical device
// with a queue family that supports both graphics and compute, a command pool, one-shot submissions, and the
// device's resource helpers (buffers, images, host access; gpu/resources.h owns them, the Context forwards).
//
// Contract:
// - Validation (`validate`): the VK_LAYER_KHRONOS_validation layer and a VK_EXT_debug_utils messenger are
//   enabled; every message is counted by severity and kept (up to kMaxKeptMessages) so tests can assert
//   that no warning or error was reported. When the layer is not installed, creation fails with GpuError
//   naming it (tests then fail rather than silently skip validation).
// - Device selection: by default the first discrete GPU, else the first integrated, else the first device
//   (lavapipe is a CPU device). `device` selects by index ("0") or by a case-sensitive substring of
//   VkPhysicalDeviceProperties::deviceName; no match -> InputError listing the devices.
// - Synchronisation: submit_and_wait() submits one command buffer with a fresh fence and waits for it;
//   every transfer/compute/graphics hop recorded by the helpers carries an explicit pipeline barrier.
//   Host-visible memory is mapped; non-coherent memory is flushed after writes and invalidated before
//   reads (resources.h).
// - Compute pipelines are made once per shader, layout and specialization and kept until destruction
//   (compute_pipelines()).
// - Destruction releases everything in reverse order of creation; no object leaks (the validation layer
//   reports leaks at vkDestroyDevice / vkDestroyInstance, and those count as errors).
// - Not thread-safe: one context per thread.
#pragma once

#include "gpu/resources.h"
#include "gpu/vk_check.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace skinref::gpu {

class ComputePipelineCache;  // gpu/compute_pipelines.h

struct ContextOptions {
  bool validate = false;
  std::string device;  // empty: automatic choice
};

struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string type;    // "discrete", "integrated", "virtual", "cpu", "other"
  uint32_t api_version = 0;
  std::string driver;  // driverName from VkPhysicalDeviceDriverProperties when available
};

struct ValidationCounts {
  uint32_t verbose = 0, info = 0, warning = 0, error = 0;
};

static constexpr size_t kMaxKeptMessages = 64;

// Lists the devices a context could use (creates and destroys its own instance). Throws GpuError when there
// is no Vulkan driver at all.
std::vector<DeviceInfo> list_devices();

class Context {
 public:
  explicit Context(const ContextOptions& options);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkInstance instance() const;
  VkPhysicalDevice physical_device() const;
  VkDevice device() const;
  VkQueue queue() const;
  uint32_t queue_family() const;
  const DeviceInfo& info() const;
  const VkPhysicalDeviceLimits& limits() const;
  bool timestamps_supported() const;   // timestampComputeAndGraphics and a non-zero timestampPeriod
  double timestamp_period_ns() const;
  // The valid bits of a timestamp on the context's queue family (timestampValidBits), as a mask.
  uint64_t timestamp_mask() const;
  // VK_EXT_transform_feedback enabled (offered by the device with its transformFeedback feature).
  bool transform_feedback_supported() const;

  ValidationCounts validation_counts() const;
  std::vector<std::string> validation_messages() const;  // warning and error messages, in order

  // Buffers and images of this device (resources.h): allocation, mapping, upload and readback.
  ResourceAllocator& resources();

  // Records with `record` into a fresh primary command buffer, submits with a fresh fence, waits, frees.
  void submit_and_wait(const std::function<void(VkCommandBuffer)>& record);

  // A shader module from SPIR-V words (the build embeds them; see gpu/shaders/).
  VkShaderModule create_shader(const uint32_t* words, size_t word_count);

  // The compute programs' layouts, shader modules and pipelines, kept for the context's lifetime
  // (gpu/compute_pipelines.h): a pass run many times compiles its shader once.
  ComputePipelineCache& compute_pipelines();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace skinref::gpu

// Every VkResult is checked: VK_CHECK(call) throws GpuError naming the call and the result
// ("vkCreateDevice(...) failed: VK_ERROR_OUT_OF_DEVICE_MEMORY"). Use it for every Vulkan call that returns a
// VkResult; never ignore one.
#pragma once

#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace skinref::gpu {

// A Vulkan failure (driver, memory, device lost). Bad user input (unknown device, size over a limit) is an
// InputError instead, raised before any Vulkan call that could fail because of it.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const char* vk_result_name(VkResult result);

inline void vk_check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throw GpuError(std::string(call) + " failed: " + vk_result_name(result));
}

}  // namespace skinref::gpu

#define VK_CHECK(call) ::skinref::gpu::vk_check((call), #call)

// Device resources of the Vulkan path: buffers and 2D images with their memory, the choice of memory type,
// host mapping with its flushes and invalidations, and the barrier helpers every recorded hop uses. The
// device itself (instance, device choice, queue, validation) is gpu/context.h's; a Context owns one
// ResourceAllocator and its buffer and image helpers forward to it, so callers go through the Context.
//
// Contract:
// - A ResourceAllocator belongs to one device and owns no Vulkan object itself: each Buffer and Image2D it
//   creates is released by destroy() before the device goes (the validation layer reports a leak otherwise).
// - Buffers: `host_visible` -> HOST_VISIBLE memory, mapped for the buffer's lifetime, preferring
//   HOST_COHERENT | HOST_CACHED, then HOST_COHERENT, then HOST_CACHED, then any; otherwise DEVICE_LOCAL where
//   the allowed types have it. Allocations are rounded up to nonCoherentAtomSize so that flushes and
//   invalidations cover whole atoms. Size 0 -> std::invalid_argument.
// - write() / read(): copies into / out of a host-visible buffer, flushing non-coherent memory after a write
//   and invalidating it before a read; a range outside the buffer, or a buffer that is not host-visible ->
//   std::invalid_argument.
// - Images: 2D, one level and one layer, optimal tiling, DEVICE_LOCAL, with a view whose aspect follows the
//   format (depth and/or stencil, else colour). Sizes outside 1..maxImageDimension2D -> std::invalid_argument
//   (callers check user-given sizes first); a format, usage or size the device does not support -> GpuError.
// - A creation that fails part-way releases what it created before the exception leaves.
// - Not thread-safe.
#pragma once

#include "gpu/vk_check.h"

#include <cstdint>
#include <initializer_list>
#include <string>

namespace skinref::gpu {

// A buffer with its memory. Host-visible buffers stay mapped (`mapped` non-null).
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;
  bool coherent = true;
};

struct Image2D {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  uint32_t width = 0, height = 0;
};

// A memory barrier on the whole of `buffer` between two access masks (queue families ignored).
VkBufferMemoryBarrier buffer_barrier(VkBuffer buffer, VkAccessFlags src, VkAccessFlags dst);

// Records a barrier on the whole of `buffer`: `src_access` of `src_stage` made available and visible to
// `dst_access` of `dst_stage`.
void record_buffer_barrier(VkCommandBuffer commands, VkBuffer buffer, VkPipelineStageFlags src_stage,
                           VkAccessFlags src_access, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

// Records a layout transition of a single-level, single-layer colour image, with its access barrier.
void record_image_barrier(VkCommandBuffer commands, VkImage image, VkImageLayout old_layout, VkImageLayout new_layout,
                          VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                          VkAccessFlags dst_access);

// Records a global memory barrier: `src` accesses of `src_stage` made available and visible to `dst` accesses
// of `dst_stage`.
void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst);

class ResourceAllocator {
 public:
  // `device_name` names the device in errors; `limits` are the physical device's.
  ResourceAllocator(VkPhysicalDevice physical_device, VkDevice device, const VkPhysicalDeviceLimits& limits,
                    std::string device_name);

  Buffer create_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible);
  void destroy(Buffer& buffer);
  void write(const Buffer& buffer, const void* data, VkDeviceSize size, VkDeviceSize offset = 0);
  void read(const Buffer& buffer, void* data, VkDeviceSize size, VkDeviceSize offset = 0);

  Image2D create_image(uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage);
  void destroy(Image2D& image);

 private:
  // The first allowed memory type with `required` plus the first entry of `preferred`, in order, that some
  // allowed type offers; GpuError when none does.
  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                            std::initializer_list<VkMemoryPropertyFlags> preferred) const;
  VkDeviceMemory allocate(const VkMemoryRequirements& requirements, uint32_t type);
  // The atom-aligned range covering [offset, offset + size) of a buffer's memory (bound at offset 0).
  VkMappedMemoryRange atom_range(const Buffer& buffer, VkDeviceSize offset, VkDeviceSize size) const;

  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkPhysicalDeviceLimits limits_{};
  VkPhysicalDeviceMemoryProperties memory_{};
  std::string device_name_;
};

}  // namespace skinref::gpu

// Buffers, images, memory types, host access and barriers (resources.h). Error texts name the Context
// entry points (Context::create_buffer, ...), through which every caller reaches these.
#include "gpu/resources.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace skinref::gpu {
namespace {

bool is_depth_format(VkFormat format) {
  switch (format) {
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D32_SFLOAT:
    case VK_FORMAT_D16_UNORM_S8_UINT:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT: return true;
    default: return false;
  }
}

bool has_stencil(VkFormat format) {
  return format == VK_FORMAT_S8_UINT || format == VK_FORMAT_D16_UNORM_S8_UINT ||
         format == VK_FORMAT_D24_UNORM_S8_UINT || format == VK_FORMAT_D32_SFLOAT_S8_UINT;
}

VkImageAspectFlags aspect_of(VkFormat format) {
  VkImageAspectFlags aspect = 0;
  if (is_depth_format(format)) aspect |= VK_IMAGE_ASPECT_DEPTH_BIT;
  if (has_stencil(format)) aspect |= VK_IMAGE_ASPECT_STENCIL_BIT;
  return aspect == 0 ? VkImageAspectFlags{VK_IMAGE_ASPECT_COLOR_BIT} : aspect;
}

VkDeviceSize round_up(VkDeviceSize value, VkDeviceSize multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

void check_host_range(const Buffer& buffer, VkDeviceSize size, VkDeviceSize offset, const char* what) {
  if (buffer.mapped == nullptr) {
    throw std::invalid_argument(std::string("Context::") + what + ": the buffer is not host-visible");
  }
  if (offset > buffer.size || size > buffer.size - offset) {
    throw std::invalid_argument(std::string("Context::") + what + ": bytes [" + std::to_string(offset) + ", " +
                                std::to_string(offset + size) + ") outside the buffer's " +
                                std::to_string(buffer.size));
  }
}

}  // namespace

ResourceAllocator::ResourceAllocator(VkPhysicalDevice physical_device, VkDevice device,
                                     const VkPhysicalDeviceLimits& limits, std::string device_name)
    : physical_device_(physical_device), device_(device), limits_(limits), device_name_(std::move(device_name)) {
  vkGetPhysicalDeviceMemoryProperties(physical_device_, &memory_);
}

uint32_t ResourceAllocator::find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                                             std::initializer_list<VkMemoryPropertyFlags> preferred) const {
  for (VkMemoryPropertyFlags extra : preferred) {
    const VkMemoryPropertyFlags wanted = required | extra;
    for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
      if ((type_bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
    }
  }
  throw GpuError("no memory type with property flags " + hex(required) + " among the allowed types " +
                 hex(type_bits) + " on " + device_name_);
}

VkDeviceMemory ResourceAllocator::allocate(const VkMemoryRequirements& requirements, uint32_t type) {
  VkMemoryAllocateInfo allocate_info{};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  // Rounded to the non-coherent atom so that write()/read() can flush and invalidate whole atoms up to the
  // buffer's rounded end without passing the end of the allocation.
  allocate_info.allocationSize = round_up(requirements.size, limits_.nonCoherentAtomSize);
  allocate_info.memoryTypeIndex = type;
  VkDeviceMemory result = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(device_, &allocate_info, nullptr, &result));
  return result;
}

VkMappedMemoryRange ResourceAllocator::atom_range(const Buffer& buffer, VkDeviceSize offset,
                                                  VkDeviceSize size) const {
  const VkDeviceSize atom = limits_.nonCoherentAtomSize;
  VkMappedMemoryRange range{};
  range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
  range.memory = buffer.memory;
  range.offset = offset / atom * atom;
  range.size = round_up(offset + size, atom) - range.offset;
  return range;
}

Buffer ResourceAllocator::create_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible) {
  // A zero-sized buffer is invalid usage; callers with nothing to store must not ask for one.
  if (size == 0) throw std::invalid_argument("Context::create_buffer: size 0");
  Buffer buffer;
  buffer.size = size;
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(device_, &info, nullptr, &buffer.buffer));
  try {
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(device_, buffer.buffer, &requirements);
    uint32_t type = 0;
    if (host_visible) {
      // Cached memory makes readback fast on discrete GPUs (uncached reads from write-combined memory are
      // slow); coherent memory needs no flushes. Either preference is dropped before giving up.
      type = find_memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                              {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0});
    } else {
      type = find_memory_type(requirements.memoryTypeBits, 0, {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0});
    }
    buffer.memory = allocate(requirements, type);
    VK_CHECK(vkBindBufferMemory(device_, buffer.buffer, buffer.memory, 0));
    if (host_visible) {
      buffer.coherent = (memory_.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
      VK_CHECK(vkMapMemory(device_, buffer.memory, 0, VK_WHOLE_SIZE, 0, &buffer.mapped));
    }
  } catch (...) {
    destroy(buffer);
    throw;
  }
  return buffer;
}

void ResourceAllocator::destroy(Buffer& buffer) {
  // Unmapping is implicit in vkFreeMemory.
  if (buffer.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer.buffer, nullptr);
  if (buffer.memory != VK_NULL_HANDLE) vkFreeMemory(device_, buffer.memory, nullptr);
  buffer = Buffer{};
}

void ResourceAllocator::write(const Buffer& buffer, const void* data, VkDeviceSize size, VkDeviceSize offset) {
  check_host_range(buffer, size, offset, "write");
  if (size == 0) return;
  std::memcpy(static_cast<unsigned char*>(buffer.mapped) + offset, data, size);
  if (!buffer.coherent) {
    const VkMappedMemoryRange range = atom_range(buffer, offset, size);
    VK_CHECK(vkFlushMappedMemoryRanges(device_, 1, &range));
  }
}

void ResourceAllocator::read(const Buffer& buffer, void* data, VkDeviceSize size, VkDeviceSize offset) {
  check_host_range(buffer, size, offset, "read");
  if (size == 0) return;
  if (!buffer.coherent) {
    const VkMappedMemoryRange range = atom_range(buffer, offset, size);
    VK_CHECK(vkInvalidateMappedMemoryRanges(device_, 1, &range));
  }
  std::memcpy(data, static_cast<const unsigned char*>(buffer.mapped) + offset, size);
}

Image2D ResourceAllocator::create_image(uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage) {
  // Callers check user-given sizes first (InputError); reaching here with a bad size is a programming error.
  if (width == 0 || height == 0 || width > limits_.maxImageDimension2D || height > limits_.maxImageDimension2D) {
    throw std::invalid_argument("Context::create_image: " + std::to_string(width) + "x" + std::to_string(height) +
                                " outside 1.." + std::to_string(limits_.maxImageDimension2D));
  }
  // Asking first turns "format/usage not supported" into a clear error instead of invalid usage.
  VkImageFormatProperties supported{};
  const VkResult support = vkGetPhysicalDeviceImageFormatProperties(
      physical_device_, format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL, usage, 0, &supported);
  if (support == VK_ERROR_FORMAT_NOT_SUPPORTED || (support == VK_SUCCESS && (width > supported.maxExtent.width ||
                                                                             height > supported.maxExtent.height))) {
    throw GpuError("image format " + std::to_string(static_cast<int>(format)) + " with usage " + hex(usage) +
                   " at " + std::to_string(width) + "x" + std::to_string(height) +
                   " is not supported by " + device_name_);
  }
  VK_CHECK(support);

  Image2D image;
  image.format = format;
  image.width = width;
  image.height = height;
  VkImageCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {width, height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VK_CHECK(vkCreateImage(device_, &info, nullptr, &image.image));
  try {
    VkMemoryRequirements requirements{};
    vkGetImageMemoryRequirements(device_, image.image, &requirements);
    const uint32_t type = find_memory_type(requirements.memoryTypeBits, 0, {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0});
    image.memory = allocate(requirements, type);
    VK_CHECK(vkBindImageMemory(device_, image.image, image.memory, 0));

    VkImageViewCreateInfo view_info{};
    view_info.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    view_info.image = image.image;
    view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view_info.format = format;
    view_info.components = {VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY,
                            VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY};
    view_info.subresourceRange = {aspect_of(format), 0, 1, 0, 1};
    VK_CHECK(vkCreateImageView(device_, &view_info, nullptr, &image.view));
  } catch (...) {
    destroy(image);
    throw;
  }
  return image;
}

void ResourceAllocator::destroy(Image2D& image) {
  if (image.view != VK_NULL_HANDLE) vkDestroyImageView(device_, image.view, nullptr);
  if (image.image != VK_NULL_HANDLE) vkDestroyImage(device_, image.image, nullptr);
  if (image.memory != VK_NULL_HANDLE) vkFreeMemory(device_, image.memory, nullptr);
  image = Image2D{};
}

void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = src;
  barrier.dstAccessMask = dst;
  vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

VkBufferMemoryBarrier buffer_barrier(VkBuffer buffer, VkAccessFlags src, VkAccessFlags dst) {
  VkBufferMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  barrier.srcAccessMask = src;
  barrier.dstAccessMask = dst;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  return barrier;
}

void record_buffer_barrier(VkCommandBuffer commands, VkBuffer buffer, VkPipelineStageFlags src_stage,
                           VkAccessFlags src_access, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  const VkBufferMemoryBarrier barrier = buffer_barrier(buffer, src_access, dst_access);
  vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
}

void record_image_barrier(VkCommandBuffer commands, VkImage image, VkImageLayout old_layout, VkImageLayout new_layout,
                          VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                          VkAccessFlags dst_access) {
  VkImageMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  barrier.oldLayout = old_layout;
  barrier.newLayout = new_layout;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &barrier);
}

}  // namespace skinref::gpu

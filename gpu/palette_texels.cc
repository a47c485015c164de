#include "gpu/palette_texels.h"

#include "gpu/vk_check.h"

namespace skinref::gpu {
namespace {

constexpr VkFormat kTexelFormat = VK_FORMAT_R32G32B32A32_SFLOAT;

}  // namespace

VkBufferView create_texel_view(Context& context, const Buffer& buffer, VkDeviceSize offset, VkDeviceSize range) {
  VkBufferViewCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO;
  info.buffer = buffer.buffer;
  info.format = kTexelFormat;
  info.offset = offset;
  info.range = range;
  VkBufferView view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBufferView(context.device(), &info, nullptr, &view));
  return view;
}

Image2D upload_palette_image(Context& context, const std::vector<std::byte>& texels, uint32_t width, uint32_t height) {
  ResourceAllocator& resources = context.resources();
  Image2D image = resources.create_image(width, height, kTexelFormat,
                                         VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
  Buffer staging = resources.create_buffer(texels.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
  try {
    resources.write(staging, texels.data(), texels.size());
    context.submit_and_wait([&](VkCommandBuffer command) {
      record_image_barrier(command, image.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_ACCESS_TRANSFER_WRITE_BIT);
      VkBufferImageCopy region{};
      region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
      region.imageExtent = {width, height, 1};
      vkCmdCopyBufferToImage(command, staging.buffer, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
      record_image_barrier(command, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_VERTEX_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    });
  } catch (...) {
    resources.destroy(staging);
    resources.destroy(image);
    throw;
  }
  resources.destroy(staging);
  return image;
}

VkSampler create_nearest_sampler(Context& context) {
  VkSamplerCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
  info.magFilter = info.minFilter = VK_FILTER_NEAREST;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.maxLod = 0.0f;
  VkSampler sampler = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSampler(context.device(), &info, nullptr, &sampler));
  return sampler;
}

}  // namespace skinref::gpu

// A user shader's palette read as texels (gpu/vertex_interface.h, "descriptor": "uniform-texel-buffer",
// "storage-texel-buffer" or "sampled-image"): the Vulkan objects that hold the same bytes a block would, as
// RGBA32F texels.
//
// Contract:
// - create_texel_view(): a VK_FORMAT_R32G32B32A32_SFLOAT view of `range` bytes of `buffer` from `offset` (a
//   multiple of the device's minTexelBufferOffsetAlignment; the caller's guard is). The buffer was created with
//   the texel buffer usage of the descriptor.
// - upload_palette_image(): a `width` x `height` RGBA32F image holding `texels` (width x height x 16 bytes, row
//   by row), copied through a staging buffer and left in SHADER_READ_ONLY_OPTIMAL for the vertex stage; the
//   staging buffer is released before it returns.
// - create_nearest_sampler(): nearest filtering, no mipmaps, clamped to the edge, normalized coordinates: what
//   three.js and Babylon.js give their bone textures, so that texelFetch and texture() at a texel's centre read
//   that texel exactly.
// - Each returned object is the caller's to destroy (vkDestroyBufferView, ResourceAllocator::destroy,
//   vkDestroySampler).
#pragma once

#include "gpu/context.h"
#include "gpu/resources.h"

#include <cstddef>
#include <vector>

namespace skinref::gpu {

VkBufferView create_texel_view(Context& context, const Buffer& buffer, VkDeviceSize offset, VkDeviceSize range);

Image2D upload_palette_image(Context& context, const std::vector<std::byte>& texels, uint32_t width, uint32_t height);

VkSampler create_nearest_sampler(Context& context);

}  // namespace skinref::gpu

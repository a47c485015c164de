// The headless Vulkan context (gpu/context.h) on whatever device the machine has (Mesa lavapipe in CI):
// validated creation with a clean validation log, device listing and selection by index and by name,
// buffer and image round trips through real command buffers, the error paths of submit_and_wait and the
// host accessors, timestamps, a shader module in a compute pipeline, proof that the validation messenger
// really counts errors, and the `skinref devices` command.
#include "core/input_error.h"
#include "gpu/compute.h"
#include "gpu/context.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <sys/wait.h>

#ifndef SKINREF_CLI
#error "SKINREF_CLI must name the skinref executable (set by CMakeLists.txt)"
#endif

namespace skinref::gpu {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

// The rule of the whole GPU suite: no validation warning or error, ever.
void expect_validation_clean(const Context& context) {
  const ValidationCounts counts = context.validation_counts();
  EXPECT_EQ(counts.warning, 0u) << joined(context.validation_messages());
  EXPECT_EQ(counts.error, 0u) << joined(context.validation_messages());
}

ContextOptions validated(const std::string& device = "") {
  ContextOptions options;
  options.validate = true;
  options.device = device;
  return options;
}

// A transfer-write -> transfer-read hazard between two copies in one command buffer.
void transfer_barrier(VkCommandBuffer commands) {
  gpu::memory_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}

// Device writes made visible to host reads (the mapped readback).
void host_read_barrier(VkCommandBuffer commands) {
  gpu::memory_barrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

void image_barrier(VkCommandBuffer commands, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                   VkImageLayout to, VkAccessFlags src_access, VkAccessFlags dst_access) {
  VkImageMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  barrier.oldLayout = from;
  barrier.newLayout = to;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = image;
  barrier.subresourceRange = {aspect, 0, 1, 0, 1};
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 1, &barrier);
}

std::vector<uint8_t> pattern(size_t size, uint32_t seed) {
  // A byte pattern with no period that divides a power of two, so a shifted or truncated copy shows.
  std::vector<uint8_t> bytes(size);
  uint32_t state = seed;
  for (uint8_t& byte : bytes) {
    state = state * 1664525u + 1013904223u;
    byte = static_cast<uint8_t>(state >> 24);
  }
  return bytes;
}

TEST(GpuContext, ValidatedDefaultContextIsCleanAndReportsItsDevice) {
  Context context(validated());
  EXPECT_NE(context.instance(), VK_NULL_HANDLE);
  EXPECT_NE(context.physical_device(), VK_NULL_HANDLE);
  EXPECT_NE(context.device(), VK_NULL_HANDLE);
  EXPECT_NE(context.queue(), VK_NULL_HANDLE);
  EXPECT_FALSE(context.info().name.empty());
  EXPECT_FALSE(context.info().driver.empty());
  EXPECT_GE(context.info().api_version, VK_API_VERSION_1_1);
  EXPECT_GT(context.limits().maxImageDimension2D, 0u);
  EXPECT_GT(context.limits().nonCoherentAtomSize, 0u);
  // The queue family must really offer both kinds of work.
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical_device(), &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical_device(), &count, families.data());
  ASSERT_LT(context.queue_family(), count);
  const VkQueueFlags flags = families[context.queue_family()].queueFlags;
  EXPECT_TRUE(flags & VK_QUEUE_GRAPHICS_BIT);
  EXPECT_TRUE(flags & VK_QUEUE_COMPUTE_BIT);
  expect_validation_clean(context);
}

// One process, many contexts one after another, as the GPU suite and `golden check` (a context per case)
// make: on NVIDIA's driver (580.159, H200) vkCreateInstance failed with VK_ERROR_INCOMPATIBLE_DRIVER from
// about the 30th create/destroy cycle until the drivers were kept loaded (context.cc, keep_drivers_loaded).
// Twice that many here, each with a device, a command and validation.
TEST(GpuContext, SixtyFourContextsOneAfterAnotherInOneProcess) {
  for (int i = 0; i < 64; ++i) {
    Context context(validated());
    ASSERT_NE(context.device(), VK_NULL_HANDLE) << "context " << i;
    Buffer buffer = context.resources().create_buffer(64, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    const uint32_t word = 0x01010101u * uint32_t(i + 1);
    context.submit_and_wait([&](VkCommandBuffer commands) {
      vkCmdFillBuffer(commands, buffer.buffer, 0, 64, word);
      host_read_barrier(commands);
    });
    uint32_t read = 0;
    context.resources().read(buffer, &read, sizeof read, 60);
    context.resources().destroy(buffer);
    ASSERT_EQ(read, word) << "context " << i;
    expect_validation_clean(context);
  }
}

TEST(GpuContext, ListsDevicesAndTheDefaultIsOneOfThem) {
  const std::vector<DeviceInfo> devices = list_devices();
  ASSERT_FALSE(devices.empty());
  const std::vector<std::string> types{"discrete", "integrated", "virtual", "cpu", "other"};
  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].index, static_cast<int>(i));
    EXPECT_FALSE(devices[i].name.empty());
    EXPECT_NE(std::find(types.begin(), types.end(), devices[i].type), types.end()) << devices[i].type;
    EXPECT_FALSE(devices[i].driver.empty());
  }
  Context context(validated());
  const DeviceInfo& chosen = context.info();
  ASSERT_GE(chosen.index, 0);
  ASSERT_LT(static_cast<size_t>(chosen.index), devices.size());
  EXPECT_EQ(chosen.name, devices[chosen.index].name);
  EXPECT_EQ(chosen.type, devices[chosen.index].type);
  EXPECT_EQ(chosen.api_version, devices[chosen.index].api_version);
  // context.h's preference: a discrete GPU when there is one, else an integrated one.
  const bool any_discrete = std::any_of(devices.begin(), devices.end(),
                                        [](const DeviceInfo& d) { return d.type == "discrete"; });
  const bool any_integrated = std::any_of(devices.begin(), devices.end(),
                                          [](const DeviceInfo& d) { return d.type == "integrated"; });
  if (any_discrete) {
    EXPECT_EQ(chosen.type, "discrete");
  } else if (any_integrated) {
    EXPECT_EQ(chosen.type, "integrated");
  }
  expect_validation_clean(context);
}

TEST(GpuContext, SelectsTheDeviceByIndex) {
  const std::vector<DeviceInfo> devices = list_devices();
  for (const DeviceInfo& device : devices) {
    Context context(validated(std::to_string(device.index)));
    EXPECT_EQ(context.info().index, device.index);
    EXPECT_EQ(context.info().name, device.name);
    expect_validation_clean(context);
  }
}

TEST(GpuContext, SelectsTheDeviceByNameSubstring) {
  const std::vector<DeviceInfo> devices = list_devices();
  for (const DeviceInfo& device : devices) {
    // A piece from inside the name (not the whole), so that substring matching is what is tested.
    const std::string& name = device.name;
    const std::string piece = name.size() > 2 ? name.substr(1, name.size() - 2) : name;
    const auto first_match = std::find_if(devices.begin(), devices.end(), [&](const DeviceInfo& d) {
      return d.name.find(piece) != std::string::npos;
    });
    ASSERT_NE(first_match, devices.end());
    Context context(validated(piece));
    EXPECT_EQ(context.info().index, first_match->index) << "piece '" << piece << "'";
    EXPECT_NE(context.info().name.find(piece), std::string::npos);
    expect_validation_clean(context);
  }
}

TEST(GpuContext, UnknownDeviceNameIsAnInputErrorListingTheDevices) {
  const std::vector<DeviceInfo> devices = list_devices();
  const std::string wanted = "no-such-device-7f3a";
  try {
    Context context(validated(wanted));
    FAIL() << "a context was created for device '" << wanted << "'";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), "--device");
    const std::string message = error.what();
    EXPECT_NE(message.find(wanted), std::string::npos) << message;
    for (const DeviceInfo& device : devices) {
      EXPECT_NE(message.find(device.name), std::string::npos) << message;
    }
  }
  // Names match case-sensitively (context.h): the upper-cased name of a device with letters matches nothing
  // unless another device happens to carry that spelling.
  for (const DeviceInfo& device : devices) {
    std::string upper = device.name;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    const bool spelled_elsewhere = std::any_of(devices.begin(), devices.end(), [&](const DeviceInfo& d) {
      return d.name.find(upper) != std::string::npos;
    });
    if (upper != device.name && !spelled_elsewhere) {
      EXPECT_THROW(Context(validated(upper)), InputError) << upper;
    }
  }
}

TEST(GpuContext, DeviceIndexOutOfRangeIsAnInputError) {
  const std::vector<DeviceInfo> devices = list_devices();
  for (const std::string& index : {std::to_string(devices.size()), std::string("99999999999999999999")}) {
    try {
      Context context(validated(index));
      FAIL() << "a context was created for device index " << index;
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), "--device");
      EXPECT_NE(std::string(error.what()).find(devices[0].name), std::string::npos) << error.what();
    }
  }
}

TEST(GpuContext, BufferRoundTripThroughDeviceLocalMemory) {
  Context context(validated());
  // Not a multiple of any atom or alignment, so partial-atom flushes and invalidations are exercised.
  const VkDeviceSize size = (1u << 20) + 13;
  const std::vector<uint8_t> input = pattern(size, 7);
  Buffer upload = context.resources().create_buffer(size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
  Buffer middle =
      context.resources().create_buffer(size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  Buffer readback = context.resources().create_buffer(size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  ASSERT_NE(upload.mapped, nullptr);
  ASSERT_NE(readback.mapped, nullptr);
  EXPECT_EQ(middle.mapped, nullptr);
  EXPECT_EQ(upload.size, size);

  context.resources().write(upload, input.data(), size);
  context.submit_and_wait([&](VkCommandBuffer commands) {
    const VkBufferCopy whole{0, 0, size};
    vkCmdCopyBuffer(commands, upload.buffer, middle.buffer, 1, &whole);
    transfer_barrier(commands);
    vkCmdCopyBuffer(commands, middle.buffer, readback.buffer, 1, &whole);
    host_read_barrier(commands);
  });
  std::vector<uint8_t> output(size);
  context.resources().read(readback, output.data(), size);
  EXPECT_TRUE(output == input);

  // A second, partial write at an odd offset, copied and read back at that offset: only those bytes change.
  const VkDeviceSize offset = 4097, part = 1001;
  const std::vector<uint8_t> patch = pattern(part, 11);
  context.resources().write(upload, patch.data(), part, offset);
  context.submit_and_wait([&](VkCommandBuffer commands) {
    const VkBufferCopy region{offset, offset, part};
    vkCmdCopyBuffer(commands, upload.buffer, readback.buffer, 1, &region);
    host_read_barrier(commands);
  });
  std::vector<uint8_t> patched(part);
  context.resources().read(readback, patched.data(), part, offset);
  EXPECT_TRUE(patched == patch);
  context.resources().read(readback, output.data(), size);
  std::vector<uint8_t> expected = input;
  std::copy(patch.begin(), patch.end(), expected.begin() + offset);
  EXPECT_TRUE(output == expected);

  context.resources().destroy(upload);
  context.resources().destroy(middle);
  context.resources().destroy(readback);
  EXPECT_EQ(upload.buffer, VK_NULL_HANDLE);
  EXPECT_EQ(upload.memory, VK_NULL_HANDLE);
  EXPECT_EQ(upload.mapped, nullptr);
  expect_validation_clean(context);
}

TEST(GpuContext, HostAccessOutsideABufferOrToDeviceMemoryIsRefused) {
  Context context(validated());
  Buffer host = context.resources().create_buffer(64, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
  Buffer device = context.resources().create_buffer(64, VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  std::vector<uint8_t> bytes(65);
  EXPECT_THROW(context.resources().write(host, bytes.data(), 65), std::invalid_argument);
  EXPECT_THROW(context.resources().write(host, bytes.data(), 8, 60), std::invalid_argument);
  EXPECT_THROW(context.resources().read(host, bytes.data(), 1, 64), std::invalid_argument);
  EXPECT_THROW(context.resources().write(device, bytes.data(), 8), std::invalid_argument);
  EXPECT_THROW(context.resources().read(device, bytes.data(), 8), std::invalid_argument);
  EXPECT_THROW(context.resources().create_buffer(0, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true), std::invalid_argument);
  // The last byte is still reachable.
  const uint8_t last = 0xa5;
  context.resources().write(host, &last, 1, 63);
  uint8_t back = 0;
  context.resources().read(host, &back, 1, 63);
  EXPECT_EQ(back, last);
  context.resources().destroy(host);
  context.resources().destroy(device);
  expect_validation_clean(context);
}

TEST(GpuContext, ColourAndDepthImagesClearAndReadBack) {
  Context context(validated());
  const uint32_t width = 37, height = 19;  // odd sizes: rows are not naturally aligned
  Image2D colour = context.resources().create_image(width, height, VK_FORMAT_R8G8B8A8_UNORM,
                                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                            VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  Image2D depth = context.resources().create_image(width, height, VK_FORMAT_D32_SFLOAT,
                                       VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                           VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  EXPECT_NE(colour.image, VK_NULL_HANDLE);
  EXPECT_NE(colour.view, VK_NULL_HANDLE);
  EXPECT_NE(depth.view, VK_NULL_HANDLE);
  EXPECT_EQ(colour.width, width);
  EXPECT_EQ(colour.height, height);
  EXPECT_EQ(depth.format, VK_FORMAT_D32_SFLOAT);

  const VkDeviceSize pixels = VkDeviceSize{width} * height;
  Buffer colour_out = context.resources().create_buffer(pixels * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  Buffer depth_out = context.resources().create_buffer(pixels * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  // k/255 clears to byte k exactly in UNORM; 0.25 is exact in float32.
  const VkClearColorValue clear_colour{{51.0f / 255.0f, 102.0f / 255.0f, 1.0f, 0.0f}};
  const VkClearDepthStencilValue clear_depth{0.25f, 0};
  context.submit_and_wait([&](VkCommandBuffer commands) {
    image_barrier(commands, colour.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
    image_barrier(commands, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkImageSubresourceRange colour_range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    const VkImageSubresourceRange depth_range{VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(commands, colour.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear_colour, 1,
                         &colour_range);
    vkCmdClearDepthStencilImage(commands, depth.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear_depth, 1,
                                &depth_range);
    image_barrier(commands, colour.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    image_barrier(commands, depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {width, height, 1};
    vkCmdCopyImageToBuffer(commands, colour.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, colour_out.buffer, 1,
                           &region);
    region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
    vkCmdCopyImageToBuffer(commands, depth.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, depth_out.buffer, 1,
                           &region);
    host_read_barrier(commands);
  });
  std::vector<uint8_t> rgba(pixels * 4);
  context.resources().read(colour_out, rgba.data(), rgba.size());
  std::vector<float> depths(pixels);
  context.resources().read(depth_out, depths.data(), pixels * 4);
  size_t wrong_colour = 0, wrong_depth = 0;
  for (VkDeviceSize i = 0; i < pixels; ++i) {
    if (rgba[4 * i] != 51 || rgba[4 * i + 1] != 102 || rgba[4 * i + 2] != 255 || rgba[4 * i + 3] != 0) {
      ++wrong_colour;
    }
    if (depths[i] != 0.25f) ++wrong_depth;
  }
  EXPECT_EQ(wrong_colour, 0u);
  EXPECT_EQ(wrong_depth, 0u);

  context.resources().destroy(colour_out);
  context.resources().destroy(depth_out);
  context.resources().destroy(colour);
  context.resources().destroy(depth);
  EXPECT_EQ(colour.image, VK_NULL_HANDLE);
  EXPECT_EQ(colour.view, VK_NULL_HANDLE);
  EXPECT_EQ(depth.memory, VK_NULL_HANDLE);
  expect_validation_clean(context);
}

TEST(GpuContext, ImageSizesOutsideTheDeviceLimitAreRefused) {
  Context context(validated());
  const uint32_t limit = context.limits().maxImageDimension2D;
  EXPECT_THROW(context.resources().create_image(0, 4, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_TRANSFER_SRC_BIT),
               std::invalid_argument);
  EXPECT_THROW(context.resources().create_image(4, limit + 1, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_TRANSFER_SRC_BIT),
               std::invalid_argument);
  expect_validation_clean(context);
}

TEST(GpuContext, AFailedRecordingLeavesTheContextUsable) {
  Context context(validated());
  EXPECT_THROW(context.submit_and_wait([](VkCommandBuffer) { throw std::runtime_error("recording failed"); }),
               std::runtime_error);
  // The command buffer of the failed attempt was freed (a leak would be reported at teardown, which stops
  // the process) and the next submission works.
  Buffer buffer = context.resources().create_buffer(256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  context.submit_and_wait([&](VkCommandBuffer commands) {
    vkCmdFillBuffer(commands, buffer.buffer, 0, 256, 0x01020304u);
    host_read_barrier(commands);
  });
  std::vector<uint32_t> words(64);
  context.resources().read(buffer, words.data(), 256);
  EXPECT_EQ(std::count(words.begin(), words.end(), 0x01020304u), 64);
  context.resources().destroy(buffer);
  expect_validation_clean(context);
}

TEST(GpuContext, TimestampsWhenSupportedAreMonotonic) {
  Context context(validated());
  if (!context.timestamps_supported()) {
    EXPECT_FALSE(context.limits().timestampComputeAndGraphics == VK_TRUE &&
                 context.limits().timestampPeriod > 0.0f)
        << "the limits allow timestamps, so the queue family must lack timestampValidBits";
    GTEST_SKIP() << context.info().name << " has no timestamps on its graphics+compute queue";
  }
  EXPECT_GT(context.timestamp_period_ns(), 0.0);
  VkQueryPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = 2;
  VkQueryPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateQueryPool(context.device(), &info, nullptr, &pool));
  Buffer buffer = context.resources().create_buffer(1 << 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  context.submit_and_wait([&](VkCommandBuffer commands) {
    vkCmdResetQueryPool(commands, pool, 0, 2);
    vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 0);
    vkCmdFillBuffer(commands, buffer.buffer, 0, VK_WHOLE_SIZE, 0u);
    vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 1);
  });
  uint64_t ticks[2] = {0, 0};
  VK_CHECK(vkGetQueryPoolResults(context.device(), pool, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  EXPECT_GE(ticks[1], ticks[0]);
  vkDestroyQueryPool(context.device(), pool, nullptr);
  context.resources().destroy(buffer);
  expect_validation_clean(context);
}

// SPIR-V of `#version 450 / layout(local_size_x = 1) in; / void main() {}`, from
// `glslc --target-env=vulkan1.1 -O -mfmt=num` (glslc 2023.2): small enough to embed, so this test does not
// depend on the shaders of the skinning and render paths.
constexpr uint32_t kEmptyComputeShader[] = {
    0x07230203, 0x00010300, 0x000d000b, 0x0000000a, 0x00000000, 0x00020011, 0x00000001, 0x0006000b,
    0x00000001, 0x4c534c47, 0x6474732e, 0x3035342e, 0x00000000, 0x0003000e, 0x00000000, 0x00000001,
    0x0005000f, 0x00000005, 0x00000004, 0x6e69616d, 0x00000000, 0x00060010, 0x00000004, 0x00000011,
    0x00000001, 0x00000001, 0x00000001, 0x00040047, 0x00000009, 0x0000000b, 0x00000019, 0x00020013,
    0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00040015, 0x00000006, 0x00000020, 0x00000000,
    0x00040017, 0x00000007, 0x00000006, 0x00000003, 0x0004002b, 0x00000006, 0x00000008, 0x00000001,
    0x0006002c, 0x00000007, 0x00000009, 0x00000008, 0x00000008, 0x00000008, 0x00050036, 0x00000002,
    0x00000004, 0x00000000, 0x00000003, 0x000200f8, 0x00000005, 0x000100fd, 0x00010038,
};

TEST(GpuContext, ShaderModuleBuildsAComputePipelineThatDispatches) {
  Context context(validated());
  VkShaderModule module =
      context.create_shader(kEmptyComputeShader, sizeof kEmptyComputeShader / sizeof kEmptyComputeShader[0]);
  ASSERT_NE(module, VK_NULL_HANDLE);
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineLayout(context.device(), &layout_info, nullptr, &layout));
  VkComputePipelineCreateInfo pipeline_info{};
  pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline_info.stage.module = module;
  pipeline_info.stage.pName = "main";
  pipeline_info.layout = layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateComputePipelines(context.device(), VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &pipeline));
  context.submit_and_wait([&](VkCommandBuffer commands) {
    vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdDispatch(commands, 4, 1, 1);
  });
  vkDestroyPipeline(context.device(), pipeline, nullptr);
  vkDestroyPipelineLayout(context.device(), layout, nullptr);
  vkDestroyShaderModule(context.device(), module, nullptr);
  expect_validation_clean(context);
}

// A pass run many times on one context compiles its shader once: two programs of the same SPIR-V and layout
// share the context's shape and pipelines (gpu/compute_pipelines.h); other words at the same address, or
// another layout, are another shape. Every object goes with the context, which the validation layer checks.
TEST(GpuContext, ComputeProgramsOfOneShaderShareTheContextsPipelines) {
  Context context(validated());
  const std::span<const uint32_t> words(kEmptyComputeShader);
  ComputeLayout layout;
  layout.bindings = {0};
  VkPipeline first_pipeline = VK_NULL_HANDLE;
  {
    ComputeProgram first(context, words, layout);
    first.prepare(0);
    first_pipeline = context.compute_pipelines().pipeline(context.compute_pipelines().shape(words, layout), 0);
  }
  ComputeProgram second(context, words, layout);
  ComputeShape& shape = context.compute_pipelines().shape(words, layout);
  EXPECT_EQ(context.compute_pipelines().pipeline(shape, 0), first_pipeline);  // made by `first`, kept
  EXPECT_EQ(shape.pipelines.size(), 1u);
  second.prepare(1);  // another specialization value: another pipeline of the same shape
  EXPECT_EQ(shape.pipelines.size(), 2u);

  ComputeLayout other_layout = layout;
  other_layout.bindings = {0, 1};
  EXPECT_NE(&context.compute_pipelines().shape(words, other_layout), &shape);
  std::vector<uint32_t> edited(words.begin(), words.end());
  ComputeShape& same_words = context.compute_pipelines().shape(edited, layout);
  EXPECT_EQ(&same_words, &shape);  // by the words, not their address
  edited[1] = 0x00010000;          // SPIR-V 1.0 in the header: other words
  EXPECT_NE(&context.compute_pipelines().shape(edited, layout), &shape);
  expect_validation_clean(context);
}

// The messenger must really count: a copy past the end of a buffer is recorded (never submitted, since the
// driver would then copy out of bounds) and the layer's error must arrive in the counts and messages. Its
// own context, so that every other test's context stays clean.
TEST(GpuContext, ValidationCountsADeliberateInvalidCopy) {
  Context context(validated());
  ASSERT_EQ(context.validation_counts().error, 0u) << joined(context.validation_messages());
  Buffer source = context.resources().create_buffer(256, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
  Buffer target = context.resources().create_buffer(256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.queueFamilyIndex = context.queue_family();
  VkCommandPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateCommandPool(context.device(), &pool_info, nullptr, &pool));
  VkCommandBufferAllocateInfo allocate_info{};
  allocate_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate_info.commandPool = pool;
  allocate_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate_info.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(context.device(), &allocate_info, &commands));
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  VK_CHECK(vkBeginCommandBuffer(commands, &begin));
  const VkBufferCopy too_large{0, 0, 512};
  vkCmdCopyBuffer(commands, source.buffer, target.buffer, 1, &too_large);
  VK_CHECK(vkEndCommandBuffer(commands));
  vkFreeCommandBuffers(context.device(), pool, 1, &commands);
  vkDestroyCommandPool(context.device(), pool, nullptr);
  context.resources().destroy(source);
  context.resources().destroy(target);

  const ValidationCounts counts = context.validation_counts();
  EXPECT_GE(counts.error, 1u);
  const std::vector<std::string> messages = context.validation_messages();
  ASSERT_FALSE(messages.empty());
  const bool names_the_copy = std::any_of(messages.begin(), messages.end(), [](const std::string& message) {
    return message.rfind("error: ", 0) == 0 && message.find("vkCmdCopyBuffer") != std::string::npos;
  });
  EXPECT_TRUE(names_the_copy) << joined(messages);
}

// Synchronization validation is on where the layer offers it: a fill followed by a copy of the same bytes
// with no barrier between them is a read-after-write hazard, and must be reported. (Executing it is
// harmless: every access is in bounds; only the ordering guarantee is missing.)
TEST(GpuContext, ValidationReportsAMissingBarrier) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceExtensionProperties("VK_LAYER_KHRONOS_validation", &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  VK_CHECK(vkEnumerateInstanceExtensionProperties("VK_LAYER_KHRONOS_validation", &count, extensions.data()));
  const bool offered = std::any_of(extensions.begin(), extensions.end(), [](const VkExtensionProperties& e) {
    return std::strcmp(e.extensionName, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME) == 0;
  });
  if (!offered) GTEST_SKIP() << "this validation layer has no VK_EXT_validation_features";
  Context context(validated());
  Buffer first =
      context.resources().create_buffer(256, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  Buffer second = context.resources().create_buffer(256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  context.submit_and_wait([&](VkCommandBuffer commands) {
    vkCmdFillBuffer(commands, first.buffer, 0, 256, 1u);
    const VkBufferCopy whole{0, 0, 256};
    vkCmdCopyBuffer(commands, first.buffer, second.buffer, 1, &whole);
  });
  context.resources().destroy(first);
  context.resources().destroy(second);
  const std::vector<std::string> messages = context.validation_messages();
  EXPECT_GE(context.validation_counts().error, 1u);
  const bool hazard = std::any_of(messages.begin(), messages.end(), [](const std::string& message) {
    return message.find("SYNC-HAZARD-READ-AFTER-WRITE") != std::string::npos;
  });
  EXPECT_TRUE(hazard) << joined(messages);
}

// A leak is reported by the layer at vkDestroyDevice, after which nobody can ask for the counts; context.h
// makes that stop the process, so a leaking test fails instead of passing. Run in a child (death test).
TEST(GpuContextDeathTest, ALeakAtTeardownStopsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the driver has threads of its own
  EXPECT_DEATH(
      {
        Context context(validated());
        Buffer leaked = context.resources().create_buffer(64, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
        (void)leaked;
      },
      "VUID-vkDestroyDevice-device-00378");
}

// ---- the `skinref devices` command ------------------------------------------------------------------------

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CliRun run_cli(const std::string& arguments) {
  const test::TempDir dir("cli");
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string command = std::string("'") + SKINREF_CLI + "' " + arguments + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  run.out = test::read_bytes(out);
  run.err = test::read_bytes(err);
  return run;
}

TEST(GpuDevicesCommand, ListsEveryDeviceByName) {
  const std::vector<DeviceInfo> devices = list_devices();
  const CliRun run = run_cli("devices");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.err.empty()) << run.err;
  for (const DeviceInfo& device : devices) {
    const std::string line_start = std::to_string(device.index) + ": " + device.name + " [" + device.type;
    EXPECT_NE(run.out.find(line_start), std::string::npos) << run.out;
  }
  EXPECT_EQ(static_cast<size_t>(std::count(run.out.begin(), run.out.end(), '\n')), devices.size()) << run.out;
}

TEST(GpuDevicesCommand, JsonMatchesListDevices) {
  const std::vector<DeviceInfo> devices = list_devices();
  const CliRun run = run_cli("devices --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json root = nlohmann::json::parse(run.out);
  ASSERT_TRUE(root.at("devices").is_array());
  ASSERT_EQ(root["devices"].size(), devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    const nlohmann::json& entry = root["devices"][i];
    EXPECT_EQ(entry.at("index").get<int>(), devices[i].index);
    EXPECT_EQ(entry.at("name").get<std::string>(), devices[i].name);
    EXPECT_EQ(entry.at("type").get<std::string>(), devices[i].type);
    EXPECT_EQ(entry.at("driver").get<std::string>(), devices[i].driver);
    const uint32_t v = devices[i].api_version;
    EXPECT_EQ(entry.at("api_version").get<std::string>(),
              std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
                  std::to_string(VK_API_VERSION_PATCH(v)));
  }
}

TEST(GpuDevicesCommand, UnexpectedArgumentsAreUsageErrors) {
  for (const std::string& arguments : {std::string("devices extra"), std::string("devices --bogus")}) {
    const CliRun run = run_cli(arguments);
    EXPECT_EQ(run.exit_code, 2) << arguments;
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_EQ(run.err.rfind("skinref: devices: ", 0), 0u) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
}

TEST(GpuVkCheck, NamesEveryCoreResultAndThrowsGpuError) {
  // Every VkResult of the 1.0-1.3 core, with its name as the specification spells it.
  const std::vector<std::pair<VkResult, std::string>> core{
      {VK_SUCCESS, "VK_SUCCESS"},
      {VK_NOT_READY, "VK_NOT_READY"},
      {VK_TIMEOUT, "VK_TIMEOUT"},
      {VK_EVENT_SET, "VK_EVENT_SET"},
      {VK_EVENT_RESET, "VK_EVENT_RESET"},
      {VK_INCOMPLETE, "VK_INCOMPLETE"},
      {VK_ERROR_OUT_OF_HOST_MEMORY, "VK_ERROR_OUT_OF_HOST_MEMORY"},
      {VK_ERROR_OUT_OF_DEVICE_MEMORY, "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
      {VK_ERROR_INITIALIZATION_FAILED, "VK_ERROR_INITIALIZATION_FAILED"},
      {VK_ERROR_DEVICE_LOST, "VK_ERROR_DEVICE_LOST"},
      {VK_ERROR_MEMORY_MAP_FAILED, "VK_ERROR_MEMORY_MAP_FAILED"},
      {VK_ERROR_LAYER_NOT_PRESENT, "VK_ERROR_LAYER_NOT_PRESENT"},
      {VK_ERROR_EXTENSION_NOT_PRESENT, "VK_ERROR_EXTENSION_NOT_PRESENT"},
      {VK_ERROR_FEATURE_NOT_PRESENT, "VK_ERROR_FEATURE_NOT_PRESENT"},
      {VK_ERROR_INCOMPATIBLE_DRIVER, "VK_ERROR_INCOMPATIBLE_DRIVER"},
      {VK_ERROR_TOO_MANY_OBJECTS, "VK_ERROR_TOO_MANY_OBJECTS"},
      {VK_ERROR_FORMAT_NOT_SUPPORTED, "VK_ERROR_FORMAT_NOT_SUPPORTED"},
      {VK_ERROR_FRAGMENTED_POOL, "VK_ERROR_FRAGMENTED_POOL"},
      {VK_ERROR_UNKNOWN, "VK_ERROR_UNKNOWN"},
      {VK_ERROR_OUT_OF_POOL_MEMORY, "VK_ERROR_OUT_OF_POOL_MEMORY"},
      {VK_ERROR_INVALID_EXTERNAL_HANDLE, "VK_ERROR_INVALID_EXTERNAL_HANDLE"},
      {VK_ERROR_FRAGMENTATION, "VK_ERROR_FRAGMENTATION"},
      {VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS, "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS"},
      {VK_PIPELINE_COMPILE_REQUIRED, "VK_PIPELINE_COMPILE_REQUIRED"},
  };
  for (const auto& [result, name] : core) EXPECT_EQ(vk_result_name(result), name);
  // A value newer than the headers still names its number.
  EXPECT_NE(std::string(vk_result_name(static_cast<VkResult>(-424242))).find("-424242"), std::string::npos);

  auto failing_call = [] { return VK_ERROR_INITIALIZATION_FAILED; };
  try {
    VK_CHECK(failing_call());
    FAIL() << "VK_CHECK did not throw";
  } catch (const GpuError& error) {
    EXPECT_STREQ(error.what(), "failing_call() failed: VK_ERROR_INITIALIZATION_FAILED");
  }
  EXPECT_NO_THROW(VK_CHECK(VK_SUCCESS));
}

TEST(GpuVkCheck, NamesComeFromTheHeadersInTheSpellingOfVulkanCore) {
  // vk_result_name turns Vulkan-Hpp's names ("ErrorOutOfHostMemory") into vulkan_core.h's: the expected names
  // below are vulkan_core.h's enumerators, typed from that header. They cover one word, several words, a
  // vendor suffix (KHR, EXT, NV) as one word, an abbreviation inside a name (DRM), success codes, and the one
  // result Vulkan-Hpp names on Windows only.
  const std::vector<std::pair<VkResult, std::string>> named{
      {VK_SUCCESS, "VK_SUCCESS"},
      {VK_INCOMPLETE, "VK_INCOMPLETE"},
      {VK_ERROR_OUT_OF_HOST_MEMORY, "VK_ERROR_OUT_OF_HOST_MEMORY"},
      {VK_ERROR_OUT_OF_POOL_MEMORY, "VK_ERROR_OUT_OF_POOL_MEMORY"},
      {VK_PIPELINE_COMPILE_REQUIRED, "VK_PIPELINE_COMPILE_REQUIRED"},
      {VK_SUBOPTIMAL_KHR, "VK_SUBOPTIMAL_KHR"},
      {VK_ERROR_OUT_OF_DATE_KHR, "VK_ERROR_OUT_OF_DATE_KHR"},
      {VK_ERROR_VALIDATION_FAILED_EXT, "VK_ERROR_VALIDATION_FAILED_EXT"},
      {VK_ERROR_INVALID_SHADER_NV, "VK_ERROR_INVALID_SHADER_NV"},
      {VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT, "VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT"},
#if defined(VK_VERSION_1_4)  // VK_KHR_global_priority's result became core in 1.4, without the suffix
      {VK_ERROR_NOT_PERMITTED_KHR, "VK_ERROR_NOT_PERMITTED"},
#else
      {VK_ERROR_NOT_PERMITTED_KHR, "VK_ERROR_NOT_PERMITTED_KHR"},
#endif
      {VK_OPERATION_NOT_DEFERRED_KHR, "VK_OPERATION_NOT_DEFERRED_KHR"},
      {VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT, "VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT"},
#if VK_HEADER_VERSION >= 238  // the video results left the beta headers in 1.3.238
      {VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR, "VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR"},
#endif
#if VK_HEADER_VERSION >= 213  // added with VK_EXT_image_compression_control
      {VK_ERROR_COMPRESSION_EXHAUSTED_EXT, "VK_ERROR_COMPRESSION_EXHAUSTED_EXT"},
#endif
  };
  for (const auto& [result, name] : named) EXPECT_EQ(vk_result_name(result), name) << static_cast<int>(result);

  // Values the headers do not know name their number, negative or positive.
  EXPECT_EQ(std::string(vk_result_name(static_cast<VkResult>(-12345))), "VkResult -12345 (unknown to these headers)");
  EXPECT_EQ(std::string(vk_result_name(static_cast<VkResult>(777))), "VkResult 777 (unknown to these headers)");

  // The text outlives later calls: VK_CHECK's callers and the teardown message keep the pointer.
  const char* first = vk_result_name(VK_ERROR_DEVICE_LOST);
  for (const auto& [result, name] : named) vk_result_name(result);
  vk_result_name(static_cast<VkResult>(-54321));
  EXPECT_STREQ(first, "VK_ERROR_DEVICE_LOST");
  EXPECT_EQ(vk_result_name(VK_ERROR_DEVICE_LOST), first);
}

}  // namespace
}  // namespace skinref::gpu

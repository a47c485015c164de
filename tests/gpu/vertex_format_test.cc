// Vertex formats (gpu/vertex_format.h): names read and written back, the VkFormat each is, the bytes of each
// component type against values worked by hand, and float32 to half against IEEE 754 binary16's table.
#include "gpu/user_vertex_skinning.h"
#include "gpu/vertex_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace skinref::gpu {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

TEST(VertexFormat, NamesReadBackAndAreVulkans) {
  const struct {
    const char* name;
    VkFormat vulkan;
  } kFormats[] = {
      {"R32_SFLOAT", VK_FORMAT_R32_SFLOAT},           {"R32G32_SFLOAT", VK_FORMAT_R32G32_SFLOAT},
      {"R32G32B32_SFLOAT", VK_FORMAT_R32G32B32_SFLOAT}, {"R32G32B32A32_SFLOAT", VK_FORMAT_R32G32B32A32_SFLOAT},
      {"R16G16_SFLOAT", VK_FORMAT_R16G16_SFLOAT},     {"R16G16B16A16_SFLOAT", VK_FORMAT_R16G16B16A16_SFLOAT},
      {"R8_UNORM", VK_FORMAT_R8_UNORM},               {"R8G8_SNORM", VK_FORMAT_R8G8_SNORM},
      {"R8G8B8_UNORM", VK_FORMAT_R8G8B8_UNORM},       {"R8G8B8A8_UNORM", VK_FORMAT_R8G8B8A8_UNORM},
      {"R8G8B8A8_SNORM", VK_FORMAT_R8G8B8A8_SNORM},   {"R8G8B8A8_UINT", VK_FORMAT_R8G8B8A8_UINT},
      {"R8G8B8A8_SINT", VK_FORMAT_R8G8B8A8_SINT},     {"R16_UINT", VK_FORMAT_R16_UINT},
      {"R16G16B16_SNORM", VK_FORMAT_R16G16B16_SNORM}, {"R16G16B16A16_UNORM", VK_FORMAT_R16G16B16A16_UNORM},
      {"R16G16B16A16_SINT", VK_FORMAT_R16G16B16A16_SINT}, {"R32_UINT", VK_FORMAT_R32_UINT},
      {"R32G32B32A32_UINT", VK_FORMAT_R32G32B32A32_UINT}, {"R32G32B32A32_SINT", VK_FORMAT_R32G32B32A32_SINT},
  };
  for (const auto& f : kFormats) {
    const std::optional<VertexFormat> format = parse_vertex_format(f.name);
    ASSERT_TRUE(format.has_value()) << f.name;
    EXPECT_EQ(vertex_format_name(*format), f.name);
    EXPECT_EQ(vulkan_vertex_format(*format), f.vulkan) << f.name;
  }
  for (const char* refused : {"R8G8B8A8_SRGB", "R64_SFLOAT", "R8_SFLOAT", "R32_UNORM", "B8G8R8A8_UNORM",
                              "R16G16B16A16_USCALED", "R32G32B32A32B32_SFLOAT", "", "r32_sfloat"})
    EXPECT_FALSE(parse_vertex_format(refused).has_value()) << refused;
  EXPECT_EQ(vertex_format_bytes(*parse_vertex_format("R16G16B16_SNORM")), 6u);
}

TEST(VertexFormat, ComponentsAreWrittenAsVulkanReadsThem) {
  std::vector<std::byte> bytes(16, std::byte{0});
  const auto u8 = [&](size_t i) { return std::to_integer<int>(bytes[i]); };
  put_vertex_component(bytes, 0, *parse_vertex_format("R8G8B8A8_UNORM"), 1, 0.5);  // 127.5 rounds to 128
  EXPECT_EQ(u8(1), 128);
  put_vertex_component(bytes, 0, *parse_vertex_format("R8G8B8A8_UNORM"), 2, 1.7);  // clamped
  EXPECT_EQ(u8(2), 255);
  put_vertex_component(bytes, 4, *parse_vertex_format("R8G8_SNORM"), 0, -1.0);  // -127
  EXPECT_EQ(u8(4), 0x81);
  put_vertex_component(bytes, 4, *parse_vertex_format("R8G8_SNORM"), 1, -0.5);  // -63.5 rounds to -64
  EXPECT_EQ(u8(5), 0xC0);
  put_vertex_component(bytes, 8, *parse_vertex_format("R16_SINT"), 0, -2.0);
  EXPECT_EQ(u8(8), 0xFE);
  EXPECT_EQ(u8(9), 0xFF);
  put_vertex_component(bytes, 10, *parse_vertex_format("R16_UINT"), 0, 70000.0);  // clamped to 65535
  EXPECT_EQ(u8(10), 0xFF);
  EXPECT_EQ(u8(11), 0xFF);
  EXPECT_EQ(smallest_integer(*parse_vertex_format("R8_SINT")), -128);
  EXPECT_EQ(largest_integer(*parse_vertex_format("R32_UINT")), 4294967295ll);
}

TEST(VertexFormat, HalvesRoundToNearestEven) {
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(half_bits(1.0f), 0x3C00);
  EXPECT_EQ(half_bits(-2.0f), 0xC000);
  EXPECT_EQ(half_bits(0.5f), 0x3800);
  EXPECT_EQ(half_bits(65504.0f), 0x7BFF);                     // the largest half
  EXPECT_EQ(half_bits(65520.0f), 0x7C00);                     // halfway to the next: to even, infinity
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -14)), 0x0400);        // the smallest normal
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -24)), 0x0001);        // the smallest subnormal
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -25)), 0x0000);        // half of it: to even, zero
  EXPECT_EQ(half_bits(std::ldexp(3.0f, -25)), 0x0002);        // 1.5 units: to even, 2
  EXPECT_EQ(half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // halfway between 1 and its successor: to even
  EXPECT_EQ(half_bits(1.0f + std::ldexp(3.0f, -11)), 0x3C02);  // halfway between 1+2^-10 and 1+2^-9: to even
  EXPECT_EQ(half_bits(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(half_bits(std::nanf("")) & 0x7C00, 0x7C00);
  EXPECT_NE(half_bits(std::nanf("")) & 0x03FF, 0);
}

}  // namespace SKINREF_UNITY_ID
}  // namespace skinref::gpu

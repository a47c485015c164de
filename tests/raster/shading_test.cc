// Shading formulas (shading.h): the sRGB transfer functions against IEC 61966-2-1's published values and
// their 8-bit round trip, texture sampling of a 2x2 texture (bilinear in linear space, NEAREST, the three glTF
// wrap modes outside [0, 1]), Lambert lighting at its limits and the weight heat map.
#include "raster/shading.h"
#include "support/math_expect.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_vec3_near;

// ---- sRGB --------------------------------------------------------------------------------------------------

TEST(Srgb, PublishedValues) {
  // 1.055 * 0.5^(1/2.4) - 0.055, the value every sRGB table gives for linear 0.5.
  EXPECT_NEAR(linear_to_srgb(0.5), 0.7353569830524495, tol::kClosedForm);
  EXPECT_EQ(encode_srgb8(0.5), 188);
  // Byte 128 decodes to ((128 / 255 + 0.055) / 1.055)^2.4.
  EXPECT_NEAR(srgb_to_linear(128.0 / 255.0), 0.21586050011389926, tol::kClosedForm);
  EXPECT_EQ(srgb_to_linear(0.0), 0.0);
  EXPECT_EQ(srgb_to_linear(1.0), 1.0);
  EXPECT_NEAR(linear_to_srgb(1.0), 1.0, tol::kClosedForm);
  EXPECT_EQ(encode_srgb8(0.0), 0);
  EXPECT_EQ(encode_srgb8(1.0), 255);
}

TEST(Srgb, LinearSegmentBelowTheThresholds) {
  EXPECT_DOUBLE_EQ(srgb_to_linear(0.04045), 0.04045 / 12.92);
  EXPECT_DOUBLE_EQ(srgb_to_linear(0.02), 0.02 / 12.92);
  EXPECT_DOUBLE_EQ(linear_to_srgb(0.0031308), 0.0031308 * 12.92);
  EXPECT_DOUBLE_EQ(linear_to_srgb(0.001), 0.001 * 12.92);
  // The two segments meet (the published constants agree to about 1e-7 at the threshold).
  EXPECT_NEAR(linear_to_srgb(0.0031308 * (1.0 + 1e-9)), 0.0031308 * 12.92, tol::kSrgbSegmentJoin);
}

TEST(Srgb, EveryByteRoundTrips) {
  for (int byte = 0; byte < 256; ++byte) {
    const double linear = srgb_to_linear(byte / 255.0);
    EXPECT_EQ(encode_srgb8(linear), byte) << "byte " << byte;
    EXPECT_NEAR(linear_to_srgb(linear), byte / 255.0, tol::kClosedForm) << "byte " << byte;
  }
}

TEST(Srgb, EncodeClampsAndRoundsHalfUp) {
  EXPECT_EQ(encode_srgb8(-0.5), 0);
  EXPECT_EQ(encode_srgb8(1.5), 255);
  EXPECT_EQ(encode_srgb8(std::numeric_limits<double>::infinity()), 255);
  EXPECT_EQ(encode_srgb8(std::numeric_limits<double>::quiet_NaN()), 0);
  // floor(255 s + 0.5): the linear value whose encoding is exactly 10.5 / 255 rounds up to 11, a hair below
  // it to 10.
  const double half = srgb_to_linear(10.5 / 255.0);
  EXPECT_EQ(encode_srgb8(half * (1.0 + 1e-9)), 11);
  EXPECT_EQ(encode_srgb8(half * (1.0 - 1e-9)), 10);
}

// ---- texture sampling --------------------------------------------------------------------------------------

// Texels (x, y), y = 0 the top row: red, green / blue, white with alpha 0. Bytes 0 and 255 decode to exactly
// 0 and 1, so every expected value below is exact.
const Vec4 kRed(1.0, 0.0, 0.0, 1.0);
const Vec4 kGreen(0.0, 1.0, 0.0, 1.0);
const Vec4 kBlue(0.0, 0.0, 1.0, 1.0);
const Vec4 kClearWhite(1.0, 1.0, 1.0, 0.0);

Scene texture_scene(Filter filter, WrapMode wrap) {
  Scene scene;
  Image image;
  image.width = 2;
  image.height = 2;
  image.rgba8 = {255, 0, 0, 255, 0, 255, 0, 255,  // top row
                 0, 0, 255, 255, 255, 255, 255, 0};
  scene.images.push_back(image);
  Texture texture;
  texture.image = 0;
  texture.sampler.mag_filter = filter;
  texture.sampler.min_filter = filter;
  texture.sampler.wrap_s = wrap;
  texture.sampler.wrap_t = wrap;
  scene.textures.push_back(texture);
  return scene;
}

void expect_vec4_eq(const Vec4& actual, const Vec4& expected) {
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(actual[c], expected[c]) << "channel " << c << ": actual " << actual.transpose() << ", expected "
                                      << expected.transpose();
  }
}

TEST(SampleTexture, BilinearAtTexelCentresGivesTheTexel) {
  const Scene scene = texture_scene(Filter::Linear, WrapMode::Repeat);
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.25, 0.25)), kRed);
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.75, 0.25)), kGreen);
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.25, 0.75)), kBlue);
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.75, 0.75)), kClearWhite);
}

TEST(SampleTexture, BilinearHalfwayAveragesLinearValues) {
  const Scene scene = texture_scene(Filter::Linear, WrapMode::Repeat);
  // Between red and green: 0.5 in linear terms (an average of the encoded bytes would decode to 0.216).
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.5, 0.25)), Vec4(0.5, 0.5, 0.0, 1.0));
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.25, 0.5)), Vec4(0.5, 0.0, 0.5, 1.0));
  // The centre of the texture: all four, equally.
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.5, 0.5)), Vec4(0.5, 0.5, 0.5, 0.75));
  // A quarter of the way from red to green: 0.75 red + 0.25 green.
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.375, 0.25)), Vec4(0.75, 0.25, 0.0, 1.0));
}

// The range under a quantized filter: at uv (0.375, 0.25) the weights are a = 0.25 (towards green) and b = 0
// (towards the bottom row); with 3 sub-texel bits each may move by 1/8, b clamped at 0. The blend is linear
// in each weight, so its extremes are at the corners (a, b) in {0.125, 0.375} x {0, 0.125}. Per channel:
// red (1 - b)(1 - a) + b a, green a, blue b, alpha 1 - a b; all values dyadic, so exact.
TEST(SampleTexture, RangeUnderAQuantizedFilterIsTheCornersOfTheWeightBox) {
  const Scene scene = texture_scene(Filter::Linear, WrapMode::Repeat);
  const Vec2 uv(0.375, 0.25);
  const TextureSampleRange range = sample_texture_range(scene, 0, uv, 3);
  expect_vec4_eq(range.low, Vec4(0.59375, 0.125, 0.0, 0.953125));
  expect_vec4_eq(range.high, Vec4(0.875, 0.375, 0.125, 1.0));
  expect_vec4_eq(sample_texture(scene, 0, uv), Vec4(0.75, 0.25, 0.0, 1.0));
  // No quantization stated, or NEAREST: the sample itself.
  const TextureSampleRange exact = sample_texture_range(scene, 0, uv, 0);
  expect_vec4_eq(exact.low, Vec4(0.75, 0.25, 0.0, 1.0));
  expect_vec4_eq(exact.high, Vec4(0.75, 0.25, 0.0, 1.0));
  const Scene nearest = texture_scene(Filter::Nearest, WrapMode::Repeat);
  const TextureSampleRange point = sample_texture_range(nearest, 0, uv, 8);
  expect_vec4_eq(point.low, kRed);
  expect_vec4_eq(point.high, kRed);
}

TEST(SampleTexture, WrapModesOutsideTheUnitSquare) {
  // u = -0.25 is texel x -1 (centre), u = 1.25 is x 2, u = 1.75 is x 3, u = 1.0 halfway between x 1 and 2.
  const double v = 0.25;  // the top row, exactly
  {
    SCOPED_TRACE("REPEAT: x mod 2");
    const Scene scene = texture_scene(Filter::Linear, WrapMode::Repeat);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(-0.25, v)), kGreen);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.25, v)), kRed);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.75, v)), kGreen);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.0, v)), Vec4(0.5, 0.5, 0.0, 1.0));  // green | red
    expect_vec4_eq(sample_texture(scene, 0, Vec2(0.25, -0.25)), kBlue);                // y -1 -> 1
  }
  {
    SCOPED_TRACE("CLAMP_TO_EDGE: x clamped to [0, 1]");
    const Scene scene = texture_scene(Filter::Linear, WrapMode::ClampToEdge);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(-0.25, v)), kRed);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.25, v)), kGreen);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.75, v)), kGreen);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.0, v)), kGreen);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(0.25, -0.25)), kRed);
  }
  {
    SCOPED_TRACE("MIRRORED_REPEAT: ... 1 0 | 0 1 | 1 0 ...");
    const Scene scene = texture_scene(Filter::Linear, WrapMode::MirroredRepeat);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(-0.25, v)), kRed);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.25, v)), kGreen);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.75, v)), kRed);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(1.0, v)), kGreen);
    expect_vec4_eq(sample_texture(scene, 0, Vec2(-0.75, v)), kGreen);  // x -2 -> 1
    expect_vec4_eq(sample_texture(scene, 0, Vec2(0.25, -0.25)), kRed);
  }
}

TEST(SampleTexture, NearestTakesTheTexelContainingUv) {
  const Scene scene = texture_scene(Filter::Nearest, WrapMode::Repeat);
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.49, 0.49)), kRed);
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.49, 0.51)), kBlue);
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.5, 0.5)), kClearWhite);  // the boundary belongs to texel 1
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.99, 0.01)), kGreen);
  expect_vec4_eq(sample_texture(scene, 0, Vec2(-0.1, 0.2)), kGreen);  // x -1 wraps to 1
  const Scene clamped = texture_scene(Filter::Nearest, WrapMode::ClampToEdge);
  expect_vec4_eq(sample_texture(clamped, 0, Vec2(-0.1, 0.2)), kRed);
  expect_vec4_eq(sample_texture(clamped, 0, Vec2(7.0, 9.0)), kClearWhite);
}

TEST(SampleTexture, TextureWithoutImageIsWhite) {
  Scene scene = texture_scene(Filter::Linear, WrapMode::Repeat);
  scene.textures[0].image = -1;
  expect_vec4_eq(sample_texture(scene, 0, Vec2(0.25, 0.25)), Vec4::Ones());
}

// ---- lighting and the heat map -----------------------------------------------------------------------------

TEST(ShadeLambert, FacingTheLightGivesTheBaseColour) {
  const Vec3 base(0.8, 0.4, 0.2);
  expect_vec3_near(shade_lambert(base, kLightDirection), base, tol::kClosedForm);
}

TEST(ShadeLambert, FacingAwayGivesTheAmbientShare) {
  const Vec3 base(0.8, 0.4, 0.2);
  const Vec3 ambient = kAmbient * base;
  expect_vec3_near(shade_lambert(base, -kLightDirection), ambient, tol::kClosedForm);
  // Perpendicular to the light: n . L = 0 exactly for this normal.
  const Vec3 perpendicular = kLightDirection.cross(Vec3::UnitX()).normalized();
  expect_vec3_near(shade_lambert(base, perpendicular), ambient, tol::kClosedForm);
}

TEST(ShadeLambert, SixtyDegreesFromTheLightGetsHalfTheDiffuse) {
  const Vec3 base(0.8, 0.4, 0.2);
  const Vec3 side = kLightDirection.cross(Vec3::UnitX()).normalized();
  const Vec3 normal = 0.5 * kLightDirection + (std::sqrt(3.0) / 2.0) * side;  // n . L = cos 60 degrees
  expect_vec3_near(shade_lambert(base, normal), (kAmbient + (1.0 - kAmbient) * 0.5) * base, tol::kClosedForm);
}

TEST(ShadeLambert, LightComesFromAboveRightAndFront) {
  // The documented direction: normalize(0.3, 0.8, 0.5).
  expect_vec3_near(kLightDirection, Vec3(0.3, 0.8, 0.5) / std::sqrt(0.98), tol::kClosedForm);
}

TEST(HeatColor, BlueGreenRed) {
  expect_vec3_near(heat_color(0.0), Vec3(0.0, 0.0, 1.0), 0.0);
  expect_vec3_near(heat_color(0.5), Vec3(0.5, 1.0, 0.5), 0.0);
  expect_vec3_near(heat_color(1.0), Vec3(1.0, 0.0, 0.0), 0.0);
  expect_vec3_near(heat_color(0.25), Vec3(0.25, 0.75, 0.75), 0.0);
  // Clamped to [0, 1] first.
  expect_vec3_near(heat_color(1.5), Vec3(1.0, 0.0, 0.0), 0.0);
  expect_vec3_near(heat_color(-0.5), Vec3(0.0, 0.0, 1.0), 0.0);
}

}  // namespace
}  // namespace skinref

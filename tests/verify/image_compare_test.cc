// Image comparison (image_compare.h) on small images whose metrics follow by hand: identical images, one
// channel of one pixel off, an edge shifted by one and two pixels (strict and position-tolerant), coverage
// mismatches against the renderer's background, the heat map's legend colours, the side-by-side layout,
// and refusals (sizes, options).
#include "support/tolerances.h"
#include "verify/image_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

constexpr Rgba8 kGrey = {100, 150, 200, 255};
constexpr Rgba8 kOrange = {220, 120, 40, 255};

RgbaImage filled(int width, int height, const Rgba8& colour) {
  RgbaImage image;
  image.width = width;
  image.height = height;
  for (int p = 0; p < width * height; ++p) image.pixels.insert(image.pixels.end(), colour.begin(), colour.end());
  return image;
}

uint8_t* pixel(RgbaImage& image, int x, int y) {
  return &image.pixels[(size_t(y) * size_t(image.width) + size_t(x)) * 4];
}

Rgba8 at(const RgbaImage& image, int x, int y) {
  const uint8_t* p = &image.pixels[(size_t(y) * size_t(image.width) + size_t(x)) * 4];
  return {p[0], p[1], p[2], p[3]};
}

void set(RgbaImage& image, int x, int y, const Rgba8& colour) {
  uint8_t* p = pixel(image, x, y);
  for (int c = 0; c < 4; ++c) p[c] = colour[size_t(c)];
}

// A vertical edge: columns x < edge are `colour`, the rest the renderer's background.
RgbaImage edge_image(int width, int height, int edge, const Rgba8& colour) {
  RgbaImage image = filled(width, height, encoded_background());
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < edge; ++x) set(image, x, y, colour);
  }
  return image;
}

// Every pixel different, so that a wrong index shows.
RgbaImage pattern(int width, int height) {
  RgbaImage image = filled(width, height, {0, 0, 0, 255});
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      set(image, x, y, {uint8_t(x * 7 + y), uint8_t(y * 13), uint8_t((x * y) % 256), 255});
    }
  }
  return image;
}

TEST(ImageCompare, BackgroundIsTheEncodedClearColour) {
  // kBackground = (0.05, 0.05, 0.06) linear; sRGB: 255 (1.055 c^(1/2.4) - 0.055) = 63.19, 63.19, 69.28.
  EXPECT_EQ(encoded_background(), (Rgba8{63, 63, 69, 255}));
  EXPECT_EQ(ImageCompareOptions{}.background, encoded_background());
  EXPECT_EQ(ImageCompareOptions{}.threshold, 1);
  EXPECT_EQ(ImageCompareOptions{}.position_tolerance_px, 0);
}

TEST(ImageCompare, IdenticalImages) {
  const RgbaImage image = pattern(19, 11);
  const ImageComparison c = compare_images(image, image);
  EXPECT_EQ(c.width, 19);
  EXPECT_EQ(c.height, 11);
  EXPECT_EQ(c.pixel_count, 19u * 11u);
  EXPECT_EQ(c.max_channel_difference, 0);
  EXPECT_EQ(c.max_x, -1);
  EXPECT_EQ(c.max_y, -1);
  EXPECT_EQ(c.max_channel, -1);
  EXPECT_EQ(c.pixels_over_threshold, 0u);
  EXPECT_EQ(c.fraction_over_threshold, 0.0);
  EXPECT_EQ(c.coverage_mismatches, 0u);
  EXPECT_EQ(c.tolerant_failures, 0u);
  EXPECT_EQ(c.psnr_rgb_db, std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.mean_absolute_difference_rgb, 0.0);
}

TEST(ImageCompare, OnePixelOffByThree) {
  constexpr int kWidth = 7, kHeight = 5;
  const RgbaImage a = filled(kWidth, kHeight, kGrey);
  RgbaImage b = a;
  pixel(b, 4, 2)[1] += 3;  // G 150 -> 153
  const ImageComparison c = compare_images(a, b);
  EXPECT_EQ(c.max_channel_difference, 3);
  EXPECT_EQ(c.max_x, 4);
  EXPECT_EQ(c.max_y, 2);
  EXPECT_EQ(c.max_channel, 1);
  EXPECT_EQ(c.pixels_over_threshold, 1u);
  EXPECT_DOUBLE_EQ(c.fraction_over_threshold, 1.0 / 35.0);
  EXPECT_EQ(c.coverage_mismatches, 0u);
  // MSE over RGB = 3^2 / (3 * 35); PSNR = 10 log10(255^2 / MSE) = 10 log10(758625) = 58.8002715...
  const double mse = 9.0 / (3.0 * kWidth * kHeight);
  EXPECT_NEAR(c.psnr_rgb_db, 10.0 * std::log10(255.0 * 255.0 / mse), tol::kClosedForm);
  EXPECT_NEAR(c.psnr_rgb_db, 58.80027150498524, 1e-9);
  EXPECT_NEAR(c.mean_absolute_difference_rgb, 3.0 / (3.0 * kWidth * kHeight), tol::kClosedForm);
  // Without a position tolerance the tolerant count is the strict one.
  EXPECT_EQ(c.tolerant_failures, 1u);
  // With one: A's pixel finds its grey in B's neighbours, but B's 153 finds no match in A (all 150): the
  // check runs both ways, so the pixel still fails.
  const ImageComparison tolerant = compare_images(a, b, {.threshold = 1, .position_tolerance_px = 1});
  EXPECT_EQ(tolerant.tolerant_failures, 1u);
  EXPECT_DOUBLE_EQ(tolerant.fraction_tolerant_failures, 1.0 / 35.0);
  // Threshold 3 lets it pass; the maximum and PSNR do not depend on the threshold.
  const ImageComparison lenient = compare_images(a, b, {.threshold = 3});
  EXPECT_EQ(lenient.pixels_over_threshold, 0u);
  EXPECT_EQ(lenient.tolerant_failures, 0u);
  EXPECT_EQ(lenient.max_channel_difference, 3);
  EXPECT_EQ(lenient.psnr_rgb_db, c.psnr_rgb_db);
}

TEST(ImageCompare, MaximumIsTheFirstInRowMajorOrderAndAlphaCounts) {
  const RgbaImage a = filled(6, 4, kGrey);
  RgbaImage b = a;
  pixel(b, 5, 1)[2] -= 9;  // B at (5, 1)
  pixel(b, 1, 3)[0] -= 9;  // R at (1, 3): later in row-major order, same size
  pixel(b, 0, 0)[3] -= 2;  // alpha: counted in d(p), not in PSNR
  const ImageComparison c = compare_images(a, b);
  EXPECT_EQ(c.max_channel_difference, 9);
  EXPECT_EQ(c.max_x, 5);
  EXPECT_EQ(c.max_y, 1);
  EXPECT_EQ(c.max_channel, 2);
  EXPECT_EQ(c.pixels_over_threshold, 3u);
  EXPECT_NEAR(c.psnr_rgb_db, 10.0 * std::log10(255.0 * 255.0 / ((81.0 + 81.0) / (3.0 * 24))), tol::kClosedForm);
  EXPECT_NEAR(c.mean_absolute_difference_rgb, 18.0 / (3.0 * 24), tol::kClosedForm);
}

TEST(ImageCompare, EdgeShiftedByOnePixelPassesWithOnePixelTolerance) {
  constexpr int kWidth = 10, kHeight = 6;
  const RgbaImage a = edge_image(kWidth, kHeight, 4, kOrange);
  const RgbaImage b = edge_image(kWidth, kHeight, 5, kOrange);  // column 4 covered in B only
  const ImageComparison strict = compare_images(a, b);
  EXPECT_EQ(strict.pixels_over_threshold, size_t(kHeight));
  EXPECT_EQ(strict.tolerant_failures, size_t(kHeight));
  EXPECT_EQ(strict.coverage_mismatches, size_t(kHeight));
  EXPECT_EQ(strict.max_x, 4);
  EXPECT_EQ(strict.max_y, 0);
  EXPECT_EQ(strict.max_channel, 0);
  EXPECT_EQ(strict.max_channel_difference, 220 - 63);
  // A's background at column 4 has background at column 5 of B; B's orange has orange at column 3 of A.
  const ImageComparison tolerant = compare_images(a, b, {.threshold = 1, .position_tolerance_px = 1});
  EXPECT_EQ(tolerant.tolerant_failures, 0u);
  EXPECT_EQ(tolerant.pixels_over_threshold, size_t(kHeight));  // the strict count is still reported
  EXPECT_EQ(tolerant.coverage_mismatches, size_t(kHeight));
  // Shifted by two, columns 4 and 5 differ and both fail with one pixel: at column 4, A's background has
  // only orange in columns 3 to 5 of C; at column 5, C's orange has only background in columns 4 to 6 of A.
  // Two pixels reach C's background at 6 and A's orange at 3 from either column.
  const RgbaImage c = edge_image(kWidth, kHeight, 6, kOrange);
  const ImageComparison two = compare_images(a, c, {.threshold = 1, .position_tolerance_px = 1});
  EXPECT_EQ(two.pixels_over_threshold, size_t(2 * kHeight));
  EXPECT_EQ(two.tolerant_failures, size_t(2 * kHeight));
  EXPECT_EQ(compare_images(a, c, {.threshold = 1, .position_tolerance_px = 2}).tolerant_failures, 0u);
}

TEST(ImageCompare, CoverageMismatchNeedsExactBackground) {
  const Rgba8 background = encoded_background();
  RgbaImage a = filled(4, 3, background);
  RgbaImage b = a;
  set(b, 1, 1, kOrange);                                                        // covered in B only
  set(a, 2, 2, {background[0], uint8_t(background[1] + 1), background[2], 255});  // near, not exactly background
  set(b, 3, 0, kGrey);
  set(a, 3, 0, kOrange);  // covered in both, differently
  const ImageComparison c = compare_images(a, b);
  EXPECT_EQ(c.coverage_mismatches, 2u);  // (1, 1) and (2, 2); (3, 0) is covered in both
  EXPECT_EQ(c.pixels_over_threshold, 2u);  // (1, 1) and (3, 0); (2, 2) is 1 step off
  // Another background colour changes what counts as coverage.
  ImageCompareOptions options;
  options.background = kOrange;
  EXPECT_EQ(compare_images(a, b, options).coverage_mismatches, 2u);  // (1, 1) orange in B, (3, 0) in A
}

TEST(ImageCompare, HeatMapColoursFollowTheLegend) {
  const RgbaImage a = filled(8, 2, kGrey);
  RgbaImage b = a;
  pixel(b, 0, 0)[1] += 1;   // d = 1 <= threshold 1: grey
  pixel(b, 1, 0)[1] += 4;   // t = log2(4) / 8 = 0.25: cyan
  pixel(b, 2, 0)[1] += 16;  // 0.5: green
  pixel(b, 3, 0)[1] += 64;  // 0.75: yellow
  pixel(b, 4, 0)[0] += 3;   // t = log2(3) / 8, between blue and cyan: (0, 255 * 4t, 255)
  set(b, 5, 0, encoded_background());  // coverage mismatch: magenta
  const RgbaImage map = difference_heat_map(a, b);
  ASSERT_EQ(map.width, 8);
  ASSERT_EQ(map.height, 2);
  // Grey: luma (54 * 100 + 183 * 150 + 19 * 200) / 256 = 36650 / 256 = 143; 16 + 143 / 4 = 51.
  const Rgba8 grey{51, 51, 51, 255};
  EXPECT_EQ(at(map, 0, 0), grey);
  EXPECT_EQ(at(map, 1, 0), (Rgba8{0, 255, 255, 255}));
  EXPECT_EQ(at(map, 2, 0), (Rgba8{0, 255, 0, 255}));
  EXPECT_EQ(at(map, 3, 0), (Rgba8{255, 255, 0, 255}));
  const double t3 = std::log2(3.0) / 8.0;  // 0.198
  EXPECT_EQ(at(map, 4, 0), (Rgba8{0, uint8_t(std::floor(255.0 * 4.0 * t3 + 0.5)), 255, 255}));
  EXPECT_EQ(at(map, 4, 0)[1], 202);  // 255 * 0.7925 = 202.1
  EXPECT_EQ(at(map, 5, 0), (Rgba8{255, 0, 255, 255}));
  for (int x = 6; x < 8; ++x) EXPECT_EQ(at(map, x, 0), grey);
  for (int x = 0; x < 8; ++x) EXPECT_EQ(at(map, x, 1), grey);
  // Threshold 0 colours d = 1 at the ramp's start, blue.
  const RgbaImage strict = difference_heat_map(a, b, {.threshold = 0});
  EXPECT_EQ(at(strict, 0, 0), (Rgba8{0, 0, 255, 255}));
  EXPECT_EQ(heat_map_ramp(1), (Rgba8{0, 0, 255, 255}));
  EXPECT_EQ(heat_map_ramp(16), (Rgba8{0, 255, 0, 255}));
  // d = 128: t = 7 / 8, halfway from yellow to red: G = floor(127.5 + 0.5) = 128.
  EXPECT_EQ(heat_map_ramp(128), (Rgba8{255, 128, 0, 255}));
  EXPECT_THROW(heat_map_ramp(0), std::invalid_argument);
  EXPECT_THROW(heat_map_ramp(256), std::invalid_argument);
  // Same inputs, same bytes.
  EXPECT_EQ(difference_heat_map(a, b).pixels, map.pixels);
}

TEST(ImageCompare, SideBySidePlacesImagesWithSeparators) {
  const RgbaImage red = filled(3, 2, {255, 0, 0, 255});
  const RgbaImage green = filled(2, 4, {0, 255, 0, 255});
  const std::vector<RgbaImage> images{red, green};
  const RgbaImage montage = side_by_side(images);
  ASSERT_EQ(montage.width, 3 + 4 + 2);
  ASSERT_EQ(montage.height, 4);
  ASSERT_EQ(montage.pixels.size(), size_t(9 * 4 * 4));
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 9; ++x) {
      Rgba8 expected = kSideBySideCanvas;
      if (x < 3 && y < 2) expected = {255, 0, 0, 255};
      if (x >= 7) expected = {0, 255, 0, 255};
      EXPECT_EQ(at(montage, x, y), expected) << "pixel (" << x << ", " << y << ")";
    }
  }
  const RgbaImage one = pattern(5, 3);
  EXPECT_EQ(side_by_side(std::vector<RgbaImage>{one}).pixels, one.pixels);
  const RgbaImage three = side_by_side(std::vector<RgbaImage>{one, one, one});
  EXPECT_EQ(three.width, 3 * 5 + 2 * kSideBySideSeparatorPx);
  EXPECT_EQ(at(three, 2 * (5 + kSideBySideSeparatorPx) + 4, 2), at(one, 4, 2));
  EXPECT_THROW(side_by_side(std::vector<RgbaImage>{}), std::invalid_argument);
}

TEST(ImageCompare, RefusesMismatchedSizesAndBadOptions) {
  const RgbaImage a = filled(4, 3, kGrey);
  const RgbaImage b = filled(3, 4, kGrey);
  try {
    compare_images(a, b);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("4x3"), std::string::npos) << message;
    EXPECT_NE(message.find("3x4"), std::string::npos) << message;
  }
  EXPECT_THROW(difference_heat_map(a, b), std::invalid_argument);
  EXPECT_THROW(compare_images(a, a, {.threshold = 256}), std::invalid_argument);
  EXPECT_THROW(compare_images(a, a, {.threshold = -1}), std::invalid_argument);
  EXPECT_THROW(compare_images(a, a, {.threshold = 1, .position_tolerance_px = -1}), std::invalid_argument);
  RgbaImage short_pixels = a;
  short_pixels.pixels.pop_back();
  EXPECT_THROW(compare_images(a, short_pixels), std::invalid_argument);
  EXPECT_THROW(compare_images(RgbaImage{}, RgbaImage{}), std::invalid_argument);
}

TEST(ImageCompare, FullHdIsFastAndToleranceZeroMatchesTheStrictCount) {
  // 1920x1080 with a difference in every other pixel: the window search runs at half of the pixels.
  RgbaImage a = pattern(1920, 1080);
  RgbaImage b = a;
  for (size_t p = 0; p < b.pixels.size() / 4; p += 2) b.pixels[4 * p + 1] ^= 0x10;
  const ImageComparison strict = compare_images(a, b);
  EXPECT_EQ(strict.pixels_over_threshold, size_t(1920 * 1080 / 2));
  EXPECT_EQ(strict.tolerant_failures, strict.pixels_over_threshold);
  EXPECT_EQ(strict.max_channel_difference, 16);
  EXPECT_EQ(difference_heat_map(a, b).pixels.size(), a.pixels.size());
}

}  // namespace
}  // namespace skinref

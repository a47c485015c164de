// Comparing two RGBA8 images (a reference image and one from a renderer under test): the metrics, a heat
// map of where they differ, and a side-by-side montage. `skinref compare` prints and reports these.
//
// Contract:
// - Inputs: both images have positive sizes and width * height * 4 bytes of pixels, and compare_images() /
//   difference_heat_map() need equal sizes; anything else throws std::invalid_argument naming both sizes.
//   options.threshold must lie in [0, 255] and options.position_tolerance_px be >= 0 (std::invalid_argument).
// - d(p) = the largest of the four per-channel absolute differences |A - B| (R, G, B and A) at pixel p.
//   A pixel is "over threshold" when d(p) > threshold.
// - max_channel_difference: the largest |A - B| over every pixel and channel; its place is the first such
//   (pixel, channel) in row-major order (top row first), R before G before B before A; x, y, channel are -1
//   when the images are identical.
// - coverage_mismatches: pixels that equal options.background exactly (all four bytes) in one image and not
//   in the other: the object covers the pixel in one image only.
// - tolerant_failures: position-tolerant comparison, as the Vulkan CTS's fuzzy image compare: pixel p of A
//   passes when some pixel of B inside the (2N + 1) x (2N + 1) window centred on p (Chebyshev distance
//   <= N = position_tolerance_px, clipped to the image) is within threshold of A(p) in every channel, and
//   symmetrically for B against A; a pixel position fails when either direction fails. With N = 0 this is
//   exactly pixels_over_threshold.
// - psnr_rgb_db = 10 log10(255^2 / MSE), MSE the mean of the squared R, G and B differences over all
//   3 * width * height samples (alpha excluded); +infinity when MSE = 0.
//   mean_absolute_difference_rgb: the mean of |A - B| over the same samples, in 8-bit steps.
// - difference_heat_map(a, b, options), legend (every pixel opaque):
//     coverage mismatch                 magenta (255, 0, 255), whatever d(p)
//     d(p) <= threshold (identical ones included)
//                                       dark grey copy of A, low contrast: g = 16 + L / 4, L = the integer
//                                       luma (54 R + 183 G + 19 B) / 256 of A's pixel (so g in 16..79)
//     d(p) > threshold                  the ramp at t = log2(d) / 8 (d = d(p)): blue (0, 0, 255) at t = 0,
//                                       cyan (0, 255, 255) at 0.25 (d = 4), green (0, 255, 0) at 0.5 (d = 16),
//                                       yellow (255, 255, 0) at 0.75 (d = 64), red (255, 0, 0) at 1 (d = 256),
//                                       linear between the stops, each channel rounded: floor(255 c + 0.5)
//   The ramp is logarithmic because renderer differences of 1 to 4 steps matter as much as large ones.
// - side_by_side(images): the images left to right, top-aligned, kSideBySideSeparatorPx apart; the canvas
//   (separators, and the space below images shorter than the tallest) is kSideBySideCanvas. At least one
//   image is required (std::invalid_argument).
// - Everything is deterministic (integer arithmetic up to the final PSNR and means) and single-threaded;
//   the window search runs only at pixels over threshold, so 1920x1080 takes milliseconds.
#pragma once

#include "io/image_io.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace skinref {

using Rgba8 = std::array<uint8_t, 4>;

// The renderer's clear colour, kBackground (shading.h) encoded with encode_srgb8, alpha 255.
Rgba8 encoded_background();

struct ImageCompareOptions {
  int threshold = 1;              // per channel, 0..255: d(p) <= threshold passes
  int position_tolerance_px = 0;  // N of the tolerant comparison's window (Chebyshev radius)
  Rgba8 background = encoded_background();
};

struct ImageComparison {
  int width = 0;
  int height = 0;
  size_t pixel_count = 0;

  int max_channel_difference = 0;  // 0..255
  int max_x = -1, max_y = -1;      // where; -1 when identical
  int max_channel = -1;            // 0 R, 1 G, 2 B, 3 A; -1 when identical

  size_t pixels_over_threshold = 0;
  double fraction_over_threshold = 0;  // / pixel_count
  size_t coverage_mismatches = 0;
  size_t tolerant_failures = 0;
  double fraction_tolerant_failures = 0;  // / pixel_count

  double psnr_rgb_db = 0;  // +infinity when the RGB channels are identical
  double mean_absolute_difference_rgb = 0;
};

ImageComparison compare_images(const RgbaImage& a, const RgbaImage& b, const ImageCompareOptions& options = {});

RgbaImage difference_heat_map(const RgbaImage& a, const RgbaImage& b, const ImageCompareOptions& options = {});

// The ramp colour of a difference d in 1..255 (the heat map's legend above).
Rgba8 heat_map_ramp(int difference);

inline constexpr int kSideBySideSeparatorPx = 4;
inline constexpr Rgba8 kSideBySideCanvas = {128, 128, 128, 255};

RgbaImage side_by_side(std::span<const RgbaImage> images);

}  // namespace skinref

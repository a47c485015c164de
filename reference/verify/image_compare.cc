// Image comparison metrics, heat map and side-by-side montage (image_compare.h).
#include "verify/image_compare.h"

#include "raster/shading.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace skinref {
namespace {

std::string size_text(const RgbaImage& image) {
  return std::to_string(image.width) + "x" + std::to_string(image.height);
}

void check_image(const RgbaImage& image, const char* which) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != size_t(image.width) * size_t(image.height) * 4) {
    throw std::invalid_argument(std::string("image ") + which + " is " + size_text(image) + " with " +
                                std::to_string(image.pixels.size()) +
                                " bytes of pixels; expected positive sizes and 4 bytes per pixel");
  }
}

void check_pair(const RgbaImage& a, const RgbaImage& b, const ImageCompareOptions& options) {
  check_image(a, "A");
  check_image(b, "B");
  if (a.width != b.width || a.height != b.height) {
    throw std::invalid_argument("the images differ in size: A is " + size_text(a) + ", B is " + size_text(b));
  }
  if (options.threshold < 0 || options.threshold > 255) {
    throw std::invalid_argument("threshold " + std::to_string(options.threshold) + " is outside 0..255");
  }
  if (options.position_tolerance_px < 0) {
    throw std::invalid_argument("position tolerance " + std::to_string(options.position_tolerance_px) +
                                " px is negative");
  }
}

// d(p): the largest per-channel absolute difference of two RGBA pixels.
int pixel_difference(const uint8_t* a, const uint8_t* b) {
  int largest = 0;
  for (int c = 0; c < 4; ++c) largest = std::max(largest, std::abs(int(a[c]) - int(b[c])));
  return largest;
}

bool is_background(const uint8_t* pixel, const Rgba8& background) {
  return std::memcmp(pixel, background.data(), 4) == 0;
}

// True when some pixel of `other` within the Chebyshev window of radius `radius` around (x, y) is within
// `threshold` of `pixel` in every channel.
bool matched_in_window(const uint8_t* pixel, const RgbaImage& other, int x, int y, int radius, int threshold) {
  const int y0 = std::max(0, y - radius), y1 = std::min(other.height - 1, y + radius);
  const int x0 = std::max(0, x - radius), x1 = std::min(other.width - 1, x + radius);
  for (int v = y0; v <= y1; ++v) {
    const uint8_t* row = &other.pixels[(size_t(v) * size_t(other.width)) * 4];
    for (int u = x0; u <= x1; ++u) {
      if (pixel_difference(pixel, row + size_t(u) * 4) <= threshold) return true;
    }
  }
  return false;
}

// The legend's ramp: stops at t = 0, 0.25, 0.5, 0.75, 1.
constexpr double kRampStops[5][3] = {{0, 0, 1}, {0, 1, 1}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}};

Rgba8 ramp_colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const int segment = std::min(3, int(t * 4.0));
  const double f = t * 4.0 - double(segment);
  Rgba8 colour{0, 0, 0, 255};
  for (int c = 0; c < 3; ++c) {
    const double value = kRampStops[segment][c] + (kRampStops[segment + 1][c] - kRampStops[segment][c]) * f;
    colour[size_t(c)] = uint8_t(std::floor(255.0 * value + 0.5));
  }
  return colour;
}

}  // namespace

Rgba8 encoded_background() {
  return {encode_srgb8(kBackground[0]), encode_srgb8(kBackground[1]), encode_srgb8(kBackground[2]), 255};
}

Rgba8 heat_map_ramp(int difference) {
  if (difference < 1 || difference > 255) {
    throw std::invalid_argument("heat map ramp: difference " + std::to_string(difference) + " is outside 1..255");
  }
  return ramp_colour(std::log2(double(difference)) / 8.0);
}

ImageComparison compare_images(const RgbaImage& a, const RgbaImage& b, const ImageCompareOptions& options) {
  check_pair(a, b, options);
  ImageComparison result;
  result.width = a.width;
  result.height = a.height;
  result.pixel_count = size_t(a.width) * size_t(a.height);
  uint64_t squared_sum = 0, absolute_sum = 0;  // over RGB; at most 3 * 2^28 * 255^2 < 2^64
  for (int y = 0; y < a.height; ++y) {
    for (int x = 0; x < a.width; ++x) {
      const size_t p = size_t(y) * size_t(a.width) + size_t(x);
      const uint8_t* pa = &a.pixels[4 * p];
      const uint8_t* pb = &b.pixels[4 * p];
      int largest = 0;
      for (int c = 0; c < 4; ++c) {
        const int difference = std::abs(int(pa[c]) - int(pb[c]));
        if (difference > result.max_channel_difference) {
          result.max_channel_difference = difference;
          result.max_x = x;
          result.max_y = y;
          result.max_channel = c;
        }
        if (c < 3) {
          squared_sum += uint64_t(difference * difference);
          absolute_sum += uint64_t(difference);
        }
        largest = std::max(largest, difference);
      }
      if (is_background(pa, options.background) != is_background(pb, options.background)) {
        ++result.coverage_mismatches;
      }
      if (largest > options.threshold) {
        ++result.pixels_over_threshold;
        // Only here can the tolerant comparison fail: at d(p) <= threshold both directions match at p itself.
        const int radius = options.position_tolerance_px;
        if (!matched_in_window(pa, b, x, y, radius, options.threshold) ||
            !matched_in_window(pb, a, x, y, radius, options.threshold)) {
          ++result.tolerant_failures;
        }
      }
    }
  }
  const double samples = 3.0 * double(result.pixel_count);
  result.fraction_over_threshold = double(result.pixels_over_threshold) / double(result.pixel_count);
  result.fraction_tolerant_failures = double(result.tolerant_failures) / double(result.pixel_count);
  result.mean_absolute_difference_rgb = double(absolute_sum) / samples;
  if (squared_sum == 0) {
    result.psnr_rgb_db = std::numeric_limits<double>::infinity();
  } else {
    const double mse = double(squared_sum) / samples;
    result.psnr_rgb_db = 10.0 * std::log10(255.0 * 255.0 / mse);
  }
  return result;
}

RgbaImage difference_heat_map(const RgbaImage& a, const RgbaImage& b, const ImageCompareOptions& options) {
  check_pair(a, b, options);
  std::array<Rgba8, 256> ramp{};  // by d; entry 0 unused
  for (int d = 1; d < 256; ++d) ramp[size_t(d)] = heat_map_ramp(d);
  constexpr Rgba8 kCoverageMismatch = {255, 0, 255, 255};
  RgbaImage map;
  map.width = a.width;
  map.height = a.height;
  map.pixels.resize(a.pixels.size());
  const size_t pixel_count = size_t(a.width) * size_t(a.height);
  for (size_t p = 0; p < pixel_count; ++p) {
    const uint8_t* pa = &a.pixels[4 * p];
    const uint8_t* pb = &b.pixels[4 * p];
    uint8_t* out = &map.pixels[4 * p];
    Rgba8 colour;
    const int difference = pixel_difference(pa, pb);
    if (is_background(pa, options.background) != is_background(pb, options.background)) {
      colour = kCoverageMismatch;
    } else if (difference > options.threshold) {
      colour = ramp[size_t(difference)];
    } else {
      const int luma = (54 * int(pa[0]) + 183 * int(pa[1]) + 19 * int(pa[2])) / 256;
      const uint8_t grey = uint8_t(16 + luma / 4);
      colour = {grey, grey, grey, 255};
    }
    std::memcpy(out, colour.data(), 4);
  }
  return map;
}

RgbaImage side_by_side(std::span<const RgbaImage> images) {
  if (images.empty()) throw std::invalid_argument("side_by_side: no images given");
  long long width = -kSideBySideSeparatorPx;
  int height = 0;
  for (size_t i = 0; i < images.size(); ++i) {
    check_image(images[i], ("number " + std::to_string(i)).c_str());
    width += images[i].width + kSideBySideSeparatorPx;
    height = std::max(height, images[i].height);
  }
  // write_png() takes int sizes with width * 4 in an int.
  if (width > std::numeric_limits<int>::max() / 4) {
    throw std::invalid_argument("side_by_side: the montage would be " + std::to_string(width) + " pixels wide");
  }
  RgbaImage canvas;
  canvas.width = int(width);
  canvas.height = height;
  canvas.pixels.resize(size_t(canvas.width) * size_t(height) * 4);
  for (size_t p = 0; p < size_t(canvas.width) * size_t(height); ++p) {
    std::memcpy(&canvas.pixels[4 * p], kSideBySideCanvas.data(), 4);
  }
  size_t left = 0;
  for (const RgbaImage& image : images) {
    const size_t row_bytes = size_t(image.width) * 4;
    for (int y = 0; y < image.height; ++y) {
      std::memcpy(&canvas.pixels[(size_t(y) * size_t(canvas.width) + left) * 4],
                  &image.pixels[size_t(y) * row_bytes], row_bytes);
    }
    left += size_t(image.width) + kSideBySideSeparatorPx;
  }
  return canvas;
}

}  // namespace skinref

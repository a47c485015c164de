// libFuzzer target `png`: the PNG reader behind compare (io/image_io.h read_png) and the image comparison
// it feeds (verify/image_compare.h).
//
// Contract: the bytes are written to a per-process temp file NAME.png and read with read_png(); an image that
// reads is compared with itself and with a copy whose first pixel is inverted (compare_images() with
// threshold 1 and a position tolerance of 1 px, as compare --tolerance-px 1), with a 2x2 image (a size
// mismatch, refused), and the heat map and side-by-side of the pair are made, as compare --report does.
// Bound on work per input: one decode and a constant number of passes over its pixels (the decoder's
// image size is limited by io/image_io.cc). An input whose IHDR declares more than kFuzzedPixels pixels but no
// more than the product's limit is skipped: a few bytes of zlib stream decode into such an image, and one pass
// over tens of megapixels (page faults for each new allocation, under ASan) held the target at 60 to 300
// inputs/s while finding no new code; the same code runs on the smaller images, and the tests cover the size
// limit (tests/io). Inputs over the limit still go to read_png, which must refuse them. Outcome policy:
// fuzz_common.h.
#include "fuzz_common.h"

#include "core/limits.h"
#include "io/image_io.h"
#include "verify/image_compare.h"

#include <cstring>
#include <vector>

namespace {
constexpr uint64_t kFuzzedPixels = uint64_t(1) << 20;

// Whether the IHDR (PNG specification 11.2.2) declares an image within the product's limits of more than
// kFuzzedPixels pixels; false where the input has no PNG signature and IHDR chunk.
bool large_within_limits(const uint8_t* data, size_t size) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (size < 24 || std::memcmp(data, kSignature, 8) != 0 || std::memcmp(data + 12, "IHDR", 4) != 0) return false;
  auto be32 = [&](size_t at) {
    return (uint64_t(data[at]) << 24) | (uint64_t(data[at + 1]) << 16) | (uint64_t(data[at + 2]) << 8) |
           uint64_t(data[at + 3]);
  };
  const uint64_t width = be32(16), height = be32(20);
  return width <= skinref::limits::kMaxImageDimension && height <= skinref::limits::kMaxImageDimension &&
         width * height > kFuzzedPixels && width * height <= skinref::limits::kMaxImagePixels;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static fuzz::TempFile file("png", ".png");
  if (large_within_limits(data, size)) return 0;
  fuzz::run_guarded([&] {
    const RgbaImage image = read_png(file.write(data, size));
    RgbaImage changed = image;
    if (changed.pixels.size() >= 4) {
      for (int c = 0; c < 3; ++c) changed.pixels[c] = static_cast<uint8_t>(255 - changed.pixels[c]);
    }
    ImageCompareOptions options;
    options.threshold = 1;
    options.position_tolerance_px = 1;
    compare_images(image, image, options);
    compare_images(image, changed, options);
    difference_heat_map(image, changed, options);
    const std::vector<RgbaImage> pair{image, changed};
    side_by_side(pair);
    RgbaImage small;
    small.width = 2;
    small.height = 2;
    small.pixels.assign(16, 128);
    fuzz::run_guarded([&] { compare_images(image, small, options); });
  });
  return 0;
}

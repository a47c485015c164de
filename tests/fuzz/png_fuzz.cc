// libFuzzer target `png`: the PNG reader behind compare (io/image_io.h read_png) and the image comparison
// it feeds (verify/image_compare.h).
//
// Contract: the bytes are written to a per-process temp file NAME.png and read with read_png(); an image that
// reads is compared with itself and with a copy whose first pixel is inverted (compare_images() with
// threshold 1 and a position tolerance of 1 px, as compare --tolerance-px 1), with a 2x2 image (a size
// mismatch, refused), and the heat map and side-by-side of the pair are made, as compare --report does.
// Bound on work per input: one decode and a constant number of passes over its pixels (the decoder's
// image size is limited by io/image_io.cc). Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "io/image_io.h"
#include "verify/image_compare.h"

#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static fuzz::TempFile file("png", ".png");
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

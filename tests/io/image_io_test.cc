// read_png's limit on image data (io/image_io.cc check_png_image_data, limits::kMaxPngExcessImageDataBytes):
// PNG files built from the specification (support/png_builder.h) whose IDAT inflates to exactly what the IHDR's
// image needs, to that plus the allowed excess, and to more. The needed sizes below are worked by hand from
// the PNG specification (7.2: a filter byte per scanline; 8.2: Adam7), not taken from the code under test.
#include "core/input_error.h"
#include "core/limits.h"
#include "io/image_io.h"
#include "support/png_builder.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

class PngImageData : public ::testing::Test {
 protected:
  // Writes `bytes` as NAME.png and reads it back.
  RgbaImage read(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.file(name + ".png");
    std::ofstream(path, std::ios::binary) << bytes;
    return read_png(path);
  }
  // The InputError read() throws, or "" when it reads.
  std::string refusal(const std::string& name, const std::string& bytes) {
    try {
      read(name, bytes);
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  }
  test::TempDir dir_{"png-image-data"};
};

void expect_every_pixel(const RgbaImage& image, int width, int height, uint8_t grey) {
  ASSERT_EQ(image.width, width);
  ASSERT_EQ(image.height, height);
  for (size_t at = 0; at < image.pixels.size(); at += 4) {
    EXPECT_EQ(image.pixels[at], grey) << at / 4;
    EXPECT_EQ(image.pixels[at + 1], grey) << at / 4;
    EXPECT_EQ(image.pixels[at + 2], grey) << at / 4;
    EXPECT_EQ(image.pixels[at + 3], 255) << at / 4;
  }
}

const size_t kExcess = size_t(limits::kMaxPngExcessImageDataBytes);

// 5x3 grey, 8 bits, Adam7. Pass (first column, row; steps) -> pass size -> bytes (a filter byte per row):
// 1 (0,0; 8,8) 1x1 2; 2 (4,0; 8,8) 1x1 2; 3 (0,4; 4,8) 0 rows 0; 4 (2,0; 4,4) 1x1 2; 5 (0,2; 2,4) 3x1 4;
// 6 (1,0; 2,2) 2x2 6; 7 (0,1; 1,2) 5x1 6. In all 22 bytes, every one of the 15 pixels in one pass.
const std::string kInterlacedRows = std::string("\0M", 2) + std::string("\0M", 2) + std::string("\0M", 2) +
                                    std::string("\0MMM", 4) + std::string("\0MM\0MM", 6) +
                                    std::string("\0MMMMM", 6);

TEST_F(PngImageData, AnInterlacedImageMayCarryExcessUpToTheLimitAndNoMore) {
  ASSERT_EQ(kInterlacedRows.size(), 22u);
  const auto png = [](const std::string& rows) { return test::png_file(5, 3, 8, 0, true, test::zlib_stored(rows)); };
  expect_every_pixel(read("exact", png(kInterlacedRows)), 5, 3, 'M');
  // stb_image ignores trailing data (libpng warns), so it reads up to the limit...
  expect_every_pixel(read("at-limit", png(kInterlacedRows + std::string(kExcess, '\0'))), 5, 3, 'M');
  // ...and one byte more is refused, by the limit.
  const std::string over = refusal("over", png(kInterlacedRows + std::string(kExcess + 1, '\0')));
  EXPECT_NE(over.find("over.png: IDAT: image data that inflates to the 5x3 image's 22 bytes plus <= " +
                      std::to_string(kExcess) + " (skinref's limit kMaxPngExcessImageDataBytes), got more"),
            std::string::npos)
      << over;
}

TEST_F(PngImageData, ScanlineSizesFollowBitDepthAndChannels) {
  // 10x1 grey, 1 bit: (10 bits + 7) / 8 = 2 bytes a row, 3 with the filter byte. All bits set: white.
  const std::string one_bit_row("\0\xff\xc0", 3);
  expect_every_pixel(read("one-bit", test::png_file(10, 1, 1, 0, false, test::zlib_stored(one_bit_row))), 10, 1, 255);
  // 3x2 RGBA, 16 bits: 3 x 8 = 24 bytes a row, 2 x 25 = 50. 0xABCD in every channel reads as 0xAB.
  std::string rows;
  for (int row = 0; row < 2; ++row) {
    rows += '\0';
    for (int sample = 0; sample < 12; ++sample) rows += "\xab\xcd";
  }
  ASSERT_EQ(rows.size(), 50u);
  const RgbaImage wide = read("sixteen-bit", test::png_file(3, 2, 16, 6, false, test::zlib_stored(rows)));
  ASSERT_EQ(wide.width, 3);
  ASSERT_EQ(wide.height, 2);
  for (uint8_t channel : wide.pixels) EXPECT_EQ(channel, 0xab);
  // One byte short is the decoder's refusal, so 50 is the least it takes; 50 plus the excess allowed reads, and
  // one byte more is the limit's refusal: the needed size is exact from both sides.
  const auto sixteen_bit = [](const std::string& data) {
    return test::png_file(3, 2, 16, 6, false, test::zlib_stored(data));
  };
  const std::string shorter = refusal("shorter", sixteen_bit(rows.substr(0, 49)));
  EXPECT_NE(shorter.find("shorter.png: a decodable PNG file"), std::string::npos) << shorter;
  EXPECT_EQ(read("at-limit", sixteen_bit(rows + std::string(kExcess, '\0'))).pixels, wide.pixels);
  const std::string over = refusal("over", sixteen_bit(rows + std::string(kExcess + 1, '\0')));
  EXPECT_NE(over.find("the 3x2 image's 50 bytes plus <= " + std::to_string(kExcess)), std::string::npos) << over;
}

TEST_F(PngImageData, AStreamThatInflatesFarBeyondItsImageIsRefusedByTheLimit) {
  // A 1x1 grey image (2 bytes of data) whose 420 KB stream inflates to 64 MiB + 1 byte of zeros: the decoder
  // alone would grow its buffer to 64 MiB; the limit stops the inflation after 2 bytes plus the excess allowed.
  const std::string stream = test::zlib_zeros(1 + 258 * 260'100);
  ASSERT_LT(stream.size(), 450'000u);
  const std::string bomb = refusal("bomb", test::png_file(1, 1, 8, 0, false, stream));
  EXPECT_NE(bomb.find("bomb.png: IDAT: image data that inflates to the 1x1 image's 2 bytes plus <= "),
            std::string::npos)
      << bomb;
  // zlib_zeros itself, checked by reading: 259 zeros are a 258x1 grey image's data (filter byte 0, black).
  expect_every_pixel(read("zeros", test::png_file(258, 1, 8, 0, false, test::zlib_zeros(259))), 258, 1, 0);
}

TEST_F(PngImageData, AChunkLongerThanTheFileIsRefusedBeforeItsBufferIsMade) {
  // The IDAT chunk (after the signature's 8 bytes and IHDR's 25) declares 1 GiB; the decoder alone would size
  // its buffer from that before finding the data missing.
  std::string png = test::png_file(1, 1, 8, 0, false, test::zlib_stored(std::string(2, '\0')));
  ASSERT_EQ(png.compare(37, 4, "IDAT"), 0);
  png.replace(33, 4, std::string("\x40\0\0\0", 4));
  const std::string refused = refusal("long-chunk", png);
  EXPECT_NE(refused.find("long-chunk.png: chunk 1 (IDAT): a chunk whose data fits in the file's remaining " +
                         std::to_string(png.size() - 41) + " bytes, got a length of 1073741824"),
            std::string::npos)
      << refused;
  // A type that is not letters is named byte by byte.
  png.replace(37, 4, std::string("ID\x01\xff", 4));
  EXPECT_NE(refusal("odd-type", png).find("chunk 1 (ID\\x01\\xff)"), std::string::npos);
}

}  // namespace
}  // namespace skinref

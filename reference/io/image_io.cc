// PNG files for RGBA8 images (image_io.h). stb_image_write encodes into the atomic writer's stream and
// stb_image decodes; Debian's libstb provides both implementations, so no STB_*_IMPLEMENTATION here.
#include "io/image_io.h"

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/limits.h"
#include "core/stream_bytes.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <ostream>
#include <stdexcept>

namespace skinref {
namespace {

// The 8-byte signature every PNG file starts with (PNG specification, section 5.2).
constexpr unsigned char kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

void write_to_stream(void* context, void* data, int size) {
  static_cast<std::ostream*>(context)->write(static_cast<const char*>(data), size);
}

// A chunk type as text for an error: its letters, any other byte as \xNN.
std::string printable(const std::string& type) {
  static const char kHex[] = "0123456789abcdef";
  std::string text;
  for (char c : type) {
    const uint8_t byte = uint8_t(c);
    if ((byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z')) text += c;
    else text += std::string("\\x") + kHex[byte >> 4] + kHex[byte & 15];
  }
  return text;
}

uint32_t big_endian_32(const std::string& bytes, size_t at) {
  return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
         (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
}

// The bytes a PNG's image data inflates to (PNG specification 7.2: one filter byte per scanline; 8.2: the seven
// Adam7 passes, an empty pass having no scanlines); 0 when colour type and bit depth are not a pair of
// table 11.1, which the decoder refuses itself.
uint64_t png_image_data_bytes(uint64_t width, uint64_t height, unsigned bit_depth, unsigned colour_type,
                              bool interlaced) {
  unsigned channels = 0;
  bool low_depths = false;  // 1, 2 and 4 bits
  switch (colour_type) {
    case 0: channels = 1, low_depths = true; break;
    case 2: channels = 3; break;
    case 3: channels = 1, low_depths = true; break;
    case 4: channels = 2; break;
    case 6: channels = 4; break;
    default: return 0;
  }
  const bool depth_ok = bit_depth == 8 || (bit_depth == 16 && colour_type != 3) ||
                        (low_depths && (bit_depth == 1 || bit_depth == 2 || bit_depth == 4));
  if (!depth_ok) return 0;
  const uint64_t bits_per_pixel = uint64_t(bit_depth) * channels;
  auto pass_bytes = [&](uint64_t pass_width, uint64_t pass_height) {
    return pass_width == 0 ? 0 : pass_height * (1 + (pass_width * bits_per_pixel + 7) / 8);
  };
  if (!interlaced) return pass_bytes(width, height);
  // Adam7 (section 8.2): each pass's first column and row, and its steps.
  static constexpr unsigned kFirst[7][2] = {{0, 0}, {4, 0}, {0, 4}, {2, 0}, {0, 2}, {1, 0}, {0, 1}};
  static constexpr unsigned kStep[7][2] = {{8, 8}, {8, 8}, {4, 8}, {4, 4}, {2, 4}, {2, 2}, {1, 2}};
  uint64_t total = 0;
  for (int pass = 0; pass < 7; ++pass) {
    auto count = [](uint64_t size, unsigned first, unsigned step) {
      return size > first ? (size - first + step - 1) / step : 0;
    };
    total += pass_bytes(count(width, kFirst[pass][0], kStep[pass][0]), count(height, kFirst[pass][1], kStep[pass][1]));
  }
  return total;
}

// Refuses, before stb_image decodes it, a PNG that would make stb_image allocate far more than the file and its
// image (the PNG specification's chunks, section 5.3: length, type, data, CRC):
// - a chunk whose data runs past the end of the file: stb_image sizes its IDAT buffer from the declared length
//   (up to 1 GiB) before finding the data missing. Chunks are walked up to IEND; a last chunk without its CRC
//   is left to stb_image, which reads such files.
// - image data that inflates to more than the image needs plus kMaxPngExcessImageDataBytes: stb_image grows its
//   buffer for as long as the stream gives bytes (deflate inflates up to ~1000x). The IDAT chunks' data is
//   inflated by stb_image's own decoder (the same leniency as the decode) into a buffer of that bound, which
//   stb_image allocates too (its first guess is the image's size); without its zlib header after a CgBI chunk
//   (Apple's variant, as stb_image reads it).
// Anything else wrong (no IHDR, an invalid colour type and depth, a broken stream) is left to stb_image, which
// refuses it with its reason.
void check_png_chunks(const std::string& path, const std::string& bytes) {
  std::string stream;
  bool no_zlib_header = false;
  size_t index = 0;
  for (size_t at = sizeof(kPngSignature); bytes.size() - at >= 8; ++index) {
    const uint64_t length = big_endian_32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (length > bytes.size() - at - 8) {
      throw InputError(path, "chunk " + std::to_string(index) + " (" + printable(type) + ")",
                       "a chunk whose data fits in the file's remaining " + std::to_string(bytes.size() - at - 8) +
                           " bytes, got a length of " + std::to_string(length));
    }
    if (type == "CgBI") no_zlib_header = true;
    if (type == "IDAT") stream.append(bytes, at + 8, size_t(length));
    if (type == "IEND") break;
    at += std::min<size_t>(bytes.size() - at, 12 + size_t(length));
  }
  if (stream.empty() || bytes.size() < 33 || bytes.compare(12, 4, "IHDR") != 0 || big_endian_32(bytes, 8) != 13) return;
  const uint64_t width = big_endian_32(bytes, 16), height = big_endian_32(bytes, 20);
  const uint64_t needed = png_image_data_bytes(width, height, uint8_t(bytes[24]), uint8_t(bytes[25]), bytes[28] != 0);
  if (needed == 0) return;
  // needed is at most 8 bytes per pixel (RGBA, 16 bits) and a byte per row for kMaxImagePixels (checked
  // before), so the bound fits in an int.
  const uint64_t bound = needed + limits::kMaxPngExcessImageDataBytes;
  const std::unique_ptr<char[]> inflated(new char[size_t(bound)]);
  const auto inflate = no_zlib_header ? stbi_zlib_decode_noheader_buffer : stbi_zlib_decode_buffer;
  const int got = inflate(inflated.get(), int(bound), stream.data(), int(stream.size()));
  const char* reason = stbi_failure_reason();
  if (got < 0 && reason != nullptr && std::strcmp(reason, "output buffer limit") == 0) {
    throw InputError(path, "IDAT",
                     "image data that inflates to the " + std::to_string(width) + "x" + std::to_string(height) +
                         " image's " + std::to_string(needed) + " bytes plus " +
                         limits::limit_text(limits::kMaxPngExcessImageDataBytes, "kMaxPngExcessImageDataBytes") +
                         ", got more");
  }
}

}  // namespace

void write_png(const RgbaImage& image, const std::string& path) {
  if (image.width <= 0 || image.height <= 0 || image.width > INT_MAX / 4 ||
      image.pixels.size() != size_t(image.width) * size_t(image.height) * 4) {
    throw std::runtime_error("cannot write " + path + ": the image is " + std::to_string(image.width) + "x" +
                             std::to_string(image.height) + " with " + std::to_string(image.pixels.size()) +
                             " bytes of pixels; expected positive sizes and 4 bytes per pixel");
  }
  write_file_atomically(path, [&](std::ostream& out) {
    if (stbi_write_png_to_func(write_to_stream, &out, image.width, image.height, 4, image.pixels.data(),
                               image.width * 4) == 0) {
      throw std::runtime_error("cannot write " + path + ": PNG encoding failed");
    }
  });
}

void check_image_size(const std::string& file, const std::string& where, size_t width, size_t height) {
  if (width > limits::kMaxImageDimension || height > limits::kMaxImageDimension ||
      width * height > limits::kMaxImagePixels)
    throw InputError(file, where,
                     "an image of width and height " +
                         limits::limit_text(limits::kMaxImageDimension, "kMaxImageDimension") + " and of pixels " +
                         limits::limit_text(limits::kMaxImagePixels, "kMaxImagePixels") + ", got " +
                         std::to_string(width) + "x" + std::to_string(height));
}

RgbaImage read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open the file: " + std::string(std::strerror(errno)));
  const std::string bytes = read_stream_bytes(in);
  if (in.bad()) throw InputError(path, "", "reading the file failed");
  if (bytes.size() < sizeof(kPngSignature) || std::memcmp(bytes.data(), kPngSignature, sizeof(kPngSignature)) != 0) {
    throw InputError(path, "", "a PNG file (the 8-byte PNG signature)");
  }
  if (bytes.size() > size_t(INT_MAX)) throw InputError(path, "", "a PNG file below 2 GiB");
  int width = 0, height = 0, channels = 0;
  // The size from the IHDR chunk first (PNG specification 11.2.2: the first chunk, width and height big-endian
  // at bytes 16 and 20), before stb_image allocates width x height x 4 bytes.
  if (bytes.size() >= 24 && bytes.compare(12, 4, "IHDR") == 0) {
    check_image_size(path, "", big_endian_32(bytes, 16), big_endian_32(bytes, 20));
  }
  check_png_chunks(path, bytes);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), int(bytes.size()), &width, &height,
                            &channels, 4),
      stbi_image_free);
  if (!pixels) {
    const char* reason = stbi_failure_reason();
    throw InputError(path, "", std::string("a decodable PNG file: ") + (reason != nullptr ? reason : "unknown error"));
  }
  RgbaImage image;
  image.width = width;
  image.height = height;
  image.pixels.assign(pixels.get(), pixels.get() + size_t(width) * size_t(height) * 4);
  return image;
}

}  // namespace skinref

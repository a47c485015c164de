// PNG files for RGBA8 images (image_io.h). stb_image_write encodes into the atomic writer's stream and
// stb_image decodes; Debian's libstb provides both implementations, so no STB_*_IMPLEMENTATION here.
#include "io/image_io.h"

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/limits.h"

#include <stb_image.h>
#include <stb_image_write.h>

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
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, "", "reading the file failed");
  if (bytes.size() < sizeof(kPngSignature) || std::memcmp(bytes.data(), kPngSignature, sizeof(kPngSignature)) != 0) {
    throw InputError(path, "", "a PNG file (the 8-byte PNG signature)");
  }
  if (bytes.size() > size_t(INT_MAX)) throw InputError(path, "", "a PNG file below 2 GiB");
  int width = 0, height = 0, channels = 0;
  // The size from the IHDR chunk first (PNG specification 11.2.2: the first chunk, width and height big-endian
  // at bytes 16 and 20), before stb_image allocates width x height x 4 bytes.
  if (bytes.size() >= 24 && bytes.compare(12, 4, "IHDR") == 0) {
    auto be32 = [&](size_t at) {
      return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
             (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
    };
    check_image_size(path, "", be32(16), be32(20));
  }
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

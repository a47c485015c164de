// RGBA8 images and PNG files (stb_image_write to write, stb_image to read).
//
// Contract: pixels row-major, top row first, 4 bytes per pixel (R, G, B, A). write_png() is atomic (temporary
// file, then rename) and throws std::runtime_error naming the path on failure; read_png() throws InputError
// for a missing or undecodable file, and converts any channel count to RGBA8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace skinref {

struct RgbaImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height * 4
};

void write_png(const RgbaImage& image, const std::string& path);
RgbaImage read_png(const std::string& path);  // checks the header's size against the image limits first

// The image limits (core/limits.h: kMaxImageDimension, kMaxImagePixels): InputError(file, where, ...) for a
// larger width x height. Used by read_png(), the glTF loader's images and the render size.
void check_image_size(const std::string& file, const std::string& where, size_t width, size_t height);

}  // namespace skinref

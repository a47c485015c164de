// The shading formulas of shading.h: sRGB transfer functions, texture sampling with glTF's wrap modes and
// filters, Lambert lighting and the weight heat map. docs/shading.md states the same formulas for the shaders.
#include "raster/shading.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace skinref {
namespace {

constexpr double kTexelSpaceLimit = 0x1p52;

// Vulkan's wrap of an integer texel index i into [0, size) (Vulkan 1.3, "Wrapping Operation").
int wrap_index(long long i, int size, WrapMode mode) {
  const long long n = size;
  switch (mode) {
    case WrapMode::Repeat:
      return int(((i % n) + n) % n);
    case WrapMode::ClampToEdge:
      return int(std::clamp<long long>(i, 0, n - 1));
    case WrapMode::MirroredRepeat: {
      // (size - 1) - mirror((i mod 2 size) - size), mirror(a) = a >= 0 ? a : -(1 + a).
      const long long m = ((i % (2 * n)) + 2 * n) % (2 * n) - n;
      const long long mirrored = m >= 0 ? m : -(1 + m);
      return int((n - 1) - mirrored);
    }
  }
  return 0;
}

// A texel as linear RGBA: colour channels sRGB-decoded, alpha as stored (an R8G8B8A8_SRGB view).
Vec4 texel(const Image& image, int x, int y) {
  const size_t offset = (size_t(y) * size_t(image.width) + size_t(x)) * 4;
  // The 256 possible decodes, computed once by the formula itself: the same bits as calling it per texel,
  // without three pow() calls per texel (a bilinear sample reads four texels).
  static const std::array<double, 256> kDecoded = [] {
    std::array<double, 256> table{};
    for (int byte = 0; byte < 256; ++byte) table[size_t(byte)] = srgb_to_linear(byte / 255.0);
    return table;
  }();
  return Vec4(kDecoded[image.rgba8[offset]], kDecoded[image.rgba8[offset + 1]], kDecoded[image.rgba8[offset + 2]],
              image.rgba8[offset + 3] / 255.0);
}

// (1 - t) a + t b per channel, in that order.
Vec4 lerp(const Vec4& a, const Vec4& b, double t) {
  Vec4 r;
  for (int c = 0; c < 4; ++c) r[c] = (1.0 - t) * a[c] + t * b[c];
  return r;
}

}  // namespace

double srgb_to_linear(double encoded) {
  if (encoded <= 0.04045) return encoded / 12.92;
  return std::pow((encoded + 0.055) / 1.055, 2.4);
}

double linear_to_srgb(double linear) {
  if (linear <= 0.0031308) return linear * 12.92;
  return 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
}

uint8_t encode_srgb8(double linear) {
  // NaN (a degenerate normal, say) encodes as black rather than as an undefined conversion.
  const double clamped = std::isnan(linear) ? 0.0 : std::clamp(linear, 0.0, 1.0);
  const double scaled = std::floor(255.0 * linear_to_srgb(clamped) + 0.5);
  return uint8_t(std::clamp(scaled, 0.0, 255.0));
}

namespace {

// The four texels around a sample and its bilinear weights, or the one texel of NEAREST filtering.
struct TexelFootprint {
  bool bilinear = false;
  Vec4 t00, t10, t01, t11;  // t00 alone for NEAREST (and a texture without an image: white)
  double a = 0.0, b = 0.0;  // the weights of t10 / t11 along x and of t01 / t11 along y
};

TexelFootprint texel_footprint(const Scene& scene, int texture, const Vec2& uv) {
  TexelFootprint footprint;
  footprint.t00 = Vec4::Ones();
  const Texture& tex = scene.textures[size_t(texture)];
  if (tex.image < 0) return footprint;
  const Image& image = scene.images[size_t(tex.image)];
  if (image.width <= 0 || image.height <= 0) return footprint;
  const TextureSampler& sampler = tex.sampler;
  // Texel-space coordinates, kept finite and within the range of long long for the index arithmetic (far
  // beyond any texture's repeat period, so the wrap is unaffected for any sensible uv).
  auto texel_space = [](double t, int size) {
    const double s = t * size;
    return std::isfinite(s) ? std::clamp(s, -kTexelSpaceLimit, kTexelSpaceLimit) : 0.0;
  };
  const double x = texel_space(uv.x(), image.width);
  const double y = texel_space(uv.y(), image.height);
  if (sampler.mag_filter == Filter::Nearest) {
    const int i = wrap_index((long long)std::floor(x), image.width, sampler.wrap_s);
    const int j = wrap_index((long long)std::floor(y), image.height, sampler.wrap_t);
    footprint.t00 = texel(image, i, j);
    return footprint;
  }
  // Bilinear between the four texel centres around (x, y); centres lie at i + 0.5.
  const double fx = std::floor(x - 0.5);
  const double fy = std::floor(y - 0.5);
  footprint.bilinear = true;
  footprint.a = (x - 0.5) - fx;
  footprint.b = (y - 0.5) - fy;
  const long long i0 = (long long)fx, j0 = (long long)fy;
  const int x0 = wrap_index(i0, image.width, sampler.wrap_s);
  const int x1 = wrap_index(i0 + 1, image.width, sampler.wrap_s);
  const int y0 = wrap_index(j0, image.height, sampler.wrap_t);
  const int y1 = wrap_index(j0 + 1, image.height, sampler.wrap_t);
  footprint.t00 = texel(image, x0, y0);
  footprint.t10 = texel(image, x1, y0);
  footprint.t01 = texel(image, x0, y1);
  footprint.t11 = texel(image, x1, y1);
  return footprint;
}

Vec4 blend(const TexelFootprint& f, double a, double b) {
  return lerp(lerp(f.t00, f.t10, a), lerp(f.t01, f.t11, a), b);
}

}  // namespace

Vec4 sample_texture(const Scene& scene, int texture, const Vec2& uv) {
  const TexelFootprint footprint = texel_footprint(scene, texture, uv);
  return footprint.bilinear ? blend(footprint, footprint.a, footprint.b) : footprint.t00;
}

TextureSampleRange sample_texture_range(const Scene& scene, int texture, const Vec2& uv, int sub_texel_bits) {
  const TexelFootprint footprint = texel_footprint(scene, texture, uv);
  if (!footprint.bilinear) return {footprint.t00, footprint.t00};
  const Vec4 exact = blend(footprint, footprint.a, footprint.b);
  TextureSampleRange range{exact, exact};
  if (sub_texel_bits <= 0) return range;
  const double step = std::ldexp(1.0, -std::min(sub_texel_bits, 52));
  for (const double a : {std::max(0.0, footprint.a - step), std::min(1.0, footprint.a + step)}) {
    for (const double b : {std::max(0.0, footprint.b - step), std::min(1.0, footprint.b + step)}) {
      const Vec4 corner = blend(footprint, a, b);
      range.low = range.low.cwiseMin(corner);
      range.high = range.high.cwiseMax(corner);
    }
  }
  return range;
}

Vec3 shade_lambert(const Vec3& base_rgb, const Vec3& normal) {
  const double n_dot_l = (normal.x() * kLightDirection.x() + normal.y() * kLightDirection.y()) +
                         normal.z() * kLightDirection.z();
  const double light = kAmbient + (1.0 - kAmbient) * std::max(0.0, n_dot_l);
  return Vec3(base_rgb.x() * light, base_rgb.y() * light, base_rgb.z() * light);
}

Vec3 heat_color(double weight) {
  const double w = std::isnan(weight) ? 0.0 : std::clamp(weight, 0.0, 1.0);
  return Vec3(w, 4.0 * w * (1.0 - w), 1.0 - w);
}

}  // namespace skinref

// The shading formulas of every view, written once. The Vulkan shaders (gpu/shaders/) must implement exactly
// these; docs/shading.md states them for readers.
//
// Contract (all colours linear RGB in [0, 1] until encode_srgb8):
// - srgb_to_linear(c) = c / 12.92 for c <= 0.04045, else ((c + 0.055) / 1.055)^2.4 (IEC 61966-2-1), per
//   channel of 8-bit texels (c = byte / 255); linear_to_srgb is its inverse (c * 12.92 for c <= 0.0031308,
//   else 1.055 c^(1/2.4) - 0.055); encode_srgb8 clamps to [0, 1], encodes, and rounds: floor(255 s + 0.5).
// - Texture sampling: texel centres at (i + 0.5) / width; wrap modes per glTF sampler (REPEAT,
//   CLAMP_TO_EDGE, MIRRORED_REPEAT) applied to texel indices; LINEAR = bilinear between the four nearest
//   texel centres, NEAREST = the texel containing uv; magnification filter used (no mipmaps); filtering
//   happens on linear values (sRGB decoded first, as an R8G8B8A8_SRGB image view does).
// - Shaded view: base = baseColorFactor * texture(uv) (texture white when absent); n = normalized
//   interpolated world normal, negated on back faces of double-sided materials; light direction (towards
//   the light) kLightDirection; colour = base.rgb * (kAmbient + (1 - kAmbient) * max(0, n . L)); alpha 1.
//   Primitives without normals use the face normal of the world-space triangle.
// - Normals view: colour = n * 0.5 + 0.5.
// - Weights view (joint J): w = the vertex's summed weight of skin joint J, interpolated; colour =
//   heat(w) = (w, 4 w (1 - w), 1 - w) (blue -> green -> red), w clamped to [0, 1] first.
// - Depth view: colour = (1 - d) in every channel, d the D32 depth in [0, 1].
// - Background: kBackground (linear) everywhere nothing was drawn, alpha 1.
#pragma once

#include "core/scene.h"

#include <cstdint>

namespace skinref {

inline const Vec3 kLightDirection = Vec3(0.3, 0.8, 0.5).normalized();
inline constexpr double kAmbient = 0.25;
inline const Vec3 kBackground = Vec3(0.05, 0.05, 0.06);

double srgb_to_linear(double encoded);
double linear_to_srgb(double linear);
uint8_t encode_srgb8(double linear);

// RGBA, linear, from a texture at uv (glTF convention: (0, 0) is the image's top-left texel).
Vec4 sample_texture(const Scene& scene, int texture, const Vec2& uv);

// What a GPU may return for that sample: a device quantizes a LINEAR filter's position within the texel to
// `sub_texel_bits` bits (VkPhysicalDeviceLimits::subTexelPrecisionBits; Vulkan 1.3, "Texel Filtering"), so
// each bilinear weight may be off by up to 2^-bits, rounded or truncated. The sample is then the bilinear
// blend at some weights within that box around the exact ones (clamped to [0, 1]); a function linear in
// each weight takes its extremes at the box's corners, so per channel low <= sample_texture() <= high.
// NEAREST (and sub_texel_bits <= 0) gives low = high = sample_texture().
struct TextureSampleRange {
  Vec4 low, high;
};
TextureSampleRange sample_texture_range(const Scene& scene, int texture, const Vec2& uv, int sub_texel_bits);

Vec3 shade_lambert(const Vec3& base_rgb, const Vec3& normal);
Vec3 heat_color(double weight);

}  // namespace skinref

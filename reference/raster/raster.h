// Stage: triangle rasterization with Vulkan's rules (Vulkan 1.3 spec, "Rasterization" and "Polygons"), so that
// the reference and a Vulkan implementation agree on every pixel but a thin band along some edges.
//
// Contract:
// - Input: triangles of clip-space vertices (x, y, z, w) in Vulkan's convention: the visible volume is
//   -w <= x, y <= w, 0 <= z <= w; framebuffer y grows downwards (clip y = -w is the top row). The
//   projection must already contain any y flip.
// - Clipping: against the near (z >= 0) and far (z <= w) planes in homogeneous space (Sutherland-Hodgman),
//   and against a guard band |x|, |y| <= kGuardBand * w so that fixed-point coordinates stay bounded; the
//   result is fanned into triangles, each carrying its vertices' barycentrics with respect to the original.
//   Everything else of the frustum is a scissor on the framebuffer rectangle. A triangle with a non-finite
//   coordinate covers nothing.
// - Viewport: x_f = (x / w + 1) * width / 2, y_f = (y / w + 1) * height / 2, z_f = z / w (depth range [0, 1]).
//   Positions are snapped to 8 sub-pixel bits (round to nearest 1/256 pixel, halfway cases away from zero
//   as std::llround). Edge functions are exact integers, evaluated in 64 bits where a triangle's values
//   provably fit and in 128 bits otherwise (triangles reaching far into the guard band: on targets above
//   about 8 million pixels their edge functions can exceed 2^63).
// - Coverage: one sample per pixel at its centre (x + 0.5, y + 0.5). A sample is inside when all three
//   edge functions are > 0, or == 0 on a top or left edge (the top-left fill rule, y down: a top
//   edge is exactly horizontal with the other vertex below it; a left edge runs downwards along the
//   triangle's left side, for either winding). Degenerate (zero-area after snapping) triangles cover
//   nothing.
// - Facing: the signed area in framebuffer coordinates decides front or back. With the project's
//   projections (y flipped for Vulkan), glTF's counter-clockwise front faces appear clockwise in the
//   y-down framebuffer: a triangle is front-facing when its framebuffer area is negative in the
//   (x right, y down) coordinate system, i.e. clockwise when those coordinates are plotted y up (as the
//   image is viewed, y down, a front face stays counter-clockwise); `flip_winding` swaps that (negative
//   determinant node transforms). Back faces are culled when `cull_back_faces`. The area is that of the
//   snapped (sub-)triangle.
// - Depth: z_f interpolated linearly in screen space with the screen-space barycentrics, clamped to [0, 1]
//   (clipping keeps it there but for roundings), rounded to float32 (D32_SFLOAT), tested LESS against the
//   depth buffer (cleared to 1.0), then written.
// - Output per covered, depth-passing sample: the triangle id (index into the input), perspective-correct
//   barycentrics with respect to the ORIGINAL triangle's three vertices (clipping is undone), and the depth.
//   Triangles are processed in input order, so a pixel's result is that of the last triangle to pass the
//   depth test in that order: deterministic, and identical for any `threads` (pixels are partitioned into
//   tiles; each tile runs every triangle in order).
#pragma once

#include "core/math_types.h"

#include <cstdint>
#include <span>
#include <vector>

namespace skinref {

inline constexpr int kSubpixelBits = 8;
inline constexpr double kGuardBand = 4096.0;  // in units of w: framebuffer coordinates stay below 2^24

struct RasterTriangle {
  Vec4 clip[3];             // clip-space positions
  bool cull_back_faces = true;
  bool flip_winding = false;
};

// What the rasterizer leaves per pixel (row-major, top row first). triangle == kNoTriangle: background.
struct RasterBuffers {
  static constexpr uint32_t kNoTriangle = 0xffffffffu;
  int width = 0;
  int height = 0;
  std::vector<float> depth;          // D32: 1.0f where nothing was drawn
  std::vector<uint32_t> triangle;    // index into the triangle list
  std::vector<Vec3> barycentric;     // perspective-correct, w.r.t. the original triangle's vertices
  std::vector<uint8_t> front_facing; // 1 when the winning triangle was front-facing
};

struct RasterOptions {
  int width = 0;   // > 0
  int height = 0;  // > 0
  int threads = 1; // >= 1; the output does not depend on it
};

// Throws std::invalid_argument when width, height or threads is < 1, or there are 2^32 - 1 triangles or more.
RasterBuffers rasterize(std::span<const RasterTriangle> triangles, const RasterOptions& options);

}  // namespace skinref

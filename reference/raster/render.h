// The whole picture: a posed scene -> skinned world vertices -> clip space -> rasterize -> shade -> RGBA8.
//
// Contract:
// - Every drawn primitive (evaluate_vertices order) with Triangles topology is drawn; points and lines are
//   not. Triangle ids in the auxiliary outputs count triangles in that order across primitives
//   (primitive_first_triangle gives each primitive's first id).
// - Culling: back faces culled unless the material is doubleSided (no material: single-sided); the winding is
//   flipped for nodes whose global transform has a negative determinant (rigid nodes; for skinned nodes the
//   node transform is ignored by glTF, so their winding is as stored). The global transforms are those of
//   `pose` (the pose the primitives were evaluated at); the overload without a pose uses the rest pose's,
//   which is right unless an animation changes the sign of a rigid node's determinant.
// - Per pixel, attributes are interpolated with the rasterizer's perspective-correct barycentrics: world
//   normals (renormalized; the face normal of the world triangle, outward for the stored winding, where the
//   primitive has none or they interpolate to zero), TEXCOORD_0 (a base colour texture on another set is
//   not applied: the loader keeps set 0 only) and the stored skin weights (WeightPolicy::AsStored; 0 on
//   rigid nodes in the weights view).
// - Views and shading formulas: shading.h. Colours are encoded to sRGB8 per pixel.
// - Deterministic: the same bytes for any `threads` (raster.h).
#pragma once

#include "io/image_io.h"
#include "raster/camera.h"
#include "raster/raster.h"

#include <vector>

namespace skinref {

enum class RenderView { Shaded, Normals, Weights, Depth };

struct RenderOptions {
  int width = 512;
  int height = 512;
  RenderView view = RenderView::Shaded;
  int weights_joint = 0;  // skin joint index for RenderView::Weights
  int threads = 1;
  // > 0: also give each pixel's range (RenderResult::image_low / image_high) when a GPU quantizes LINEAR
  // texture filtering to this many sub-texel bits (VkPhysicalDeviceLimits::subTexelPrecisionBits; shading.h,
  // sample_texture_range). The image itself does not change.
  int filter_sub_texel_bits = 0;
};

struct RenderResult {
  RgbaImage image;
  RasterBuffers buffers;                        // triangle ids, barycentrics, depth per pixel
  std::vector<uint32_t> primitive_first_triangle;  // per entry of `primitives`
  std::vector<WorldPrimitive> primitives;       // the skinned vertices that were drawn
  // With RenderOptions::filter_sub_texel_bits > 0, per channel the least and greatest byte each pixel can
  // encode under that quantization (equal to `image` wherever no LINEAR texture is sampled); else empty.
  RgbaImage image_low, image_high;
};

// Throws std::invalid_argument when options are out of range (sizes < 1, threads < 1, a negative weights
// joint) or `primitives` do not match the scene (mesh/primitive indices, vertex counts).
RenderResult render_scene(const Scene& scene, const EvaluatedPose& pose,
                          const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                          const RenderOptions& options);
RenderResult render_scene(const Scene& scene, const std::vector<WorldPrimitive>& primitives,
                          const RenderCamera& camera, const RenderOptions& options);

// The summed stored weight of skin joint `joint` at vertex v of `primitive` (0 for a rigid primitive): what
// the weights view shows, per vertex, in both renderers.
double joint_weight(const Primitive& primitive, bool skinned, size_t v, int joint);

// The triangle id of every pixel as an image, so that a pixel can be traced to its triangle: v = id + 1
// (0 = background) as 24 bits, R = v >> 16, G = (v >> 8) & 255, B = v & 255, alpha 255; i.e.
// id = R * 65536 + G * 256 + B - 1. Throws std::range_error when an id does not fit (id + 1 > 0xffffff).
inline constexpr uint32_t kMaxEncodableTriangleId = 0xfffffeu;
RgbaImage triangle_id_image(const RasterBuffers& buffers);

}  // namespace skinref

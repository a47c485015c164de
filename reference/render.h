// The whole picture: a posed scene -> skinned world vertices -> clip space -> rasterize -> shade -> RGBA8.
//
// Contract:
// - Every drawn primitive (evaluate_vertices order) with Triangles topology is drawn; points and lines are
//   not. Triangle ids in the auxiliary outputs count triangles in that order across primitives
//   (primitive_first_triangle gives each primitive's first id).
// - Culling: back faces culled unless the material is doubleSided (no material: single-sided); the winding is
//   flipped for nodes whose global transform has a negative determinant (rigid nodes; for skinned nodes the
//   node transform is ignored by glTF, so their winding is as stored).
// - Views and shading formulas: shading.h. Colours are encoded to sRGB8 per pixel.
// - Deterministic: the same bytes for any `threads` (raster.h).
#pragma once

#include "camera.h"
#include "image_io.h"
#include "raster.h"

#include <vector>

namespace skinref {

enum class RenderView { Shaded, Normals, Weights, Depth };

struct RenderOptions {
  int width = 512;
  int height = 512;
  RenderView view = RenderView::Shaded;
  int weights_joint = 0;  // skin joint index for RenderView::Weights
  int threads = 1;
};

struct RenderResult {
  RgbaImage image;
  RasterBuffers buffers;                        // triangle ids, barycentrics, depth per pixel
  std::vector<uint32_t> primitive_first_triangle;  // per entry of `primitives`
  std::vector<WorldPrimitive> primitives;       // the skinned vertices that were drawn
};

RenderResult render_scene(const Scene& scene, const std::vector<WorldPrimitive>& primitives,
                          const RenderCamera& camera, const RenderOptions& options);

}  // namespace skinref

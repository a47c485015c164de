// Offscreen rendering with a Vulkan graphics pipeline, with the reference rasterizer's conventions
// (raster.h) and shading formulas (shading.h, docs/shading.md), so that its image can be compared with
// render_scene()'s pixel by pixel.
//
// Contract:
// - Inputs: the same as render_scene(): scene, pose, the world-space vertices to draw (from the reference
//   or from gpu_evaluate_vertices), camera and options (size, view, weights joint).
// - Pipeline: vertex positions in world space, clip = projection * view * position (float32), viewport
//   (0, 0, width, height) with depth range [0, 1], the projection already flipped in y (camera.h), so the
//   framebuffer y goes down as in the reference; cull mode BACK unless the material is doubleSided, front
//   face chosen per draw so that glTF's counter-clockwise triangles are front-facing (and flipped for
//   mirrored rigid nodes, as render.h says); depth D32_SFLOAT, compare LESS, cleared to 1.0; colour
//   R8G8B8A8_SRGB, cleared to kBackground; textures uploaded as R8G8B8A8_SRGB with the glTF sampler's
//   filters and wrap modes, no mipmaps.
// - The vertex shader snaps window-space positions to the reference's 1/256-pixel grid (halves away from
//   zero) before the rasterizer sees them: llvmpipe interpolates attributes from unsnapped positions, and
//   where a texture is minified that shift shows as whole colour steps. Coverage is not changed by it.
// - The image is copied to a host-visible buffer (rowPitch honoured) and returned as RgbaImage.
// - Size limits: width and height in [1, maxImageDimension2D]; larger -> InputError naming the limit.
#pragma once

#include "gpu/context.h"
#include "raster/render.h"

namespace skinref::gpu {

RgbaImage gpu_render(Context& context, const Scene& scene, const EvaluatedPose& pose,
                     const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                     const RenderOptions& options);

}  // namespace skinref::gpu

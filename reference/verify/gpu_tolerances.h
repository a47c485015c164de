// The fixed tolerances of GPU output against the reference where no per-value bound is derived: the golden
// check's Vulkan defaults (tools/golden/golden_manifest.h, overridable per case) and the GPU tests. Derived
// per-vertex bounds (verify/vertex_error_bounds.h) take over wherever a dump is compared.
#pragma once

namespace skinref::tol {

// GPU skinned positions (float32 compute shaders, gpu/skinning_gpu.h) against the reference, relative to the
// model's extent (the largest absolute coordinate of the reference's positions, at least 1): the fixed bound
// where no per-vertex one is derived (above). float32 rounds each of the few dozen operations per vertex
// by up to 6e-8 of its magnitude, so a few 1e-7 of the extent are expected.
inline constexpr double kGpuVertexRelative = 1e-5;

// GPU skinned normals and tangents (unit vectors) against the reference, absolute: float32 cofactors,
// quaternion rotations and the normalization, a few 1e-7 where the blended matrix is well conditioned.
inline constexpr double kGpuUnitVector = 1e-5;

// GPU images against the reference image of the same vertices and camera: at least this fraction of the
// pixels must have every channel within kGpuImageChannelBytes, of the reference's byte or of the range
// a LINEAR texture sample may take under the device's quantized filter weights (raster/shading.h,
// sample_texture_range; the GPU tests use it, the golden check's stored images have none). The rest is the
// band along edges where float32 vertex transforms move a snapped vertex by 1/256 pixel.
inline constexpr double kGpuImagePixelFraction = 0.999;
inline constexpr int kGpuImageChannelBytes = 1;

}  // namespace skinref::tol

// Compute skinning on the GPU: the same inputs as the reference (Scene, EvaluatedPose, SkinningOptions) and
// the same outputs (world-space vertices per drawn primitive), computed in float32 by compute shaders.
//
// Contract:
// - Morph targets first (weights from the pose), then LBS over any number of influence sets (influence
//   count passed to the shader; joints and weights as float32 / uint32 arrays) or DQS (the palette's
//   per-joint rigid dual quaternions and non-rigid 3x3 parts prepared on the CPU from the reference's double
//   palette, as skin/dqs.h describes, then converted to float), normals by the inverse transpose of the
//   blended matrix (cofactor with the sign of the determinant), tangents xyz by the blended matrix; both
//   normalized; weights as stored (or renormalized, per options); zero-weight vertices keep bind attributes.
// - Rigid (non-skinned) nodes: one palette entry (the node's global matrix) with weight 1, as the reference.
// - Palettes come from the reference (doubles rounded to float32) by default.
// - Results are read back into WorldPrimitive (double fields holding the float32 values), in
//   evaluate_vertices order, so write_vertex_dump with DumpPrecision::F32 writes them exactly.
// - `timing` (optional out): device time of the skinning dispatches from timestamp queries (0 when the
//   device has no timestamps) and the end-to-end wall time (upload, dispatch, readback).
#pragma once

#include "gpu/context.h"
#include "skin/evaluate_vertices.h"

#include <vector>

namespace skinref::gpu {

struct GpuTiming {
  double device_ms = 0.0;
  double end_to_end_ms = 0.0;
};

std::vector<WorldPrimitive> gpu_evaluate_vertices(Context& context, const Scene& scene, const EvaluatedPose& pose,
                                                  const SkinningOptions& options, GpuTiming* timing = nullptr);

}  // namespace skinref::gpu

// Animation evaluated on the GPU: clip sampling, local to model and the joint palettes in compute shaders
// (gpu/shaders/animation.comp), so that a whole GPU animation pipeline can be checked stage by stage against
// the reference (`--palette gpu`).
//
// Contract:
// - Inputs: a validated Scene, an animation index (-1: the rest pose) and a time in seconds. The GPU works in
//   float32 throughout, so the time is rounded to float first; the returned pose's `time` is that float, and
//   the reference evaluated at the same time (evaluate_pose(scene, animation, pose.time)) is what it
//   approximates. Keys, rest TRS and inverse bind matrices are rounded to float as well.
// - Stage 1, sampling (one invocation per channel), the formulas of reference/anim/sampling.h in the same order:
//   clamping outside the key range; the interval by binary search for the last key time <= t; STEP; LINEAR
//   lerp a + (b - a) u; rotations by slerp from the sampler's derived per-interval table (angle, sin, cos,
//   sign; scene.h) with sin and cos of u * angle (in [0, pi/2]) from polynomials in the shader rather than
//   GLSL's sin/cos, whose Vulkan precision (absolute error 2^-11) is far too coarse; CUBICSPLINE Hermite;
//   rotations normalized. Channels start from the rest pose; morph weights too (rest_pose()).
// - Stage 2, local to model: one dispatch per depth level of the node tree (roots first), each node
//   G = G(parent) * compose_trs(local), with compose_trs and multiply_affine's order of operations.
// - Stage 3, palettes: JM = G(joint) * IBM for every joint of every skin, and its normal matrix (the cofactor
//   matrix times the sign of the determinant, normal_matrix()).
// - Everything is read back into an EvaluatedPose: local TRS, morph weights, globals and palettes hold the
//   float32 values as doubles (so write_pose_dump() writes exactly what the GPU computed, and handing the
//   palettes to gpu_evaluate_vertices() converts them back to the same floats).
// - `timing` (optional): device time of the three stages from timestamps (0 without them), and end to end
//   (conversion, upload, dispatches, readback; pipeline creation excluded, as for skinning).
// - Errors: counts that do not fit the GPU's 32-bit indices or its dispatch limits -> InputError naming the
//   scene; Vulkan failures -> GpuError.
#pragma once

#include "anim/evaluate_pose.h"
#include "gpu/context.h"
#include "gpu/skinning_gpu.h"

namespace skinref::gpu {

EvaluatedPose gpu_evaluate_pose(Context& context, const Scene& scene, int animation, double time,
                                GpuTiming* timing = nullptr);

}  // namespace skinref::gpu

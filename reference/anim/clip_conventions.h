// The sampling conventions (core/conventions.h) that change a clip's keys rather than how they are read:
// resampling at a fixed rate, key quantization and the layout of CUBICSPLINE weights, applied to the Scene
// once, as an engine's import does.
//
// Contract: apply_clip_conventions() rewrites every animation of `scene` in place and leaves it valid
// (finalize_scene() is run again, so the slerp tables follow the new keys):
// - step=linear: every STEP sampler becomes LINEAR, its keys kept (an import that drops the mode).
// - resample=HZ: every sampler becomes LINEAR with keys at t_i = float32(start + i / HZ), i = 0, 1, ... while
//   t_i < end, and at `end` (the animation's first and last key times), each the glTF value of the original
//   sampler there (sample_sampler() with the default conventions).
// - key-translation-scale=half: translation and scale keys (CUBICSPLINE tangents too) rounded to IEEE half
//   precision (round to nearest even, subnormals kept, magnitudes beyond 65504 saturated).
// - key-rotation=q15: rotation keys normalized and stored as ozz-animation does: the largest |component|
//   dropped (made positive), the other three as round(c * 32767 * sqrt 2) in 16-bit integers, the largest
//   rebuilt as sqrt(1 - sum of the others' squares). CUBICSPLINE tangents are left as they are.
// - cubic-weights=per-target: every CUBICSPLINE weights sampler of N > 1 targets is permuted so that the
//   grouped layout holds what an engine reading (in-tangent, value, out-tangent) per target would play:
//   key k's element e of target j becomes the value stored at 3 (N k + j) + e.
// - key-decoding=raw|offset-signed: keys stored as normalized integers (AnimationSampler::normalized_output)
//   read back to their integers c = round(value * max), then taken as c itself, or, signed, as
//   (2c + 1) / (2 max + 1); float keys are left as they are.
// The keys are decoded first and the weights layout read next (both are how the file is read), then the STEP
// mode, then resampling, then quantization (what an engine stores is the resampled clip).
#pragma once
#include "core/conventions.h"
#include "core/scene.h"
namespace skinref {
void apply_clip_conventions(Scene& scene, const SamplingConventions& conventions);
// IEEE half precision round trip of `value` (round to nearest even; beyond 65504 saturated).
double round_to_half(double value);
// ozz-animation's 15-bit smallest-three quantization round trip of a quaternion (x, y, z, w), normalized first.
void quantize_quaternion_q15(double* xyzw);
}  // namespace skinref

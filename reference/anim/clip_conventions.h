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
// - key-rotation=q15: rotation keys normalized and stored as ozz-animation did up to 0.14: the largest
//   |component| dropped (made positive), the other three as round(c * 32767 * sqrt 2) in 16-bit signed
//   integers, the largest rebuilt as sqrt(1 - sum of the others' squares). CUBICSPLINE tangents are left as they
//   are.
// - key-rotation=q15-offset: as ozz-animation stores them from 0.15 on (quantize_quaternion_q15_offset()): 15 bits
//   per component on the offset grid k = int((c + sqrt2/2) 32767/sqrt2 + 0.5), in float32.
// - key-scope=every-joint: with a quantization, every skin joint's rest translation, rotation and scale (the
//   values the clip leaves unanimated) are stored the same way, as in an engine whose clip holds a track for
//   every joint (ozz-animation's gltf2ozz fills those tracks with the rest values). key-scope=keys: the clip's
//   keys alone.
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
// Smallest-three quantization round trip of a quaternion (x, y, z, w) in 16-bit signed integers (ozz-animation to
// 0.14), normalized first.
void quantize_quaternion_q15(double* xyzw);
// ozz-animation's 15-bit smallest-three round trip from 0.15 on (key-rotation=q15-offset), in float32 as ozz
// encodes and decodes it, the largest component rebuilt by an exact square root.
void quantize_quaternion_q15_offset(double* xyzw);
}  // namespace skinref

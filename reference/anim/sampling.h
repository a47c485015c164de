// Stage: clip sampling. Evaluates an animation's channels at time t onto a LocalPose.
//
// Contract (glTF 2.0, "Animations"):
// - Inputs: a validated Scene, an animation index, a time t in seconds (any finite value), and a LocalPose to
//   write into (usually rest_pose()). Only animated node properties are overwritten; the rest stay as given.
// - Outside a sampler's key range the value is clamped to the first / last key. At an exact key time the
//   key's own value is used (for STEP too). Between keys k and k+1, with u = (t - t_k) / (t_k+1 - t_k):
//     STEP         value of key k;
//     LINEAR       lerp for translation, scale and weights; slerp along the short path for rotations
//                  (both keys normalized first, the second key's sign flipped when the dot product is
//                  negative);
//     CUBICSPLINE  Hermite: (2u^3-3u^2+1) v_k + d(u^3-2u^2+u) b_k + (-2u^3+3u^2) v_k+1 + d(u^3-u^2) a_k+1,
//                  d = t_k+1 - t_k, a = in-tangent, b = out-tangent; rotations renormalized afterwards.
// - Rotations are always returned normalized.
// - `conventions` (core/conventions.h; default glTF 2.0, the rules above) changes them as an engine does:
//   rotation=nlerp lerps the normalized keys on the short path and normalizes, rotation=lerp does the same
//   without the hemisphere check; quaternion-keys=as-stored uses the stored keys unnormalized and never
//   normalizes the result (slerp's angle is still the unit keys'); step-boundary=previous gives STEP at
//   exactly t_k (k > 0) key k-1's value; cubic=unscaled-tangents drops the factor d, cubic=linear plays the
//   key values as LINEAR, cubic=no-renormalize leaves CUBICSPLINE rotations unnormalized. step=linear,
//   resampling and key quantization change the clip itself (anim/clip_conventions.h).
#pragma once

#include "core/conventions.h"
#include "core/pose.h"

#include <span>

namespace skinref {

// Writes `components` doubles of sampler `sampler` at time t into `out`.
void sample_sampler(const AnimationSampler& sampler, ChannelPath path, double t, std::span<double> out,
                    const SamplingConventions& conventions = {});

// Applies every channel of scene.animations[animation] at time t to `pose`, in channel order (a later channel
// on the same property wins). Each value has the bits sample_sampler gives it; the slerps of LINEAR rotations
// are finished in batches, so that their square roots and divisions overlap.
void sample_animation(const Scene& scene, int animation, double t, LocalPose& pose,
                      const SamplingConventions& conventions = {});

// Short-path spherical interpolation of unit quaternions, u in [0, 1]; u == 0 gives a, u == 1 gives b
// (or -b), exactly.
Quat slerp_short(const Quat& a, const Quat& b, double u);

}  // namespace skinref

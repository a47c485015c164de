// Tests of time mapping (time_mapping.h): Once clamping at both ends, Loop wrapping (a full period restarts at
// 0), PingPong reflection, backwards playback, repetition counts for Loop and PingPong (odd and even), rate
// scaling, the first frame held before the start, normalized time carrying a phase between clips of
// different lengths, zero-length clips and the refused arguments. Most cases use D = 2 and start 0.5 so that
// every intermediate value is dyadic and the expected local times are exact; one case checks a non-dyadic
// clip within tol::kClosedForm.
#include "anim/time_mapping.h"
#include "anim/evaluate_pose.h"
#include "anim/sampling.h"
#include "core/scene.h"
#include "io/builtin_scenes.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

constexpr double kD = 2.0;      // clip duration
constexpr double kStart = 0.5;  // global start time

Playback playback(PlaybackMode mode, double rate = 1.0, int repetitions = 0) {
  Playback p;
  p.animation = 0;
  p.start_time = kStart;
  p.rate = rate;
  p.mode = mode;
  p.repetitions = repetitions;
  return p;
}

// Local time at elapsed global time `elapsed` after the start.
double local_at(const Playback& p, double elapsed) { return clip_local_time(p, kD, kStart + elapsed); }

TEST(TimeMapping, OnceClampsAtBothEnds) {
  const Playback once = playback(PlaybackMode::Once);
  EXPECT_EQ(local_at(once, -1.0), 0.0);
  EXPECT_EQ(local_at(once, 0.0), 0.0);
  EXPECT_EQ(local_at(once, 0.75), 0.75);
  EXPECT_EQ(local_at(once, kD), kD);
  EXPECT_EQ(local_at(once, kD + 0.25), kD);
  EXPECT_EQ(local_at(once, 10.0 * kD), kD);
}

TEST(TimeMapping, OnceIgnoresRepetitions) {
  // Once always plays exactly one pass, whatever the count says.
  const Playback once = playback(PlaybackMode::Once, 1.0, 3);
  EXPECT_EQ(local_at(once, 0.5 * kD), 0.5 * kD);
  EXPECT_EQ(local_at(once, 2.5 * kD), kD);
}

TEST(TimeMapping, LoopWraps) {
  const Playback loop = playback(PlaybackMode::Loop);
  EXPECT_EQ(local_at(loop, 0.5 * kD), 0.5 * kD);
  EXPECT_EQ(local_at(loop, 1.5 * kD), 0.5 * kD);
  EXPECT_EQ(local_at(loop, 7.25 * kD), 0.25 * kD);
  // Exactly at a period boundary the loop restarts.
  EXPECT_EQ(local_at(loop, kD), 0.0);
  EXPECT_EQ(local_at(loop, 3.0 * kD), 0.0);
  EXPECT_EQ(local_at(loop, kD - 0.25), kD - 0.25);
}

TEST(TimeMapping, LoopOfANonDyadicClip) {
  Playback loop = playback(PlaybackMode::Loop);
  loop.start_time = 0.1;
  const double duration = 0.7;
  EXPECT_NEAR(clip_local_time(loop, duration, 0.1 + 1.5 * duration), 0.5 * duration, tol::kClosedForm);
  EXPECT_NEAR(clip_local_time(loop, duration, 0.1 + 4.2 * duration), 0.2 * duration, tol::kClosedForm);
}

TEST(TimeMapping, PingPongReflects) {
  const Playback ping = playback(PlaybackMode::PingPong);
  EXPECT_EQ(local_at(ping, 0.25 * kD), 0.25 * kD);
  EXPECT_EQ(local_at(ping, kD), kD);               // the turning point
  EXPECT_EQ(local_at(ping, 1.25 * kD), 0.75 * kD);  // on the way back
  EXPECT_EQ(local_at(ping, 2.0 * kD), 0.0);         // back at the start
  EXPECT_EQ(local_at(ping, 2.5 * kD), 0.5 * kD);    // forwards again
  EXPECT_EQ(local_at(ping, 3.75 * kD), 0.25 * kD);
}

TEST(TimeMapping, NegativeRatePlaysBackwards) {
  const Playback back = playback(PlaybackMode::Once, -1.0);
  EXPECT_EQ(local_at(back, -1.0), kD);  // the first frame of a backwards playback is the clip's end
  EXPECT_EQ(local_at(back, 0.0), kD);
  EXPECT_EQ(local_at(back, 0.5), kD - 0.5);
  EXPECT_EQ(local_at(back, kD), 0.0);
  EXPECT_EQ(local_at(back, 3.0 * kD), 0.0);

  const Playback back_loop = playback(PlaybackMode::Loop, -1.0);
  EXPECT_EQ(local_at(back_loop, 1.25 * kD), 0.75 * kD);
  EXPECT_EQ(local_at(back_loop, kD), kD);  // the backwards loop restarts at D

  const Playback back_ping = playback(PlaybackMode::PingPong, -1.0);
  EXPECT_EQ(local_at(back_ping, 1.25 * kD), 0.25 * kD);
}

TEST(TimeMapping, LoopRepetitionsStopOnTheLastFrame) {
  const Playback loop = playback(PlaybackMode::Loop, 1.0, 2);
  EXPECT_EQ(local_at(loop, 0.5 * kD), 0.5 * kD);
  EXPECT_EQ(local_at(loop, kD), 0.0);  // the second pass starts
  EXPECT_EQ(local_at(loop, 1.5 * kD), 0.5 * kD);
  EXPECT_EQ(local_at(loop, 2.0 * kD), kD);  // the second pass has ended: hold its last frame
  EXPECT_EQ(local_at(loop, 5.0 * kD), kD);

  const Playback back = playback(PlaybackMode::Loop, -1.0, 2);
  EXPECT_EQ(local_at(back, 5.0 * kD), 0.0);  // a backwards pass ends at 0
}

TEST(TimeMapping, PingPongRepetitionsStopAtTheEndOfTheLastLeg) {
  const Playback odd = playback(PlaybackMode::PingPong, 1.0, 3);
  EXPECT_EQ(local_at(odd, 2.5 * kD), 0.5 * kD);  // the third leg, forwards
  EXPECT_EQ(local_at(odd, 3.0 * kD), kD);
  EXPECT_EQ(local_at(odd, 5.0 * kD), kD);

  const Playback even = playback(PlaybackMode::PingPong, 1.0, 2);
  EXPECT_EQ(local_at(even, 1.75 * kD), 0.25 * kD);  // the second leg, backwards
  EXPECT_EQ(local_at(even, 5.0 * kD), 0.0);

  const Playback one = playback(PlaybackMode::PingPong, 1.0, 1);
  EXPECT_EQ(local_at(one, 1.5 * kD), kD);  // one leg plays like Once
}

TEST(TimeMapping, RateScalesElapsedTime) {
  const Playback fast = playback(PlaybackMode::Once, 2.0);
  EXPECT_EQ(local_at(fast, 0.25 * kD), 0.5 * kD);
  EXPECT_EQ(local_at(fast, 0.5 * kD), kD);

  const Playback fast_loop = playback(PlaybackMode::Loop, 2.0);
  EXPECT_EQ(local_at(fast_loop, 0.75 * kD), 0.5 * kD);  // 1.5 D of clip time

  const Playback slow = playback(PlaybackMode::Loop, 0.5);
  EXPECT_EQ(local_at(slow, 1.5 * kD), 0.75 * kD);

  const Playback frozen = playback(PlaybackMode::Loop, 0.0);
  EXPECT_EQ(local_at(frozen, 3.75 * kD), 0.0);  // rate 0 holds the first frame
}

TEST(TimeMapping, BeforeTheStartHoldsTheFirstFrame) {
  for (PlaybackMode mode : {PlaybackMode::Once, PlaybackMode::Loop, PlaybackMode::PingPong}) {
    SCOPED_TRACE(int(mode));
    EXPECT_EQ(local_at(playback(mode), -0.25), 0.0);
    EXPECT_EQ(local_at(playback(mode), -5.0 * kD), 0.0);  // no wrapping backwards in time
    EXPECT_EQ(local_at(playback(mode, -1.0), -0.25), kD);
    EXPECT_EQ(local_at(playback(mode, 1.0, 2), -0.25), 0.0);
  }
}

TEST(TimeMapping, NormalizedTimeCarriesAPhaseBetweenClips) {
  // A synchronised cross-fade: the incoming clip (D = 3) plays at the outgoing clip's (D = 1) phase.
  Playback outgoing = playback(PlaybackMode::Loop);
  outgoing.start_time = 0.0;
  const double phase = normalized_time(outgoing, 1.0, 4.25);
  EXPECT_EQ(phase, 0.25);
  EXPECT_EQ(local_time_from_normalized(phase, 1.0), 0.25);
  EXPECT_EQ(local_time_from_normalized(phase, 3.0), 0.75);

  // Round trip on the longer clip.
  Playback incoming = playback(PlaybackMode::Once);
  incoming.start_time = 0.0;
  EXPECT_EQ(normalized_time(incoming, 3.0, 0.75), 0.25);
  EXPECT_EQ(normalized_time(incoming, 3.0, 10.0), 1.0);
  EXPECT_EQ(normalized_time(playback(PlaybackMode::Once, -1.0), 3.0, 0.0), 1.0);

  // A phase a little outside [0, 1] still lands inside the clip.
  EXPECT_EQ(local_time_from_normalized(1.0 + 1e-15, 3.0), 3.0);
  EXPECT_EQ(local_time_from_normalized(-1e-15, 3.0), 0.0);
}

TEST(TimeMapping, ZeroLengthClipMapsToZero) {
  for (PlaybackMode mode : {PlaybackMode::Once, PlaybackMode::Loop, PlaybackMode::PingPong}) {
    for (double rate : {1.0, -1.0, 2.0}) {
      SCOPED_TRACE(int(mode));
      Playback p = playback(mode, rate, 2);
      for (double tau : {-1.0, 0.0, 0.5, 3.0, 100.0}) {
        EXPECT_EQ(clip_local_time(p, 0.0, tau), 0.0);
        EXPECT_EQ(normalized_time(p, 0.0, tau), 0.0);
      }
    }
  }
  EXPECT_EQ(local_time_from_normalized(0.5, 0.0), 0.0);
}

TEST(TimeMapping, RefusesBrokenArguments) {
  EXPECT_THROW(clip_local_time(playback(PlaybackMode::Loop), -1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(clip_local_time(playback(PlaybackMode::Loop, 1.0, -1), kD, 0.0), std::invalid_argument);
}


// Extreme inputs: a clip whose key times reach 1e300 s. Time mapping, sampling and the whole pose stay
// finite at times before, inside and far beyond the clip, under clamping and looping conventions (no
// float-to-int conversion of a time anywhere, no loop over periods).
TEST(HugeClip, KeyTimesReaching1e300EvaluateToFinitePoses) {
  Scene scene = make_builtin_scene("bend");
  ASSERT_FALSE(scene.animations.empty());
  for (Animation& anim : scene.animations) {
    for (AnimationSampler& s : anim.samplers) {
      const double last = s.times.back();
      for (double& t : s.times) t = t / last * 1e300;
    }
    anim.start_time = 0.0;
    anim.end_time = 1e300;
  }
  finalize_scene(scene);
  auto all_finite = [](const EvaluatedPose& pose) {
    for (const Transform& t : pose.local.local)
      if (!t.translation.allFinite() || !t.rotation.coeffs().allFinite() || !t.scale.allFinite()) return false;
    for (const Mat4& m : pose.model.global)
      if (!m.allFinite()) return false;
    for (const JointPalette& p : pose.palettes)
      for (const Mat4& m : p.skinning)
        if (!m.allFinite()) return false;
    return true;
  };
  Conventions looping;
  looping.time.playback = PlaybackLoop::Loop;
  const double times[] = {-1e300, 0.0, 1.0, 1e299, 5e299, 1e300, 3e300, 1e308};
  for (const double t : times) {
    EXPECT_TRUE(all_finite(evaluate_pose(scene, 0, t))) << "clamped, t = " << t;
    EXPECT_TRUE(all_finite(evaluate_pose(scene, 0, t, looping))) << "looping, t = " << t;
  }
  // Halfway through the clip the elbow is at its 90-degree key, exactly as in the 1 s clip at 0.5 s.
  const Scene original = make_builtin_scene("bend");
  const EvaluatedPose half = evaluate_pose(scene, 0, 5e299);
  const EvaluatedPose reference = evaluate_pose(original, 0, 0.5);
  for (size_t n = 0; n < half.local.local.size(); ++n)
    EXPECT_TRUE(half.local.local[n].rotation.isApprox(reference.local.local[n].rotation, 1e-12)) << n;

  // Time mapping of a 1e300 s (and a 1e308 s) clip: every mode lands in [0, D].
  for (const double d : {1e300, 1e308}) {
    for (const PlaybackMode mode : {PlaybackMode::Once, PlaybackMode::Loop, PlaybackMode::PingPong}) {
      for (const double tau : {-1e308, 0.0, 1.0, 0.5 * d, d, 1.5 * d, 1e308}) {
        Playback p;
        p.mode = mode;
        p.rate = 3.0;  // u = 3 tau may overflow to infinity: still a position in the clip
        const double local = clip_local_time(p, d, tau);
        EXPECT_TRUE(std::isfinite(local) && local >= 0.0 && local <= d) << d << " " << int(mode) << " " << tau;
      }
    }
  }

  // CUBICSPLINE over one 1e300 s interval, tangents scaled by it: finite values and a unit quaternion.
  AnimationSampler cubic;
  cubic.interpolation = Interpolation::CubicSpline;
  cubic.components = 4;
  cubic.times = {0.0, 1e300};
  cubic.values = {0, 0, 0, 0, /**/ 0, 0, 0, 1, /**/ 0, 0, 1e-301, 0,
                  0, 0, 1e-301, 0, /**/ 0, 0, 1, 0, /**/ 0, 0, 0, 0};
  for (const double t : {0.0, 2.5e299, 5e299, 1e300, 2e300}) {
    double out[4];
    sample_sampler(cubic, ChannelPath::Rotation, t, out, SamplingConventions{});
    for (const double v : out) EXPECT_TRUE(std::isfinite(v)) << t;
    EXPECT_NEAR(std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]), 1.0, 1e-12) << t;
  }
}

}  // namespace
}  // namespace skinref

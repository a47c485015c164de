// Stage: time mapping. Maps a global time tau to a clip's local time, as an engine's playback does.
//
// Contract:
// - A clip spans [0, D], D = Animation::end_time (glTF's timeline starts at 0). D == 0 (a static clip):
//   every mapping returns 0.
// - Elapsed clip time u = (tau - start_time) * |rate|. Before the start (u < 0) the playback holds its first
//   frame. `rate` == 0 holds the first frame forever.
// - Position p(u) in [0, D] per mode:
//     Once      clamp(u, 0, D)
//     Loop      u mod D (fmod), so u = D, 2D, ... give 0 (the loop restarts) while playing
//     PingPong  u mod 2D, reflected: p = q for q <= D, 2D - q otherwise
//   With `repetitions` = n > 0 the playback stops after n passes (a pass lasts D; for PingPong each leg is a
//   pass) and holds the pass's last frame: Loop -> D, PingPong -> D after an odd count, 0 after an even one.
//   repetitions = 0 means unlimited (Once always plays one pass).
// - A negative rate plays backwards: local time = D - p(u). The first frame of a backwards playback is D.
// - Normalized time is local time / D (0 when D == 0); local_time_from_normalized() is its inverse, used to
//   play one clip at another's phase (synchronised cross-fades); it clamps the phase to [0, 1].
// - A negative or non-finite duration, or negative repetitions, throw std::invalid_argument (caller bugs).
// - convention_sample_time(): the clip time an engine samples after its playback of one clip has run `time`
//   seconds, under the time conventions (core/conventions.h). glTF 2.0 (the default): `time` itself, clamped
//   by the sampler. clip-start=first-key adds the clip's first key time; playback=loop wraps `time` by the
//   period (wrap-period: the last key time D, or D minus the first key time), a negative time holding the
//   first frame; at exactly a whole number k >= 1 of periods at-end=wrap restarts (0) and at-end=hold stays
//   at the period's end. The overload given all the Conventions first applies the mistake time-unit
//   (core/mistakes.h): the time multiplied by time_unit_factor() before the time conventions map it.
#pragma once

#include "core/conventions.h"
#include "core/scene.h"

namespace skinref {

enum class PlaybackMode { Once, Loop, PingPong };

struct Playback {
  int animation = -1;  // index into Scene::animations
  double start_time = 0.0;
  double rate = 1.0;
  PlaybackMode mode = PlaybackMode::Once;
  int repetitions = 0;  // 0: unlimited
};

// Local clip time in [0, duration] at global time `tau`.
double clip_local_time(const Playback& playback, double duration, double tau);

// Local time / duration, in [0, 1]; 0 for a zero-length clip.
double normalized_time(const Playback& playback, double duration, double tau);

double local_time_from_normalized(double normalized, double duration);

double convention_sample_time(const Animation& animation, double time, const TimeConventions& conventions);
// The same for scene.animations[animation]; `time` itself for the rest pose (animation -1).
double convention_sample_time(const Scene& scene, int animation, double time, const TimeConventions& conventions);
double convention_sample_time(const Scene& scene, int animation, double time, const Conventions& conventions);

}  // namespace skinref

// Time mapping: global time to clip-local time for Once / Loop / PingPong playback (contract in
// time_mapping.h).
#include "anim/time_mapping.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace skinref {

namespace {

// The playback position p(u) in [0, D] for elapsed clip time u >= 0 and D > 0, before any reversal.
double forward_position(const Playback& playback, double duration, double u) {
  switch (playback.mode) {
    case PlaybackMode::Once:
      return std::min(u, duration);
    case PlaybackMode::Loop:
      // n passes end at u = n * D; from then on the last frame of the last pass holds.
      if (playback.repetitions > 0 && u >= double(playback.repetitions) * duration) return duration;
      return std::fmod(u, duration);  // exact: u = D, 2D, ... give 0, the loop restarting
    case PlaybackMode::PingPong: {
      // Each leg (forward or back) is a pass: an odd count stops at the far end D, an even one back at 0.
      if (playback.repetitions > 0 && u >= double(playback.repetitions) * duration)
        return playback.repetitions % 2 == 1 ? duration : 0.0;
      const double period = 2.0 * duration;
      if (!std::isfinite(period)) return u <= duration ? u : duration - (u - duration);  // D > DBL_MAX / 2
      const double q = std::fmod(u, period);
      return q <= duration ? q : period - q;
    }
  }
  throw std::invalid_argument("clip_local_time: unknown playback mode " + std::to_string(int(playback.mode)));
}

}  // namespace

double clip_local_time(const Playback& playback, double duration, double tau) {
  if (!(duration >= 0.0) || !std::isfinite(duration))
    throw std::invalid_argument("clip_local_time: duration must be finite and >= 0, got " + std::to_string(duration));
  if (playback.repetitions < 0)
    throw std::invalid_argument("clip_local_time: repetitions must be >= 0, got " +
                                std::to_string(playback.repetitions));
  if (duration == 0.0) return 0.0;  // a static clip has one frame
  const double u = (tau - playback.start_time) * std::abs(playback.rate);
  // Elapsed time beyond the range of a double (e.g. tau = 1e308 at rate 3): a playing clip has no position
  // there; once-played and finished repeating clips hold their end, a loop or an unlimited ping-pong its
  // first frame (never fmod(inf), which is NaN).
  if (std::isinf(u) && u > 0.0) {
    if (playback.mode == PlaybackMode::Once) return playback.rate < 0.0 ? 0.0 : duration;
    const double p = playback.repetitions > 0 ? forward_position(playback, duration, u) : 0.0;
    return playback.rate < 0.0 ? duration - p : p;
  }
  // Before the start (and for rate 0, whose u is 0) the first frame holds: p = 0.
  const double p = u > 0.0 ? forward_position(playback, duration, u) : 0.0;
  return playback.rate < 0.0 ? duration - p : p;
}

double normalized_time(const Playback& playback, double duration, double tau) {
  const double local = clip_local_time(playback, duration, tau);
  return duration == 0.0 ? 0.0 : local / duration;
}

double local_time_from_normalized(double normalized, double duration) {
  if (duration == 0.0) return 0.0;
  // A phase outside [0, 1] (rounding of a caller's arithmetic) still lands inside the clip.
  return std::clamp(normalized, 0.0, 1.0) * duration;
}

double convention_sample_time(const Animation& animation, double time, const TimeConventions& conventions) {
  const double offset = conventions.clip_start == ClipStart::FirstKey ? animation.start_time : 0.0;
  if (conventions.playback == PlaybackLoop::Clamp) return offset + time;
  const double period = conventions.wrap_period == WrapPeriod::LastKey ? animation.end_time
                                                                       : animation.end_time - animation.start_time;
  if (!(period > 0.0) || time <= 0.0) return offset;
  double phase = std::fmod(time, period);
  if (phase == 0.0 && conventions.at_end == AtEnd::Hold) phase = period;
  return offset + phase;
}

double convention_sample_time(const Scene& scene, int animation, double time, const TimeConventions& conventions) {
  return animation < 0 ? time : convention_sample_time(scene.animations[size_t(animation)], time, conventions);
}

double convention_sample_time(const Scene& scene, int animation, double time, const Conventions& conventions) {
  const double factor = time_unit_factor(conventions.mistakes.time_unit);
  return convention_sample_time(scene, animation, factor == 1.0 ? time : time * factor, conventions.time);
}

}  // namespace skinref

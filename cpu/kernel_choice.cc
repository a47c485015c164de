// The measured choice of the CPU kernel (see kernel_choice.h).
#include "cpu/kernel_choice.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <mutex>

namespace skinref::cpu {
namespace {

struct Choice {
  std::mutex mutex;
  bool measured = false;
  SkinningKernel kernel = SkinningKernel::Auto;  // Auto until measured
  std::string description;
};

Choice& choice() {
  static Choice state;
  return state;
}

cpu_detail::SegmentKernel getter(SkinningKernel kernel) {
  switch (kernel) {
    case SkinningKernel::Scalar: return cpu_detail::scalar_segment_kernel();
    case SkinningKernel::Avx2: return cpu_detail::avx2_segment_kernel();
    case SkinningKernel::Avx512: return cpu_detail::avx512_segment_kernel();
    case SkinningKernel::Auto: break;
  }
  return nullptr;
}

// The best of kTrialRounds timings of each kernel over the segment's first kTrialVertices vertices, alternating.
std::vector<double> trial_seconds(const cpu_detail::Job& job, const cpu_detail::Segment& segment,
                                  const std::vector<cpu_detail::SegmentKernel>& kernels) {
  std::vector<double> best(kernels.size(), std::numeric_limits<double>::infinity());
  for (int round = 0; round < kTrialRounds; ++round) {
    for (size_t k = 0; k < kernels.size(); ++k) {
      const auto start = std::chrono::steady_clock::now();
      kernels[k](job, segment, 0, kTrialVertices);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      best[k] = std::min(best[k], took.count());
    }
  }
  return best;
}

}  // namespace

SkinningKernel widest_kernel() {
  for (SkinningKernel kernel : {SkinningKernel::Avx512, SkinningKernel::Avx2})
    if (getter(kernel) != nullptr) return kernel;
  return SkinningKernel::Scalar;
}

void measure_kernel_choice(const cpu_detail::Job& job, const std::vector<cpu_detail::Segment>& segments) {
  Choice& state = choice();
  const std::lock_guard<std::mutex> lock(state.mutex);
  if (state.measured) return;
  if (getter(SkinningKernel::Avx512) == nullptr || getter(SkinningKernel::Avx2) == nullptr) {
    state.measured = true;
    state.kernel = widest_kernel();
    state.description = state.kernel == SkinningKernel::Scalar
                            ? std::string("no wide kernel on this CPU or build: scalar")
                            : std::string("the only wide kernel this CPU and build have: ") +
                                  skinning_kernel_name(state.kernel);
    return;
  }
  const auto trial = std::find_if(segments.begin(), segments.end(), [](const cpu_detail::Segment& s) {
    return !s.rigid && s.count >= kTrialVertices;
  });
  if (trial == segments.end()) return;
  cpu_detail::Job cached = job;
  cached.stream_outputs = false;
  const std::vector<double> seconds =
      trial_seconds(cached, *trial, {getter(SkinningKernel::Avx512), getter(SkinningKernel::Avx2)});
  state.measured = true;
  state.kernel = seconds[1] < seconds[0] * (1.0 - kNarrowerMargin) ? SkinningKernel::Avx2 : SkinningKernel::Avx512;
  char text[200];
  std::snprintf(text, sizeof text,
                "measured at start-up, the best of %d alternating runs over %zu vertices of %d influences "
                "(%s): avx512 %.1f us, avx2 %.1f us",
                kTrialRounds, kTrialVertices, trial->influences, skinning_method_name(trial->method),
                seconds[0] * 1e6, seconds[1] * 1e6);
  state.description = text;
}

SkinningKernel chosen_kernel() {
  Choice& state = choice();
  const std::lock_guard<std::mutex> lock(state.mutex);
  return state.measured ? state.kernel : widest_kernel();
}

std::string kernel_choice_description() {
  Choice& state = choice();
  const std::lock_guard<std::mutex> lock(state.mutex);
  if (state.measured) return state.description;
  return std::string("not measured yet (no job of ") + std::to_string(kTrialVertices) +
         " skinned vertices): the widest, " + skinning_kernel_name(widest_kernel());
}

}  // namespace skinref::cpu

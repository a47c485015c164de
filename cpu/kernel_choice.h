// The CPU backend's kernel for SkinningKernel::Auto, measured rather than assumed: where the CPU and build have
// more than one wide kernel (AVX-512 and AVX2), the first job large enough times each on the same vertices and
// keeps the fastest, since the widest is not the fastest on every CPU (512-bit units split in two, or a
// narrower kernel's shorter transposes). Every kernel gives the same bits, so the choice changes speed only.
//
// Contract:
// - widest_kernel(): avx512, else avx2, else scalar, as this CPU and build have them.
// - measure_kernel_choice(): once per process (thread-safe; later calls return at once), when two wide kernels
//   are available: on the first skinned segment of `segments` with at least kTrialVertices vertices, runs each
//   kernel over those vertices kTrialRounds times, alternating, on one thread, without streaming stores, and
//   keeps the one of the smallest time (the narrower only when it is faster by more than kNarrowerMargin). The
//   trial writes `job`'s outputs for those vertices, with the bits the job itself then writes. A job without
//   such a segment measures nothing (a later one may).
// - chosen_kernel(): the measured kernel once measured, else widest_kernel().
// - kernel_choice_description(): how chosen_kernel() was chosen, with the times measured, for reports.
#pragma once

#include "cpu/cpu_kernels.h"
#include "skin/options.h"

#include <string>
#include <vector>

namespace skinref::cpu {

// A trial long enough to time (tens of microseconds a kernel) and short beside any job worth measuring on.
inline constexpr size_t kTrialVertices = 4096;
inline constexpr int kTrialRounds = 5;
// The narrower kernel must beat the wider by this fraction of the wider's time, so that noise does not flip
// the choice between kernels that are equally fast.
inline constexpr double kNarrowerMargin = 0.05;

SkinningKernel widest_kernel();
void measure_kernel_choice(const cpu_detail::Job& job, const std::vector<cpu_detail::Segment>& segments);
SkinningKernel chosen_kernel();
std::string kernel_choice_description();

}  // namespace skinref::cpu

// Running error analysis (reference/verify/running_error.h): the bounds hold for float32 arithmetic actually
// performed (C++ float on this machine: IEEE round to nearest, no contraction), over many deterministic
// pseudo-random inputs and the expression shapes the pose bounds use, and they are not vacuous (the median
// error/bound ratio is well above 1/1000). Closed-form cases for inputs, infinite bounds and sqrt near 0.
#include "verify/running_error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

// A deterministic generator of doubles in [lo, hi) (64-bit LCG, Knuth's MMIX constants).
class Inputs {
 public:
  double next(double lo, double hi) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * double(state_ >> 11) * 0x1p-53;
  }

 private:
  uint64_t state_ = 12345;
};

TEST(RunningErrorTest, InputRoundingIsExactlyTheConversionError) {
  EXPECT_EQ(input(0.5).error, 0.0);
  EXPECT_EQ(input(3.0).error, 0.0);
  EXPECT_EQ(input(0.1).error, std::abs(double(0.1f) - 0.1));
  EXPECT_GT(input(0.1).error, 0.0);
  EXPECT_LE(input(0.1).error, 0x1p-24 * 0.1);
  EXPECT_EQ(exact(0.1).error, 0.0);
}

TEST(RunningErrorTest, DivisionByAnUncertainSignHasNoBound) {
  const Bounded tiny{1e-9, 2e-9};
  EXPECT_TRUE(std::isinf((exact(1.0) / tiny).error));
  EXPECT_TRUE(std::isfinite((exact(1.0) / exact(3.0)).error));
}

TEST(RunningErrorTest, SqrtNearZeroUsesTheSquareRootOfTheError) {
  // sqrt of a value 0 +- 1e-12 can be anything up to 1e-6.
  const Bounded root = sqrt(Bounded{0.0, 1e-12});
  EXPECT_GE(root.error, 1e-6);
  EXPECT_LE(root.error, 1.1e-6);
}

// One expression evaluated three ways: in Bounded arithmetic, and in float with the same operations.
struct Case {
  const char* name;
  int arity;
  std::function<Bounded(const std::vector<Bounded>&)> bounded;
  std::function<float(const std::vector<float>&)> in_float;
};

TEST(RunningErrorTest, BoundsHoldForFloatArithmeticAndAreTight) {
  const std::vector<Case> cases{
      {"sum of products", 6,
       [](const std::vector<Bounded>& x) { return (x[0] * x[1] + x[2] * x[3]) + x[4] * x[5]; },
       [](const std::vector<float>& x) { return (x[0] * x[1] + x[2] * x[3]) + x[4] * x[5]; }},
      {"lerp", 3, [](const std::vector<Bounded>& x) { return x[0] + (x[1] - x[0]) * x[2]; },
       [](const std::vector<float>& x) { return x[0] + (x[1] - x[0]) * x[2]; }},
      {"rotation entry", 4,
       [](const std::vector<Bounded>& x) { return exact(1.0) - exact(2.0) * (x[1] * x[1] + x[2] * x[2]); },
       [](const std::vector<float>& x) { return 1.0f - 2.0f * (x[1] * x[1] + x[2] * x[2]); }},
      {"quotient", 4, [](const std::vector<Bounded>& x) { return (x[0] - x[1]) / (x[2] + exact(2.5)); },
       [](const std::vector<float>& x) { return (x[0] - x[1]) / (x[2] + 2.5f); }},
      {"normalize", 4,
       [](const std::vector<Bounded>& x) {
         return x[0] / sqrt((x[0] * x[0] + x[1] * x[1]) + (x[2] * x[2] + x[3] * x[3]));
       },
       [](const std::vector<float>& x) {
         return x[0] / std::sqrt((x[0] * x[0] + x[1] * x[1]) + (x[2] * x[2] + x[3] * x[3]));
       }},
  };
  Inputs inputs;
  for (const Case& c : cases) {
    std::vector<double> ratios;
    for (int sample = 0; sample < 20000; ++sample) {
      std::vector<double> x(size_t(c.arity));
      for (double& v : x) v = inputs.next(-2.0, 2.0);
      std::vector<Bounded> bx;
      std::vector<float> fx;
      for (double v : x) {
        bx.push_back(input(v));
        fx.push_back(static_cast<float>(v));
      }
      const Bounded bounded = c.bounded(bx);
      const double error = std::abs(double(c.in_float(fx)) - bounded.value);
      ASSERT_LE(error, bounded.error + tol::kReferenceRelative * std::abs(bounded.value))
          << c.name << " sample " << sample;
      if (error > 0.0) ratios.push_back(error / bounded.error);
    }
    ASSERT_FALSE(ratios.empty()) << c.name;
    std::nth_element(ratios.begin(), ratios.begin() + std::ptrdiff_t(ratios.size() / 2), ratios.end());
    const double median = ratios[ratios.size() / 2];
    EXPECT_GT(median, 1e-3) << c.name;
    std::printf("[ measured ] %-16s error/bound median %.3f over %zu samples with an error\n", c.name, median,
                ratios.size());
  }
}

}  // namespace
}  // namespace skinref

// What the GPU tests share: the fixture (a fresh context with the validation layer on, and a failure for any
// warning or error the layer reported during the test, its messages printed; the context's own teardown
// aborts on Vulkan objects leaked at destruction), and the times and names the skinning cases use.
#pragma once

#include "context.h"
#include "scene.h"
#include "skinning_lbs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace skinref::test {

class ValidatedGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpu::ContextOptions options;
    options.validate = true;
    context_ = std::make_unique<gpu::Context>(options);
  }
  void TearDown() override {
    if (!context_) return;
    const gpu::ValidationCounts counts = context_->validation_counts();
    std::string messages;
    for (const std::string& message : context_->validation_messages()) messages += "\n  " + message;
    EXPECT_EQ(counts.warning, 0u) << messages;
    EXPECT_EQ(counts.error, 0u) << messages;
    context_.reset();
  }

  std::unique_ptr<gpu::Context> context_;
};

inline const char* method_name(SkinningMethod method) { return method == SkinningMethod::Dqs ? "dqs" : "lbs"; }

inline std::string time_text(double time) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", time);
  return text;
}

// Three times over an animation's timeline: its start, a time between keys (no key of the built-in scenes
// falls on 0.4 of their duration) and its end (for builtin:twist the candy-wrapper extreme, 180 degrees, where
// LBS collapses the middle ring onto the axis). Just 0 for a model without animation or with a single key.
inline std::vector<double> sample_times(const Scene& scene, int animation) {
  const double end = animation >= 0 ? scene.animations[size_t(animation)].end_time : 0.0;
  if (end == 0.0) return {0.0};
  return {0.0, 0.4 * end, end};
}

}  // namespace skinref::test

// What the GPU tests share: the fixture (a fresh context with the validation layer on, and a failure for any
// warning or error the layer reported during the test, its messages printed; the context's own teardown
// aborts on Vulkan objects leaked at destruction), and (skinning_cases.h) the times and names the skinning
// cases use.
#pragma once

#include "gpu/context.h"
#include "support/skinning_cases.h"

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

}  // namespace skinref::test

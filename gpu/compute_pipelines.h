// The parts of a compute program that never change between its uses, kept by the Context for its lifetime:
// the descriptor set layout, the pipeline layout, the shader module and one pipeline per value of
// specialization constant 0. A pass evaluated many times on one context (a test's times, a benchmark's
// repetitions, a diagnose over candidates) then compiles its shader once: on lavapipe each pipeline is an LLVM
// compilation, 60 % of a GPU animation test's time before this cache.
//
// Contract:
// - shape(spirv, layout) returns the shape of that SPIR-V (by its words, not its address: a user's shader
//   compiled again at the same address is another key) with that layout, creating it on first use; a creation
//   that fails throws GpuError and caches nothing.
// - pipeline(shape, specialization) returns that variant's pipeline, creating it on first use (a layout with
//   `specialized` false has one pipeline, made without specialization info).
// - References to shapes stay valid until the cache is destroyed, which destroys every object it made; the
//   Context destroys it before the device. Not thread-safe, as the Context.
#pragma once

#include "gpu/vk_check.h"

#include <compare>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace skinref::gpu {

// The shape of a compute program's resources: which storage-buffer bindings of set 0 it has, how many bytes
// of push constants, its entry point, and whether its specialization constant 0 selects a variant.
struct ComputeLayout {
  std::vector<uint32_t> bindings;
  uint32_t push_constant_bytes = 0;
  std::string entry_point = "main";
  bool specialized = true;

  auto operator<=>(const ComputeLayout&) const = default;
};

struct ComputeShape {
  ComputeLayout layout;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  VkShaderModule shader = VK_NULL_HANDLE;
  std::map<uint32_t, VkPipeline> pipelines;  // by specialization value
};

// A shader module of `device` from SPIR-V words; Context::create_shader() and the cache both make theirs here.
VkShaderModule create_shader_module(VkDevice device, std::span<const uint32_t> spirv);

class ComputePipelineCache {
 public:
  explicit ComputePipelineCache(VkDevice device) : device_(device) {}
  ~ComputePipelineCache();
  ComputePipelineCache(const ComputePipelineCache&) = delete;
  ComputePipelineCache& operator=(const ComputePipelineCache&) = delete;

  ComputeShape& shape(std::span<const uint32_t> spirv, const ComputeLayout& layout);
  VkPipeline pipeline(ComputeShape& shape, uint32_t specialization);

 private:
  struct Key {
    std::vector<uint32_t> spirv;
    ComputeLayout layout;
    auto operator<=>(const Key&) const = default;
  };

  VkDevice device_;
  std::map<Key, ComputeShape> shapes_;
};

}  // namespace skinref::gpu

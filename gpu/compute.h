// Plumbing shared by the compute passes (skinning_gpu.cc, animation_gpu.cc): one compute shader with its
// pipelines, a descriptor set of storage buffers, push constants and a pair of timestamp queries.
//
// Contract:
// - A ComputeProgram owns: a descriptor set layout of storage buffers (bindings 0..n-1 of skinref's own
//   shaders, or the bindings a ComputeLayout lists, compute stage), a pipeline layout with
//   `push_constant_bytes` of push constants, the shader module, one pipeline per value of specialization
//   constant 0 that is asked for (created on first use; a layout with `specialized` false creates its one
//   pipeline without specialization), a descriptor pool with one set, and, when the device has timestamps, a
//   query pool of two timestamps. The destructor releases them in reverse order of creation, whatever
//   happened in between.
// - bind_buffers() writes the set (one buffer per binding, in the order of the bindings) before any command
//   buffer that uses it is recorded; it may be written again once the submissions using it have completed.
// - Timing: record_start() / record_end() write the two timestamps (resetting the pool first);
//   elapsed_ms() reads them after the submission has completed (0 without timestamps). Differences are taken
//   modulo 2^timestampValidBits.
#pragma once

#include "gpu/context.h"

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
};

class ComputeProgram {
 public:
  ComputeProgram(Context& context, std::span<const uint32_t> spirv, uint32_t binding_count,
                 uint32_t push_constant_bytes);
  ComputeProgram(Context& context, std::span<const uint32_t> spirv, ComputeLayout layout);
  ~ComputeProgram();
  ComputeProgram(const ComputeProgram&) = delete;
  ComputeProgram& operator=(const ComputeProgram&) = delete;

  uint32_t binding_count() const { return uint32_t(layout_.bindings.size()); }
  bool timestamps() const { return queries_ != VK_NULL_HANDLE; }

  // One VkDescriptorBufferInfo per binding, in the order of the layout's bindings.
  void bind_buffers(std::span<const VkDescriptorBufferInfo> buffers);

  // Creates the pipeline for `specialization` now (one-time set-up that callers may want outside a timing).
  void prepare(uint32_t specialization) { pipeline(specialization); }
  // Binds the pipeline for `specialization` (creating it if needed) and the descriptor set.
  void bind(VkCommandBuffer cmd, uint32_t specialization);
  void push(VkCommandBuffer cmd, const void* data, uint32_t bytes) const;

  void record_start(VkCommandBuffer cmd) const;
  void record_end(VkCommandBuffer cmd) const;
  double elapsed_ms() const;

 private:
  VkPipeline pipeline(uint32_t specialization);
  void release();

  Context& context_;
  ComputeLayout layout_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkShaderModule shader_ = VK_NULL_HANDLE;
  std::map<uint32_t, VkPipeline> pipelines_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
};

}  // namespace skinref::gpu

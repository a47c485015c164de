// Plumbing shared by the compute passes (skinning_gpu.cc, animation_gpu.cc): one compute shader with its
// pipelines, a descriptor set of storage buffers, push constants and a pair of timestamp queries.
//
// Contract:
// - A ComputeProgram uses the Context's shape of its shader (gpu/compute_pipelines.h): a descriptor set layout
//   of storage buffers (bindings 0..n-1 of skinref's own shaders, or the bindings a ComputeLayout lists,
//   compute stage), a pipeline layout with `push_constant_bytes` of push constants, the shader module, one
//   pipeline per value of specialization constant 0 that is asked for (created on first use and kept by the
//   Context; a layout with `specialized` false has its one pipeline without specialization). It owns a
//   descriptor pool with one set and, when the device has timestamps, a query pool of two timestamps; the
//   destructor releases them, whatever happened in between.
// - bind_buffers() writes the set (one buffer per binding, in the order of the bindings) before any command
//   buffer that uses it is recorded; it may be written again once the submissions using it have completed.
// - Timing: record_start() / record_end() write the two timestamps (resetting the pool first);
//   elapsed_ms() reads them after the submission has completed (0 without timestamps). Differences are taken
//   modulo 2^timestampValidBits.
#pragma once

#include "gpu/compute_pipelines.h"
#include "gpu/context.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace skinref::gpu {

class ComputeProgram {
 public:
  ComputeProgram(Context& context, std::span<const uint32_t> spirv, uint32_t binding_count,
                 uint32_t push_constant_bytes);
  ComputeProgram(Context& context, std::span<const uint32_t> spirv, ComputeLayout layout);
  ~ComputeProgram();
  ComputeProgram(const ComputeProgram&) = delete;
  ComputeProgram& operator=(const ComputeProgram&) = delete;

  uint32_t binding_count() const { return uint32_t(shape_.layout.bindings.size()); }
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
  ComputeShape& shape_;  // the Context's
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
};

}  // namespace skinref::gpu

#include "gpu/compute.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace skinref::gpu {
namespace {

// skinref's own shaders: bindings 0..n-1, entry point main, specialization constant 0 selecting the variant.
ComputeLayout consecutive_bindings(uint32_t binding_count, uint32_t push_constant_bytes) {
  ComputeLayout layout;
  for (uint32_t b = 0; b < binding_count; ++b) layout.bindings.push_back(b);
  layout.push_constant_bytes = push_constant_bytes;
  return layout;
}

}  // namespace

ComputeProgram::ComputeProgram(Context& context, std::span<const uint32_t> spirv, uint32_t binding_count,
                               uint32_t push_constant_bytes)
    : ComputeProgram(context, spirv, consecutive_bindings(binding_count, push_constant_bytes)) {}

ComputeProgram::ComputeProgram(Context& context, std::span<const uint32_t> spirv, ComputeLayout layout)
    : context_(context), shape_(context.compute_pipelines().shape(spirv, layout)) {
  const VkDevice device = context.device();
  const uint32_t binding_count = this->binding_count();
  // A constructor that throws does not run the destructor: release what was created so far by hand.
  try {
    const VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max<uint32_t>(binding_count, 1)};
    VkDescriptorPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pool_info.maxSets = 1;
    pool_info.poolSizeCount = 1;
    pool_info.pPoolSizes = &pool_size;
    VK_CHECK(vkCreateDescriptorPool(device, &pool_info, nullptr, &pool_));

    VkDescriptorSetAllocateInfo set_info{};
    set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    set_info.descriptorPool = pool_;
    set_info.descriptorSetCount = 1;
    set_info.pSetLayouts = &shape_.set_layout;
    VK_CHECK(vkAllocateDescriptorSets(device, &set_info, &set_));

    if (context.timestamps_supported()) {
      VkQueryPoolCreateInfo query_info{};
      query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
      query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
      query_info.queryCount = 2;
      VK_CHECK(vkCreateQueryPool(device, &query_info, nullptr, &queries_));
    }
  } catch (...) {
    release();
    throw;
  }
}

ComputeProgram::~ComputeProgram() { release(); }

void ComputeProgram::release() {
  const VkDevice device = context_.device();
  if (queries_ != VK_NULL_HANDLE) vkDestroyQueryPool(device, queries_, nullptr);
  if (pool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, pool_, nullptr);  // frees the set
  queries_ = VK_NULL_HANDLE;
  pool_ = VK_NULL_HANDLE;
}

void ComputeProgram::bind_buffers(std::span<const VkDescriptorBufferInfo> buffers) {
  const uint32_t binding_count = this->binding_count();
  if (buffers.size() != binding_count) throw std::invalid_argument("ComputeProgram::bind_buffers: wrong count");
  std::vector<VkWriteDescriptorSet> writes(binding_count);
  for (uint32_t b = 0; b < binding_count; ++b) {
    writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[b].dstSet = set_;
    writes[b].dstBinding = shape_.layout.bindings[b];
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &buffers[b];
  }
  vkUpdateDescriptorSets(context_.device(), binding_count, writes.data(), 0, nullptr);
}

VkPipeline ComputeProgram::pipeline(uint32_t specialization) {
  return context_.compute_pipelines().pipeline(shape_, specialization);
}

void ComputeProgram::bind(VkCommandBuffer cmd, uint32_t specialization) {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(specialization));
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, shape_.pipeline_layout, 0, 1, &set_, 0, nullptr);
}

void ComputeProgram::push(VkCommandBuffer cmd, const void* data, uint32_t bytes) const {
  if (bytes != shape_.layout.push_constant_bytes) throw std::invalid_argument("ComputeProgram::push: wrong size");
  vkCmdPushConstants(cmd, shape_.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, data);
}

void ComputeProgram::record_start(VkCommandBuffer cmd) const {
  if (queries_ == VK_NULL_HANDLE) return;
  vkCmdResetQueryPool(cmd, queries_, 0, 2);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
}

void ComputeProgram::record_end(VkCommandBuffer cmd) const {
  if (queries_ == VK_NULL_HANDLE) return;
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
}

double ComputeProgram::elapsed_ms() const {
  if (queries_ == VK_NULL_HANDLE) return 0.0;
  uint64_t stamps[2] = {0, 0};
  VK_CHECK(vkGetQueryPoolResults(context_.device(), queries_, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const uint64_t ticks = (stamps[1] - stamps[0]) & context_.timestamp_mask();
  return double(ticks) * context_.timestamp_period_ns() * 1e-6;
}

}  // namespace skinref::gpu

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
    : context_(context), layout_(std::move(layout)) {
  const VkDevice device = context.device();
  const uint32_t binding_count = uint32_t(layout_.bindings.size());
  const uint32_t push_constant_bytes = layout_.push_constant_bytes;
  // A constructor that throws does not run the destructor: release what was created so far by hand.
  try {
    std::vector<VkDescriptorSetLayoutBinding> bindings(binding_count);
    for (uint32_t b = 0; b < binding_count; ++b)
      bindings[b] = VkDescriptorSetLayoutBinding{layout_.bindings[b], VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                 VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo layout_info{};
    layout_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    layout_info.bindingCount = binding_count;
    layout_info.pBindings = bindings.data();
    VK_CHECK(vkCreateDescriptorSetLayout(device, &layout_info, nullptr, &set_layout_));

    const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_bytes};
    VkPipelineLayoutCreateInfo pipeline_layout_info{};
    pipeline_layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pipeline_layout_info.setLayoutCount = 1;
    pipeline_layout_info.pSetLayouts = &set_layout_;
    pipeline_layout_info.pushConstantRangeCount = push_constant_bytes > 0 ? 1 : 0;
    pipeline_layout_info.pPushConstantRanges = push_constant_bytes > 0 ? &range : nullptr;
    VK_CHECK(vkCreatePipelineLayout(device, &pipeline_layout_info, nullptr, &pipeline_layout_));

    shader_ = context.create_shader(spirv.data(), spirv.size());

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
    set_info.pSetLayouts = &set_layout_;
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
  for (auto& [specialization, pipeline] : pipelines_) vkDestroyPipeline(device, pipeline, nullptr);
  if (shader_ != VK_NULL_HANDLE) vkDestroyShaderModule(device, shader_, nullptr);
  if (pipeline_layout_ != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, pipeline_layout_, nullptr);
  if (set_layout_ != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device, set_layout_, nullptr);
  queries_ = VK_NULL_HANDLE;
  pool_ = VK_NULL_HANDLE;
  pipelines_.clear();
  shader_ = VK_NULL_HANDLE;
  pipeline_layout_ = VK_NULL_HANDLE;
  set_layout_ = VK_NULL_HANDLE;
}

void ComputeProgram::bind_buffers(std::span<const VkDescriptorBufferInfo> buffers) {
  const uint32_t binding_count = this->binding_count();
  if (buffers.size() != binding_count) throw std::invalid_argument("ComputeProgram::bind_buffers: wrong count");
  std::vector<VkWriteDescriptorSet> writes(binding_count);
  for (uint32_t b = 0; b < binding_count; ++b) {
    writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[b].dstSet = set_;
    writes[b].dstBinding = layout_.bindings[b];
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &buffers[b];
  }
  vkUpdateDescriptorSets(context_.device(), binding_count, writes.data(), 0, nullptr);
}

VkPipeline ComputeProgram::pipeline(uint32_t specialization) {
  const auto found = pipelines_.find(specialization);
  if (found != pipelines_.end()) return found->second;
  const VkSpecializationMapEntry entry{0, 0, sizeof(uint32_t)};
  const VkSpecializationInfo specialization_info{1, &entry, sizeof(specialization), &specialization};
  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = shader_;
  info.stage.pName = layout_.entry_point.c_str();
  info.stage.pSpecializationInfo = layout_.specialized ? &specialization_info : nullptr;
  info.layout = pipeline_layout_;
  VkPipeline created = VK_NULL_HANDLE;
  VK_CHECK(vkCreateComputePipelines(context_.device(), VK_NULL_HANDLE, 1, &info, nullptr, &created));
  pipelines_.emplace(specialization, created);
  return created;
}

void ComputeProgram::bind(VkCommandBuffer cmd, uint32_t specialization) {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(specialization));
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set_, 0, nullptr);
}

void ComputeProgram::push(VkCommandBuffer cmd, const void* data, uint32_t bytes) const {
  if (bytes != layout_.push_constant_bytes) throw std::invalid_argument("ComputeProgram::push: wrong size");
  vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, data);
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

#include "gpu/compute_pipelines.h"

#include <utility>

namespace skinref::gpu {
namespace {

void destroy_shape(VkDevice device, ComputeShape& shape) {
  for (auto& [specialization, pipeline] : shape.pipelines) vkDestroyPipeline(device, pipeline, nullptr);
  if (shape.shader != VK_NULL_HANDLE) vkDestroyShaderModule(device, shape.shader, nullptr);
  if (shape.pipeline_layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, shape.pipeline_layout, nullptr);
  if (shape.set_layout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device, shape.set_layout, nullptr);
  shape = ComputeShape{};
}

// The layouts and the module; a failure releases what was made so far.
ComputeShape create_shape(VkDevice device, std::span<const uint32_t> spirv, const ComputeLayout& layout) {
  ComputeShape shape;
  shape.layout = layout;
  try {
    const uint32_t binding_count = uint32_t(layout.bindings.size());
    std::vector<VkDescriptorSetLayoutBinding> bindings(binding_count);
    for (uint32_t b = 0; b < binding_count; ++b)
      bindings[b] = VkDescriptorSetLayoutBinding{layout.bindings[b], VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                 VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo layout_info{};
    layout_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    layout_info.bindingCount = binding_count;
    layout_info.pBindings = bindings.data();
    VK_CHECK(vkCreateDescriptorSetLayout(device, &layout_info, nullptr, &shape.set_layout));

    const uint32_t push_constant_bytes = layout.push_constant_bytes;
    const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_bytes};
    VkPipelineLayoutCreateInfo pipeline_layout_info{};
    pipeline_layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pipeline_layout_info.setLayoutCount = 1;
    pipeline_layout_info.pSetLayouts = &shape.set_layout;
    pipeline_layout_info.pushConstantRangeCount = push_constant_bytes > 0 ? 1 : 0;
    pipeline_layout_info.pPushConstantRanges = push_constant_bytes > 0 ? &range : nullptr;
    VK_CHECK(vkCreatePipelineLayout(device, &pipeline_layout_info, nullptr, &shape.pipeline_layout));

    shape.shader = create_shader_module(device, spirv);
  } catch (...) {
    destroy_shape(device, shape);
    throw;
  }
  return shape;
}

}  // namespace

VkShaderModule create_shader_module(VkDevice device, std::span<const uint32_t> spirv) {
  VkShaderModuleCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  info.codeSize = spirv.size() * sizeof(uint32_t);
  info.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VK_CHECK(vkCreateShaderModule(device, &info, nullptr, &module));
  return module;
}

ComputePipelineCache::~ComputePipelineCache() {
  for (auto& [key, shape] : shapes_) destroy_shape(device_, shape);
}

ComputeShape& ComputePipelineCache::shape(std::span<const uint32_t> spirv, const ComputeLayout& layout) {
  Key key{std::vector<uint32_t>(spirv.begin(), spirv.end()), layout};
  const auto found = shapes_.find(key);
  if (found != shapes_.end()) return found->second;
  ComputeShape created = create_shape(device_, spirv, layout);
  return shapes_.emplace(std::move(key), std::move(created)).first->second;
}

VkPipeline ComputePipelineCache::pipeline(ComputeShape& shape, uint32_t specialization) {
  const auto found = shape.pipelines.find(specialization);
  if (found != shape.pipelines.end()) return found->second;
  const VkSpecializationMapEntry entry{0, 0, sizeof(uint32_t)};
  const VkSpecializationInfo specialization_info{1, &entry, sizeof(specialization), &specialization};
  VkComputePipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = shape.shader;
  info.stage.pName = shape.layout.entry_point.c_str();
  info.stage.pSpecializationInfo = shape.layout.specialized ? &specialization_info : nullptr;
  info.layout = shape.pipeline_layout;
  VkPipeline created = VK_NULL_HANDLE;
  VK_CHECK(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &created));
  shape.pipelines.emplace(specialization, created);
  return created;
}

}  // namespace skinref::gpu

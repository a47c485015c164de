// Offscreen rendering with a Vulkan graphics pipeline (render_gpu.h): the reference renderer's draws, culling
// and shading formulas (render.cc, shading.h) on the GPU, into R8G8B8A8_SRGB + D32_SFLOAT, read back as RGBA8.
//
// Vertices are expanded per triangle (three per triangle, no index buffer) because the face normal the
// shading falls back on is a per-triangle value, computed here in double exactly as the reference computes
// it, and passed to the fragment shader `flat`: with shared vertices no provoking-vertex choice could carry
// a different value for every triangle. A render pass with one subpass (Vulkan 1.0/1.1, not dynamic
// rendering) keeps the path open to any device. Cull mode and front face are pipeline state in 1.1, so one
// pipeline per (cull, front face) pair that the draws need is created.
//
// The vertex shader snaps window positions to raster.h's 1/256-pixel grid itself (render.vert says why):
// coverage is unchanged, and attributes are then interpolated from the snapped triangle, as the reference
// does, also on implementations (llvmpipe) that would interpolate from the unsnapped one.
//
// gpu_render's steps: plan (every input check, the draws, the textures), upload (targets, vertices, textures,
// descriptor sets, pipelines), record and submit one command buffer, read the image back.
#include "gpu/render_gpu.h"

#include "core/input_error.h"
#include "raster/shading.h"
#include "render_frag.h"
#include "render_vert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace skinref::gpu {
namespace {

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_SRGB;
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;
constexpr VkFormat kTextureFormat = VK_FORMAT_R8G8B8A8_SRGB;
constexpr VkDeviceSize kBytesPerPixel = 4;
// Vertices are generated and written to the vertex buffer this many at a time (768 KiB).
constexpr size_t kVertexChunk = 16384;

// The push constant block of render.vert / render.frag (std430 offsets; 120 bytes, under the 128 every
// device guarantees).
struct PushConstants {
  float view_projection[16];  // column-major
  float base_color_factor[4];
  float light[4];             // xyz: kLightDirection, w: kAmbient
  int32_t view = 0;
  int32_t has_texture = 0;
  int32_t double_sided = 0;
  int32_t padding = 0;
  float viewport_size[2];     // width, height in pixels (render.vert snaps to its sub-pixel grid)
};
static_assert(sizeof(PushConstants) == 120, "the layout the shaders declare");

// One vertex of an expanded triangle; locations 0 to 4 of render.vert.
struct GpuVertex {
  float position[3];
  float normal[3];
  float uv[2];
  float weight;
  float face_normal[3];
};
static_assert(sizeof(GpuVertex) == 48, "tightly packed vertex attributes");

// The shaders' view codes.
int32_t view_code(RenderView view) {
  switch (view) {
    case RenderView::Shaded: return 0;
    case RenderView::Normals: return 1;
    case RenderView::Weights: return 2;
    case RenderView::Depth: return 3;
  }
  return 0;
}

// Runs registered clean-up actions in reverse order when it goes out of scope, so that every object created
// here is destroyed (children before parents) whether gpu_render returns or throws.
class Cleanup {
 public:
  Cleanup() = default;
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;
  ~Cleanup() {
    for (auto it = actions_.rbegin(); it != actions_.rend(); ++it) (*it)();
  }
  void add(std::function<void()> action) { actions_.push_back(std::move(action)); }

 private:
  std::vector<std::function<void()>> actions_;
};

// One draw call: a run of expanded vertices sharing material, culling and winding.
struct Draw {
  size_t primitive = 0;  // index into the drawn primitives
  uint32_t first_vertex = 0;
  uint32_t vertex_count = 0;
  bool cull_back = true;
  bool flip_winding = false;
  int texture = -1;  // index into Scene::textures when sampled, else -1 (the white placeholder is bound)
  PushConstants push;
};

// The texture a primitive's base colour samples, or -1 where the reference uses white (render.cc
// base_color and shading.cc sample_texture: no texture, another texture coordinate set, no uvs, no image).
int sampled_texture(const Scene& scene, const Primitive& source, const Material* material) {
  if (material == nullptr || material->base_color_texture < 0 || material->base_color_texcoord != 0 ||
      source.texcoords0.empty()) {
    return -1;
  }
  const Texture& texture = scene.textures[size_t(material->base_color_texture)];
  if (texture.image < 0) return -1;
  const Image& image = scene.images[size_t(texture.image)];
  if (image.width <= 0 || image.height <= 0) return -1;
  return material->base_color_texture;
}

VkFilter vk_filter(Filter filter) { return filter == Filter::Nearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR; }

VkSamplerAddressMode vk_wrap(WrapMode mode) {
  switch (mode) {
    case WrapMode::Repeat: return VK_SAMPLER_ADDRESS_MODE_REPEAT;
    case WrapMode::ClampToEdge: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case WrapMode::MirroredRepeat: return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
  }
  return VK_SAMPLER_ADDRESS_MODE_REPEAT;
}

void set3(float out[3], const Vec3& v) {
  for (int c = 0; c < 3; ++c) out[c] = float(v[c]);
}

// The reference draws nothing for a triangle with a non-finite coordinate; a GPU's behaviour there is
// undefined, so such triangles are not sent.
bool finite_triangle(const Primitive& source, const SkinnedVertices& vertices, size_t first_index) {
  for (size_t c = 0; c < 3; ++c) {
    if (!vertices.positions[source.indices[first_index + c]].allFinite()) return false;
  }
  return true;
}

// The draws, in evaluate_vertices order (triangles in input order, which the depth test LESS makes decisive
// exactly as in the reference), and the number of expanded vertices. Checks the inputs as render_scene does.
struct DrawPlan {
  std::vector<Draw> draws;
  size_t vertex_count = 0;
};

DrawPlan plan_draws(const Scene& scene, const EvaluatedPose& pose, const std::vector<WorldPrimitive>& primitives,
                    const RenderCamera& camera, const RenderOptions& options) {
  if (pose.model.global.size() != scene.nodes.size()) {
    throw std::invalid_argument("gpu_render: the pose has " + std::to_string(pose.model.global.size()) +
                                " global transforms for " + std::to_string(scene.nodes.size()) + " nodes");
  }
  // projection * view in double, rounded once: closer to the reference's two double products than two
  // float32 products would be.
  const Mat4 view_projection = camera.projection * camera.view;
  PushConstants common{};
  for (int column = 0; column < 4; ++column) {
    for (int row = 0; row < 4; ++row) common.view_projection[4 * column + row] = float(view_projection(row, column));
  }
  for (int c = 0; c < 3; ++c) common.light[c] = float(kLightDirection[c]);
  common.light[3] = float(kAmbient);
  common.view = view_code(options.view);
  common.viewport_size[0] = float(options.width);
  common.viewport_size[1] = float(options.height);

  DrawPlan plan;
  for (size_t k = 0; k < primitives.size(); ++k) {
    const WorldPrimitive& world = primitives[k];
    const std::string where = "gpu_render: primitive " + std::to_string(k);
    if (world.mesh < 0 || size_t(world.mesh) >= scene.meshes.size() || world.primitive < 0 ||
        size_t(world.primitive) >= scene.meshes[size_t(world.mesh)].primitives.size() || world.node < 0 ||
        size_t(world.node) >= scene.nodes.size()) {
      throw std::invalid_argument(where + ": node, mesh or primitive index out of range");
    }
    const Primitive& source = scene.meshes[size_t(world.mesh)].primitives[size_t(world.primitive)];
    const SkinnedVertices& vertices = world.vertices;
    if (vertices.positions.size() != source.vertex_count() ||
        (!vertices.normals.empty() && vertices.normals.size() != source.vertex_count())) {
      throw std::invalid_argument(where + ": vertex count differs from the scene's primitive");
    }
    if (source.topology != Topology::Triangles) continue;
    const Material* material = source.material >= 0 ? &scene.materials[size_t(source.material)] : nullptr;

    Draw draw;
    draw.primitive = k;
    draw.first_vertex = uint32_t(plan.vertex_count);
    draw.cull_back = material == nullptr || !material->double_sided;
    // glTF: skinned nodes ignore their own transform, so only rigid nodes can mirror the stored winding.
    draw.flip_winding =
        !world.skinned && pose.model.global[size_t(world.node)].topLeftCorner<3, 3>().determinant() < 0.0;
    draw.texture = sampled_texture(scene, source, material);
    draw.push = common;
    const Vec4 factor = material != nullptr ? material->base_color_factor : Vec4::Ones();
    for (int c = 0; c < 4; ++c) draw.push.base_color_factor[c] = float(factor[c]);
    draw.push.has_texture = draw.texture >= 0 ? 1 : 0;
    draw.push.double_sided = material != nullptr && material->double_sided ? 1 : 0;

    size_t count = 0;
    for (size_t i = 0; i + 2 < source.indices.size(); i += 3) {
      for (size_t c = 0; c < 3; ++c) {
        if (source.indices[i + c] >= source.vertex_count()) {
          throw std::invalid_argument(where + ": vertex index out of range");
        }
      }
      if (finite_triangle(source, vertices, i)) count += 3;
    }
    if (plan.vertex_count + count > size_t(UINT32_MAX)) {
      throw std::invalid_argument(where + ": more vertices than one 32-bit draw can number");
    }
    plan.vertex_count += count;
    draw.vertex_count = uint32_t(count);
    if (count > 0) plan.draws.push_back(draw);
  }
  return plan;
}

// Fills the expanded vertices of every draw, a chunk of at most `chunk` vertices at a time, and hands each
// chunk with its first vertex index to `sink`, so that no copy of the whole vertex stream is needed on the
// host (two million triangles are 288 MB of vertices).
void fill_vertices(const Scene& scene, const std::vector<WorldPrimitive>& primitives, const DrawPlan& plan,
                   const RenderOptions& options, size_t chunk,
                   const std::function<void(const GpuVertex*, size_t, size_t)>& sink) {
  std::vector<GpuVertex> buffer;
  buffer.reserve(chunk + 3);
  size_t written = 0;
  auto flush = [&] {
    if (buffer.empty()) return;
    sink(buffer.data(), buffer.size(), written);
    written += buffer.size();
    buffer.clear();
  };
  for (const Draw& draw : plan.draws) {
    const WorldPrimitive& world = primitives[draw.primitive];
    const Primitive& source = scene.meshes[size_t(world.mesh)].primitives[size_t(world.primitive)];
    const SkinnedVertices& vertices = world.vertices;
    const bool has_normals = !vertices.normals.empty();
    const bool has_uvs = !source.texcoords0.empty();
    for (size_t i = 0; i + 2 < source.indices.size(); i += 3) {
      if (!finite_triangle(source, vertices, i)) continue;
      const Vec3& p0 = vertices.positions[source.indices[i]];
      const Vec3& p1 = vertices.positions[source.indices[i + 1]];
      const Vec3& p2 = vertices.positions[source.indices[i + 2]];
      // The face normal of render.cc: (p1 - p0) x (p2 - p0), normalized, negated under a mirroring node.
      Vec3 face = (p1 - p0).cross(p2 - p0).normalized();
      if (draw.flip_winding) face = -face;
      for (size_t c = 0; c < 3; ++c) {
        const size_t v = source.indices[i + c];
        GpuVertex out{};
        set3(out.position, vertices.positions[v]);
        if (has_normals) set3(out.normal, vertices.normals[v]);
        if (has_uvs) {
          out.uv[0] = float(source.texcoords0[v].x());
          out.uv[1] = float(source.texcoords0[v].y());
        }
        if (options.view == RenderView::Weights) {
          out.weight = float(joint_weight(source, world.skinned, v, options.weights_joint));
        }
        set3(out.face_normal, face);
        buffer.push_back(out);
      }
      if (buffer.size() >= chunk) flush();
    }
  }
  flush();
}


void require_format(VkPhysicalDevice physical, VkFormat format, VkFormatFeatureFlags features, const char* what) {
  VkFormatProperties properties{};
  vkGetPhysicalDeviceFormatProperties(physical, format, &properties);
  if ((properties.optimalTilingFeatures & features) != features) {
    throw GpuError(std::string("gpu_render: the device does not support ") + what + " with optimal tiling");
  }
}

VkRenderPass create_render_pass(VkDevice device) {
  VkAttachmentDescription attachments[2]{};
  // Colour: cleared to the background, kept, and left ready for the copy to the readback buffer.
  attachments[0].format = kColorFormat;
  attachments[0].samples = VK_SAMPLE_COUNT_1_BIT;
  attachments[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachments[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachments[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachments[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  // Depth: cleared to 1.0, not needed afterwards.
  attachments[1].format = kDepthFormat;
  attachments[1].samples = VK_SAMPLE_COUNT_1_BIT;
  attachments[1].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachments[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[1].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  attachments[1].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  attachments[1].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  attachments[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;

  const VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &color_ref;
  subpass.pDepthStencilAttachment = &depth_ref;

  VkSubpassDependency dependencies[2]{};
  // Before: the clears (load ops) and layout transitions wait for nothing earlier but must be ordered with
  // the attachment stages; the fragment shader's texture reads wait for the uploads recorded before.
  dependencies[0].srcSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[0].dstSubpass = 0;
  dependencies[0].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                 VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  dependencies[0].srcAccessMask = 0;
  dependencies[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                 VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  dependencies[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                  VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  // After: the colour writes (and the transition to TRANSFER_SRC_OPTIMAL) before the copy reads the image.
  dependencies[1].srcSubpass = 0;
  dependencies[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependencies[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  dependencies[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;

  VkRenderPassCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
  info.attachmentCount = 2;
  info.pAttachments = attachments;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = 2;
  info.pDependencies = dependencies;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRenderPass(device, &info, nullptr, &render_pass));
  return render_pass;
}

// Filled polygons, culling and facing per draw. Vulkan's facing (Polygons, "Basic Polygon Rasterization"):
// a = -(1/2) sum(x_i y_{i+1} - x_{i+1} y_i) in framebuffer coordinates, front when a > 0 with
// COUNTER_CLOCKWISE. raster.h's front test (standard signed area E < 0 in x right, y down) is exactly a > 0,
// so glTF's counter-clockwise triangles, seen through the y-flipped projection, are front-facing with
// COUNTER_CLOCKWISE; a mirroring node swaps it.
VkPipelineRasterizationStateCreateInfo rasterization_state(bool cull_back, bool flip_winding) {
  VkPipelineRasterizationStateCreateInfo raster{};
  raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
  raster.depthClampEnable = VK_FALSE;
  raster.rasterizerDiscardEnable = VK_FALSE;
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = cull_back ? VK_CULL_MODE_BACK_BIT : VK_CULL_MODE_NONE;
  raster.frontFace = flip_winding ? VK_FRONT_FACE_CLOCKWISE : VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.depthBiasEnable = VK_FALSE;
  raster.lineWidth = 1.0f;
  return raster;
}

// Depth test LESS with writes (raster.h's depth rule), no stencil.
VkPipelineDepthStencilStateCreateInfo depth_state() {
  VkPipelineDepthStencilStateCreateInfo depth{};
  depth.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO;
  depth.depthTestEnable = VK_TRUE;
  depth.depthWriteEnable = VK_TRUE;
  depth.depthCompareOp = VK_COMPARE_OP_LESS;
  depth.depthBoundsTestEnable = VK_FALSE;
  depth.stencilTestEnable = VK_FALSE;
  return depth;
}

VkPipeline create_pipeline(VkDevice device, VkPipelineLayout layout, VkRenderPass render_pass, VkShaderModule vert,
                           VkShaderModule frag, bool cull_back, bool flip_winding) {
  VkPipelineShaderStageCreateInfo stages[2]{};
  stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vert;
  stages[0].pName = "main";
  stages[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = frag;
  stages[1].pName = "main";

  const VkVertexInputBindingDescription binding{0, sizeof(GpuVertex), VK_VERTEX_INPUT_RATE_VERTEX};
  const VkVertexInputAttributeDescription attributes[5] = {
      {0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(GpuVertex, position)},
      {1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(GpuVertex, normal)},
      {2, 0, VK_FORMAT_R32G32_SFLOAT, offsetof(GpuVertex, uv)},
      {3, 0, VK_FORMAT_R32_SFLOAT, offsetof(GpuVertex, weight)},
      {4, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(GpuVertex, face_normal)},
  };
  VkPipelineVertexInputStateCreateInfo vertex_input{};
  vertex_input.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
  vertex_input.vertexBindingDescriptionCount = 1;
  vertex_input.pVertexBindingDescriptions = &binding;
  vertex_input.vertexAttributeDescriptionCount = 5;
  vertex_input.pVertexAttributeDescriptions = attributes;

  VkPipelineInputAssemblyStateCreateInfo assembly{};
  assembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;

  // Viewport and scissor are dynamic (set per command buffer to the image size).
  VkPipelineViewportStateCreateInfo viewport{};
  viewport.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;

  const VkPipelineRasterizationStateCreateInfo raster = rasterization_state(cull_back, flip_winding);
  VkPipelineMultisampleStateCreateInfo multisample{};
  multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  const VkPipelineDepthStencilStateCreateInfo depth = depth_state();

  VkPipelineColorBlendAttachmentState blend_attachment{};
  blend_attachment.blendEnable = VK_FALSE;
  blend_attachment.colorWriteMask =
      VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo blend{};
  blend.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
  blend.attachmentCount = 1;
  blend.pAttachments = &blend_attachment;

  const VkDynamicState dynamic_states[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamic{};
  dynamic.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO;
  dynamic.dynamicStateCount = 2;
  dynamic.pDynamicStates = dynamic_states;

  VkGraphicsPipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = &vertex_input;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pDepthStencilState = &depth;
  info.pColorBlendState = &blend;
  info.pDynamicState = &dynamic;
  info.layout = layout;
  info.renderPass = render_pass;
  info.subpass = 0;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
  return pipeline;
}

VkSampler create_sampler(VkDevice device, const TextureSampler& sampler) {
  VkSamplerCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
  // The reference filters with the magnification filter everywhere (no mipmaps, shading.h); using it for
  // minification too keeps the two identical wherever the level of detail would pick the other one.
  info.magFilter = vk_filter(sampler.mag_filter);
  info.minFilter = vk_filter(sampler.mag_filter);
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = vk_wrap(sampler.wrap_s);
  info.addressModeV = vk_wrap(sampler.wrap_t);
  info.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
  info.mipLodBias = 0.0f;
  info.anisotropyEnable = VK_FALSE;
  info.maxAnisotropy = 1.0f;
  info.compareEnable = VK_FALSE;
  info.compareOp = VK_COMPARE_OP_ALWAYS;
  info.minLod = 0.0f;
  info.maxLod = 0.0f;
  info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  info.unnormalizedCoordinates = VK_FALSE;
  VkSampler result = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSampler(device, &info, nullptr, &result));
  return result;
}

void check_options(const Context& context, const RenderOptions& options) {
  const VkPhysicalDeviceLimits& limits = context.limits();
  // A framebuffer can be no larger than either limit; maxImageDimension2D is the one the contract names.
  const uint32_t image_limit = limits.maxImageDimension2D;
  const uint32_t max_width = std::min(image_limit, limits.maxFramebufferWidth);
  const uint32_t max_height = std::min(image_limit, limits.maxFramebufferHeight);
  const std::string size = std::to_string(options.width) + "x" + std::to_string(options.height);
  if (options.width < 1 || options.height < 1 || uint32_t(options.width) > max_width ||
      uint32_t(options.height) > max_height) {
    const bool framebuffer_tighter = max_width < image_limit || max_height < image_limit;
    throw InputError("--size", "",
                     "image size " + size + "; expected each side 1 to " + std::to_string(image_limit) +
                         " (maxImageDimension2D of " + context.info().name + ")" +
                         (framebuffer_tighter ? ", width at most " + std::to_string(max_width) + " and height at most " +
                                                    std::to_string(max_height) + " (maxFramebufferWidth/Height)"
                                              : std::string()));
  }
  if (options.view == RenderView::Weights && options.weights_joint < 0) {
    throw std::invalid_argument("gpu_render: the weights view needs a joint index >= 0");
  }
}


void require_formats(VkPhysicalDevice physical) {
  require_format(physical, kColorFormat, VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT,
                 "R8G8B8A8_SRGB colour attachments");
  require_format(physical, kDepthFormat, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT,
                 "D32_SFLOAT depth attachments");
  require_format(physical, kTextureFormat,
                 VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
                     VK_FORMAT_FEATURE_TRANSFER_DST_BIT,
                 "filtered R8G8B8A8_SRGB textures");
}

// The textures the draws sample, each image uploaded once.
struct TexturePlan {
  std::vector<int> textures;  // scene texture indices: one descriptor set each (and one for the placeholder)
  std::vector<int> images;    // scene image indices, in upload order
};

// Checks every image against the device's limit and its own size, before anything is created.
TexturePlan plan_textures(const Context& context, const Scene& scene, const DrawPlan& plan) {
  TexturePlan textures;
  for (const Draw& draw : plan.draws) {
    if (draw.texture >= 0 && std::find(textures.textures.begin(), textures.textures.end(), draw.texture) ==
                                 textures.textures.end()) {
      textures.textures.push_back(draw.texture);
    }
  }
  for (int texture : textures.textures) {
    const int image = scene.textures[size_t(texture)].image;
    if (std::find(textures.images.begin(), textures.images.end(), image) == textures.images.end()) {
      textures.images.push_back(image);
    }
  }
  const uint32_t limit = context.limits().maxImageDimension2D;
  for (int image : textures.images) {
    const Image& source = scene.images[size_t(image)];
    if (uint32_t(source.width) > limit || uint32_t(source.height) > limit) {
      throw InputError(scene.source, "/images/" + std::to_string(image),
                       "an image of at most " + std::to_string(limit) + " texels per side (maxImageDimension2D of " +
                           context.info().name + "), got " + std::to_string(source.width) + "x" +
                           std::to_string(source.height));
    }
    if (source.rgba8.size() != size_t(source.width) * size_t(source.height) * 4) {
      throw std::invalid_argument("gpu_render: image " + std::to_string(image) + " has " +
                                  std::to_string(source.rgba8.size()) + " bytes for " + std::to_string(source.width) +
                                  "x" + std::to_string(source.height) + " RGBA8 texels");
    }
  }
  return textures;
}

// The colour and depth attachments, and the host-visible buffer the colour image is copied into.
struct RenderTargets {
  uint32_t width = 0, height = 0;
  Image2D color, depth;
  Buffer readback;
  // bufferRowLength 0 in the copy means rows tightly packed, so the row pitch of the readback buffer is
  // width * 4 bytes; reading uses that same pitch.
  uint32_t buffer_row_length = 0;
  VkDeviceSize row_pitch = 0;
};

RenderTargets create_targets(Context& context, Cleanup& cleanup, uint32_t width, uint32_t height) {
  RenderTargets targets;
  targets.width = width;
  targets.height = height;
  targets.color = context.resources().create_image(width, height, kColorFormat,
                                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
  cleanup.add([&context, color = targets.color]() mutable { context.resources().destroy(color); });
  targets.depth = context.resources().create_image(width, height, kDepthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT);
  cleanup.add([&context, depth = targets.depth]() mutable { context.resources().destroy(depth); });
  targets.row_pitch =
      VkDeviceSize(targets.buffer_row_length == 0 ? width : targets.buffer_row_length) * kBytesPerPixel;
  targets.readback = context.resources().create_buffer(targets.row_pitch * height, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  cleanup.add([&context, readback = targets.readback]() mutable { context.resources().destroy(readback); });
  return targets;
}

// The vertices are read once, by one draw pass: a host-visible vertex buffer written directly serves that
// better than a staging copy into device-local memory would (no second buffer, no copy). Host writes made
// before the submission are visible to it (vkQueueSubmit's implicit host-write dependency; Context::write
// flushes non-coherent memory). No buffer (a null handle) when nothing is drawn.
Buffer upload_vertices(Context& context, Cleanup& cleanup, const Scene& scene,
                       const std::vector<WorldPrimitive>& primitives, const DrawPlan& plan,
                       const RenderOptions& options) {
  const VkDeviceSize vertex_bytes = VkDeviceSize(plan.vertex_count) * sizeof(GpuVertex);
  Buffer vertex_buffer;
  if (vertex_bytes == 0) return vertex_buffer;
  vertex_buffer = context.resources().create_buffer(vertex_bytes, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true);
  cleanup.add([&context, buffer = vertex_buffer]() mutable { context.resources().destroy(buffer); });
  fill_vertices(scene, primitives, plan, options, kVertexChunk,
                [&](const GpuVertex* vertices, size_t count, size_t first) {
                  context.resources().write(vertex_buffer, vertices, VkDeviceSize(count) * sizeof(GpuVertex),
                                VkDeviceSize(first) * sizeof(GpuVertex));
                });
  return vertex_buffer;
}

// One texture image's texels in the staging buffer.
struct TextureUpload {
  const uint8_t* bytes;
  uint32_t width, height;
  VkDeviceSize offset;
};

// Texture images: the scene's, then a 1x1 white texel bound wherever nothing is sampled (the pipeline layout
// has the binding, so a valid descriptor must be bound for every draw); their texels staged for the copy.
struct Textures {
  std::vector<TextureUpload> uploads;  // TexturePlan::images order, then the placeholder
  Buffer staging;
  std::vector<Image2D> images;      // one per upload
  std::vector<VkSampler> samplers;  // one per sampled texture (its glTF sampler), then the placeholder's
};

Textures stage_textures(Context& context, Cleanup& cleanup, const Scene& scene, const TexturePlan& plan) {
  static const uint8_t kWhite[4] = {255, 255, 255, 255};
  Textures textures;
  VkDeviceSize texture_bytes = 0;
  for (int image : plan.images) {
    const Image& source = scene.images[size_t(image)];
    textures.uploads.push_back({source.rgba8.data(), uint32_t(source.width), uint32_t(source.height), texture_bytes});
    texture_bytes += source.rgba8.size();
  }
  textures.uploads.push_back({kWhite, 1, 1, texture_bytes});
  texture_bytes += sizeof kWhite;
  textures.staging = context.resources().create_buffer(texture_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
  cleanup.add([&context, buffer = textures.staging]() mutable { context.resources().destroy(buffer); });
  for (const TextureUpload& upload : textures.uploads) {
    context.resources().write(textures.staging, upload.bytes, VkDeviceSize(upload.width) * upload.height * 4, upload.offset);
  }
  textures.images.resize(textures.uploads.size());
  for (size_t i = 0; i < textures.uploads.size(); ++i) {
    textures.images[i] = context.resources().create_image(textures.uploads[i].width, textures.uploads[i].height, kTextureFormat,
                                              VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    cleanup.add([&context, image = textures.images[i]]() mutable { context.resources().destroy(image); });
  }
  const VkDevice device = context.device();
  textures.samplers.assign(plan.textures.size() + 1, VK_NULL_HANDLE);
  for (size_t t = 0; t <= plan.textures.size(); ++t) {
    const TextureSampler settings =
        t < plan.textures.size() ? scene.textures[size_t(plan.textures[t])].sampler : TextureSampler{};
    textures.samplers[t] = create_sampler(device, settings);
    cleanup.add([device, sampler = textures.samplers[t]] { vkDestroySampler(device, sampler, nullptr); });
  }
  return textures;
}

// Set 0, binding 0: one combined image sampler per sampled texture, and one for the placeholder.
struct TextureSets {
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  std::map<int, VkDescriptorSet> by_texture;  // scene texture index (-1: the placeholder) -> set
};

VkDescriptorSetLayout create_texture_set_layout(VkDevice device) {
  VkDescriptorSetLayoutBinding binding{};
  binding.binding = 0;
  binding.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  binding.descriptorCount = 1;
  binding.stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  VkDescriptorSetLayoutCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  info.bindingCount = 1;
  info.pBindings = &binding;
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorSetLayout(device, &info, nullptr, &layout));
  return layout;
}

// A pool of `set_count` sets of `layout`, allocated; the pool goes with `cleanup` (and frees its sets).
std::vector<VkDescriptorSet> allocate_sets(VkDevice device, Cleanup& cleanup, VkDescriptorSetLayout layout,
                                           uint32_t set_count) {
  const VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, set_count};
  VkDescriptorPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.maxSets = set_count;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &pool_size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorPool(device, &pool_info, nullptr, &pool));
  cleanup.add([device, pool] { vkDestroyDescriptorPool(device, pool, nullptr); });

  std::vector<VkDescriptorSetLayout> layouts(set_count, layout);
  std::vector<VkDescriptorSet> sets(set_count, VK_NULL_HANDLE);
  VkDescriptorSetAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  allocate.descriptorPool = pool;
  allocate.descriptorSetCount = set_count;
  allocate.pSetLayouts = layouts.data();
  VK_CHECK(vkAllocateDescriptorSets(device, &allocate, sets.data()));
  return sets;
}

TextureSets create_texture_sets(VkDevice device, Cleanup& cleanup, const Scene& scene, const TexturePlan& plan,
                                const Textures& textures) {
  TextureSets sets;
  sets.layout = create_texture_set_layout(device);
  cleanup.add([device, layout = sets.layout] { vkDestroyDescriptorSetLayout(device, layout, nullptr); });
  const uint32_t set_count = uint32_t(plan.textures.size() + 1);
  const std::vector<VkDescriptorSet> allocated = allocate_sets(device, cleanup, sets.layout, set_count);
  for (size_t t = 0; t < set_count; ++t) {
    const bool placeholder = t == plan.textures.size();
    const size_t image_slot =
        placeholder ? textures.uploads.size() - 1
                    : size_t(std::find(plan.images.begin(), plan.images.end(),
                                       scene.textures[size_t(plan.textures[t])].image) -
                             plan.images.begin());
    VkDescriptorImageInfo image_info{};
    image_info.sampler = textures.samplers[t];
    image_info.imageView = textures.images[image_slot].view;
    image_info.imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    VkWriteDescriptorSet write{};
    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    write.dstSet = allocated[t];
    write.dstBinding = 0;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    write.pImageInfo = &image_info;
    vkUpdateDescriptorSets(device, 1, &write, 0, nullptr);
    sets.by_texture[placeholder ? -1 : plan.textures[t]] = allocated[t];
  }
  return sets;
}

// The pipeline layout, render pass, framebuffer and one pipeline per (cull, front face) pair the draws use.
struct GraphicsPipelines {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  std::map<std::pair<bool, bool>, VkPipeline> by_state;  // (cull_back, flip_winding) -> pipeline
};

VkFramebuffer create_framebuffer(VkDevice device, VkRenderPass render_pass, const RenderTargets& targets) {
  const VkImageView attachments[2] = {targets.color.view, targets.depth.view};
  VkFramebufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
  info.renderPass = render_pass;
  info.attachmentCount = 2;
  info.pAttachments = attachments;
  info.width = targets.width;
  info.height = targets.height;
  info.layers = 1;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFramebuffer(device, &info, nullptr, &framebuffer));
  return framebuffer;
}

GraphicsPipelines create_graphics_pipelines(Context& context, Cleanup& cleanup, VkDescriptorSetLayout set_layout,
                                            const RenderTargets& targets, const DrawPlan& plan) {
  const VkDevice device = context.device();
  GraphicsPipelines pipelines;
  const VkPushConstantRange push_range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                                       sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push_range;
  VK_CHECK(vkCreatePipelineLayout(device, &layout_info, nullptr, &pipelines.layout));
  cleanup.add([device, layout = pipelines.layout] { vkDestroyPipelineLayout(device, layout, nullptr); });

  pipelines.render_pass = create_render_pass(device);
  cleanup.add([device, render_pass = pipelines.render_pass] { vkDestroyRenderPass(device, render_pass, nullptr); });
  pipelines.framebuffer = create_framebuffer(device, pipelines.render_pass, targets);
  cleanup.add([device, framebuffer = pipelines.framebuffer] { vkDestroyFramebuffer(device, framebuffer, nullptr); });

  const VkShaderModule vert = context.create_shader(k_render_vert, sizeof k_render_vert / sizeof k_render_vert[0]);
  cleanup.add([device, vert] { vkDestroyShaderModule(device, vert, nullptr); });
  const VkShaderModule frag = context.create_shader(k_render_frag, sizeof k_render_frag / sizeof k_render_frag[0]);
  cleanup.add([device, frag] { vkDestroyShaderModule(device, frag, nullptr); });

  for (const Draw& draw : plan.draws) {
    const auto key = std::make_pair(draw.cull_back, draw.flip_winding);
    if (pipelines.by_state.count(key) != 0) continue;
    const VkPipeline pipeline = create_pipeline(device, pipelines.layout, pipelines.render_pass, vert, frag,
                                                draw.cull_back, draw.flip_winding);
    pipelines.by_state[key] = pipeline;
    cleanup.add([device, pipeline] { vkDestroyPipeline(device, pipeline, nullptr); });
  }
  return pipelines;
}

// Each texture: to TRANSFER_DST, copied from staging, to SHADER_READ_ONLY for the fragment shader.
void record_texture_uploads(VkCommandBuffer command, const Textures& textures) {
  for (size_t i = 0; i < textures.uploads.size(); ++i) {
    const VkImage image = textures.images[i].image;
    record_image_barrier(command, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                         VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferImageCopy region{};
    region.bufferOffset = textures.uploads[i].offset;
    region.bufferRowLength = 0;  // tightly packed rows, as Image::rgba8 stores them
    region.bufferImageHeight = 0;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {textures.uploads[i].width, textures.uploads[i].height, 1};
    vkCmdCopyBufferToImage(command, textures.staging.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    record_image_barrier(command, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                         VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
  }
}

void record_render_pass(VkCommandBuffer command, const GraphicsPipelines& pipelines, const TextureSets& sets,
                        const RenderTargets& targets, const DrawPlan& plan, const Buffer& vertex_buffer) {
  const uint32_t width = targets.width, height = targets.height;
  // The clear colour is linear: the sRGB attachment encodes it like any fragment output.
  VkClearValue clears[2]{};
  clears[0].color.float32[0] = float(kBackground[0]);
  clears[0].color.float32[1] = float(kBackground[1]);
  clears[0].color.float32[2] = float(kBackground[2]);
  clears[0].color.float32[3] = 1.0f;
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
  begin.renderPass = pipelines.render_pass;
  begin.framebuffer = pipelines.framebuffer;
  begin.renderArea = {{0, 0}, {width, height}};
  begin.clearValueCount = 2;
  begin.pClearValues = clears;
  vkCmdBeginRenderPass(command, &begin, VK_SUBPASS_CONTENTS_INLINE);
  // Viewport (0, 0, width, height) with depth range [0, 1]: raster.h's viewport transform. The projection
  // already flips y, so the height is positive.
  const VkViewport viewport{0.0f, 0.0f, float(width), float(height), 0.0f, 1.0f};
  const VkRect2D scissor{{0, 0}, {width, height}};
  if (!plan.draws.empty()) {
    const VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(command, 0, 1, &vertex_buffer.buffer, &offset);
    vkCmdSetViewport(command, 0, 1, &viewport);
    vkCmdSetScissor(command, 0, 1, &scissor);
  }
  VkPipeline bound = VK_NULL_HANDLE;
  for (const Draw& draw : plan.draws) {
    const VkPipeline pipeline = pipelines.by_state.at(std::make_pair(draw.cull_back, draw.flip_winding));
    if (pipeline != bound) {
      vkCmdBindPipeline(command, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
      bound = pipeline;
    }
    const VkDescriptorSet set = sets.by_texture.at(draw.texture);
    vkCmdBindDescriptorSets(command, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines.layout, 0, 1, &set, 0, nullptr);
    vkCmdPushConstants(command, pipelines.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                       sizeof(PushConstants), &draw.push);
    vkCmdDraw(command, draw.vertex_count, 1, draw.first_vertex, 0);
  }
  vkCmdEndRenderPass(command);
}

// The render pass left the colour image in TRANSFER_SRC_OPTIMAL, its writes made visible to transfers.
void record_readback_copy(VkCommandBuffer command, const RenderTargets& targets) {
  VkBufferImageCopy region{};
  region.bufferOffset = 0;
  region.bufferRowLength = targets.buffer_row_length;
  region.bufferImageHeight = 0;
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {targets.width, targets.height, 1};
  vkCmdCopyImageToBuffer(command, targets.color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, targets.readback.buffer,
                         1, &region);
  record_buffer_barrier(command, targets.readback.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

RgbaImage read_image(Context& context, const RenderTargets& targets, const RenderOptions& options) {
  std::vector<uint8_t> bytes(size_t(targets.row_pitch) * targets.height);
  context.resources().read(targets.readback, bytes.data(), VkDeviceSize(bytes.size()));
  RgbaImage image;
  image.width = options.width;
  image.height = options.height;
  image.pixels.resize(size_t(targets.width) * targets.height * 4);
  const size_t row_bytes = size_t(targets.width) * 4;
  for (uint32_t row = 0; row < targets.height; ++row) {
    std::memcpy(&image.pixels[row * row_bytes], &bytes[row * size_t(targets.row_pitch)], row_bytes);
  }
  return image;
}

}  // namespace

RgbaImage gpu_render(Context& context, const Scene& scene, const EvaluatedPose& pose,
                     const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                     const RenderOptions& options) {
  // Plan: every input check before the first Vulkan object is created.
  check_options(context, options);
  const DrawPlan plan = plan_draws(scene, pose, primitives, camera, options);
  require_formats(context.physical_device());
  const TexturePlan texture_plan = plan_textures(context, scene, plan);

  // Upload: every object registered with `cleanup`, destroyed in reverse order whether this returns or throws.
  Cleanup cleanup;
  const RenderTargets targets = create_targets(context, cleanup, uint32_t(options.width), uint32_t(options.height));
  const Buffer vertex_buffer = upload_vertices(context, cleanup, scene, primitives, plan, options);
  const Textures textures = stage_textures(context, cleanup, scene, texture_plan);
  const TextureSets sets = create_texture_sets(context.device(), cleanup, scene, texture_plan, textures);
  const GraphicsPipelines pipelines = create_graphics_pipelines(context, cleanup, sets.layout, targets, plan);

  // Record and submit: one submission for the texture copies, the render pass and the copy to the readback.
  context.submit_and_wait([&](VkCommandBuffer command) {
    record_texture_uploads(command, textures);
    record_render_pass(command, pipelines, sets, targets, plan, vertex_buffer);
    record_readback_copy(command, targets);
  });

  // Read back.
  return read_image(context, targets, options);
}

}  // namespace skinref::gpu

// A user's skinning vertex shader on skinref's scenes (user_vertex_skinning.h): each drawn primitive gets its
// own vertex buffers and blocks, laid out as the interface says, and its own submission, its outputs captured
// by transform feedback.
#include "gpu/user_vertex_skinning.h"

#include "core/input_error.h"
#include "gpu/buffer_bytes.h"
#include "gpu/palette_texels.h"
#include "skin/dqs.h"
#include "skin/morph.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

namespace skinref::gpu {
namespace {

using Clock = std::chrono::steady_clock;


// The VkFormat of a vertex format: Vulkan numbers each bit width's formats R, RG, RGB, RGBA in steps of 7 (8 and
// 16 bits: UNORM SNORM USCALED SSCALED UINT SINT, then SRGB or SFLOAT; at 8 bits the 7 B8G8R8 formats come
// between RGB and RGBA) or 3 (32 bits: UINT SINT SFLOAT).
}  // namespace

VkFormat vulkan_vertex_format(VertexFormat format) {
  const int n = int(format.components) - 1;
  const auto eight_or_sixteen = [&](VkFormat r8, VkFormat r16) {
    return format.bits == 8 ? VkFormat(int(r8) + 7 * n + (n == 3 ? 7 : 0)) : VkFormat(int(r16) + 7 * n);
  };
  switch (format.type) {
    case ComponentType::Unorm: return eight_or_sixteen(VK_FORMAT_R8_UNORM, VK_FORMAT_R16_UNORM);
    case ComponentType::Snorm: return eight_or_sixteen(VK_FORMAT_R8_SNORM, VK_FORMAT_R16_SNORM);
    case ComponentType::Uint:
      return format.bits == 32 ? VkFormat(VK_FORMAT_R32_UINT + 3 * n) : eight_or_sixteen(VK_FORMAT_R8_UINT, VK_FORMAT_R16_UINT);
    case ComponentType::Sint:
      return format.bits == 32 ? VkFormat(VK_FORMAT_R32_SINT + 3 * n) : eight_or_sixteen(VK_FORMAT_R8_SINT, VK_FORMAT_R16_SINT);
    case ComponentType::Sfloat:
      return format.bits == 32 ? VkFormat(VK_FORMAT_R32_SFLOAT + 3 * n) : VkFormat(VK_FORMAT_R16_SFLOAT + 7 * n);
  }
  return VK_FORMAT_UNDEFINED;
}

namespace {

// An identity matrix: mat4, or mat3 as std140 lays it out (three columns padded to vec4).
void put_identity(std::vector<std::byte>& bytes, size_t at, IdentityFormat format) {
  const int columns = format == IdentityFormat::Mat4 ? 4 : 3;
  for (int c = 0; c < columns; ++c) put_float(bytes, at + 16 * c + 4 * c, 1.0);
}

// A palette entry in the declared layout.
void put_palette_entry(std::vector<std::byte>& bytes, size_t at, const Mat4& m, PaletteLayout layout) {
  switch (layout) {
    case PaletteLayout::Mat4: put_matrix_columns(bytes, at, m); break;
    case PaletteLayout::Mat4RowMajor: put_matrix_rows(bytes, at, m, 4); break;
    case PaletteLayout::Mat3x4Rows: put_matrix_rows(bytes, at, m, 3); break;
    case PaletteLayout::DualQuaternion: {
      const DqsJointSplit split = split_dqs_joint(m);
      for (size_t c = 0; c < 4; ++c) put_float(bytes, at + 4 * c, split.real[c]);
      for (size_t c = 0; c < 4; ++c) put_float(bytes, at + 16 + 4 * c, split.dual[c]);
      break;
    }
  }
}

// Bytes of quiet NaN before and after each block in its buffer (the descriptor covers the block alone): a shader
// that indexes the palette out of range, e.g. at a "no joint" sentinel of -1, reads NaN there and shows it,
// where it would otherwise read whatever memory lies there.
constexpr size_t kGuardBytes = 256;
constexpr uint32_t kMaxSlots = 20;  // influence slots an input may reach: first (up to 15) + 4 components
constexpr uint32_t kQuietNan = 0x7FC00000u;

// One primitive's draw: its buffers' bytes and what read_back() builds from it.
struct Draw {
  int node = -1, mesh = -1, primitive = -1;
  bool skinned = false, has_normals = false, has_tangents = false;
  uint32_t vertex_count = 0, padded = 0;  // padded: a multiple of 3, the vertices drawn
  std::vector<bool> sentinel_slot;        // per vertex: a slot holds the interface's sentinel
  std::vector<std::vector<std::byte>> vertex_bytes;  // per interface vertex buffer
  std::vector<std::vector<std::byte>> block_bytes;   // per block binding
  std::vector<std::byte> push_bytes;                 // the push constants
  std::vector<Buffer> vertex_buffers, block_buffers;
  std::vector<VkBufferView> texel_views;  // per block: a texel buffer's view, else null
  std::vector<Image2D> images;            // per block: a sampled image, else empty
  Buffer capture;
  std::vector<std::byte> captured;
};

// The descriptor bindings the pipeline declares: the shader's blocks, each sized for what is written to it.
struct BlockBinding {
  uint32_t set = 0;
  uint32_t binding = 0;
  BlockDescriptor descriptor = BlockDescriptor::Uniform;
  size_t bytes = 0;
};

}  // namespace

struct UserVertexSkinning::State {
  Context& context;
  const UserVertexShader shader;
  std::vector<BlockBinding> blocks;
  size_t guard = kGuardBytes;  // the NaN before each block, a multiple of the device's offset alignment
  std::vector<Draw> draws;
  Clock::duration prepare_time{};
  bool dispatched = false;
  VkShaderModule module = VK_NULL_HANDLE;
  std::vector<VkDescriptorSetLayout> set_layouts;  // sets 0 to the highest the blocks use
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  VkRenderPass render_pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets;
  VkSampler sampler = VK_NULL_HANDLE;  // for palettes in sampled images
  VkQueryPool queries = VK_NULL_HANDLE;  // two timestamps around a draw, where the device has them
  double device_ms = 0.0;                // the last dispatch's draws, summed
  PFN_vkCmdBindTransformFeedbackBuffersEXT bind_feedback = nullptr;
  PFN_vkCmdBeginTransformFeedbackEXT begin_feedback = nullptr;
  PFN_vkCmdEndTransformFeedbackEXT end_feedback = nullptr;

  State(Context& c, const UserVertexShader& s) : context(c), shader(s) {}
  ~State();
  void plan_blocks();
  VkDeviceSize block_range(BlockDescriptor descriptor) const;
  void plan(const Scene& scene, const EvaluatedPose& pose);
  void fill_vertices(Draw& draw, const Scene& scene, const MorphedAttributes& morphed,
                     const std::vector<uint32_t>& joints, const std::vector<double>& weights) const;
  void fill_blocks(Draw& draw, const Scene& scene, const std::vector<Mat4>& palette) const;
  void put_joints(Draw& draw, const Scene& scene, const VertexInput& input, const std::vector<uint32_t>& joints, const std::vector<double>& weights, uint32_t v,
                  std::vector<std::byte>& bytes, size_t at) const;
  void put_weights(const VertexInput& input, const std::array<bool, kMaxSlots>& sentinels,
                   const std::vector<double>& weights, uint32_t v, std::vector<std::byte>& bytes, size_t at) const;
  void create_pipeline();
  void create_layouts();
  void allocate_sets();
  VkPipeline create_graphics_pipeline() const;
  void upload(Draw& draw);
  void upload_block(Draw& draw, size_t b);
  void record(VkCommandBuffer cmd, const Draw& draw) const;
  void name_sentinel_reads(const Draw& draw) const;
};

// Outputs that are not finite at exactly the vertices with a sentinel slot (and at one at least): the shader
// read those slots, whose weights are NaN. Named as an InputError on the shader; other non-finite outputs are
// left for compare and diagnose to report.
void UserVertexSkinning::State::name_sentinel_reads(const Draw& draw) const {
  size_t bad = 0, bad_with_sentinel = 0;
  int64_t first = -1;
  for (uint32_t v = 0; v < draw.vertex_count; ++v) {
    bool finite = true;
    for (size_t at = size_t(v) * shader.capture_stride; at < size_t(v + 1) * shader.capture_stride; at += 4)
      finite &= std::isfinite(get_float(draw.captured, at));
    if (finite) continue;
    ++bad;
    bad_with_sentinel += draw.sentinel_slot[v];
    if (first < 0) first = v;
  }
  const size_t with_sentinel = size_t(std::count(draw.sentinel_slot.begin(), draw.sentinel_slot.end(), true));
  if (bad == 0 || bad != bad_with_sentinel || bad != with_sentinel) return;
  int64_t sentinel = 0;
  for (const VertexInput& input : shader.interface.inputs)
    if (input.attribute == VertexAttribute::Joints && input.sentinel) sentinel = *input.sentinel;
  throw InputError(shader.path, "",
                   "a shader that skips the joint slots holding the sentinel " + std::to_string(sentinel) + " (" +
                       shader.interface.path + "): its outputs are NaN at exactly the " + std::to_string(bad) +
                       " vertices that have such a slot (the first: vertex " + std::to_string(first) + " of node " +
                       std::to_string(draw.node) + "), whose weight skinref sets to NaN, as only a shader that reads "
                       "the slot sees it; it also indexes the palette at " + std::to_string(sentinel) +
                       " there, outside it. Skip the slot, as `if (boneIds[i] == " + std::to_string(sentinel) +
                       ") continue;`");
}

UserVertexSkinning::State::~State() {
  VkDevice device = context.device();
  for (Draw& draw : draws) {
    for (Buffer& b : draw.vertex_buffers) context.resources().destroy(b);
    for (Buffer& b : draw.block_buffers) context.resources().destroy(b);
    for (VkBufferView view : draw.texel_views)
      if (view != VK_NULL_HANDLE) vkDestroyBufferView(device, view, nullptr);
    for (Image2D& image : draw.images)
      if (image.image != VK_NULL_HANDLE) context.resources().destroy(image);
    if (draw.capture.buffer != VK_NULL_HANDLE) context.resources().destroy(draw.capture);
  }
  if (queries != VK_NULL_HANDLE) vkDestroyQueryPool(device, queries, nullptr);
  if (sampler != VK_NULL_HANDLE) vkDestroySampler(device, sampler, nullptr);
  if (pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, pool, nullptr);
  if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device, pipeline, nullptr);
  if (framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, framebuffer, nullptr);
  if (render_pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, render_pass, nullptr);
  if (pipeline_layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
  for (VkDescriptorSetLayout layout : set_layouts) vkDestroyDescriptorSetLayout(device, layout, nullptr);
  if (module != VK_NULL_HANDLE) vkDestroyShaderModule(device, module, nullptr);
}

// The most bytes one descriptor of the kind may cover on this device.
VkDeviceSize UserVertexSkinning::State::block_range(BlockDescriptor descriptor) const {
  const VkPhysicalDeviceLimits& limits = context.limits();
  switch (descriptor) {
    case BlockDescriptor::Uniform: return limits.maxUniformBufferRange;
    case BlockDescriptor::Storage: return limits.maxStorageBufferRange;
    case BlockDescriptor::UniformTexelBuffer:
    case BlockDescriptor::StorageTexelBuffer: return VkDeviceSize(limits.maxTexelBufferElements) * 16;
    case BlockDescriptor::SampledImage:
      return VkDeviceSize(limits.maxImageDimension2D) * limits.maxImageDimension2D * 16;
  }
  return 0;
}

void UserVertexSkinning::State::plan_blocks() {
  const VertexInterface& interface = shader.interface;
  const VkDeviceSize alignment = std::max({context.limits().minUniformBufferOffsetAlignment,
                                           context.limits().minStorageBufferOffsetAlignment,
                                           context.limits().minTexelBufferOffsetAlignment, VkDeviceSize(16)});
  guard = (kGuardBytes + alignment - 1) / alignment * alignment;
  std::map<std::pair<uint32_t, uint32_t>, size_t> needed;  // (set, binding) -> bytes written there
  const PaletteBlock& palette = interface.palette;
  needed[{palette.set, palette.binding}] = palette.offset + size_t(palette.joints) * palette_entry_bytes(palette.layout);
  if (palette.joint_offset && !palette.joint_offset->push_constant) {
    size_t& bytes = needed[{palette.joint_offset->set, palette.joint_offset->binding}];
    bytes = std::max(bytes, size_t(palette.joint_offset->offset) + 4);
  }
  for (const IdentityMatrix& m : interface.identities)
    if (!m.push_constant) {
      size_t& bytes = needed[{m.set, m.binding}];
      bytes = std::max(bytes, size_t(m.offset) + (m.format == IdentityFormat::Mat4 ? 64 : 48));
    }
  for (const ReflectedBlock& block : shader.blocks) {
    size_t bytes = std::max(block.bytes, needed[{block.set, block.binding}]);
    if (block.descriptor == BlockDescriptor::SampledImage) bytes = size_t(palette.width) * palette.height * 16;
    blocks.push_back({block.set, block.binding, block.descriptor, (bytes + 15) / 16 * 16});
    const VkDeviceSize range = block_range(block.descriptor);
    if (blocks.back().bytes > range)
      throw InputError(interface.path, "/palette", "a block within the device's range (" + std::to_string(range) +
                                                       " bytes); binding " + std::to_string(block.binding) + " needs " +
                                                       std::to_string(blocks.back().bytes));
  }
}

void UserVertexSkinning::State::plan(const Scene& scene, const EvaluatedPose& pose) {
  const uint32_t k = shader.interface.influences;
  for (const int n : drawn_nodes(scene)) {
    const Node& node = scene.nodes[size_t(n)];
    const Mesh& mesh = scene.meshes[size_t(node.mesh)];
    const bool skinned = node.skin >= 0;
    const std::vector<Mat4> rigid_palette = {pose.model.global[size_t(n)]};
    const std::vector<Mat4>& palette = skinned ? pose.palettes.at(size_t(node.skin)).skinning : rigid_palette;
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      Draw draw;
      draw.node = n, draw.mesh = node.mesh, draw.primitive = int(p), draw.skinned = skinned;
      draw.has_normals = !prim.normals.empty() && shader.interface.normal.has_value();
      draw.has_tangents = !prim.tangents.empty() && shader.interface.tangent.has_value();
      if (prim.vertex_count() >= 0xFFFFFFF0u)
        throw InputError(scene.source, "", "fewer than 2^32 - 16 vertices in a primitive for the GPU path");
      draw.vertex_count = uint32_t(prim.vertex_count());
      draw.padded = (draw.vertex_count + 2) / 3 * 3;
      if (draw.vertex_count > 0) {
        const PaddedInfluences influences = padded_influences(scene, n, p, k, shader.interface.path);
        const std::vector<uint32_t>& joints = influences.joints;
        const std::vector<double>& weights = influences.weights;
        fill_vertices(draw, scene, apply_morph_targets(prim, pose.local.morph_weights.at(size_t(n))), joints, weights);
        fill_blocks(draw, scene, palette);
      }
      draws.push_back(std::move(draw));
    }
  }
}

namespace {

// An input's value at vertex v for every attribute but the influences: x y z w, the components a source lacks as
// (0, 0, 0, 1) (a position's w 1, a normal's 0).
std::array<double, 4> attribute_value(const VertexInput& input, const MorphedAttributes& morphed,
                                      const Primitive& primitive, uint32_t v) {
  const auto other = [&](const std::string& name, std::array<double, 4> absent) {
    const auto found = primitive.other_attributes.find(name);
    if (found == primitive.other_attributes.end()) return absent;
    const Vec4& x = found->second[v];
    return std::array<double, 4>{x[0], x[1], x[2], x[3]};
  };
  switch (input.attribute) {
    case VertexAttribute::Position: return {morphed.positions[v][0], morphed.positions[v][1], morphed.positions[v][2], 1.0};
    case VertexAttribute::Normal:
      if (morphed.normals.empty()) return {0.0, 0.0, 0.0, 0.0};
      return {morphed.normals[v][0], morphed.normals[v][1], morphed.normals[v][2], 0.0};
    case VertexAttribute::Tangent:
      if (morphed.tangents.empty()) return {0.0, 0.0, 0.0, 0.0};
      return {morphed.tangents[v][0], morphed.tangents[v][1], morphed.tangents[v][2], morphed.tangents[v][3]};
    case VertexAttribute::Texcoord:
      if (input.set == 0 && !primitive.texcoords0.empty())
        return {primitive.texcoords0[v][0], primitive.texcoords0[v][1], 0.0, 1.0};
      return other("TEXCOORD_" + std::to_string(input.set), {0.0, 0.0, 0.0, 1.0});
    case VertexAttribute::Color: return other("COLOR_" + std::to_string(input.set), {1.0, 1.0, 1.0, 1.0});
    case VertexAttribute::Custom: return other(input.custom, {0.0, 0.0, 0.0, 1.0});
    case VertexAttribute::Zero: return {0.0, 0.0, 0.0, 0.0};
    case VertexAttribute::Constant: return input.value;
    case VertexAttribute::Joints:
    case VertexAttribute::Weights: break;  // put_joints, put_weights
  }
  return {0.0, 0.0, 0.0, 0.0};
}

}  // namespace

void UserVertexSkinning::State::put_joints(Draw& draw, const Scene& scene, const VertexInput& input,
                                           const std::vector<uint32_t>& joints, const std::vector<double>& weights,
                                           uint32_t v, std::vector<std::byte>& bytes, size_t at) const {
  const uint32_t k = shader.interface.influences;
  for (uint32_t c = 0; c < vertex_format_components(input.format); ++c) {
    const uint32_t slot = input.first + c;
    const bool unused = slot >= k || weights[size_t(v) * k + slot] == 0.0;
    const int64_t joint = slot < k ? joints[size_t(v) * k + slot] : 0;
    if (joint > largest_integer(input.format))
      throw InputError(scene.source, "", "joint indices that fit the shader's " + vertex_format_name(input.format) +
                                             " joints; node " + std::to_string(draw.node) + " uses joint " +
                                             std::to_string(joint));
    if (unused && input.sentinel) draw.sentinel_slot[v] = true;
    put_vertex_component(bytes, at, input.format, c, double(unused && input.sentinel ? *input.sentinel : joint));
  }
}

void UserVertexSkinning::State::put_weights(const VertexInput& input, const std::array<bool, kMaxSlots>& sentinels,
                                            const std::vector<double>& weights, uint32_t v,
                                            std::vector<std::byte>& bytes, size_t at) const {
  const uint32_t k = shader.interface.influences;
  for (uint32_t c = 0; c < vertex_format_components(input.format); ++c) {
    const uint32_t slot = input.first + c;
    const double weight = slot < k ? weights[size_t(v) * k + slot] : 0.0;
    // A slot whose joint is the sentinel weighs NaN: a shader that skips the sentinel never reads it, one that
    // does not shows NaN there (its palette read at the sentinel is out of bounds anyway).
    const bool probe = weight == 0.0 && sentinels[std::min(slot, kMaxSlots - 1)] &&
                       input.format.type == ComponentType::Sfloat;
    put_vertex_component(bytes, at, input.format, c, probe ? std::nan("") : weight);
  }
}


void UserVertexSkinning::State::fill_vertices(Draw& draw, const Scene& scene, const MorphedAttributes& morphed,
                                              const std::vector<uint32_t>& joints,
                                              const std::vector<double>& weights) const {
  const VertexInterface& interface = shader.interface;
  for (const VertexBufferBinding& binding : interface.vertex_buffers)
    draw.vertex_bytes.emplace_back(size_t(draw.padded) * binding.stride, std::byte{0});
  draw.sentinel_slot.assign(draw.vertex_count, false);
  std::array<bool, kMaxSlots> sentinel_slots{};  // influence slots whose joints input has a sentinel
  for (const VertexInput& input : interface.inputs)
    if (input.attribute == VertexAttribute::Joints && input.sentinel)
      for (uint32_t c = 0; c < vertex_format_components(input.format); ++c)
        sentinel_slots[std::min(input.first + c, kMaxSlots - 1)] = true;
  const Primitive& primitive = scene.meshes[size_t(draw.mesh)].primitives[size_t(draw.primitive)];
  for (const VertexInput& input : interface.inputs) {
    const size_t b = size_t(std::find_if(interface.vertex_buffers.begin(), interface.vertex_buffers.end(),
                                         [&](const VertexBufferBinding& x) { return x.binding == input.binding; }) -
                            interface.vertex_buffers.begin());
    std::vector<std::byte>& bytes = draw.vertex_bytes[b];
    const uint32_t components = vertex_format_components(input.format);
    for (uint32_t v = 0; v < draw.vertex_count; ++v) {
      const size_t at = size_t(v) * interface.vertex_buffers[b].stride + input.offset;
      if (input.attribute == VertexAttribute::Joints) {
        put_joints(draw, scene, input, joints, weights, v, bytes, at);
      } else if (input.attribute == VertexAttribute::Weights) {
        put_weights(input, sentinel_slots, weights, v, bytes, at);
      } else {
        const std::array<double, 4> value = attribute_value(input, morphed, primitive, v);
        for (uint32_t c = 0; c < components; ++c) put_vertex_component(bytes, at, input.format, c, value[c]);
      }
    }
  }
}

void UserVertexSkinning::State::fill_blocks(Draw& draw, const Scene& scene, const std::vector<Mat4>& palette) const {
  const VertexInterface& interface = shader.interface;
  const std::optional<JointOffset>& joint_offset = interface.palette.joint_offset;
  const size_t first = joint_offset ? joint_offset->value : 0;  // the skin's first entry in the block
  if (first + palette.size() > interface.palette.joints)
    throw InputError(scene.source, "", "a palette the shader's block holds (" + std::to_string(interface.palette.joints) +
                                           " joints from entry " + std::to_string(first) + ", " + interface.path +
                                           "); node " + std::to_string(draw.node) + "'s skin has " +
                                           std::to_string(palette.size()));
  draw.push_bytes.assign(interface.push_constant_bytes, std::byte{0});
  for (const IdentityMatrix& m : interface.identities)
    if (m.push_constant) put_identity(draw.push_bytes, m.offset, m.format);
  if (joint_offset && joint_offset->push_constant) put_value(draw.push_bytes, joint_offset->offset, joint_offset->value);
  for (const BlockBinding& block : blocks) {
    const auto here = [&](uint32_t set, uint32_t binding) { return block.set == set && block.binding == binding; };
    // NaN guards, the block between them; the palette's unused entries are NaN too (reads past the skin's joints).
    std::vector<std::byte> bytes(guard + block.bytes + guard, std::byte{0});
    // A texel buffer's or an image's texels are NaN wherever the palette is not (unused texels).
    const bool texels = is_texel_descriptor(block.descriptor);
    for (size_t at = 0; at + 4 <= bytes.size(); at += 4)
      if (texels || at < guard || at >= guard + block.bytes) put_value(bytes, at, kQuietNan);
    const size_t base = guard;
    if (here(interface.palette.set, interface.palette.binding)) {
      const size_t entry = palette_entry_bytes(interface.palette.layout);
      for (size_t at = 0; at < size_t(interface.palette.joints) * entry; at += 4)
        put_value(bytes, base + interface.palette.offset + at, kQuietNan);
      for (size_t j = 0; j < palette.size(); ++j)
        put_palette_entry(bytes, base + interface.palette.offset + (first + j) * entry, palette[j],
                          interface.palette.layout);
    }
    if (joint_offset && !joint_offset->push_constant && here(joint_offset->set, joint_offset->binding))
      put_value(bytes, base + joint_offset->offset, joint_offset->value);
    for (const IdentityMatrix& m : interface.identities)
      if (!m.push_constant && here(m.set, m.binding)) put_identity(bytes, base + m.offset, m.format);
    draw.block_bytes.push_back(std::move(bytes));
  }
}

// A block's buffer (a texel buffer's with its view), or a sampled image of its texels between the guards.
void UserVertexSkinning::State::upload_block(Draw& draw, size_t b) {
  ResourceAllocator& resources = context.resources();
  const std::vector<std::byte>& bytes = draw.block_bytes[b];
  draw.texel_views.push_back(VK_NULL_HANDLE);
  draw.images.emplace_back();
  switch (blocks[b].descriptor) {
    case BlockDescriptor::SampledImage: {
      const std::vector<std::byte> texels(bytes.begin() + std::ptrdiff_t(guard),
                                          bytes.begin() + std::ptrdiff_t(guard + blocks[b].bytes));
      draw.block_buffers.emplace_back();  // none: the image holds the texels
      draw.images.back() = upload_palette_image(context, texels, shader.interface.palette.width,
                                                shader.interface.palette.height);
      return;
    }
    case BlockDescriptor::Uniform:
    case BlockDescriptor::Storage:
    case BlockDescriptor::UniformTexelBuffer:
    case BlockDescriptor::StorageTexelBuffer: break;
  }
  const BlockDescriptor kind = blocks[b].descriptor;
  const VkBufferUsageFlags usage = kind == BlockDescriptor::Uniform              ? VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
                                   : kind == BlockDescriptor::Storage            ? VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
                                   : kind == BlockDescriptor::UniformTexelBuffer ? VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT
                                                                                 : VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT;
  Buffer& buffer = draw.block_buffers.emplace_back(resources.create_buffer(bytes.size(), usage, true));
  resources.write(buffer, bytes.data(), bytes.size());
  if (is_texel_descriptor(kind)) draw.texel_views.back() = create_texel_view(context, buffer, guard, blocks[b].bytes);
}

void UserVertexSkinning::State::upload(Draw& draw) {
  ResourceAllocator& resources = context.resources();
  for (const std::vector<std::byte>& bytes : draw.vertex_bytes) {
    Buffer& buffer = draw.vertex_buffers.emplace_back(
        resources.create_buffer(std::max<size_t>(bytes.size(), 16), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true));
    resources.write(buffer, bytes.data(), bytes.size());
  }
  for (size_t b = 0; b < blocks.size(); ++b) upload_block(draw, b);
  draw.capture = resources.create_buffer(size_t(draw.padded) * shader.capture_stride,
                                         VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT, true);
}

namespace {

VkDescriptorType descriptor_type(BlockDescriptor descriptor) {
  switch (descriptor) {
    case BlockDescriptor::Uniform: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case BlockDescriptor::Storage: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case BlockDescriptor::UniformTexelBuffer: return VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    case BlockDescriptor::StorageTexelBuffer: return VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    case BlockDescriptor::SampledImage: return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  }
  return VK_DESCRIPTOR_TYPE_MAX_ENUM;
}

}  // namespace

// A descriptor set layout per set from 0 to the highest the blocks use (an empty one for a set between), and the
// pipeline layout with them and the push constants' range.
void UserVertexSkinning::State::create_layouts() {
  VkDevice device = context.device();
  uint32_t set_count = 0;
  for (const BlockBinding& block : blocks) set_count = std::max(set_count, block.set + 1);
  for (uint32_t set = 0; set < set_count; ++set) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const BlockBinding& block : blocks)
      if (block.set == set) bindings.push_back({block.binding, descriptor_type(block.descriptor), 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr});
    VkDescriptorSetLayoutCreateInfo set_info{};
    set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    set_info.bindingCount = uint32_t(bindings.size());
    set_info.pBindings = bindings.data();
    VK_CHECK(vkCreateDescriptorSetLayout(device, &set_info, nullptr, &set_layouts.emplace_back()));
  }
  const VkPushConstantRange push{VK_SHADER_STAGE_VERTEX_BIT, 0, shader.interface.push_constant_bytes};
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = uint32_t(set_layouts.size());
  layout_info.pSetLayouts = set_layouts.data();
  layout_info.pushConstantRangeCount = push.size > 0 ? 1u : 0u;
  layout_info.pPushConstantRanges = &push;
  VK_CHECK(vkCreatePipelineLayout(device, &layout_info, nullptr, &pipeline_layout));
}

// The descriptor sets, each rewritten per draw.
void UserVertexSkinning::State::allocate_sets() {
  if (set_layouts.empty()) return;
  std::vector<VkDescriptorPoolSize> sizes;
  for (const BlockBinding& block : blocks) sizes.push_back({descriptor_type(block.descriptor), 1});
  VkDescriptorPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.maxSets = uint32_t(set_layouts.size());
  pool_info.poolSizeCount = uint32_t(sizes.size());
  pool_info.pPoolSizes = sizes.data();
  VK_CHECK(vkCreateDescriptorPool(context.device(), &pool_info, nullptr, &pool));
  VkDescriptorSetAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  allocate.descriptorPool = pool;
  allocate.descriptorSetCount = uint32_t(set_layouts.size());
  allocate.pSetLayouts = set_layouts.data();
  sets.resize(set_layouts.size());
  VK_CHECK(vkAllocateDescriptorSets(context.device(), &allocate, sets.data()));
}

// The module, the descriptor layouts of the shader's blocks, a render pass and framebuffer without attachments
// (rasterization is discarded), the pipeline, and the descriptor sets rewritten per draw.
void UserVertexSkinning::State::create_pipeline() {
  VkDevice device = context.device();
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = shader.captured.size() * sizeof(uint32_t);
  module_info.pCode = shader.captured.data();
  VK_CHECK(vkCreateShaderModule(device, &module_info, nullptr, &module));

  create_layouts();
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  VkRenderPassCreateInfo pass_info{};
  pass_info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
  pass_info.subpassCount = 1;
  pass_info.pSubpasses = &subpass;
  VK_CHECK(vkCreateRenderPass(device, &pass_info, nullptr, &render_pass));
  VkFramebufferCreateInfo framebuffer_info{};
  framebuffer_info.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
  framebuffer_info.renderPass = render_pass;
  framebuffer_info.width = framebuffer_info.height = framebuffer_info.layers = 1;
  VK_CHECK(vkCreateFramebuffer(device, &framebuffer_info, nullptr, &framebuffer));
  pipeline = create_graphics_pipeline();

  allocate_sets();
  for (const BlockBinding& block : blocks)
    if (block.descriptor == BlockDescriptor::SampledImage && sampler == VK_NULL_HANDLE)
      sampler = create_nearest_sampler(context);
  if (context.timestamps_supported()) {
    VkQueryPoolCreateInfo query_info{};
    query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = 2;
    VK_CHECK(vkCreateQueryPool(device, &query_info, nullptr, &queries));
  }
  bind_feedback = reinterpret_cast<PFN_vkCmdBindTransformFeedbackBuffersEXT>(
      vkGetDeviceProcAddr(device, "vkCmdBindTransformFeedbackBuffersEXT"));
  begin_feedback = reinterpret_cast<PFN_vkCmdBeginTransformFeedbackEXT>(
      vkGetDeviceProcAddr(device, "vkCmdBeginTransformFeedbackEXT"));
  end_feedback =
      reinterpret_cast<PFN_vkCmdEndTransformFeedbackEXT>(vkGetDeviceProcAddr(device, "vkCmdEndTransformFeedbackEXT"));
  if (!bind_feedback || !begin_feedback || !end_feedback)
    throw GpuError("the device enabled VK_EXT_transform_feedback but gave no vkCmd*TransformFeedbackEXT functions");
}

// The vertex stage alone: the interface's vertex inputs, TRIANGLE_LIST, rasterizer discard (viewport,
// multisample and blend states are then ignored).
VkPipeline UserVertexSkinning::State::create_graphics_pipeline() const {
  const VertexInterface& interface = shader.interface;
  VkPipelineShaderStageCreateInfo stage{};
  stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stage.stage = VK_SHADER_STAGE_VERTEX_BIT;
  stage.module = module;
  stage.pName = interface.entry_point.c_str();
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<std::byte> values(interface.specialization.size() * 4, std::byte{0});
  for (size_t i = 0; i < interface.specialization.size(); ++i) {
    const SpecializationConstant& constant = interface.specialization[i];
    entries.push_back({constant.id, uint32_t(4 * i), 4});
    switch (constant.type) {
      case ConstantType::Bool:
      case ConstantType::Uint: put_value(values, 4 * i, uint32_t(constant.value)); break;
      case ConstantType::Int: put_value(values, 4 * i, int32_t(constant.value)); break;
      case ConstantType::Float: put_float(values, 4 * i, constant.value); break;
    }
  }
  const VkSpecializationInfo specialization{uint32_t(entries.size()), entries.data(), values.size(), values.data()};
  if (!entries.empty()) stage.pSpecializationInfo = &specialization;
  std::vector<VkVertexInputBindingDescription> bindings;
  for (const VertexBufferBinding& b : interface.vertex_buffers)
    bindings.push_back({b.binding, b.stride, VK_VERTEX_INPUT_RATE_VERTEX});
  std::vector<VkVertexInputAttributeDescription> attributes;
  for (const VertexInput& input : interface.inputs)
    attributes.push_back({input.location, input.binding, vulkan_vertex_format(input.format), input.offset});
  VkPipelineVertexInputStateCreateInfo vertex_input{};
  vertex_input.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
  vertex_input.vertexBindingDescriptionCount = uint32_t(bindings.size());
  vertex_input.pVertexBindingDescriptions = bindings.data();
  vertex_input.vertexAttributeDescriptionCount = uint32_t(attributes.size());
  vertex_input.pVertexAttributeDescriptions = attributes.data();
  VkPipelineInputAssemblyStateCreateInfo assembly{};
  assembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineRasterizationStateCreateInfo raster{};
  raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
  raster.rasterizerDiscardEnable = VK_TRUE;
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1.0f;
  VkGraphicsPipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
  info.stageCount = 1;
  info.pStages = &stage;
  info.pVertexInputState = &vertex_input;
  info.pInputAssemblyState = &assembly;
  info.pRasterizationState = &raster;
  info.layout = pipeline_layout;
  info.renderPass = render_pass;
  VkPipeline created = VK_NULL_HANDLE;
  VK_CHECK(vkCreateGraphicsPipelines(context.device(), VK_NULL_HANDLE, 1, &info, nullptr, &created));
  return created;
}

void UserVertexSkinning::State::record(VkCommandBuffer cmd, const Draw& draw) const {
  if (queries != VK_NULL_HANDLE) {
    vkCmdResetQueryPool(cmd, queries, 0, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 0);
  }
  VkRenderPassBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
  begin.renderPass = render_pass;
  begin.framebuffer = framebuffer;
  begin.renderArea.extent = {1, 1};
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  if (!sets.empty())
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout, 0, uint32_t(sets.size()), sets.data(),
                            0, nullptr);
  if (!draw.push_bytes.empty())
    vkCmdPushConstants(cmd, pipeline_layout, VK_SHADER_STAGE_VERTEX_BIT, 0, uint32_t(draw.push_bytes.size()),
                       draw.push_bytes.data());
  const VkDeviceSize zero = 0;
  for (size_t b = 0; b < draw.vertex_buffers.size(); ++b)
    vkCmdBindVertexBuffers(cmd, shader.interface.vertex_buffers[b].binding, 1, &draw.vertex_buffers[b].buffer, &zero);
  const VkDeviceSize capture_bytes = VkDeviceSize(draw.padded) * shader.capture_stride;
  bind_feedback(cmd, 0, 1, &draw.capture.buffer, &zero, &capture_bytes);
  begin_feedback(cmd, 0, 0, nullptr, nullptr);
  vkCmdDraw(cmd, draw.padded, 1, 0, 0);
  end_feedback(cmd, 0, 0, nullptr, nullptr);
  vkCmdEndRenderPass(cmd);
  if (queries != VK_NULL_HANDLE) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 1);
  // The captured vertices made available to the host's reads after the fence.
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_TRANSFORM_FEEDBACK_WRITE_BIT_EXT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFORM_FEEDBACK_BIT_EXT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

UserVertexSkinning::UserVertexSkinning(Context& context, const UserVertexShader& shader, const Scene& scene,
                                       const EvaluatedPose& pose, const SkinningOptions& options)
    : state_(std::make_unique<State>(context, shader)) {
  State& s = *state_;
  if (!context.transform_feedback_supported())
    throw GpuError("the device '" + context.info().name + "' has no VK_EXT_transform_feedback, which a vertex shader's "
                   "outputs are captured with");
  if (options.method != shader.interface.method)
    throw InputError(shader.interface.path, "/method",
                     std::string("the method the run asks for; the shader computes ") +
                         skinning_method_name(shader.interface.method) + ", the run asks for " +
                         skinning_method_name(options.method));
  s.plan_blocks();
  s.create_pipeline();
  const auto start = Clock::now();
  s.plan(scene, pose);
  for (Draw& draw : s.draws)
    if (draw.vertex_count > 0) s.upload(draw);
  s.prepare_time = Clock::now() - start;
}

UserVertexSkinning::~UserVertexSkinning() = default;

void UserVertexSkinning::dispatch() {
  State& s = *state_;
  s.device_ms = 0.0;
  for (Draw& draw : s.draws) {
    if (draw.vertex_count == 0) continue;
    // The previous draw's submission has completed (submit_and_wait), so the set may be rewritten.
    std::vector<VkDescriptorBufferInfo> infos;
    std::vector<VkDescriptorImageInfo> images;
    for (size_t b = 0; b < draw.block_buffers.size(); ++b) {
      infos.push_back({draw.block_buffers[b].buffer, s.guard, s.blocks[b].bytes});
      images.push_back({s.sampler, draw.images[b].view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL});
    }
    std::vector<VkWriteDescriptorSet> writes;
    for (size_t b = 0; b < s.blocks.size(); ++b) {
      VkWriteDescriptorSet write{};
      write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      write.dstSet = s.sets[s.blocks[b].set];
      write.dstBinding = s.blocks[b].binding;
      write.descriptorCount = 1;
      write.descriptorType = descriptor_type(s.blocks[b].descriptor);
      switch (s.blocks[b].descriptor) {
        case BlockDescriptor::Uniform:
        case BlockDescriptor::Storage: write.pBufferInfo = &infos[b]; break;
        case BlockDescriptor::UniformTexelBuffer:
        case BlockDescriptor::StorageTexelBuffer: write.pTexelBufferView = &draw.texel_views[b]; break;
        case BlockDescriptor::SampledImage: write.pImageInfo = &images[b]; break;
      }
      writes.push_back(write);
    }
    if (!writes.empty()) vkUpdateDescriptorSets(s.context.device(), uint32_t(writes.size()), writes.data(), 0, nullptr);
    // The capture starts zeroed, so an output the shader never writes reads back as 0 on every run.
    const std::vector<std::byte> zeros(size_t(draw.padded) * s.shader.capture_stride, std::byte{0});
    s.context.resources().write(draw.capture, zeros.data(), zeros.size());
    s.context.submit_and_wait([&](VkCommandBuffer cmd) { s.record(cmd, draw); });
    if (s.queries != VK_NULL_HANDLE) {
      uint64_t stamps[2] = {0, 0};
      VK_CHECK(vkGetQueryPoolResults(s.context.device(), s.queries, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
      const uint64_t ticks = (stamps[1] - stamps[0]) & s.context.timestamp_mask();
      s.device_ms += double(ticks) * s.context.timestamp_period_ns() * 1e-6;
    }
    draw.captured.resize(zeros.size());
    s.context.resources().read(draw.capture, draw.captured.data(), draw.captured.size());
    s.name_sentinel_reads(draw);
  }
  s.dispatched = true;
}

double UserVertexSkinning::device_ms() const { return state_->dispatched ? state_->device_ms : 0.0; }

double UserVertexSkinning::prepare_ms() const {
  return std::chrono::duration<double, std::milli>(state_->prepare_time).count();
}

double UserVertexSkinning::traffic_bytes() const {
  double bytes = 0.0;
  for (const Draw& draw : state_->draws) {
    for (const std::vector<std::byte>& b : draw.vertex_bytes) bytes += double(b.size());
    for (const std::vector<std::byte>& b : draw.block_bytes) bytes += double(b.size() - 2 * state_->guard);
    bytes += double(draw.padded) * state_->shader.capture_stride;
  }
  return bytes;
}

namespace {

// xyz of a captured vector normalized as an engine's fragment shader does, in float32 (zero stays zero).
Vec3 captured_unit(const std::vector<std::byte>& captured, size_t at) {
  const float x = float(get_float(captured, at)), y = float(get_float(captured, at + 4)),
              z = float(get_float(captured, at + 8));
  const float length = std::sqrt(x * x + y * y + z * z);
  return length > 0.0f ? Vec3(x / length, y / length, z / length) : Vec3(x, y, z);
}

}  // namespace

std::vector<WorldPrimitive> UserVertexSkinning::read_back() const {
  const State& s = *state_;
  if (!s.dispatched) throw std::logic_error("UserVertexSkinning::read_back: nothing has been dispatched yet");
  std::vector<WorldPrimitive> result;
  result.reserve(s.draws.size());
  for (const Draw& draw : s.draws) {
    WorldPrimitive& out = result.emplace_back();
    out.node = draw.node, out.mesh = draw.mesh, out.primitive = draw.primitive, out.skinned = draw.skinned;
    out.vertices.positions.resize(draw.vertex_count);
    if (draw.has_normals) out.vertices.normals.resize(draw.vertex_count);
    if (draw.has_tangents) out.vertices.tangents.resize(draw.vertex_count);
    for (uint32_t v = 0; v < draw.vertex_count; ++v) {
      const size_t at = size_t(v) * s.shader.capture_stride;
      out.vertices.positions[v] =
          Vec3(get_float(draw.captured, at), get_float(draw.captured, at + 4), get_float(draw.captured, at + 8));
      if (draw.has_normals) out.vertices.normals[v] = captured_unit(draw.captured, at + 16);
      if (draw.has_tangents) {
        const Vec3 tangent = captured_unit(draw.captured, at + 32);
        out.vertices.tangents[v] = Vec4(tangent.x(), tangent.y(), tangent.z(), get_float(draw.captured, at + 44));
      }
    }
  }
  return result;
}

}  // namespace skinref::gpu

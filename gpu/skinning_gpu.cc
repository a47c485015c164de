// Compute skinning (skinning_gpu.h). Every drawn primitive of the scene goes into one set of arrays (float32,
// vec4-padded attributes, uint joints, float weights, morph deltas of the targets with non-zero weight), one
// palette array holds every skin's palette and one entry per rigid node, and one descriptor set binds them
// all; each primitive is one dispatch of gpu/shaders/skin.comp (more than one when it has more work groups
// than the device allows in x) whose push constants say where its data start.
//
// The steps: plan (the arrays and dispatches on the host, PlanBuilder), layout (one aligned section per
// binding), pipelines, upload (staging -> device-local, its own submission), then per dispatch() one
// submission of the dispatches bracketed by timestamps and the copy of the results into a host-visible
// buffer, with a barrier on every hop, and read_back() on demand.
// GpuTiming::end_to_end_ms covers the conversion of the inputs to float32, buffer creation, upload, dispatch,
// readback and the conversion back to doubles; the shader, pipelines and layouts are one-time set-up that an
// application creates once, so their creation is left out.
#include "gpu/skinning_gpu.h"

#include "core/input_error.h"
#include "gpu/compute.h"
#include "skin/dqs.h"
#include "skin_comp.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

namespace skinref::gpu {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kLocalSize = 64;  // local_size_x of skin.comp
constexpr uint32_t kNone = 0xFFFFFFFFu;

// skin.comp's flags.
constexpr uint32_t kHasNormals = 1u;
constexpr uint32_t kHasTangents = 2u;
constexpr uint32_t kRenormalize = 4u;
constexpr uint32_t kBlendNormalMatrices = 8u;
constexpr uint32_t kRigid = 16u;

// skin.comp's bindings, in order.
enum Binding : uint32_t {
  kPositions,
  kNormals,
  kTangents,
  kJoints,
  kWeights,
  kTargets,
  kDeltas,
  kPalette,
  kNormalRows,
  kDualQuaternions,
  kOutPositions,
  kOutNormals,
  kOutTangents,
  kBindingCount
};
constexpr uint32_t kFirstOutput = kOutPositions;

struct PushConstants {
  uint32_t vertex_offset = 0;
  uint32_t vertex_count = 0;
  uint32_t first_vertex = 0;
  uint32_t influences = 0;
  uint32_t influence_offset = 0;
  uint32_t palette_offset = 0;
  uint32_t target_offset = 0;
  uint32_t target_count = 0;
  uint32_t flags = 0;
};

// skin.comp's specialization constant 0: which method its pipeline runs.
uint32_t shader_variant(SkinningMethod method) {
  const SkinningMethodDescriptor descriptor = skinning_method_descriptor(method);
  if (!descriptor.name) throw std::invalid_argument("gpu skinning: not a SkinningMethod");
  return descriptor.shader_method;
}

// One primitive's run of skin.comp.
struct Dispatch {
  SkinningMethod method = kRigidNodeMethod;
  PushConstants push;
};

// The float32 arrays skin.comp reads, one per input binding, as 32-bit words.
struct HostInputs {
  std::array<std::vector<uint32_t>, kFirstOutput> words;

  void push_float(Binding b, double value) { words[b].push_back(std::bit_cast<uint32_t>(static_cast<float>(value))); }
  void push_vec4(Binding b, double x, double y, double z, double w) {
    push_float(b, x);
    push_float(b, y);
    push_float(b, z);
    push_float(b, w);
  }
};

// A palette matrix split as the reference's DQS splits it (split_dqs_joint), written as five vec4: real
// (x, y, z, w), dual (x, y, z, w), the rows of S.
void push_dual_quaternion(const Mat4& jm, HostInputs& inputs) {
  const DqsJointSplit split = split_dqs_joint(jm);
  inputs.push_vec4(kDualQuaternions, split.real[0], split.real[1], split.real[2], split.real[3]);
  inputs.push_vec4(kDualQuaternions, split.dual[0], split.dual[1], split.dual[2], split.dual[3]);
  for (int r = 0; r < 3; ++r) inputs.push_vec4(kDualQuaternions, split.s(r, 0), split.s(r, 1), split.s(r, 2), 0.0);
}

// One palette entry: JM's top three rows (its bottom row is 0 0 0 1), then its normal matrix as three rows.
// Rows of four, not columns of three: each is one 16-byte load with every lane used (skin.comp).
void push_palette_entry(const Mat4& jm, const Mat3& normal, HostInputs& inputs) {
  for (int r = 0; r < 3; ++r) inputs.push_vec4(kPalette, jm(r, 0), jm(r, 1), jm(r, 2), jm(r, 3));
  for (int r = 0; r < 3; ++r) inputs.push_vec4(kNormalRows, normal(r, 0), normal(r, 1), normal(r, 2), 0.0);
}

uint32_t checked_u32(size_t value, const Scene& scene, const char* what) {
  if (value >= kNone)
    throw InputError(scene.source, "", std::string("the GPU path indexes ") + what + " with 32-bit integers; got " +
                                           std::to_string(value));
  return static_cast<uint32_t>(value);
}

// One primitive of the result: which one it is and what it holds; read_back() fills in the values.
struct OutputPrimitive {
  int node = -1, mesh = -1, primitive = -1;
  bool skinned = false;
  size_t vertex_count = 0;
  bool has_normals = false, has_tangents = false;
};

// Everything the host prepares before any Vulkan call.
struct SkinningPlan {
  std::vector<OutputPrimitive> primitives;  // evaluate_vertices() order
  std::vector<Dispatch> dispatches;         // the primitives with vertices, in the same order
  HostInputs inputs;
  bool any_normals = false, any_tangents = false;
  size_t vertex_total = 0;
};

// The sizes of the input arrays, counted before anything is pushed so that each array is allocated once (a
// million vertices are tens of millions of words).
struct InputCounts {
  bool any_normals = false, any_tangents = false;
  size_t vertices = 0, influences = 0, deltas = 0, targets = 0, rigid_nodes = 0;
};

InputCounts count_inputs(const Scene& scene, const EvaluatedPose& pose, const std::vector<int>& drawn) {
  InputCounts counts;
  for (int n : drawn) {
    const Node& node = scene.nodes[size_t(n)];
    counts.rigid_nodes += node.skin < 0 ? 1 : 0;
    const std::vector<double>& morph_weights = pose.local.morph_weights.at(size_t(n));
    for (const Primitive& prim : scene.meshes[size_t(node.mesh)].primitives) {
      counts.any_normals = counts.any_normals || !prim.normals.empty();
      counts.any_tangents = counts.any_tangents || !prim.tangents.empty();
      counts.vertices += prim.vertex_count();
      if (node.skin >= 0) counts.influences += prim.joints.size();
      for (size_t t = 0; t < prim.targets.size() && t < morph_weights.size(); ++t) {
        if (morph_weights[t] == 0.0) continue;
        ++counts.targets;
        counts.deltas += prim.targets[t].position_deltas.size() + prim.targets[t].normal_deltas.size() +
                         prim.targets[t].tangent_deltas.size();
      }
    }
  }
  return counts;
}

// Builds the SkinningPlan: the skins' palettes first, then per drawn node its rigid palette entry (if rigid)
// and per primitive its dispatch and its data.
class PlanBuilder {
 public:
  PlanBuilder(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options)
      : scene_(scene), pose_(pose), options_(options) {}

  SkinningPlan build() {
    push_skin_palettes();
    const std::vector<int> drawn = drawn_nodes(scene_);
    reserve(count_inputs(scene_, pose_, drawn));
    for (int n : drawn) plan_node(n);
    checked_u32(plan_.vertex_total, scene_, "vertices");
    return std::move(plan_);
  }

 private:
  HostInputs& in() { return plan_.inputs; }
  // The dual quaternion array is filled only when the method blends dual quaternions.
  bool needs_dual_quaternions() const {
    const SkinningMethodDescriptor method = skinning_method_descriptor(options_.method);
    if (!method.name) throw std::invalid_argument("gpu skinning: not a SkinningMethod");
    switch (method.palette) {
      case PaletteBlend::Matrices: return false;
      case PaletteBlend::DualQuaternions: return true;
    }
    return false;
  }

  // Every skin's palette, converted from the reference's doubles.
  void push_skin_palettes() {
    skin_palette_offset_.resize(scene_.skins.size());
    for (size_t s = 0; s < scene_.skins.size(); ++s) {
      const JointPalette& palette = pose_.palettes.at(s);
      skin_palette_offset_[s] = checked_u32(palette_entries_, scene_, "palette entries");
      for (size_t j = 0; j < palette.skinning.size(); ++j) {
        push_palette_entry(palette.skinning[j], palette.normal[j], in());
        if (needs_dual_quaternions()) push_dual_quaternion(palette.skinning[j], in());
      }
      palette_entries_ += palette.skinning.size();
    }
  }

  void reserve(const InputCounts& counts) {
    plan_.any_normals = counts.any_normals;
    plan_.any_tangents = counts.any_tangents;
    std::array<std::vector<uint32_t>, kFirstOutput>& words = in().words;
    words[kPositions].reserve(4 * counts.vertices);
    if (counts.any_normals) words[kNormals].reserve(4 * counts.vertices);
    if (counts.any_tangents) words[kTangents].reserve(4 * counts.vertices);
    words[kJoints].reserve(counts.influences);
    words[kWeights].reserve(counts.influences);
    words[kTargets].reserve(4 * counts.targets);
    words[kDeltas].reserve(4 * counts.deltas);
    words[kPalette].reserve(words[kPalette].size() + 12 * counts.rigid_nodes);
    words[kNormalRows].reserve(words[kNormalRows].size() + 12 * counts.rigid_nodes);
  }

  void plan_node(int n) {
    const Node& node = scene_.nodes[size_t(n)];
    const bool skinned = node.skin >= 0;
    uint32_t palette_offset = 0;
    uint32_t palette_size = 1;
    if (skinned) {
      palette_offset = skin_palette_offset_[size_t(node.skin)];
      palette_size = checked_u32(pose_.palettes.at(size_t(node.skin)).skinning.size(), scene_, "joints");
    } else {
      palette_offset = push_rigid_palette_entry(n);
    }
    const Mesh& mesh = scene_.meshes[size_t(node.mesh)];
    for (size_t p = 0; p < mesh.primitives.size(); ++p) plan_primitive(n, int(p), palette_offset, palette_size);
  }

  // A rigid node: one palette entry, its global matrix, with weight 1 (as evaluate_vertices does).
  uint32_t push_rigid_palette_entry(int n) {
    const Mat4& global = pose_.model.global[size_t(n)];
    const uint32_t offset = checked_u32(palette_entries_, scene_, "palette entries");
    push_palette_entry(global, normal_matrix(global.topLeftCorner<3, 3>()), in());
    if (needs_dual_quaternions())  // unused (rigid nodes: kRigidNodeMethod, LBS) but indexes it like the palette
      for (int e = 0; e < 5; ++e) in().push_vec4(kDualQuaternions, 0.0, 0.0, 0.0, 0.0);
    ++palette_entries_;
    return offset;
  }

  void plan_primitive(int n, int p, uint32_t palette_offset, uint32_t palette_size) {
    const Node& node = scene_.nodes[size_t(n)];
    const Primitive& prim = scene_.meshes[size_t(node.mesh)].primitives[size_t(p)];
    const bool skinned = node.skin >= 0;
    const size_t count = prim.vertex_count();
    plan_.primitives.push_back(
        OutputPrimitive{n, node.mesh, p, skinned, count, !prim.normals.empty(), !prim.tangents.empty()});

    Dispatch d;
    d.method = skinned ? options_.method : kRigidNodeMethod;
    d.push.vertex_offset = checked_u32(plan_.vertex_total, scene_, "vertices");
    d.push.vertex_count = checked_u32(count, scene_, "vertices");
    d.push.palette_offset = palette_offset;
    d.push.flags = (prim.normals.empty() ? 0u : kHasNormals) | (prim.tangents.empty() ? 0u : kHasTangents) |
                   (options_.weights == WeightPolicy::Renormalize ? kRenormalize : 0u) |
                   (options_.normals == NormalMode::BlendedNormalMatrices ? kBlendNormalMatrices : 0u) |
                   (skinned ? 0u : kRigid);
    if (skinned) push_influences(prim, palette_size, d.push);
    push_morph_targets(prim, pose_.local.morph_weights.at(size_t(n)), d.push);
    push_attributes(prim);
    plan_.vertex_total += count;
    if (count > 0) plan_.dispatches.push_back(d);
  }

  void push_influences(const Primitive& prim, uint32_t palette_size, PushConstants& push) {
    const size_t k = size_t(prim.influences_per_vertex);
    const size_t count = prim.vertex_count();
    if (k < 1 || prim.joints.size() != count * k || prim.weights.size() != count * k)
      throw std::invalid_argument("gpu_evaluate_vertices: inconsistent influence sizes");
    for (uint32_t j : prim.joints)
      if (j >= palette_size) throw std::invalid_argument("gpu_evaluate_vertices: joint index outside the palette");
    push.influences = checked_u32(k, scene_, "influences");
    push.influence_offset = checked_u32(in().words[kJoints].size(), scene_, "influences");
    in().words[kJoints].insert(in().words[kJoints].end(), prim.joints.begin(), prim.joints.end());
    for (double w : prim.weights) in().push_float(kWeights, w);
  }

  // Only targets with a non-zero weight contribute (the reference skips the others too).
  void push_morph_targets(const Primitive& prim, const std::vector<double>& morph_weights, PushConstants& push) {
    push.target_offset = checked_u32(in().words[kTargets].size() / 4, scene_, "morph targets");
    for (size_t t = 0; t < prim.targets.size() && t < morph_weights.size(); ++t) {
      if (morph_weights[t] == 0.0) continue;
      const MorphTarget& target = prim.targets[t];
      in().words[kTargets].push_back(push_deltas(target.position_deltas, true));
      in().words[kTargets].push_back(push_deltas(target.normal_deltas, !prim.normals.empty()));
      in().words[kTargets].push_back(push_deltas(target.tangent_deltas, !prim.tangents.empty()));
      in().words[kTargets].push_back(std::bit_cast<uint32_t>(static_cast<float>(morph_weights[t])));
      ++push.target_count;
    }
  }

  // One target's deltas of one attribute; their offset in vec4, or kNone when absent or unused.
  uint32_t push_deltas(const std::vector<Vec3>& deltas, bool used) {
    if (deltas.empty() || !used) return kNone;
    const uint32_t offset = checked_u32(in().words[kDeltas].size() / 4, scene_, "morph deltas");
    for (const Vec3& delta : deltas) in().push_vec4(kDeltas, delta.x(), delta.y(), delta.z(), 0.0);
    return offset;
  }

  // Bind positions, normals and tangents; an attribute some other primitive has is zero-filled here so that
  // every array is indexed by the same vertex offset.
  void push_attributes(const Primitive& prim) {
    const size_t count = prim.vertex_count();
    for (const Vec3& position : prim.positions)
      in().push_vec4(kPositions, position.x(), position.y(), position.z(), 1.0);
    if (plan_.any_normals) {
      if (prim.normals.empty()) in().words[kNormals].resize(in().words[kNormals].size() + 4 * count, 0u);
      for (const Vec3& normal : prim.normals) in().push_vec4(kNormals, normal.x(), normal.y(), normal.z(), 0.0);
    }
    if (plan_.any_tangents) {
      if (prim.tangents.empty()) in().words[kTangents].resize(in().words[kTangents].size() + 4 * count, 0u);
      for (const Vec4& tangent : prim.tangents)
        in().push_vec4(kTangents, tangent.x(), tangent.y(), tangent.z(), tangent.w());
    }
  }

  const Scene& scene_;
  const EvaluatedPose& pose_;
  const SkinningOptions& options_;
  SkinningPlan plan_;
  std::vector<uint32_t> skin_palette_offset_;
  size_t palette_entries_ = 0;
};

// The two device buffers (inputs, outputs): one section per binding, each aligned for storage buffers.
struct BufferLayout {
  std::array<VkDeviceSize, kBindingCount> offset{}, size{};
  VkDeviceSize input_size = 0, output_size = 0;
};

BufferLayout layout_buffers(const VkPhysicalDeviceLimits& limits, const Scene& scene, const SkinningPlan& plan) {
  const VkDeviceSize alignment = std::max<VkDeviceSize>(16, limits.minStorageBufferOffsetAlignment);
  auto align = [&](VkDeviceSize value) { return (value + alignment - 1) / alignment * alignment; };
  BufferLayout layout;
  for (uint32_t b = 0; b < kBindingCount; ++b) {
    const VkDeviceSize bytes =
        b < kFirstOutput ? plan.inputs.words[b].size() * sizeof(uint32_t)
        : (b == kOutPositions || (b == kOutNormals && plan.any_normals) || (b == kOutTangents && plan.any_tangents))
            ? VkDeviceSize(plan.vertex_total) * 4 * sizeof(float)
            : 0;
    // An array no primitive uses is still bound (a descriptor needs a non-empty range): 16 bytes, never read.
    layout.size[b] = std::max<VkDeviceSize>(bytes, 16);
    if (layout.size[b] > limits.maxStorageBufferRange)
      throw InputError(scene.source, "",
                       "the GPU skinning array for binding " + std::to_string(b) + " needs " +
                           std::to_string(layout.size[b]) + " bytes, over the device's maxStorageBufferRange of " +
                           std::to_string(limits.maxStorageBufferRange));
    VkDeviceSize& total = b < kFirstOutput ? layout.input_size : layout.output_size;
    layout.offset[b] = total;
    total = align(total + layout.size[b]);
  }
  return layout;
}

// The buffers of one GpuSkinning, destroyed whatever happens (an exception included).
struct Buffers {
  Context& context;
  Buffer staging, input, output, readback;

  explicit Buffers(Context& c) : context(c) {}
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    for (Buffer* buffer : {&readback, &output, &input, &staging})
      if (buffer->buffer != VK_NULL_HANDLE) context.resources().destroy(*buffer);
  }
};

}  // namespace

struct GpuSkinning::State {
  Context& context;
  SkinningPlan plan;
  BufferLayout layout;
  std::optional<ComputeProgram> program;  // none when no primitive has vertices
  Buffers buffers;
  Clock::duration prepare_time{};
  bool dispatched = false;
  double dispatch_ms = 0.0;  // the last dispatch()'s device time

  explicit State(Context& c) : context(c), buffers(c) {}

  void create_program();
  void upload();
  void record(VkCommandBuffer cmd);
  void record_busy_passes(VkCommandBuffer cmd, int passes);
  void record_dispatches(VkCommandBuffer cmd);
  void record_copy_to_readback(VkCommandBuffer cmd) const;
  std::vector<WorldPrimitive> read_back() const;
};

// Pipelines for the methods the dispatches use: one-time set-up, left out of the end-to-end time.
void GpuSkinning::State::create_program() {
  program.emplace(context, std::span<const uint32_t>(k_skin_comp), kBindingCount, sizeof(PushConstants));
  for (const Dispatch& d : plan.dispatches) program->prepare(shader_variant(d.method));
}

// Buffers, the inputs written to staging, the descriptor set, and the copy to device-local memory.
void GpuSkinning::State::upload() {
  buffers.staging = context.resources().create_buffer(layout.input_size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
  buffers.input = context.resources().create_buffer(
      layout.input_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
  buffers.output = context.resources().create_buffer(
      layout.output_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false);
  buffers.readback = context.resources().create_buffer(layout.output_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  const HostInputs& in = plan.inputs;
  for (uint32_t b = 0; b < kFirstOutput; ++b)
    if (!in.words[b].empty())
      context.resources().write(buffers.staging, in.words[b].data(), in.words[b].size() * sizeof(uint32_t), layout.offset[b]);

  std::array<VkDescriptorBufferInfo, kBindingCount> bound{};
  for (uint32_t b = 0; b < kBindingCount; ++b)
    bound[b] = VkDescriptorBufferInfo{b < kFirstOutput ? buffers.input.buffer : buffers.output.buffer,
                                      layout.offset[b], layout.size[b]};
  program->bind_buffers(bound);

  context.submit_and_wait([&](VkCommandBuffer cmd) {
    const VkBufferCopy copy{0, 0, layout.input_size};
    vkCmdCopyBuffer(cmd, buffers.staging.buffer, buffers.input.buffer, 1, &copy);
  });
}

void GpuSkinning::State::record(VkCommandBuffer cmd) {
  // The upload was a separate submission, waited for by its fence; this barrier makes its transfer writes
  // visible to the shader reads of this one.
  record_buffer_barrier(cmd, buffers.input.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
  program->record_start(cmd);
  record_dispatches(cmd);
  program->record_end(cmd);
  record_copy_to_readback(cmd);
}

void GpuSkinning::State::record_busy_passes(VkCommandBuffer cmd, int passes) {
  record_buffer_barrier(cmd, buffers.input.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
  // An earlier dispatch()'s copy for read-back reads the outputs these passes write.
  record_buffer_barrier(cmd, buffers.output.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
  program->record_start(cmd);
  for (int pass = 0; pass < passes; ++pass) {
    if (pass > 0)
      record_buffer_barrier(cmd, buffers.output.buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    record_dispatches(cmd);
  }
  program->record_end(cmd);
}

void GpuSkinning::State::record_dispatches(VkCommandBuffer cmd) {
  const uint32_t max_groups = context.limits().maxComputeWorkGroupCount[0];
  std::optional<SkinningMethod> bound;
  for (const Dispatch& d : plan.dispatches) {
    if (d.method != bound) {
      program->bind(cmd, shader_variant(d.method));
      bound = d.method;
    }
    // A primitive with more work groups than the device allows in x is split into several dispatches.
    const uint64_t groups = (uint64_t(d.push.vertex_count) + kLocalSize - 1) / kLocalSize;
    for (uint64_t first_group = 0; first_group < groups; first_group += max_groups) {
      PushConstants push = d.push;
      push.first_vertex = static_cast<uint32_t>(first_group * kLocalSize);
      program->push(cmd, &push, sizeof(push));
      vkCmdDispatch(cmd, static_cast<uint32_t>(std::min<uint64_t>(groups - first_group, max_groups)), 1, 1);
    }
  }
}

void GpuSkinning::State::record_copy_to_readback(VkCommandBuffer cmd) const {
  record_buffer_barrier(cmd, buffers.output.buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  const VkBufferCopy copy{0, 0, layout.output_size};
  vkCmdCopyBuffer(cmd, buffers.output.buffer, buffers.readback.buffer, 1, &copy);
  record_buffer_barrier(cmd, buffers.readback.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

// The readback buffer's float32 vec4 sections back into WorldPrimitive, in plan order.
std::vector<WorldPrimitive> GpuSkinning::State::read_back() const {
  std::vector<WorldPrimitive> result;
  result.reserve(plan.primitives.size());
  for (const OutputPrimitive& shape : plan.primitives) {
    WorldPrimitive& out = result.emplace_back();
    out.node = shape.node;
    out.mesh = shape.mesh;
    out.primitive = shape.primitive;
    out.skinned = shape.skinned;
    out.vertices.positions.resize(shape.vertex_count);
    out.vertices.normals.resize(shape.has_normals ? shape.vertex_count : 0);
    out.vertices.tangents.resize(shape.has_tangents ? shape.vertex_count : 0);
  }
  if (plan.dispatches.empty()) return result;  // nothing was run: every primitive is empty

  std::vector<float> values(plan.vertex_total * 4);
  auto read_section = [&](Binding b) {
    context.resources().read(buffers.readback, values.data(), VkDeviceSize(values.size()) * sizeof(float), layout.offset[b]);
  };
  auto vec3_at = [&](size_t v) { return Vec3(values[v * 4], values[v * 4 + 1], values[v * 4 + 2]); };
  read_section(kOutPositions);
  size_t base = 0;
  for (WorldPrimitive& out : result) {
    for (size_t v = 0; v < out.vertices.positions.size(); ++v) out.vertices.positions[v] = vec3_at(base + v);
    base += out.vertices.positions.size();
  }
  if (plan.any_normals) {
    read_section(kOutNormals);
    base = 0;
    for (WorldPrimitive& out : result) {
      for (size_t v = 0; v < out.vertices.normals.size(); ++v) out.vertices.normals[v] = vec3_at(base + v);
      base += out.vertices.positions.size();
    }
  }
  if (plan.any_tangents) {
    read_section(kOutTangents);
    base = 0;
    for (WorldPrimitive& out : result) {
      for (size_t v = 0; v < out.vertices.tangents.size(); ++v) {
        const float* t = &values[(base + v) * 4];
        out.vertices.tangents[v] = Vec4(t[0], t[1], t[2], t[3]);
      }
      base += out.vertices.positions.size();
    }
  }
  return result;
}

GpuSkinning::GpuSkinning(Context& context, const Scene& scene, const EvaluatedPose& pose,
                         const SkinningOptions& options)
    : state_(std::make_unique<State>(context)) {
  State& s = *state_;
  const auto start = Clock::now();
  s.plan = PlanBuilder(scene, pose, options).build();
  if (s.plan.dispatches.empty()) {
    s.prepare_time = Clock::now() - start;
    return;
  }
  s.layout = layout_buffers(context.limits(), scene, s.plan);
  const Clock::duration plan_time = Clock::now() - start;
  s.create_program();
  const auto upload_start = Clock::now();
  s.upload();
  s.prepare_time = plan_time + (Clock::now() - upload_start);
}

GpuSkinning::~GpuSkinning() = default;

void GpuSkinning::dispatch() {
  State& s = *state_;
  // submit_and_wait() returns after the fence: a later dispatch's writes to the output and readback buffers
  // start only after this one's reads of them have finished.
  if (!s.plan.dispatches.empty()) {
    s.context.submit_and_wait([&](VkCommandBuffer cmd) { s.record(cmd); });
    // Read now: busy_pass_ms() reuses the timestamps.
    s.dispatch_ms = s.program->elapsed_ms();
  }
  s.dispatched = true;
}

double GpuSkinning::device_ms() const { return state_->dispatch_ms; }

double GpuSkinning::busy_pass_ms(int passes) {
  if (passes < 1) throw std::invalid_argument("GpuSkinning::busy_pass_ms: passes must be >= 1");
  State& s = *state_;
  if (s.plan.dispatches.empty() || !s.program) return 0.0;
  s.context.submit_and_wait([&](VkCommandBuffer cmd) { s.record_busy_passes(cmd, passes); });
  return s.program->elapsed_ms() / passes;
}

double GpuSkinning::prepare_ms() const {
  return std::chrono::duration<double, std::milli>(state_->prepare_time).count();
}

std::vector<WorldPrimitive> GpuSkinning::read_back() const {
  if (!state_->dispatched) throw std::logic_error("GpuSkinning::read_back: nothing has been dispatched yet");
  return state_->read_back();
}

std::vector<WorldPrimitive> gpu_evaluate_vertices(Context& context, const Scene& scene, const EvaluatedPose& pose,
                                                  const SkinningOptions& options, GpuTiming* timing) {
  GpuSkinning skinning(context, scene, pose, options);
  const auto start = Clock::now();
  skinning.dispatch();
  std::vector<WorldPrimitive> result = skinning.read_back();
  if (timing) {
    timing->device_ms = skinning.device_ms();
    timing->end_to_end_ms =
        skinning.prepare_ms() + std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }
  return result;
}

}  // namespace skinref::gpu

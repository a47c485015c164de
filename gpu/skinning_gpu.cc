// Compute skinning (skinning_gpu.h). Every drawn primitive of the scene goes into one set of arrays (float32,
// vec4-padded attributes, uint joints, float weights, morph deltas of the targets with non-zero weight), one
// palette array holds every skin's palette and one entry per rigid node, and one descriptor set binds them
// all; each primitive is one dispatch of gpu/shaders/skin.comp (more than one when it has more work groups
// than the device allows in x) whose push constants say where its data start. Two submissions: the upload
// (staging -> device-local), then the dispatches bracketed by timestamps and the copy of the results into a
// host-visible buffer, with a barrier on every hop.
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
#include <stdexcept>
#include <string>

namespace skinref::gpu {
namespace {

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

struct Dispatch {
  bool dqs = false;
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

// One palette entry: JM column-major, then its normal matrix as three rows.
void push_palette_entry(const Mat4& jm, const Mat3& normal, HostInputs& inputs) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) inputs.push_float(kPalette, jm(r, c));
  for (int r = 0; r < 3; ++r) inputs.push_vec4(kNormalRows, normal(r, 0), normal(r, 1), normal(r, 2), 0.0);
}

uint32_t checked_u32(size_t value, const Scene& scene, const char* what) {
  if (value >= kNone)
    throw InputError(scene.source, "", std::string("the GPU path indexes ") + what + " with 32-bit integers; got " +
                                           std::to_string(value));
  return static_cast<uint32_t>(value);
}

// The buffers of one call, destroyed whatever happens (an exception included).
struct Buffers {
  Context& context;
  Buffer staging, input, output, readback;

  explicit Buffers(Context& c) : context(c) {}
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    for (Buffer* buffer : {&readback, &output, &input, &staging})
      if (buffer->buffer != VK_NULL_HANDLE) context.destroy(*buffer);
  }
};

}  // namespace

std::vector<WorldPrimitive> gpu_evaluate_vertices(Context& context, const Scene& scene, const EvaluatedPose& pose,
                                                  const SkinningOptions& options, GpuTiming* timing) {
  using Clock = std::chrono::steady_clock;
  const bool dqs_method = options.method == SkinningMethod::Dqs;

  // ---- gather: the primitives in evaluate_vertices order, their data in float32 ----------------------------
  const auto start = Clock::now();
  std::vector<WorldPrimitive> result;
  std::vector<Dispatch> dispatches;
  HostInputs in;

  // Every skin's palette (converted from the reference's doubles), then one entry per rigid node.
  std::vector<uint32_t> skin_palette_offset(scene.skins.size());
  size_t palette_entries = 0;
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const JointPalette& palette = pose.palettes.at(s);
    skin_palette_offset[s] = checked_u32(palette_entries, scene, "palette entries");
    for (size_t j = 0; j < palette.skinning.size(); ++j) {
      push_palette_entry(palette.skinning[j], palette.normal[j], in);
      if (dqs_method) push_dual_quaternion(palette.skinning[j], in);
    }
    palette_entries += palette.skinning.size();
  }

  // Which attributes appear at all, and the arrays' sizes, so that each is allocated once (a million vertices
  // are tens of millions of words).
  const std::vector<int> drawn = drawn_nodes(scene);
  bool any_normals = false, any_tangents = false;
  size_t vertex_count = 0, influence_count = 0, delta_count = 0, target_count = 0, rigid_count = 0;
  for (int n : drawn) {
    const Node& node = scene.nodes[size_t(n)];
    rigid_count += node.skin < 0 ? 1 : 0;
    const std::vector<double>& morph_weights = pose.local.morph_weights.at(size_t(n));
    for (const Primitive& prim : scene.meshes[size_t(node.mesh)].primitives) {
      any_normals = any_normals || !prim.normals.empty();
      any_tangents = any_tangents || !prim.tangents.empty();
      vertex_count += prim.vertex_count();
      if (node.skin >= 0) influence_count += prim.joints.size();
      for (size_t t = 0; t < prim.targets.size() && t < morph_weights.size(); ++t) {
        if (morph_weights[t] == 0.0) continue;
        ++target_count;
        delta_count += prim.targets[t].position_deltas.size() + prim.targets[t].normal_deltas.size() +
                       prim.targets[t].tangent_deltas.size();
      }
    }
  }
  in.words[kPositions].reserve(4 * vertex_count);
  if (any_normals) in.words[kNormals].reserve(4 * vertex_count);
  if (any_tangents) in.words[kTangents].reserve(4 * vertex_count);
  in.words[kJoints].reserve(influence_count);
  in.words[kWeights].reserve(influence_count);
  in.words[kTargets].reserve(4 * target_count);
  in.words[kDeltas].reserve(4 * delta_count);
  in.words[kPalette].reserve(in.words[kPalette].size() + 16 * rigid_count);
  in.words[kNormalRows].reserve(in.words[kNormalRows].size() + 12 * rigid_count);
  size_t vertex_total = 0;

  for (int n : drawn) {
    const Node& node = scene.nodes[size_t(n)];
    const Mesh& mesh = scene.meshes[size_t(node.mesh)];
    const bool skinned = node.skin >= 0;
    uint32_t palette_offset = 0;
    uint32_t palette_size = 0;
    if (skinned) {
      palette_offset = skin_palette_offset[size_t(node.skin)];
      palette_size = checked_u32(pose.palettes.at(size_t(node.skin)).skinning.size(), scene, "joints");
    } else {
      // A rigid node: one palette entry, its global matrix, with weight 1 (as evaluate_vertices does).
      const Mat4& global = pose.model.global[size_t(n)];
      palette_offset = checked_u32(palette_entries, scene, "palette entries");
      palette_size = 1;
      push_palette_entry(global, normal_matrix(global.topLeftCorner<3, 3>()), in);
      if (dqs_method)  // unused (rigid nodes use LBS) but keeps the DQS array indexed like the palette
        for (int e = 0; e < 5; ++e) in.push_vec4(kDualQuaternions, 0.0, 0.0, 0.0, 0.0);
      ++palette_entries;
    }
    const std::vector<double>& morph_weights = pose.local.morph_weights.at(size_t(n));
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      const size_t count = prim.vertex_count();
      WorldPrimitive out;
      out.node = n;
      out.mesh = node.mesh;
      out.primitive = int(p);
      out.skinned = skinned;
      out.vertices.positions.resize(count);
      out.vertices.normals.resize(prim.normals.empty() ? 0 : count);
      out.vertices.tangents.resize(prim.tangents.empty() ? 0 : count);

      Dispatch d;
      d.dqs = skinned && dqs_method;
      d.push.vertex_offset = checked_u32(vertex_total, scene, "vertices");
      d.push.vertex_count = checked_u32(count, scene, "vertices");
      d.push.palette_offset = palette_offset;
      d.push.flags = (prim.normals.empty() ? 0u : kHasNormals) | (prim.tangents.empty() ? 0u : kHasTangents) |
                     (options.weights == WeightPolicy::Renormalize ? kRenormalize : 0u) |
                     (options.normals == NormalMode::BlendedNormalMatrices ? kBlendNormalMatrices : 0u) |
                     (skinned ? 0u : kRigid);
      if (skinned) {
        const size_t k = size_t(prim.influences_per_vertex);
        if (k < 1 || prim.joints.size() != count * k || prim.weights.size() != count * k)
          throw std::invalid_argument("gpu_evaluate_vertices: inconsistent influence sizes");
        for (uint32_t j : prim.joints)
          if (j >= palette_size) throw std::invalid_argument("gpu_evaluate_vertices: joint index outside the palette");
        d.push.influences = checked_u32(k, scene, "influences");
        d.push.influence_offset = checked_u32(in.words[kJoints].size(), scene, "influences");
        in.words[kJoints].insert(in.words[kJoints].end(), prim.joints.begin(), prim.joints.end());
        for (double w : prim.weights) in.push_float(kWeights, w);
      }
      // Morph targets: only those with a non-zero weight contribute (the reference skips the others too).
      d.push.target_offset = checked_u32(in.words[kTargets].size() / 4, scene, "morph targets");
      for (size_t t = 0; t < prim.targets.size() && t < morph_weights.size(); ++t) {
        if (morph_weights[t] == 0.0) continue;
        const MorphTarget& target = prim.targets[t];
        auto push_deltas = [&](const std::vector<Vec3>& deltas, bool used) -> uint32_t {
          if (deltas.empty() || !used) return kNone;
          const uint32_t offset = checked_u32(in.words[kDeltas].size() / 4, scene, "morph deltas");
          for (const Vec3& delta : deltas) in.push_vec4(kDeltas, delta.x(), delta.y(), delta.z(), 0.0);
          return offset;
        };
        in.words[kTargets].push_back(push_deltas(target.position_deltas, true));
        in.words[kTargets].push_back(push_deltas(target.normal_deltas, !prim.normals.empty()));
        in.words[kTargets].push_back(push_deltas(target.tangent_deltas, !prim.tangents.empty()));
        in.words[kTargets].push_back(std::bit_cast<uint32_t>(static_cast<float>(morph_weights[t])));
        ++d.push.target_count;
      }
      for (const Vec3& position : prim.positions)
        in.push_vec4(kPositions, position.x(), position.y(), position.z(), 1.0);
      if (any_normals) {
        if (prim.normals.empty()) in.words[kNormals].resize(in.words[kNormals].size() + 4 * count, 0u);
        for (const Vec3& normal : prim.normals) in.push_vec4(kNormals, normal.x(), normal.y(), normal.z(), 0.0);
      }
      if (any_tangents) {
        if (prim.tangents.empty()) in.words[kTangents].resize(in.words[kTangents].size() + 4 * count, 0u);
        for (const Vec4& tangent : prim.tangents)
          in.push_vec4(kTangents, tangent.x(), tangent.y(), tangent.z(), tangent.w());
      }
      vertex_total += count;
      result.push_back(std::move(out));
      if (count > 0) dispatches.push_back(d);
    }
  }
  checked_u32(vertex_total, scene, "vertices");
  if (dispatches.empty()) {
    if (timing) *timing = GpuTiming{0.0, std::chrono::duration<double, std::milli>(Clock::now() - start).count()};
    return result;
  }

  // ---- layout of the two device buffers: one section per binding, each aligned for storage buffers --------
  const VkPhysicalDeviceLimits& limits = context.limits();
  const VkDeviceSize alignment = std::max<VkDeviceSize>(16, limits.minStorageBufferOffsetAlignment);
  auto align = [&](VkDeviceSize value) { return (value + alignment - 1) / alignment * alignment; };
  std::array<VkDeviceSize, kBindingCount> offset{}, size{};
  VkDeviceSize input_size = 0, output_size = 0;
  for (uint32_t b = 0; b < kBindingCount; ++b) {
    const VkDeviceSize bytes =
        b < kFirstOutput ? in.words[b].size() * sizeof(uint32_t)
        : (b == kOutPositions || (b == kOutNormals && any_normals) || (b == kOutTangents && any_tangents))
            ? VkDeviceSize(vertex_total) * 4 * sizeof(float)
            : 0;
    // An array no primitive uses is still bound (a descriptor needs a non-empty range): 16 bytes, never read.
    size[b] = std::max<VkDeviceSize>(bytes, 16);
    if (size[b] > limits.maxStorageBufferRange)
      throw InputError(scene.source, "",
                       "the GPU skinning array for binding " + std::to_string(b) + " needs " + std::to_string(size[b]) +
                           " bytes, over the device's maxStorageBufferRange of " +
                           std::to_string(limits.maxStorageBufferRange));
    VkDeviceSize& total = b < kFirstOutput ? input_size : output_size;
    offset[b] = total;
    total = align(total + size[b]);
  }

  // ---- pipelines: one-time set-up, left out of the end-to-end time -----------------------------------------
  const Clock::duration gather_time = Clock::now() - start;
  ComputeProgram program(context, std::span<const uint32_t>(k_skin_comp), kBindingCount, sizeof(PushConstants));
  for (const Dispatch& d : dispatches) program.prepare(d.dqs ? 1u : 0u);
  Buffers res(context);

  // ---- buffers and upload ----------------------------------------------------------------------------------
  const auto transfer_start = Clock::now();
  res.staging = context.create_buffer(input_size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
  res.input = context.create_buffer(input_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    false);
  res.output = context.create_buffer(output_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                     false);
  res.readback = context.create_buffer(output_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  for (uint32_t b = 0; b < kFirstOutput; ++b)
    if (!in.words[b].empty())
      context.write(res.staging, in.words[b].data(), in.words[b].size() * sizeof(uint32_t), offset[b]);

  {
    std::array<VkDescriptorBufferInfo, kBindingCount> buffers{};
    for (uint32_t b = 0; b < kBindingCount; ++b)
      buffers[b] = VkDescriptorBufferInfo{b < kFirstOutput ? res.input.buffer : res.output.buffer, offset[b], size[b]};
    program.bind_buffers(buffers);
  }

  context.submit_and_wait([&](VkCommandBuffer cmd) {
    const VkBufferCopy copy{0, 0, input_size};
    vkCmdCopyBuffer(cmd, res.staging.buffer, res.input.buffer, 1, &copy);
  });

  // ---- dispatches and readback -----------------------------------------------------------------------------
  const uint32_t max_groups = limits.maxComputeWorkGroupCount[0];
  context.submit_and_wait([&](VkCommandBuffer cmd) {
    // The upload was a separate submission, waited for by its fence; this barrier makes its transfer writes
    // visible to the shader reads of this one.
    const VkBufferMemoryBarrier upload =
        buffer_barrier(res.input.buffer, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT);
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 1,
                         &upload, 0, nullptr);
    program.record_start(cmd);
    int bound = -1;
    for (const Dispatch& d : dispatches) {
      const int which = d.dqs ? 1 : 0;
      if (which != bound) {
        program.bind(cmd, uint32_t(which));
        bound = which;
      }
      // A primitive with more work groups than the device allows in x is split into several dispatches.
      const uint64_t groups = (uint64_t(d.push.vertex_count) + kLocalSize - 1) / kLocalSize;
      for (uint64_t first_group = 0; first_group < groups; first_group += max_groups) {
        PushConstants push = d.push;
        push.first_vertex = static_cast<uint32_t>(first_group * kLocalSize);
        program.push(cmd, &push, sizeof(push));
        vkCmdDispatch(cmd, static_cast<uint32_t>(std::min<uint64_t>(groups - first_group, max_groups)), 1, 1);
      }
    }
    program.record_end(cmd);
    const VkBufferMemoryBarrier written =
        buffer_barrier(res.output.buffer, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 1,
                         &written, 0, nullptr);
    const VkBufferCopy copy{0, 0, output_size};
    vkCmdCopyBuffer(cmd, res.output.buffer, res.readback.buffer, 1, &copy);
    const VkBufferMemoryBarrier host =
        buffer_barrier(res.readback.buffer, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT);
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &host, 0,
                         nullptr);
  });

  std::vector<float> values(size_t(vertex_total) * 4);
  auto read_section = [&](Binding b) {
    context.read(res.readback, values.data(), VkDeviceSize(values.size()) * sizeof(float), offset[b]);
  };
  read_section(kOutPositions);
  size_t base = 0;
  for (WorldPrimitive& out : result) {
    for (size_t v = 0; v < out.vertices.positions.size(); ++v)
      out.vertices.positions[v] = Vec3(values[(base + v) * 4], values[(base + v) * 4 + 1], values[(base + v) * 4 + 2]);
    base += out.vertices.positions.size();
  }
  if (any_normals) {
    read_section(kOutNormals);
    base = 0;
    for (WorldPrimitive& out : result) {
      for (size_t v = 0; v < out.vertices.normals.size(); ++v)
        out.vertices.normals[v] = Vec3(values[(base + v) * 4], values[(base + v) * 4 + 1], values[(base + v) * 4 + 2]);
      base += out.vertices.positions.size();
    }
  }
  if (any_tangents) {
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

  if (timing) {
    timing->device_ms = program.elapsed_ms();
    timing->end_to_end_ms =
        std::chrono::duration<double, std::milli>(gather_time + (Clock::now() - transfer_start)).count();
  }
  return result;
}

}  // namespace skinref::gpu

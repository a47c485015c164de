// Animation on the GPU (animation_gpu.h). The scene's animation data, rest pose, hierarchy and skins are
// converted to float32 arrays in one host-visible buffer (one section per binding of
// gpu/shaders/animation.comp); one submission runs the sampling dispatch, one local-to-model dispatch per depth
// level and the palette dispatch, with a barrier between every pair, and the results are read back from the
// same buffer.
//
// The steps: plan (the arrays on the host, plan_animation), layout (one aligned section per binding),
// pipelines, upload (written through the mapping, no staging: each array is read once), record + submit, read
// back into an EvaluatedPose.
#include "gpu/animation_gpu.h"

#include "animation_comp.h"
#include "core/input_error.h"
#include "gpu/compute.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace skinref::gpu {
namespace {

constexpr uint32_t kLocalSize = 64;  // local_size_x of animation.comp
constexpr uint32_t kNone = 0xFFFFFFFFu;

// animation.comp's stages (specialization constant 0).
enum Stage : uint32_t { kSample = 0, kLocalToModel = 1, kPalette = 2 };

// animation.comp's bindings, in order.
enum Binding : uint32_t {
  kTimes,
  kValues,
  kUnitKeys,
  kSlerpTable,
  kSamplers,
  kChannels,
  kLocals,
  kMorphWeights,
  kParents,
  kLevelNodes,
  kGlobals,
  kPaletteNodes,
  kInverseBinds,
  kPaletteOut,
  kNormalRows,
  kBindingCount
};

struct PushConstants {
  uint32_t offset = 0;
  uint32_t count = 0;
  float time = 0.0f;
  uint32_t pad = 0;
};

// The arrays animation.comp reads and writes, as 32-bit words.
struct HostArrays {
  std::array<std::vector<uint32_t>, kBindingCount> words;

  void push_float(Binding b, double value) { words[b].push_back(std::bit_cast<uint32_t>(static_cast<float>(value))); }
  void push_u32(Binding b, uint32_t value) { words[b].push_back(value); }
  void push_mat4(Binding b, const Mat4& m) {  // column-major, as GLSL's mat4
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) push_float(b, m(r, c));
  }
};

uint32_t checked_u32(size_t value, const Scene& scene, const char* what) {
  if (value >= kNone)
    throw InputError(scene.source, "", std::string("the GPU animation path indexes ") + what +
                                           " with 32-bit integers; got " + std::to_string(value));
  return static_cast<uint32_t>(value);
}

uint32_t path_code(ChannelPath path) {
  switch (path) {
    case ChannelPath::Translation: return 0;
    case ChannelPath::Rotation: return 1;
    case ChannelPath::Scale: return 2;
    case ChannelPath::Weights: return 3;
  }
  return 0;
}

uint32_t interpolation_code(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::Step: return 0;
    case Interpolation::Linear: return 1;
    case Interpolation::CubicSpline: return 2;
  }
  return 1;
}

float read_float(const std::vector<uint32_t>& words, size_t i) { return std::bit_cast<float>(words[i]); }

// Everything the host prepares before any Vulkan call; after read back, `arrays` holds the results too.
struct AnimationPlan {
  HostArrays arrays;
  std::vector<uint32_t> weight_offset, weight_count;  // each node's slice of kMorphWeights
  std::vector<uint32_t> skin_offset;                  // each skin's first palette entry
  uint32_t channel_count = 0;
  std::vector<std::pair<uint32_t, uint32_t>> levels;  // (offset, count) in kLevelNodes, roots first
  uint32_t palette_entries = 0;
};

// Morph weights: each node's slice, sized like the reference's (a weights channel resizes it to its
// component count).
void plan_morph_weights(const Scene& scene, int animation, const LocalPose& rest, AnimationPlan& plan) {
  const size_t node_count = scene.nodes.size();
  HostArrays& in = plan.arrays;
  plan.weight_offset.resize(node_count);
  plan.weight_count.resize(node_count);
  std::vector<size_t> sizes(node_count);
  for (size_t n = 0; n < node_count; ++n) sizes[n] = rest.morph_weights[n].size();
  if (animation >= 0)
    for (const AnimationChannel& ch : scene.animations[size_t(animation)].channels)
      if (ch.path == ChannelPath::Weights)
        sizes[size_t(ch.node)] = size_t(scene.animations[size_t(animation)].samplers[size_t(ch.sampler)].components);
  for (size_t n = 0; n < node_count; ++n) {
    plan.weight_offset[n] = checked_u32(in.words[kMorphWeights].size(), scene, "morph weights");
    plan.weight_count[n] = checked_u32(sizes[n], scene, "morph weights");
    for (size_t i = 0; i < sizes[n]; ++i)
      in.push_float(kMorphWeights, i < rest.morph_weights[n].size() ? rest.morph_weights[n][i] : 0.0);
  }
}

// Rest TRS (translation, rotation xyzw, scale; vec4 each) and parents.
void plan_rest_pose(const Scene& scene, const LocalPose& rest, HostArrays& in) {
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    const Transform& trs = rest.local[n];
    const Quat& q = trs.rotation;
    for (double v : {trs.translation.x(), trs.translation.y(), trs.translation.z(), 0.0}) in.push_float(kLocals, v);
    for (double v : {q.x(), q.y(), q.z(), q.w()}) in.push_float(kLocals, v);
    for (double v : {trs.scale.x(), trs.scale.y(), trs.scale.z(), 0.0}) in.push_float(kLocals, v);
    in.push_u32(kParents, std::bit_cast<uint32_t>(int32_t(scene.nodes[n].parent)));
  }
}

// Each sampler's header (eight words), keys and values, and its slerp table where it has one.
void plan_samplers(const Scene& scene, const Animation& anim, HostArrays& in) {
  for (const AnimationSampler& s : anim.samplers) {
    const bool has_table = !s.slerp.unit_keys.empty();
    in.push_u32(kSamplers, interpolation_code(s.interpolation));
    in.push_u32(kSamplers, checked_u32(s.times.size(), scene, "key times"));
    in.push_u32(kSamplers, checked_u32(in.words[kTimes].size(), scene, "key times"));
    in.push_u32(kSamplers, checked_u32(in.words[kValues].size(), scene, "key values"));
    in.push_u32(kSamplers, checked_u32(size_t(s.components), scene, "components"));
    in.push_u32(kSamplers, has_table ? checked_u32(in.words[kSlerpTable].size() / 4, scene, "keys") : kNone);
    in.push_u32(kSamplers, has_table ? checked_u32(in.words[kUnitKeys].size() / 4, scene, "keys") : kNone);
    in.push_u32(kSamplers, 0);
    for (double t : s.times) in.push_float(kTimes, t);
    for (double v : s.values) in.push_float(kValues, v);
    if (has_table) {
      for (double v : s.slerp.unit_keys) in.push_float(kUnitKeys, v);
      for (size_t k = 0; k < s.slerp.sign.size(); ++k)
        for (double v : {s.slerp.sign[k], s.slerp.angle[k], s.slerp.sin_angle[k], s.slerp.cos_angle[k]})
          in.push_float(kSlerpTable, v);
    }
  }
}

// glTF forbids two channels with the same target; the reference applies them in order (the last wins), so
// only the last is kept here, which also keeps invocations from racing.
void plan_channels(const Animation& anim, AnimationPlan& plan) {
  for (size_t c = 0; c < anim.channels.size(); ++c) {
    const AnimationChannel& ch = anim.channels[c];
    const bool overridden = std::any_of(anim.channels.begin() + std::ptrdiff_t(c) + 1, anim.channels.end(),
                                        [&](const AnimationChannel& later) {
                                          return later.node == ch.node && later.path == ch.path;
                                        });
    if (overridden) continue;
    const AnimationSampler& s = anim.samplers[size_t(ch.sampler)];
    if (ch.path == ChannelPath::Rotation && s.interpolation == Interpolation::Linear && s.slerp.unit_keys.empty())
      throw std::logic_error("gpu_evaluate_pose: a LINEAR rotation sampler without its slerp table "
                             "(the scene was not finalized)");
    plan.arrays.push_u32(kChannels, uint32_t(ch.sampler));
    plan.arrays.push_u32(kChannels, uint32_t(ch.node));
    plan.arrays.push_u32(kChannels, path_code(ch.path));
    plan.arrays.push_u32(kChannels, plan.weight_offset[size_t(ch.node)]);
    ++plan.channel_count;
  }
}

// Depth levels of the node tree: node_order lists parents first, so a node's depth is known when reached.
void plan_levels(const Scene& scene, AnimationPlan& plan) {
  const size_t node_count = scene.nodes.size();
  std::vector<uint32_t> depth(node_count, 0);
  uint32_t max_depth = 0;
  for (int n : scene.node_order) {
    const int parent = scene.nodes[size_t(n)].parent;
    depth[size_t(n)] = parent < 0 ? 0 : depth[size_t(parent)] + 1;
    max_depth = std::max(max_depth, depth[size_t(n)]);
  }
  if (node_count == 0) return;
  std::vector<uint32_t>& level_nodes = plan.arrays.words[kLevelNodes];
  std::vector<std::vector<uint32_t>> by_level(size_t(max_depth) + 1);
  for (int n : scene.node_order) by_level[depth[size_t(n)]].push_back(uint32_t(n));
  for (const std::vector<uint32_t>& level : by_level) {
    plan.levels.emplace_back(uint32_t(level_nodes.size()), uint32_t(level.size()));
    level_nodes.insert(level_nodes.end(), level.begin(), level.end());
  }
}

// Palette entries (every joint of every skin), then the zeroed arrays the shader writes.
void plan_palettes_and_outputs(const Scene& scene, AnimationPlan& plan) {
  HostArrays& in = plan.arrays;
  plan.skin_offset.resize(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const Skin& skin = scene.skins[s];
    plan.skin_offset[s] = checked_u32(in.words[kPaletteNodes].size(), scene, "palette entries");
    for (size_t j = 0; j < skin.joints.size(); ++j) {
      in.push_u32(kPaletteNodes, uint32_t(skin.joints[j]));
      in.push_mat4(kInverseBinds, skin.inverse_bind[j]);
    }
  }
  plan.palette_entries = checked_u32(in.words[kPaletteNodes].size(), scene, "palette entries");
  const size_t node_count = scene.nodes.size();
  in.words[kGlobals].assign(node_count * 16, 0u);
  in.words[kPaletteOut].assign(size_t(plan.palette_entries) * 16, 0u);
  in.words[kNormalRows].assign(size_t(plan.palette_entries) * 12, 0u);
  checked_u32(node_count * 16, scene, "nodes");
}

AnimationPlan plan_animation(const Scene& scene, int animation) {
  AnimationPlan plan;
  const LocalPose rest = rest_pose(scene);
  plan_morph_weights(scene, animation, rest, plan);
  plan_rest_pose(scene, rest, plan.arrays);
  if (animation >= 0) {
    const Animation& anim = scene.animations[size_t(animation)];
    plan_samplers(scene, anim, plan.arrays);
    plan_channels(anim, plan);
  }
  plan_levels(scene, plan);
  plan_palettes_and_outputs(scene, plan);
  return plan;
}

// One host-visible buffer, one aligned section per binding.
struct SectionLayout {
  std::array<VkDeviceSize, kBindingCount> offset{}, size{};
  VkDeviceSize total = 0;
};

SectionLayout layout_sections(const VkPhysicalDeviceLimits& limits, const Scene& scene, const HostArrays& in) {
  const VkDeviceSize alignment = std::max<VkDeviceSize>(16, limits.minStorageBufferOffsetAlignment);
  SectionLayout layout;
  for (uint32_t b = 0; b < kBindingCount; ++b) {
    // An empty array is still bound (a descriptor needs a non-empty range): 16 bytes, never read.
    layout.size[b] = std::max<VkDeviceSize>(in.words[b].size() * sizeof(uint32_t), 16);
    if (layout.size[b] > limits.maxStorageBufferRange)
      throw InputError(scene.source, "",
                       "the GPU animation array for binding " + std::to_string(b) + " needs " +
                           std::to_string(layout.size[b]) + " bytes, over the device's maxStorageBufferRange of " +
                           std::to_string(limits.maxStorageBufferRange));
    layout.offset[b] = layout.total;
    layout.total = (layout.total + layout.size[b] + alignment - 1) / alignment * alignment;
  }
  return layout;
}

// A buffer destroyed whatever happens (an exception included).
struct OwnedBuffer {
  Context& context;
  Buffer buffer;
  OwnedBuffer(Context& c, Buffer b) : context(c), buffer(b) {}
  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  ~OwnedBuffer() {
    if (buffer.buffer != VK_NULL_HANDLE) context.resources().destroy(buffer);
  }
};

// Every array written into its section of the buffer, and the sections bound to the program's bindings.
void upload(Context& context, const Buffer& buffer, const SectionLayout& layout, const HostArrays& in,
            ComputeProgram& program) {
  for (uint32_t b = 0; b < kBindingCount; ++b)
    if (!in.words[b].empty())
      context.resources().write(buffer, in.words[b].data(), in.words[b].size() * sizeof(uint32_t), layout.offset[b]);
  std::array<VkDescriptorBufferInfo, kBindingCount> buffers{};
  for (uint32_t b = 0; b < kBindingCount; ++b)
    buffers[b] = VkDescriptorBufferInfo{buffer.buffer, layout.offset[b], layout.size[b]};
  program.bind_buffers(buffers);
}

// The three stages into one command buffer: sampling, one local-to-model dispatch per level, palettes.
class StageRecorder {
 public:
  StageRecorder(VkCommandBuffer cmd, ComputeProgram& program, VkBuffer buffer, const VkPhysicalDeviceLimits& limits,
                float time)
      : cmd_(cmd), program_(program), buffer_(buffer),
        max_items_(uint64_t(limits.maxComputeWorkGroupCount[0]) * kLocalSize), time_(time) {}

  void record(const AnimationPlan& plan) {
    program_.record_start(cmd_);
    if (plan.channel_count > 0) {
      program_.bind(cmd_, kSample);
      dispatch(0, plan.channel_count);
      shader_barrier();
    }
    program_.bind(cmd_, kLocalToModel);
    for (const auto& [first, count] : plan.levels) {
      dispatch(first, count);
      shader_barrier();
    }
    if (plan.palette_entries > 0) {
      program_.bind(cmd_, kPalette);
      dispatch(0, plan.palette_entries);
    }
    program_.record_end(cmd_);
    record_buffer_barrier(cmd_, buffer_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }

 private:
  // Every stage reads what the previous one wrote (and each level what the level above wrote).
  void shader_barrier() {
    record_buffer_barrier(cmd_, buffer_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }

  // A range with more work groups than the device allows in x is split into several dispatches.
  void dispatch(uint32_t first, uint32_t count) {
    for (uint64_t done = 0; done < count; done += max_items_) {
      PushConstants push;
      push.offset = first + uint32_t(done);
      push.count = uint32_t(std::min<uint64_t>(count - done, max_items_));
      push.time = time_;
      program_.push(cmd_, &push, sizeof(push));
      vkCmdDispatch(cmd_, (push.count + kLocalSize - 1) / kLocalSize, 1, 1);
    }
  }

  VkCommandBuffer cmd_;
  ComputeProgram& program_;
  VkBuffer buffer_;
  uint64_t max_items_;
  float time_;
};

// The sections the shader wrote (and the locals and weights sampling overwrote) back into `in`.
void read_back(Context& context, const Buffer& buffer, const SectionLayout& layout, HostArrays& in) {
  for (Binding b : {kLocals, kMorphWeights, kGlobals, kPaletteOut, kNormalRows})
    if (!in.words[b].empty())
      context.resources().read(buffer, in.words[b].data(), in.words[b].size() * sizeof(uint32_t), layout.offset[b]);
}

// Local TRS, morph weights and global matrix of every node, from the read-back arrays.
void unpack_nodes(const AnimationPlan& plan, size_t node_count, EvaluatedPose& pose) {
  const std::vector<uint32_t>& locals = plan.arrays.words[kLocals];
  const std::vector<uint32_t>& globals = plan.arrays.words[kGlobals];
  pose.local.local.resize(node_count);
  pose.local.morph_weights.resize(node_count);
  pose.model.global.resize(node_count);
  for (size_t n = 0; n < node_count; ++n) {
    const size_t base = n * 12;
    Transform& trs = pose.local.local[n];
    trs.translation = Vec3(read_float(locals, base), read_float(locals, base + 1), read_float(locals, base + 2));
    trs.rotation = quat_from_xyzw(read_float(locals, base + 4), read_float(locals, base + 5),
                                  read_float(locals, base + 6), read_float(locals, base + 7));
    trs.scale = Vec3(read_float(locals, base + 8), read_float(locals, base + 9), read_float(locals, base + 10));
    std::vector<double>& weights = pose.local.morph_weights[n];
    weights.resize(plan.weight_count[n]);
    for (size_t i = 0; i < weights.size(); ++i)
      weights[i] = read_float(plan.arrays.words[kMorphWeights], plan.weight_offset[n] + i);
    Mat4& global = pose.model.global[n];
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) global(r, c) = read_float(globals, n * 16 + size_t(c) * 4 + size_t(r));
  }
}

// Every skin's palette and normal matrices, from the read-back arrays.
void unpack_palettes(const Scene& scene, const AnimationPlan& plan, EvaluatedPose& pose) {
  const std::vector<uint32_t>& palette_out = plan.arrays.words[kPaletteOut];
  const std::vector<uint32_t>& normal_rows = plan.arrays.words[kNormalRows];
  pose.palettes.resize(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    JointPalette& palette = pose.palettes[s];
    const size_t joints = scene.skins[s].joints.size();
    palette.skinning.resize(joints);
    palette.normal.resize(joints);
    for (size_t j = 0; j < joints; ++j) {
      const size_t entry = plan.skin_offset[s] + j;
      for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
          palette.skinning[j](r, c) = read_float(palette_out, entry * 16 + size_t(c) * 4 + size_t(r));
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          palette.normal[j](r, c) = read_float(normal_rows, entry * 12 + size_t(r) * 4 + size_t(c));
    }
  }
}

}  // namespace

EvaluatedPose gpu_evaluate_pose(Context& context, const Scene& scene, int animation, double time, GpuTiming* timing) {
  using Clock = std::chrono::steady_clock;
  if (animation >= int(scene.animations.size()) || animation < -1)
    throw std::invalid_argument("gpu_evaluate_pose: animation index out of range");
  if (!(std::abs(time) <= double(std::numeric_limits<float>::max())))
    throw InputError(scene.source, "", "a time the GPU can hold: it samples at the float32 time, so |t| <= " +
                                           std::to_string(std::numeric_limits<float>::max()) + " s; got " +
                                           std::to_string(time));
  const float gpu_time = static_cast<float>(time);

  const auto start = Clock::now();
  AnimationPlan plan = plan_animation(scene, animation);
  const SectionLayout layout = layout_sections(context.limits(), scene, plan.arrays);

  // Pipelines: one-time set-up, left out of the end-to-end time.
  const Clock::duration plan_time = Clock::now() - start;
  ComputeProgram program(context, std::span<const uint32_t>(k_animation_comp), kBindingCount, sizeof(PushConstants));
  for (uint32_t stage : {kSample, kLocalToModel, kPalette}) program.prepare(stage);

  const auto transfer_start = Clock::now();
  OwnedBuffer data{context, context.resources().create_buffer(layout.total, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true)};
  upload(context, data.buffer, layout, plan.arrays, program);
  context.submit_and_wait([&](VkCommandBuffer cmd) {
    StageRecorder(cmd, program, data.buffer.buffer, context.limits(), gpu_time).record(plan);
  });
  read_back(context, data.buffer, layout, plan.arrays);

  EvaluatedPose pose;
  pose.animation = animation;
  pose.time = double(gpu_time);
  unpack_nodes(plan, scene.nodes.size(), pose);
  unpack_palettes(scene, plan, pose);

  if (timing) {
    timing->device_ms = program.elapsed_ms();
    timing->end_to_end_ms =
        std::chrono::duration<double, std::milli>(plan_time + (Clock::now() - transfer_start)).count();
  }
  return pose;
}

}  // namespace skinref::gpu

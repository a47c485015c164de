// A user's skinning shader on skinref's scenes (user_skinning.h). Each drawn primitive gets its own buffers,
// laid out as the interface says, and its own submission: a user's shader reads one primitive's arrays from
// element 0, as an engine binds one draw's buffers, so no offsets need passing.
#include "gpu/user_skinning.h"

#include "core/input_error.h"
#include "gpu/buffer_bytes.h"
#include "gpu/compute.h"
#include "skin/dqs.h"
#include "skin/morph.h"

#include <array>
#include <bit>
#include <functional>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace skinref::gpu {
namespace {

using Clock = std::chrono::steady_clock;

void put_u32(std::vector<std::byte>& bytes, size_t at, uint32_t value) { put_value(bytes, at, value); }

// A matrix in the declared order: column-major (16 floats), row-major (16), or the top three rows (12).
void put_matrix(std::vector<std::byte>& bytes, size_t at, const Mat4& m, AttributeFormat format) {
  switch (format) {
    case AttributeFormat::Mat4ColumnMajor: put_matrix_columns(bytes, at, m); return;
    case AttributeFormat::Mat4RowMajor: put_matrix_rows(bytes, at, m, 4); return;
    case AttributeFormat::Mat3x4RowMajor: put_matrix_rows(bytes, at, m, 3); return;
    case AttributeFormat::Float3:
    case AttributeFormat::Float4:
    case AttributeFormat::Uint8:
    case AttributeFormat::Uint16:
    case AttributeFormat::Uint32:
    case AttributeFormat::Float32:
    case AttributeFormat::DualQuat: break;
  }
  throw std::logic_error("put_matrix: not a matrix format");  // the formats above, or a value out of range
}

// A vector attribute (float3, or float4 with `w`).
void put_vector(std::vector<std::byte>& bytes, size_t at, const InterfaceAttribute& a, double x, double y, double z,
                double w) {
  put_float(bytes, at + a.offset, x);
  put_float(bytes, at + a.offset + 4, y);
  put_float(bytes, at + a.offset + 8, z);
  if (a.format == AttributeFormat::Float4) put_float(bytes, at + a.offset + 12, w);
}

void put_joint(std::vector<std::byte>& bytes, size_t at, AttributeFormat format, uint32_t slot, uint32_t joint) {
  switch (format) {
    case AttributeFormat::Uint8: bytes[at + slot] = std::byte(joint); return;
    case AttributeFormat::Uint16: {
      const uint16_t value = static_cast<uint16_t>(joint);
      std::memcpy(bytes.data() + at + 2 * slot, &value, 2);
      return;
    }
    case AttributeFormat::Uint32:
    // Not joint formats (gpu/shader_interface.cc allows none of them for joints): written as uint32 too.
    case AttributeFormat::Float3:
    case AttributeFormat::Float4:
    case AttributeFormat::Float32:
    case AttributeFormat::Mat4ColumnMajor:
    case AttributeFormat::Mat4RowMajor:
    case AttributeFormat::Mat3x4RowMajor:
    case AttributeFormat::DualQuat: break;
  }
  put_u32(bytes, at + 4 * slot, joint);  // Uint32 and the formats with it above, or a value out of range
}

uint32_t joint_limit(AttributeFormat format) {
  return format == AttributeFormat::Uint8 ? 0xFFu : format == AttributeFormat::Uint16 ? 0xFFFFu : 0xFFFFFFFFu;
}

// One primitive's run: its buffers' bytes, its push constants, and what read_back() builds from it.
struct PrimitiveRun {
  int node = -1, mesh = -1, primitive = -1;
  bool skinned = false;
  uint32_t vertex_count = 0;
  bool has_normals = false, has_tangents = false;
  std::vector<std::vector<std::byte>> buffer_bytes;  // per interface buffer
  std::vector<std::byte> push;
  std::vector<Buffer> buffers;                       // per interface buffer, host-visible
  std::vector<std::vector<std::byte>> results;       // per interface buffer, filled for outputs by dispatch()
};

}  // namespace

struct UserShaderSkinning::State {
  Context& context;
  const ShaderInterface interface;
  std::optional<ComputeProgram> program;
  std::vector<PrimitiveRun> runs;
  uint32_t local_size = 64;
  Clock::duration prepare_time{};
  double device_ms = 0.0;
  bool dispatched = false;

  State(Context& c, const ShaderInterface& i) : context(c), interface(i) {}
  ~State() {
    for (PrimitiveRun& run : runs)
      for (Buffer& buffer : run.buffers)
        if (buffer.buffer != VK_NULL_HANDLE) context.resources().destroy(buffer);
  }

  void plan(const Scene& scene, const EvaluatedPose& pose);
  void fill(PrimitiveRun& run, const Scene& scene, const EvaluatedPose& pose, const Primitive& prim,
            const std::vector<Mat4>& palette, uint32_t influences, const std::vector<uint32_t>& joints,
            const std::vector<double>& weights) const;
};

void UserShaderSkinning::State::plan(const Scene& scene, const EvaluatedPose& pose) {
  const uint32_t k = interface.influences;
  for (const int n : drawn_nodes(scene)) {
    const Node& node = scene.nodes[size_t(n)];
    const Mesh& mesh = scene.meshes[size_t(node.mesh)];
    const bool skinned = node.skin >= 0;
    const std::vector<Mat4> rigid_palette = {pose.model.global[size_t(n)]};
    const std::vector<Mat4>& palette = skinned ? pose.palettes.at(size_t(node.skin)).skinning : rigid_palette;
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      if (prim.vertex_count() == 0) {
        runs.push_back(PrimitiveRun{n, node.mesh, int(p), skinned, 0, !prim.normals.empty(), !prim.tangents.empty(),
                                    {}, {}, {}, {}});
        continue;
      }
      if (prim.vertex_count() >= 0xFFFFFFFFu)
        throw InputError(scene.source, "", "at most 2^32 - 1 vertices in a primitive for the GPU path");
      const uint32_t count = static_cast<uint32_t>(prim.vertex_count());
      const PaddedInfluences influences = padded_influences(scene, n, p, k, interface.path);
      PrimitiveRun run{n, node.mesh, int(p), skinned, count, !prim.normals.empty(), !prim.tangents.empty(),
                       {}, {}, {}, {}};
      fill(run, scene, pose, prim, palette, k, influences.joints, influences.weights);
      runs.push_back(std::move(run));
    }
  }
}

void UserShaderSkinning::State::fill(PrimitiveRun& run, const Scene& scene, const EvaluatedPose& pose,
                                     const Primitive& prim, const std::vector<Mat4>& palette, uint32_t influences,
                                     const std::vector<uint32_t>& joints, const std::vector<double>& weights) const {
  const MorphedAttributes morphed = apply_morph_targets(prim, pose.local.morph_weights.at(size_t(run.node)));
  const uint32_t count = run.vertex_count;
  for (const InterfaceBuffer& buffer : interface.buffers) {
    const size_t elements = buffer.kind == ElementKind::Vertex         ? count
                            : buffer.kind == ElementKind::PaletteEntry ? palette.size()
                                                                       : 1;
    std::vector<std::byte> bytes(std::max<size_t>(elements, 1) * buffer.stride, std::byte{0});
    if (!buffer.written) {
      for (const InterfaceAttribute& a : buffer.attributes) {
        for (size_t e = 0; e < elements; ++e) {
          const size_t at = e * buffer.stride;
          switch (a.attribute) {
            case ShaderAttribute::Position: {
              const Vec3& q = morphed.positions[e];
              put_vector(bytes, at, a, q.x(), q.y(), q.z(), 1.0);
              break;
            }
            case ShaderAttribute::Normal:
              if (run.has_normals) put_vector(bytes, at, a, morphed.normals[e].x(), morphed.normals[e].y(),
                                              morphed.normals[e].z(), 0.0);
              break;
            case ShaderAttribute::Tangent:
              if (run.has_tangents) {
                const Vec4& t = morphed.tangents[e];
                put_vector(bytes, at, a, t.x(), t.y(), t.z(), t.w());
              }
              break;
            case ShaderAttribute::Joints:
              for (uint32_t i = 0; i < influences; ++i) {
                const uint32_t joint = joints[e * influences + i];
                if (joint > joint_limit(a.format))
                  throw InputError(scene.source, "",
                                   std::string("joint indices that fit the shader's ") + attribute_format_name(a.format) +
                                       " joints (" + interface.path + "); node " + std::to_string(run.node) +
                                       " uses joint " + std::to_string(joint));
                put_joint(bytes, at + a.offset, a.format, i, joint);
              }
              break;
            case ShaderAttribute::Weights:
              for (uint32_t i = 0; i < influences; ++i) put_float(bytes, at + a.offset + 4 * i, weights[e * influences + i]);
              break;
            case ShaderAttribute::Palette: put_matrix(bytes, at + a.offset, palette[e], a.format); break;
            case ShaderAttribute::DualQuaternion: {
              const DqsJointSplit split = split_dqs_joint(palette[e]);
              for (int c = 0; c < 4; ++c) put_float(bytes, at + a.offset + 4 * c, split.real[size_t(c)]);
              for (int c = 0; c < 4; ++c) put_float(bytes, at + a.offset + 16 + 4 * c, split.dual[size_t(c)]);
              break;
            }
            case ShaderAttribute::ModelMatrix:
              put_matrix(bytes, at + a.offset, pose.model.global[size_t(run.node)], a.format);
              break;
            case ShaderAttribute::SkinnedPosition:
            case ShaderAttribute::SkinnedNormal:
            case ShaderAttribute::SkinnedTangent: break;  // outputs
          }
        }
      }
    }
    run.buffer_bytes.push_back(std::move(bytes));
  }
  run.push.clear();
  for (const InterfacePush& push : interface.push_constants) {
    if (run.push.size() < push.offset + 4) run.push.resize(push.offset + 4, std::byte{0});
    uint32_t value = 0;
    switch (push.value) {
      case PushValue::VertexCount: value = count; break;
      case PushValue::Influences: value = influences; break;
      case PushValue::PaletteSize: value = static_cast<uint32_t>(palette.size()); break;
    }
    put_u32(run.push, push.offset, value);
  }
}

UserShaderSkinning::UserShaderSkinning(Context& context, const UserShader& shader, const Scene& scene,
                                       const EvaluatedPose& pose, const SkinningOptions& options)
    : state_(std::make_unique<State>(context, shader.interface)) {
  State& s = *state_;
  if (options.method != shader.interface.method)
    throw InputError(shader.interface.path, "/method",
                     std::string("the method the run asks for; the shader computes ") +
                         skinning_method_name(shader.interface.method) + ", the run asks for " +
                         skinning_method_name(options.method));
  s.local_size = shader.reflection.local_size[0];
  ComputeLayout layout;
  for (const InterfaceBuffer& buffer : shader.interface.buffers) layout.bindings.push_back(buffer.binding);
  layout.push_constant_bytes = shader.reflection.push_bytes;
  layout.entry_point = shader.interface.entry_point;
  layout.specialized = false;
  s.program.emplace(context, std::span<const uint32_t>(shader.spirv), layout);
  s.program->prepare(0);  // pipeline creation: one-time set-up, left out of prepare_ms()

  const auto start = Clock::now();
  s.plan(scene, pose);
  const uint32_t max_groups = context.limits().maxComputeWorkGroupCount[0];
  for (PrimitiveRun& run : s.runs) {
    if (run.vertex_count == 0) continue;
    if ((uint64_t(run.vertex_count) + s.local_size - 1) / s.local_size > max_groups)
      throw InputError(scene.source, "",
                       "at most " + std::to_string(uint64_t(max_groups) * s.local_size) +
                           " vertices in one primitive for a user shader (one dispatch, local size " +
                           std::to_string(s.local_size) + "); node " + std::to_string(run.node) + " has " +
                           std::to_string(run.vertex_count));
    run.push.resize(shader.reflection.push_bytes, std::byte{0});
    for (size_t b = 0; b < run.buffer_bytes.size(); ++b) {
      const std::vector<std::byte>& bytes = run.buffer_bytes[b];
      if (bytes.size() > context.limits().maxStorageBufferRange)
        throw InputError(scene.source, "",
                         "buffers within the device's maxStorageBufferRange (" +
                             std::to_string(context.limits().maxStorageBufferRange) + " bytes); binding " +
                             std::to_string(shader.interface.buffers[b].binding) + " of node " +
                             std::to_string(run.node) + " needs " + std::to_string(bytes.size()));
      Buffer& buffer = run.buffers.emplace_back(
          context.resources().create_buffer(bytes.size(), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true));
      context.resources().write(buffer, bytes.data(), bytes.size());
    }
    run.results.resize(run.buffer_bytes.size());
  }
  s.prepare_time = Clock::now() - start;
}

UserShaderSkinning::~UserShaderSkinning() = default;

void UserShaderSkinning::dispatch() {
  State& s = *state_;
  s.device_ms = 0.0;
  for (PrimitiveRun& run : s.runs) {
    if (run.vertex_count == 0) continue;
    const std::vector<InterfaceBuffer>& described = s.interface.buffers;
    // Outputs start zeroed, so a value the shader never writes reads back as 0 on every run.
    for (size_t b = 0; b < described.size(); ++b)
      if (described[b].written)
        s.context.resources().write(run.buffers[b], run.buffer_bytes[b].data(), run.buffer_bytes[b].size());
    std::vector<VkDescriptorBufferInfo> bound;
    for (const Buffer& buffer : run.buffers) bound.push_back(VkDescriptorBufferInfo{buffer.buffer, 0, buffer.size});
    // The previous primitive's submission has completed (submit_and_wait), so the set may be rewritten.
    s.program->bind_buffers(bound);
    s.context.submit_and_wait([&](VkCommandBuffer cmd) {
      s.program->record_start(cmd);
      s.program->bind(cmd, 0);
      if (!run.push.empty()) s.program->push(cmd, run.push.data(), uint32_t(run.push.size()));
      vkCmdDispatch(cmd, (run.vertex_count + s.local_size - 1) / s.local_size, 1, 1);
      s.program->record_end(cmd);
      // The shader's writes made available to the host's reads after the fence.
      VkMemoryBarrier barrier{};
      barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
      barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                           nullptr, 0, nullptr);
    });
    s.device_ms += s.program->elapsed_ms();
    for (size_t b = 0; b < described.size(); ++b) {
      if (!described[b].written) continue;
      run.results[b].resize(run.buffer_bytes[b].size());
      s.context.resources().read(run.buffers[b], run.results[b].data(), run.results[b].size());
    }
  }
  s.dispatched = true;
}

double UserShaderSkinning::device_ms() const { return state_->dispatched ? state_->device_ms : 0.0; }

double UserShaderSkinning::prepare_ms() const {
  return std::chrono::duration<double, std::milli>(state_->prepare_time).count();
}

double UserShaderSkinning::traffic_bytes() const {
  double bytes = 0.0;
  for (const PrimitiveRun& run : state_->runs)
    for (const std::vector<std::byte>& buffer : run.buffer_bytes) bytes += double(buffer.size());
  return bytes;
}

std::vector<WorldPrimitive> UserShaderSkinning::read_back() const {
  const State& s = *state_;
  if (!s.dispatched) throw std::logic_error("UserShaderSkinning::read_back: nothing has been dispatched yet");
  std::vector<WorldPrimitive> result;
  result.reserve(s.runs.size());
  for (const PrimitiveRun& run : s.runs) {
    WorldPrimitive& out = result.emplace_back();
    out.node = run.node;
    out.mesh = run.mesh;
    out.primitive = run.primitive;
    out.skinned = run.skinned;
    if (run.vertex_count == 0) continue;
    // The floats of one output attribute of vertex v (3, or 4 for tangents), or nullptr when the interface
    // does not write it.
    auto reader = [&](ShaderAttribute which) -> std::function<std::array<float, 4>(uint32_t)> {
      const InterfaceAttribute* attribute = nullptr;
      const InterfaceBuffer* buffer = s.interface.buffer_of(which, &attribute);
      if (!buffer) return nullptr;
      const std::vector<std::byte>& bytes = run.results[size_t(buffer - s.interface.buffers.data())];
      const size_t stride = buffer->stride, offset = attribute->offset;
      const bool four = attribute->format == AttributeFormat::Float4;
      return [&bytes, stride, offset, four](uint32_t v) {
        const size_t at = size_t(v) * stride + offset;
        return std::array<float, 4>{get_float(bytes, at), get_float(bytes, at + 4), get_float(bytes, at + 8),
                                    four ? get_float(bytes, at + 12) : 0.0f};
      };
    };
    const auto positions = reader(ShaderAttribute::SkinnedPosition);
    const auto normals = run.has_normals ? reader(ShaderAttribute::SkinnedNormal) : nullptr;
    const auto tangents = run.has_tangents ? reader(ShaderAttribute::SkinnedTangent) : nullptr;
    out.vertices.positions.resize(run.vertex_count);
    if (normals) out.vertices.normals.resize(run.vertex_count);
    if (tangents) out.vertices.tangents.resize(run.vertex_count);
    for (uint32_t v = 0; v < run.vertex_count; ++v) {
      const std::array<float, 4> p = positions(v);
      out.vertices.positions[v] = Vec3(p[0], p[1], p[2]);
      if (normals) {
        const std::array<float, 4> n = normals(v);
        out.vertices.normals[v] = Vec3(n[0], n[1], n[2]);
      }
      if (tangents) {
        const std::array<float, 4> t = tangents(v);
        out.vertices.tangents[v] = Vec4(t[0], t[1], t[2], t[3]);
      }
    }
  }
  return result;
}

}  // namespace skinref::gpu

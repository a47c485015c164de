// The vulkan backend (backend.h, vulkan_backend.h): compute skinning, the GPU animation pass and offscreen
// rendering (gpu/); without the Vulkan path it is refused.
#include "backend/backend.h"
#include "backend/backend_kinds.h"

#ifdef SKINREF_HAVE_VULKAN
#include "backend/vulkan_backend.h"
#include "gpu/animation_gpu.h"
#include "gpu/render_gpu.h"
#include "gpu/skinning_gpu.h"
#include "gpu/interface_json.h"
#include "gpu/user_skinning.h"
#include "gpu/user_vertex_skinning.h"
#endif

#include <stdexcept>
#include <utility>
#include <variant>

namespace skinref {

#ifdef SKINREF_HAVE_VULKAN
namespace {

// skin.comp's traffic per run (vulkan_backend.h).
double skin_comp_traffic_bytes(const Scene& scene) {
  double bytes = 0.0;
  for (const int n : drawn_nodes(scene)) {
    const Node& node = scene.nodes[size_t(n)];
    for (const Primitive& prim : scene.meshes[size_t(node.mesh)].primitives) {
      const double attributes = 1.0 + (prim.normals.empty() ? 0.0 : 1.0) + (prim.tangents.empty() ? 0.0 : 1.0);
      bytes += 2.0 * 4.0 * sizeof(float) * attributes * double(prim.vertex_count());
      if (node.skin >= 0) bytes += double(prim.joints.size()) * (sizeof(uint32_t) + sizeof(float));
    }
  }
  return bytes;
}

// The primitives of skinned drawn nodes.
std::vector<const Primitive*> skinned_primitives(const Scene& scene) {
  std::vector<const Primitive*> result;
  for (const int n : drawn_nodes(scene)) {
    const Node& node = scene.nodes[size_t(n)];
    if (node.skin < 0) continue;
    for (const Primitive& prim : scene.meshes[size_t(node.mesh)].primitives) result.push_back(&prim);
  }
  return result;
}

// Prepared compute skinning (gpu::GpuSkinning: plan and upload once, dispatch per run, read back on demand).
class VulkanSkinningJob final : public SkinningJob {
 public:
  VulkanSkinningJob(gpu::Context& context, const Scene& scene, const EvaluatedPose& pose,
                    const SkinningOptions& options)
      : context_(context), skinning_(context, scene, pose, options), traffic_bytes_(skin_comp_traffic_bytes(scene)) {}

  void run() override { skinning_.dispatch(); }
  std::vector<WorldPrimitive> vertices() const override { return skinning_.read_back(); }
  double traffic_bytes() const override { return traffic_bytes_; }
  double prepare_seconds() const override { return skinning_.prepare_ms() * 1e-3; }
  std::optional<double> device_seconds() const override { return skinning_.device_ms() * 1e-3; }
  std::optional<double> busy_pass_seconds(int passes) override { return skinning_.busy_pass_ms(passes) * 1e-3; }
  void set_threads(int) override {}
  std::string label() const override { return "vulkan, float32, " + context_.info().name; }

 private:
  gpu::Context& context_;
  gpu::GpuSkinning skinning_;
  double traffic_bytes_;
};

// A user's shader in place of skin.comp: a compute shader (gpu::UserShaderSkinning: buffers laid out as its
// interface says) or a vertex shader (gpu::UserVertexSkinning: its outputs captured by transform feedback).
// busy_pass_seconds() is the mean over `passes` passes of the timestamps around each pass's dispatches or draws,
// each pass its own submissions, read back.
template <class Shader, class Skinning>
class UserShaderJob final : public SkinningJob {
 public:
  UserShaderJob(gpu::Context& context, const Shader& shader, const Scene& scene, const EvaluatedPose& pose,
                const SkinningOptions& options, const char* kind)
      : context_(context),
        name_(shader.interface.name),
        kind_(kind),
        skinning_(context, shader, scene, pose, options) {}

  void run() override { skinning_.dispatch(); }
  std::vector<WorldPrimitive> vertices() const override { return skinning_.read_back(); }
  double traffic_bytes() const override { return skinning_.traffic_bytes(); }
  double prepare_seconds() const override { return skinning_.prepare_ms() * 1e-3; }
  std::optional<double> device_seconds() const override { return skinning_.device_ms() * 1e-3; }
  std::optional<double> busy_pass_seconds(int passes) override {
    double total = 0.0;
    for (int p = 0; p < passes; ++p) {
      skinning_.dispatch();
      total += skinning_.device_ms() * 1e-3;
    }
    return passes > 0 ? total / passes : 0.0;
  }
  void set_threads(int) override {}
  std::string label() const override { return "vulkan, " + kind_ + " " + name_ + ", " + context_.info().name; }

 private:
  gpu::Context& context_;
  std::string name_, kind_;
  Skinning skinning_;
};

// The user's shader, of either stage.
using UserShaderOfStage = std::variant<gpu::UserShader, gpu::UserVertexShader>;

class VulkanBackend final : public Backend {
 public:
  // Owns its context (make_backend) or borrows one (make_vulkan_backend(context, ...)).
  VulkanBackend(std::unique_ptr<gpu::Context> owned, gpu::Context& context, bool gpu_pose,
                std::optional<UserShaderOfStage> shader = std::nullopt)
      : owned_(std::move(owned)), context_(context), gpu_pose_(gpu_pose), shader_(std::move(shader)) {}

  BackendKind kind() const override { return BackendKind::Vulkan; }
  bool gpu_pose() const override { return gpu_pose_; }

  EvaluatedPose pose(const Scene& scene, const PoseSource& source, std::optional<double> time) override {
    // The GPU animation pass plays one clip; blending, masks and IK of a recipe run on the reference.
    if (gpu_pose_ && !source.recipe) return gpu::gpu_evaluate_pose(context_, scene, source.animation, time.value_or(0.0));
    return Backend::pose(scene, source, time);
  }

  std::unique_ptr<SkinningJob> prepare_skinning(const Scene& scene, const EvaluatedPose& pose,
                                                const SkinningOptions& options) override {
    if (shader_ && std::holds_alternative<gpu::UserVertexShader>(*shader_))
      return std::make_unique<UserShaderJob<gpu::UserVertexShader, gpu::UserVertexSkinning>>(
          context_, std::get<gpu::UserVertexShader>(*shader_), scene, pose, options, "user vertex shader");
    if (shader_)
      return std::make_unique<UserShaderJob<gpu::UserShader, gpu::UserShaderSkinning>>(
          context_, std::get<gpu::UserShader>(*shader_), scene, pose, options, "user shader");
    return std::make_unique<VulkanSkinningJob>(context_, scene, pose, options);
  }

  RenderResult render(const Scene& scene, const EvaluatedPose& pose, const std::vector<WorldPrimitive>& primitives,
                      const RenderCamera& camera, const RenderOptions& options) override {
    RenderResult result;
    result.image = gpu::gpu_render(context_, scene, pose, primitives, camera, options);
    return result;
  }

  std::optional<std::string> skinning_unsupported(const Scene& scene, const SkinningOptions& options) const override {
    if (!shader_) return std::nullopt;
    const auto [method, influences] = std::visit(
        [](const auto& shader) { return std::pair(shader.interface.method, shader.interface.influences); }, *shader_);
    if (options.method != method)
      return "the user shader computes " + std::string(skinning_method_name(method)) + ", not " +
             skinning_method_name(options.method);
    for (const Primitive* prim : skinned_primitives(scene))
      if (uint32_t(prim->influences_per_vertex) > influences)
        return "the user shader reads " + std::to_string(influences) + " influences per vertex, the model has " +
               std::to_string(prim->influences_per_vertex) + " (an engine's importer limits them: " +
               "--convention influences=top" + std::to_string(influences) + "-renormalized)";
    return std::nullopt;
  }

  void finish() const override {
    const gpu::ValidationCounts counts = context_.validation_counts();
    if (counts.warning == 0 && counts.error == 0) return;
    std::string messages;
    for (const std::string& message : context_.validation_messages()) messages += "; " + message;
    throw gpu::GpuError("the Vulkan validation layer reported " + std::to_string(counts.error) + " errors and " +
                        std::to_string(counts.warning) + " warnings" + messages);
  }

  std::string summary() const override {
    return ", vulkan on " + context_.info().name + (gpu_pose_ ? ", GPU animation" : "") +
           (shader_ ? ", user shader " + std::visit([](const auto& shader) { return shader.interface.name; }, *shader_)
                    : "");
  }
  std::string description() const override { return "vulkan" + summary(); }

 private:
  std::unique_ptr<gpu::Context> owned_;
  gpu::Context& context_;
  bool gpu_pose_;
  std::optional<UserShaderOfStage> shader_;
};

}  // namespace

std::unique_ptr<Backend> make_vulkan_backend(gpu::Context& context, bool gpu_pose) {
  return std::make_unique<VulkanBackend>(nullptr, context, gpu_pose);
}

// The user's shader of either stage, as its interface's "stage" says, read and checked.
static UserShaderOfStage load_user_shader_of_stage(const std::string& shader, const std::string& interface,
                                                   const std::vector<std::string>& includes = {}) {
  if (gpu::interface_stage(interface) == "vertex") return gpu::load_user_vertex_shader(shader, interface, includes);
  return gpu::load_user_shader(shader, interface, includes);
}

std::unique_ptr<Backend> make_vulkan_backend(gpu::Context& context, bool gpu_pose, const std::string& shader,
                                             const std::string& interface) {
  return std::make_unique<VulkanBackend>(nullptr, context, gpu_pose, load_user_shader_of_stage(shader, interface));
}

std::unique_ptr<Backend> make_vulkan_backend(const BackendOptions& options) {
  // The user's shader is read and checked against its interface before any device is set up.
  std::optional<UserShaderOfStage> shader;
  if (!options.shader.empty())
    shader = load_user_shader_of_stage(options.shader, options.shader_interface, options.shader_includes);
  auto context = std::make_unique<gpu::Context>(gpu::ContextOptions{options.validate, options.device});
  gpu::Context& borrowed = *context;
  return std::make_unique<VulkanBackend>(std::move(context), borrowed, options.gpu_pose, std::move(shader));
}

#else

std::unique_ptr<Backend> make_vulkan_backend(const BackendOptions&) {
  throw std::invalid_argument("make_backend: the Vulkan path was not built");
}

#endif

}  // namespace skinref

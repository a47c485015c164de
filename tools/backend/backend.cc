#include "backend/backend.h"

#include "backend/backend_kinds.h"
#include "core/enum_names.h"

#include <filesystem>
#include <stdexcept>

namespace skinref {

const char* backend_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::Reference: return "reference";
    case BackendKind::Vulkan: return "vulkan";
    case BackendKind::Cpu: return "cpu";
  }
  throw std::invalid_argument("backend_name: not a BackendKind");
}

std::optional<BackendKind> parse_backend_kind(std::string_view name) {
  return parse_enum_name(name, kBackendKinds, backend_name);
}

std::string backend_choices(std::string_view separator) {
  return join_enum_names(kBackendKinds, backend_name, separator);
}

bool backend_built(BackendKind kind) {
#ifdef SKINREF_HAVE_VULKAN
  (void)kind;
  return true;
#else
  return kind != BackendKind::Vulkan;
#endif
}

EvaluatedPose Backend::pose(const Scene& scene, const PoseSource& source, std::optional<double> time) {
  return select_pose(scene, source, time);
}

std::vector<WorldPrimitive> Backend::vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& options) {
  const std::unique_ptr<SkinningJob> job = prepare_skinning(scene, pose, options);
  job->run();
  return job->vertices();
}

std::optional<std::string> Backend::skinning_unsupported(const Scene&, const SkinningOptions&) const {
  return std::nullopt;
}

RenderResult Backend::render(const Scene& scene, const EvaluatedPose& pose,
                             const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                             const RenderOptions& options) {
  return render_scene(scene, pose, primitives, camera, options);
}

std::unique_ptr<Backend> make_backend(const BackendOptions& options) {
  if (!backend_built(options.kind)) {
    throw std::invalid_argument(std::string("make_backend: the ") + backend_name(options.kind) +
                                " backend is not built");
  }
  if (options.kind != BackendKind::Vulkan && (options.gpu_pose || options.validate || !options.device.empty() ||
                                              !options.shader.empty() || !options.shader_interface.empty())) {
    throw std::invalid_argument("make_backend: gpu_pose, validate, device and shader apply to the vulkan backend only");
  }
  if (options.shader.empty() != options.shader_interface.empty())
    throw std::invalid_argument("make_backend: a user shader needs both the shader and its interface");
  switch (options.kind) {
    case BackendKind::Reference: return make_reference_backend();
    case BackendKind::Cpu: return make_cpu_backend();
    case BackendKind::Vulkan: return make_vulkan_backend(options);
  }
  throw std::invalid_argument("make_backend: not a BackendKind");
}

std::string backend_writer(const BackendOptions& options) {
  if (!options.shader.empty())
    return "user shader " + std::filesystem::path(options.shader).filename().string() + " (skinref vulkan)";
  return std::string("skinref ") + backend_name(options.kind);
}

std::unique_ptr<Backend> make_backend(BackendKind kind) {
  BackendOptions options;
  options.kind = kind;
  return make_backend(options);
}

}  // namespace skinref

#include "backend/backend.h"

#include "cpu/skinning_cpu.h"

#ifdef SKINREF_HAVE_VULKAN
#include "gpu/animation_gpu.h"
#include "gpu/context.h"
#include "gpu/render_gpu.h"
#include "gpu/skinning_gpu.h"
#include "skin/evaluate_vertices.h"
#endif

namespace skinref::cli {

std::vector<OptionSpec> with_backend_options(std::vector<OptionSpec> own, bool with_palette) {
  own.insert(own.end(), {{"--backend", true}, {"--device", true}, {"--validate", false}});
  if (with_palette) own.push_back({"--palette", true});
  return own;
}

BackendChoice parse_backend(const ParsedArgs& parsed, const PoseSelection& selection, const std::string& command,
                            bool pose_command) {
  BackendChoice choice;
  if (const std::optional<std::string> text = parsed.value("--backend")) {
    static const std::vector<std::string> kChoices{"reference", "vulkan", "cpu"};
    const size_t backend = parse_choice(*text, "--backend", kChoices);
    choice.vulkan = backend == 1;
    choice.cpu = backend == 2;
  }
  if (choice.cpu && pose_command)
    throw UsageError(command + ": --backend cpu skins only; the pose is the reference's (use --backend reference)");
#ifndef SKINREF_HAVE_VULKAN
  if (choice.vulkan)
    throw UsageError(command + ": --backend vulkan: the Vulkan path was not built (no Vulkan loader/headers or glslc "
                               "when skinref was configured)");
#endif
  const std::optional<std::string> device = parsed.value("--device");
  choice.validate = parsed.has_flag("--validate");
  choice.device = device.value_or("");
  if (!choice.vulkan && (device || choice.validate))
    throw UsageError(command + ": --device and --validate need --backend vulkan");
  if (const std::optional<std::string> text = parsed.value("--palette")) {
    static const std::vector<std::string> kChoices{"reference", "gpu"};
    choice.gpu_pose = parse_choice(*text, "--palette", kChoices) == 1;
    if (choice.gpu_pose && !choice.vulkan) throw UsageError(command + ": --palette gpu needs --backend vulkan");
  }
  if (pose_command) choice.gpu_pose = choice.vulkan;
  if (choice.gpu_pose && selection.recipe)
    throw UsageError(command + ": --recipe: the GPU animation pass samples one clip (--anim); recipes (blending, "
                               "masks, IK) run on the reference only" +
                     (pose_command ? std::string(" (use --backend reference)") : std::string(" (use --palette reference)")));
  return choice;
}

Backend::Backend(const BackendChoice& choice) : choice_(choice) {
#ifdef SKINREF_HAVE_VULKAN
  if (choice.vulkan) context_ = std::make_unique<gpu::Context>(gpu::ContextOptions{choice.validate, choice.device});
#endif
}

Backend::~Backend() = default;

SelectedPose Backend::pose(const Scene& scene, const PoseSelection& selection) {
#ifdef SKINREF_HAVE_VULKAN
  if (context_ && choice_.gpu_pose) {
    SelectedPose selected;
    const int animation = resolve_animation(scene, selection.anim);
    selected.pose = gpu::gpu_evaluate_pose(*context_, scene, animation, selection.time.value_or(0.0));
    selected.description = animation < 0 ? std::string("rest pose") : "animation " + std::to_string(animation);
    return selected;
  }
#endif
  return evaluate_selected_pose(scene, selection);
}

std::vector<WorldPrimitive> Backend::vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& options) {
#ifdef SKINREF_HAVE_VULKAN
  if (context_) return gpu::gpu_evaluate_vertices(*context_, scene, pose, options);
#endif
  if (choice_.cpu) return cpu::cpu_evaluate_vertices(scene, pose, options);
  return evaluate_vertices(scene, pose, options);
}

RenderResult Backend::render(const Scene& scene, const EvaluatedPose& pose,
                             const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                             const RenderOptions& options) {
#ifdef SKINREF_HAVE_VULKAN
  if (context_) {
    RenderResult result;
    result.image = gpu::gpu_render(*context_, scene, pose, primitives, camera, options);
    return result;
  }
#endif
  return render_scene(scene, pose, primitives, camera, options);
}

void Backend::finish() const {
#ifdef SKINREF_HAVE_VULKAN
  if (!context_) return;
  const gpu::ValidationCounts counts = context_->validation_counts();
  if (counts.warning > 0 || counts.error > 0) {
    std::string messages;
    for (const std::string& message : context_->validation_messages()) messages += "; " + message;
    throw gpu::GpuError("the Vulkan validation layer reported " + std::to_string(counts.error) + " errors and " +
                        std::to_string(counts.warning) + " warnings" + messages);
  }
#endif
}

std::string Backend::summary() const {
#ifdef SKINREF_HAVE_VULKAN
  if (context_) return ", vulkan on " + context_->info().name + (choice_.gpu_pose ? ", GPU animation" : "");
#endif
  if (choice_.cpu) return std::string(", cpu backend (") + cpu::cpu_kernel_name(SkinningKernel::Auto) + ")";
  return "";
}

}  // namespace skinref::cli

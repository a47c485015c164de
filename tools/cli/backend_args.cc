#include "cli/backend_args.h"

namespace skinref::cli {

std::vector<OptionSpec> with_backend_options(std::vector<OptionSpec> own, bool with_palette) {
  own.insert(own.end(), {{"--backend", true}, {"--device", true}, {"--validate", false}});
  if (with_palette) own.push_back({"--palette", true});
  return own;
}

BackendOptions parse_backend(const ParsedArgs& parsed, const PoseSelection& selection, const std::string& command,
                             bool pose_command) {
  BackendOptions options;
  if (const std::optional<std::string> text = parsed.value("--backend")) {
    const std::optional<BackendKind> kind = parse_backend_kind(*text);
    if (!kind) {
      throw UsageError("option --backend: '" + *text + "' is not one of " + backend_choices(", "));
    }
    options.kind = *kind;
  }
  const bool vulkan = options.kind == BackendKind::Vulkan;
  if (options.kind == BackendKind::Cpu && pose_command)
    throw UsageError(command + ": --backend cpu skins only; the pose is the reference's (use --backend reference)");
  if (!backend_built(options.kind))
    throw UsageError(command + ": --backend vulkan: the Vulkan path was not built (no Vulkan loader/headers or glslc "
                               "when skinref was configured)");
  const std::optional<std::string> device = parsed.value("--device");
  options.validate = parsed.has_flag("--validate");
  options.device = device.value_or("");
  if (!vulkan && (device || options.validate)) throw UsageError(command + ": --device and --validate need --backend vulkan");
  if (const std::optional<std::string> text = parsed.value("--palette")) {
    static const std::vector<std::string> kChoices{"reference", "gpu"};
    options.gpu_pose = parse_choice(*text, "--palette", kChoices) == 1;
    if (options.gpu_pose && !vulkan) throw UsageError(command + ": --palette gpu needs --backend vulkan");
  }
  if (pose_command) options.gpu_pose = vulkan;
  if (options.gpu_pose && selection.recipe)
    throw UsageError(command + ": --recipe: the GPU animation pass samples one clip (--anim); recipes (blending, "
                               "masks, IK) run on the reference only" +
                     (pose_command ? std::string(" (use --backend reference)") : std::string(" (use --palette reference)")));
  return options;
}

SelectedPose backend_pose(Backend& backend, const Scene& scene, const PoseSelection& selection) {
  const PoseSource source = resolve_pose_source(scene, selection);
  return {backend.pose(scene, source, selection.time), source.description()};
}

}  // namespace skinref::cli

#include "cli/backend_args.h"
#include "cli/choices.h"

#include "anim/evaluate_pose.h"
#include "skin/method.h"

namespace skinref::cli {

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
  options.shader = parsed.value("--shader").value_or("");
  options.shader_interface = parsed.value("--interface").value_or("");
  options.shader_includes = parsed.values_of("--shader-include");
  if (!options.shader_includes.empty() && parsed.value("--shader").value_or("").empty())
    throw UsageError(command + ": --shader-include DIR goes with --shader FILE");
  if (!options.shader.empty() || !options.shader_interface.empty()) {
    if (!vulkan) throw UsageError(command + ": --shader and --interface need --backend vulkan");
    if (options.shader.empty() || options.shader_interface.empty())
      throw UsageError(command + ": --shader FILE and --interface FILE.json go together");
    if (command == "pose") throw UsageError(command + ": --shader skins; pose computes no vertices (use skin or render)");
  }
  if (const std::optional<std::string> text = parsed.value("--palette")) {
    options.gpu_pose = choice_value(kPalettes, *text, "--palette");
    if (options.gpu_pose && !vulkan) throw UsageError(command + ": --palette gpu needs --backend vulkan");
  }
  if (pose_command) options.gpu_pose = vulkan;
  if (options.gpu_pose && selection.still == StillPose::Bind)
    throw UsageError(command + ": --pose bind: the GPU animation pass samples one clip (--anim); the bind pose is the "
                               "reference's" +
                     (pose_command ? std::string(" (use --backend reference)") : std::string(" (use --palette reference)")));
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

void refuse_conventions_off_reference(const BackendOptions& options, const PoseSelection& selection,
                                      const Conventions& conventions, const std::string& command) {
  std::string names;
  for (const std::string& difference : convention_differences(conventions))
    names += (names.empty() ? "" : ", ") + difference;
  if (options.kind != BackendKind::Reference)
    throw UsageError(command + ": --backend " + backend_name(options.kind) + " implements glTF 2.0 (with weights=sum "
                     "and normals=blend-normal-matrices); the conventions " + names + " run on --backend reference");
  if (selection.recipe)
    throw UsageError(command + ": --recipe: recipes follow glTF 2.0; the conventions " + names +
                     " apply to one clip (--anim)");
  if (selection.still == StillPose::Bind)
    throw UsageError(command + ": --pose bind: the bind pose follows glTF 2.0; the conventions " + names +
                     " apply to one clip (--anim) or the rest pose (--pose rest)");
}

SelectedPose convention_pose(const Scene& scene, const PoseSelection& selection, const Conventions& conventions) {
  const int animation = selection.still ? -1 : resolve_animation(scene, selection.anim);
  SelectedPose selected{evaluate_pose(scene, animation, selection.time.value_or(0.0), conventions), ""};
  selected.description = (animation < 0 ? std::string("rest pose") : "animation " + std::to_string(animation)) +
                         " under " + describe_conventions(conventions);
  return selected;
}

DumpRecord dump_record_of(const std::string& model, const PoseSelection& selection, const EvaluatedPose& pose,
                          const SkinningOptions& options, const BackendOptions& backend, const Conventions& conventions) {
  DumpRecord record;
  record.present = true;
  record.writer = backend_writer(backend);
  record.model = model;
  record.model_hash = model_content_hash(model);
  record.animation = selection.recipe                       ? "recipe:" + *selection.recipe
                     : selection.still == StillPose::Bind ? std::string("bind")
                     : pose.animation < 0                 ? std::string("rest")
                                                          : std::to_string(pose.animation);
  record.time = pose.time;
  record.method = skinning_method_name(options.method);
  record.palette = backend.gpu_pose ? "own" : "reference";
  record.conventions = conventions;
  return record;
}

}  // namespace skinref::cli

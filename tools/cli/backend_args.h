// The backend options that `pose`, `skin`, `render` and `golden check` share (--backend
// reference|vulkan|cpu, --device, --validate, --palette reference|gpu), parsed into BackendOptions
// (tools/backend/backend.h), and the pose a backend gives for the command's pose selection. The options are
// declared in option_groups.h (backend_options()).
//
// Contract:
// - parse_backend(): checks the combination before any model is loaded: --device and --validate need
//   --backend vulkan, and so does --palette gpu; --backend vulkan in a build without the Vulkan path is a
//   UsageError; --palette gpu with --recipe is a UsageError (the GPU pass samples one clip: blending, masks
//   and IK run on the reference only). With `pose_command` (`pose`, and `golden check`, which runs the whole
//   pipeline on the backend) --backend vulkan means the GPU pose, and --backend cpu (skinning only) is a
//   UsageError for `pose`.
// - backend_pose(): resolve_pose_source() (cli_args.h) and Backend::pose() at --time, with the
//   description of the summary line: the recipe at --time when given, else at its own time; or the
//   animation at --time, default 0 (select_pose(), anim/pose_selection.h, unless the GPU computes it).
#pragma once

#include "backend/backend.h"
#include "cli/cli_args.h"
#include "io/vertex_dump.h"

#include <string>
#include <vector>

namespace skinref::cli {

BackendOptions parse_backend(const ParsedArgs& parsed, const PoseSelection& selection, const std::string& command,
                             bool pose_command);

struct SelectedPose {
  EvaluatedPose pose;
  std::string description;  // "recipe FILE", "animation N" or "rest pose"
};

SelectedPose backend_pose(Backend& backend, const Scene& scene, const PoseSelection& selection);

// Engine conventions beyond what the float32 backends implement (conventions_need_reference_backend(),
// verify/convention_pipeline.h) run on the reference, for one clip: a UsageError otherwise, naming them.
void refuse_conventions_off_reference(const BackendOptions& options, const PoseSelection& selection,
                                      const Conventions& conventions, const std::string& command);
// The --anim clip at --time (default 0) under the conventions (evaluate_pose(), anim/evaluate_pose.h), with
// its description ("animation N under glTF 2.0 with ...").
SelectedPose convention_pose(const Scene& scene, const PoseSelection& selection, const Conventions& conventions);
// What a vertex dump records of the run that made it (io/vertex_dump.h): writer "skinref", the model as
// given, the animation (index, or "recipe:PATH"), the pose's time, the method, whose palette the skinning
// used ("own" for the Vulkan animation pass, else "reference") and the conventions.
DumpRecord dump_record_of(const std::string& model, const PoseSelection& selection, const EvaluatedPose& pose,
                          const SkinningOptions& options, const BackendOptions& backend, const Conventions& conventions);

}  // namespace skinref::cli

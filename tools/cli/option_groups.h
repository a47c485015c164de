// The options that several commands share, each declared once (command_decl.h) and appended to a command's
// own: the pose selection, the engine conventions, the skinning method and threads, the import of non-glTF
// files and the backend. Their values are parsed by cli_args.h and backend_args.h.
//
// Contract: every choice list comes from its enum's own name table (kSkinningMethods, kBackendKinds, the
// convention fields), so a new value appears in the parser, the help and docs/cli.md at once.
#pragma once

#include "cli/command_decl.h"

#include <string>
#include <vector>

namespace skinref::cli {

// --anim, --recipe, --pose and --time: the pose of pose, skin and render.
std::vector<OptionDecl> pose_selection_options();
// --convention (repeatable), --conventions, and their shorthands --weights and --normals.
std::vector<OptionDecl> convention_options();
// --method, with every method of kSkinningMethods and its summary.
OptionDecl method_option();
// --method for a command that checks runs already made: `whose` says whose method it is ("What both runs
// used"), and the default is what `dumps` record, else the default method.
OptionDecl recorded_method_option(const std::string& whose, const std::string& dumps);
// --threads N for a command whose output does not depend on it.
OptionDecl threads_option();
// --import-scale, --import-up, --import-limit-weights (FBX, Collada, ... through Assimp).
std::vector<OptionDecl> import_options();

// Which of the backend options a command takes.
enum class BackendUse {
  Pose,      // pose: reference or vulkan (the GPU pose); no user shader, no palette choice
  Skinning,  // skin and render: reference, cpu or vulkan, a user shader, --palette
};
// --backend, --device, --validate, and for BackendUse::Skinning --palette, --shader, --interface, --shader-include.
std::vector<OptionDecl> backend_options(BackendUse use);

}  // namespace skinref::cli

// `skinref pose MODEL [--anim NAME|INDEX | --recipe FILE | --pose rest|bind] [--time SECONDS] --out FILE.json`: evaluates the pose of
// a model at one time (one clip, or a pose recipe: recipe.h) and dumps local TRS, global matrices and joint
// palettes (pose_dump.h).
#include "cli/backend_args.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/option_groups.h"

#include "io/gltf_load.h"
#include "io/pose_dump.h"
#include "verify/convention_pipeline.h"

#include <iostream>

namespace skinref::cli {

namespace {

int run_pose(const ParsedArgs& parsed) {
  // Every check that needs no model comes first, so that usage errors do not wait for a load.
  require_positionals(parsed, 1, "MODEL", "pose");
  const std::string out_path = require_value(parsed, "--out", "pose");
  static const std::vector<std::string> kExtensions{".json"};
  require_extension(out_path, kExtensions, "--out");
  const PoseSelection selection = parse_pose_selection(parsed, "pose");
  const Conventions conventions = parse_conventions(parsed, "pose").conventions;
  const BackendOptions backend_options = parse_backend(parsed, selection, "pose", true);
  // Every convention but the skinning ones changes the pose; those two do not, so they need no reference.
  Conventions pose_conventions = conventions;
  pose_conventions.skinning = SkinningConventions{};
  const bool convention_path = !convention_differences(pose_conventions).empty();
  if (convention_path) refuse_conventions_off_reference(backend_options, selection, pose_conventions, "pose");
  // Created before the model loads, so that an unknown --device fails at once.
  const std::unique_ptr<Backend> backend = make_backend(backend_options);

  const Scene scene = load_model_under(parsed.positionals[0], conventions, parse_import_options(parsed));
  const SelectedPose selected =
      convention_path ? convention_pose(scene, selection, conventions) : backend_pose(*backend, scene, selection);
  backend->finish();
  write_pose_dump(scene, selected.pose, out_path, &conventions,
                  std::string("skinref ") + backend_name(backend_options.kind), selection.recipe.value_or(""));
  std::cout << "wrote " << out_path << ": " << scene.nodes.size() << " nodes, " << scene.skins.size() << " skins, "
            << selected.description << backend->summary() << "\n";
  return kExitOk;
}

}  // namespace

CommandDecl pose_command() {
  std::vector<OptionDecl> own{
      {"--out", "FILE.json", "The output file; required; written atomically. It records the conventions."},
  };
  return {"pose",
          "dump the evaluated pose (local, global, palettes) as JSON",
          {"MODEL [--anim NAME|INDEX | --recipe FILE | --pose rest|bind] [--time SECONDS] --out FILE.json [OPTIONS]"},
          "Evaluates MODEL (a .gltf/.glb path, an FBX, Collada or other file Assimp reads, or builtin:NAME) at one "
          "time and writes the local TRS, global matrices, morph weights and joint palettes as JSON. With engine "
          "conventions (docs/conventions.md), the pose an engine following them computes (reference backend, one "
          "clip).",
          joined(std::move(own), {pose_selection_options(), convention_options(), backend_options(BackendUse::Pose),
                                  import_options()}),
          run_pose};
}

}  // namespace skinref::cli

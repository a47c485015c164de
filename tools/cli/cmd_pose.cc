// `skinref pose MODEL [--anim NAME|INDEX | --recipe FILE | --pose rest|bind] [--time SECONDS] --out FILE.json`: evaluates the pose of
// a model at one time (one clip, or a pose recipe: recipe.h) and dumps local TRS, global matrices and joint
// palettes (pose_dump.h).
#include "cli/backend_args.h"
#include "cli/cli_args.h"
#include "cli/commands.h"

#include "io/gltf_load.h"
#include "io/pose_dump.h"
#include "verify/convention_pipeline.h"

#include <iostream>

namespace skinref::cli {

std::string pose_usage() {
  return "usage: skinref pose MODEL [--anim NAME|INDEX | --recipe FILE | --pose rest|bind] [--time SECONDS]\n"
         "         --out FILE.json\n"
         "         [--convention NAME=VALUE ...] [--conventions FILE.json]\n"
         "         [--backend reference|vulkan [--device NAME|INDEX] [--validate]]\n"
         "  Evaluates MODEL (a .gltf/.glb path, an FBX, Collada or other file Assimp reads, or builtin:NAME) at\n"
         "  one time and writes the local TRS, global matrices, morph weights and joint palettes as JSON.\n"
         "  --anim NAME|INDEX  animation to sample (an integer is an index); default: the first, or the rest\n"
         "                     pose when the model has none\n"
         "  --recipe FILE      a pose recipe (JSON: layers, cross-fades, additives, IK) instead of --anim\n"
         "  --time SECONDS     sampling time, a finite number; default 0, or the recipe's time (which it overrides)\n"
         + still_pose_option_help() +
         "  --out FILE.json    output file (required; written atomically); it records the conventions\n"
         "  --convention NAME=VALUE, --conventions FILE   engine conventions (docs/conventions.md): the pose an\n"
         "                     engine following them computes (reference backend, one clip)\n"
         "  --backend B        reference (default: the double-precision reference) or vulkan (sampling, local to\n"
         "                     model and palettes in compute shaders, in float32 at the float32 time; one clip:\n"
         "                     not with --recipe)\n"
         "  --device NAME|INDEX the Vulkan device, by index or a substring of its name (see skinref devices)\n"
         "  --validate         enable the Vulkan validation layer; any warning or error it reports fails the run\n";
}

int run_pose(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{
      {"--anim", true}, {"--recipe", true}, {"--pose", true}, {"--time", true}, {"--out", true}};
  static const std::vector<OptionSpec> kAllOptions = with_import_options(with_convention_options(with_backend_options(kOptions, false)));
  const ParsedArgs parsed = parse_args(args, kAllOptions, "pose");
  if (parsed.help) {
    std::cout << pose_usage();
    return kExitOk;
  }
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

}  // namespace skinref::cli

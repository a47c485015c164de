// `skinref export MODEL --out FILE.(gltf|glb)`: loads a model (usually builtin:NAME) and writes it as glTF 2.0.
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/option_groups.h"

#include "io/gltf_export.h"
#include "io/load_model.h"

#include <iostream>

namespace skinref::cli {

namespace {

int run_export(const ParsedArgs& parsed) {
  require_positionals(parsed, 1, "MODEL", "export");
  const std::string out_path = require_value(parsed, "--out", "export");
  static const std::vector<std::string> kExtensions{".gltf", ".glb"};
  require_extension(out_path, kExtensions, "--out");

  const Scene scene = load_model(parsed.positionals[0], {}, parse_import_options(parsed));
  export_gltf(scene, out_path);
  std::cout << "wrote " << out_path << "\n";
  return kExitOk;
}

}  // namespace

CommandDecl export_command() {
  return {"export",
          "write a model (e.g. builtin:NAME) as .gltf or .glb",
          {"MODEL --out FILE.gltf|FILE.glb [OPTIONS]"},
          "Writes MODEL (builtin:NAME, a .gltf/.glb path, or an FBX, Collada or other file Assimp reads) as glTF 2.0: "
          ".gltf with embedded buffers, or .glb, chosen by the extension of FILE.",
          joined({{"--out", "FILE.gltf|FILE.glb", "The output file; required; written atomically."}}, {import_options()}),
          run_export};
}

}  // namespace skinref::cli

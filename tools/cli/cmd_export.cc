// `skinref export MODEL --out FILE.(gltf|glb)`: loads a model (usually builtin:NAME) and writes it as glTF 2.0.
#include "cli/cli_args.h"
#include "cli/commands.h"

#include "io/gltf_export.h"
#include "io/load_model.h"

#include <iostream>

namespace skinref::cli {

std::string export_usage() {
  return "usage: skinref export MODEL --out FILE.gltf|FILE.glb\n"
         "  Writes MODEL (builtin:NAME, a .gltf/.glb path, or an FBX, Collada or other file Assimp reads) as\n"
         "  glTF 2.0: .gltf with embedded buffers, or .glb, chosen by the extension of FILE.\n"
         "  --out FILE   output file (required; written atomically)\n";
}

int run_export(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--out", true}};
  static const std::vector<OptionSpec> kAllOptions = with_import_options(kOptions);
  const ParsedArgs parsed = parse_args(args, kAllOptions, "export");
  if (parsed.help) {
    std::cout << export_usage();
    return kExitOk;
  }
  require_positionals(parsed, 1, "MODEL", "export");
  const std::string out_path = require_value(parsed, "--out", "export");
  static const std::vector<std::string> kExtensions{".gltf", ".glb"};
  require_extension(out_path, kExtensions, "--out");

  const Scene scene = load_model(parsed.positionals[0], {}, parse_import_options(parsed));
  export_gltf(scene, out_path);
  std::cout << "wrote " << out_path << "\n";
  return kExitOk;
}

}  // namespace skinref::cli

// load_model(): the dispatch between the built-in scenes, the glTF loader and the Assimp import (load_model.h).
#include "io/load_model.h"

#include "core/input_error.h"
#include "io/builtin_scenes.h"
#include "io/gltf_load.h"

namespace skinref {

Scene load_model(const std::string& spec, const LoadConventions& reading, const ImportOptions& import) {
  const std::string prefix = "builtin:";
  const bool builtin = spec.rfind(prefix, 0) == 0;
  if (!builtin && is_assimp_path(spec)) return load_assimp_file(spec, import);
  if (!import.is_default())
    throw InputError(spec, "", "a file in another format than glTF for the --import-* options (glTF is metres, +Y up, "
                               "and its influences are limited with --convention influences=topK-renormalized)");
  if (builtin) return make_builtin_scene(spec.substr(prefix.size()));
  return load_gltf_file(spec, reading);
}

}  // namespace skinref

// The one entry point for every command that takes a model: `builtin:NAME`, a glTF file, or a file in a format
// Assimp reads. It sits above both loaders (io/gltf_load.h, io/assimp_import.h), which do not know of each
// other's dispatch: the Assimp import hands its scene to the glTF loader as a .glb, one way only.
//
// Contract:
// - `builtin:NAME`: the built-in scene (io/builtin_scenes.h); `import` must be the default.
// - A path ending in .gltf or .glb (case-insensitively): load_gltf_file() with `reading` (the load conventions
//   the glTF loader applies while reading accessors); `import` must be the default (glTF is metres and +Y up,
//   and its influences are limited with a convention instead).
// - Any other path: load_assimp_file() with `import`; `reading` applies to glTF files only.
// - Every problem throws InputError naming the file; no partially loaded Scene is returned.
#pragma once

#include "core/conventions.h"
#include "core/scene.h"
#include "io/assimp_import.h"

#include <string>

namespace skinref {

Scene load_model(const std::string& spec, const LoadConventions& reading = {}, const ImportOptions& import = {});

}  // namespace skinref

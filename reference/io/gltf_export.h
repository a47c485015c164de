// Export of a Scene to glTF 2.0: `.gltf` (buffers embedded as a data: URI) or `.glb`, chosen by extension.
//
// Contract: everything a Scene holds that glTF can express is written: nodes (TRS), meshes and primitives
// (POSITION, NORMAL, TANGENT, TEXCOORD_0, indices, JOINTS_n/WEIGHTS_n as u16/float, morph targets), skins
// with inverse bind matrices, animations (all interpolations), materials without textures. Values are
// stored as float32. The file is written atomically (temporary file, then rename).
#pragma once

#include "core/scene.h"

#include <ostream>
#include <string>

namespace skinref {

void export_gltf(const Scene& scene, const std::string& path);

// The same .glb, written to a stream (the Assimp import sends its scene this way: io/assimp_import.h).
void export_glb(const Scene& scene, std::ostream& out);

}  // namespace skinref

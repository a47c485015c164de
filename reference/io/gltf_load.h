// glTF 2.0 loading: .gltf (external files and data: URIs) and .glb, through tinygltf, into a Scene.
//
// Contract:
// - Nothing from the file is trusted. Every index, count, accessor range (offset + stride * (count - 1) +
//   element size, overflow-safe) and type is checked against the glTF 2.0 specification before use; the first
//   violation throws InputError with the file, the JSON pointer of the offending value (e.g.
//   "/accessors/7/count") and what was expected. No partially loaded Scene is ever returned.
// - Supported required extensions: KHR_mesh_quantization. Any other extension in extensionsRequired is
//   refused by name.
// - The active scene is `scene` if given, else scenes[0], else every parentless node.
// - `reading`: the load conventions the loader itself applies (core/conventions.h; the default is glTF 2.0's),
//   the others being apply_load_conventions()'s (io/load_conventions.h):
//   - joint_sentinel: a JOINTS value an engine writes for "no joint" is accepted where its weight is exactly 0
//     and becomes joint 0; with a non-zero weight it is still refused;
//   - accessor_addressing and sparse: every accessor is read as an engine with that departure reads it
//     (io/accessor.h), after the file has been checked as glTF 2.0 requires.
#pragma once

#include "core/conventions.h"
#include "core/scene.h"

#include <string>

namespace skinref::tol {

// A glTF `matrix` is accepted as TRS when its rotation part is orthonormal to this (relative) tolerance;
// files store matrices in float32, whose products of rounded values are off by a few 1e-7.
inline constexpr double kMatrixShear = 1e-4;

}  // namespace skinref::tol

namespace skinref {

// Loads a .gltf or .glb file (chosen by its content: the GLB magic, else JSON).
Scene load_gltf_file(const std::string& path, const LoadConventions& reading = {});

// Loads from memory; `display_name` is used in errors, `base_dir` resolves external URIs.
Scene load_gltf_memory(const std::string& bytes, const std::string& display_name, const std::string& base_dir,
                       const LoadConventions& reading = {});

// The stated limits (core/limits.h) on what a glTF's JSON declares (entries of its arrays, buffer byteLengths,
// accessor counts, influence sets, JSON nesting, the memory planned), checked on the raw text before tinygltf
// parses it; load_gltf_memory() calls it first. Throws InputError naming the limit.
void check_gltf_limits(const std::string& bytes, const std::string& display_name);

// The extensions this loader implements when a file lists them as required.
bool is_supported_required_extension(const std::string& name);

}  // namespace skinref

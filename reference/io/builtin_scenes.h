// Built-in scenes, written by the project and usable as `builtin:NAME` wherever a model path is accepted.
//
// Contract:
// - Deterministic: the same Scene on every call and machine (no randomness, no clocks).
// - Float-representable: every stored value (positions, normals, weights, matrices, keys) is rounded to
//   float32 at construction, so export_gltf() -> load_gltf_file() reproduces the Scene exactly.
// - Each has one animation named "main" and a material. Dimensions are documented per scene in the .cc and
//   exposed as constants where tests need them.
#pragma once

#include "core/scene.h"

#include <string>
#include <vector>

namespace skinref {

std::vector<std::string> builtin_scene_names();

// Throws InputError for an unknown name, listing the known ones.
Scene make_builtin_scene(const std::string& name);

// Geometry of builtin:twist (used by the candy-wrapper test): a cylinder of radius kTwistRadius along +X from
// x = 0 to x = kTwistLength; joint 0 at the origin, joint 1 at x = kTwistLength / 2 twisting about +X from
// 0 to 180 degrees over [0, kTwistDuration]; vertices at x = kTwistLength / 2 have weights 0.5 / 0.5.
inline constexpr double kTwistRadius = 0.25;
inline constexpr double kTwistLength = 2.0;
inline constexpr double kTwistDuration = 1.0;

}  // namespace skinref

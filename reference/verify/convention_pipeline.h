// The whole reference pipeline under engine conventions (core/conventions.h), stage by stage, for the
// commands that take --convention (pose, skin, compare, bisect) and for diagnose.
//
// Contract:
// - load_model_under(): load_model() with the load conventions its reader applies (joint sentinel, accessor
//   addressing, sparse; and the import options of a file that is not glTF), then apply_scene_conventions().
// - apply_scene_conventions(): the load conventions (io/load_conventions.h), the load-stage mistakes
//   (anim/scene_mistakes.h), then the clip conventions
//   (anim/clip_conventions.h); the Scene stays valid.
// - ConventionRun: one evaluation of a scene under conventions at one playback time: the pose
//   (evaluate_pose with conventions) and the world vertices (evaluate_vertices with conventions).
// - conventions_need_reference_backend(): true when a convention has no counterpart in skinref's own
//   float32 backends (anything but the load conventions, which load_model_under() bakes into the Scene that
//   every backend skins, weights=sum and normals=blend-normal-matrices); the CLI refuses those with
//   --backend cpu|vulkan.
#pragma once
#include "core/conventions.h"
#include "io/assimp_import.h"
#include "core/pose.h"
#include "core/vertices.h"
#include "skin/options.h"
#include <string>
#include <vector>
namespace skinref {
Scene load_model_under(const std::string& spec, const Conventions& conventions, const ImportOptions& import = {});
void apply_scene_conventions(Scene& scene, const Conventions& conventions);
bool conventions_need_reference_backend(const Conventions& conventions);
}  // namespace skinref

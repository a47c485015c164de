#include "anim/bind_pose.h"

#include "anim/local_to_model.h"
#include "anim/palette.h"
#include "core/input_error.h"

#include <optional>
#include <string>
#include <vector>

namespace skinref {
namespace {

// Per node, the bind global of the first skin that lists it as a joint, and that skin.
struct BindGlobal {
  Mat4 global;
  size_t skin = 0;
};

std::vector<std::optional<BindGlobal>> bind_globals(const Scene& scene) {
  std::vector<std::optional<BindGlobal>> globals(scene.nodes.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const Skin& skin = scene.skins[s];
    for (size_t j = 0; j < skin.joints.size(); ++j) {
      std::optional<BindGlobal>& slot = globals[size_t(skin.joints[j])];
      if (!slot) slot = BindGlobal{skin.inverse_bind[j].inverse(), s};
    }
  }
  return globals;
}

std::string joint_label(const Scene& scene, int node) {
  const std::string& name = scene.nodes[size_t(node)].name;
  return "joint node " + std::to_string(node) + (name.empty() ? std::string() : " '" + name + "'");
}

}  // namespace

EvaluatedPose bind_pose(const Scene& scene) {
  EvaluatedPose pose;
  pose.local = rest_pose(scene);
  const std::vector<std::optional<BindGlobal>> bind = bind_globals(scene);
  // Parents first, so each joint's parent global already holds this pose's value.
  std::vector<Mat4> global(scene.nodes.size(), Mat4::Identity());
  for (const int node : scene.node_order) {
    const size_t n = size_t(node);
    const int parent = scene.nodes[n].parent;
    const Mat4 parent_global = parent < 0 ? Mat4::Identity() : global[size_t(parent)];
    if (bind[n]) {
      const Mat4 local = parent_global.inverse() * bind[n]->global;
      if (!local.allFinite() || !decompose_trs(local, &pose.local.local[n], tol::kBindPoseShear)) {
        throw InputError(scene.source,
                         "/skins/" + std::to_string(bind[n]->skin) + "/inverseBindMatrices",
                         "inverse bind matrices whose bind pose is a TRS pose, but the bind transform of " +
                             joint_label(scene, node) + " relative to its parent has shear or is singular");
      }
    }
    global[n] = multiply_affine(parent_global, compose_trs(pose.local.local[n]));
  }
  pose.model = local_to_model(scene, pose.local);
  pose.palettes.reserve(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) pose.palettes.push_back(compute_palette(scene, pose.model, int(s)));
  return pose;
}

}  // namespace skinref

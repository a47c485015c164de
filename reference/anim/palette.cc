#include "anim/palette.h"

#include <algorithm>

namespace skinref {

int skeleton_root(const Scene& scene, int skin_index) {
  const Skin& skin = scene.skins[size_t(skin_index)];
  if (skin.skeleton >= 0) return skin.skeleton;
  // The ancestors (self included) of the first joint, nearest first; the common root is the deepest of them
  // that every other joint descends from.
  std::vector<int> chain;
  for (int n = skin.joints.front(); n >= 0; n = scene.nodes[size_t(n)].parent) chain.push_back(n);
  size_t deepest = 0;
  for (int joint : skin.joints) {
    std::vector<int> ancestors;
    for (int n = joint; n >= 0; n = scene.nodes[size_t(n)].parent) ancestors.push_back(n);
    while (deepest < chain.size() && std::find(ancestors.begin(), ancestors.end(), chain[deepest]) == ancestors.end())
      ++deepest;
  }
  return deepest < chain.size() ? chain[deepest] : -1;
}

JointPalette compute_palette(const Scene& scene, const ModelPose& model_pose, int skin_index,
                             const PaletteConventions& conventions) {
  const Skin& skin = scene.skins[size_t(skin_index)];
  JointPalette palette;
  palette.skinning.resize(skin.joints.size());
  palette.normal.resize(skin.joints.size());
  Mat4 above_root_inverse = Mat4::Identity();
  bool drop_ancestors = false;
  if (conventions.skeleton_ancestors == SkeletonAncestors::Dropped) {
    const int root = skeleton_root(scene, skin_index);
    const int above = root >= 0 ? scene.nodes[size_t(root)].parent : -1;
    if (above >= 0) {
      above_root_inverse = model_pose.global[size_t(above)].inverse();
      drop_ancestors = true;
    }
  }
  for (size_t j = 0; j < skin.joints.size(); ++j) {
    const Mat4& global = model_pose.global[size_t(skin.joints[j])];
    palette.skinning[j] = drop_ancestors ? multiply_affine(multiply_affine(above_root_inverse, global),
                                                           skin.inverse_bind[j])
                                         : multiply_affine(global, skin.inverse_bind[j]);
    palette.normal[j] = normal_matrix(palette.skinning[j].topLeftCorner<3, 3>());
  }
  // joint-cap=N: the entries an engine with an N-matrix palette never uploads keep their initial identity.
  if (conventions.joint_cap > 0)
    for (size_t j = size_t(conventions.joint_cap); j < skin.joints.size(); ++j) {
      palette.skinning[j] = Mat4::Identity();
      palette.normal[j] = Mat3::Identity();
    }
  return palette;
}

}  // namespace skinref

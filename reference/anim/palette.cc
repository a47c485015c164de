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

namespace {

bool palette_mistaken(const Mistakes& m) {
  return m.palette_matrices != PaletteMatrices::AsComputed ||
         m.palette_product != PaletteProduct::GlobalTimesInverseBind || m.inverse_bind_use != InverseBindUse::Once;
}

// The joint matrix under the palette mistakes: full 4x4 products (a transposed matrix is not affine), of which
// the upper three rows are kept, as a vertex dump of xyz keeps them (the last row would only reach w).
Mat4 mistaken_joint_matrix(const Mat4& global, const Mat4& inverse_bind, const Mistakes& m) {
  Mat4 bind = inverse_bind;
  switch (m.inverse_bind_use) {
    case InverseBindUse::Once: break;
    case InverseBindUse::Missing: bind = Mat4::Identity(); break;
    case InverseBindUse::Twice: bind = inverse_bind * inverse_bind; break;
    case InverseBindUse::Transposed: bind = inverse_bind.transpose(); break;
  }
  Mat4 joint = Mat4::Identity();
  switch (m.palette_product) {
    case PaletteProduct::GlobalTimesInverseBind: joint = global * bind; break;
    case PaletteProduct::InverseBindTimesGlobal: joint = bind * global; break;
  }
  switch (m.palette_matrices) {
    case PaletteMatrices::AsComputed: break;
    case PaletteMatrices::Transposed: joint = joint.transpose().eval(); break;
  }
  joint.row(3) << 0.0, 0.0, 0.0, 1.0;
  return joint;
}

}  // namespace

JointPalette compute_palette(const Scene& scene, const ModelPose& model_pose, int skin_index,
                             const PaletteConventions& conventions, const Mistakes& mistakes) {
  const Skin& skin = scene.skins[size_t(skin_index)];
  JointPalette palette;
  palette.skinning.resize(skin.joints.size());
  palette.normal.resize(skin.joints.size());
  Mat4 ancestors_change = Mat4::Identity();
  bool change_ancestors = false;
  if (conventions.skeleton_ancestors != SkeletonAncestors::Kept) {
    const int root = skeleton_root(scene, skin_index);
    const int above = root >= 0 ? scene.nodes[size_t(root)].parent : -1;
    if (above >= 0) {
      // dropped: G(above)^-1 G(j); doubled (a mistake): G(above) G(j).
      ancestors_change = conventions.skeleton_ancestors == SkeletonAncestors::Dropped
                               ? Mat4(model_pose.global[size_t(above)].inverse())
                               : model_pose.global[size_t(above)];
      change_ancestors = true;
    }
  }
  const bool mistaken = palette_mistaken(mistakes);
  for (size_t j = 0; j < skin.joints.size(); ++j) {
    const Mat4& global = model_pose.global[size_t(skin.joints[j])];
    if (mistaken) {
      palette.skinning[j] = mistaken_joint_matrix(
          change_ancestors ? multiply_affine(ancestors_change, global) : global, skin.inverse_bind[j], mistakes);
    } else {
      palette.skinning[j] = change_ancestors ? multiply_affine(multiply_affine(ancestors_change, global),
                                                             skin.inverse_bind[j])
                                           : multiply_affine(global, skin.inverse_bind[j]);
    }
    palette.normal[j] = normal_matrix(palette.skinning[j].topLeftCorner<3, 3>());
  }
  // unnamed-joints=bind-pose: a joint whose node has no name is found by no name lookup and keeps the identity.
  if (conventions.unnamed_joints == UnnamedJoints::BindPose)
    for (size_t j = 0; j < skin.joints.size(); ++j)
      if (scene.nodes[size_t(skin.joints[j])].name.empty()) {
        palette.skinning[j] = Mat4::Identity();
        palette.normal[j] = Mat3::Identity();
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

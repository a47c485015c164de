#include "anim/palette.h"

namespace skinref {

JointPalette compute_palette(const Scene& scene, const ModelPose& model_pose, int skin_index) {
  const Skin& skin = scene.skins[size_t(skin_index)];
  JointPalette palette;
  palette.skinning.resize(skin.joints.size());
  palette.normal.resize(skin.joints.size());
  for (size_t j = 0; j < skin.joints.size(); ++j) {
    palette.skinning[j] = multiply_affine(model_pose.global[size_t(skin.joints[j])], skin.inverse_bind[j]);
    palette.normal[j] = normal_matrix(palette.skinning[j].topLeftCorner<3, 3>());
  }
  return palette;
}

}  // namespace skinref

#include "anim/local_to_model.h"

namespace skinref {

ModelPose local_to_model(const Scene& scene, const LocalPose& pose) {
  ModelPose model;
  model.global.resize(scene.nodes.size());
  for (int n : scene.node_order) {  // parents first: G(parent) is ready when a child is reached
    const Mat4 local = compose_trs(pose.local[size_t(n)]);
    const int parent = scene.nodes[size_t(n)].parent;
    model.global[size_t(n)] = parent < 0 ? local : multiply_affine(model.global[size_t(parent)], local);
  }
  return model;
}

}  // namespace skinref

#include "anim/local_to_model.h"

namespace skinref {
namespace {

// global = parent * compose_trs(local) without the intermediate matrix: compose_trs's columns and
// multiply_affine's products, the same functions (core/math_types.h), so the bits are theirs.
__attribute__((always_inline)) inline void compose_child(const double* parent, const Transform& local, double* global) {
  double columns[4][3];
  affine_detail::trs_columns(local, columns);
  affine_detail::affine_times_columns(parent, columns, global);
}

// The pass itself; compiled once for the baseline instruction set and once for AVX2 (the same operations,
// four lanes to a register instead of two).
__attribute__((always_inline)) inline void forward_pass(const Scene& scene, const LocalPose& pose, ModelPose& model) {
  model.global.resize(scene.nodes.size());
  for (int n : scene.node_order) {  // parents first: G(parent) is ready when a child is reached
    const int parent = scene.nodes[size_t(n)].parent;
    if (parent < 0)
      model.global[size_t(n)] = compose_trs(pose.local[size_t(n)]);
    else
      compose_child(model.global[size_t(parent)].data(), pose.local[size_t(n)], model.global[size_t(n)].data());
  }
}

void forward_pass_baseline(const Scene& scene, const LocalPose& pose, ModelPose& model) {
  forward_pass(scene, pose, model);
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2"))) void forward_pass_avx2(const Scene& scene, const LocalPose& pose, ModelPose& model) {
  forward_pass(scene, pose, model);
}

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#else
// Elsewhere the baseline build is the only one (vector_size lowers to that target's own vectors).
void forward_pass_avx2(const Scene& scene, const LocalPose& pose, ModelPose& model) {
  forward_pass_baseline(scene, pose, model);
}

bool cpu_has_avx2() { return false; }
#endif

}  // namespace

void local_to_model(const Scene& scene, const LocalPose& pose, ModelPose& model) {
  if (cpu_has_avx2())
    forward_pass_avx2(scene, pose, model);
  else
    forward_pass_baseline(scene, pose, model);
}

ModelPose local_to_model(const Scene& scene, const LocalPose& pose) {
  ModelPose model;
  local_to_model(scene, pose, model);
  return model;
}

namespace local_to_model_detail {

bool local_to_model_with(Isa isa, const Scene& scene, const LocalPose& pose, ModelPose& model) {
  switch (isa) {
    case Isa::Baseline:
      forward_pass_baseline(scene, pose, model);
      return true;
    case Isa::Avx2:
      if (!cpu_has_avx2()) return false;
      forward_pass_avx2(scene, pose, model);
      return true;
  }
  return false;
}

}  // namespace local_to_model_detail

}  // namespace skinref

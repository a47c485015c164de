#include "anim/local_to_model.h"

#include <cstring>

namespace skinref {
namespace {

// Four doubles, lowered to two SSE2 operations each where AVX is not enabled (x86-64's baseline). Element-wise products and sums,
// never contracted (-ffp-contract=off), so each lane rounds exactly as the scalar expression does.
typedef double Lanes4 __attribute__((vector_size(32)));

__attribute__((always_inline)) inline void load_column(const double* column, Lanes4& lanes) {
  std::memcpy(&lanes, column, sizeof lanes);
}

// global = parent * compose_trs(local), without the intermediate matrices. Every element is the same
// expression, in the same order, as compose_trs, rotation_matrix and multiply_affine (core/math_types.cc)
// give it, so the bits are theirs: row r of column c is (P(r,0) L(0,c) + P(r,1) L(1,c)) + P(r,2) L(2,c), plus
// P(r,3) for c = 3, one column per vector. Row 3 of the parent's first three columns is 0 (the affine
// contract), so that lane comes out as +-0, and as +-0 + 1 = 1 in column 3; it is set to +0 for the first
// three so that the last row is exactly (0, 0, 0, 1).
__attribute__((always_inline)) inline void compose_child(const double* parent, const Transform& local, double* global) {
  const double x = local.rotation.x(), y = local.rotation.y(), z = local.rotation.z(), w = local.rotation.w();
  const double sx = local.scale[0], sy = local.scale[1], sz = local.scale[2];
  // Columns of L = T * R * S (rows 0 to 2; row 3 is (0, 0, 0, 1)).
  const double l[4][3] = {
      {(1.0 - 2.0 * (y * y + z * z)) * sx, (2.0 * (x * y + z * w)) * sx, (2.0 * (x * z - y * w)) * sx},
      {(2.0 * (x * y - z * w)) * sy, (1.0 - 2.0 * (x * x + z * z)) * sy, (2.0 * (y * z + x * w)) * sy},
      {(2.0 * (x * z + y * w)) * sz, (2.0 * (y * z - x * w)) * sz, (1.0 - 2.0 * (x * x + y * y)) * sz},
      {local.translation[0], local.translation[1], local.translation[2]},
  };
  Lanes4 p0, p1, p2, p3;
  load_column(parent, p0);
  load_column(parent + 4, p1);
  load_column(parent + 8, p2);
  load_column(parent + 12, p3);
  for (int c = 0; c < 4; ++c) {
    Lanes4 column = (p0 * l[c][0] + p1 * l[c][1]) + p2 * l[c][2];
    if (c == 3) {
      column = column + p3;
      column[3] = 1.0;
    } else {
      column[3] = 0.0;
    }
    std::memcpy(global + c * 4, &column, sizeof column);
  }
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

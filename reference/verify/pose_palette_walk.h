// The walk both pose bound models share (pose_error_bounds.cc: the shader's order in Bounded arithmetic;
// any_order_pose_bounds.cc: any order in Gauged arithmetic): from each node's bounded local TRS and morph
// weights, local to model (parents first) and then each skin's palette, recording every value's error.
//
// Contract:
// - Model supplies, as static functions over its own number and matrix types:
//     using Matrix = ...;                                   // a 4x4 matrix of the model's numbers
//     Matrix local_matrix(const Trs&);                      // T * R * S of one node
//     Matrix multiply(const Matrix& a, const Matrix& b);    // the affine product a * b (a: the parent / global)
//     Matrix input_matrix(const Mat4&);                     // an inverse bind matrix as the engine holds it
//     std::array<double, 16> matrix_errors(const Matrix&);  // column-major, as Mat4::data()
//     std::array<double, 9> normal_errors(const Matrix& jm);  // the normal matrix of a palette entry
//   Trs has translation (3), rotation (4, x y z w) and scale (3) arrays, and Trs's and Number's values an
//   `error` field. Each is called once per node or joint, in the order the two models did before this walk
//   was folded out of them, so their results are bit for bit what they were.
// - Inputs: `locals` and `weights` per node of `scene` (node_count entries each; the caller checks).
// - Output: Bounds, which is PoseErrorBounds (pose_error_bounds.h): per node the local TRS and morph weight
//   errors as given and the global matrix's; per skin and joint the palette matrix's (globals[joint] * inverse
//   bind) and its normal matrix's. Bounds is a template parameter so that this header need not include
//   pose_error_bounds.h: pose_error_bounds.cc includes this one (tests/layering/include_cycles.py).
#pragma once

#include "core/scene.h"

#include <array>
#include <vector>

namespace skinref::detail {

template <class Bounds, class Model, class Trs, class Number>
Bounds walk_pose_to_palette(const Scene& scene, const std::vector<Trs>& locals,
                            const std::vector<std::vector<Number>>& weights) {
  using Matrix = typename Model::Matrix;
  const size_t node_count = scene.nodes.size();
  Bounds bounds;
  bounds.local.resize(node_count);
  bounds.morph_weights.resize(node_count);
  bounds.global.resize(node_count);
  std::vector<Matrix> globals(node_count);
  for (int n : scene.node_order) {
    const Trs& trs = locals[size_t(n)];
    std::array<double, 10>& local_bound = bounds.local[size_t(n)];
    for (size_t i = 0; i < 3; ++i) local_bound[i] = trs.translation[i].error;
    for (size_t i = 0; i < 4; ++i) local_bound[3 + i] = trs.rotation[i].error;
    for (size_t i = 0; i < 3; ++i) local_bound[7 + i] = trs.scale[i].error;
    for (const Number& w : weights[size_t(n)]) bounds.morph_weights[size_t(n)].push_back(w.error);
    const Matrix local = Model::local_matrix(trs);
    const int parent = scene.nodes[size_t(n)].parent;
    globals[size_t(n)] = parent < 0 ? local : Model::multiply(globals[size_t(parent)], local);
    bounds.global[size_t(n)] = Model::matrix_errors(globals[size_t(n)]);
  }

  bounds.palettes.resize(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const Skin& skin = scene.skins[s];
    auto& palette = bounds.palettes[s];
    for (size_t j = 0; j < skin.joints.size(); ++j) {
      const Matrix jm = Model::multiply(globals[size_t(skin.joints[j])], Model::input_matrix(skin.inverse_bind[j]));
      palette.skinning.push_back(Model::matrix_errors(jm));
      palette.normal.push_back(Model::normal_errors(jm));
    }
  }
  return bounds;
}

}  // namespace skinref::detail

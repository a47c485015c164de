// Any-order skinning bounds, vertex by vertex: every stage a polynomial in the float inputs (MonomialSum), or
// a normalization or a rotation with its stated accuracy. docs/error_bounds.md, "Any order", derives each.
#include "verify/any_order_vertex_bounds.h"

#include "verify/any_order_arithmetic.h"
#include "verify/method_vertex_bounds.h"
#include "verify/vertex_bounds_walk.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace skinref {
namespace {

using any_order::exact;
using any_order::input;
using any_order::kInfinity;
using any_order::MonomialSum;

// One palette entry as an engine holds it, and what a method's bound is given (method_vertex_bounds.h).
using any_order_vertex::Entry;
using any_order_vertex::error_of;
using any_order_vertex::GVec3;
using any_order_vertex::Influence;
using any_order_vertex::JointLever;
using any_order_vertex::PrimitiveJob;
using any_order_vertex::set_infinite;

// JM' = G IBM^ + rounding, as the pose's palette product (any_order_pose_bounds.cc, multiply()) forms it: each
// entry sum_k G[r][k] IBM^[k][c] (+ G[r][3] in the translation column) in any order, its rounding charged on the
// float operands (|G^| <= |G| + its error) and IBM^'s own error carried by the exact G; an exact zero of IBM
// drops its product, as there.
JointLever joint_lever(const detail::PaletteEntrySource& source, const Mat4& jm) {
  JointLever lever;
  lever.arm = detail::joint_lever_arm(source, jm);
  if (!lever.arm.known) return lever;
  const Mat4& g = *source.global;
  Gauged global[3][4], inverse_bind[3][4];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      global[r][c] = {g(r, c), 0.0, std::abs(g(r, c)) + lever.arm.global_error[r][c]};
      inverse_bind[r][c] = input((*source.inverse_bind)(r, c));
    }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      MonomialSum m;
      for (int k = 0; k < 3; ++k) m.add({global[r][k], inverse_bind[k][c]});
      if (c == 3) m.add({global[r][3]});
      lever.rounded[r][c] = any_order::known(jm(r, c), m.result().error);
    }
  return lever;
}

Entry make_entry(const Mat4& jm, const Mat3& normal, const std::array<double, 16>* palette_error,
                 const std::array<double, 9>* normal_error, PaletteBlend blend,
                 const detail::PaletteEntrySource& source) {
  Entry e;
  e.lever = joint_lever(source, jm);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      e.m[r][c] = palette_error ? any_order::known(jm(r, c), (*palette_error)[size_t(c * 4 + r)]) : input(jm(r, c));
  if (palette_error && !normal_error) {  // a rigid node of an engine's pose: cofactors of its own matrix
    Gauged linear[3][3], cof[3][3], det;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) linear[r][c] = e.m[r][c];
    any_order::cofactors(linear, cof, det);
    const bool certain = any_order::sign_certain(det);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        const double value = det.value < 0.0 ? -cof[r][c].value : cof[r][c].value;
        e.normal[r][c] = any_order::known(value, certain ? cof[r][c].error : 2.0 * std::abs(value) + cof[r][c].error);
      }
  } else {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        e.normal[r][c] = normal_error ? any_order::known(normal(r, c), (*normal_error)[size_t(c * 3 + r)])
                                      : input(normal(r, c));
  }
  switch (blend) {
    case PaletteBlend::Matrices: return e;
    case PaletteBlend::DualQuaternions: break;
  }
  // The engine splits its own float matrix: the palette's error (or its rounding to float) carried through
  // the polar decomposition, plus the split's own accuracy.
  double linear_error[9], translation_error[3];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) linear_error[r * 3 + c] = e.m[r][c].error;
    translation_error[r] = e.m[r][3].error;
  }
  const DqsSplitBounds split = dqs_split_bounds(jm, linear_error, translation_error);
  e.dq_bounded = split.bounded;
  const double preparation = tol::kAnyOrderDqsPreparationUlps * tol::kFloatUlp;
  const double t_norm = std::sqrt(jm(0, 3) * jm(0, 3) + jm(1, 3) * jm(1, 3) + jm(2, 3) * jm(2, 3));
  for (size_t i = 0; i < 4; ++i) {
    e.real[i] = any_order::known(split.split.real[i], split.real_error + preparation);
    e.dual[i] = any_order::known(split.split.dual[i], split.dual_error + preparation * t_norm);
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      e.s[r][c] = any_order::known(split.split.s(r, c), split.s_error + preparation * split.split.singular_values[0]);
  return e;
}

using ActiveTarget = detail::ActiveTarget<Gauged>;

// A bind attribute after the morph targets: base + sum_t w_t delta_t, in any order.
GVec3 morphed(const Vec3& base, const std::vector<ActiveTarget>& targets,
              const std::vector<Vec3> MorphTarget::*deltas, size_t v) {
  GVec3 out;
  for (int k = 0; k < 3; ++k) {
    MonomialSum m;
    m.add({input(base[k])});
    for (const ActiveTarget& t : targets) {
      const std::vector<Vec3>& d = t.target->*deltas;
      if (!d.empty()) m.add({t.weight, input(d[v][k])});
    }
    out[size_t(k)] = m.result();
  }
  return out;
}

void bound_vertex(const PrimitiveJob& job, size_t v, std::vector<Influence>& scratch) {
  const Primitive& prim = *job.prim;
  const bool normals = !prim.normals.empty(), tangents = !prim.tangents.empty();
  const GVec3 p = morphed(prim.positions[v], job.targets, &MorphTarget::position_deltas, v);
  GVec3 n{}, t{};
  if (normals) n = morphed(prim.normals[v], job.targets, &MorphTarget::normal_deltas, v);
  if (tangents) t = morphed(prim.tangents[v].head<3>(), job.targets, &MorphTarget::tangent_deltas, v);

  const size_t count = job.rigid ? 1 : size_t(prim.influences_per_vertex);
  const double* stored = job.rigid ? nullptr : &prim.weights[v * count];
  const uint32_t* joints = job.rigid ? nullptr : &prim.joints[v * count];
  std::vector<Influence>& influences = scratch;
  influences.clear();
  MonomialSum weight_sum;
  double reference_sum = 0.0;
  bool all_zero = true;
  for (size_t i = 0; i < count; ++i) {
    const Gauged w = job.rigid ? exact(1.0) : input(stored[i]);
    reference_sum += w.value;
    if (static_cast<float>(w.value) != 0.0f) all_zero = false;
    weight_sum.add({w});
    // A weight that rounds to float zero is still the reference's: its input error is its own value.
    if (!any_order::is_exact_zero(w)) influences.push_back({w, &job.entries[job.rigid ? 0 : joints[i]]});
  }
  if (reference_sum == 0.0 && all_zero) {  // both keep the (morphed) bind attributes
    job.out->position[v] = error_of(p);
    if (normals) job.out->normal[v] = error_of(n);
    if (tangents) job.out->tangent[v] = error_of(t);
    return;
  }
  const Gauged sum = weight_sum.result();
  if (reference_sum == 0.0 || !(std::abs(sum.value) > sum.error) || influences.empty()) return set_infinite(job, v);
  if (job.renormalize) {
    // w_i / sum, or w_i * (1 / sum): the division's propagation and its rounding, 2.5 ulp, or 2.5 + 1.
    for (Influence& in : influences) {
      const double value = in.weight.value / sum.value;
      const double propagated = (in.weight.error + std::abs(value) * sum.error) / (std::abs(sum.value) - sum.error);
      const double rounding = (tol::kFloatDivideUlps + tol::kFloatAddMulUlps) * tol::kFloatUlp;
      in.weight = any_order::known(value, propagated + rounding * (std::abs(value) + propagated));
    }
  }
  any_order_vertex::bound_method_vertex(job, v, influences, p, normals ? &n : nullptr, tangents ? &t : nullptr);
}

}  // namespace

std::vector<PrimitiveErrorBounds> any_order_vertex_error_bounds(const Scene& scene,
                                                                const EvaluatedPose& reference_pose,
                                                                const SkinningOptions& options,
                                                                const PoseErrorBounds* palette_bounds) {
  // The scratch: a vertex's influences, one allocation per thread range rather than per vertex.
  return detail::walk_vertex_bounds<Entry, Gauged, std::vector<Influence>>(
      "any_order_vertex_error_bounds", scene, reference_pose, options, palette_bounds, make_entry,
      [](double value, double error) { return error < 0.0 ? any_order::input(value) : any_order::known(value, error); },
      [](const Gauged& weight) { return any_order::is_exact_zero(weight); }, bound_vertex);
}

}  // namespace skinref

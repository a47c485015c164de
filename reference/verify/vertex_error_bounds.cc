// The float computation of gpu/shaders/skin.comp, vertex by vertex, in Bounded arithmetic (running_error.h),
// with its inputs prepared as gpu/skinning_gpu.cc prepares them. Keep the three in the same order of
// operations: the bound is of that computation. docs/error_bounds.md derives each step.
#include "verify/vertex_error_bounds.h"

#include "skin/dqs.h"
#include "verify/method_vertex_bounds.h"
#include "verify/running_error.h"
#include "verify/vertex_bounds_walk.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace skinref {
namespace {

using running_error::kInfinity;
// skin.comp's operations on Bounded values and its inputs (method_vertex_bounds.h).
using skinref_order::accumulate;
using skinref_order::BlendInputs;
using skinref_order::BVec3;
using skinref_order::EntryInputs;
using skinref_order::euclidean;
using skinref_order::exact_zero;
using skinref_order::nonzero_certain;
using skinref_order::operator+;
using skinref_order::operator*;
using skinref_order::set_infinite;
using skinref_order::sign_test_certain;

// ---- the inputs of skin.comp, per palette entry ------------------------------------------------------------

// JM' = G IBM^ in animation.comp's order (pose_error_bounds.cc, multiply_affine(): (a0 b0 + a1 b1) + a2 b2, the
// translation column + a3) from the exact G. Its roundings are charged on |G IBM^| + what the propagation
// carries; the float operands are larger by at most P = |G^ - G| |IBM^| (+ |G^ - G| in the translation column),
// and each of the at most 6 roundings on an entry's path is charged u of that too.
void lever_columns(const Mat4& global, EntryInputs& entry) {
  constexpr int kRoundingsOnAPath = 6;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) {
      Bounded sum = exact(0.0);
      double missed = c == 3 ? entry.arm.global_error[r][3] : 0.0;
      for (int k = 0; k < 3; ++k) {
        const Bounded ibm{entry.arm.inverse_bind[k][c], entry.arm.inverse_bind_error[k][c]};
        const Bounded product = exact(global(r, k)) * ibm;
        sum = k == 0 ? product : sum + product;
        missed += entry.arm.global_error[r][k] * (std::abs(ibm.value) + ibm.error);
      }
      if (c == 3) sum = sum + exact(global(r, 3));
      sum.error += running_error::rounding(missed, kRoundingsOnAPath * tol::kFloatAddMulUlps);
      entry.lever_column[c][r] = sum;
    }
}

// The dual quaternion inputs of one palette entry (PaletteBlend::DualQuaternions). `linear_error` (elementwise bounds on A, row-major) and
// `translation_error` are zero for the reference's palette; for a GPU palette they are its bounds, carried
// through the polar decomposition by dqs_split_bounds() (vertex_error_bounds.h). A quaternion's sign (Eigen's
// choice per branch) cancels in the blend: the hemisphere test flips the pair (real, dual) with it.
void split_bounds(const Mat4& jm, const double linear_error[9], const double translation_error[3],
                  EntryInputs& entry) {
  const DqsSplitBounds b = dqs_split_bounds(jm, linear_error, translation_error);
  entry.dq_bounded = b.bounded;
  const bool perturbed = b.linear_perturbed;
  for (int i = 0; i < 4; ++i) {
    entry.real[size_t(i)] = perturbed ? input(Bounded{b.split.real[size_t(i)], b.real_error}) : input(b.split.real[size_t(i)]);
    entry.dual[size_t(i)] = perturbed || b.translation_perturbed ? input(Bounded{b.split.dual[size_t(i)], b.dual_error})
                                                                 : input(b.split.dual[size_t(i)]);
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      entry.s_row[r][size_t(c)] = perturbed ? input(Bounded{b.split.s(r, c), b.s_error}) : input(b.split.s(r, c));
}

// The cofactor matrix with the sign of the determinant (normal_matrix()) of a Bounded linear part, as the
// host computes it in double for a rigid node of a GPU pose: bounded as float operations (which covers the
// double ones) and, where the determinant's sign is uncertain, allowing the negation (2 |cof| + error).
void bounded_normal_rows(const Bounded col[4][3], Bounded rows[3][3]) {
  auto a = [&](int r, int c) { return col[c][r]; };
  Bounded cof[3][3];
  cof[0][0] = a(1, 1) * a(2, 2) - a(1, 2) * a(2, 1);
  cof[0][1] = a(1, 2) * a(2, 0) - a(1, 0) * a(2, 2);
  cof[0][2] = a(1, 0) * a(2, 1) - a(1, 1) * a(2, 0);
  cof[1][0] = a(0, 2) * a(2, 1) - a(0, 1) * a(2, 2);
  cof[1][1] = a(0, 0) * a(2, 2) - a(0, 2) * a(2, 0);
  cof[1][2] = a(0, 1) * a(2, 0) - a(0, 0) * a(2, 1);
  cof[2][0] = a(0, 1) * a(1, 2) - a(0, 2) * a(1, 1);
  cof[2][1] = a(0, 2) * a(1, 0) - a(0, 0) * a(1, 2);
  cof[2][2] = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
  const Bounded det = (a(0, 0) * cof[0][0] + a(0, 1) * cof[0][1]) + a(0, 2) * cof[0][2];
  const bool certain = sign_test_certain(det);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      const Bounded v = det.value < 0.0 ? -cof[r][c] : cof[r][c];
      rows[r][c] = certain ? v : Bounded{v.value, 2.0 * std::abs(v.value) + v.error};
    }
}

// A palette entry from the reference's matrices, rounded to float (palette_error null), or known within the
// GPU pose's elementwise bounds (column-major 16 for JM, 9 for the normal matrix; normal_error null: the
// normal rows are computed on the host from the bounded matrix, as for a rigid node).
EntryInputs entry_inputs(const Mat4& jm, const Mat3& normal, const std::array<double, 16>* palette_error,
                         const std::array<double, 9>* normal_error, PaletteBlend blend,
                         const detail::PaletteEntrySource& source) {
  EntryInputs entry;
  entry.arm = detail::joint_lever_arm(source, jm);
  if (entry.arm.known) lever_columns(*source.global, entry);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r)
      entry.column[c][r] = palette_error ? Bounded{jm(r, c), (*palette_error)[size_t(c * 4 + r)]} : input(jm(r, c));
  if (palette_error && !normal_error) {
    bounded_normal_rows(entry.column, entry.normal_row);
  } else {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        entry.normal_row[r][c] = normal_error ? Bounded{normal(r, c), (*normal_error)[size_t(c * 3 + r)]}
                                              : input(normal(r, c));
  }
  switch (blend) {
    case PaletteBlend::Matrices: break;  // the columns and normal rows above are all it reads
    case PaletteBlend::DualQuaternions: {  // the split of each joint (DqsJointSplit) and its bounds
      double linear_error[9] = {}, translation_error[3] = {};
      if (palette_error) {
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 3; ++c) linear_error[r * 3 + c] = (*palette_error)[size_t(c * 4 + r)];
          translation_error[r] = (*palette_error)[size_t(12 + r)];
        }
      }
      split_bounds(jm, linear_error, translation_error, entry);
      break;
    }
  }
  return entry;
}

// ---- per vertex ----------------------------------------------------------------------------------------------

// One primitive's inputs (vertex_bounds_walk.h). Its active morph targets have a weight that is non-zero on
// either side (the float run skips its zero weights, the reference its own; a skipped target is within the
// bound when the other side's weight is).
using skinref_order::PrimitiveJob;
using ActiveTarget = detail::ActiveTarget<Bounded>;

BVec3 input3(const Vec3& v) { return {input(v.x()), input(v.y()), input(v.z())}; }

void bound_vertex(const PrimitiveJob& job, size_t v) {
  const Primitive& prim = *job.prim;
  const bool normals = !prim.normals.empty(), tangents = !prim.tangents.empty();

  // Morph targets, in target order: p = p + delta * w.
  BVec3 p = input3(prim.positions[v]);
  BVec3 n{}, t{};
  if (normals) n = input3(prim.normals[v]);
  if (tangents) t = input3(prim.tangents[v].head<3>());
  for (const ActiveTarget& target : job.targets) {
    const MorphTarget& m = *target.target;
    if (!m.position_deltas.empty()) p = p + input3(m.position_deltas[v]) * target.weight;
    if (normals && !m.normal_deltas.empty()) n = n + input3(m.normal_deltas[v]) * target.weight;
    if (tangents && !m.tangent_deltas.empty()) t = t + input3(m.tangent_deltas[v]) * target.weight;
  }

  // The weight sum, in influence order; the branch on sum == 0 must be the reference's.
  const size_t count = job.rigid ? 1 : size_t(prim.influences_per_vertex);
  const double* stored = job.rigid ? nullptr : &prim.weights[v * count];
  const uint32_t* joints = job.rigid ? nullptr : &prim.joints[v * count];
  auto weight_of = [&](size_t i) { return job.rigid ? exact(1.0) : input(stored[i]); };
  Bounded sum = weight_of(0);
  double reference_sum = job.rigid ? 1.0 : stored[0];
  bool all_zero = static_cast<float>(sum.value) == 0.0f;
  for (size_t i = 1; i < count; ++i) {
    sum = accumulate(sum, weight_of(i), false);
    reference_sum += stored[i];
    all_zero = all_zero && static_cast<float>(stored[i]) == 0.0f;
  }
  if (reference_sum == 0.0 && all_zero) {  // both keep the (morphed) bind attributes
    job.out->position[v] = euclidean(p);
    if (normals) job.out->normal[v] = euclidean(n);
    if (tangents) job.out->tangent[v] = euclidean(t);
    return;
  }
  if (reference_sum == 0.0 || !nonzero_certain(sum)) {  // one side may keep the bind attributes, the other not
    set_infinite(job, v, normals, tangents);
    return;
  }
  skinref_order::bound_method_vertex(BlendInputs{job, v, normals, tangents, p, n, t, count, stored, joints, sum});
}

struct NoScratch {};

}  // namespace

DqsSplitBounds dqs_split_bounds(const Mat4& jm, const double linear_error[9], const double translation_error[3]) {
  DqsSplitBounds out;
  out.split = split_dqs_joint(jm);
  const double det_a = jm.topLeftCorner<3, 3>().determinant();
  double da2 = 0.0, dt2 = 0.0;
  for (int i = 0; i < 9; ++i) da2 += linear_error[i] * linear_error[i];
  for (int i = 0; i < 3; ++i) dt2 += translation_error[i] * translation_error[i];
  const double da = std::sqrt(da2), dt = std::sqrt(dt2);
  out.linear_perturbed = da > 0.0;
  out.translation_perturbed = dt > 0.0;
  double dq_frobenius = 0.0;
  if (da > 0.0) {
    const Vec3& sigma = out.split.singular_values;
    const double denominator = sigma[1] + sigma[2] - da;
    out.bounded = det_a > 0.0 && sigma[2] > da && denominator > 0.0;
    dq_frobenius = out.bounded ? 2.0 * da / denominator : 0.0;
  }
  out.real_error = 0.5 * dq_frobenius;
  const double t_norm = std::sqrt(jm(0, 3) * jm(0, 3) + jm(1, 3) * jm(1, 3) + jm(2, 3) * jm(2, 3));
  out.dual_error = 0.5 * (dt + t_norm * out.real_error + dt * out.real_error);
  out.s_error = dq_frobenius * out.split.singular_values[0] + da * (1.0 + dq_frobenius);
  return out;
}

std::vector<PrimitiveErrorBounds> float32_vertex_error_bounds(const Scene& scene, const EvaluatedPose& reference_pose,
                                                              const SkinningOptions& options,
                                                              const PoseErrorBounds* palette_bounds) {
  return detail::walk_vertex_bounds<EntryInputs, Bounded, NoScratch>(
      "float32_vertex_error_bounds", scene, reference_pose, options, palette_bounds, entry_inputs,
      [](double value, double error) { return error < 0.0 ? input(value) : Bounded{value, error}; },
      [](const Bounded& weight) { return exact_zero(weight); },
      [](const PrimitiveJob& job, size_t v, NoScratch&) { bound_vertex(job, v); });
}

}  // namespace skinref

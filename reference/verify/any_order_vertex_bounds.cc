// Any-order skinning bounds, vertex by vertex: every stage a polynomial in the float inputs (MonomialSum), or
// a normalization or a rotation with its stated accuracy. docs/error_bounds.md, "Any order", derives each.
#include "verify/any_order_vertex_bounds.h"

#include "verify/any_order_arithmetic.h"
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

using GVec3 = std::array<Gauged, 3>;

double length_of(const GVec3& v) { return any_order::euclidean_value(v.data(), 3); }
double error_of(const GVec3& v) { return any_order::euclidean_error(v.data(), 3); }

// What an engine's joint matrix JM^ = fl(G^ * IBM^) is made of, for its positions: JM^ = JM' + (G^ - G) IBM^,
// where JM' = G IBM^ + (the product's rounding) is within `rounded` of JM, and the global's own error reaches a
// vertex p through IBM^ p, the vertex in the joint's frame: the lever arm from the joint, not from the origin
// (docs/error_bounds.md, "Vertices").
struct JointLever {
  detail::JointLeverArm arm;
  Gauged rounded[3][4];  // JM' (rows 0..2)
};

// One palette entry as an engine holds it.
struct Entry {
  Gauged m[3][4];       // JM rows 0..2
  Gauged normal[3][3];  // the joint's normal matrix, for blended normal matrices
  bool dq_bounded = true;
  std::array<Gauged, 4> real, dual;
  Gauged s[3][3];
  JointLever lever;
};

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
                 const std::array<double, 9>* normal_error, SkinningMethod method,
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
  if (method != SkinningMethod::Dqs) return e;
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

using PrimitiveJob = detail::PrimitiveWalk<Entry, Gauged>;
using ActiveTarget = detail::ActiveTarget<Gauged>;

struct Influence {
  Gauged weight;
  const Entry* entry;
};

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

// Applying a rotation from a float quaternion within e_q (Euclidean) of the exact unit one to a vector within
// e_v of v, by any usual formula (a matrix of any form, or the sandwich product): the matrix moves by at most
// 2 sqrt(2) e_q (1 + e_q) (unit quaternions: ||R(p) - R(q)||_F <= 2 sqrt(2) |p - q|, which also bounds the
// spectral norm, with the normalization's distance) + 2 (2 e_q + e_q^2) (a form that assumes |q| = 1 at |q| = 1 + e_q) in the spectral norm; its
// roundings (Frobenius at most sqrt(33) gamma_11 for monomial magnitudes 3 on the diagonal and 1 off it) and
// the product's (sqrt(3) gamma_3 of |v| for rotation rows of length 1).
double rotated_error(double e_q, double v_length, double e_v) {
  const double spectral = 2.0 * std::sqrt(2.0) * e_q * (1.0 + e_q) + 2.0 * (2.0 * e_q + e_q * e_q);
  const double rounding = std::sqrt(33.0) * any_order::gamma(tol::kAnyOrderQuaternionMatrixRoundings) +
                          std::sqrt(3.0) * any_order::gamma(3);
  return (spectral + rounding) * (v_length + e_v) + e_v;
}

void set_infinite(const PrimitiveJob& job, size_t v) {
  job.out->position[v] = kInfinity;
  if (!job.out->normal.empty()) job.out->normal[v] = kInfinity;
  if (!job.out->tangent.empty()) job.out->tangent[v] = kInfinity;
}

// The normal by the cofactors of the blended 3x3 B = sum_i w_i M_i (M_i = (entry.*matrix), the linear part
// for LBS, the non-rigid part for DQS) applied to n, with the determinant's sign: false where that sign is not
// certain (the engine may negate). An engine that forms the inverse transpose divides each cofactor by the
// determinant: a common positive factor (normalized away) and a rounding of 2.5 ulp per entry, charged.
template <class Matrix>
bool blended_cofactor_normal(const std::vector<Influence>& influences, Matrix Entry::*matrix, const GVec3& n,
                             GVec3& out) {
  Gauged blended[3][3], cof[3][3], det;
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 3; ++k) {
      MonomialSum m;
      for (const Influence& in : influences) m.add({in.weight, (in.entry->*matrix)[j][k]});
      blended[j][k] = m.result();
    }
  any_order::cofactors(blended, cof, det);
  if (!any_order::sign_certain(det)) return false;
  for (int j = 0; j < 3; ++j) {
    MonomialSum m;
    for (int k = 0; k < 3; ++k) {
      Gauged divided = cof[j][k];
      divided.error += tol::kFloatDivideUlps * tol::kFloatUlp * (std::abs(divided.value) + divided.error);
      m.add({divided, n[size_t(k)]});
    }
    out[size_t(j)] = m.result();
  }
  return true;
}

// The LBS normal: blended normal matrices applied to n, or the cofactors of the blended matrix (the inverse
// transpose up to a positive factor, which the normalization removes) with the determinant's sign.
double lbs_normal_bound(const PrimitiveJob& job, const std::vector<Influence>& influences, const GVec3& n) {
  GVec3 normal;
  if (job.blend_normal_matrices) {
    for (int j = 0; j < 3; ++j) {
      MonomialSum m;
      for (const Influence& in : influences)
        for (int k = 0; k < 3; ++k) m.add({in.weight, in.entry->normal[j][k], n[size_t(k)]});
      normal[size_t(j)] = m.result();
    }
  } else if (!blended_cofactor_normal(influences, &Entry::m, n, normal)) {
    return tol::kUnitVectorDifferenceCap;
  }
  return any_order::unit_vector_difference(length_of(normal), error_of(normal));
}

// The LBS position sum_i sum_k w_i JM_i[j][k] p_k (+ w_i JM_i[j][3]), any grouping.
GVec3 lbs_position(const std::vector<Influence>& influences, const GVec3& p) {
  GVec3 position;
  for (int j = 0; j < 3; ++j) {
    MonomialSum m;
    for (const Influence& in : influences) {
      for (int k = 0; k < 3; ++k) m.add({in.weight, in.entry->m[j][k], p[size_t(k)]});
      m.add({in.weight, in.entry->m[j][3]});
    }
    position[size_t(j)] = m.result();
  }
  return position;
}

// The same sum with each JM^ split as JM' + (G^ - G) IBM^ (JointLever): the MonomialSum of JM' (its rounding
// charged on the float factors, JM^'s magnitude, hence the global's part times gamma_K as well), plus
// sum_i (|w_i| + e_w) |G^ - G| |IBM^ p^|, the global's error at the vertex's position in the joint's frame.
// Every influence's lever must be known.
GVec3 lbs_position_by_lever(const std::vector<Influence>& influences, const GVec3& p) {
  const int roundings = 2 + 4 * int(influences.size()) - 1;  // the MonomialSum's K, at most
  double value[3], error[3], float_magnitude[3];
  for (int k = 0; k < 3; ++k) {
    value[k] = p[size_t(k)].value;
    error[k] = p[size_t(k)].error;
    float_magnitude[k] = p[size_t(k)].gauge + p[size_t(k)].error;
  }
  double lever[3] = {}, lever_magnitude[3] = {};
  for (const Influence& in : influences) {
    double at_vertex[3], magnitude[3];
    detail::lever_at_vertex(in.entry->lever.arm, value, error, float_magnitude, at_vertex, magnitude);
    for (int j = 0; j < 3; ++j) {
      lever[j] += (std::abs(in.weight.value) + in.weight.error) * at_vertex[j];
      lever_magnitude[j] += (in.weight.gauge + in.weight.error) * magnitude[j];
    }
  }
  GVec3 position;
  for (int j = 0; j < 3; ++j) {
    MonomialSum m;
    for (const Influence& in : influences) {
      for (int k = 0; k < 3; ++k) m.add({in.weight, in.entry->lever.rounded[j][k], p[size_t(k)]});
      m.add({in.weight, in.entry->lever.rounded[j][3]});
    }
    position[size_t(j)] = m.result();
    position[size_t(j)].error += lever[j] + any_order::gamma(roundings) * lever_magnitude[j];
  }
  return position;
}

void bound_lbs_vertex(const PrimitiveJob& job, size_t v, const std::vector<Influence>& influences, const GVec3& p,
                      const GVec3* n, const GVec3* t) {
  const bool by_lever = std::all_of(influences.begin(), influences.end(),
                                    [](const Influence& in) { return in.entry->lever.arm.known; });
  job.out->position[v] = error_of(by_lever ? lbs_position_by_lever(influences, p) : lbs_position(influences, p));
  if (n) job.out->normal[v] = lbs_normal_bound(job, influences, *n);
  if (t) {
    GVec3 tangent;
    for (int j = 0; j < 3; ++j) {
      MonomialSum m;
      for (const Influence& in : influences)
        for (int k = 0; k < 3; ++k) m.add({in.weight, in.entry->m[j][k], (*t)[size_t(k)]});
      tangent[size_t(j)] = m.result();
    }
    job.out->tangent[v] = any_order::unit_vector_difference(length_of(tangent), error_of(tangent));
  }
}

void bound_dqs_vertex(const PrimitiveJob& job, size_t v, const std::vector<Influence>& influences, const GVec3& p,
                      const GVec3* n, const GVec3* t) {
  // The pivot is the first influence of non-zero weight, the same slot on both sides (unless the first
  // non-zero weight rounds to a float zero); the hemisphere tests against it must come out as the reference's.
  if (static_cast<float>(influences.front().weight.value) == 0.0f) return set_infinite(job, v);
  const Entry& pivot = *influences.front().entry;
  std::array<MonomialSum, 4> real_sum, dual_sum;
  for (const Influence& in : influences) {
    if (!in.entry->dq_bounded) return set_infinite(job, v);
    MonomialSum hemisphere;
    for (size_t k = 0; k < 4; ++k) hemisphere.add({in.entry->real[k], pivot.real[k]});
    const Gauged dot = hemisphere.result();
    if (!any_order::sign_certain(dot)) return set_infinite(job, v);
    const double sign = dot.value < 0.0 ? -1.0 : 1.0;
    for (size_t k = 0; k < 4; ++k) {
      real_sum[k].add({in.weight, in.entry->real[k]}, sign);
      dual_sum[k].add({in.weight, in.entry->dual[k]}, sign);
    }
  }
  std::array<Gauged, 4> real, dual;
  for (size_t k = 0; k < 4; ++k) {
    real[k] = real_sum[k].result();
    dual[k] = dual_sum[k].result();
  }
  const double real_length = any_order::euclidean_value(real.data(), 4);
  const double real_error = any_order::euclidean_error(real.data(), 4);
  if (!(real_error < real_length)) return set_infinite(job, v);
  // The blend normalized by |real| (or the rotation and translation divided by |real|^2: the same function).
  const double e_q = any_order::unit_vector_difference(real_length, real_error);
  const double dual_length = any_order::euclidean_value(dual.data(), 4);
  const double dual_unit = dual_length / real_length;
  const double e_dual = (any_order::euclidean_error(dual.data(), 4) + dual_length * real_error / real_length) /
                            (real_length - real_error) +
                        tol::kAnyOrderNormalizeUlps * tol::kFloatUlp * dual_unit;
  // translation = 2 vec(dual conj(real)): |ab - a'b'| <= |a - a'| |b| + |a'| |b - b'| for quaternions, and
  // each component four products (gamma_4 of |dual| |real|).
  const double translation_length = 2.0 * dual_unit;
  const double translation_error = 2.0 * (e_dual * (1.0 + e_q) + dual_unit * e_q) +
                                   2.0 * std::sqrt(3.0) * any_order::gamma(4) * (dual_unit + e_dual) * (1.0 + e_q);

  // The non-rigid phase: S(v) = sum_i w_i S_i applied to p (any grouping), its cofactors to n.
  auto non_rigid = [&](const GVec3& x) {
    GVec3 out;
    for (int j = 0; j < 3; ++j) {
      MonomialSum m;
      for (const Influence& in : influences)
        for (int k = 0; k < 3; ++k) m.add({in.weight, in.entry->s[j][k], x[size_t(k)]});
      out[size_t(j)] = m.result();
    }
    return out;
  };
  const GVec3 scaled = non_rigid(p);
  const double scaled_length = length_of(scaled);
  const double rotated = rotated_error(e_q, scaled_length, error_of(scaled));
  // The last addition of rotation and translation: one rounding of each component.
  job.out->position[v] = rotated + translation_error +
                         std::sqrt(3.0) * any_order::gamma(1) * (scaled_length + translation_length + rotated + translation_error);
  if (n) {
    GVec3 ns;
    if (!blended_cofactor_normal(influences, &Entry::s, *n, ns)) {
      job.out->normal[v] = tol::kUnitVectorDifferenceCap;
    } else {
      const double length = length_of(ns);
      job.out->normal[v] = any_order::unit_vector_difference(length, rotated_error(e_q, length, error_of(ns)));
    }
  }
  if (t) {
    const GVec3 ts = non_rigid(*t);
    const double length = length_of(ts);
    job.out->tangent[v] = any_order::unit_vector_difference(length, rotated_error(e_q, length, error_of(ts)));
  }
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
  switch (job.method) {
    case SkinningMethod::Lbs:
      return bound_lbs_vertex(job, v, influences, p, normals ? &n : nullptr, tangents ? &t : nullptr);
    case SkinningMethod::Dqs:
      return bound_dqs_vertex(job, v, influences, p, normals ? &n : nullptr, tangents ? &t : nullptr);
  }
}

}  // namespace

std::vector<PrimitiveErrorBounds> any_order_vertex_error_bounds(const Scene& scene,
                                                                const EvaluatedPose& reference_pose,
                                                                const SkinningOptions& options,
                                                                const PoseErrorBounds* palette_bounds) {
  // The scratch: a vertex's influences, one allocation per thread range rather than per vertex.
  return detail::walk_vertex_bounds<Entry, Gauged, std::vector<Influence>>(
      "any_order_vertex_error_bounds", scene, reference_pose, options, palette_bounds, make_entry,
      [](double value, double error) { return error < 0.0 ? input(value) : any_order::known(value, error); },
      [](const Gauged& weight) { return any_order::is_exact_zero(weight); }, bound_vertex);
}

}  // namespace skinref

// What each skinning method adds to the two vertex bound models (method_vertex_bounds.h): the bound of a vertex
// from its method's blend on, in skinref's order (skin.comp's float computation in Bounded arithmetic,
// vertex_error_bounds.cc) and in any order (any_order_vertex_bounds.cc), one method after the other, and the one
// switch over the method per model. docs/error_bounds.md derives each step.
#include "verify/method_vertex_bounds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

// ---- shared by the methods: any order --------------------------------------------------------------------------

namespace skinref::any_order_vertex {
namespace {

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

}  // namespace
}  // namespace skinref::any_order_vertex

// ---- LBS ---------------------------------------------------------------------------------------------------------

namespace skinref::skinref_order {
namespace {

bool lever_position_known(const BlendInputs& in) {
  for (size_t i = 0; i < in.count; ++i)
    if (!in.entry_of(i).arm.known) return false;
  return true;
}

// The LBS position with each JM^ split as JM' + (G^ - G) IBM^ (EntryInputs::arm): skin.comp's blend of the
// JM' columns applied to p, plus sum_i (|w_i| + e_w) |G^ - G| |IBM^ p^|; the blend's and the product's roundings
// (n products, n - 1 sums, 3 products and 3 sums on a path) are charged u each on the global's part too.
double lbs_position_by_lever(const BlendInputs& in) {
  BVec3 c[4];
  double lever[3] = {}, lever_magnitude[3] = {};
  double value[3], error[3], float_magnitude[3];
  for (int k = 0; k < 3; ++k) {
    value[k] = in.p[size_t(k)].value;
    error[k] = in.p[size_t(k)].error;
    float_magnitude[k] = std::abs(value[k]) + error[k];
  }
  for (size_t i = 0; i < in.count; ++i) {
    const Bounded w = in.blend_weight(i);
    const EntryInputs& e = in.entry_of(i);
    for (int k = 0; k < 4; ++k)
      for (int r = 0; r < 3; ++r) c[k][size_t(r)] = accumulate(c[k][size_t(r)], weighted(e.lever_column[k][r], w), i == 0);
    double at_vertex[3], magnitude[3];
    detail::lever_at_vertex(e.arm, value, error, float_magnitude, at_vertex, magnitude);
    for (int j = 0; j < 3; ++j) {
      lever[j] += (std::abs(w.value) + w.error) * at_vertex[j];
      lever_magnitude[j] += (std::abs(w.value) + w.error) * magnitude[j];
    }
  }
  BVec3 position = ((c[0] * in.p[0] + c[1] * in.p[1]) + c[2] * in.p[2]) + c[3];
  const double roundings = double(2 * in.count + 5);
  for (int j = 0; j < 3; ++j)
    position[size_t(j)].error += lever[j] + running_error::rounding(lever_magnitude[j], roundings * tol::kFloatAddMulUlps);
  return euclidean(position);
}

// LBS: B = sum_i w_i JM_i applied to the position, its cofactor (or the blended normal matrices) to the
// normal, its linear part to the tangent.
void bound_lbs_vertex(const BlendInputs& in) {
  const PrimitiveJob& job = in.job;
  const size_t v = in.v, count = in.count;
  const bool normals = in.normals, tangents = in.tangents;
  const BVec3 &p = in.p, &n = in.n, &t = in.t;
  // B = sum_i w_i JM_i, columns c0..c3.
  BVec3 c[4];
  for (size_t i = 0; i < count; ++i) {
    const Bounded w = in.blend_weight(i);
    const EntryInputs& e = in.entry_of(i);
    for (int k = 0; k < 4; ++k)
      for (int r = 0; r < 3; ++r) c[k][size_t(r)] = accumulate(c[k][size_t(r)], weighted(e.column[k][r], w), i == 0);
  }
  job.out->position[v] = lever_position_known(in) ? lbs_position_by_lever(in) : euclidean(((c[0] * p[0] + c[1] * p[1]) + c[2] * p[2]) + c[3]);
  if (normals) {
    if (job.blend_normal_matrices) {
      BVec3 rows[3];
      for (size_t i = 0; i < count; ++i) {
        const Bounded w = in.blend_weight(i);
        const EntryInputs& e = in.entry_of(i);
        for (int r = 0; r < 3; ++r)
          for (int k = 0; k < 3; ++k)
            rows[r][size_t(k)] = accumulate(rows[r][size_t(k)], weighted(e.normal_row[r][k], w), i == 0);
      }
      job.out->normal[v] = normalized_bound({dot(rows[0], n), dot(rows[1], n), dot(rows[2], n)});
    } else {
      const BVec3 k0 = cross(c[1], c[2]), k1 = cross(c[2], c[0]), k2 = cross(c[0], c[1]);
      const Bounded det = (c[0][0] * k0[0] + c[1][0] * k1[0]) + c[2][0] * k2[0];
      const BVec3 result = (k0 * n[0] + k1 * n[1]) + k2 * n[2];
      job.out->normal[v] = sign_test_certain(det) ? normalized_bound(det.value < 0.0 ? -result : result)
                                             : tol::kUnitVectorDifferenceCap;
    }
  }
  if (tangents) job.out->tangent[v] = normalized_bound((c[0] * t[0] + c[1] * t[1]) + c[2] * t[2]);
}

}  // namespace
}  // namespace skinref::skinref_order

namespace skinref::any_order_vertex {
namespace {

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

}  // namespace
}  // namespace skinref::any_order_vertex

// ---- DQS ---------------------------------------------------------------------------------------------------------

namespace skinref::skinref_order {
namespace {

// DQS: the non-rigid blend, then the blended dual quaternion.
void bound_dqs_vertex(const BlendInputs& in) {
  const PrimitiveJob& job = in.job;
  const size_t v = in.v, count = in.count;
  const bool normals = in.normals, tangents = in.tangents;
  const BVec3 &p = in.p, &n = in.n, &t = in.t;
  const double* stored = in.stored;
  // DQS. The pivot: the first influence of non-zero weight. It must be the same slot on both sides (a float32
  // weight is zero exactly when the stored one is, short of an underflow, which is checked).
  size_t pivot = 0, reference_pivot = 0;
  while (pivot + 1 < count && static_cast<float>(stored[pivot]) == 0.0f) ++pivot;
  while (reference_pivot + 1 < count && stored[reference_pivot] == 0.0) ++reference_pivot;
  if (pivot != reference_pivot) {
    set_infinite(job, v, normals, tangents);
    return;
  }
  const BVec4& pivot_real = in.entry_of(pivot).real;
  BVec3 s[3];
  BVec4 real, dual;
  for (size_t i = 0; i < count; ++i) {
    const Bounded w = in.blend_weight(i);
    const EntryInputs& e = in.entry_of(i);
    const bool zero = exact_zero(w);
    if (!zero && !e.dq_bounded) {
      set_infinite(job, v, normals, tangents);
      return;
    }
    // Antipodality: the hemisphere test must come out as the reference's (a zero weight adds nothing
    // whichever sign it gets).
    const Bounded hemisphere = dot(e.real, pivot_real);
    if (!zero && !sign_test_certain(hemisphere)) {
      set_infinite(job, v, normals, tangents);
      return;
    }
    const Bounded wq = hemisphere.value < 0.0 ? -w : w;
    for (size_t k = 0; k < 4; ++k) {
      real[k] = accumulate(real[k], weighted(e.real[k], wq), i == 0);
      dual[k] = accumulate(dual[k], weighted(e.dual[k], wq), i == 0);
    }
    for (int r = 0; r < 3; ++r)
      for (size_t k = 0; k < 3; ++k) s[r][k] = accumulate(s[r][k], weighted(e.s_row[r][k], w), i == 0);
  }
  const Bounded norm2 = dot(real, real);
  if (!nonzero_certain(norm2)) {  // the reference keeps the bind attributes only at exactly 0
    set_infinite(job, v, normals, tangents);
    return;
  }
  const Bounded two = exact(2.0) / norm2;
  if (!std::isfinite(two.error)) {
    set_infinite(job, v, normals, tangents);
    return;
  }
  const Bounded rx = real[0], ry = real[1], rz = real[2], rw = real[3];
  const Bounded one = exact(1.0);
  const BVec3 rot0{one - two * (ry * ry + rz * rz), two * (rx * ry - rz * rw), two * (rx * rz + ry * rw)};
  const BVec3 rot1{two * (rx * ry + rz * rw), one - two * (rx * rx + rz * rz), two * (ry * rz - rx * rw)};
  const BVec3 rot2{two * (rx * rz - ry * rw), two * (ry * rz + rx * rw), one - two * (rx * rx + ry * ry)};
  const BVec3 real_xyz{rx, ry, rz}, dual_xyz{dual[0], dual[1], dual[2]};
  const BVec3 rd = cross(real_xyz, dual_xyz);
  BVec3 translation;
  for (size_t k = 0; k < 3; ++k) translation[k] = two * ((rw * dual_xyz[k] - dual[3] * real_xyz[k]) + rd[k]);

  const BVec3 scaled{dot(s[0], p), dot(s[1], p), dot(s[2], p)};
  job.out->position[v] =
      euclidean(BVec3{dot(rot0, scaled), dot(rot1, scaled), dot(rot2, scaled)} + translation);
  if (normals) {
    const BVec3 k0 = cross(s[1], s[2]), k1 = cross(s[2], s[0]), k2 = cross(s[0], s[1]);
    const Bounded det = dot(s[0], k0);
    BVec3 ns{dot(k0, n), dot(k1, n), dot(k2, n)};
    if (det.value < 0.0) ns = -ns;
    job.out->normal[v] = sign_test_certain(det) ? normalized_bound({dot(rot0, ns), dot(rot1, ns), dot(rot2, ns)})
                                           : tol::kUnitVectorDifferenceCap;
  }
  if (tangents) {
    const BVec3 ts{dot(s[0], t), dot(s[1], t), dot(s[2], t)};
    job.out->tangent[v] = normalized_bound({dot(rot0, ts), dot(rot1, ts), dot(rot2, ts)});
  }
}

}  // namespace
}  // namespace skinref::skinref_order

namespace skinref::any_order_vertex {
namespace {

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

}  // namespace
}  // namespace skinref::any_order_vertex

// ---- the method of each vertex -----------------------------------------------------------------------------------

namespace skinref::skinref_order {

void bound_method_vertex(const BlendInputs& in) {
  switch (in.job.method) {
    case SkinningMethod::Lbs: bound_lbs_vertex(in); return;
    case SkinningMethod::Dqs: bound_dqs_vertex(in); return;
  }
}

}  // namespace skinref::skinref_order

namespace skinref::any_order_vertex {

void bound_method_vertex(const PrimitiveJob& job, size_t v, const std::vector<Influence>& influences, const GVec3& p,
                         const GVec3* n, const GVec3* t) {
  switch (job.method) {
    case SkinningMethod::Lbs: return bound_lbs_vertex(job, v, influences, p, n, t);
    case SkinningMethod::Dqs: return bound_dqs_vertex(job, v, influences, p, n, t);
  }
}

}  // namespace skinref::any_order_vertex

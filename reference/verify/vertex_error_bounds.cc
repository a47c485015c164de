// The float computation of gpu/shaders/skin.comp, vertex by vertex, in Bounded arithmetic (running_error.h),
// with its inputs prepared as gpu/skinning_gpu.cc prepares them. Keep the three in the same order of
// operations: the bound is of that computation. docs/error_bounds.md derives each step.
#include "verify/vertex_error_bounds.h"

#include "skin/dqs.h"
#include "verify/running_error.h"
#include "verify/vertex_bounds_walk.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace skinref {
namespace {

using running_error::kInfinity;
using BVec3 = std::array<Bounded, 3>;
using BVec4 = std::array<Bounded, 4>;  // x y z w

// ---- GLSL operations on Bounded values ---------------------------------------------------------------------

BVec3 operator+(const BVec3& a, const BVec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
BVec3 operator-(const BVec3& a) { return {-a[0], -a[1], -a[2]}; }
BVec3 operator*(const BVec3& a, Bounded s) { return {a[0] * s, a[1] * s, a[2] * s}; }

// x * w where the weight may be exactly 1 or 0 (a rigid node's implicit weight, an unused slot): the float
// product is then exact, and so is adding an exact zero below.
Bounded weighted(Bounded x, Bounded w) {
  if (w.error == 0.0 && w.value == 1.0) return x;
  if (w.error == 0.0 && w.value == 0.0) return exact(0.0);
  return x * w;
}
bool exact_zero(Bounded x) { return x.value == 0.0 && x.error == 0.0; }
// acc + x, where the float sum is exact when x is an exact zero (or acc is, at the first term).
Bounded accumulate(Bounded acc, Bounded x, bool first) {
  if (first) return x;
  if (exact_zero(x)) return acc;
  return acc + x;
}

// GLSL's dot() and the sum inside it: the implementation chooses the order of the additions (and may fuse
// them with the products), so every partial sum is bounded by the sum of the magnitudes: the bound holds for
// any order. A fused multiply-add is at least as accurate as the separate operations (verify/float_model.h).
template <size_t N>
Bounded sum_any_order(const std::array<Bounded, N>& terms) {
  double value = 0.0, propagated = 0.0, magnitude_sum = 0.0;
  for (const Bounded& t : terms) {
    value += t.value;
    propagated += t.error;
    magnitude_sum += std::abs(t.value);
  }
  return {value, propagated + double(N - 1) * running_error::rounding(magnitude_sum + propagated,
                                                                      tol::kFloatAddMulUlps)};
}
Bounded dot(const BVec3& a, const BVec3& b) { return sum_any_order<3>({a[0] * b[0], a[1] * b[1], a[2] * b[2]}); }
Bounded dot(const BVec4& a, const BVec4& b) {
  return sum_any_order<4>({a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]});
}

// GLSL's cross(x, y) = (x1 y2 - y1 x2, x2 y0 - y2 x0, x0 y1 - y0 x1).
BVec3 cross(const BVec3& x, const BVec3& y) {
  return {x[1] * y[2] - y[1] * x[2], x[2] * y[0] - y[2] * x[0], x[0] * y[1] - y[0] * x[1]};
}

// The Euclidean norm of the error vector: |d_i| <= e_i for each component gives |d| <= sqrt(sum e_i^2).
double euclidean(const BVec3& v) {
  return std::sqrt(v[0].error * v[0].error + v[1].error * v[1].error + v[2].error * v[2].error);
}

// skin.comp's normalized(v) = v * (1 / |v|), |v| = sqrt((x*x + y*y) + z*z), a zero vector kept: the bound on
// the Euclidean distance of the float result from the reference's unit vector. Mirrored op by op, which
// carries v's error through the division (about 2 |dv| / |v|, the bound of |v/|v| - w/|w|| <= 2 |v - w| / |v|)
// and adds the normalization's own rounding. Capped at tol::kUnitVectorDifferenceCap, which any float unit
// vector satisfies (as does the tiny vector kept when the float length rounds to 0): also the bound when |v|
// is within its error, where the direction can be anything.
double normalized_bound(const BVec3& v) {
  if (exact_zero(v[0]) && exact_zero(v[1]) && exact_zero(v[2])) return 0.0;  // zero on both sides, kept
  const Bounded length = sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]);
  const Bounded inverse = exact(1.0) / length;
  if (!std::isfinite(inverse.error)) return tol::kUnitVectorDifferenceCap;
  const double bound = euclidean({v[0] * inverse, v[1] * inverse, v[2] * inverse});
  return std::min(bound, tol::kUnitVectorDifferenceCap);
}

// A test `x == 0.0` of the shaders comes out as the reference's x != 0 when the bound does not reach zero.
bool nonzero_certain(Bounded x) { return std::abs(x.value) > x.error; }

// A test `x < 0.0` of the shaders (a determinant's sign, the hemisphere of a quaternion) comes out as the
// reference's: the float x is in [value - error, value + error], and an exact zero (error 0: e.g. the dot
// product of quaternions a half turn apart, whose products are exact zeros) is not below zero on either side.
bool sign_test_certain(Bounded x) { return x.value < 0.0 ? x.value + x.error < 0.0 : x.value - x.error >= 0.0; }

// ---- the inputs of skin.comp, per palette entry ------------------------------------------------------------

// One palette entry as the shader reads it: JM's columns, the normal matrix's rows, and for DQS the rigid
// part's dual quaternion and the non-rigid part's rows.
struct EntryInputs {
  Bounded column[4][3];      // c0..c3 (xyz)
  Bounded normal_row[3][3];  // rows of the normal matrix
  bool dq_bounded = true;    // false: the DQS inputs have no bound (see split_bounds)
  BVec4 real, dual;          // x y z w
  BVec3 s_row[3];            // rows of S
  // For the positions of an engine's own palette (LBS): JM^ = JM' + (G^ - G) IBM^, JM' = G IBM^ with
  // animation.comp's rounding (lever_columns()); the global's error then reaches a vertex through IBM^ p, its
  // position in the joint's frame (detail::lever_at_vertex()).
  detail::JointLeverArm arm;
  Bounded lever_column[4][3];
};

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

// The DQS inputs of one palette entry. `linear_error` (elementwise bounds on A, row-major) and
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
                         const std::array<double, 9>* normal_error, SkinningMethod method,
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
  switch (method) {
    case SkinningMethod::Lbs: break;  // the columns and normal rows above are all it reads
    case SkinningMethod::Dqs: {       // the split of each joint (DqsJointSplit) and its bounds
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
using PrimitiveJob = detail::PrimitiveWalk<EntryInputs, Bounded>;
using ActiveTarget = detail::ActiveTarget<Bounded>;

BVec3 input3(const Vec3& v) { return {input(v.x()), input(v.y()), input(v.z())}; }

void set_infinite(const PrimitiveJob& job, size_t v, bool normals, bool tangents) {
  job.out->position[v] = kInfinity;
  if (normals) job.out->normal[v] = kInfinity;
  if (tangents) job.out->tangent[v] = kInfinity;
}

// One vertex after its morph targets and weight sum, ready for a method's blend: the bounded bind-space
// attributes, its influences and the (renormalized) weights.
struct BlendInputs {
  const PrimitiveJob& job;
  size_t v;
  bool normals, tangents;
  BVec3 p, n, t;
  size_t count;
  const double* stored;     // null for a rigid node
  const uint32_t* joints;   // null for a rigid node
  Bounded sum;

  Bounded weight_of(size_t i) const { return job.rigid ? exact(1.0) : input(stored[i]); }
  const EntryInputs& entry_of(size_t i) const { return job.entries[job.rigid ? 0 : joints[i]]; }
  Bounded blend_weight(size_t i) const { return job.renormalize ? weight_of(i) / sum : weight_of(i); }
};

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
  const BlendInputs blend{job, v, normals, tangents, p, n, t, count, stored, joints, sum};
  switch (job.method) {
    case SkinningMethod::Lbs: bound_lbs_vertex(blend); return;
    case SkinningMethod::Dqs: bound_dqs_vertex(blend); return;
  }
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

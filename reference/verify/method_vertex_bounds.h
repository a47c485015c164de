// Internal to the two vertex bound models (vertex_error_bounds.cc: skinref's order; any_order_vertex_bounds.cc:
// any order) and to method_vertex_bounds.cc, which holds what each skinning method adds to both: a vertex's
// bound from its blend on. Each model prepares the palette entries (with what the method's PaletteBlend needs,
// skin/method.h), the morph targets and the weight sum, then hands the vertex to its bound_method_vertex(),
// one switch over the method per model.
//
// Contract:
// - skinref_order: skin.comp's float computation in Bounded arithmetic (running_error.h), GLSL's operations on
//   Bounded vectors, one palette entry as the shader reads it (EntryInputs), one vertex ready for the blend
//   (BlendInputs). bound_method_vertex() fills in.job.out for vertex in.v.
// - any_order_vertex: every stage a polynomial in the float inputs (any_order_arithmetic.h), one palette entry as
//   an engine holds it (Entry), the vertex's influences of non-zero weight (renormalized where asked).
//   bound_method_vertex() fills in job.out for vertex v.
// - set_infinite(): the vertex has no bound (a branch that may go either way, an input without a bound).
#pragma once

#include "verify/any_order_arithmetic.h"
#include "verify/running_error.h"
#include "verify/vertex_bounds_walk.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace skinref::skinref_order {

using skinref::exact;
using skinref::input;
using running_error::kInfinity;
using BVec3 = std::array<Bounded, 3>;
using BVec4 = std::array<Bounded, 4>;  // x y z w

// ---- GLSL operations on Bounded values ---------------------------------------------------------------------

inline BVec3 operator+(const BVec3& a, const BVec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline BVec3 operator-(const BVec3& a) { return {-a[0], -a[1], -a[2]}; }
inline BVec3 operator*(const BVec3& a, Bounded s) { return {a[0] * s, a[1] * s, a[2] * s}; }

// x * w where the weight may be exactly 1 or 0 (a rigid node's implicit weight, an unused slot): the float
// product is then exact, and so is adding an exact zero below.
inline Bounded weighted(Bounded x, Bounded w) {
  if (w.error == 0.0 && w.value == 1.0) return x;
  if (w.error == 0.0 && w.value == 0.0) return exact(0.0);
  return x * w;
}
inline bool exact_zero(Bounded x) { return x.value == 0.0 && x.error == 0.0; }
// acc + x, where the float sum is exact when x is an exact zero (or acc is, at the first term).
inline Bounded accumulate(Bounded acc, Bounded x, bool first) {
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
inline Bounded dot(const BVec3& a, const BVec3& b) {
  return sum_any_order<3>({a[0] * b[0], a[1] * b[1], a[2] * b[2]});
}
inline Bounded dot(const BVec4& a, const BVec4& b) {
  return sum_any_order<4>({a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]});
}

// GLSL's cross(x, y) = (x1 y2 - y1 x2, x2 y0 - y2 x0, x0 y1 - y0 x1).
inline BVec3 cross(const BVec3& x, const BVec3& y) {
  return {x[1] * y[2] - y[1] * x[2], x[2] * y[0] - y[2] * x[0], x[0] * y[1] - y[0] * x[1]};
}

// The Euclidean norm of the error vector: |d_i| <= e_i for each component gives |d| <= sqrt(sum e_i^2).
inline double euclidean(const BVec3& v) {
  return std::sqrt(v[0].error * v[0].error + v[1].error * v[1].error + v[2].error * v[2].error);
}

// skin.comp's normalized(v) = v * (1 / |v|), |v| = sqrt((x*x + y*y) + z*z), a zero vector kept: the bound on
// the Euclidean distance of the float result from the reference's unit vector. Mirrored op by op, which
// carries v's error through the division (about 2 |dv| / |v|, the bound of |v/|v| - w/|w|| <= 2 |v - w| / |v|)
// and adds the normalization's own rounding. Capped at tol::kUnitVectorDifferenceCap, which any float unit
// vector satisfies (as does the tiny vector kept when the float length rounds to 0): also the bound when |v|
// is within its error, where the direction can be anything.
inline double normalized_bound(const BVec3& v) {
  if (exact_zero(v[0]) && exact_zero(v[1]) && exact_zero(v[2])) return 0.0;  // zero on both sides, kept
  const Bounded length = sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]);
  const Bounded inverse = exact(1.0) / length;
  if (!std::isfinite(inverse.error)) return tol::kUnitVectorDifferenceCap;
  const double bound = euclidean({v[0] * inverse, v[1] * inverse, v[2] * inverse});
  return std::min(bound, tol::kUnitVectorDifferenceCap);
}

// A test `x == 0.0` of the shaders comes out as the reference's x != 0 when the bound does not reach zero.
inline bool nonzero_certain(Bounded x) { return std::abs(x.value) > x.error; }

// A test `x < 0.0` of the shaders (a determinant's sign, the hemisphere of a quaternion) comes out as the
// reference's: the float x is in [value - error, value + error], and an exact zero (error 0: e.g. the dot
// product of quaternions a half turn apart, whose products are exact zeros) is not below zero on either side.
inline bool sign_test_certain(Bounded x) {
  return x.value < 0.0 ? x.value + x.error < 0.0 : x.value - x.error >= 0.0;
}

// ---- the inputs of skin.comp, per palette entry ------------------------------------------------------------

// One palette entry as the shader reads it: JM's columns, the normal matrix's rows, and for a method that
// blends dual quaternions (PaletteBlend) the rigid part's dual quaternion and the non-rigid part's rows.
struct EntryInputs {
  Bounded column[4][3];      // c0..c3 (xyz)
  Bounded normal_row[3][3];  // rows of the normal matrix
  bool dq_bounded = true;    // false: the dual quaternion inputs have no bound (see split_bounds)
  BVec4 real, dual;          // x y z w
  BVec3 s_row[3];            // rows of S
  // For the positions of an engine's own palette (LBS): JM^ = JM' + (G^ - G) IBM^, JM' = G IBM^ with
  // animation.comp's rounding (lever_columns()); the global's error then reaches a vertex through IBM^ p, its
  // position in the joint's frame (detail::lever_at_vertex()).
  detail::JointLeverArm arm;
  Bounded lever_column[4][3];
};

// ---- per vertex ----------------------------------------------------------------------------------------------

// One primitive's inputs (vertex_bounds_walk.h).
using PrimitiveJob = detail::PrimitiveWalk<EntryInputs, Bounded>;

inline void set_infinite(const PrimitiveJob& job, size_t v, bool normals, bool tangents) {
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

// The vertex's bound under its method (in.job.method), from the blend on.
void bound_method_vertex(const BlendInputs& in);

}  // namespace skinref::skinref_order

namespace skinref::any_order_vertex {

using any_order::exact;
using any_order::input;
using any_order::kInfinity;
using any_order::MonomialSum;

using GVec3 = std::array<Gauged, 3>;

inline double length_of(const GVec3& v) { return any_order::euclidean_value(v.data(), 3); }
inline double error_of(const GVec3& v) { return any_order::euclidean_error(v.data(), 3); }

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

using PrimitiveJob = detail::PrimitiveWalk<Entry, Gauged>;

struct Influence {
  Gauged weight;
  const Entry* entry;
};

inline void set_infinite(const PrimitiveJob& job, size_t v) {
  job.out->position[v] = kInfinity;
  if (!job.out->normal.empty()) job.out->normal[v] = kInfinity;
  if (!job.out->tangent.empty()) job.out->tangent[v] = kInfinity;
}

// The vertex's bound under its method (job.method): its influences of non-zero weight (at least one), its
// morphed position p, normal n and tangent t (null where the primitive has none).
void bound_method_vertex(const PrimitiveJob& job, size_t v, const std::vector<Influence>& influences, const GVec3& p,
                         const GVec3* n, const GVec3* t);

}  // namespace skinref::any_order_vertex

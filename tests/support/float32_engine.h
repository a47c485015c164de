// An independent float32 engine for the bounds tests: the glTF 2.0 pipeline evaluated in float32 in an order
// different from skinref's at every stage, as another correct engine would (and a correct engine must pass the
// bounds). It reads skinref's Scene (the loader is not under test here) and shares no evaluation code with
// reference/.
//
// Contract (every value float32; differences from skinref's order in brackets):
// - Sampling: clamped outside the keys, a key's own value at its time. LINEAR vectors (1 - u) a + u b
//   [skinref: a + (b - a) u]; rotations by slerp through acos and sin [skinref: atan2 of chords, sincos
//   tables], short path, the keys normalized first and the result normalized, nlerp below 1e-3 rad;
//   CUBICSPLINE Hermite in Horner form, tangents times the interval, rotations normalized.
// - Local T * R * S as three 4x4 products [skinref: one composed matrix]; globals G = G(parent) * L by a
//   recursive walk from the roots with each dot product summed last term first; joint matrices G * IBM
//   likewise.
// - Morph targets in reverse order. LBS blends positions, p' = sum_i w_i (JM_i p) [skinref: blends the
//   matrices], influences in reverse order; normals by the cofactor of the blended upper 3x3, tangents by
//   the blended upper 3x3, both normalized; weights as stored; a vertex whose weights sum to 0 keeps its
//   bind attributes. Rigid mesh nodes by their global matrix.
// - Output: world primitives in drawn_nodes() order, like evaluate_vertices().
//
// Float32EngineChoices: choices that the any-order contract (verify/any_order_pose_bounds.h) leaves to an
// engine. kIndependentEngine is the engine above, rounding to nearest. kEngineAtTheContractLimits uses up every
// stated allowance in the one direction that shrinks, so that its errors add up instead of cancelling: every
// + - * / and sqrt rounded toward zero; quaternions (keys and CUBICSPLINE results) normalized to their exact
// value times (1 - 3 u), then rounded (within the stated 4 ulp); slerp weights the exact ones times (1 - 3 u),
// then rounded (within 4 ulp of c0 + c1), the result not renormalized; rotation matrices by the homogeneous
// form w^2 + x^2 - y^2 - z^2, which turns a quaternion's length into a scale. It is still a correct engine,
// and its error is about what the bounds must admit (docs/error_bounds.md, "How tight").
// kEngineAtTheContractLimitsOutward uses them up the other way (quaternions and weights 3 u long), and
// kEngineAtTheContractLimitsGodot with Godot's form, which divides the length out and rounds the most.
#pragma once

#include "core/scene.h"
#include "core/vertices.h"

#include <vector>

namespace skinref::test {

enum class RotationMatrixForm {
  UnitAssuming,  // 1 - 2 (y^2 + z^2), 2 (x y - w z): glm, Eigen, ozz, three.js
  Homogeneous,   // w^2 + x^2 - y^2 - z^2, 2 (x y - w z)
  Godot,         // s = 2 / |q|^2: 1 - s (y^2 + z^2), s (x y - w z)
};

struct Float32EngineChoices {
  bool round_toward_zero = false;                 // + - * / sqrt toward zero (else to nearest)
  double normalize_bias_ulps = 0.0;               // 0: quaternions normalized by sqrt and division in float
  double slerp_weight_bias_ulps = 0.0;            // 0: slerp weights by acos and sin in float
  bool renormalize_slerp = true;                  // the slerp's result normalized
  RotationMatrixForm rotation_matrix_form = RotationMatrixForm::UnitAssuming;
};
inline constexpr Float32EngineChoices kIndependentEngine{};
inline constexpr Float32EngineChoices kEngineAtTheContractLimits{true, -3.0, -3.0, false, RotationMatrixForm::Homogeneous};
inline constexpr Float32EngineChoices kEngineAtTheContractLimitsOutward{true, 3.0, 3.0, false,
                                                                        RotationMatrixForm::Homogeneous};
inline constexpr Float32EngineChoices kEngineAtTheContractLimitsGodot{true, -3.0, -3.0, false, RotationMatrixForm::Godot};

std::vector<WorldPrimitive> float32_engine_vertices(const Scene& scene, int animation, float time,
                                                    const Float32EngineChoices& choices = kIndependentEngine);

}  // namespace skinref::test

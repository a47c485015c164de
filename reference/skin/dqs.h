// Stage: dual quaternion skinning (DQS) of one primitive, in double precision.
//
// Contract (Kavan et al. 2008, "Geometric skinning with approximate dual quaternion blending", including its
// two-phase treatment of scale and shear):
// - Each palette matrix JM_i = [A_i | t_i] is split into a rigid part C_i = [Q_i | t_i] and a non-rigid part
//   S_i = Q_i^T A_i (polar decomposition A_i = Q_i S_i, Q_i a proper rotation, S_i symmetric; a reflection
//   stays in S_i), so JM_i p = C_i (S_i p).
// - Phase 1 (non-rigid, linear): S(v) = sum_i w_i S_i, p_s = S(v) p, n_s = normal_matrix(S(v)) n,
//   t_s = S(v) t.xyz. For rigid palettes S_i = I (to rounding) and this phase does nothing.
// - Phase 2 (rigid, dual quaternions): C_i as a unit dual quaternion (real part q_i from Q_i, dual part
//   0.5 * (0, t_i) * q_i); each q_i sign-aligned with the pivot's, the first influence of non-zero weight
//   (antipodality: dot < 0 flips both parts; a zero-weight slot, e.g. an unused one, never decides the
//   signs); b = sum_i w_i dq_i, normalized by |b.real|; p' = b applied to p_s (rotation then translation,
//   translation = 2 (b.dual conj(b.real)).vec()), n' and t' rotated by b.real and normalized; tangent w kept.
// - Weights, zero-weight vertices, threads, output sizes and errors: as skin_lbs (skin/lbs.h). With
//   AsStored weights that do not sum to 1, S(v) carries the sum (the rigid part is normalized anyway). A
//   vertex whose blended real part is exactly zero (reachable only with negative weights) keeps its bind
//   attributes, like a zero weight sum. The normal mode option does not apply (normals always use the
//   inverse transpose of the blended non-rigid part).
// - Kernel (options.kernel): Auto runs the AVX-512 kernel where the CPU and build have it, else the scalar one;
//   Scalar forces the scalar one; Avx512 throws std::invalid_argument where it is not available; Avx2 runs the
//   scalar one (DQS has no AVX2 kernel). Every kernel performs the same IEEE operations in the same order per
//   vertex, so all give identical bits (tested).
#pragma once

#include "skin/lbs.h"

#include <array>

namespace skinref {

// The split of one palette matrix JM = [A | t] (the first bullet above), in the one order of operations that
// every user shares (this kernel, the GPU path's inputs, the float32 error bounds): the polar decomposition
// from Eigen's JacobiSVD, Q = U diag(1, 1, det(U V^T)) V^T, S = Q^T A, and C = [Q | t] as the unit dual
// quaternion (q, 0.5 (0, t) q). Quaternion parts are stored x, y, z, w.
struct DqsJointSplit {
  Mat3 s;                      // the non-rigid part S
  std::array<double, 4> real;  // q
  std::array<double, 4> dual;  // 0.5 (0, t) q
  Vec3 singular_values;        // of A, decreasing
};

DqsJointSplit split_dqs_joint(const Mat4& jm);

void skin_dqs(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output);

// Whether skin_dqs can run `kernel` here; its name ("scalar", "avx512"; Auto: the one chosen).
bool dqs_kernel_available(SkinningKernel kernel);
const char* dqs_kernel_name(SkinningKernel kernel);

}  // namespace skinref

// Stage: linear blend skinning (LBS) of one primitive, in double precision.
//
// Contract:
// - Inputs: bind-space positions (and optionally normals, tangents) of n vertices; `influences_per_vertex`
//   (any k >= 1) joint indices and weights per vertex, flattened (see Primitive); the skin's palette.
// - Blended matrix B(v) = sum_i w_i * JM_{j_i}, summed in influence order (deterministic).
// - Positions: B(v) * (p, 1). A vertex whose weights sum to exactly 0 keeps its bind position, normal and
//   tangent (it would otherwise collapse to the origin).
// - Weight policy: AsStored (default) uses the weights as the file gives them, even when they do not sum to
//   1 (that is what a GPU shader does); Renormalize divides by their sum first.
// - Normals (default NormalMode::InverseTransposeOfBlend): normal_matrix(upper 3x3 of B) * n, normalized,
//   i.e. the inverse transpose of the blended matrix, correct under non-uniform scale. The alternative,
//   BlendedNormalMatrices, blends the per-joint normal matrices with the same weights (a common GPU
//   shortcut); they agree where a vertex's influences share one linear part (e.g. a single influence) and
//   differ otherwise, even for rigid joints (a blend of two rotations is not a rotation). A zero-length
//   result stays zero.
// - Tangents: xyz by the upper 3x3 of B, normalized; w (handedness) copied.
// - Outputs are resized to n (normals/tangents only when given). Bit-identical for any thread count (each
//   vertex is computed by itself) and with or without SIMD (both kernels perform the same IEEE operations
//   in the same order; see skin/lbs.cc).
#pragma once

#include "skin/options.h"

namespace skinref {

// Throws std::invalid_argument on inconsistent sizes, a joint index outside the palette, or a kernel this
// CPU or build cannot run.
void skin_lbs(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output);

bool skinning_kernel_available(SkinningKernel kernel);
const char* skinning_kernel_name(SkinningKernel kernel);  // "scalar", "avx2", "avx512"; Auto: the one chosen

}  // namespace skinref

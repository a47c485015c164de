// The inputs and options every skinning stage shares (skin/lbs.h, skin/dqs.h and the backends' kernels).
//
// Contract:
// - SkinningOptions::method picks the stage (skin/method.h); evaluate_vertices() and each backend dispatch
//   on it, and a stage called directly ignores it. The weight policy, normal mode, threads and kernel are
//   documented at the stage that reads them (skin/lbs.h; DQS states which apply to it).
// - SkinningInput views one primitive's bind-space attributes (positions; normals, tangents empty or n),
//   its flattened influences (influences_per_vertex >= 1 joint indices and weights per vertex, see
//   Primitive in core/scene.h) and the palette they index. Nothing is owned.
#pragma once

#include "core/pose.h"
#include "core/vertices.h"
#include "skin/method.h"

#include <cstdint>
#include <span>

namespace skinref {

enum class WeightPolicy { AsStored, Renormalize };
// Which kernel runs. Auto: the reference's stages take the widest the CPU has; the CPU backend measures the
// fastest (cpu/kernel_choice.h). All give identical bits; a forced one exists for benchmarks, for `skin
// --cpu-kernel` and for the test that proves the bits identical.
enum class SkinningKernel { Auto, Scalar, Avx2, Avx512 };
enum class NormalMode { InverseTransposeOfBlend, BlendedNormalMatrices };

struct SkinningOptions {
  SkinningMethod method = kDefaultSkinningMethod;  // evaluate_vertices() dispatches on it; a stage ignores it
  WeightPolicy weights = WeightPolicy::AsStored;
  NormalMode normals = NormalMode::InverseTransposeOfBlend;
  int threads = 1;  // >= 1; vertex ranges are split evenly, results do not depend on it
  SkinningKernel kernel = SkinningKernel::Auto;
};

struct SkinningInput {
  std::span<const Vec3> positions;
  std::span<const Vec3> normals;    // empty or n
  std::span<const Vec4> tangents;   // empty or n
  int influences_per_vertex = 0;
  std::span<const uint32_t> joints;  // n * influences_per_vertex, each < palette size
  std::span<const double> weights;   // n * influences_per_vertex
  const JointPalette* palette = nullptr;
};

}  // namespace skinref

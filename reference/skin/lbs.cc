// LBS kernel. The palette is repacked once per call into column-major 3x4 blocks padded to 4x4
// (16 doubles per joint: columns c0, c1, c2 of the linear part and the translation c3, each (x, y, z, 0)).
// In that layout every step is a lane-wise operation on columns:
//   blend         C_k = sum_i w_i * JM_i.c_k                       (influence order)
//   position      p'  = ((C0 * px + C1 * py) + C2 * pz) + C3
//   normal        K0 = C1 x C2, K1 = C2 x C0, K2 = C0 x C1 (the cofactor matrix, = det * inverse transpose)
//                 n'  = ((K0 * nx + K1 * ny) + K2 * nz) * sign(det),  det = ((c0x K0x + c1x K1x) + c2x K2x)
//   tangent       t'  = (C0 * tx + C1 * ty) + C2 * tz
// and then n' * (1 / |n'|), |n'| = sqrt((x*x + y*y) + z*z). The SIMD kernels and the scalar kernel perform exactly
// these IEEE operations in exactly this order, so they give identical bits (tested), whichever the CPU runs.
// The SIMD kernels are in skin/lbs_simd.inc, compiled once per instruction set.
// Every vertex is computed alone: results are bit-identical for any thread count.
#include "skin/lbs.h"

#include "core/parallel_ranges.h"
#include "skin/lbs_kernels.h"

#include <atomic>
#include <stdexcept>

namespace skinref {
namespace lbs_detail {
namespace {

// a x b as the SIMD kernels compute it, lane for lane.
inline void cross(const double* a, const double* b, double* out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

template <int kFixed, bool kRenormalize>  // kFixed > 0: the influence count at compile time; 0: a.influences
size_t skin_range_scalar(const KernelArgs& a, size_t begin, size_t end) {
  const int k = kFixed > 0 ? kFixed : a.influences;
  for (size_t v = begin; v < end; ++v) {
    double sum;
    bool bad;
    if (!weight_sum<kFixed>(a, v, &sum, &bad)) {
      if (bad) return v;
      copy_bind(a, v);
      continue;
    }
    const uint32_t* jv = a.joints + v * size_t(k);
    const double* wv = a.weights + v * size_t(k);
    double c[kBlock];
    {
      const double w = kRenormalize ? wv[0] / sum : wv[0];
      const double* p = a.columns + size_t(jv[0]) * kBlock;
      for (int e = 0; e < kBlock; ++e) c[e] = w * p[e];
    }
#pragma GCC unroll 8
    for (int i = 1; i < k; ++i) {
      const double w = kRenormalize ? wv[i] / sum : wv[i];
      const double* p = a.columns + size_t(jv[i]) * kBlock;
      for (int e = 0; e < kBlock; ++e) c[e] = c[e] + w * p[e];
    }
    const double* c0 = c;
    const double* c1 = c + 4;
    const double* c2 = c + 8;
    const double* c3 = c + 12;
    const double* p = a.positions + v * 3;
    double* op = a.out_positions + v * 3;
    for (int r = 0; r < 3; ++r) op[r] = ((c0[r] * p[0] + c1[r] * p[1]) + c2[r] * p[2]) + c3[r];
    if (a.normals) {
      double* on = a.out_normals + v * 3;
      if (a.blend_normal_matrices) {
        blended_normal(a, v, sum, kRenormalize, on);
      } else {
        double k0[3], k1[3], k2[3];
        cross(c1, c2, k0);
        cross(c2, c0, k1);
        cross(c0, c1, k2);
        const double det = (c0[0] * k0[0] + c1[0] * k1[0]) + c2[0] * k2[0];
        const double* n = a.normals + v * 3;
        for (int r = 0; r < 3; ++r) {
          const double value = (k0[r] * n[0] + k1[r] * n[1]) + k2[r] * n[2];
          on[r] = det < 0.0 ? -value : value;
        }
        normalize3(on);
      }
    }
    if (a.tangents) {
      const double* t = a.tangents + v * 4;
      double* ot = a.out_tangents + v * 4;
      for (int r = 0; r < 3; ++r) ot[r] = (c0[r] * t[0] + c1[r] * t[1]) + c2[r] * t[2];
      ot[3] = t[3];
      normalize3(ot);
    }
  }
  return end;
}

template <bool kRenormalize>
RangeKernel select_scalar(int influences) {
  switch (influences) {
    case 1: return &skin_range_scalar<1, kRenormalize>;
    case 2: return &skin_range_scalar<2, kRenormalize>;
    case 4: return &skin_range_scalar<4, kRenormalize>;
    case 8: return &skin_range_scalar<8, kRenormalize>;
    default: return &skin_range_scalar<0, kRenormalize>;
  }
}

}  // namespace

RangeKernel scalar_kernel(int influences, bool renormalize) {
  return renormalize ? select_scalar<true>(influences) : select_scalar<false>(influences);
}

}  // namespace lbs_detail

namespace {

using lbs_detail::kBlock;

lbs_detail::RangeKernel find_lbs_kernel(SkinningKernel which, int influences, bool renormalize) {
  switch (which) {
    case SkinningKernel::Scalar: return lbs_detail::scalar_kernel(influences, renormalize);
    case SkinningKernel::Avx2: return lbs_detail::avx2_kernel(influences, renormalize);
    case SkinningKernel::Avx512: return lbs_detail::avx512_kernel(influences, renormalize);
    case SkinningKernel::Auto: break;
  }
  for (SkinningKernel k : {SkinningKernel::Avx512, SkinningKernel::Avx2, SkinningKernel::Scalar})
    if (lbs_detail::RangeKernel kernel = find_lbs_kernel(k, influences, renormalize)) return kernel;
  return nullptr;
}

}  // namespace

bool skinning_kernel_available(SkinningKernel kernel) { return find_lbs_kernel(kernel, 4, false) != nullptr; }

const char* skinning_kernel_name(SkinningKernel kernel) {
  if (kernel == SkinningKernel::Auto) {
    for (SkinningKernel k : {SkinningKernel::Avx512, SkinningKernel::Avx2})
      if (skinning_kernel_available(k)) return skinning_kernel_name(k);
    return "scalar";
  }
  return kernel == SkinningKernel::Avx512 ? "avx512" : kernel == SkinningKernel::Avx2 ? "avx2" : "scalar";
}

void skin_lbs(const SkinningInput& in, const SkinningOptions& options, SkinnedVertices& out) {
  const size_t n = in.positions.size();
  const int k = in.influences_per_vertex;
  if (in.palette == nullptr || k < 1 || in.joints.size() != n * size_t(k) || in.weights.size() != n * size_t(k) ||
      (!in.normals.empty() && in.normals.size() != n) || (!in.tangents.empty() && in.tangents.size() != n) ||
      options.threads < 1)
    throw std::invalid_argument("skin_lbs: inconsistent input sizes or options");
  const lbs_detail::RangeKernel kernel = find_lbs_kernel(options.kernel, k, options.weights == WeightPolicy::Renormalize);
  if (kernel == nullptr)
    throw std::invalid_argument(std::string("skin_lbs: the ") + skinning_kernel_name(options.kernel) +
                                " kernel is not available on this CPU or build");

  // The palette, repacked once: columns c0..c3 of each JM as (x, y, z, 0); normal matrices row-major.
  const JointPalette& palette = *in.palette;
  // Each joint's block starts a 64-byte cache line, so that the AVX-512 kernel's loads of two columns never
  // split one (operator new aligns to 16 only).
  std::vector<double> column_storage(palette.skinning.size() * kBlock + 7, 0.0);
  const size_t misalignment = reinterpret_cast<uintptr_t>(column_storage.data()) % 64 / sizeof(double);
  double* const columns = column_storage.data() + (8 - misalignment) % 8;
  std::vector<double> normal_matrices(palette.normal.size() * 9);
  for (size_t j = 0; j < palette.skinning.size(); ++j) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 3; ++r) columns[j * kBlock + size_t(c * 4 + r)] = palette.skinning[j](r, c);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) normal_matrices[j * 9 + size_t(r * 3 + c)] = palette.normal[j](r, c);
  }

  out.positions.resize(n);
  out.normals.resize(in.normals.empty() ? 0 : n);
  out.tangents.resize(in.tangents.empty() ? 0 : n);
  // Eigen's fixed-size vectors of 3 and 4 doubles hold exactly their doubles, contiguously.
  static_assert(sizeof(Vec3) == 3 * sizeof(double) && sizeof(Vec4) == 4 * sizeof(double));
  const lbs_detail::KernelArgs args{in.positions.data()->data(),
                                    in.normals.empty() ? nullptr : in.normals.data()->data(),
                                    in.tangents.empty() ? nullptr : in.tangents.data()->data(),
                                    in.joints.data(),
                                    in.weights.data(),
                                    k,
                                    columns,
                                    normal_matrices.data(),
                                    palette.skinning.size(),
                                    options.normals == NormalMode::BlendedNormalMatrices,
                                    out.positions.data()->data(),
                                    out.normals.empty() ? nullptr : out.normals.data()->data(),
                                    out.tangents.empty() ? nullptr : out.tangents.data()->data()};

  // Contiguous vertex ranges, one per thread and at most one per 4096 vertices; each thread writes only its
  // own range. A range stops at its first joint index outside the palette; the error is thrown once all are
  // joined.
  std::atomic<bool> bad_joint{false};
  detail::for_each_range(n, options.threads, 4096, [&](size_t begin, size_t end) {
    if (kernel(args, begin, end) != end) bad_joint.store(true, std::memory_order_relaxed);
  });
  if (bad_joint.load()) throw std::invalid_argument("skin_lbs: joint index outside the palette");
}

}  // namespace skinref

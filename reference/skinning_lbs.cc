// LBS kernel. The palette is repacked once per call into row-major 3x4 blocks (12 doubles per joint), so
// the per-vertex blend is a fixed-length loop the compiler vectorizes; the influence count is a template
// parameter for the common cases so the blend unrolls. Every vertex is computed alone, in a fixed order:
// results are bit-identical for any thread count.
#include "skinning_lbs.h"

#include <cmath>
#include <stdexcept>
#include <thread>

namespace skinref {
namespace {

struct PackedPalette {
  std::vector<double> affine;  // per joint: rows 0..2 of JM, 4 doubles each
  std::vector<double> normal;  // per joint: the 3x3 normal matrix, row-major
};

PackedPalette pack(const JointPalette& palette) {
  PackedPalette p;
  p.affine.resize(palette.skinning.size() * 12);
  p.normal.resize(palette.normal.size() * 9);
  for (size_t j = 0; j < palette.skinning.size(); ++j) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 4; ++c) p.affine[j * 12 + size_t(r * 4 + c)] = palette.skinning[j](r, c);
      for (int c = 0; c < 3; ++c) p.normal[j * 9 + size_t(r * 3 + c)] = palette.normal[j](r, c);
    }
  }
  return p;
}

// n' = cofactor(A) * n with the sign of det(A): the inverse transpose up to a positive factor.
inline void transform_normal_by_blend(const double* m, const Vec3& n, Vec3& out) {
  const double c00 = m[5] * m[10] - m[6] * m[9];
  const double c01 = m[6] * m[8] - m[4] * m[10];
  const double c02 = m[4] * m[9] - m[5] * m[8];
  const double c10 = m[2] * m[9] - m[1] * m[10];
  const double c11 = m[0] * m[10] - m[2] * m[8];
  const double c12 = m[1] * m[8] - m[0] * m[9];
  const double c20 = m[1] * m[6] - m[2] * m[5];
  const double c21 = m[2] * m[4] - m[0] * m[6];
  const double c22 = m[0] * m[5] - m[1] * m[4];
  const double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
  const double sign = det < 0.0 ? -1.0 : 1.0;
  out = Vec3((c00 * n[0] + c01 * n[1] + c02 * n[2]) * sign, (c10 * n[0] + c11 * n[1] + c12 * n[2]) * sign,
             (c20 * n[0] + c21 * n[1] + c22 * n[2]) * sign);
}

inline void normalize_in_place(double* v) {
  const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (len > 0.0) {
    v[0] /= len;
    v[1] /= len;
    v[2] /= len;
  }
}

template <int kFixed>  // > 0: the influence count, known at compile time; 0: read from `runtime_k`
void skin_range(const SkinningInput& in, const SkinningOptions& options, const PackedPalette& palette, int runtime_k,
                size_t begin, size_t end, SkinnedVertices& out) {
  const int k = kFixed > 0 ? kFixed : runtime_k;
  const bool has_normals = !in.normals.empty();
  const bool has_tangents = !in.tangents.empty();
  const bool renormalize = options.weights == WeightPolicy::Renormalize;
  const bool blend_normals = options.normals == NormalMode::BlendedNormalMatrices;
  const uint32_t* joints = in.joints.data();
  const double* weights = in.weights.data();
  const double* affine = palette.affine.data();
  for (size_t v = begin; v < end; ++v) {
    const uint32_t* jv = joints + v * size_t(k);
    const double* wv = weights + v * size_t(k);
    double sum = wv[0];
    for (int i = 1; i < k; ++i) sum += wv[i];
    if (sum == 0.0) {  // no influence at all: keep the bind-space vertex
      out.positions[v] = in.positions[v];
      if (has_normals) out.normals[v] = in.normals[v];
      if (has_tangents) out.tangents[v] = in.tangents[v];
      continue;
    }
    double m[12];
    {
      const double w = renormalize ? wv[0] / sum : wv[0];
      const double* p = affine + size_t(jv[0]) * 12;
      for (int e = 0; e < 12; ++e) m[e] = w * p[e];
    }
    for (int i = 1; i < k; ++i) {
      const double w = renormalize ? wv[i] / sum : wv[i];
      const double* p = affine + size_t(jv[i]) * 12;
      for (int e = 0; e < 12; ++e) m[e] += w * p[e];
    }
    const Vec3& p = in.positions[v];
    out.positions[v] = Vec3(m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3],
                            m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7],
                            m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11]);
    if (has_normals) {
      Vec3& n = out.normals[v];
      if (blend_normals) {
        double nm[9];
        for (int e = 0; e < 9; ++e) nm[e] = 0.0;
        for (int i = 0; i < k; ++i) {
          const double w = renormalize ? wv[i] / sum : wv[i];
          const double* q = palette.normal.data() + size_t(jv[i]) * 9;
          for (int e = 0; e < 9; ++e) nm[e] += w * q[e];
        }
        const Vec3& s = in.normals[v];
        n = Vec3(nm[0] * s[0] + nm[1] * s[1] + nm[2] * s[2], nm[3] * s[0] + nm[4] * s[1] + nm[5] * s[2],
                 nm[6] * s[0] + nm[7] * s[1] + nm[8] * s[2]);
      } else {
        transform_normal_by_blend(m, in.normals[v], n);
      }
      normalize_in_place(n.data());
    }
    if (has_tangents) {
      const Vec4& t = in.tangents[v];
      Vec4& o = out.tangents[v];
      o = Vec4(m[0] * t[0] + m[1] * t[1] + m[2] * t[2], m[4] * t[0] + m[5] * t[1] + m[6] * t[2],
               m[8] * t[0] + m[9] * t[1] + m[10] * t[2], t[3]);
      normalize_in_place(o.data());
    }
  }
}

using RangeKernel = void (*)(const SkinningInput&, const SkinningOptions&, const PackedPalette&, int, size_t, size_t,
                             SkinnedVertices&);

RangeKernel kernel_for(int k) {
  switch (k) {
    case 1: return &skin_range<1>;
    case 2: return &skin_range<2>;
    case 4: return &skin_range<4>;
    case 8: return &skin_range<8>;
    default: return &skin_range<0>;
  }
}

}  // namespace

void skin_lbs(const SkinningInput& in, const SkinningOptions& options, SkinnedVertices& out) {
  const size_t n = in.positions.size();
  const int k = in.influences_per_vertex;
  if (in.palette == nullptr || k < 1 || in.joints.size() != n * size_t(k) || in.weights.size() != n * size_t(k) ||
      (!in.normals.empty() && in.normals.size() != n) || (!in.tangents.empty() && in.tangents.size() != n) ||
      options.threads < 1)
    throw std::invalid_argument("skin_lbs: inconsistent input sizes or options");
  const size_t joint_count = in.palette->skinning.size();
  for (uint32_t j : in.joints)
    if (j >= joint_count) throw std::invalid_argument("skin_lbs: joint index outside the palette");

  out.positions.resize(n);
  out.normals.resize(in.normals.empty() ? 0 : n);
  out.tangents.resize(in.tangents.empty() ? 0 : n);
  const PackedPalette palette = pack(*in.palette);
  const RangeKernel kernel = kernel_for(k);

  const size_t threads = std::min<size_t>(size_t(options.threads), std::max<size_t>(1, n / 4096));
  if (threads <= 1) {
    kernel(in, options, palette, k, 0, n, out);
    return;
  }
  std::vector<std::thread> workers;
  const size_t chunk = (n + threads - 1) / threads;
  for (size_t t = 1; t < threads; ++t) {
    const size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    workers.emplace_back([&, begin, end] { kernel(in, options, palette, k, begin, end, out); });
  }
  kernel(in, options, palette, k, 0, std::min(n, chunk), out);
  for (std::thread& w : workers) w.join();
}

}  // namespace skinref

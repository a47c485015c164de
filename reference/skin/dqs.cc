// DQS kernel (skin/dqs.h). Once per call, every palette matrix JM_i = [A_i | t_i] is split by the polar
// decomposition of A_i, computed from Eigen's JacobiSVD (deterministic: a fixed sequence of Jacobi sweeps):
//   A = U diag(s) V^T,  Q = U diag(1, 1, det(U V^T)) V^T  (the nearest proper rotation),  S = Q^T A,
// and [Q | t] becomes the unit dual quaternion (q, 0.5 (0, t) q). Per vertex, in influence order:
//   S(v) = sum w_i S_i,  b = sum s_i w_i dq_i  (s_i = -1 where q_i . q_pivot < 0, else +1),
//   r = b.real / |b.real|, d = b.dual / |b.real|,  translation = 2 (d conj(r)).vec() = 2 (r0 d - d0 r + r x d),
//   p' = R(r) (S(v) p) + translation,  n' = R(r) (normal_matrix(S(v)) n) normalized,  t' likewise with S(v),
// where R(r) and the translation are products of two components of r and d, so the division by |b.real| is
// applied as one factor 2 / |b.real|^2 (no square root).
// Every step has an explicit order of operations, and every vertex is computed alone, so the output is
// bit-identical for any thread count. The AVX-512 kernel (skin/dqs_avx512.cc, chosen by options.kernel)
// performs the same operations in the same order lane for lane, so it gives the same bits as this scalar one.
#include "skin/dqs.h"

#include "core/always_inline.h"
#include "core/parallel_ranges.h"
#include "skin/dqs_kernels.h"

#include <Eigen/SVD>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
namespace dqs_detail {
namespace {

// v * (1 / |v|), |v| = sqrt((x*x + y*y) + z*z); a zero vector stays zero.
inline void normalize(double* v) {
  const double len = std::sqrt((v[0] * v[0] + v[1] * v[1]) + v[2] * v[2]);
  if (len > 0.0) {
    const double inv = 1.0 / len;
    for (int e = 0; e < 3; ++e) v[e] *= inv;
  }
}

// m * v for a row-major 3x3 matrix, ((m0 v0 + m1 v1) + m2 v2) per row.
inline void multiply(const double* m, const double* v, double* out) {
  for (int r = 0; r < 3; ++r) out[r] = (m[r * 3] * v[0] + m[r * 3 + 1] * v[1]) + m[r * 3 + 2] * v[2];
}

inline void copy_bind(const KernelArgs& a, size_t v) {
  for (int e = 0; e < 3; ++e) a.out_positions[v * 3 + e] = a.positions[v * 3 + e];
  if (a.normals)
    for (int e = 0; e < 3; ++e) a.out_normals[v * 3 + e] = a.normals[v * 3 + e];
  if (a.tangents)
    for (int e = 0; e < 4; ++e) a.out_tangents[v * 4 + e] = a.tangents[v * 4 + e];
}

// The steps of skin_range, each inlined into it: the same operations in the same order, on its locals.

// Step 1 of skin_range: S = sum_i w_i S_i and the hemisphere-signed sums of the real and dual parts.
SKINREF_ALWAYS_INLINE inline void blend_influences(const KernelArgs& a, const uint32_t* jv, const double* wv,
                                                    size_t k, double sum, const double* pr, double (&s)[9],
                                                    double (&real)[4], double (&dual)[4]) {
#pragma GCC unroll 8
  for (size_t i = 0; i < k; ++i) {
    const DqJoint& joint = a.palette[jv[i]];
    const double w = a.renormalize ? wv[i] / sum : wv[i];
    const double* q = joint.real;
    const double dot = ((q[0] * pr[0] + q[1] * pr[1]) + q[2] * pr[2]) + q[3] * pr[3];
    const double wq = dot < 0.0 ? -w : w;
    if (i == 0) {
      for (int e = 0; e < 9; ++e) s[e] = w * joint.s[e];
      for (int e = 0; e < 4; ++e) real[e] = wq * joint.real[e];
      for (int e = 0; e < 4; ++e) dual[e] = wq * joint.dual[e];
    } else {
      for (int e = 0; e < 9; ++e) s[e] = s[e] + w * joint.s[e];
      for (int e = 0; e < 4; ++e) real[e] = real[e] + wq * joint.real[e];
      for (int e = 0; e < 4; ++e) dual[e] = dual[e] + wq * joint.dual[e];
    }
  }
}

// Step 2 of skin_range: the rigid motion of the normalized blend after S, on vertex v's position, normal, tangent.
SKINREF_ALWAYS_INLINE inline void transform_vertex(const KernelArgs& a, size_t v, const double (&s)[9],
                                                    const double (&real)[4], const double (&dual)[4],
                                                    double norm2) {
  const double two = 2.0 / norm2;
  const double rw = real[0], rx = real[1], ry = real[2], rz = real[3];
  double rot[9];  // R(real / |real|), row-major, in the expansion of rotation_matrix() (math_types.cc)
  rot[0] = 1.0 - two * (ry * ry + rz * rz);
  rot[1] = two * (rx * ry - rz * rw);
  rot[2] = two * (rx * rz + ry * rw);
  rot[3] = two * (rx * ry + rz * rw);
  rot[4] = 1.0 - two * (rx * rx + rz * rz);
  rot[5] = two * (ry * rz - rx * rw);
  rot[6] = two * (rx * rz - ry * rw);
  rot[7] = two * (ry * rz + rx * rw);
  rot[8] = 1.0 - two * (rx * rx + ry * ry);
  // translation = 2 (d conj(r)).vec() = 2 (r0 d - d0 r + r x d) for the normalized r and d.
  const double dw = dual[0], dx = dual[1], dy = dual[2], dz = dual[3];
  const double translation[3] = {two * ((rw * dx - dw * rx) + (ry * dz - rz * dy)),
                                 two * ((rw * dy - dw * ry) + (rz * dx - rx * dz)),
                                 two * ((rw * dz - dw * rz) + (rx * dy - ry * dx))};

  // Phase 1 (non-rigid, linear), then phase 2 (rigid).
  double scaled[3];
  multiply(s, a.positions + v * 3, scaled);
  double* op = a.out_positions + v * 3;
  multiply(rot, scaled, op);
  for (int e = 0; e < 3; ++e) op[e] = op[e] + translation[e];
  if (a.normals) {
    // normal_matrix(S(v)) (math_types.cc), inline and in its order of operations: the cofactor matrix
    // (det * inverse transpose), negated for a negative determinant so that mirrored normals point out.
    double cof[9];
    cof[0] = s[4] * s[8] - s[5] * s[7];
    cof[1] = s[5] * s[6] - s[3] * s[8];
    cof[2] = s[3] * s[7] - s[4] * s[6];
    cof[3] = s[2] * s[7] - s[1] * s[8];
    cof[4] = s[0] * s[8] - s[2] * s[6];
    cof[5] = s[1] * s[6] - s[0] * s[7];
    cof[6] = s[1] * s[5] - s[2] * s[4];
    cof[7] = s[2] * s[3] - s[0] * s[5];
    cof[8] = s[0] * s[4] - s[1] * s[3];
    const double det = s[0] * cof[0] + s[1] * cof[1] + s[2] * cof[2];
    if (det < 0.0)
      for (double& c : cof) c = -c;
    multiply(cof, a.normals + v * 3, scaled);
    double* on = a.out_normals + v * 3;
    multiply(rot, scaled, on);
    normalize(on);
  }
  if (a.tangents) {
    const double* t = a.tangents + v * 4;
    multiply(s, t, scaled);
    double* ot = a.out_tangents + v * 4;
    multiply(rot, scaled, ot);
    normalize(ot);
    ot[3] = t[3];
  }
}

// Skins vertices [begin, end); returns `end`, or the first vertex with a joint index outside the palette.
// kFixed > 0: the influence count at compile time (unrolled loops, the same operations); 0: a.influences.
template <int kFixed>
size_t skin_range(const KernelArgs& a, size_t begin, size_t end) {
  const size_t k = kFixed > 0 ? size_t(kFixed) : size_t(a.influences);
  for (size_t v = begin; v < end; ++v) {
    const uint32_t* jv = a.joints + v * k;
    const double* wv = a.weights + v * k;
    double sum = wv[0];
    bool bad = jv[0] >= a.joint_count;
#pragma GCC unroll 8
    for (size_t i = 1; i < k; ++i) {
      sum += wv[i];
      bad |= jv[i] >= a.joint_count;
    }
    if (bad) return v;
    if (sum == 0.0) {
      copy_bind(a, v);
      continue;
    }
    // Antipodality: q and -q are the same rotation, but blending q with -q' cancels instead of averaging.
    // Every influence is brought into the hemisphere of the pivot, the first influence of non-zero weight
    // (a zero-weight first slot, e.g. an unused one, must not decide the signs).
    size_t pivot = 0;
    while (wv[pivot] == 0.0) ++pivot;  // sum != 0, so some weight is non-zero
    const double* pr = a.palette[jv[pivot]].real;

    double s[9], real[4], dual[4];
    blend_influences(a, jv, wv, k, sum, pr, s, real, dual);
    // Normalizing by |real| divides real and dual by |real|; every entry of the rotation and the translation is
    // a product of two of their components, so one factor 2 / |real|^2 applies both at once (no square root).
    const double norm2 = ((real[0] * real[0] + real[1] * real[1]) + real[2] * real[2]) + real[3] * real[3];
    if (norm2 == 0.0) {  // only reachable with negative weights: no rotation to normalize (see header)
      copy_bind(a, v);
      continue;
    }
    transform_vertex(a, v, s, real, dual, norm2);
  }
  return end;
}

}  // namespace

RangeKernel scalar_kernel(int influences) {
  switch (influences) {
    case 1: return &skin_range<1>;
    case 2: return &skin_range<2>;
    case 4: return &skin_range<4>;
    case 8: return &skin_range<8>;
    default: return &skin_range<0>;
  }
}

}  // namespace dqs_detail

namespace {

using dqs_detail::DqJoint;

DqJoint split_joint(const Mat4& jm) {
  const DqsJointSplit split = split_dqs_joint(jm);
  DqJoint joint;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) joint.s[r * 3 + c] = split.s(r, c);
  joint.real[0] = split.real[3];
  joint.dual[0] = split.dual[3];
  for (int e = 0; e < 3; ++e) {
    joint.real[e + 1] = split.real[size_t(e)];
    joint.dual[e + 1] = split.dual[size_t(e)];
  }
  return joint;
}

// The kernel `which` names (Avx2: DQS has no AVX2 kernel, so the scalar one); null where not available.
dqs_detail::RangeKernel find_dqs_kernel(SkinningKernel which, int influences, bool renormalize) {
  switch (which) {
    case SkinningKernel::Scalar:
    case SkinningKernel::Avx2: return dqs_detail::scalar_kernel(influences);
    case SkinningKernel::Avx512: return dqs_detail::avx512_kernel(influences, renormalize);
    case SkinningKernel::Auto: break;
  }
  if (dqs_detail::RangeKernel kernel = dqs_detail::avx512_kernel(influences, renormalize)) return kernel;
  return dqs_detail::scalar_kernel(influences);
}

}  // namespace

bool dqs_kernel_available(SkinningKernel kernel) { return find_dqs_kernel(kernel, 4, false) != nullptr; }

const char* dqs_kernel_name(SkinningKernel kernel) {
  if (kernel == SkinningKernel::Auto)
    return dqs_kernel_available(SkinningKernel::Avx512) ? "avx512" : "scalar";
  return kernel == SkinningKernel::Avx512 ? "avx512" : "scalar";
}

DqsJointSplit split_dqs_joint(const Mat4& jm) {
  const Mat3 a = jm.topLeftCorner<3, 3>();
  const Eigen::JacobiSVD<Mat3> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Mat3& u = svd.matrixU();
  const Mat3& v = svd.matrixV();
  // det(U V^T) is +-1: -1 flips the axis of the smallest singular value, so that Q is a proper rotation and a
  // reflection in A stays in S.
  Mat3 d = Mat3::Identity();
  d(2, 2) = (u * v.transpose()).determinant() < 0.0 ? -1.0 : 1.0;
  const Mat3 q_matrix = u * d * v.transpose();
  DqsJointSplit split;
  split.s = q_matrix.transpose() * a;
  split.singular_values = svd.singularValues();
  const Quat q(q_matrix);
  const double q_norm = std::sqrt(((q.w() * q.w() + q.x() * q.x()) + q.y() * q.y()) + q.z() * q.z());
  const double w = q.w() / q_norm, x = q.x() / q_norm, y = q.y() / q_norm, z = q.z() / q_norm;
  split.real = {x, y, z, w};
  // dual = 0.5 (0, t) q = 0.5 (-t . v, w t + t x v), with q = (w, v).
  const double t[3] = {jm(0, 3), jm(1, 3), jm(2, 3)};
  split.dual = {0.5 * (w * t[0] + (t[1] * z - t[2] * y)), 0.5 * (w * t[1] + (t[2] * x - t[0] * z)),
                0.5 * (w * t[2] + (t[0] * y - t[1] * x)), -0.5 * ((t[0] * x + t[1] * y) + t[2] * z)};
  return split;
}

void skin_dqs(const SkinningInput& in, const SkinningOptions& options, SkinnedVertices& out) {
  const size_t n = in.positions.size();
  const int k = in.influences_per_vertex;
  if (in.palette == nullptr || k < 1 || in.joints.size() != n * size_t(k) || in.weights.size() != n * size_t(k) ||
      (!in.normals.empty() && in.normals.size() != n) || (!in.tangents.empty() && in.tangents.size() != n) ||
      options.threads < 1)
    throw std::invalid_argument("skin_dqs: inconsistent input sizes or options");
  const dqs_detail::RangeKernel kernel = find_dqs_kernel(options.kernel, k, options.weights == WeightPolicy::Renormalize);
  if (kernel == nullptr)
    throw std::invalid_argument(std::string("skin_dqs: the ") + dqs_kernel_name(options.kernel) +
                                " kernel is not available on this CPU or build");

  std::vector<DqJoint> palette;
  palette.reserve(in.palette->skinning.size());
  for (const Mat4& jm : in.palette->skinning) palette.push_back(split_joint(jm));

  out.positions.resize(n);
  out.normals.resize(in.normals.empty() ? 0 : n);
  out.tangents.resize(in.tangents.empty() ? 0 : n);
  // Eigen's fixed-size vectors of 3 and 4 doubles hold exactly their doubles, contiguously.
  static_assert(sizeof(Vec3) == 3 * sizeof(double) && sizeof(Vec4) == 4 * sizeof(double));
  const dqs_detail::KernelArgs args{in.positions.data()->data(),
                                    in.normals.empty() ? nullptr : in.normals.data()->data(),
                                    in.tangents.empty() ? nullptr : in.tangents.data()->data(),
                                    in.joints.data(),
                                    in.weights.data(),
                                    k,
                                    palette.data(),
                                    palette.size(),
                                    options.weights == WeightPolicy::Renormalize,
                                    out.positions.data()->data(),
                                    out.normals.empty() ? nullptr : out.normals.data()->data(),
                                    out.tangents.empty() ? nullptr : out.tangents.data()->data()};

  // Contiguous vertex ranges, one per thread and at most one per 4096 vertices, split as in skin_lbs; each
  // thread writes only its own range. A range stops at its first joint index outside the palette; the error
  // is thrown once all are joined.
  std::atomic<bool> bad_joint{false};
  detail::for_each_range(n, options.threads, 4096, [&](size_t begin, size_t end) {
    if (kernel(args, begin, end) != end) bad_joint.store(true, std::memory_order_relaxed);
  });
  if (bad_joint.load()) throw std::invalid_argument("skin_dqs: joint index outside the palette");
}

}  // namespace skinref

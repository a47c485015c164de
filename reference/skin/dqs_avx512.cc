// The AVX-512 DQS kernel (skin/dqs.h), built with -mavx512f (CMakeLists.txt) and chosen at run time only on
// CPUs that have it. -ffp-contract=off applies here too: no FMA, and lane for lane the operations and their
// order are those of the scalar kernel (skin_range in skin/dqs.cc), so every lane gives its bits (tested).
//
// One vertex per lane, 8 vertices per group:
// - joint indices (checked against the palette) and weights as lanes (lane j: vertex j): loaded and permuted
//   for 1, 2 and 4 influences, gathered otherwise; the sum, the division by it (Renormalize), each joint's
//   real part (loaded and transposed, load_real_parts) dotted with the pivot's and the sign of the weight,
//   lane-wise (not for the pivot itself, whose sign is +);
// - the blend per vertex in the joints' own layout (skin/dqs_kernels.h): (real, dual) and S[0..7] are one
//   64-byte line each, so sum_i w_i * line_i takes one load, one multiply and one add per line and influence;
//   the 8 vertices' sums are then transposed into lanes; S[8] is gathered and blended lane-wise;
// - the rotation and translation of the normalized dual quaternion, phase 1 and 2 on positions, the cofactor
//   normal matrix, its sign and the normalizations lane-wise; square roots and divisions are correctly
//   rounded, as in scalar code. Positions, normals and tangents are deinterleaved and interleaved by permutes.
// Every lane sees the scalar kernel's operations in its order, on the same operands. A group goes through the
// scalar kernel as a whole when one of its vertices takes a path of its own there: a joint index outside the
// palette (the scalar kernel then stops at that vertex), weights summing to 0, a zero first weight (the pivot
// is then not influence 0), or a blended real part of norm 0. Tails of fewer than 8 vertices are scalar too.
#include "core/always_inline.h"
#include "skin/dqs_kernels.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#include <climits>
#include <cstddef>

namespace skinref::dqs_detail {
namespace {

constexpr size_t kGroup = 8;
constexpr int kMaxDynamic = 16;
// Offsets in DqJoint (skin/dqs_kernels.h): real and dual as one 64-byte line, then S.
constexpr int kReal = int(offsetof(DqJoint, real) / sizeof(double));
constexpr int kS = int(offsetof(DqJoint, s) / sizeof(double));
static_assert(offsetof(DqJoint, dual) == offsetof(DqJoint, real) + 4 * sizeof(double));
static_assert(kReal % 8 == 0 && kS % 8 == 0 && kJointDoubles % 8 == 0 && alignof(DqJoint) == 64);  // influence counts known only at run time up to this go through the SIMD path

inline __m512d add(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
inline __m512d sub(__m512d a, __m512d b) { return _mm512_sub_pd(a, b); }
inline __m512d mul(__m512d a, __m512d b) { return _mm512_mul_pd(a, b); }

inline __m512i indices(long long i0, long long i1, long long i2, long long i3, long long i4, long long i5,
                       long long i6, long long i7) {
  return _mm512_set_epi64(i7, i6, i5, i4, i3, i2, i1, i0);
}
inline __m512d permute2(__m512d a, __m512i index, __m512d b) { return _mm512_permutex2var_pd(a, index, b); }
// The masked forms with a zero source and every lane selected (the same instructions): GCC 12's unmasked ones
// read an uninitialized operand (-Wuninitialized, GCC bug 105593).
inline __m512d unpacklo(__m512d a, __m512d b) { return _mm512_mask_unpacklo_pd(_mm512_setzero_pd(), 0xFF, a, b); }
inline __m512d unpackhi(__m512d a, __m512d b) { return _mm512_mask_unpackhi_pd(_mm512_setzero_pd(), 0xFF, a, b); }
template <int kImmediate>
inline __m512d shuffle_blocks(__m512d a, __m512d b) {
  return _mm512_mask_shuffle_f64x2(_mm512_setzero_pd(), 0xFF, a, b, kImmediate);
}

// out[e] lane j = row[j] element e (as in skin/lbs_simd.inc).
SKINREF_ALWAYS_INLINE inline void transpose8(const __m512d (&row)[8], __m512d (&out)[8]) {
  __m512d t[8], u[8];
#pragma GCC unroll 4
  for (int r = 0; r < 8; r += 2) {
    t[r] = unpacklo(row[r], row[r + 1]);
    t[r + 1] = unpackhi(row[r], row[r + 1]);
  }
#pragma GCC unroll 2
  for (int h = 0; h < 8; h += 4) {
    u[h] = shuffle_blocks<_MM_SHUFFLE(2, 0, 2, 0)>(t[h], t[h + 2]);
    u[h + 1] = shuffle_blocks<_MM_SHUFFLE(3, 1, 3, 1)>(t[h], t[h + 2]);
    u[h + 2] = shuffle_blocks<_MM_SHUFFLE(2, 0, 2, 0)>(t[h + 1], t[h + 3]);
    u[h + 3] = shuffle_blocks<_MM_SHUFFLE(3, 1, 3, 1)>(t[h + 1], t[h + 3]);
  }
  out[0] = shuffle_blocks<_MM_SHUFFLE(2, 0, 2, 0)>(u[0], u[4]);
  out[4] = shuffle_blocks<_MM_SHUFFLE(3, 1, 3, 1)>(u[0], u[4]);
  out[2] = shuffle_blocks<_MM_SHUFFLE(2, 0, 2, 0)>(u[1], u[5]);
  out[6] = shuffle_blocks<_MM_SHUFFLE(3, 1, 3, 1)>(u[1], u[5]);
  out[1] = shuffle_blocks<_MM_SHUFFLE(2, 0, 2, 0)>(u[2], u[6]);
  out[5] = shuffle_blocks<_MM_SHUFFLE(3, 1, 3, 1)>(u[2], u[6]);
  out[3] = shuffle_blocks<_MM_SHUFFLE(2, 0, 2, 0)>(u[3], u[7]);
  out[7] = shuffle_blocks<_MM_SHUFFLE(3, 1, 3, 1)>(u[3], u[7]);
}

struct Lanes3 {
  __m512d x, y, z;
};

// 8 consecutive Vec3 (24 doubles) as x, y, z lanes.
inline Lanes3 load3_lanes(const double* p) {
  const __m512d a = _mm512_loadu_pd(p), b = _mm512_loadu_pd(p + 8), c = _mm512_loadu_pd(p + 16);
  return {permute2(permute2(a, indices(0, 3, 6, 9, 12, 15, 0, 0), b), indices(0, 1, 2, 3, 4, 5, 10, 13), c),
          permute2(permute2(a, indices(1, 4, 7, 10, 13, 0, 0, 0), b), indices(0, 1, 2, 3, 4, 8, 11, 14), c),
          permute2(permute2(a, indices(2, 5, 8, 11, 14, 0, 0, 0), b), indices(0, 1, 2, 3, 4, 9, 12, 15), c)};
}

// The inverse of load3_lanes.
inline void store3_lanes(double* p, const Lanes3& v) {
  _mm512_storeu_pd(p, permute2(permute2(v.x, indices(0, 8, 0, 1, 9, 0, 2, 10), v.y),
                               indices(0, 1, 8, 3, 4, 9, 6, 7), v.z));
  _mm512_storeu_pd(p + 8, permute2(permute2(v.x, indices(0, 3, 11, 0, 4, 12, 0, 5), v.y),
                                   indices(10, 1, 2, 11, 4, 5, 12, 7), v.z));
  _mm512_storeu_pd(p + 16, permute2(permute2(v.x, indices(13, 0, 6, 14, 0, 7, 15, 0), v.y),
                                    indices(0, 13, 2, 3, 14, 5, 6, 15), v.z));
}

// The 4 doubles of 8 consecutive vertices (32 doubles from p) as 4 lane vectors: out[e] lane j = p[4 j + e].
inline void load4_lanes(const double* p, __m512d (&out)[4]) {
  const __m512d a = _mm512_loadu_pd(p), b = _mm512_loadu_pd(p + 8);
  const __m512d c = _mm512_loadu_pd(p + 16), d = _mm512_loadu_pd(p + 24);
  const __m512i even = indices(0, 4, 8, 12, 1, 5, 9, 13), odd = indices(2, 6, 10, 14, 3, 7, 11, 15);
  const __m512d ab01 = permute2(a, even, b), cd01 = permute2(c, even, d);  // e0 of 4 vertices, then e1
  const __m512d ab23 = permute2(a, odd, b), cd23 = permute2(c, odd, d);
  out[0] = shuffle_blocks<_MM_SHUFFLE(1, 0, 1, 0)>(ab01, cd01);
  out[1] = shuffle_blocks<_MM_SHUFFLE(3, 2, 3, 2)>(ab01, cd01);
  out[2] = shuffle_blocks<_MM_SHUFFLE(1, 0, 1, 0)>(ab23, cd23);
  out[3] = shuffle_blocks<_MM_SHUFFLE(3, 2, 3, 2)>(ab23, cd23);
}

// The scalar multiply(): m * v for a row-major 3x3 matrix of lanes, ((m0 v0 + m1 v1) + m2 v2) per row.
inline Lanes3 multiply(const __m512d (&m)[9], const Lanes3& v) {
  return {add(add(mul(m[0], v.x), mul(m[1], v.y)), mul(m[2], v.z)),
          add(add(mul(m[3], v.x), mul(m[4], v.y)), mul(m[5], v.z)),
          add(add(mul(m[6], v.x), mul(m[7], v.y)), mul(m[8], v.z))};
}

// The scalar normalize() lane-wise: v * (1 / sqrt((x*x + y*y) + z*z)) where that length is > 0, else v.
inline Lanes3 normalized(const Lanes3& v) {
  const __m512d length = _mm512_sqrt_pd(add(add(mul(v.x, v.x), mul(v.y, v.y)), mul(v.z, v.z)));
  const __mmask8 positive = _mm512_cmp_pd_mask(length, _mm512_setzero_pd(), _CMP_GT_OQ);
  const __m512d inverse = _mm512_div_pd(_mm512_set1_pd(1.0), length);
  return {_mm512_mask_mul_pd(v.x, positive, v.x, inverse), _mm512_mask_mul_pd(v.y, positive, v.y, inverse),
          _mm512_mask_mul_pd(v.z, positive, v.z, inverse)};
}

// -value where `negative`, as the sign bit flipped (integer xor: _mm512_xor_pd needs AVX512DQ).
inline __m512d negate_where(__mmask8 negative, __m512d value) {
  const __m512i sign = _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ull));
  const __m512i bits = _mm512_castpd_si512(value);
  return _mm512_castsi512_pd(_mm512_mask_xor_epi64(bits, negative, bits, sign));
}

// Palette field `field` (a double of DqJoint) of the joints at `offsets` (joint index * kJointDoubles).
inline __m512d field(const double* palette, __m256i offsets, int field) {
  return _mm512_i32gather_pd(offsets, palette + field, 8);
}

// The real parts of one influence's joints as lanes: q[e] lane j = real[e] of vertex j's joint, at palette +
// joint_offset(j). Each real part is one aligned 32-byte load, two to a register (vertices 0 and 2, 1 and 3,
// 4 and 6, 5 and 7 in its 256-bit halves), then a 4x4 transpose of each half: 8 loads and 8 shuffles in place
// of 4 gathers of 8 doubles.
template <class JointOffset>
SKINREF_ALWAYS_INLINE inline void load_real_parts(const double* palette, JointOffset joint_offset,
                                                   __m512d (&q)[4]) {
  auto pair = [&](int low, int high) {
    // The masked insert with a zero source, every lane selected: GCC 12's unmasked one reads an uninitialized
    // operand (GCC bug 105593).
    return _mm512_mask_insertf64x4(_mm512_setzero_pd(), 0xFF,
                                   _mm512_zextpd256_pd512(_mm256_load_pd(palette + joint_offset(low) + kReal)),
                                   _mm256_load_pd(palette + joint_offset(high) + kReal), 1);
  };
  const __m512d p02 = pair(0, 2), p13 = pair(1, 3), p46 = pair(4, 6), p57 = pair(5, 7);
  // t0: e0 and e2 of vertices 0 and 1 (low half) and 2 and 3 (high half), as [e0 e0 e2 e2]; t1: e1 and e3.
  const __m512d t0 = unpacklo(p02, p13), t1 = unpackhi(p02, p13);
  const __m512d t2 = unpacklo(p46, p57), t3 = unpackhi(p46, p57);
  q[0] = shuffle_blocks<_MM_SHUFFLE(2, 0, 2, 0)>(t0, t2);
  q[2] = shuffle_blocks<_MM_SHUFFLE(3, 1, 3, 1)>(t0, t2);
  q[1] = shuffle_blocks<_MM_SHUFFLE(2, 0, 2, 0)>(t1, t3);
  q[3] = shuffle_blocks<_MM_SHUFFLE(3, 1, 3, 1)>(t1, t3);
}

// The steps of skin_group, each inlined into it: the same operations in the same order, on its locals.

// Step 1 of skin_group: joint indices (checked against the palette, as offsets) and weights as lanes.
template <int kFixed, int kMax>
SKINREF_ALWAYS_INLINE inline void load_influences(const uint32_t* jv, const double* wv, int k,
                                                   __m256i lane_offsets, __m512i limit,
                                                   __m256i (&offsets)[kMax], __m512d (&w)[kMax],
                                                   __mmask8& outside) {
  if constexpr (kFixed == 1 || kFixed == 2 || kFixed == 4) {
    const __m512i low = _mm512_maskz_loadu_epi32(__mmask16((1u << (kFixed * 8 > 16 ? 16 : kFixed * 8)) - 1u), jv);
    const __m512i high = kFixed == 4 ? _mm512_loadu_si512(jv + 16) : _mm512_setzero_si512();
    if constexpr (kFixed == 1) {
      w[0] = _mm512_loadu_pd(wv);
    } else if constexpr (kFixed == 2) {
      const __m512d a0 = _mm512_loadu_pd(wv), b0 = _mm512_loadu_pd(wv + 8);
      w[0] = permute2(a0, indices(0, 2, 4, 6, 8, 10, 12, 14), b0);
      w[1] = permute2(a0, indices(1, 3, 5, 7, 9, 11, 13, 15), b0);
    } else {
      __m512d rows[4];
      load4_lanes(wv, rows);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) w[i] = rows[i];
    }
#pragma GCC unroll 4
    for (int i = 0; i < kFixed; ++i) {
      const __m512i select = _mm512_setr_epi32(i, kFixed + i, 2 * kFixed + i, 3 * kFixed + i, 4 * kFixed + i,
                                               5 * kFixed + i, 6 * kFixed + i, 7 * kFixed + i, 0, 0, 0, 0, 0, 0, 0, 0);
      const __m512i joint = _mm512_permutex2var_epi32(low, select, high);
      outside |= _mm512_mask_cmpge_epu32_mask(0xFF, joint, limit);
      offsets[i] = _mm256_mullo_epi32(_mm512_castsi512_si256(joint), _mm256_set1_epi32(int(kJointDoubles)));
    }
  } else {
#pragma GCC unroll 8
    for (int i = 0; i < k; ++i) {
      const __m256i joint = _mm256_i32gather_epi32(reinterpret_cast<const int*>(jv + i), lane_offsets, 4);
      outside |= _mm512_mask_cmpge_epu32_mask(0xFF, _mm512_zextsi256_si512(joint), limit);
      offsets[i] = _mm256_mullo_epi32(joint, _mm256_set1_epi32(int(kJointDoubles)));
      w[i] = _mm512_i32gather_pd(lane_offsets, wv + i, 8);
    }
  }
}

// Step 2 of skin_group: each influence's weight and hemisphere-signed weight as lanes, and S[8]'s blend.
template <bool kRenormalize, int kMax>
SKINREF_ALWAYS_INLINE inline void sign_weights(const double* palette, const uint32_t* jv, int k,
                                                const __m256i (&offsets)[kMax], const __m512d (&w)[kMax],
                                                __m512d sum, __m512d zero, double (&weight_lanes)[kMax][kGroup],
                                                double (&signed_lanes)[kMax][kGroup], __m512d& s8) {
  __m512d pr[4];
  load_real_parts(palette, [&](int j) { return size_t(jv[size_t(j) * size_t(k)]) * kJointDoubles; }, pr);
#pragma GCC unroll 8
  for (int i = 0; i < k; ++i) {
    const __m512d weight = kRenormalize ? _mm512_div_pd(w[i], sum) : w[i];
    __m512d wq = weight;
    if (i > 0) {
      __m512d q[4];
      load_real_parts(palette, [&](int j) { return size_t(jv[size_t(j) * size_t(k) + size_t(i)]) * kJointDoubles; },
                      q);
      const __m512d dot = add(add(add(mul(q[0], pr[0]), mul(q[1], pr[1])), mul(q[2], pr[2])), mul(q[3], pr[3]));
      wq = negate_where(_mm512_cmp_pd_mask(dot, zero, _CMP_LT_OQ), weight);
    }
    _mm512_store_pd(weight_lanes[i], weight);
    _mm512_store_pd(signed_lanes[i], wq);
    const __m512d product = mul(weight, field(palette, offsets[i], kS + 8));
    s8 = i == 0 ? product : add(s8, product);
  }
}

// Step 3 of skin_group: the blend per vertex in its joints' own layout, transposed to lanes.
template <int kMax>
SKINREF_ALWAYS_INLINE inline void blend_per_vertex(const double* palette, const uint32_t* jv, int k,
                                                    const double (&weight_lanes)[kMax][kGroup],
                                                    const double (&signed_lanes)[kMax][kGroup], __m512d s8,
                                                    __m512d (&real_dual)[8], __m512d (&s)[9]) {
  // (real, dual) and s[0..7] are 8 contiguous doubles each, weighted by the lane's signed weight and weight;
  // then transposed to lanes.
  __m512d rd_rows[kGroup], s_rows[kGroup];
#pragma GCC unroll 8
  for (size_t j = 0; j < kGroup; ++j) {
    const uint32_t* joints = jv + j * size_t(k);
    __m512d rd, sj;
#pragma GCC unroll 8
    for (int i = 0; i < k; ++i) {
      const double* p = palette + size_t(joints[i]) * kJointDoubles;
      const __m512d rd_product = mul(_mm512_set1_pd(signed_lanes[i][j]), _mm512_loadu_pd(p + kReal));
      const __m512d s_product = mul(_mm512_set1_pd(weight_lanes[i][j]), _mm512_loadu_pd(p + kS));
      rd = i == 0 ? rd_product : add(rd, rd_product);
      sj = i == 0 ? s_product : add(sj, s_product);
    }
    rd_rows[j] = rd;
    s_rows[j] = sj;
  }
  transpose8(rd_rows, real_dual);
  {
    __m512d s_lanes[8];
    transpose8(s_rows, s_lanes);
#pragma GCC unroll 8
    for (int e = 0; e < 8; ++e) s[e] = s_lanes[e];
    s[8] = s8;
  }
}

// Step 4 of skin_group: the rigid motion of the normalized blend after S, on positions, normals and tangents.
SKINREF_ALWAYS_INLINE inline void transform_group(const KernelArgs& a, size_t v, const __m512d (&real)[4],
                                                   const __m512d (&dual)[4], __m512d norm2, const __m512d (&s)[9],
                                                   __m512d zero) {
  const __m512d two = _mm512_div_pd(_mm512_set1_pd(2.0), norm2);
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d rw = real[0], rx = real[1], ry = real[2], rz = real[3];
  const __m512d rot[9] = {sub(one, mul(two, add(mul(ry, ry), mul(rz, rz)))),
                          mul(two, sub(mul(rx, ry), mul(rz, rw))),
                          mul(two, add(mul(rx, rz), mul(ry, rw))),
                          mul(two, add(mul(rx, ry), mul(rz, rw))),
                          sub(one, mul(two, add(mul(rx, rx), mul(rz, rz)))),
                          mul(two, sub(mul(ry, rz), mul(rx, rw))),
                          mul(two, sub(mul(rx, rz), mul(ry, rw))),
                          mul(two, add(mul(ry, rz), mul(rx, rw))),
                          sub(one, mul(two, add(mul(rx, rx), mul(ry, ry))))};
  const __m512d dw = dual[0], dx = dual[1], dy = dual[2], dz = dual[3];
  const Lanes3 translation{mul(two, add(sub(mul(rw, dx), mul(dw, rx)), sub(mul(ry, dz), mul(rz, dy)))),
                           mul(two, add(sub(mul(rw, dy), mul(dw, ry)), sub(mul(rz, dx), mul(rx, dz)))),
                           mul(two, add(sub(mul(rw, dz), mul(dw, rz)), sub(mul(rx, dy), mul(ry, dx))))};

  // Phase 1 (non-rigid, linear), then phase 2 (rigid).
  const Lanes3 moved = multiply(rot, multiply(s, load3_lanes(a.positions + v * 3)));
  store3_lanes(a.out_positions + v * 3,
               {add(moved.x, translation.x), add(moved.y, translation.y), add(moved.z, translation.z)});
  if (a.normals) {
    __m512d cof[9] = {sub(mul(s[4], s[8]), mul(s[5], s[7])), sub(mul(s[5], s[6]), mul(s[3], s[8])),
                      sub(mul(s[3], s[7]), mul(s[4], s[6])), sub(mul(s[2], s[7]), mul(s[1], s[8])),
                      sub(mul(s[0], s[8]), mul(s[2], s[6])), sub(mul(s[1], s[6]), mul(s[0], s[7])),
                      sub(mul(s[1], s[5]), mul(s[2], s[4])), sub(mul(s[2], s[3]), mul(s[0], s[5])),
                      sub(mul(s[0], s[4]), mul(s[1], s[3]))};
    const __m512d det = add(add(mul(s[0], cof[0]), mul(s[1], cof[1])), mul(s[2], cof[2]));
    const __mmask8 negative = _mm512_cmp_pd_mask(det, zero, _CMP_LT_OQ);
#pragma GCC unroll 9
    for (int e = 0; e < 9; ++e) cof[e] = negate_where(negative, cof[e]);
    store3_lanes(a.out_normals + v * 3,
                 normalized(multiply(rot, multiply(cof, load3_lanes(a.normals + v * 3)))));
  }
  if (a.tangents) {
    __m512d t[4];
    load4_lanes(a.tangents + v * 4, t);
    const Lanes3 out = normalized(multiply(rot, multiply(s, Lanes3{t[0], t[1], t[2]})));
    // Interleaved back as (x, y, z, w) per vertex, two vertices per register, w copied from the input.
    const double* in = a.tangents + v * 4;
    double* o = a.out_tangents + v * 4;
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {  // vertices 2q, 2q + 1
      const __m512d xy = permute2(out.x, indices(2 * q, 8 + 2 * q, 0, 0, 2 * q + 1, 9 + 2 * q, 0, 0), out.y);
      const __m512d xyz = permute2(xy, indices(0, 1, 8 + 2 * q, 0, 4, 5, 9 + 2 * q, 0), out.z);
      _mm512_storeu_pd(o + 8 * q, _mm512_mask_mov_pd(xyz, 0x88, _mm512_loadu_pd(in + 8 * q)));
    }
  }
}

// Skins the 8 vertices at v; false, with nothing written, when the group must go through the scalar kernel.
template <int kFixed, bool kRenormalize>
SKINREF_ALWAYS_INLINE inline bool skin_group(const KernelArgs& a, size_t v, __m256i lane_offsets,
                                              __m512i limit) {
  constexpr int kMax = kFixed > 0 ? kFixed : kMaxDynamic;
  const int k = kFixed > 0 ? kFixed : a.influences;
  const uint32_t* jv = a.joints + v * size_t(k);
  const double* wv = a.weights + v * size_t(k);
  const double* palette = reinterpret_cast<const double*>(a.palette);

  // Joint indices (checked against the palette) and weights, summed in influence order. Lane j, influence i:
  // element j k + i of the group's joints and weights; loaded and permuted for k = 1, 2, 4, else gathered.
  __m256i offsets[kMax];
  __m512d w[kMax];
  __mmask8 outside = 0;
  load_influences<kFixed>(jv, wv, k, lane_offsets, limit, offsets, w, outside);
  __m512d sum = w[0];
#pragma GCC unroll 8
  for (int i = 1; i < k; ++i) sum = add(sum, w[i]);
  const __m512d zero = _mm512_setzero_pd();
  if ((outside | _mm512_cmp_pd_mask(sum, zero, _CMP_EQ_OQ) | _mm512_cmp_pd_mask(w[0], zero, _CMP_EQ_OQ)) != 0)
    return false;

  // Signs: the pivot is influence 0 in every lane (w[0] != 0); dot and sign lane-wise from the real parts. The
  // pivot's dot with itself, ((q0 q0 + q1 q1) + q2 q2) + q3 q3, is never below 0 (a NaN compares false), so
  // its sign is + without computing it, as the scalar kernel's comparison gives.
  alignas(64) double weight_lanes[kMax][kGroup];
  alignas(64) double signed_lanes[kMax][kGroup];
  __m512d s8;
  sign_weights<kRenormalize>(palette, jv, k, offsets, w, sum, zero, weight_lanes, signed_lanes, s8);
  // The blend per vertex, in its joints' own layout; then transposed to lanes.
  __m512d real_dual[8], s[9];
  blend_per_vertex(palette, jv, k, weight_lanes, signed_lanes, s8, real_dual, s);
  const __m512d real[4] = {real_dual[0], real_dual[1], real_dual[2], real_dual[3]};
  const __m512d dual[4] = {real_dual[4], real_dual[5], real_dual[6], real_dual[7]};
  const __m512d norm2 =
      add(add(add(mul(real[0], real[0]), mul(real[1], real[1])), mul(real[2], real[2])), mul(real[3], real[3]));
  if (_mm512_cmp_pd_mask(norm2, zero, _CMP_EQ_OQ) != 0) return false;

  transform_group(a, v, real, dual, norm2, s, zero);
  return true;
}

template <int kFixed, bool kRenormalize>
size_t skin_range(const KernelArgs& a, size_t begin, size_t end) {
  const int k = kFixed > 0 ? kFixed : a.influences;
  const RangeKernel scalar = scalar_kernel(k);
  size_t v = begin;
  // Gather offsets are int32: joint index * kJointDoubles and lane * k must fit.
  if (k <= kMaxDynamic && a.joint_count <= size_t(INT_MAX) / kJointDoubles) {
    const __m256i lane_offsets = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(k));
    const __m512i limit = _mm512_set1_epi32(int(a.joint_count));
    for (; v + kGroup <= end; v += kGroup) {
      if (skin_group<kFixed, kRenormalize>(a, v, lane_offsets, limit)) continue;
      const size_t stop = scalar(a, v, v + kGroup);
      if (stop != v + kGroup) return stop;
    }
  }
  return scalar(a, v, end);
}

template <bool kRenormalize>
RangeKernel select(int influences) {
  switch (influences) {
    case 1: return &skin_range<1, kRenormalize>;
    case 2: return &skin_range<2, kRenormalize>;
    case 4: return &skin_range<4, kRenormalize>;
    case 8: return &skin_range<8, kRenormalize>;
    default: return &skin_range<0, kRenormalize>;
  }
}

}  // namespace

RangeKernel avx512_kernel(int influences, bool renormalize) {
  if (!__builtin_cpu_supports("avx512f")) return nullptr;
  return renormalize ? select<true>(influences) : select<false>(influences);
}

}  // namespace skinref::dqs_detail
#else
namespace skinref::dqs_detail {
RangeKernel avx512_kernel(int, bool) { return nullptr; }
}  // namespace skinref::dqs_detail
#endif

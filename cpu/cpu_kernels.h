// Internal to skinning_cpu.cc and its per-instruction-set translation units (cpu_kernel_scalar.cc,
// cpu_kernel_avx2.cc, cpu_kernel_avx512.cc): the prepared float32 arrays one skinning pass reads and writes,
// and the kernels that skin one primitive's vertex range. Every kernel is the one template of
// cpu_kernel.inc instantiated on a lane type (1, 8 or 16 floats), so each lane performs exactly the operations
// of gpu/shaders/skin.comp in its order and all kernels give identical bits.
#pragma once

#include "skin/method.h"

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace skinref::cpu_detail {

constexpr uint32_t kNone = 0xFFFFFFFFu;

// One palette entry, kEntryFloats floats: JM's columns c0..c3 (xyz each), the normal matrix's rows, the DQS
// rigid part's real and dual quaternions (x, y, z, w), the rows of its non-rigid part S, and a second copy of
// the dual quaternion and S with the dual quaternion negated.
// For the AVX-512 kernel's per-vertex blends: LBS's JM columns are floats 0..15, one aligned 64-byte load; DQS's
// dual quaternion and S (the parts that are blended without a test) are floats 16..31, another, and floats
// 48..63 the same with the dual part negated, which the blend reads for an influence in the other hemisphere
// from its vertex's pivot: (-d) w and d (-w) round alike, so one weight broadcast serves the dual part and S
// (with a weight negated in lanes 0..3 only, each multiply-add needed a blend or permute of two weights, and
// those shuffles were the DQS blend's limit on Intel's one 512-bit shuffle port). The real part, which every
// influence's hemisphere test reads first, is an aligned 16-byte load at 32, transposed into lanes by shuffles
// (load_real_parts) instead of four gathers.
constexpr uint32_t kColumns = 0;       // 12: c0.xyz, c1.xyz, c2.xyz, c3.xyz
constexpr uint32_t kDual = 16;         // 4
constexpr uint32_t kSRows = 20;        // 9, then 3 floats of padding
constexpr uint32_t kReal = 32;         // 4
constexpr uint32_t kNormalRows = 36;   // 9, then 3 floats of padding
constexpr uint32_t kNegatedDual = 48;  // 16: -dual (4), S (9), padding (3)
constexpr uint32_t kEntryFloats = 64;  // whole 64-byte cache lines

// 64-byte aligned storage: for the palette, so that with kEntryFloats a multiple of 16 every entry's JM
// columns (floats 0..15) are one aligned 64-byte load for the AVX-512 kernel's per-vertex blend; for the
// vertex planes, so that wide lanes load and store whole cache lines (and can stream them).
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};
using Floats = std::vector<float, CacheLineAllocator<float>>;
using PaletteFloats = Floats;

// One attribute, one array per component (x, y, z, and w for tangents), so that consecutive vertices are
// consecutive floats in each.
struct Planes {
  Floats x, y, z, w;
};

// A morph target of non-zero weight: where its deltas of each attribute start in the delta planes (kNone:
// none for that attribute), and its weight.
struct Target {
  uint32_t position = kNone, normal = kNone, tangent = kNone;
  float weight = 0.0f;
};

// One drawn primitive: its vertices [first, first + count) of the vertex planes.
struct Segment {
  size_t first = 0;
  size_t count = 0;
  int influences = 1;         // 1 for a rigid node
  size_t influence_first = 0; // influence i of local vertex v at influence_index(*this, i, v)
  bool rigid = false;         // one implicit influence: entry rigid_entry with weight 1
  bool zero_weight_sum = false;  // some vertex's float weights sum ((w0 + w1) + ...) to 0
  uint32_t rigid_entry = 0;   // a float offset into the palette (entry index * kEntryFloats)
  SkinningMethod method = kRigidNodeMethod;  // kRigidNodeMethod for a rigid node under any method
  bool normals = false;
  bool tangents = false;
  size_t first_target = 0;
  size_t target_count = 0;
};

// Influences are stored in blocks of kInfluenceBlock vertices: block b holds influence 0 of its vertices, then
// influence 1, and so on, so that the lanes of consecutive vertices read consecutive entries and weights and
// one block is one contiguous run (one stream for the prefetcher, fixed offsets for the per-vertex blend).
// A segment's arrays are padded to whole blocks (entry 0, weight 0; never read).
constexpr size_t kInfluenceBlock = 16;
inline size_t influence_index(const Segment& s, int i, size_t v) {
  const size_t k = size_t(s.influences);
  return s.influence_first + (v / kInfluenceBlock) * kInfluenceBlock * k + size_t(i) * kInfluenceBlock +
         v % kInfluenceBlock;
}

struct Job {
  const float *px, *py, *pz;
  const float *nx, *ny, *nz;
  const float *tx, *ty, *tz, *tw;
  const uint32_t* entries;  // per influence: the palette entry's float offset (entry index * kEntryFloats)
  const float* weights;
  const float* palette;
  const Target* targets;
  const float *dx, *dy, *dz;  // morph deltas
  bool renormalize;
  bool blend_normal_matrices;
  bool stream_outputs;  // non-temporal stores for the wide lanes' outputs; the caller fences after the kernel
  bool gather_blends;   // wide lanes gather the blends' palette fields instead of blending per vertex (WideBlends)
  bool pipeline_dqs;    // wide DQS: the next block's blends before this block's lanes (DqsSchedule)
  float *out_px, *out_py, *out_pz;
  float *out_nx, *out_ny, *out_nz;
  float *out_tx, *out_ty, *out_tz, *out_tw;
};

// Skins the segment's local vertices [begin, end).
using SegmentKernel = void (*)(const Job&, const Segment&, size_t begin, size_t end);

// Null where this build or CPU lacks the instructions.
SegmentKernel scalar_segment_kernel();
SegmentKernel avx2_segment_kernel();
SegmentKernel avx512_segment_kernel();

}  // namespace skinref::cpu_detail

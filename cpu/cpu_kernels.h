// Internal to skinning_cpu.cc and its per-instruction-set translation units (cpu_kernel_scalar.cc,
// cpu_kernel_avx2.cc, cpu_kernel_avx512.cc): the prepared float32 arrays one skinning pass reads and writes,
// and the kernels that skin one primitive's vertex range. Every kernel is the one template of
// cpu_kernel.inc instantiated on a lane type (1, 8 or 16 floats), so each lane performs exactly the operations
// of gpu/shaders/skin.comp in its order and all kernels give identical bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace skinref::cpu_detail {

constexpr uint32_t kNone = 0xFFFFFFFFu;

// One palette entry, kEntryFloats floats: JM's columns c0..c3 (xyz each), the normal matrix's rows, the DQS
// rigid part's real and dual quaternions (x, y, z, w) and the rows of its non-rigid part S.
constexpr uint32_t kColumns = 0;       // 12: c0.xyz, c1.xyz, c2.xyz, c3.xyz
constexpr uint32_t kNormalRows = 12;   // 9
constexpr uint32_t kReal = 21;         // 4
constexpr uint32_t kDual = 25;         // 4
constexpr uint32_t kSRows = 29;        // 9
constexpr uint32_t kEntryFloats = 40;  // 38, padded

// One attribute, one array per component (x, y, z, and w for tangents), so that consecutive vertices are
// consecutive floats in each.
struct Planes {
  std::vector<float> x, y, z, w;
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
  size_t influence_first = 0; // influence i of local vertex v at influence_first + i * count + v
  bool rigid = false;         // one implicit influence: entry rigid_entry with weight 1
  uint32_t rigid_entry = 0;   // a float offset into the palette (entry index * kEntryFloats)
  bool dqs = false;
  bool normals = false;
  bool tangents = false;
  size_t first_target = 0;
  size_t target_count = 0;
};

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

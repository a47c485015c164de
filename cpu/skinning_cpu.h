// The fast CPU backend (`--backend cpu`): skinning in float32 on the CPU, SIMD across vertices and threaded
// over vertex ranges, held to the same derived per-vertex bounds as the Vulkan path.
//
// Contract:
// - Inputs as evaluate_vertices() (Scene, EvaluatedPose, SkinningOptions); outputs as gpu_evaluate_vertices():
//   one WorldPrimitive per drawn primitive in evaluate_vertices() order, its double fields holding float32
//   values, so write_vertex_dump with DumpPrecision::F32 writes them exactly.
// - The computation is gpu/shaders/skin.comp's, per vertex, operation for operation and in its order: morph
//   targets (non-zero weights, target order), then LBS (any influence count; normals by the cofactor of the
//   blended matrix with the sign of its determinant, or NormalMode::BlendedNormalMatrices) or DQS (per-joint
//   dual quaternions and non-rigid parts from split_dqs_joint(), skin/dqs.h); tangents by the blended
//   matrix (w kept); normals and tangents normalized, a zero vector kept; weights as stored or renormalized;
//   a vertex whose weights sum to 0 (or whose DQS real part is 0) keeps its morphed bind attributes; rigid
//   nodes as one palette entry (their global matrix) with weight 1, always LBS. IEEE division and square
//   root; each product added to a running sum fused into that addition (one rounding where skin.comp may
//   have two, which the float model of docs/error_bounds.md covers). So
//   float32_vertex_error_bounds(scene, pose, options, nullptr) bounds every value.
// - Its inputs as the Vulkan path prepares them (gpu/skinning_gpu.cc): bind attributes, weights and morph
//   deltas and weights rounded to float; palettes (JM, normal matrices, DQS splits) computed in double by the
//   reference and rounded.
// - SkinningOptions::kernel picks the instruction set (Auto: the widest this CPU and build have; Scalar is
//   always there); every kernel gives the same bits, and so does every thread count (each vertex is
//   computed alone). A kernel the CPU or build lacks is std::invalid_argument.
// - Prepared use (benchmarks, an engine's frame loop): prepare_cpu_skinning() converts once, skin_cpu() skins
//   any number of times into outputs it sizes on first use; cpu_world_primitives() converts to WorldPrimitive.
// - Errors: inconsistent influence sizes or a joint index outside the palette: std::invalid_argument; more
//   than 2^32 - 1 vertices, influences or palette floats: InputError.
#pragma once

#include "cpu/cpu_kernels.h"
#include "skin/evaluate_vertices.h"

#include <vector>

namespace skinref::cpu {

struct CpuSkinningInputs {
  std::vector<WorldPrimitive> primitives;  // node, mesh, primitive, skinned; vertices empty
  std::vector<cpu_detail::Segment> segments;  // one per primitive, in the same order
  size_t vertex_count = 0;  // the primitives' vertices
  size_t plane_size = 0;    // floats per plane: the vertices, each segment aligned to 64 bytes by zero padding
  bool renormalize = false;
  bool blend_normal_matrices = false;
  cpu_detail::Planes positions, normals, tangents;  // normals / tangents empty when no primitive has them
  std::vector<uint32_t> entries;                     // per influence: palette float offset
  std::vector<float> weights;
  cpu_detail::PaletteFloats palette;  // cpu_detail::kEntryFloats per entry
  std::vector<cpu_detail::Target> targets;
  cpu_detail::Planes deltas;  // x, y, z
};

struct CpuSkinningOutputs {
  cpu_detail::Planes positions, normals, tangents;  // x, y, z (and w for tangents) per vertex
};

CpuSkinningInputs prepare_cpu_skinning(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options);

// How the wide lanes write the outputs: Streaming uses non-temporal stores (no read of the lines written, the
// outputs not left in cache), Cached normal ones; Auto streams outputs of 64 MiB or more. Same bits either way.
enum class OutputStores { Auto, Cached, Streaming };

// How the wide kernels read the palette for the blends (LBS's JM, DQS's dual quaternion and S): PerVertex loads
// each influence's entry whole per vertex and transposes the sums into lanes (AVX-512: LBS and DQS at 1, 2, 4
// and 8 influences; AVX2: LBS), Gathers gathers each field into lanes. Same bits either way; Gathers exists
// for the kernel study in bench/ (BM_SkinKernel) and the bit tests.
enum class WideBlends { PerVertex, Gathers };

// The order of the AVX-512 kernel's DQS work per 16-vertex block, with per-vertex blends: Pipelined computes the
// next block's blends before this block's transform and normals, so that the two overlap in the out-of-order
// window; InOrder computes each block's blends, then its lanes. Pipelining holds the next block's 17 blend
// vectors across the lanes, which spill. Auto: Pipelined on AMD CPUs (1.13 times InOrder on Zen 5, docs/cpu.md),
// InOrder on the others (1.15 to 1.20 times Pipelined on this project's Intel Xeon). Same bits either way.
enum class DqsSchedule { Auto, Pipelined, InOrder };
DqsSchedule resolve_dqs_schedule(DqsSchedule schedule);  // Auto: the one this CPU gets; others unchanged
const char* dqs_schedule_name(DqsSchedule schedule);     // "pipelined", "in order"; Auto: the one chosen

// Requires threads >= 1.
void skin_cpu(const CpuSkinningInputs& inputs, CpuSkinningOutputs& outputs, int threads,
              SkinningKernel kernel = SkinningKernel::Auto, OutputStores stores = OutputStores::Auto,
              WideBlends blends = WideBlends::PerVertex, DqsSchedule dqs_schedule = DqsSchedule::Auto);

std::vector<WorldPrimitive> cpu_world_primitives(const CpuSkinningInputs& inputs, const CpuSkinningOutputs& outputs);

// prepare_cpu_skinning, skin_cpu with options.threads and options.kernel, cpu_world_primitives.
std::vector<WorldPrimitive> cpu_evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                                  const SkinningOptions& options);

// The bytes one skin_cpu() call must move through memory: every vertex attribute read and written, each
// influence's stored joint reference and weight, and the morph deltas of non-zero weight. The palette is not
// counted (a few KiB, cache-resident). Benchmarks divide this by the measured copy bandwidth.
double cpu_skinning_traffic_bytes(const CpuSkinningInputs& inputs);

bool cpu_kernel_available(SkinningKernel kernel);
const char* cpu_kernel_name(SkinningKernel kernel);  // "scalar", "avx2", "avx512"; Auto: the one chosen

}  // namespace skinref::cpu

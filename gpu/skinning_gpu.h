// Compute skinning on the GPU: the same inputs as the reference (Scene, EvaluatedPose, SkinningOptions) and
// the same outputs (world-space vertices per drawn primitive), computed in float32 by compute shaders.
//
// Contract:
// - Morph targets first (weights from the pose), then LBS over any number of influence sets (influence
//   count passed to the shader; joints and weights as float32 / uint32 arrays) or DQS (the palette's
//   per-joint rigid dual quaternions and non-rigid 3x3 parts prepared on the CPU from the reference's double
//   palette, as skin/dqs.h describes, then converted to float), normals by the inverse transpose of the
//   blended matrix (cofactor with the sign of the determinant), tangents xyz by the blended matrix; both
//   normalized; weights as stored (or renormalized, per options); zero-weight vertices keep bind attributes.
// - Rigid (non-skinned) nodes: one palette entry (the node's global matrix) with weight 1, as the reference,
//   always by LBS whatever the method.
// - Palettes come from the reference (doubles rounded to float32) by default.
// - Results are read back into WorldPrimitive (double fields holding the float32 values), in
//   evaluate_vertices order, so write_vertex_dump with DumpPrecision::F32 writes them exactly.
// - GpuSkinning splits one evaluation into its phases: the constructor converts the inputs, creates the
//   pipelines and uploads (inconsistent influences or a joint outside its palette -> std::invalid_argument,
//   counts over the GPU's 32-bit indices or maxStorageBufferRange -> InputError naming the scene); dispatch()
//   runs the skinning and the copy into host-visible memory and waits; read_back() converts the last
//   dispatch's results (std::logic_error before the first dispatch). Dispatching again recomputes the same
//   bits from the same uploaded inputs. Not thread-safe, like the Context.
// - gpu_evaluate_vertices() is one GpuSkinning: construct, dispatch, read back. `timing` (optional out):
//   device time of the skinning dispatches from timestamp queries (0 when the device has no timestamps) and
//   the end-to-end wall time (conversion, buffer creation, upload, dispatch, readback and conversion back;
//   pipeline creation excluded, as an application creates its pipelines once).
#pragma once

#include "gpu/context.h"
#include "skin/evaluate_vertices.h"

#include <memory>
#include <vector>

namespace skinref::gpu {

struct GpuTiming {
  double device_ms = 0.0;
  double end_to_end_ms = 0.0;
};

// Compute skinning prepared once (plan + upload), dispatched any number of times, read back on demand. The
// scene, pose and options are copied into device buffers by the constructor and not referenced afterwards.
class GpuSkinning {
 public:
  GpuSkinning(Context& context, const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options);
  ~GpuSkinning();  // frees its buffers and pipelines
  GpuSkinning(const GpuSkinning&) = delete;
  GpuSkinning& operator=(const GpuSkinning&) = delete;

  // Records, submits and waits for the fence.
  void dispatch();
  // Timestamps around the last dispatch's skinning; 0 without timestamps or before the first dispatch.
  double device_ms() const;
  // Records `passes` (>= 1) skinning passes back to back in one submission, a barrier between passes (each
  // writes the same outputs) and no copy for read-back, waits, and returns the device time per pass; 0 without
  // timestamps or with nothing to skin. This is the rate of a GPU kept busy, as in an engine's frame: a lone
  // dispatch() after an idle or transfer-bound stretch can run at the idle clock (an H200 idles its SMs at
  // 345 MHz against 1980 under load). The passes recompute the last dispatch()'s bits; read_back() is unchanged.
  double busy_pass_ms(int passes);
  // The constructor's wall time (conversion, buffer creation, upload), pipeline creation excluded.
  double prepare_ms() const;
  // The last dispatch's vertices, in evaluate_vertices() order.
  std::vector<WorldPrimitive> read_back() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::vector<WorldPrimitive> gpu_evaluate_vertices(Context& context, const Scene& scene, const EvaluatedPose& pose,
                                                  const SkinningOptions& options, GpuTiming* timing = nullptr);

}  // namespace skinref::gpu

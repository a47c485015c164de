// The backend options that `pose`, `skin` and `render` share (--backend reference|vulkan|cpu, --device,
// --validate, --palette reference|gpu) and what they select: the pose, the skinned vertices and the image,
// computed by the reference, by the Vulkan path, or (skinning only) by the fast float32 CPU backend.
//
// Contract:
// - with_backend_options(own, with_palette): a command's own OptionSpecs plus the backend's.
// - parse_backend(): checks the combination before any model is loaded: --device and --validate need
//   --backend vulkan, and so does --palette gpu; --backend vulkan in a build without the Vulkan path is a
//   UsageError; --palette gpu with --recipe is a UsageError (the GPU pass samples one clip: blending, masks
//   and IK run on the reference only). `pose --backend vulkan` evaluates the pose on the GPU (gpu_pose set).
//   --backend cpu skins only (cpu/skinning_cpu.h): the pose is the reference's and the image the reference
//   rasterizer's, so `pose --backend cpu` is a UsageError.
// - Backend: created right after parsing, so that an unknown --device is reported before the model loads.
//   pose(): the reference's evaluate_selected_pose(), or with gpu_pose gpu_evaluate_pose() of the selected
//   clip at the float32 time. vertices(): evaluate_vertices(), gpu_evaluate_vertices() or
//   cpu_evaluate_vertices(). render():
//   render_scene(), or gpu_render() (then only RenderResult::image is filled). finish(): throws GpuError
//   when the validation layer reported any warning or error. summary(): "" for the reference, else
//   ", vulkan on DEVICE" (and ", GPU animation" with gpu_pose) or ", cpu backend (KERNEL)" for the
//   command's summary line.
#pragma once

#include "cli/cli_args.h"
#include "raster/render.h"

#include <memory>
#include <string>
#include <vector>

namespace skinref::gpu {
class Context;
}

namespace skinref::cli {

std::vector<OptionSpec> with_backend_options(std::vector<OptionSpec> own, bool with_palette);

struct BackendChoice {
  bool vulkan = false;
  bool cpu = false;       // skinning by the fast float32 CPU backend
  bool gpu_pose = false;  // sampling, local to model and palettes on the GPU
  bool validate = false;
  std::string device;     // empty: automatic choice
};

// `pose_command`: `pose`, where --backend vulkan means the GPU pose (it has no --palette option) and
// --backend cpu is refused.
BackendChoice parse_backend(const ParsedArgs& parsed, const PoseSelection& selection, const std::string& command,
                            bool pose_command);

class Backend {
 public:
  explicit Backend(const BackendChoice& choice);
  ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  bool vulkan() const { return choice_.vulkan; }
  bool cpu() const { return choice_.cpu; }

  SelectedPose pose(const Scene& scene, const PoseSelection& selection);
  std::vector<WorldPrimitive> vertices(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options);
  RenderResult render(const Scene& scene, const EvaluatedPose& pose, const std::vector<WorldPrimitive>& primitives,
                      const RenderCamera& camera, const RenderOptions& options);
  void finish() const;
  std::string summary() const;

 private:
  BackendChoice choice_;
  std::unique_ptr<gpu::Context> context_;
};

}  // namespace skinref::cli

// The backends: one interface over the three implementations of the pipeline, used alike by the command
// line (tools/cli), the golden harness (tools/golden) and the benchmarks (bench/).
//
//   reference  the double-precision reference (reference/): every stage, bit for bit deterministic
//   cpu        the fast float32 CPU backend (cpu/): skinning; the pose and the image are the reference's
//   vulkan     the Vulkan path (gpu/): compute skinning and offscreen rendering, and with gpu_pose the GPU
//              animation pass (sampling, local to model, palettes) of one clip
//
// Contract:
// - BackendKind has one parse/print pair: backend_name() ("reference", "vulkan", "cpu"),
//   parse_backend_kind(), backend_choices(); kBackendKinds lists them in that order.
// - make_backend(options) creates the backend. vulkan creates its context at once (device selection, the
//   validation layer with options.validate), so an unknown device fails before any model loads
//   (gpu::GpuError); vulkan in a build without the Vulkan path, or device/validate/gpu_pose with another
//   kind, is std::invalid_argument (the CLI refuses these earlier with its usage messages).
// - pose(scene, source, time): the pose the backend's vertices start from: select_pose()
//   (anim/pose_selection.h), except vulkan with gpu_pose on a clip, which runs the GPU animation pass at the
//   float32 time (a recipe always takes the reference's pose). gpu_pose() says whether that happens.
// - prepare_skinning(scene, pose, options): a SkinningJob with its inputs converted (and uploaded) once.
//   The scene and the pose must outlive the job. vertices(scene, pose, options) is prepare, one run() and
//   vertices() of the job: for every backend, the drawn primitives in evaluate_vertices() order; float32
//   backends hold float32 values in the double fields.
// - render(): the reference rasterizer (render_scene()), or the GPU renderer (only RenderResult::image).
// - With BackendOptions::shader, vulkan's skinning job runs the user's shader (its traffic model: the bytes
//   of the buffers its interface describes); make_backend() loads it and checks it against its interface
//   (InputError on a contradiction); other kinds refuse it with std::invalid_argument.
// - finish(): throws gpu::GpuError when the validation layer reported any warning or error (vulkan).
// - summary(): "" (reference), ", cpu backend (KERNEL)" or ", vulkan on DEVICE" (+ ", GPU animation"), for
//   a command's summary line; description(): "reference", "cpu (KERNEL)" or "vulkan" + summary(), for
//   reports.
#pragma once

#include "anim/pose_selection.h"
#include "core/pose.h"
#include "core/vertices.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "skin/options.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skinref {

enum class BackendKind { Reference, Vulkan, Cpu };

inline constexpr std::array<BackendKind, 3> kBackendKinds = {BackendKind::Reference, BackendKind::Vulkan,
                                                             BackendKind::Cpu};

const char* backend_name(BackendKind kind);
std::optional<BackendKind> parse_backend_kind(std::string_view name);
std::string backend_choices(std::string_view separator = "|");
// Whether this build has the backend (vulkan needs the Vulkan path).
bool backend_built(BackendKind kind);

struct BackendOptions {
  BackendKind kind = BackendKind::Reference;
  bool gpu_pose = false;  // vulkan: the GPU animation pass computes the pose of a clip
  bool validate = false;  // vulkan: the validation layer on; any warning or error fails finish()
  std::string device;     // vulkan: index or name substring; empty: the automatic choice
  // vulkan: a user's skinning compute shader (SPIR-V, GLSL or HLSL) and its interface JSON run in place of
  // skin.comp (gpu/user_shader.h, gpu/user_skinning.h); both or neither. Loaded and checked by make_backend().
  std::string shader, shader_interface;
  std::vector<std::string> shader_includes;  // glslc's -I folders for the shader's #includes
};

// The writer a dump of this backend's vertices records: "skinref KIND", or "user shader FILE (skinref vulkan)"
// for a user's shader, whose dumps compare and diagnose then hold to the any-order bounds.
std::string backend_writer(const BackendOptions& options);

// Skinning prepared once on a backend and run any number of times: what an engine's frame loop does, and
// what the benchmarks time.
class SkinningJob {
 public:
  virtual ~SkinningJob() = default;
  // One skinning pass over every drawn primitive.
  virtual void run() = 0;
  // The last run's vertices, in evaluate_vertices() order.
  virtual std::vector<WorldPrimitive> vertices() const = 0;
  // The bytes one run() must move through memory under the backend's own traffic model (stated where the
  // model is defined); the benchmarks divide it by measured copy bandwidth.
  virtual double traffic_bytes() const = 0;
  // The wall time its preparation took (conversion, buffers, upload), one-time set-up that a program does once
  // (vulkan pipeline creation) left out.
  virtual double prepare_seconds() const = 0;
  // The device time of the last run, where the device measures it (vulkan timestamps).
  virtual std::optional<double> device_seconds() const { return std::nullopt; }
  // The device time per pass of `passes` passes run back to back with the device kept busy (no read-back
  // between them), where the device measures it; benchmarks use it for a device's throughput.
  virtual std::optional<double> busy_pass_seconds(int /*passes*/) { return std::nullopt; }
  // Worker threads of a CPU backend's run (>= 1); the bits do not depend on it. No effect on vulkan.
  virtual void set_threads(int threads) = 0;
  // "KIND, PRECISION, KERNEL kernel, threads=N" or the device, for benchmark labels.
  virtual std::string label() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual BackendKind kind() const = 0;
  virtual bool gpu_pose() const { return false; }

  virtual EvaluatedPose pose(const Scene& scene, const PoseSource& source, std::optional<double> time);
  virtual std::unique_ptr<SkinningJob> prepare_skinning(const Scene& scene, const EvaluatedPose& pose,
                                                        const SkinningOptions& options) = 0;
  std::vector<WorldPrimitive> vertices(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options);
  virtual RenderResult render(const Scene& scene, const EvaluatedPose& pose,
                              const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                              const RenderOptions& options);
  // Why this backend cannot skin `scene` with `options` (a user's shader computes one method and reads a
  // fixed number of influences), for callers that skip such cases visibly; nullopt when it can.
  virtual std::optional<std::string> skinning_unsupported(const Scene& scene, const SkinningOptions& options) const;
  virtual void finish() const {}
  virtual std::string summary() const = 0;
  virtual std::string description() const = 0;
};

std::unique_ptr<Backend> make_backend(const BackendOptions& options);
std::unique_ptr<Backend> make_backend(BackendKind kind);  // default options

}  // namespace skinref

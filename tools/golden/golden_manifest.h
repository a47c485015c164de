// The golden manifest (golden/manifest.json): the cases `skinref golden update` regenerates from the
// reference and `skinref golden check` compares a backend with. Format and policy: golden/README.md.
//
// Contract:
// - load_golden_manifest(path) reads and validates the whole file with nlohmann_json; every problem throws
//   InputError(path, JSON pointer of the offending value, what was expected), e.g.
//   "golden/manifest.json: /cases/3/times/1: a time exactly representable in float32, got 0.1". Checked:
//   format "skinref-golden-manifest", version 1; unknown and repeated keys; case names unique and made of
//   [a-z0-9._-] (they name folders and ctest tests); model "builtin:NAME" (a known built-in scene) or
//   "corpus:RELATIVE/PATH" (relative, no "..", ending in .gltf/.glb); "animation" and "recipe" not together;
//   the recipe file exists under the golden folder; times non-empty, finite, strictly increasing and exactly
//   float32 values (the Vulkan path evaluates at the float32 time, so the reference goldens are its exact
//   reference); method, size, camera and view as `skinref render` takes them; "dumps": false only with a
//   "dumps_reason"; tolerance overrides only for "vulkan", each with a non-empty "reason" (the reference is
//   compared bit for bit, so it takes none): "image_threshold" and "image_max_fraction". Vertices have no
//   override: they are held to their derived bounds.
// - What depends on the model (an animation or weights joint name, the recipe's names) is resolved when a case
//   runs, not here.
// - golden_output_stem(time): the file stem of one time's outputs, "t" + the shortest decimal that reads
//   back as that double ("t0.5", "t1", "t0.3125"); the outputs of case NAME at time T are
//   cases/NAME/<stem>.png, <stem>.skv (f64 skinned vertices) and <stem>.pose.json (pose dump).
#pragma once

#include "raster/render.h"
#include "skin/lbs.h"

#include <optional>
#include <string>
#include <vector>

namespace skinref::golden {

struct GoldenImageTolerance {
  int threshold = 0;        // per channel, d(p) <= threshold passes
  double max_fraction = 0;  // of the pixels over threshold
};

struct GoldenTolerances {
  // Present when the manifest overrides the vulkan defaults; the fields not given keep the defaults.
  std::optional<int> vulkan_image_threshold;
  std::optional<double> vulkan_image_max_fraction;
  // Values whose derived bound is infinite (the analysis makes no claim there) are compared with the interim
  // GPU tolerances (tol::kGpuVertexRelative of the extent, tol::kGpuUnitVector) instead of failing.
  std::string vulkan_reason;
};

struct GoldenCase {
  std::string name;
  std::string description;          // free text, shown in the report
  std::string model;                // "builtin:NAME" or "corpus:RELATIVE/PATH", as written
  std::optional<std::string> animation;  // name, or an index as decimal text; default the first
  std::optional<std::string> recipe;     // path relative to the golden folder
  std::vector<double> times;
  SkinningMethod method = kDefaultSkinningMethod;
  int width = 256;
  int height = 256;
  std::string camera = "auto";      // as --camera
  RenderView view = RenderView::Shaded;
  std::string view_joint;           // for RenderView::Weights: a skin joint index or node name
  std::string view_text = "shaded"; // as written
  bool dumps = true;                // write .skv and .pose.json next to the image
  std::string dumps_reason;         // why not, when dumps is false
  GoldenTolerances tolerances;

  bool corpus() const { return model.rfind("corpus:", 0) == 0; }
  std::string corpus_path() const { return corpus() ? model.substr(7) : std::string(); }
};

struct GoldenManifest {
  std::string path;  // as given, for messages
  std::vector<GoldenCase> cases;
};

GoldenManifest load_golden_manifest(const std::string& path);

// The manifest of a golden folder: DIR/manifest.json.
std::string golden_manifest_path(const std::string& golden_dir);

std::string golden_output_stem(double time);

// The defaults of the vulkan check (verify/gpu_tolerances.h), with the case's overrides applied.
GoldenImageTolerance vulkan_image_tolerance(const GoldenCase& golden_case);

}  // namespace skinref::golden

// What `skinref golden update` and `golden check` share (golden_update.h, golden_check.h): the corpus location, the case
// selection, a case's folder, and a case set up for evaluation (model, pose source, skinning, render options,
// camera), plus the byte forms of its dumps.
//
// Contract: prepare_case() loads the model (a corpus case from corpus_dir()), resolves the animation or reads
// the recipe (relative to the golden folder), the weights-view joint and the camera; anything the model does
// not have is an InputError naming the case's model. Dumps name the manifest's spelling of the model as their
// source, so that they do not depend on where the corpus lies.
#pragma once

#include "anim/pose_selection.h"
#include "backend/backend.h"
#include "core/pose.h"
#include "core/vertices.h"
#include "golden/golden_manifest.h"
#include "io/image_io.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "skin/options.h"

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace skinref::golden {

inline constexpr long long kMaxGoldenThreads = 1024;

// SKINREF_CORPUS_DIR from the environment, else the build's default.
std::string corpus_dir();
// The line a corpus case prints when the corpus is absent (ctest's SKIP_REGULAR_EXPRESSION matches it).
std::string corpus_skip_line(const GoldenCase& golden_case, const std::string& what);
int default_threads();

// The cases whose names match --filter GLOB (fnmatch), in manifest order; a filter matching nothing is a
// usage error (std::invalid_argument), so that a misspelt name never passes as "nothing failed".
std::vector<const GoldenCase*> select_cases(const GoldenManifest& manifest, const std::optional<std::string>& filter);

std::filesystem::path case_dir(const std::string& golden_dir, const GoldenCase& golden_case);

struct PreparedCase {
  const GoldenCase* golden_case = nullptr;
  Scene scene;
  PoseSource pose_source;  // the case's clip (-1: the rest pose) or recipe
  SkinningOptions skinning;
  RenderOptions render;
  CameraSpec camera_spec;
  std::optional<RenderCamera> fixed_camera;  // auto and look-at: the same at every time

  EvaluatedPose reference_pose(double time) const;  // select_pose() at `time`
  RenderCamera camera(const EvaluatedPose& pose) const;
};

PreparedCase prepare_case(const GoldenCase& golden_case, const std::string& golden_dir);

// One output time of a case on `backend`: its pose (Backend::pose() of the case's source), vertices and image,
// with the camera of the reference's pose (a glTF camera moves with its node), and that reference pose.
// `golden update` runs it on the reference backend, `golden check` on the backend under test.
struct CaseOutputs {
  EvaluatedPose reference_pose;  // select_pose() at the time
  EvaluatedPose pose;            // the backend's: the reference's unless the GPU animation pass computed it
  RenderCamera camera;
  std::vector<WorldPrimitive> vertices;
  RenderResult rendered;
};

CaseOutputs evaluate_case(const PreparedCase& prepared, Backend& backend, double time);

std::string skv_bytes(const std::vector<WorldPrimitive>& vertices);  // f64 .skv
std::string pose_bytes(const Scene& scene, const EvaluatedPose& pose);
std::optional<std::string> read_file_bytes(const std::filesystem::path& path);
std::string format(const char* pattern, double value);
std::string hex_colour(const RgbaImage& image, int x, int y);  // "#rrggbbaa"

}  // namespace skinref::golden

#include "golden/golden_case.h"

#include "core/input_error.h"
#include "core/stream_bytes.h"
#include "io/load_model.h"
#include "io/pose_dump.h"
#include "io/vertex_dump.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <thread>

#ifndef SKINREF_CORPUS_DIR
#error "SKINREF_CORPUS_DIR must name the default corpus folder (set by CMakeLists.txt)"
#endif

namespace skinref::golden {

namespace fs = std::filesystem;

namespace {

bool is_decimal_index(const std::string& text) {
  return !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The case's animation: a name, or an index as decimal text; none given: the first (-1, the rest pose, without any).
int resolve_case_animation(const Scene& scene, const std::optional<std::string>& animation) {
  const size_t count = scene.animations.size();
  if (!animation) return count == 0 ? -1 : 0;
  if (is_decimal_index(*animation)) {
    const size_t index = size_t(std::stoul(*animation));
    if (index < count) return int(index);
  } else {
    for (size_t i = 0; i < count; ++i)
      if (scene.animations[i].name == *animation) return int(i);
  }
  std::string available;
  for (size_t i = 0; i < count; ++i) available += (i == 0 ? "" : ", ") + std::to_string(i) + " '" + scene.animations[i].name + "'";
  throw InputError(scene.source, "", "animation '" + *animation + "': an animation of the model (" +
                                         (count == 0 ? std::string("it has none") : "available: " + available) + ")");
}

// A joint of the first skin, by index into its joint list or by node name (as `render --view weights:J`).
int resolve_view_joint(const Scene& scene, const std::string& joint) {
  if (scene.skins.empty()) throw InputError(scene.source, "", "view weights:" + joint + ": the model has no skin");
  const Skin& skin = scene.skins[0];
  if (is_decimal_index(joint)) {
    const long long index = std::strtoll(joint.c_str(), nullptr, 10);
    if (index < 0 || index >= (long long)skin.joints.size()) {
      throw InputError(scene.source, "", "view weights:" + joint + ": the first skin has joints 0 to " +
                                             std::to_string(skin.joints.size() - 1));
    }
    return int(index);
  }
  for (size_t j = 0; j < skin.joints.size(); ++j) {
    if (scene.nodes[size_t(skin.joints[j])].name == joint) return int(j);
  }
  throw InputError(scene.source, "", "view weights:" + joint + ": no joint of that name in the first skin");
}

}  // namespace

std::string corpus_dir() {
  if (const char* env = std::getenv("SKINREF_CORPUS_DIR"); env != nullptr && *env != '\0') return env;
  return SKINREF_CORPUS_DIR;
}

std::string corpus_skip_line(const GoldenCase& golden_case, const std::string& what) {
  return "SKIPPED: corpus not found at " + corpus_dir() + ": case " + golden_case.name + " " + what +
         " (set SKINREF_CORPUS_DIR to the folder holding glTF-Sample-Assets and glTF-Asset-Generator)";
}

int default_threads() { return std::max(1, int(std::thread::hardware_concurrency())); }

std::vector<const GoldenCase*> select_cases(const GoldenManifest& manifest, const std::optional<std::string>& filter) {
  std::vector<const GoldenCase*> selected;
  for (const GoldenCase& golden_case : manifest.cases) {
    if (!filter || fnmatch(filter->c_str(), golden_case.name.c_str(), 0) == 0) selected.push_back(&golden_case);
  }
  if (selected.empty()) {
    throw std::invalid_argument("golden: --filter '" + filter.value_or("") + "' matches no case of " + manifest.path);
  }
  return selected;
}

fs::path case_dir(const std::string& golden_dir, const GoldenCase& golden_case) {
  return fs::path(golden_dir) / "cases" / golden_case.name;
}

EvaluatedPose PreparedCase::reference_pose(double time) const {
  return select_pose(scene, pose_source, time);
}

RenderCamera PreparedCase::camera(const EvaluatedPose& pose) const {
  if (fixed_camera) return *fixed_camera;
  return gltf_camera(scene, pose, camera_spec.gltf_index, double(render.width) / double(render.height));
}

PreparedCase prepare_case(const GoldenCase& golden_case, const std::string& golden_dir) {
  PreparedCase prepared;
  prepared.golden_case = &golden_case;
  const std::string path = golden_case.corpus() ? (fs::path(corpus_dir()) / golden_case.corpus_path()).string()
                                                : golden_case.model;
  prepared.scene = load_model(path);
  // Dumps name their source: the manifest's spelling, so that they do not depend on where the corpus lies.
  prepared.scene.source = golden_case.model;
  if (golden_case.recipe) {
    prepared.pose_source.recipe_path = (fs::path(golden_dir) / *golden_case.recipe).string();
    prepared.pose_source.recipe = load_recipe(prepared.pose_source.recipe_path, prepared.scene);
  } else {
    prepared.pose_source.animation = resolve_case_animation(prepared.scene, golden_case.animation);
  }
  prepared.skinning.method = golden_case.method;
  prepared.render.width = golden_case.width;
  prepared.render.height = golden_case.height;
  prepared.render.view = golden_case.view;
  if (golden_case.view == RenderView::Weights) {
    prepared.render.weights_joint = resolve_view_joint(prepared.scene, golden_case.view_joint);
  }
  prepared.camera_spec = parse_camera_spec(golden_case.camera);
  const double aspect = double(golden_case.width) / double(golden_case.height);
  switch (prepared.camera_spec.kind) {
    case CameraSpec::Kind::Auto: {
      // As `render`: one camera for the whole clip; a recipe is framed over the model's first animation.
      const PoseSource& source = prepared.pose_source;
      const int framed = source.recipe ? (prepared.scene.animations.empty() ? -1 : 0) : source.animation;
      prepared.fixed_camera = auto_camera(prepared.scene, framed, prepared.skinning, aspect);
      break;
    }
    case CameraSpec::Kind::LookAt:
      prepared.fixed_camera = look_at_camera(prepared.camera_spec.eye, prepared.camera_spec.target,
                                             prepared.camera_spec.fov_degrees, aspect);
      break;
    case CameraSpec::Kind::Gltf:
      if (prepared.camera_spec.gltf_index < 0 || size_t(prepared.camera_spec.gltf_index) >= prepared.scene.cameras.size()) {
        throw InputError(golden_case.model, "", "camera gltf:" + std::to_string(prepared.camera_spec.gltf_index) +
                                                    ": the model has " + std::to_string(prepared.scene.cameras.size()) +
                                                    " cameras");
      }
      break;
  }
  return prepared;
}

CaseOutputs evaluate_case(const PreparedCase& prepared, Backend& backend, double time) {
  CaseOutputs outputs;
  outputs.reference_pose = prepared.reference_pose(time);
  outputs.pose = backend.pose(prepared.scene, prepared.pose_source, time);
  outputs.camera = prepared.camera(outputs.reference_pose);
  outputs.vertices = backend.vertices(prepared.scene, outputs.pose, prepared.skinning);
  outputs.rendered = backend.render(prepared.scene, outputs.pose, outputs.vertices, outputs.camera, prepared.render);
  return outputs;
}

std::string skv_bytes(const std::vector<WorldPrimitive>& vertices) {
  VertexDump dump;
  dump.precision = DumpPrecision::F64;
  dump.primitives = vertices;
  std::ostringstream out;
  write_vertices_skv(dump, out);
  return out.str();
}

std::string pose_bytes(const Scene& scene, const EvaluatedPose& pose) {
  std::ostringstream out;
  write_pose_json(scene, pose, out);
  return out.str();
}

std::optional<std::string> read_file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return read_stream_bytes(in);
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string hex_colour(const RgbaImage& image, int x, int y) {
  const uint8_t* p = &image.pixels[4 * (size_t(y) * size_t(image.width) + size_t(x))];
  char text[16];
  std::snprintf(text, sizeof text, "#%02x%02x%02x%02x", p[0], p[1], p[2], p[3]);
  return text;
}

}  // namespace skinref::golden

// `skinref golden update|check`: the golden images and dumps of golden/manifest.json (golden_manifest.h,
// golden/README.md).
//
// update: every selected case is evaluated by the reference at each of its times and written to
// GOLDEN_DIR/cases/NAME/<stem>.png, .skv (f64) and .pose.json; a case's files are staged in temporaries and
// renamed together once all were written, so an interrupted update leaves every golden file whole (old or
// new). Cases run in parallel (--threads); leftovers in a case's folder (outputs of times no longer listed,
// temporaries of an interrupted run) are removed once the case's files are in place.
//
// check: every output of every selected case is computed by the chosen backend and compared with its golden
// files. reference: bit for bit (the image's pixels, the .skv and .pose.json bytes); on a difference, the
// first stage that differs (sampling, local-to-model, palette, skinning, then render) and where. vulkan: the
// whole GPU pipeline (animation pass, compute skinning, graphics pipeline; recipe cases take the reference's
// pose, since the GPU animation pass plays one clip), the image within the case's image tolerance, the pose
// and vertices within their derived float32 bounds (pose_error_bounds.h, vertex_error_bounds.h), and on a
// failure the first diverging stage from bisect_stages() (or render, when only the image differs). A
// missing golden file is a failure, never created by check. Corpus cases are skipped, with a line, when
// the corpus is absent. Exit: 0 all pass (skips allowed), 1 any failure, 2 bad manifest, usage or a case
// that cannot be set up (an unknown animation or joint, an unreadable recipe).
#include "backend.h"
#include "cli_args.h"
#include "commands.h"
#include "golden_manifest.h"
#include "golden_report.h"

#include "atomic_file.h"
#include "camera.h"
#include "gltf_load.h"
#include "image_compare.h"
#include "image_io.h"
#include "input_error.h"
#include "pose_dump.h"
#include "pose_error_bounds.h"
#include "recipe.h"
#include "render.h"
#include "stage_bisection.h"
#include "tolerances.h"
#include "vertex_compare.h"
#include "vertex_dump.h"
#include "vertex_error_bounds.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#ifndef SKINREF_GOLDEN_DIR
#error "SKINREF_GOLDEN_DIR must name the source tree's golden folder (set by CMakeLists.txt)"
#endif
#ifndef SKINREF_CORPUS_DIR
#error "SKINREF_CORPUS_DIR must name the default corpus folder (set by CMakeLists.txt)"
#endif

namespace skinref::cli {
namespace {

namespace fs = std::filesystem;

constexpr long long kMaxThreads = 1024;

// ---- settings shared by update and check ---------------------------------------------------------------

std::string corpus_dir() {
  if (const char* env = std::getenv("SKINREF_CORPUS_DIR"); env != nullptr && *env != '\0') return env;
  return SKINREF_CORPUS_DIR;
}

std::string corpus_skip_line(const GoldenCase& golden_case, const std::string& what) {
  return "SKIPPED: corpus not found at " + corpus_dir() + ": case " + golden_case.name + " " + what +
         " (set SKINREF_CORPUS_DIR to the folder holding glTF-Sample-Assets and glTF-Asset-Generator)";
}

int default_threads() { return std::max(1, int(std::thread::hardware_concurrency())); }

// The cases whose names match --filter GLOB (fnmatch), in manifest order; a filter matching nothing is a
// usage error, so that a misspelt name never passes as "nothing failed".
std::vector<const GoldenCase*> select_cases(const GoldenManifest& manifest, const std::optional<std::string>& filter) {
  std::vector<const GoldenCase*> selected;
  for (const GoldenCase& golden_case : manifest.cases) {
    if (!filter || fnmatch(filter->c_str(), golden_case.name.c_str(), 0) == 0) selected.push_back(&golden_case);
  }
  if (selected.empty()) {
    throw UsageError("golden: --filter '" + filter.value_or("") + "' matches no case of " + manifest.path);
  }
  return selected;
}

fs::path case_dir(const std::string& golden_dir, const GoldenCase& golden_case) {
  return fs::path(golden_dir) / "cases" / golden_case.name;
}

// ---- one case, set up for evaluation -------------------------------------------------------------------

// A joint of the first skin, by index into its joint list or by node name (as `render --view weights:J`).
int resolve_view_joint(const Scene& scene, const std::string& joint) {
  if (scene.skins.empty()) throw InputError(scene.source, "", "view weights:" + joint + ": the model has no skin");
  const Skin& skin = scene.skins[0];
  if (looks_like_integer(joint)) {
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

struct PreparedCase {
  const GoldenCase* golden_case = nullptr;
  Scene scene;
  int animation = -1;  // clip cases (-1: the rest pose)
  std::optional<Recipe> recipe;
  SkinningOptions skinning;
  RenderOptions render;
  CameraSpec camera_spec;
  std::optional<RenderCamera> fixed_camera;  // auto and look-at: the same at every time

  EvaluatedPose reference_pose(double time) const {
    return recipe ? evaluate_recipe(scene, *recipe, time) : evaluate_pose(scene, animation, time);
  }
  RenderCamera camera(const EvaluatedPose& pose) const {
    if (fixed_camera) return *fixed_camera;
    return gltf_camera(scene, pose, camera_spec.gltf_index, double(render.width) / double(render.height));
  }
};

PreparedCase prepare_case(const GoldenCase& golden_case, const std::string& golden_dir) {
  PreparedCase prepared;
  prepared.golden_case = &golden_case;
  const std::string path = golden_case.corpus() ? (fs::path(corpus_dir()) / golden_case.corpus_path()).string()
                                                : golden_case.model;
  prepared.scene = load_model(path);
  // Dumps name their source: the manifest's spelling, so that they do not depend on where the corpus lies.
  prepared.scene.source = golden_case.model;
  if (golden_case.recipe) {
    prepared.recipe = load_recipe((fs::path(golden_dir) / *golden_case.recipe).string(), prepared.scene);
  } else {
    prepared.animation = resolve_animation(prepared.scene, golden_case.animation);
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
      const int framed = prepared.recipe ? (prepared.scene.animations.empty() ? -1 : 0) : prepared.animation;
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
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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

// ---- update ------------------------------------------------------------------------------------------------

// Writes every output of one case; returns a line for the log.
std::string update_case(const GoldenCase& golden_case, const std::string& golden_dir) {
  const PreparedCase prepared = prepare_case(golden_case, golden_dir);
  const fs::path dir = case_dir(golden_dir, golden_case);
  fs::create_directories(dir);
  std::vector<std::pair<std::string, std::string>> staged;  // (temporary, target)
  std::set<std::string> outputs;
  auto stage = [&](const std::string& name, const std::function<void(const std::string&)>& write) {
    const std::string target = (dir / name).string();
    const std::string temporary = temporary_path_for(target);
    staged.emplace_back(temporary, target);
    outputs.insert(name);
    write(temporary);
  };
  try {
    for (const double time : golden_case.times) {
      const std::string stem = golden_output_stem(time);
      const EvaluatedPose pose = prepared.reference_pose(time);
      const std::vector<WorldPrimitive> vertices = evaluate_vertices(prepared.scene, pose, prepared.skinning);
      const RenderResult rendered =
          render_scene(prepared.scene, pose, vertices, prepared.camera(pose), prepared.render);
      stage(stem + ".png", [&](const std::string& path) { write_png(rendered.image, path); });
      if (golden_case.dumps) {
        const std::string skv = skv_bytes(vertices), json = pose_bytes(prepared.scene, pose);
        stage(stem + ".skv", [&](const std::string& path) {
          write_file_atomically(path, [&](std::ostream& out) { out << skv; });
        });
        stage(stem + ".pose.json", [&](const std::string& path) {
          write_file_atomically(path, [&](std::ostream& out) { out << json; });
        });
      }
    }
    for (size_t i = 0; i < staged.size(); ++i) commit_temporary(staged[i].first, staged[i].second);
  } catch (...) {
    for (const auto& [temporary, target] : staged) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
    }
    throw;
  }
  // Leftovers: outputs of times no longer listed, or temporaries of an interrupted run.
  std::vector<std::string> removed;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && outputs.count(name) == 0) {
      fs::remove(entry.path());
      removed.push_back(name);
    }
  }
  std::string line = "wrote " + (fs::path("cases") / golden_case.name).string() + ": " + std::to_string(outputs.size()) +
                     " files (" + std::to_string(golden_case.times.size()) +
                     (golden_case.times.size() == 1 ? " time)" : " times)");
  if (!removed.empty()) {
    line += "; removed";
    for (const std::string& name : removed) line += " " + name;
  }
  return line;
}

int run_update(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--filter", true}, {"--golden-dir", true}, {"--threads", true}};
  const ParsedArgs parsed = parse_args(args, kOptions, "golden update");
  if (parsed.help) {
    std::cout << golden_usage();
    return kExitOk;
  }
  require_positionals(parsed, 0, "no arguments", "golden update");
  const std::string golden_dir = parsed.value("--golden-dir").value_or(SKINREF_GOLDEN_DIR);
  int threads = default_threads();
  if (const std::optional<std::string> text = parsed.value("--threads")) {
    threads = int(parse_integer(*text, "--threads", 1, kMaxThreads));
  }
  const GoldenManifest manifest = load_golden_manifest(golden_manifest_path(golden_dir));
  const std::vector<const GoldenCase*> cases = select_cases(manifest, parsed.value("--filter"));

  const auto start = std::chrono::steady_clock::now();
  const bool terminal = isatty(STDOUT_FILENO) == 1;
  const bool corpus = fs::is_directory(corpus_dir());
  std::mutex output_mutex;
  std::atomic<size_t> next{0};
  size_t done = 0, skipped = 0;
  std::vector<std::string> errors(cases.size());
  auto print = [&](const std::string& line) {  // under output_mutex
    if (terminal) std::cout << "\r\033[K";
    std::cout << line << "\n";
  };
  auto worker = [&] {
    for (size_t i = next++; i < cases.size(); i = next++) {
      const GoldenCase& golden_case = *cases[i];
      std::string line;
      bool skip = false;
      if (golden_case.corpus() && !corpus) {
        line = corpus_skip_line(golden_case, "keeps its goldens");
        skip = true;
      } else {
        try {
          line = update_case(golden_case, golden_dir);
        } catch (const std::exception& error) {
          errors[i] = golden_case.name + ": " + error.what();
          line = "error: case " + errors[i];
        }
      }
      const std::lock_guard<std::mutex> lock(output_mutex);
      ++done;
      skipped += skip ? 1 : 0;
      // A progress line on a terminal; one line per case in a log.
      if (terminal) {
        if (skip || !errors[i].empty()) print(line);
        std::cout << "\r\033[K[" << done << "/" << cases.size() << "] " << golden_case.name << std::flush;
      } else {
        print(line);
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t workers = std::min<size_t>(size_t(threads), cases.size());
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  if (terminal) std::cout << "\r\033[K";

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string failures;
  size_t failed = 0;
  for (const std::string& error : errors) {
    if (error.empty()) continue;
    ++failed;
    failures += (failures.empty() ? "" : "; ") + error;
  }
  std::cout << "golden update: " << (cases.size() - skipped - failed) << " cases written, " << skipped << " skipped, "
            << failed << " failed, into " << golden_dir << " in " << format("%.1f", seconds) << " s (" << threads
            << " threads); look at the images before committing them\n";
  if (failed > 0) throw std::runtime_error("golden update: " + std::to_string(failed) + " cases failed: " + failures);
  return kExitOk;
}

// ---- check -------------------------------------------------------------------------------------------------

struct CheckSettings {
  bool vulkan = false;
  BackendChoice backend;
  std::string golden_dir;
  std::optional<std::string> report_dir;
};

struct CaseResult {
  std::vector<GoldenReportRow> rows;
  bool setup_error = false;  // the case could not be set up: bad input, exit 2
  std::vector<std::string> lines;
};

// Exact comparison of one output with its golden dumps: the first stage whose values differ, bit for bit.
struct ExactDivergence {
  std::string stage;  // empty: none
  std::string location;
  size_t values_differing = 0;
};

bool same_bits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

std::string value_pair(double golden, double actual) {
  return ": golden " + format("%.17g", golden) + ", actual " + format("%.17g", actual);
}

std::string node_label(const Scene& scene, size_t node) {
  const std::string& name = scene.nodes[node].name;
  return "node " + std::to_string(node) + (name.empty() ? std::string() : " '" + name + "'");
}

// Scans one stage: `values` calls `add(golden, actual, location_function)` for each value in order.
class ExactScan {
 public:
  void add(double golden, double actual, const std::function<std::string()>& where) {
    if (same_bits(golden, actual)) return;
    if (count_++ == 0) first_ = where() + value_pair(golden, actual);
  }
  bool found() const { return count_ > 0; }
  ExactDivergence result(const std::string& stage) const { return {stage, first_, count_}; }

 private:
  size_t count_ = 0;
  std::string first_;
};

ExactDivergence exact_pose_divergence(const Scene& scene, const EvaluatedPose& golden, const EvaluatedPose& actual) {
  static const char* kTrs[10] = {"translation.x", "translation.y", "translation.z", "rotation.x", "rotation.y",
                                 "rotation.z",    "rotation.w",    "scale.x",       "scale.y",    "scale.z"};
  auto trs = [](const Transform& t, int i) {
    if (i < 3) return t.translation[i];
    if (i < 7) return quat_to_xyzw(t.rotation)[size_t(i - 3)];
    return t.scale[i - 7];
  };
  ExactScan sampling;
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    for (int i = 0; i < 10; ++i) {
      sampling.add(trs(golden.local.local[n], i), trs(actual.local.local[n], i),
                   [&] { return node_label(scene, n) + " " + kTrs[i]; });
    }
    const std::vector<double>& g = golden.local.morph_weights[n];
    const std::vector<double>& a = actual.local.morph_weights[n];
    for (size_t k = 0; k < std::min(g.size(), a.size()); ++k) {
      sampling.add(g[k], a[k], [&] { return node_label(scene, n) + " morph weight " + std::to_string(k); });
    }
  }
  if (sampling.found()) return sampling.result("sampling");
  ExactScan global;
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    for (int i = 0; i < 16; ++i) {
      global.add(golden.model.global[n].data()[i], actual.model.global[n].data()[i], [&] {
        return node_label(scene, n) + " global (" + std::to_string(i % 4) + "," + std::to_string(i / 4) + ")";
      });
    }
  }
  if (global.found()) return global.result("local-to-model");
  ExactScan palette;
  for (size_t s = 0; s < std::min(golden.palettes.size(), actual.palettes.size()); ++s) {
    const JointPalette& g = golden.palettes[s];
    const JointPalette& a = actual.palettes[s];
    for (size_t j = 0; j < std::min(g.skinning.size(), a.skinning.size()); ++j) {
      auto joint = [&] {
        return "skin " + std::to_string(s) + " joint " + std::to_string(j) + " (" +
               node_label(scene, size_t(scene.skins[s].joints[j])) + ")";
      };
      for (int i = 0; i < 16; ++i) {
        palette.add(g.skinning[j].data()[i], a.skinning[j].data()[i], [&] {
          return joint() + " palette (" + std::to_string(i % 4) + "," + std::to_string(i / 4) + ")";
        });
      }
      for (int i = 0; i < 9; ++i) {
        palette.add(g.normal[j].data()[i], a.normal[j].data()[i], [&] {
          return joint() + " normal matrix (" + std::to_string(i % 3) + "," + std::to_string(i / 3) + ")";
        });
      }
    }
  }
  if (palette.found()) return palette.result("palette");
  return {};
}

ExactDivergence exact_vertex_divergence(const std::vector<WorldPrimitive>& golden,
                                        const std::vector<WorldPrimitive>& actual) {
  static const char* kAxis = "xyzw";
  ExactScan skinning;
  for (size_t p = 0; p < std::min(golden.size(), actual.size()); ++p) {
    const SkinnedVertices& g = golden[p].vertices;
    const SkinnedVertices& a = actual[p].vertices;
    auto where = [&](size_t v, const char* attribute, int axis) {
      return "primitive " + std::to_string(p) + " (node " + std::to_string(actual[p].node) + ", mesh " +
             std::to_string(actual[p].mesh) + ") vertex " + std::to_string(v) + " " + attribute + "." + kAxis[axis];
    };
    for (size_t v = 0; v < std::min(g.positions.size(), a.positions.size()); ++v) {
      for (int i = 0; i < 3; ++i) skinning.add(g.positions[v][i], a.positions[v][i], [&] { return where(v, "position", i); });
    }
    for (size_t v = 0; v < std::min(g.normals.size(), a.normals.size()); ++v) {
      for (int i = 0; i < 3; ++i) skinning.add(g.normals[v][i], a.normals[v][i], [&] { return where(v, "normal", i); });
    }
    for (size_t v = 0; v < std::min(g.tangents.size(), a.tangents.size()); ++v) {
      for (int i = 0; i < 4; ++i) skinning.add(g.tangents[v][i], a.tangents[v][i], [&] { return where(v, "tangent", i); });
    }
  }
  if (skinning.found()) return skinning.result("skinning");
  return {};
}

size_t vertex_value_count(const std::vector<WorldPrimitive>& vertices) {
  size_t count = 0;
  for (const WorldPrimitive& primitive : vertices) {
    count += 3 * primitive.vertices.positions.size() + 3 * primitive.vertices.normals.size() +
             4 * primitive.vertices.tangents.size();
  }
  return count;
}

// "pixel (x, y) channel C: golden #.., actual #..", and the reference's triangle there when known.
std::string pixel_location(const ImageComparison& comparison, const RgbaImage& golden, const RgbaImage& actual,
                           const RenderResult* reference) {
  if (comparison.max_channel < 0) return "";
  std::string location = "pixel (" + std::to_string(comparison.max_x) + ", " + std::to_string(comparison.max_y) +
                         ") channel " + std::string(1, "RGBA"[comparison.max_channel]) + ": golden " +
                         hex_colour(golden, comparison.max_x, comparison.max_y) + ", actual " +
                         hex_colour(actual, comparison.max_x, comparison.max_y);
  if (reference != nullptr) {
    const size_t p = size_t(comparison.max_y) * size_t(reference->image.width) + size_t(comparison.max_x);
    const uint32_t id = reference->buffers.triangle[p];
    if (id == RasterBuffers::kNoTriangle) {
      location += "; the reference shows the background there";
    } else {
      const auto& first = reference->primitive_first_triangle;
      const size_t k = size_t(std::upper_bound(first.begin(), first.end(), id) - first.begin()) - 1;
      location += "; the reference's triangle " + std::to_string(id) + " (primitive " + std::to_string(k) +
                  ", triangle " + std::to_string(id - first[k]) + ")";
    }
  }
  return location;
}

std::string image_metrics_text(const ImageComparison& c, int threshold, double max_fraction) {
  return "max channel difference " + std::to_string(c.max_channel_difference) + ", " +
         std::to_string(c.pixels_over_threshold) + " pixels over " + std::to_string(threshold) + " (" +
         format("%.4f", 100.0 * c.fraction_over_threshold) + " %, allowed " + format("%.4f", 100.0 * max_fraction) +
         " %), " + std::to_string(c.coverage_mismatches) + " coverage mismatches, PSNR " +
         (std::isinf(c.psnr_rgb_db) ? std::string("inf") : format("%.2f", c.psnr_rgb_db) + " dB");
}

// Report images of one output: golden, actual, difference; paths relative to the report folder.
void write_report_images(const CheckSettings& settings, GoldenReportRow& row, const RgbaImage* golden,
                         const RgbaImage* actual, int threshold) {
  if (!settings.report_dir) return;
  const fs::path dir = fs::path(*settings.report_dir) / row.case_name;
  fs::create_directories(dir);
  auto write = [&](const RgbaImage& image, const std::string& kind) {
    const std::string name = row.output + "-" + kind + ".png";
    write_png(image, (dir / name).string());
    return (fs::path(row.case_name) / name).string();
  };
  if (golden) row.golden_image = write(*golden, "golden");
  if (actual) row.actual_image = write(*actual, "actual");
  if (golden && actual && golden->width == actual->width && golden->height == actual->height) {
    ImageCompareOptions options;
    options.threshold = threshold;
    row.diff_image = write(difference_heat_map(*golden, *actual, options), "diff");
  }
}

std::optional<RgbaImage> read_golden_png(const fs::path& path) {
  if (!fs::is_regular_file(path)) return std::nullopt;
  return read_png(path.string());
}

// One output on the reference: bit for bit.
void check_reference_output(const PreparedCase& prepared, double time, const CheckSettings& settings,
                            GoldenReportRow& row) {
  const GoldenCase& golden_case = *prepared.golden_case;
  const fs::path base = case_dir(settings.golden_dir, golden_case) / row.output;
  const fs::path png_path = base.string() + ".png", skv_path = base.string() + ".skv",
                 pose_path = base.string() + ".pose.json";
  const EvaluatedPose pose = prepared.reference_pose(time);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(prepared.scene, pose, prepared.skinning);
  const RenderResult rendered = render_scene(prepared.scene, pose, vertices, prepared.camera(pose), prepared.render);

  std::vector<std::string> missing;
  const std::optional<RgbaImage> golden_image = read_golden_png(png_path);
  if (!golden_image) missing.push_back(png_path.string());
  std::optional<std::string> golden_skv, golden_pose;
  if (golden_case.dumps) {
    golden_skv = read_file_bytes(skv_path);
    golden_pose = read_file_bytes(pose_path);
    if (!golden_skv) missing.push_back(skv_path.string());
    if (!golden_pose) missing.push_back(pose_path.string());
  }

  std::vector<std::string> problems;
  bool image_ok = true;
  if (golden_image) {
    if (golden_image->width != rendered.image.width || golden_image->height != rendered.image.height) {
      image_ok = false;
      problems.push_back("image size " + std::to_string(rendered.image.width) + "x" +
                         std::to_string(rendered.image.height) + ", golden " + std::to_string(golden_image->width) +
                         "x" + std::to_string(golden_image->height));
    } else {
      ImageCompareOptions exact;
      exact.threshold = 0;
      const ImageComparison comparison = compare_images(*golden_image, rendered.image, exact);
      row.image_metrics = image_metrics_text(comparison, 0, 0.0);
      if (comparison.pixels_over_threshold > 0) {
        image_ok = false;
        problems.push_back("image: " + std::to_string(comparison.pixels_over_threshold) + " pixels differ");
        row.location = pixel_location(comparison, *golden_image, rendered.image, &rendered);
      }
    }
  }
  write_report_images(settings, row, golden_image ? &*golden_image : nullptr, &rendered.image, 0);

  bool dumps_ok = true;
  ExactDivergence divergence;
  if (golden_case.dumps && golden_skv && golden_pose) {
    const bool skv_same = *golden_skv == skv_bytes(vertices);
    const bool pose_same = *golden_pose == pose_bytes(prepared.scene, pose);
    dumps_ok = skv_same && pose_same;
    row.vertex_metrics = skv_same ? "bit-identical (" + std::to_string(vertex_value_count(vertices)) + " values)"
                                  : std::string("differs from the golden .skv");
    row.vertex_metrics += pose_same ? "; pose bit-identical" : "; pose differs from the golden .pose.json";
    if (!dumps_ok) {
      // Where: the golden dumps read back and compared value by value, stage by stage.
      try {
        if (!pose_same) divergence = exact_pose_divergence(prepared.scene, read_pose_dump(pose_path.string(), prepared.scene), pose);
        if (divergence.stage.empty() && !skv_same) {
          const VertexDump golden = read_vertices_skv(skv_path.string());
          if (golden.primitives.size() != vertices.size() || vertex_value_count(golden.primitives) != vertex_value_count(vertices)) {
            divergence = {"skinning", "the golden .skv holds other primitives or vertex counts than the model draws", 0};
          } else {
            divergence = exact_vertex_divergence(golden.primitives, vertices);
          }
        }
        if (divergence.stage.empty()) divergence = {"dump", "the values are equal but the bytes differ (format change?)", 0};
      } catch (const std::exception& error) {
        divergence = {"dump", std::string("the golden dump cannot be read for this model: ") + error.what(), 0};
      }
      problems.push_back(divergence.stage + ": " + std::to_string(divergence.values_differing) + " values differ");
    }
  } else if (!golden_case.dumps) {
    row.vertex_metrics = "no dumps: " + golden_case.dumps_reason;
  }

  if (!divergence.stage.empty()) {
    row.stage = divergence.stage;
    row.location = divergence.location;
  } else if (!image_ok) {
    row.stage = "render";  // pose and vertices equal (or not dumped): the rasterizer or shading changed
  }
  if (!missing.empty()) {
    row.status = GoldenStatus::Missing;
    std::string list;
    for (const std::string& path : missing) list += (list.empty() ? "" : ", ") + path;
    row.message = "missing golden " + list + " (skinref golden update --filter " + golden_case.name +
                  ", then look at the images before committing)";
  } else if (!problems.empty() || !dumps_ok || !image_ok) {
    row.status = GoldenStatus::Fail;
    for (const std::string& problem : problems) row.message += (row.message.empty() ? "" : "; ") + problem;
  }
}

// One output on Vulkan: the whole GPU pipeline against the golden files within derived bounds.
void check_vulkan_output(const PreparedCase& prepared, double time, Backend& backend, const CheckSettings& settings,
                         GoldenReportRow& row) {
  const GoldenCase& golden_case = *prepared.golden_case;
  const Scene& scene = prepared.scene;
  const fs::path base = case_dir(settings.golden_dir, golden_case) / row.output;
  const fs::path png_path = base.string() + ".png", skv_path = base.string() + ".skv",
                 pose_path = base.string() + ".pose.json";
  std::vector<std::string> missing;
  const std::optional<RgbaImage> golden_image = read_golden_png(png_path);
  if (!golden_image) missing.push_back(png_path.string());
  if (golden_case.dumps) {
    if (!fs::is_regular_file(skv_path)) missing.push_back(skv_path.string());
    if (!fs::is_regular_file(pose_path)) missing.push_back(pose_path.string());
  }

  // The times are float32 values (golden_manifest.h), so the GPU's time is `time` and the goldens are its
  // exact reference. Recipe cases take the reference's pose (the GPU animation pass plays one clip).
  const bool gpu_pose = !prepared.recipe;
  EvaluatedPose test_pose;
  if (gpu_pose) {
    PoseSelection selection;
    selection.time = time;
    if (prepared.animation >= 0) selection.anim = std::to_string(prepared.animation);
    test_pose = backend.pose(scene, selection).pose;
  } else {
    test_pose = prepared.reference_pose(time);
  }
  const std::vector<WorldPrimitive> test_vertices = backend.vertices(scene, test_pose, prepared.skinning);
  const EvaluatedPose pose_for_camera = prepared.reference_pose(time);
  const RenderCamera camera = prepared.camera(pose_for_camera);
  const RgbaImage image = backend.render(scene, test_pose, test_vertices, camera, prepared.render).image;

  const bool have_dumps = golden_case.dumps && missing.empty();
  const EvaluatedPose reference_pose = have_dumps ? read_pose_dump(pose_path.string(), scene) : pose_for_camera;
  const std::vector<WorldPrimitive> reference_vertices =
      have_dumps ? read_vertices_skv(skv_path.string()).primitives
                 : evaluate_vertices(scene, reference_pose, prepared.skinning);
  std::optional<PoseErrorBounds> pose_bounds;
  if (gpu_pose) pose_bounds = float32_pose_error_bounds(scene, prepared.animation, test_pose.time);
  const std::vector<PrimitiveErrorBounds> vertex_bounds =
      float32_vertex_error_bounds(scene, reference_pose, prepared.skinning, pose_bounds ? &*pose_bounds : nullptr);
  const VertexComparison vertices = compare_vertices(scene, reference_vertices, test_vertices, vertex_bounds);
  const StageDivergence divergence =
      bisect_stages(scene, reference_pose, gpu_pose ? &test_pose : nullptr, pose_bounds ? &*pose_bounds : nullptr,
                    reference_vertices, test_vertices, vertex_bounds);
  row.vertex_metrics = std::to_string(vertices.values) + " values vs " +
                       (have_dumps ? std::string("golden") : std::string("reference")) + " within derived bounds: " +
                       std::to_string(vertices.over) + " over, " + std::to_string(vertices.unbounded) +
                       " unbounded, max error/bound " + format("%.3g", vertices.max_ratio) + ", median " +
                       format("%.3g", vertices.median_ratio) + "; pose " +
                       (gpu_pose ? std::string("from the GPU animation pass, ") + std::to_string(divergence.values_checked) +
                                       " values checked"
                                 : std::string("from the reference (recipe)"));

  std::vector<std::string> problems;
  const GoldenImageTolerance tolerance = vulkan_image_tolerance(golden_case);
  bool image_ok = true;
  std::optional<ImageComparison> comparison;
  if (golden_image) {
    if (golden_image->width != image.width || golden_image->height != image.height) {
      image_ok = false;
      problems.push_back("image size " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                         ", golden " + std::to_string(golden_image->width) + "x" + std::to_string(golden_image->height));
    } else {
      ImageCompareOptions options;
      options.threshold = tolerance.threshold;
      comparison = compare_images(*golden_image, image, options);
      row.image_metrics = image_metrics_text(*comparison, tolerance.threshold, tolerance.max_fraction);
      if (!golden_case.tolerances.vulkan_reason.empty()) {
        row.image_metrics += "; tolerance override: " + golden_case.tolerances.vulkan_reason;
      }
      if (comparison->fraction_over_threshold > tolerance.max_fraction) {
        image_ok = false;
        problems.push_back("image: " + std::to_string(comparison->pixels_over_threshold) + " pixels over " +
                           std::to_string(tolerance.threshold) + " (" +
                           format("%.4f", 100.0 * comparison->fraction_over_threshold) + " %, allowed " +
                           format("%.4f", 100.0 * tolerance.max_fraction) + " %)");
      }
    }
  }
  write_report_images(settings, row, golden_image ? &*golden_image : nullptr, &image, tolerance.threshold);

  if (divergence.stage != PipelineStage::None) {
    row.stage = pipeline_stage_name(divergence.stage);
    row.location = divergence.location + ": error " + format("%.3g", divergence.error) + ", bound " +
                   format("%.3g", divergence.bound) + " (" + std::to_string(divergence.values_over) +
                   " values over in this stage)";
    problems.push_back(row.stage + ": " + std::to_string(divergence.values_over) + " values over their bounds");
  } else if (!vertices.passed()) {
    row.stage = "skinning";
    const WorstVertex& worst = vertices.worst;
    row.location = "primitive " + std::to_string(worst.primitive_index) + " (node " + std::to_string(worst.node) +
                   ", mesh " + std::to_string(worst.mesh) + ") vertex " + std::to_string(worst.vertex) + " " +
                   worst.attribute + ": error " + format("%.3g", worst.error) + ", bound " + format("%.3g", worst.bound);
    problems.push_back("vertices: " + std::to_string(vertices.over) + " over their bounds, " +
                       std::to_string(vertices.unbounded) + " without a bound");
  } else if (!image_ok) {
    row.stage = "render";
    if (comparison) {
      // Pose and vertices agree: the rasterizer or shading. Name the reference's triangle at the worst pixel.
      const RenderResult reference =
          render_scene(scene, reference_pose, reference_vertices, camera, prepared.render);
      row.location = pixel_location(*comparison, *golden_image, image, &reference);
    }
  }
  if (!missing.empty()) {
    row.status = GoldenStatus::Missing;
    std::string list;
    for (const std::string& path : missing) list += (list.empty() ? "" : ", ") + path;
    row.message = "missing golden " + list + " (skinref golden update --filter " + golden_case.name +
                  ", then look at the images before committing)";
  } else if (!problems.empty()) {
    row.status = GoldenStatus::Fail;
    for (const std::string& problem : problems) row.message += (row.message.empty() ? "" : "; ") + problem;
  }
}

std::string row_line(const GoldenReportRow& row) {
  std::string status = golden_status_name(row.status);
  std::transform(status.begin(), status.end(), status.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  std::string line = status + " " + row.case_name + " " + row.output;
  if (row.status != GoldenStatus::Pass && !row.message.empty()) line += ": " + row.message;
  if (!row.stage.empty() && row.status != GoldenStatus::Pass) {
    line += "; first diverging stage: " + row.stage + (row.location.empty() ? "" : " at " + row.location);
  }
  return line;
}

CaseResult check_case(const GoldenCase& golden_case, const CheckSettings& settings) {
  CaseResult result;
  auto new_row = [&](double time) {
    GoldenReportRow row;
    row.case_name = golden_case.name;
    row.description = golden_case.description;
    row.model = golden_case.model;
    row.output = golden_output_stem(time);
    row.backend = settings.vulkan ? "vulkan" : "reference";
    return row;
  };
  if (golden_case.corpus() && !fs::is_directory(corpus_dir())) {
    result.lines.push_back(corpus_skip_line(golden_case, "not checked"));
    for (const double time : golden_case.times) {
      GoldenReportRow row = new_row(time);
      row.status = GoldenStatus::Skipped;
      row.message = "corpus not found at " + corpus_dir();
      result.rows.push_back(row);
    }
    return result;
  }
  std::optional<PreparedCase> prepared;
  std::unique_ptr<Backend> backend;
  try {
    prepared = prepare_case(golden_case, settings.golden_dir);
    if (settings.vulkan) backend = std::make_unique<Backend>(settings.backend);
  } catch (const std::exception& error) {
    result.setup_error = true;
    for (const double time : golden_case.times) {
      GoldenReportRow row = new_row(time);
      row.status = GoldenStatus::Error;
      row.message = std::string("cannot set up the case: ") + error.what();
      result.rows.push_back(row);
    }
    result.lines.push_back("ERROR " + golden_case.name + ": " + result.rows.front().message);
    return result;
  }
  for (const double time : golden_case.times) {
    GoldenReportRow row = new_row(time);
    try {
      if (settings.vulkan) {
        check_vulkan_output(*prepared, time, *backend, settings, row);
      } else {
        check_reference_output(*prepared, time, settings, row);
      }
    } catch (const std::exception& error) {
      row.status = GoldenStatus::Fail;
      row.message = error.what();
    }
    result.rows.push_back(row);
  }
  if (backend) {
    try {
      backend->finish();
    } catch (const std::exception& error) {
      for (GoldenReportRow& row : result.rows) {
        row.status = GoldenStatus::Fail;
        row.message += (row.message.empty() ? "" : "; ") + std::string(error.what());
      }
    }
  }
  for (const GoldenReportRow& row : result.rows) result.lines.push_back(row_line(row));
  return result;
}

int run_check(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--backend", true},    {"--filter", true}, {"--golden-dir", true},
                                                {"--report", true},     {"--device", true}, {"--validate", false},
                                                {"--threads", true}};
  const ParsedArgs parsed = parse_args(args, kOptions, "golden check");
  if (parsed.help) {
    std::cout << golden_usage();
    return kExitOk;
  }
  require_positionals(parsed, 0, "no arguments", "golden check");
  CheckSettings settings;
  static const std::vector<std::string> kBackends{"reference", "vulkan"};
  settings.vulkan = parse_choice(require_value(parsed, "--backend", "golden check"), "--backend", kBackends) == 1;
  // The backend options as the other commands check them; the GPU pose: the whole pipeline on the GPU.
  settings.backend = parse_backend(parsed, PoseSelection{}, "golden check", true);
  settings.golden_dir = parsed.value("--golden-dir").value_or(SKINREF_GOLDEN_DIR);
  settings.report_dir = parsed.value("--report");
  int threads = settings.vulkan ? 1 : default_threads();
  if (const std::optional<std::string> text = parsed.value("--threads")) {
    threads = int(parse_integer(*text, "--threads", 1, kMaxThreads));
    if (settings.vulkan && threads != 1) throw UsageError("golden check: --backend vulkan checks one case at a time (--threads 1)");
  }
  const GoldenManifest manifest = load_golden_manifest(golden_manifest_path(settings.golden_dir));
  const std::vector<const GoldenCase*> cases = select_cases(manifest, parsed.value("--filter"));
  std::string device_name;
  if (settings.vulkan) {
    // An unknown --device (or no Vulkan device at all) is reported before any case runs.
    const Backend probe(settings.backend);
    device_name = probe.summary();
  }
  if (settings.report_dir) {
    std::error_code error;
    fs::create_directories(*settings.report_dir, error);
    if (error || !fs::is_directory(*settings.report_dir)) {
      throw UsageError("option --report: cannot create the directory " + *settings.report_dir);
    }
  }

  const auto start = std::chrono::steady_clock::now();
  std::vector<CaseResult> results(cases.size());
  std::mutex output_mutex;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < cases.size(); i = next++) {
      results[i] = check_case(*cases[i], settings);
      const std::lock_guard<std::mutex> lock(output_mutex);
      for (const std::string& line : results[i].lines) std::cout << line << "\n";
      std::cout.flush();
    }
  };
  std::vector<std::thread> pool;
  const size_t workers = std::min<size_t>(size_t(threads), cases.size());
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  GoldenReport report;
  report.backend = settings.vulkan ? "vulkan" + device_name : "reference";
  report.golden_dir = settings.golden_dir;
  report.command = "skinref golden check";
  for (const std::string& arg : args) report.command += " " + arg;
  size_t passed = 0, failed = 0, skipped = 0;
  bool setup_error = false;
  for (const CaseResult& result : results) {
    setup_error = setup_error || result.setup_error;
    for (const GoldenReportRow& row : result.rows) {
      report.rows.push_back(row);
      if (row.status == GoldenStatus::Pass) ++passed;
      else if (row.status == GoldenStatus::Skipped) ++skipped;
      else ++failed;
    }
  }
  std::string report_note;
  if (settings.report_dir) {
    write_golden_report(*settings.report_dir, report);
    report_note = "; report: " + (fs::path(*settings.report_dir) / "index.html").string();
  }
  std::cout << "golden check (" << report.backend << "): " << report.rows.size() << " outputs of " << cases.size()
            << " cases: " << passed << " passed, " << failed << " failed, " << skipped << " skipped in "
            << format("%.1f", seconds) << " s" << report_note << "\n";
  if (setup_error) return kExitBadInput;
  return failed > 0 ? kExitComparisonFailed : kExitOk;
}

}  // namespace

const char* golden_usage() {
  return "usage: skinref golden update [--filter GLOB] [--golden-dir DIR] [--threads N]\n"
         "       skinref golden check --backend reference|vulkan [--filter GLOB] [--golden-dir DIR] [--report DIR]\n"
         "                            [--device NAME|INDEX] [--validate] [--threads N]\n"
         "  The golden images and dumps listed in DIR/manifest.json (default: the source tree's golden/ folder;\n"
         "  format and policy in its README.md), under DIR/cases/NAME/tTIME.png, .skv (f64), .pose.json.\n"
         "  update  regenerates them from the reference (cases in parallel, every file written atomically);\n"
         "          do it deliberately, and look at the images before committing them\n"
         "  check   computes every output with the backend and compares: reference bit for bit; vulkan the whole\n"
         "          GPU pipeline (animation pass, skinning, rendering) with the image within the case's\n"
         "          tolerance and the pose and vertices within their derived float32 bounds. A missing golden is\n"
         "          a failure. On a failure it names the first diverging stage and where.\n"
         "  --filter GLOB       only the cases whose names match (shell pattern, e.g. 'twist-*'); must match one\n"
         "  --golden-dir DIR    the golden folder (default " SKINREF_GOLDEN_DIR ")\n"
         "  --threads N         cases run at once, 1 to 1024 (default: the hardware threads; vulkan: 1)\n"
         "  --report DIR        check: write DIR/index.html (golden, actual and difference images, metrics, stage)\n"
         "  --device, --validate  the Vulkan device and validation layer (see skinref render --help)\n"
         "  Corpus cases (model corpus:PATH, the corpus from SKINREF_CORPUS_DIR or " SKINREF_CORPUS_DIR ")\n"
         "  are skipped with a line 'SKIPPED: corpus not found ...' when it is absent.\n"
         "  Exit status: 0 every output passed (skips allowed), 1 any failed or is missing, 2 bad manifest or usage.\n";
}

int run_golden(std::span<const std::string> args) {
  if (args.empty()) throw UsageError("golden: expected 'update' or 'check' (see skinref golden --help)");
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << golden_usage();
    return kExitOk;
  }
  const std::span<const std::string> rest = args.subspan(1);
  if (args[0] == "update") return run_update(rest);
  if (args[0] == "check") return run_check(rest);
  throw UsageError("golden: unknown subcommand '" + args[0] + "'; expected update or check");
}

}  // namespace skinref::cli

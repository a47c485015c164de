// `skinref golden check`: every output of every selected case is computed by the chosen backend and compared
// with its golden files. reference: bit for bit (the image's pixels, the .skv and .pose.json bytes); on a
// difference, the first stage that differs (sampling, local-to-model, palette, morph, skinning, then render) and
// where. vulkan: the whole GPU pipeline (animation pass, compute skinning, graphics pipeline; recipe cases
// take the reference's pose, since the GPU animation pass plays one clip), the image within the case's image
// tolerance, the pose and vertices within their derived float32 bounds (pose_error_bounds.h,
// vertex_error_bounds.h), and on a failure the first diverging stage from bisect_stages() (or render, when
// only the image differs). cpu: the fast float32 CPU backend's vertices from the reference's pose within
// their derived float32 bounds (the reference's palette), rasterized by the reference, the image within the
// Vulkan image tolerance. A missing golden file is a failure, never created by check. Corpus cases are
// skipped, with a line, when the corpus is absent.
#include "golden/golden_check.h"

#include "backend/backend.h"
#include "ci_report/ci_reports.h"
#include "core/fan_out.h"
#include "golden/golden_case.h"
#include "golden/golden_departure.h"
#include "golden/golden_manifest.h"
#include "golden/golden_report.h"

#include "anim/recipe.h"
#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/gltf_load.h"
#include "io/image_io.h"
#include "io/pose_dump.h"
#include "io/vertex_dump.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "skin/evaluate_vertices.h"
#include "verify/image_compare.h"
#include "verify/bounds_model.h"
#include "verify/pose_error_bounds.h"
#include "verify/stage_bisection.h"
#include "verify/vertex_compare.h"
#include "verify/vertex_error_bounds.h"
#include "verify/verify_run.h"

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
#include <stdexcept>


namespace skinref::golden {
namespace {

namespace fs = std::filesystem;

// A row's verdict: missing golden files first (never a pass, never created), else a failure when anything
// was wrong.
void set_status(GoldenReportRow& row, const GoldenCase& golden_case, const std::vector<std::string>& missing,
                const std::vector<std::string>& problems, bool failed) {
  if (!missing.empty()) {
    row.status = GoldenStatus::Missing;
    std::string list;
    for (const std::string& path : missing) list += (list.empty() ? "" : ", ") + path;
    row.message = "missing golden " + list + " (skinref golden update --filter " + golden_case.name +
                  ", then look at the images before committing)";
  } else if (!problems.empty() || failed) {
    row.status = GoldenStatus::Fail;
    for (const std::string& problem : problems) row.message += (row.message.empty() ? "" : "; ") + problem;
  }
}

using CheckSettings = GoldenCheckSettings;

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
void check_reference_output(const PreparedCase& prepared, double time, Backend& backend,
                            const CheckSettings& settings, GoldenReportRow& row) {
  const GoldenCase& golden_case = *prepared.golden_case;
  const fs::path base = case_dir(settings.golden_dir, golden_case) / row.output;
  const fs::path png_path = base.string() + ".png", skv_path = base.string() + ".skv",
                 pose_path = base.string() + ".pose.json";
  const CaseOutputs outputs = evaluate_case(prepared, backend, time);
  const EvaluatedPose& pose = outputs.pose;
  const std::vector<WorldPrimitive>& vertices = outputs.vertices;
  const RenderResult& rendered = outputs.rendered;

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
        const StageDivergence first =
            first_differing_stage(prepared.scene, read_pose_dump(pose_path.string(), prepared.scene), &pose,
                                  read_vertices_skv(skv_path.string()).primitives, vertices);
        if (first.stage != PipelineStage::None)
          divergence = {pipeline_stage_name(first.stage), first.location, first.values_over};
        else
          divergence = {"dump", "the values are equal but the bytes differ (format change?)", 0};
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
  set_status(row, golden_case, missing, problems, !dumps_ok || !image_ok);
}

// The vertices (and, from the GPU animation pass, the pose) of one float32 output against the golden dumps, or
// against the reference when the case has none, within derived bounds.
struct Float32VertexCheck {
  bool gpu_pose = false;  // the pose is the GPU animation pass's, checked too
  bool have_dumps = false;  // held to the golden dumps (else to the reference)
  BoundsModel bounds_model = BoundsModel::SkinrefOrder;
  EvaluatedPose reference_pose;
  std::vector<WorldPrimitive> reference_vertices;
  VertexComparison vertices;
  StageDivergence divergence;
};

Float32VertexCheck check_float32_vertices(const PreparedCase& prepared, const CaseOutputs& outputs,
                                          const Backend& backend, const CheckSettings& settings, bool have_dumps,
                                          const fs::path& skv_path, const fs::path& pose_path) {
  const Scene& scene = prepared.scene;
  Float32VertexCheck check;
  // The times are float32 values (golden_manifest.h), so the GPU's time is `time` and the goldens are its
  // exact reference. Recipe cases take the reference's pose (the GPU animation pass plays one clip), as does
  // the CPU backend, which skins only.
  check.gpu_pose = backend.gpu_pose() && !prepared.pose_source.recipe;
  check.have_dumps = have_dumps;
  const EvaluatedPose& test_pose = outputs.pose;
  check.reference_pose = have_dumps ? read_pose_dump(pose_path.string(), scene) : outputs.reference_pose;
  check.reference_vertices = have_dumps ? read_vertices_skv(skv_path.string()).primitives
                                        : evaluate_vertices(scene, check.reference_pose, prepared.skinning);
  std::optional<PoseErrorBounds> pose_bounds;
  if (check.gpu_pose) {
    // skinref's own animation pass: the bounds of its order of operations.
    RunPose run;
    run.animation = prepared.pose_source.animation;
    run.time = test_pose.time;
    pose_bounds = run_pose_bounds(scene, run, BoundsModel::SkinrefOrder).pose;
  }
  // skinref's own float32 kernels are held to their exact-order bounds; a user's shader, whose order skinref
  // does not know, to the bounds of any correct float32 order.
  check.bounds_model = settings.backend.shader.empty() ? BoundsModel::SkinrefOrder : BoundsModel::AnyOrder;
  const VertexCheck vertex_check{scene, check.reference_pose, prepared.skinning, check.bounds_model,
                                 pose_bounds ? &*pose_bounds : nullptr};
  VertexVerdict verdict = verify_vertices(vertex_check, check.reference_vertices, outputs.vertices);
  check.vertices = std::move(verdict.comparison);
  check.divergence = bisect_stages(scene, check.reference_pose, check.gpu_pose ? &test_pose : nullptr,
                                   pose_bounds ? &*pose_bounds : nullptr, check.reference_vertices, outputs.vertices,
                                   verdict.bounds);
  return check;
}

std::string float32_vertex_metrics(const Float32VertexCheck& check, const Backend& backend) {
  const VertexComparison& vertices = check.vertices;
  return std::to_string(vertices.values) + " values vs " +
         (check.have_dumps ? std::string("golden") : std::string("reference")) + " within " +
         bounds_model_name(check.bounds_model) + " bounds: " +
         std::to_string(vertices.over) + " over, " + std::to_string(vertices.unbounded) +
         " unbounded, max error/bound " + format("%.3g", vertices.max_ratio) + ", median " +
         format("%.3g", vertices.median_ratio) + "; pose " +
         (check.gpu_pose ? std::string("from the GPU animation pass, ") + std::to_string(check.divergence.values_checked) +
                               " values checked"
                         : std::string(backend.kind() == BackendKind::Cpu ? "from the reference" : "from the reference (recipe)"));
}

// The image of one float32 output against its golden image within the case's Vulkan tolerance; a problem goes
// to `problems`, the metrics to `row`. The comparison is empty when there is no golden image of the same size.
struct Float32ImageCheck {
  bool ok = true;
  int threshold = 0;  // the tolerance's, for the report's difference image
  std::optional<ImageComparison> comparison;
};

Float32ImageCheck check_float32_image(const GoldenCase& golden_case, const std::optional<RgbaImage>& golden_image,
                                      const RgbaImage& image, GoldenReportRow& row, std::vector<std::string>& problems) {
  const GoldenImageTolerance tolerance = vulkan_image_tolerance(golden_case);
  Float32ImageCheck check;
  check.threshold = tolerance.threshold;
  if (!golden_image) return check;
  if (golden_image->width != image.width || golden_image->height != image.height) {
    check.ok = false;
    problems.push_back("image size " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                       ", golden " + std::to_string(golden_image->width) + "x" + std::to_string(golden_image->height));
    return check;
  }
  ImageCompareOptions options;
  options.threshold = tolerance.threshold;
  check.comparison = compare_images(*golden_image, image, options);
  const ImageComparison& comparison = *check.comparison;
  row.image_metrics = image_metrics_text(comparison, tolerance.threshold, tolerance.max_fraction);
  if (!golden_case.tolerances.vulkan_reason.empty()) {
    row.image_metrics += "; tolerance override: " + golden_case.tolerances.vulkan_reason;
  }
  if (comparison.fraction_over_threshold > tolerance.max_fraction) {
    check.ok = false;
    problems.push_back("image: " + std::to_string(comparison.pixels_over_threshold) + " pixels over " +
                       std::to_string(tolerance.threshold) + " (" +
                       format("%.4f", 100.0 * comparison.fraction_over_threshold) + " %, allowed " +
                       format("%.4f", 100.0 * tolerance.max_fraction) + " %)");
  }
  return check;
}

// The first diverging stage and where: a stage over its bounds, else the worst vertex, else (pose and vertices
// agree) the render, at the reference's triangle under the worst pixel.
void name_float32_divergence(const PreparedCase& prepared, double time, const CaseOutputs& outputs,
                             const Float32VertexCheck& check, const Float32ImageCheck& image_check,
                             const std::optional<RgbaImage>& golden_image, GoldenReportRow& row,
                             std::vector<std::string>& problems) {
  const StageDivergence& divergence = check.divergence;
  const VertexComparison& vertices = check.vertices;
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
  }
  // The pose or the vertices are off: name the departure as diagnose does, against the case's own reference.
  if (divergence.stage != PipelineStage::None || !vertices.passed())
    row.departure = name_departure(prepared, time, outputs.vertices, check.bounds_model);
  if (divergence.stage == PipelineStage::None && vertices.passed() && !image_check.ok) {
    row.stage = "render";
    if (image_check.comparison) {
      // Pose and vertices agree: the rasterizer or shading. Name the reference's triangle at the worst pixel.
      const RenderResult reference =
          render_scene(prepared.scene, check.reference_pose, check.reference_vertices, outputs.camera, prepared.render);
      row.location = pixel_location(*image_check.comparison, *golden_image, outputs.rendered.image, &reference);
    }
  }
}

// One output on a float32 backend against the golden files within derived bounds: on Vulkan the whole GPU
// pipeline; on the CPU backend the skinning (the reference's pose and rasterizer).
void check_float32_output(const PreparedCase& prepared, double time, Backend& backend, const CheckSettings& settings,
                         GoldenReportRow& row) {
  const GoldenCase& golden_case = *prepared.golden_case;
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

  const CaseOutputs outputs = evaluate_case(prepared, backend, time);
  const bool have_dumps = golden_case.dumps && missing.empty();
  const Float32VertexCheck check =
      check_float32_vertices(prepared, outputs, backend, settings, have_dumps, skv_path, pose_path);
  row.vertex_metrics = float32_vertex_metrics(check, backend);

  std::vector<std::string> problems;
  const Float32ImageCheck image_check = check_float32_image(golden_case, golden_image, outputs.rendered.image, row, problems);
  write_report_images(settings, row, golden_image ? &*golden_image : nullptr, &outputs.rendered.image,
                      image_check.threshold);
  name_float32_divergence(prepared, time, outputs, check, image_check, golden_image, row, problems);
  set_status(row, golden_case, missing, problems, false);
}

std::string row_line(const GoldenReportRow& row) {
  std::string status = golden_status_name(row.status);
  std::transform(status.begin(), status.end(), status.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  std::string line = status + " " + row.case_name + " " + row.output;
  if (row.status != GoldenStatus::Pass && !row.message.empty()) line += ": " + row.message;
  if (!row.stage.empty() && row.status != GoldenStatus::Pass) {
    line += "; first diverging stage: " + row.stage + (row.location.empty() ? "" : " at " + row.location);
  }
  if (!row.departure.empty() && row.status != GoldenStatus::Pass) line += "; explained by " + row.departure;
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
    row.backend = backend_name(settings.backend.kind);
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
    backend = make_backend(settings.backend);
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
  // A user's shader that cannot run the case (another method, more influences than it reads): visibly skipped.
  if (const std::optional<std::string> reason = backend->skinning_unsupported(prepared->scene, prepared->skinning)) {
    for (const double time : golden_case.times) {
      GoldenReportRow row = new_row(time);
      row.status = GoldenStatus::Skipped;
      row.message = *reason;
      result.rows.push_back(row);
    }
    result.lines.push_back("SKIPPED " + golden_case.name + ": " + *reason);
    return result;
  }
  for (const double time : golden_case.times) {
    GoldenReportRow row = new_row(time);
    try {
      if (backend->kind() == BackendKind::Reference) {
        check_reference_output(*prepared, time, *backend, settings, row);
      } else {
        check_float32_output(*prepared, time, *backend, settings, row);
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

// One JUnit test case per golden case: failed when any output failed or is missing, an error when the case
// could not be set up, skipped when every output was skipped; each output's verdict in the details.
std::vector<JunitCase> junit_cases(const std::vector<const GoldenCase*>& cases, const std::vector<CaseResult>& results,
                                   const std::vector<double>& seconds, const BackendOptions& backend) {
  std::vector<JunitCase> junit;
  for (size_t i = 0; i < cases.size(); ++i) {
    JunitCase& c = junit.emplace_back();
    c.classname = std::string("skinref.golden.") + backend_name(backend.kind);
    c.name = cases[i]->name;
    c.seconds = seconds[i];
    size_t failed = 0, errors = 0, skipped = 0;
    for (const GoldenReportRow& row : results[i].rows) {
      failed += row.status == GoldenStatus::Fail || row.status == GoldenStatus::Missing;
      errors += row.status == GoldenStatus::Error;
      skipped += row.status == GoldenStatus::Skipped;
    }
    for (const std::string& line : results[i].lines) c.details += line + "\n";
    const size_t outputs = results[i].rows.size();
    if (errors > 0) {
      c.outcome = JunitOutcome::Error;
      c.message = results[i].rows.front().message;
    } else if (failed > 0) {
      c.outcome = JunitOutcome::Failed;
      c.message = std::to_string(failed) + " of " + std::to_string(outputs) + " outputs failed";
      for (const GoldenReportRow& row : results[i].rows)
        if (row.status == GoldenStatus::Fail || row.status == GoldenStatus::Missing) {
          c.message += ": " + row.output + ": " + row.message;
          if (!row.departure.empty()) c.message += "; explained by " + row.departure;
          break;
        }
    } else if (outputs > 0 && skipped == outputs) {
      c.outcome = JunitOutcome::Skipped;
      c.message = results[i].rows.front().message;
      c.details.clear();
    }
  }
  return junit;
}

}  // namespace

GoldenCheckOutcome check_goldens(const GoldenCheckSettings& settings) {
  const bool vulkan = settings.backend.kind == BackendKind::Vulkan;
  const int threads = vulkan ? 1 : settings.threads;
  const GoldenManifest manifest = load_golden_manifest(golden_manifest_path(settings.golden_dir));
  // This shard's part of the selected cases (all of them without sharding): case k of the selection is
  // shard k mod N's, so N machines check disjoint parts with nothing to coordinate.
  const Shard& shard = settings.shard;
  const std::vector<const GoldenCase*> selected = select_cases(manifest, settings.filter);
  std::vector<const GoldenCase*> cases;
  for (size_t k = 0; k < selected.size(); ++k)
    if (shard.owns(k)) cases.push_back(selected[k]);
  const std::optional<std::string>& junit_path = settings.junit_path;
  // An unknown --device (or no Vulkan device at all) is reported before any case runs.
  const std::string backend_description = make_backend(settings.backend)->description();
  if (settings.report_dir) {
    std::error_code error;
    fs::create_directories(*settings.report_dir, error);
    if (error || !fs::is_directory(*settings.report_dir))
      throw std::invalid_argument("option --report: cannot create the directory " + *settings.report_dir);
  }

  const auto start = std::chrono::steady_clock::now();
  std::vector<CaseResult> results(cases.size());
  std::vector<double> case_seconds(cases.size(), 0.0);
  std::mutex output_mutex;
  std::atomic<size_t> next{0};
  ProgressLine progress(cases.size());
  auto worker = [&] {
    for (size_t i = next++; i < cases.size(); i = next++) {
      const auto case_start = std::chrono::steady_clock::now();
      results[i] = check_case(*cases[i], settings);
      case_seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - case_start).count();
      const std::lock_guard<std::mutex> lock(output_mutex);
      progress.finish();  // the result lines go where the progress line was
      for (const std::string& line : results[i].lines) std::cout << line << "\n";
      std::cout.flush();
      progress.step(cases[i]->name);
    }
  };
  run_concurrently(std::min<size_t>(size_t(threads), cases.size()), worker);
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  GoldenReport report;
  report.backend = backend_description;
  report.golden_dir = settings.golden_dir;
  report.command = settings.command_line;
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
  if (junit_path) {
    write_junit(*junit_path, "skinref golden check (" + report.backend + ")",
                junit_cases(cases, results, case_seconds, settings.backend));
    report_note += "; JUnit: " + *junit_path;
  }
  std::cout << "golden check (" << report.backend << (shard.count > 1 ? ", " + shard.describe() : std::string())
            << "): " << report.rows.size() << " outputs of " << cases.size()
            << " cases: " << passed << " passed, " << failed << " failed, " << skipped << " skipped in "
            << format("%.1f", seconds) << " s" << report_note << "\n";
  if (setup_error) return GoldenCheckOutcome::SetupError;
  return failed > 0 ? GoldenCheckOutcome::SomeFailed : GoldenCheckOutcome::AllPassed;
}

}  // namespace skinref::golden

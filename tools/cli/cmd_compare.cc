// `skinref compare A B [options]`: compares two outputs and exits 0 when they agree within the given
// tolerances, 1 when they do not. The kind of comparison follows the files' extension: two .png images
// (image_compare.h), two .skv vertex dumps (vertex_compare.h), or two .json pose dumps (pose_dump.h), each
// with its own options. Every problem
// with the inputs or options exits 2 with one stderr line (main.cc).
//
// Vertex dumps: A is the reference run, B the float32 run; every position, normal and tangent of B is
// compared with A's against its per-vertex bound (vertex_error_bounds.h), computed from the model (--model)
// at the pose the runs used (--anim, --time; the float32 time with --palette gpu) with the runs' skinning
// options. --report DIR writes vertices.json (write_vertex_comparison_json), atomically.
//
// Pose dumps: A the reference's, B a float32 animation pass's; every value against its pose bound
// (pose_error_bounds.h) at B's time, stage by stage (stage_bisection.h). --report DIR writes pose.json.
//
// Images: the failing fraction is (position-tolerant failures when --tolerance-px > 0, else pixels over
// threshold) / pixel count, and the comparison passes when it is <= --max-fraction. --report DIR writes
// a.png, b.png, diff.png (the heat map), side_by_side.png (A | B | diff) and compare.json, each staged in a
// temporary file and all renamed into place once every one was written.
#include "ci_report/ci_reports.h"
#include "cli/cli_args.h"
#include "cli/choices.h"
#include "cli/commands.h"
#include "cli/dump_records.h"
#include "cli/option_groups.h"

#include "anim/evaluate_pose.h"
#include "anim/recipe.h"
#include "anim/time_mapping.h"
#include "skin/evaluate_vertices.h"
#include "verify/convention_pipeline.h"
#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/load_model.h"
#include "io/image_io.h"
#include "io/pose_dump.h"
#include "io/vertex_dump.h"
#include "skin/method.h"
#include "verify/image_compare.h"
#include "verify/bounds_model.h"
#include "verify/float_model.h"
#include "verify/recipe_bounds.h"
#include "verify/stage_bisection.h"
#include "verify/vertex_compare.h"
#include "verify/verify_run.h"

#include <nlohmann/json.hpp>

#include <optional>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace skinref::cli {
namespace {

// The window search costs (2N + 1)^2 per failing pixel and direction; CTS-style tolerances are 1 or 2 px.
constexpr long long kMaxTolerancePx = 16;

bool has_extension(const std::string& path, const std::string& extension) {
  if (path.size() <= extension.size()) return false;
  std::string tail = path.substr(path.size() - extension.size());
  std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return tail == extension;
}

std::string size_text(const RgbaImage& image) {
  return std::to_string(image.width) + "x" + std::to_string(image.height);
}

std::string format_double(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string psnr_text(double psnr) { return std::isinf(psnr) ? std::string("inf") : format_double("%.2f", psnr); }

struct ImageVerdict {
  size_t failing = 0;
  double failing_fraction = 0;
  bool pass = false;
};

nlohmann::ordered_json comparison_json(const std::string& a_path, const std::string& b_path,
                                       const ImageCompareOptions& options, double max_fraction,
                                       const ImageComparison& c, const ImageVerdict& verdict) {
  nlohmann::ordered_json json;
  json["format"] = "skinref-image-comparison";
  json["version"] = 1;
  json["a"] = a_path;
  json["b"] = b_path;
  json["width"] = c.width;
  json["height"] = c.height;
  json["threshold"] = options.threshold;
  json["tolerance_px"] = options.position_tolerance_px;
  json["max_fraction"] = max_fraction;
  json["background"] = {options.background[0], options.background[1], options.background[2],
                        options.background[3]};
  json["max_channel_difference"] = c.max_channel_difference;
  if (c.max_channel >= 0) {
    json["max_at"] = {{"x", c.max_x}, {"y", c.max_y}, {"channel", std::string(1, "RGBA"[c.max_channel])}};
  } else {
    json["max_at"] = nullptr;
  }
  json["pixel_count"] = c.pixel_count;
  json["pixels_over_threshold"] = c.pixels_over_threshold;
  json["fraction_over_threshold"] = c.fraction_over_threshold;
  json["coverage_mismatches"] = c.coverage_mismatches;
  json["tolerant_failures"] = c.tolerant_failures;
  json["fraction_tolerant_failures"] = c.fraction_tolerant_failures;
  // JSON has no infinity: null means the RGB channels are identical.
  json["psnr_rgb_db"] = std::isinf(c.psnr_rgb_db) ? nlohmann::ordered_json(nullptr)
                                                   : nlohmann::ordered_json(c.psnr_rgb_db);
  json["mean_absolute_difference_rgb"] = c.mean_absolute_difference_rgb;
  json["failing_pixels"] = verdict.failing;
  json["failing_fraction"] = verdict.failing_fraction;
  json["pass"] = verdict.pass;
  return json;
}

void write_report(const std::string& dir, const RgbaImage& a, const RgbaImage& b, const RgbaImage& diff,
                  const nlohmann::ordered_json& json) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    throw std::runtime_error("option --report: cannot create the directory " + dir +
                             (error ? ": " + error.message() : std::string(": a file of that name exists")));
  }
  const std::filesystem::path base(dir);
  const std::vector<RgbaImage> montage_parts{a, b, diff};
  StagedFiles files;
  files.stage((base / "a.png").string(), [&](const std::string& path) { write_png(a, path); });
  files.stage((base / "b.png").string(), [&](const std::string& path) { write_png(b, path); });
  files.stage((base / "diff.png").string(), [&](const std::string& path) { write_png(diff, path); });
  files.stage((base / "side_by_side.png").string(),
              [&](const std::string& path) { write_png(side_by_side(montage_parts), path); });
  files.stage((base / "compare.json").string(), [&](const std::string& path) {
    write_file_atomically(path, [&](std::ostream& out) { out << json.dump(2) << "\n"; });
  });
  files.commit_all();
}

int compare_png_images(const ParsedArgs& parsed, const std::string& a_path, const std::string& b_path) {
  ImageCompareOptions options;
  if (const std::optional<std::string> text = parsed.value("--threshold")) {
    options.threshold = static_cast<int>(parse_integer(*text, "--threshold", 0, 255));
  }
  if (const std::optional<std::string> text = parsed.value("--tolerance-px")) {
    options.position_tolerance_px = static_cast<int>(parse_integer(*text, "--tolerance-px", 0, kMaxTolerancePx));
  }
  double max_fraction = 0.0;
  if (const std::optional<std::string> text = parsed.value("--max-fraction")) {
    max_fraction = parse_finite_double(*text, "--max-fraction");
    if (max_fraction < 0.0 || max_fraction > 1.0) {
      throw UsageError("option --max-fraction: '" + *text + "' is outside 0 to 1");
    }
  }
  const std::optional<std::string> report_dir = parsed.value("--report");
  if (report_dir && report_dir->empty()) throw UsageError("compare: option --report needs a non-empty value");

  const RgbaImage a = read_png(a_path);
  const RgbaImage b = read_png(b_path);
  if (a.width != b.width || a.height != b.height) {
    throw InputError(b_path, "", "an image of the size of " + a_path + " (" + size_text(a) + "), got " +
                                     size_text(b));
  }
  const ImageComparison c = compare_images(a, b, options);
  ImageVerdict verdict;
  verdict.failing = options.position_tolerance_px > 0 ? c.tolerant_failures : c.pixels_over_threshold;
  verdict.failing_fraction = double(verdict.failing) / double(c.pixel_count);
  verdict.pass = verdict.failing_fraction <= max_fraction;

  if (report_dir) {
    write_report(*report_dir, a, b, difference_heat_map(a, b, options),
                 comparison_json(a_path, b_path, options, max_fraction, c, verdict));
  }

  const std::string percent_over = format_double("%.4g%%", 100.0 * c.fraction_over_threshold);
  const std::string percent_tolerant = format_double("%.4g%%", 100.0 * c.fraction_tolerant_failures);
  std::cout << "compare " << a_path << " " << b_path << ": " << size_text(a) << ", threshold "
            << options.threshold << ", tolerance " << options.position_tolerance_px << " px\n";
  std::cout << "  max channel difference     " << c.max_channel_difference;
  if (c.max_channel >= 0) {
    std::cout << " at (" << c.max_x << ", " << c.max_y << ") channel " << "RGBA"[c.max_channel];
  }
  std::cout << "\n";
  std::cout << "  pixels over threshold      " << c.pixels_over_threshold << " (" << percent_over << ")\n";
  std::cout << "  position-tolerant failures " << c.tolerant_failures << " (" << percent_tolerant << ")\n";
  std::cout << "  coverage mismatches        " << c.coverage_mismatches << "\n";
  std::cout << "  PSNR (RGB)                 " << psnr_text(c.psnr_rgb_db) << " dB\n";
  std::cout << "  mean abs difference (RGB)  " << format_double("%.6g", c.mean_absolute_difference_rgb) << "\n";
  std::cout << (verdict.pass ? "PASS" : "FAIL") << ": "
            << (options.position_tolerance_px > 0 ? "position-tolerant failures" : "pixels over threshold") << " "
            << verdict.failing << " / " << c.pixel_count << " = " << format_double("%.6g", verdict.failing_fraction)
            << (verdict.pass ? " <= " : " > ") << "max fraction " << format_double("%.6g", max_fraction) << "\n";
  if (report_dir) {
    const std::filesystem::path base(*report_dir);
    std::cout << "report: " << (base / "side_by_side.png").string() << " (A | B | diff), "
              << (base / "diff.png").string() << ", " << (base / "compare.json").string() << "\n";
  }
  return verdict.pass ? kExitOk : kExitComparisonFailed;
}

// The options of each kind of comparison, to refuse those of the other kind.
const std::vector<std::string> kImageOptions{"--threshold", "--tolerance-px", "--max-fraction"};
const std::vector<std::string> kVertexOptions{"--model",      "--anim",        "--time",   "--method",
                                              "--weights",    "--normals",     "--palette", "--convention",
                                              "--conventions", "--bounds",     "--recipe"};

void refuse_options(const ParsedArgs& parsed, const std::vector<std::string>& options, const std::string& why) {
  for (const std::string& option : options)
    if (parsed.value(option)) throw UsageError("compare: option " + option + " " + why);
}

// The facts of the runs the options give (dump_records.h); the dumps' records are merged in later.
RunFacts vertex_facts_of_options(const ParsedArgs& parsed) {
  RunFacts facts;
  facts.model = parsed.value("--model");
  facts.animation = parsed.value("--anim");
  if (const std::optional<std::string> text = parsed.value("--time")) facts.time = parse_finite_double(*text, "--time");
  facts.method = parsed.value("--method");
  const ConventionSelection given = parse_conventions(parsed, "compare");
  if (given.given) facts.conventions = given.conventions;
  if (const std::optional<std::string> text = parsed.value("--palette")) {
    facts.palette = choice_value(kPalettes, *text, "--palette") ? "own" : "reference";
  }
  return facts;
}

// The two vertex dumps, the facts of their runs (the options, then what each dump records: an option the record
// contradicts is refused) and the recipe they played, if any.
struct VertexRuns {
  VertexDump reference, test;
  RunFacts facts;  // facts.model is set
  std::optional<std::string> recipe_path;
};

VertexRuns read_vertex_runs(const ParsedArgs& parsed, RunFacts facts, const std::string& reference_path,
                            const std::string& test_path) {
  VertexRuns runs;
  runs.reference = read_vertices_skv(reference_path);
  runs.test = read_vertices_skv(test_path);
  merge_record(facts, runs.test.record, test_path, "compare");
  DumpRecord reference_record = runs.reference.record;
  reference_record.palette.clear();  // the reference's own palette is the reference
  merge_record(facts, reference_record, reference_path, "compare");
  if (!facts.model)
    throw UsageError("compare: comparing .skv vertex dumps needs --model MODEL (the dumps do not record it): each "
                     "vertex's bound is computed from the model's data (its joints, weights and attributes) at the "
                     "pose of the runs");
  check_model_hash(*facts.model, runs.test.record, test_path);
  check_model_hash(*facts.model, runs.reference.record, reference_path);
  // A recipe's run: --recipe, or the record's "animation": "recipe:FILE".
  std::string recorded_recipe, recorded_by = test_path;
  for (const auto& [record, path] : {std::pair{&runs.test.record, test_path}, std::pair{&runs.reference.record, reference_path}})
    if (recorded_recipe.empty() && record->animation.rfind("recipe:", 0) == 0) {
      recorded_recipe = record->animation.substr(7);
      recorded_by = path;
    }
  if (parsed.value("--recipe") && parsed.value("--anim"))
    throw UsageError("compare: --recipe and --anim cannot be used together (the recipe names its animations)");
  runs.recipe_path = recipe_of(parsed, recorded_recipe, recorded_by, "compare");
  runs.facts = std::move(facts);
  return runs;
}

// The model and the pose both runs showed, with what the test run is held to.
struct VertexRunCheck {
  Scene scene;
  SkinningOptions options;
  Conventions conventions;
  bool own_palette = true;  // the test run computed its own animation and palette
  double time = 0.0;
  BoundsModel bounds_model = BoundsModel::AnyOrder;
  std::optional<Recipe> recipe;
  int animation = -1;
};

VertexRunCheck set_up_vertex_check(const ParsedArgs& parsed, const VertexRuns& runs, const std::string& test_path) {
  const RunFacts& facts = runs.facts;
  VertexRunCheck check;
  if (facts.method) {
    const std::optional<SkinningMethod> method = parse_skinning_method(*facts.method);
    if (!method) throw UsageError("compare: method '" + *facts.method + "' is not one of " + skinning_method_choices(", "));
    check.options.method = *method;
  }
  check.conventions = facts.conventions.value_or(Conventions{});
  check.options = skinning_options_under(check.options, check.conventions.skinning);
  // An engine computes its own animation and palette: that is the default for a dump that does not say.
  check.own_palette = facts.palette.value_or("own") == "own";
  check.time = facts.time.value_or(0.0);
  // A float32 animation pass runs at the float32 time, and so does the reference it is held to.
  if (check.own_palette) check.time = double(static_cast<float>(check.time));

  check.scene = load_model_under(*facts.model, check.conventions);
  check_joint_names(check.scene, runs.test.record, test_path);
  // skinref's float32 paths do not evaluate recipes: a recipe's bounds are any-order.
  check.bounds_model = parse_bounds(parsed, runs.recipe_path ? std::string() : runs.test.record.writer);
  if (runs.recipe_path) {
    if (!same_conventions(check.conventions, Conventions{}))
      throw UsageError("compare: a recipe's run is checked under glTF 2.0's conventions only");
    if (check.bounds_model == BoundsModel::SkinrefOrder)
      throw UsageError("compare: --bounds skinref-order does not apply to a recipe (skinref's float32 paths do not "
                       "evaluate recipes): its bounds are any-order");
    check.recipe = load_recipe(*runs.recipe_path, check.scene);
    if (!facts.time) check.time = check.own_palette ? double(static_cast<float>(check.recipe->time)) : check.recipe->time;
  }
  check.animation = check.recipe || (facts.animation && *facts.animation == "rest")
                        ? -1
                        : resolve_animation(check.scene, facts.animation);
  return check;
}

// Every vertex of the test run against the reference's, within its bound at the runs' pose (verify/verify_run.h).
VertexComparison compare_vertex_runs(const VertexRuns& runs, const VertexRunCheck& check, const std::string& reference_path,
                                     const std::string& test_path) {
  RunPose run;
  run.recipe = check.recipe ? &*check.recipe : nullptr;
  run.animation = check.animation;
  run.time = check.time;
  run.conventions = check.conventions;
  run.own_pose = check.own_palette;
  try {
    return verify_run(check.scene, run, check.options, check.bounds_model, &runs.reference.primitives,
                      runs.test.primitives)
        .vertices.comparison;
  } catch (const InputError& error) {
    throw InputError(test_path, "", error.expected() + " (reference " + reference_path + ", model " + *runs.facts.model + ")");
  }
}

// A run over the stated any-order bounds is checked again under the wide sampling allowances: if it passes
// there, the one assumption it breaks is named (its slerp or quaternion normalization, or a departure that
// moves it no further; diagnose tells them apart).
// The wide allowances are at most 4 times the stated ones (tol::SamplingAllowances), and the bounds grow no faster
// to first order: a value more than this many times over its stated bound cannot be within its wide bound, so the
// second comparison is skipped (it costs as much as the first).
constexpr double kWideOverStatedBoundAtMost = 16.0;

void print_wide_allowances_verdict(const VertexRuns& runs, const VertexRunCheck& check, const VertexComparison& stated,
                                   const std::string& reference_path, const std::string& test_path) {
  if (check.bounds_model != BoundsModel::AnyOrder || !check.own_palette || check.recipe) return;
  if (stated.unbounded > 0 || stated.max_ratio > kWideOverStatedBoundAtMost) return;
  VertexRunCheck wide = check;
  wide.bounds_model = BoundsModel::AnyOrderWide;
  if (!compare_vertex_runs(runs, wide, reference_path, test_path).passed()) return;
  std::cout << "  within the any-order-wide bounds (slerp within " << tol::kWideSamplingAllowances.slerp_ulps
            << " ulp, quaternion normalization within " << tol::kWideSamplingAllowances.normalize_ulps
            << " ulp): over the stated bounds only, which assume " << tol::kStatedSamplingAllowances.slerp_ulps
            << " and " << tol::kStatedSamplingAllowances.normalize_ulps
            << " ulp. Either the run's slerp or normalization is less accurate than that (--bounds any-order-wide "
               "holds it to the wide allowances), or it departs from glTF by that little: skinref diagnose tells "
               "which\n";
}

// --report DIR: DIR/vertices.json, the comparison with what the runs were.
void write_vertex_report(const std::string& report_dir, const VertexComparison& comparison, const VertexRuns& runs,
                         const VertexRunCheck& check) {
  std::error_code error;
  std::filesystem::create_directories(report_dir, error);
  if (error || !std::filesystem::is_directory(report_dir)) {
    throw std::runtime_error("option --report: cannot create the directory " + report_dir +
                             (error ? ": " + error.message() : std::string(": a file of that name exists")));
  }
  write_file_atomically((std::filesystem::path(report_dir) / "vertices.json").string(), [&](std::ostream& out) {
    std::ostringstream comparison_text;
    write_vertex_comparison_json(comparison, comparison_text);
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(comparison_text.str());
    json["model"] = *runs.facts.model;
    json["animation"] = check.animation;
    if (runs.recipe_path) json["recipe"] = *runs.recipe_path;
    json["time"] = check.time;
    json["method"] = skinning_method_name(check.options.method);
    json["palette"] = check.own_palette ? "own" : "reference";
    json["bounds"] = bounds_model_name(check.bounds_model);
    json["conventions"] = conventions_to_json(check.conventions);
    out << json.dump(2) << "\n";
  });
}

void print_vertex_summary(const ParsedArgs& parsed, const VertexRuns& runs, const VertexRunCheck& check,
                          const std::string& reference_path, const std::string& test_path) {
  const std::optional<std::string>& recipe_path = runs.recipe_path;
  std::cout << "compare " << reference_path << " " << test_path << ": " << check.scene.source << ", "
            << (recipe_path ? "recipe " + *recipe_path
                            : check.animation < 0 ? std::string("rest pose") : "animation " + std::to_string(check.animation))
            << " at t = " << format_double("%.9g", check.time) << ", " << skinning_method_name(check.options.method) << ", "
            << describe_conventions(check.conventions) << ", palette "
            << (check.own_palette ? "own (the run computed its own animation and palette in float32)"
                                  : "reference (the run used the reference's palettes)")
            << ", " << describe_bounds(check.bounds_model, parsed, recipe_path.has_value()) << "\n";
}

int compare_vertex_dumps(const ParsedArgs& parsed, const std::string& reference_path, const std::string& test_path) {
  refuse_options(parsed, kImageOptions, "applies to images, not to .skv vertex dumps");
  RunFacts facts = vertex_facts_of_options(parsed);
  const std::optional<std::string> report_dir = parsed.value("--report");
  if (report_dir && report_dir->empty()) throw UsageError("compare: option --report needs a non-empty value");

  const VertexRuns runs = read_vertex_runs(parsed, std::move(facts), reference_path, test_path);
  const VertexRunCheck check = set_up_vertex_check(parsed, runs, test_path);
  const VertexComparison comparison = compare_vertex_runs(runs, check, reference_path, test_path);
  if (report_dir) write_vertex_report(*report_dir, comparison, runs, check);
  print_vertex_summary(parsed, runs, check, reference_path, test_path);
  print_vertex_comparison(comparison, std::cout);
  if (!comparison.passed()) print_wide_allowances_verdict(runs, check, comparison, reference_path, test_path);
  if (report_dir) std::cout << "report: " << (std::filesystem::path(*report_dir) / "vertices.json").string() << "\n";
  return comparison.passed() ? kExitOk : kExitComparisonFailed;
}

// Two pose dumps (pose_dump.h): REF the reference's, TEST a float32 animation pass's (skinref pose --backend
// vulkan, or an engine's), value by value against float32_pose_error_bounds at TEST's time, stage by stage.
int compare_pose_dumps(const ParsedArgs& parsed, const std::string& reference_path, const std::string& test_path) {
  refuse_options(parsed, kImageOptions, "applies to images, not to pose dumps");
  for (const char* option : {"--anim", "--time", "--method", "--weights", "--normals", "--palette", "--convention",
                             "--conventions"})  // --bounds and --recipe apply
    if (parsed.value(option))
      throw UsageError(std::string("compare: option ") + option +
                       " does not apply to pose dumps: their animation and time are in the dumps");
  const std::optional<std::string> report_dir = parsed.value("--report");
  if (report_dir && report_dir->empty()) throw UsageError("compare: option --report needs a non-empty value");
  const std::string model = parsed.value("--model").value_or(read_pose_dump_source(reference_path));
  const Scene scene = load_model(model);
  int reference_digits = 17, test_digits = 17;
  const EvaluatedPose reference = read_pose_dump(reference_path, scene, nullptr, &reference_digits);
  const EvaluatedPose test = read_pose_dump(test_path, scene, nullptr, &test_digits);
  if (reference.animation != test.animation || reference.time != test.time)
    throw InputError(test_path, "/time",
                     "the reference's animation and time (" + std::to_string(reference.animation) + ", " +
                         format_double("%.17g", reference.time) + " s; this dump: " +
                         std::to_string(test.animation) + ", " + format_double("%.17g", test.time) + " s)");
  // A recipe's pose: --recipe, or what either dump records.
  std::string recorded_recipe = read_pose_dump_recipe(test_path);
  std::string recorded_by = test_path;
  if (recorded_recipe.empty()) {
    recorded_recipe = read_pose_dump_recipe(reference_path);
    recorded_by = reference_path;
  }
  const std::optional<std::string> recipe_path = recipe_of(parsed, recorded_recipe, recorded_by, "compare");
  // skinref's float32 paths do not evaluate recipes: a recipe's bounds are any-order.
  const BoundsModel bounds_model = parse_bounds(parsed, recipe_path ? std::string() : read_pose_dump_writer(test_path));
  if (recipe_path && test.animation >= 0)
    throw InputError(test_path, "/animation", "null: a recipe's pose (--recipe " + *recipe_path + ")");
  if (recipe_path && bounds_model == BoundsModel::SkinrefOrder)
    throw UsageError("compare: --bounds skinref-order does not apply to a recipe (skinref's float32 paths do not "
                     "evaluate recipes): its bounds are any-order");
  RecipeStages recipe_stages;
  const std::optional<Recipe> recipe = recipe_path ? std::optional<Recipe>(load_recipe(*recipe_path, scene)) : std::nullopt;
  RunPose run;
  run.recipe = recipe ? &*recipe : nullptr;
  run.animation = test.animation;
  run.time = test.time;
  RecipePoseBounds run_bounds = run_pose_bounds(scene, run, bounds_model);
  PoseErrorBounds bounds = std::move(run_bounds.pose);
  recipe_stages.ik_nodes = std::move(run_bounds.ik_nodes);
  // Dumps printed with fewer than 17 digits: their printing rounding is part of the difference.
  charge_printing_rounding(bounds, test, test_digits);
  charge_printing_rounding(bounds, reference, reference_digits);
  const StageDivergence divergence =
      bisect_stages(scene, reference, &test, &bounds, {}, {}, {}, recipe_path ? &recipe_stages : nullptr);

  std::cout << "compare " << reference_path << " " << test_path << ": " << scene.source << ", "
            << (recipe_path ? "recipe " + *recipe_path
                : test.animation < 0 ? std::string("rest pose") : "animation " + std::to_string(test.animation))
            << " at t = " << format_double("%.9g", test.time) << ", " << describe_bounds(bounds_model, parsed, recipe_path.has_value()) << "\n";
  if (divergence.stage == PipelineStage::None) {
    std::cout << "  all " << divergence.values_checked
              << " values (local TRS, morph weights, global matrices, palettes, normal matrices) within their "
                 "derived float32 bounds\n";
  } else {
    std::cout << "  first stage over its bound: " << pipeline_stage_name(divergence.stage) << ", "
              << divergence.values_over << " values over\n  worst: " << divergence.location << ": error "
              << format_double("%.3e", divergence.error) << ", bound " << format_double("%.3e", divergence.bound)
              << "\n";
  }
  if (report_dir) {
    std::filesystem::create_directories(*report_dir);
    const nlohmann::json json{{"stage", pipeline_stage_name(divergence.stage)},
                              {"bounds", bounds_model_name(bounds_model)},
                              {"values_checked", divergence.values_checked},
                              {"values_over", divergence.values_over},
                              {"location", divergence.location},
                              {"error", divergence.error},
                              {"bound", divergence.bound}};
    write_file_atomically((std::filesystem::path(*report_dir) / "pose.json").string(),
                          [&](std::ostream& out) { out << json.dump(2) << "\n"; });
  }
  return divergence.stage == PipelineStage::None ? kExitOk : kExitComparisonFailed;
}

int compare_pair(const ParsedArgs& parsed) {
  const std::string& a_path = parsed.positionals[0];
  const std::string& b_path = parsed.positionals[1];
  if (has_extension(a_path, ".skv") && has_extension(b_path, ".skv"))
    return compare_vertex_dumps(parsed, a_path, b_path);
  if (has_extension(a_path, ".json") && has_extension(b_path, ".json")) return compare_pose_dumps(parsed, a_path, b_path);
  for (const std::string& path : {a_path, b_path}) {
    if (!has_extension(path, ".png")) {
      throw UsageError("compare: '" + path + "' is not a .png image; compare takes two .png images, two .skv "
                       "vertex dumps or two .json pose dumps");
    }
  }
  refuse_options(parsed, kVertexOptions, "applies to .skv vertex dumps, not to images");
  return compare_png_images(parsed, a_path, b_path);
}

int run_compare(const ParsedArgs& parsed) {
  require_positionals(parsed, 2, "A and B", "compare");
  const std::optional<std::string> junit_path = parsed.value("--junit");
  if (!junit_path) return compare_pair(parsed);
  // One JUnit test case for the pair, written once the comparison has a verdict (bad input writes none).
  const auto start = std::chrono::steady_clock::now();
  std::optional<TeeOutput> tee(std::in_place);
  const int exit_code = compare_pair(parsed);
  const std::string output = tee->text();
  tee.reset();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_junit(*junit_path, "skinref compare",
              {junit_from_output("skinref.compare", parsed.positionals[0] + " vs " + parsed.positionals[1], seconds,
                                 exit_code, output)},
              output);
  std::cout << "JUnit: " << *junit_path << "\n";
  return exit_code;
}

// The options of an image comparison.
std::vector<OptionDecl> compare_image_options() {
  return {
      {"--threshold", "N", "Images: the per-channel difference a pixel may have, 0 to 255.", {}, "1"},
      {"--tolerance-px", "N", "Images: 0 to " + std::to_string(kMaxTolerancePx) + "; above 0, a pixel also passes "
                              "when a pixel of the other image within N pixels (Chebyshev distance) matches it within "
                              "the threshold, checked both ways (as the Vulkan CTS's fuzzy compare), and the failing "
                              "pixels are those that fail that.", {}, "0"},
      {"--max-fraction", "F", "Images: the largest failing fraction that passes, 0 to 1 (0: every pixel must "
                              "pass).", {}, "0"},
  };
}

// The options of a vertex or pose dump comparison: what the runs were, and the bounds they are held to.
std::vector<OptionDecl> compare_dump_options() {
  const OptionDecl method = recorded_method_option("Vertex dumps: what the runs used", "the dumps");
  return {
      {"--model", "MODEL", "The model both runs used (.gltf/.glb or builtin:NAME). Vertex dumps: required unless "
                           "the dumps record it. Pose dumps: default, the reference dump's \"source\"."},
      {"--anim", "NAME|INDEX", "Vertex dumps: the animation the runs played (an integer is an index); default: "
                               "what the dumps record, else the first. Not with --recipe."},
      {"--time", "SECONDS", "Vertex dumps: the time the runs used; default: what the dumps record, else 0."},
      method,
      {"--palette", "reference|gpu", "Vertex dumps: gpu, the test run computed its own animation and palette in "
                                     "float32, so the pose is evaluated at the float32 time and the palettes' own "
                                     "bounds are carried into the vertices (the default for a dump that does not "
                                     "record it, e.g. an engine's); reference, the test run used the reference's "
                                     "palettes, rounded to float32.", choice_names(kPalettes)},
      bounds_option("For vertex and pose dumps."),
      {"--recipe", "FILE", "The runs played a recipe (blends, masks, additive layers, IK; default: what the dumps "
                           "record): its bounds carry each clip's, the blend's and IK's errors (docs/error_bounds.md, "
                           "\"Recipes\"), and pose dumps are bisected through blend, local-to-model and ik. "
                           "Any-order bounds and glTF 2.0's conventions only."},
  };
}

// --report and --junit, for every kind of pair.
std::vector<OptionDecl> compare_report_options() {
  return {
      {"--report", "DIR", "Create DIR if needed and write the report there, each file atomically. Images: a.png, "
                          "b.png, diff.png (a heat map: grey within the threshold, then blue, cyan, green, yellow and "
                          "red for a difference of 1, 4, 16, 64 and 255, magenta a coverage mismatch), "
                          "side_by_side.png (A | B | diff) and compare.json (the metrics). Vertex dumps: "
                          "vertices.json (the comparison). Pose dumps: pose.json."},
      {"--junit", "FILE.xml", "Any pair: also write a JUnit XML report, the pair as one test case (its verdict and "
                              "what compare printed), for CI dashboards; none after bad input (exit 2)."},
  };
}

// What compare does with each kind of pair, one paragraph a line.
std::string compare_description() {
  return "Compares two outputs of one kind, chosen by the files' extension: two .png images, two .skv vertex dumps "
         "or two .json pose dumps. An option of another kind of comparison is refused.\n"
         "Images (e.g. a reference render and a Vulkan render, of the same size): prints the largest per-channel "
         "difference and where, the pixels over the threshold, the position-tolerant failures, the coverage "
         "mismatches (background in one image only), and the PSNR and mean absolute difference over RGB. The "
         "failing pixels are the position-tolerant failures when --tolerance-px is above 0, else the pixels over the "
         "threshold. Exit status 0 when the failing fraction is at most --max-fraction, 1 when it is above, 2 for "
         "unreadable images, images of different sizes or bad options.\n"
         "Vertex dumps (skinref skin ... --out FILE.skv): REF is the reference run, TEST a float32 run (e.g. "
         "--backend vulkan). Every position, normal and tangent of TEST is held to a per-vertex bound derived from "
         "the model by a float32 error analysis of the skinning (docs/error_bounds.md), so the options must be "
         "those of the runs. Prints the count over the bound, the error/bound distribution and the worst vertex "
         "with its joints and weights. Exit status 0 when every value is within its bound, 1 when any is over (or "
         "has no bound), 2 for unreadable dumps, dumps that do not match each other or the model, or bad options.\n"
         "A dump written by skinref records its model, animation, time, method, palette and conventions (.skv "
         "version 2); compare uses the records, and refuses an option that contradicts one (exit 2).\n"
         "Pose dumps (skinref pose ... --out FILE.json; TEST from skinref pose --backend vulkan or an engine): every "
         "local TRS value, morph weight, global matrix, palette and normal matrix entry of TEST is held to its "
         "derived float32 bound at TEST's time (the two dumps must agree on animation and time), and the first "
         "stage with a value over its bound is named with the node or joint. The model is the dump's \"source\" "
         "unless --model is given. A dump printed with fewer than 17 significant digits (%.9g) has its printing "
         "rounding added to every bound. Of the options, --model, --bounds, --recipe, --report and --junit apply.";
}

}  // namespace

CommandDecl compare_command() {
  return {"compare",
          "compare two images, or two vertex or pose dumps within derived bounds",
          {"A.png B.png [--threshold N] [--tolerance-px N] [--max-fraction F] [--report DIR]",
           "REF.skv TEST.skv [--model MODEL] [--anim NAME|INDEX] [--time SECONDS] [--recipe FILE] [--report DIR] "
           "[OPTIONS]",
           "REF_POSE.json TEST_POSE.json [--model MODEL] [--bounds any-order|any-order-wide|skinref-order] "
           "[--recipe FILE] [--report DIR]"},
          compare_description(),
          joined(compare_image_options(), {compare_dump_options(), convention_options(), compare_report_options()}),
          run_compare};
}

}  // namespace skinref::cli

// `skinref bisect REF_POSE.json TEST_POSE.json REF.skv TEST.skv`: where a float32 run of the pipeline first
// left the reference. The two pose dumps (pose_dump.h; `skinref pose`, `skinref pose --backend vulkan`, or an
// engine's) and vertex dumps (.skv; `skinref skin`) are compared stage by stage, time mapping -> sampling -> local to model
// -> palette -> morph -> skinning, each value against its derived float32 bound (stage_bisection.h), and the first
// stage over its bound is named with the node, joint or vertex responsible. The model is the pose dump's
// "source" unless --model is given; its time and animation come from the dumps, which must agree.
// Exit 0 when no stage diverges, 1 when one does, 2 for unreadable or mismatched inputs.
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/dump_records.h"
#include "cli/option_groups.h"

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/gltf_load.h"
#include "io/pose_dump.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "skin/method.h"
#include "verify/verify_run.h"
#include "verify/convention_pipeline.h"
#include "verify/stage_bisection.h"
#include "verify/stage_mistakes.h"
#include "verify/bounds_model.h"
#include "verify/recipe_bounds.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace skinref::cli {

namespace {

// What the command line asks for, checked before any dump or model is read.
struct BisectOptions {
  std::string ref_pose_path, test_pose_path, ref_skv_path, test_skv_path;
  SkinningOptions skinning;
  ConventionSelection given;
};

BisectOptions parse_bisect_args(const ParsedArgs& parsed) {
  require_positionals(parsed, 4, "REF_POSE.json TEST_POSE.json REF.skv TEST.skv", "bisect");
  BisectOptions options;
  options.ref_pose_path = parsed.positionals[0];
  options.test_pose_path = parsed.positionals[1];
  options.ref_skv_path = parsed.positionals[2];
  options.test_skv_path = parsed.positionals[3];
  static const std::vector<std::string> kJson{".json"};
  static const std::vector<std::string> kSkv{".skv"};
  require_extension(options.ref_pose_path, kJson, "REF_POSE");
  require_extension(options.test_pose_path, kJson, "TEST_POSE");
  require_extension(options.ref_skv_path, kSkv, "REF.skv");
  require_extension(options.test_skv_path, kSkv, "TEST.skv");
  options.skinning = parse_skinning_options(parsed);
  options.given = parse_conventions(parsed, "bisect");
  return options;
}

// The two runs as their vertex dumps record them: the model, the vertices, and the skinning options and
// conventions both used (the options, then the records, which must agree with them and with each other).
struct BisectRuns {
  std::string model;
  VertexDump reference_vertices, test_vertices;
  SkinningOptions skinning;
  Conventions conventions;
};

BisectRuns read_vertex_runs(const ParsedArgs& parsed, const BisectOptions& options) {
  BisectRuns runs;
  // The model: --model, else the reference pose dump's source.
  runs.model = parsed.value("--model").value_or("");
  if (runs.model.empty()) runs.model = read_pose_dump_source(options.ref_pose_path);
  if (runs.model.empty()) throw UsageError("bisect: " + options.ref_pose_path + " does not name its model (\"source\"); give --model");
  runs.reference_vertices = read_vertices_skv(options.ref_skv_path);
  runs.test_vertices = read_vertices_skv(options.test_skv_path);
  RunFacts facts;
  if (parsed.value("--method")) facts.method = skinning_method_name(options.skinning.method);
  if (options.given.given) facts.conventions = options.given.conventions;
  for (const auto& [dump, path] : {std::pair{&runs.test_vertices, options.test_skv_path}, {&runs.reference_vertices, options.ref_skv_path}}) {
    DumpRecord record = dump->record;
    record.model.clear();
    record.time.reset();  // the pose dumps' times are checked in read_pose_pair()
    record.animation.clear();
    record.palette.clear();
    merge_record(facts, record, path, "bisect");
  }
  check_model_hash(runs.model, runs.test_vertices.record, options.test_skv_path);
  check_model_hash(runs.model, runs.reference_vertices.record, options.ref_skv_path);
  runs.skinning = options.skinning;
  if (facts.method) runs.skinning.method = parse_skinning_method(*facts.method).value_or(runs.skinning.method);
  runs.conventions = facts.conventions.value_or(Conventions{});
  runs.skinning = skinning_options_under(runs.skinning, runs.conventions.skinning);
  return runs;
}

// The two pose dumps, read against the model, with the digits they were printed with; they must show the
// same moment (animation and time).
struct PosePair {
  EvaluatedPose reference, test;
  int reference_digits = 17, test_digits = 17;
};

PosePair read_pose_pair(const BisectOptions& options, const Scene& scene) {
  PosePair poses;
  poses.reference = read_pose_dump(options.ref_pose_path, scene, nullptr, &poses.reference_digits);
  poses.test = read_pose_dump(options.test_pose_path, scene, nullptr, &poses.test_digits);
  const EvaluatedPose& reference_pose = poses.reference;
  const EvaluatedPose& test_pose = poses.test;
  if (reference_pose.animation != test_pose.animation)
    throw InputError(options.test_pose_path, "/animation", "the reference's animation (" +
                                                               std::to_string(reference_pose.animation) +
                                                               "): the two runs must show the same moment");
  if (reference_pose.time != test_pose.time) {
    char times[160];
    std::snprintf(times, sizeof times, "the reference's time %.17g s (this dump has %.17g s)", reference_pose.time,
                  test_pose.time);
    std::string hint = ": the two runs must show the same moment";
    if (double(static_cast<float>(reference_pose.time)) == test_pose.time) {
      char exact[160];
      std::snprintf(exact, sizeof exact, "; the float32 run sampled at the float32 time, so run the reference with "
                                         "--time %.17g", test_pose.time);
      hint = exact;
    }
    throw InputError(options.test_pose_path, "/time", times + hint);
  }
  return poses;
}

// A recipe's run as the dumps record it: the recipe and the dump that says so.
std::pair<std::string, std::string> recorded_bisect_recipe(const BisectOptions& options, const BisectRuns& runs) {
  std::string recorded_recipe = read_pose_dump_recipe(options.test_pose_path), recorded_by = options.test_pose_path;
  for (const auto& [recorded, by] : {std::pair{read_pose_dump_recipe(options.ref_pose_path), options.ref_pose_path},
                                     std::pair{runs.test_vertices.record.animation, options.test_skv_path},
                                     std::pair{runs.reference_vertices.record.animation, options.ref_skv_path}}) {
    if (!recorded_recipe.empty()) break;
    if (recorded.rfind("recipe:", 0) == 0) {
      recorded_recipe = recorded.substr(7);
      recorded_by = by;
    } else if (by == options.ref_pose_path) {
      recorded_recipe = recorded;
      recorded_by = by;
    }
  }
  return {recorded_recipe, recorded_by};
}

// What every value is held to: the bounds model, the pose bounds (a recipe's, or the clip's), and the recipe
// (--recipe, or what the dumps record) with the nodes its IK moved.
struct BisectBounds {
  std::optional<std::string> recipe_path;
  BoundsModel model = BoundsModel::AnyOrder;
  PoseErrorBounds pose;
  RecipeStages recipe_stages;
};

BisectBounds bisect_bounds(const ParsedArgs& parsed, const BisectOptions& options, const BisectRuns& runs,
                           const Scene& scene, const EvaluatedPose& test_pose) {
  // The pose dump's writer decides the default (an engine's: any order), unless the vertex dump says otherwise.
  std::string writer = read_pose_dump_writer(options.test_pose_path);
  if (writer.empty()) writer = runs.test_vertices.record.writer;
  const auto [recorded_recipe, recorded_by] = recorded_bisect_recipe(options, runs);
  BisectBounds bounds;
  bounds.recipe_path = recipe_of(parsed, recorded_recipe, recorded_by, "bisect");
  const std::optional<std::string>& recipe_path = bounds.recipe_path;
  // skinref's float32 paths do not evaluate recipes: a recipe's bounds are any-order.
  bounds.model = parse_bounds(parsed, recipe_path ? std::string() : writer);
  if (recipe_path && bounds.model == BoundsModel::SkinrefOrder)
    throw UsageError("bisect: --bounds skinref-order does not apply to a recipe (skinref's float32 paths do not "
                     "evaluate recipes): its bounds are any-order");
  if (recipe_path && !same_conventions(runs.conventions, Conventions{}))
    throw UsageError("bisect: a recipe's run is checked under glTF 2.0's conventions only");
  if (recipe_path && test_pose.animation >= 0)
    throw InputError(options.test_pose_path, "/animation", "null: a recipe's pose (--recipe " + *recipe_path + ")");
  const std::optional<Recipe> recipe = recipe_path ? std::optional<Recipe>(load_recipe(*recipe_path, scene)) : std::nullopt;
  RunPose run;
  run.recipe = recipe ? &*recipe : nullptr;
  run.animation = test_pose.animation;
  run.time = test_pose.time;
  RecipePoseBounds run_bounds = run_pose_bounds(scene, run, bounds.model);
  bounds.pose = std::move(run_bounds.pose);
  bounds.recipe_stages.ik_nodes = std::move(run_bounds.ik_nodes);
  return bounds;
}

void print_divergence(const StageDivergence& divergence) {
  if (divergence.stage == PipelineStage::None) {
    std::cout << "no stage diverges: " << divergence.values_checked
              << " values of sampling, local-to-model, palette and skinning within their bounds\n";
  } else {
    char figures[128];
    std::snprintf(figures, sizeof figures, "error %.3e, bound %.3e", divergence.error, divergence.bound);
    std::cout << "first diverging stage: " << pipeline_stage_name(divergence.stage) << " (" << divergence.values_over
              << " values over their bounds)\n"
              << "  worst: " << divergence.location << ": " << figures << "\n";
  }
}

// --report DIR: DIR/bisect.json.
void write_bisect_report(const std::string& report, const StageDivergence& divergence, const BisectBounds& bounds,
                         const Conventions& conventions, const std::optional<StageMistake>& mistake) {
  std::filesystem::create_directories(report);
  nlohmann::json json{{"stage", pipeline_stage_name(divergence.stage)},
                      {"bounds", bounds_model_name(bounds.model)},
                      {"values_over", divergence.values_over},
                      {"values_checked", divergence.values_checked},
                      {"location", divergence.location},
                      {"node", divergence.node},
                      {"skin", divergence.skin},
                      {"joint", divergence.joint},
                      {"primitive_index", divergence.primitive_index},
                      {"vertex", divergence.vertex},
                      {"error", divergence.error},
                      {"bound", divergence.bound},
                      {"conventions", conventions_to_json(conventions)}};
  if (bounds.recipe_path) json["recipe"] = *bounds.recipe_path;
  json["mistake"] = mistake ? nlohmann::json{{"assignment", mistake->assignment}, {"words", mistake->words}, {"equally", mistake->equally}}
                            : nlohmann::json(nullptr);
  write_file_atomically((std::filesystem::path(report) / "bisect.json").string(),
                        [&](std::ostream& out) { out << json.dump(2) << "\n"; });
}

int run_bisect(const ParsedArgs& parsed) {
  const BisectOptions options = parse_bisect_args(parsed);
  const BisectRuns runs = read_vertex_runs(parsed, options);
  const Scene scene = load_model_under(runs.model, runs.conventions);
  check_joint_names(scene, runs.test_vertices.record, options.test_skv_path);
  const PosePair poses = read_pose_pair(options, scene);
  const BisectBounds bounds = bisect_bounds(parsed, options, runs, scene, poses.test);
  const std::vector<PrimitiveErrorBounds> vertex_bounds =
      check_bounds(VertexCheck{scene, poses.reference, runs.skinning, bounds.model, &bounds.pose});
  std::cout << "bisect " << scene.source << (bounds.recipe_path ? ", recipe " + *bounds.recipe_path : std::string())
            << ": " << describe_bounds(bounds.model, parsed, bounds.recipe_path.has_value()) << "\n";
  // The pose dumps' own printing rounding, when they were printed with fewer than 17 digits, is part of the
  // difference of their values (not of the vertices, which the .skv dumps hold in binary).
  PoseErrorBounds printed_pose_bounds = bounds.pose;
  charge_printing_rounding(printed_pose_bounds, poses.test, poses.test_digits);
  charge_printing_rounding(printed_pose_bounds, poses.reference, poses.reference_digits);
  const StageDivergence divergence =
      bisect_stages(scene, poses.reference, &poses.test, &printed_pose_bounds, runs.reference_vertices.primitives,
                    runs.test_vertices.primitives, vertex_bounds, bounds.recipe_path ? &bounds.recipe_stages : nullptr);

  print_divergence(divergence);
  // The mistake that stage shows, evaluated from the engine's own inputs to it (verify/stage_mistakes.h).
  const std::optional<StageMistake> mistake =
      bounds.recipe_path ? std::nullopt : name_stage_mistake(scene, poses.reference, poses.test, divergence.stage);
  if (mistake)
    std::cout << "  " << mistake->words << ": the mistake " << mistake->assignment
              << " reproduces this stage from your own inputs to it (docs/mistakes.md)"
              << (mistake && !mistake->equally.empty() ? "; so does " + join_assignments(mistake->equally) : std::string())
              << "\n";
  if (const std::optional<std::string> report = parsed.value("--report"))
    write_bisect_report(*report, divergence, bounds, runs.conventions, mistake);
  return divergence.stage == PipelineStage::None ? kExitOk : kExitComparisonFailed;
}

}  // namespace

CommandDecl bisect_command() {
  const OptionDecl method = recorded_method_option("What both runs used", "the .skv dumps");
  std::vector<OptionDecl> own{
      {"--model", "MODEL", "The model both runs used; default: the reference pose dump's \"source\"."},
      method,
      bounds_option(),
      {"--recipe", "FILE", "The runs played a recipe (default: what the dumps record); the stages are then blend "
                           "(every local TRS but IK's) -> local-to-model -> ik (the local TRS that IK changed, and "
                           "the globals below them) -> palette -> morph -> skinning. Under glTF 2.0's conventions "
                           "only."},
      {"--report", "DIR", "Also write DIR/bisect.json: the first diverging stage, its worst value with its error and "
                          "bound, the bounds, the conventions and the mistake named, if any."},
  };
  return {"bisect",
          "the first pipeline stage where a float32 run leaves the reference",
          {"REF_POSE.json TEST_POSE.json REF.skv TEST.skv [--model MODEL] [--recipe FILE] [--report DIR] [OPTIONS]"},
          "Finds the first pipeline stage where a float32 run (TEST: the Vulkan path with --palette gpu, or an "
          "engine's dumps in skinref's formats) leaves the reference (REF: skinref pose and skinref skin at the same "
          "time), each value against its derived bound (docs/error_bounds.md). The stages, in order:\n"
          "time-mapping (the clip time, when both pose dumps record it) -> sampling (local TRS) -> local-to-model "
          "(global matrices) -> palette (joint matrices, normal matrices) -> morph (morph weights) -> skinning "
          "(positions, normals, tangents).\n"
          "It names the node, joint or vertex with the largest error / bound in the first stage over its bound and, "
          "when a known mistake reproduces that stage from the run's own inputs to it, the mistake "
          "(docs/mistakes.md). The model is the pose dump's \"source\" unless --model is given; the time and "
          "animation come from the dumps, which must agree.\n"
          "--method, --convention, --conventions, --weights and --normals say what both runs used (as for skinref "
          "skin); default: what the .skv dumps record, else glTF 2.0 and " + method_option().default_value + ".\n"
          "Exit status: 0 no stage over its bound, 1 a stage diverged, 2 unreadable or mismatched inputs.",
          joined(std::move(own), {convention_options()}),
          run_bisect};
}

}  // namespace skinref::cli

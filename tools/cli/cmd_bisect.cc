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

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/gltf_load.h"
#include "io/pose_dump.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "skin/method.h"
#include "verify/convention_pipeline.h"
#include "verify/stage_bisection.h"
#include "verify/bounds_model.h"
#include "verify/recipe_bounds.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace skinref::cli {

std::string bisect_usage() {
  return "usage: skinref bisect REF_POSE.json TEST_POSE.json REF.skv TEST.skv [--model MODEL]\n"
         "         " + method_option_synopsis() + " [--convention NAME=VALUE ...] [--conventions FILE.json]\n"
         "         [--weights as-stored|renormalize] [--normals inverse-transpose|blend-normal-matrices]\n"
         "         [--bounds any-order|skinref-order] [--recipe FILE] [--report DIR]\n"
         "  Finds the first pipeline stage where a float32 run (TEST: the Vulkan path with `--palette gpu`, or an\n"
         "  engine's dumps in skinref's formats) leaves the reference (REF: `skinref pose` and `skinref skin`\n"
         "  at the same time), each value against its derived bound (docs/error_bounds.md):\n"
         "    time-mapping (the clip time, when both pose dumps record it) -> sampling (local TRS) ->\n"
         "    local-to-model (global matrices) -> palette (joint matrices, normal matrices) -> morph (morph\n"
         "    weights) -> skinning (positions, normals, tangents)\n"
         "  and names the node, joint or vertex with the largest error / bound there.\n"
         "  --model MODEL   the model both runs used; default: the pose dump's \"source\"\n"
         "  --method, --convention, --conventions, --weights, --normals   what both runs used (as for skinref\n"
         "                  skin); default: what the .skv dumps record, else glTF 2.0 and lbs\n"
         "  --bounds B      any-order (for every correct float32 engine; the default unless skinref wrote the test\n"
         "                  dumps) or skinref-order (exact for skinref's order; the default for its own dumps)\n"
         "  --recipe FILE   the runs played a recipe (default: what the dumps record); the stages are then\n"
         "                  blend (every local TRS but IK's) -> local-to-model -> ik (the local TRS IK changed\n"
         "                  and the globals below) -> palette -> morph -> skinning\n"
         "  --report DIR    also write DIR/bisect.json\n"
         "  Exit status: 0 no stage over its bound, 1 a stage diverged, 2 unreadable or mismatched inputs.\n";
}

int run_bisect(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions = with_convention_options(
      {{"--model", true}, {"--method", true}, {"--weights", true}, {"--normals", true}, {"--report", true},
       {"--bounds", true}, {"--recipe", true}});
  const ParsedArgs parsed = parse_args(args, kOptions, "bisect");
  if (parsed.help) {
    std::cout << bisect_usage();
    return kExitOk;
  }
  require_positionals(parsed, 4, "REF_POSE.json TEST_POSE.json REF.skv TEST.skv", "bisect");
  const std::string& ref_pose_path = parsed.positionals[0];
  const std::string& test_pose_path = parsed.positionals[1];
  static const std::vector<std::string> kJson{".json"};
  static const std::vector<std::string> kSkv{".skv"};
  require_extension(ref_pose_path, kJson, "REF_POSE");
  require_extension(test_pose_path, kJson, "TEST_POSE");
  require_extension(parsed.positionals[2], kSkv, "REF.skv");
  require_extension(parsed.positionals[3], kSkv, "TEST.skv");
  SkinningOptions options = parse_skinning_options(parsed);
  const ConventionSelection given = parse_conventions(parsed, "bisect");

  // The model: --model, else the reference pose dump's source.
  std::string model = parsed.value("--model").value_or("");
  if (model.empty()) model = read_pose_dump_source(ref_pose_path);
  if (model.empty()) throw UsageError("bisect: " + ref_pose_path + " does not name its model (\"source\"); give --model");
  // The vertex dumps' records (io/vertex_dump.h) must agree with the options and with each other.
  const VertexDump reference_vertices = read_vertices_skv(parsed.positionals[2]);
  const VertexDump test_vertices = read_vertices_skv(parsed.positionals[3]);
  RunFacts facts;
  if (parsed.value("--method")) facts.method = skinning_method_name(options.method);
  if (given.given) facts.conventions = given.conventions;
  for (const auto& [dump, path] : {std::pair{&test_vertices, parsed.positionals[3]}, {&reference_vertices, parsed.positionals[2]}}) {
    DumpRecord record = dump->record;
    record.model.clear();
    record.time.reset();  // the pose dumps' times are checked below
    record.animation.clear();
    record.palette.clear();
    merge_record(facts, record, path, "bisect");
  }
  check_model_hash(model, test_vertices.record, parsed.positionals[3]);
  check_model_hash(model, reference_vertices.record, parsed.positionals[2]);
  if (facts.method) options.method = parse_skinning_method(*facts.method).value_or(options.method);
  const Conventions conventions = facts.conventions.value_or(Conventions{});
  options = skinning_options_under(options, conventions.skinning);
  const Scene scene = load_model_under(model, conventions);
  check_joint_names(scene, test_vertices.record, parsed.positionals[3]);
  int reference_digits = 17, test_digits = 17;
  const EvaluatedPose reference_pose = read_pose_dump(ref_pose_path, scene, nullptr, &reference_digits);
  const EvaluatedPose test_pose = read_pose_dump(test_pose_path, scene, nullptr, &test_digits);
  if (reference_pose.animation != test_pose.animation)
    throw InputError(test_pose_path, "/animation", "the reference's animation (" +
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
    throw InputError(test_pose_path, "/time", times + hint);
  }

  // The pose dump's writer decides the default (an engine's: any order), unless the vertex dump says otherwise.
  std::string writer = read_pose_dump_writer(test_pose_path);
  if (writer.empty()) writer = test_vertices.record.writer;
  // A recipe's run: --recipe, or what the dumps record.
  std::string recorded_recipe = read_pose_dump_recipe(test_pose_path), recorded_by = test_pose_path;
  for (const auto& [recorded, by] : {std::pair{read_pose_dump_recipe(ref_pose_path), ref_pose_path},
                                     std::pair{test_vertices.record.animation, parsed.positionals[3]},
                                     std::pair{reference_vertices.record.animation, parsed.positionals[2]}}) {
    if (!recorded_recipe.empty()) break;
    if (recorded.rfind("recipe:", 0) == 0) {
      recorded_recipe = recorded.substr(7);
      recorded_by = by;
    } else if (by == ref_pose_path) {
      recorded_recipe = recorded;
      recorded_by = by;
    }
  }
  const std::optional<std::string> recipe_path = recipe_of(parsed, recorded_recipe, recorded_by, "bisect");
  // skinref's float32 paths do not evaluate recipes: a recipe's bounds are any-order.
  const BoundsModel bounds_model = parse_bounds(parsed, recipe_path ? std::string() : writer);
  if (recipe_path && bounds_model == BoundsModel::SkinrefOrder)
    throw UsageError("bisect: --bounds skinref-order does not apply to a recipe (skinref's float32 paths do not "
                     "evaluate recipes): its bounds are any-order");
  if (recipe_path && !same_conventions(conventions, Conventions{}))
    throw UsageError("bisect: a recipe's run is checked under glTF 2.0's conventions only");
  RecipeStages recipe_stages;
  PoseErrorBounds pose_bounds;
  if (recipe_path) {
    if (test_pose.animation >= 0)
      throw InputError(test_pose_path, "/animation", "null: a recipe's pose (--recipe " + *recipe_path + ")");
    RecipePoseBounds recipe_bounds = recipe_pose_error_bounds(scene, load_recipe(*recipe_path, scene), test_pose.time);
    pose_bounds = std::move(recipe_bounds.pose);
    recipe_stages.ik_nodes = std::move(recipe_bounds.ik_nodes);
  } else {
    pose_bounds = pose_error_bounds(bounds_model, scene, test_pose.animation, test_pose.time);
  }
  const std::vector<PrimitiveErrorBounds> vertex_bounds =
      vertex_error_bounds(bounds_model, scene, reference_pose, options, &pose_bounds);
  std::cout << "bisect " << scene.source << (recipe_path ? ", recipe " + *recipe_path : std::string()) << ": "
            << describe_bounds(bounds_model, parsed, recipe_path.has_value()) << "\n";
  // The pose dumps' own printing rounding, when they were printed with fewer than 17 digits, is part of the
  // difference of their values (not of the vertices, which the .skv dumps hold in binary).
  PoseErrorBounds printed_pose_bounds = pose_bounds;
  charge_printing_rounding(printed_pose_bounds, test_pose, test_digits);
  charge_printing_rounding(printed_pose_bounds, reference_pose, reference_digits);
  const StageDivergence divergence = bisect_stages(scene, reference_pose, &test_pose, &printed_pose_bounds,
                                                   reference_vertices.primitives, test_vertices.primitives,
                                                   vertex_bounds, recipe_path ? &recipe_stages : nullptr);

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
  if (const std::optional<std::string> report = parsed.value("--report")) {
    std::filesystem::create_directories(*report);
    nlohmann::json json{{"stage", pipeline_stage_name(divergence.stage)},
                        {"bounds", bounds_model_name(bounds_model)},
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
    if (recipe_path) json["recipe"] = *recipe_path;
    write_file_atomically((std::filesystem::path(*report) / "bisect.json").string(),
                          [&](std::ostream& out) { out << json.dump(2) << "\n"; });
  }
  return divergence.stage == PipelineStage::None ? kExitOk : kExitComparisonFailed;
}

}  // namespace skinref::cli

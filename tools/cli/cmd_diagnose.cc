// `skinref diagnose MODEL TEST.skv [TEST2.skv ...]`: which known engine conventions explain an engine's
// vertex dumps (verify/diagnose.h). Each dump is one moment of the same clip; its time comes from --time
// (one per dump, in order) or from the dump's record. Exit 0 when the dumps match glTF 2.0 (with the
// conventions given as known), 1 otherwise (the verdict names what explains them, or says nothing does), 2 for
// bad input.
#include "cli/ci_reports.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/dump_records.h"

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/gltf_load.h"
#include "io/pose_dump.h"
#include "io/vertex_dump.h"
#include "skin/method.h"
#include "verify/convention_pipeline.h"
#include "verify/diagnose.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace skinref::cli {
namespace {

// The model, loaded as the specification says; a file that needs a "no joint" sentinel loads with the first
// one that works, which becomes part of the verdict.
Scene load_for_diagnosis(const std::string& model, Conventions& base, std::string& sentinel_note) {
  try {
    return load_model_under(model, base);
  } catch (const InputError& spec_error) {
    if (base.load.joint_sentinel != JointSentinel::None) throw;
    for (const char* value : {"255", "65535"}) {
      Conventions attempt = base;
      set_convention(attempt, std::string("joint-sentinel=") + value);
      try {
        Scene scene = load_model_under(model, attempt);
        base = attempt;
        sentinel_note = std::string("loads only with joint-sentinel=") + value + " (as specified: " + spec_error.what() + ")";
        return scene;
      } catch (const InputError&) {
      }
    }
    throw;
  }
}

}  // namespace

std::string diagnose_usage() {
  return "usage: skinref diagnose MODEL TEST.skv [TEST2.skv ...] [--pose TEST_POSE.json ...] [--anim NAME|INDEX]\n"
         "         [--time T ...]\n"
         "         " + method_option_synopsis() + " [--convention NAME=VALUE ...] [--conventions FILE.json]\n"
         "         [--max-conventions N] [--bounds any-order|skinref-order] [--recipe FILE] [--report DIR]\n"
         "         [--junit FILE.xml]\n"
         "  Names the engine conventions (docs/conventions.md) that explain how an engine's vertex dumps differ\n"
         "  from glTF 2.0. It checks TEST against the specification first, then against every single convention\n"
         "  and their combinations, each re-evaluated from the stage it touches, and prints a ranked verdict, e.g.\n"
         "    matches glTF 2.0 with normals=blend-normal-matrices, rotation=nlerp: 0 of 6546 values over (as\n"
         "    specified: 6546 over)\n"
         "  or \"no known convention explains it\" with the worst vertex. Every candidate is held to the bounds of an\n"
         "  engine that computes its own animation and palette in float32 (docs/error_bounds.md). Dumps may hold\n"
         "  positions only; normals and tangents are checked where present.\n"
         "  --anim NAME|INDEX   the clip the engine played (default: the dumps' record, else the first)\n"
         "  --time T            the playback time of each dump, once per dump in order (default: each dump's\n"
         "                      record); rounded to float32\n"
         "  --pose FILE.json    the engine's pose dump (skinref's pose format) at a dump's time, in the dumps'\n"
         "                      order: when nothing explains the dumps, the first stage over its bound is then\n"
         "                      found from sampling on (the joint), else from the vertices\n"
         "  --method M          " + method_option_help() + " (default: the record, else lbs)\n"
         "  --convention NAME=VALUE, --conventions FILE   what is known of the engine: candidates add to it\n"
         "  --max-conventions N at most N conventions combined, 1 to 4 (default 3)\n"
         "  --bounds B          any-order (every correct float32 engine; the default unless skinref wrote the\n"
         "                      dumps) or skinref-order (exact for skinref's own order; tighter)\n"
         "  --recipe FILE       the engine played a recipe (default: what the dumps record): the references are\n"
         "                      the recipe's poses, held to its bounds; the conventions a recipe's evaluation\n"
         "                      takes are tried (load, key quantization, resampling, morph order, skinning)\n"
         "  --report DIR        also write DIR/diagnosis.json (every candidate ranked)\n"
         "  --junit FILE        also write a JUnit XML report: one test case per dump, with the verdict\n"
         "  On a terminal a progress line names the candidate being evaluated; nothing when not a terminal.\n"
         "  Exit status: 0 the dumps match glTF 2.0 (with the given conventions), 1 they do not (the verdict\n"
         "  says which conventions explain them), 2 unreadable or mismatched inputs or bad options.\n";
}

int run_diagnose(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions = with_convention_options(
      {{"--anim", true},
       {"--time", true, true},
       {"--pose", true, true},
       {"--method", true},
       {"--max-conventions", true},
       {"--bounds", true},
       {"--recipe", true},
       {"--report", true},
       {"--junit", true}});
  const ParsedArgs parsed = parse_args(args, kOptions, "diagnose");
  if (parsed.help) {
    std::cout << diagnose_usage();
    return kExitOk;
  }
  if (parsed.positionals.size() < 2) throw UsageError("diagnose: missing " + std::string(parsed.positionals.empty() ? "MODEL and " : "") + "TEST.skv");
  const std::string model = parsed.positionals[0];
  const std::vector<std::string> dump_paths(parsed.positionals.begin() + 1, parsed.positionals.end());
  static const std::vector<std::string> kSkv{".skv"};
  for (const std::string& path : dump_paths) require_extension(path, kSkv, "TEST");
  const std::vector<std::string> time_texts = parsed.values_of("--time");
  if (!time_texts.empty() && time_texts.size() != dump_paths.size())
    throw UsageError("diagnose: " + std::to_string(time_texts.size()) + " --time values for " +
                     std::to_string(dump_paths.size()) + " dumps: give one per dump, in order, or none");
  const std::vector<std::string> pose_paths = parsed.values_of("--pose");
  if (pose_paths.size() > dump_paths.size())
    throw UsageError("diagnose: " + std::to_string(pose_paths.size()) + " --pose dumps for " +
                     std::to_string(dump_paths.size()) + " vertex dumps: at most one per dump, in order");
  static const std::vector<std::string> kJson{".json"};
  for (const std::string& path : pose_paths) require_extension(path, kJson, "--pose");
  DiagnoseSettings settings;
  if (const std::optional<std::string> text = parsed.value("--max-conventions"))
    settings.max_settings = int(parse_integer(*text, "--max-conventions", 1, 4));
  const ConventionSelection known = parse_conventions(parsed, "diagnose");
  const std::optional<std::string> report_dir = parsed.value("--report");
  if (report_dir && report_dir->empty()) throw UsageError("diagnose: option --report needs a non-empty value");

  const auto start = std::chrono::steady_clock::now();
  std::vector<VertexDump> dumps;
  std::vector<RunFacts> facts(dump_paths.size());
  RunFacts shared;
  if (const std::optional<std::string> anim = parsed.value("--anim")) shared.animation = anim;
  if (const std::optional<std::string> method = parsed.value("--method")) shared.method = method;
  for (size_t i = 0; i < dump_paths.size(); ++i) {
    dumps.push_back(read_vertices_skv(dump_paths[i]));
    check_model_hash(model, dumps.back().record, dump_paths[i]);
    if (!time_texts.empty()) facts[i].time = parse_finite_double(time_texts[i], "--time");
    // The clip and method must be one for all dumps; the conventions a record states are the engine's claim,
    // which diagnose tests rather than assumes, so they are not merged.
    DumpRecord record = dumps.back().record;
    record.conventions.reset();
    record.palette.clear();
    record.model.clear();
    RunFacts merged = shared;
    merged.time = facts[i].time;
    merge_record(merged, record, dump_paths[i], "diagnose");
    shared.animation = merged.animation;
    shared.method = merged.method;
    facts[i].time = merged.time;
    if (!facts[i].time)
      throw UsageError("diagnose: " + dump_paths[i] + " does not record its time: give --time, once per dump");
  }
  settings.base = known.conventions;
  settings.bounds = parse_bounds(parsed, dumps.front().record.writer);
  std::string recipe_label;
  std::string sentinel_note;
  const Scene scene = load_for_diagnosis(model, settings.base, sentinel_note);
  for (size_t i = 0; i < dumps.size(); ++i) check_joint_names(scene, dumps[i].record, dump_paths[i]);
  // A recipe's run: --recipe, or the dumps' records ("animation": "recipe:FILE").
  std::string recorded_recipe, recorded_by = dump_paths.front();
  for (size_t i = 0; i < dumps.size() && recorded_recipe.empty(); ++i)
    if (dumps[i].record.animation.rfind("recipe:", 0) == 0) {
      recorded_recipe = dumps[i].record.animation.substr(7);
      recorded_by = dump_paths[i];
    }
  if (parsed.value("--recipe") && parsed.value("--anim"))
    throw UsageError("diagnose: --recipe and --anim cannot be used together (the recipe names its animations)");
  if (const std::optional<std::string> recipe_path = recipe_of(parsed, recorded_recipe, recorded_by, "diagnose")) {
    if (parsed.value("--bounds") && settings.bounds == BoundsModel::SkinrefOrder)
      throw UsageError("diagnose: --bounds skinref-order does not apply to a recipe (skinref's float32 paths do not "
                       "evaluate recipes): its bounds are any-order");
    if (!recipe_applicable(settings.base))
      throw UsageError("diagnose: a recipe's evaluation does not take the conventions " +
                       describe_conventions(settings.base) +
                       " (time mapping, sampling rules but key quantization and resampling, palette, morph weight "
                       "selection)");
    settings.recipe = load_recipe(*recipe_path, scene);
    settings.bounds = BoundsModel::AnyOrder;
    recipe_label = "recipe " + *recipe_path;
  }
  settings.animation = settings.recipe || (shared.animation && *shared.animation == "rest")
                           ? -1
                           : resolve_animation(scene, shared.animation);
  if (shared.method) {
    const std::optional<SkinningMethod> method = parse_skinning_method(*shared.method);
    if (!method) throw UsageError("diagnose: method '" + *shared.method + "' is not one of " + skinning_method_choices(", "));
    settings.method = *method;
  }
  std::vector<DiagnoseObservation> observations;
  for (size_t i = 0; i < dumps.size(); ++i) {
    std::optional<EvaluatedPose> pose;
    int pose_digits = 17;
    if (i < pose_paths.size()) {
      pose = read_pose_dump(pose_paths[i], scene, nullptr, &pose_digits);
      if (pose->animation != settings.animation)
        throw InputError(pose_paths[i], "/animation", "animation " + std::to_string(settings.animation) +
                                                          ", the one the vertex dumps played");
      if (double(float(pose->time)) != double(float(*facts[i].time)))
        throw InputError(pose_paths[i], "/time", "the time of " + dump_paths[i] + " (" +
                                                     std::to_string(*facts[i].time) + " s)");
    }
    observations.emplace_back(dump_paths[i], *facts[i].time, std::move(dumps[i].primitives), std::move(pose),
                              pose_digits);
  }

  Diagnosis diagnosis;
  ProgressLine progress(0);  // the search's length is not known in advance
  settings.on_candidate = [&](const std::string& candidate) { progress.step(candidate.empty() ? "glTF 2.0" : candidate); };
  const std::optional<std::string> junit_path = parsed.value("--junit");
  std::optional<TeeOutput> tee;
  try {
    diagnosis = diagnose(scene, observations, settings);
    progress.finish();
  } catch (const InputError& error) {
    throw InputError(error.file().empty() ? dump_paths.front() : error.file(), error.json_path(),
                     error.expected() + " (model " + model + ")");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (junit_path) tee.emplace();
  std::cout << "diagnose " << model << ", "
            << (!recipe_label.empty() ? recipe_label
                : settings.animation < 0 ? std::string("rest pose") : "animation " + std::to_string(settings.animation))
            << ", " << skinning_method_name(settings.method) << ", " << describe_bounds(settings.bounds, parsed, settings.recipe.has_value()) << ", "
            << observations.size() << " dump(s) at t =";
  for (const DiagnoseObservation& o : observations) {
    char text[32];
    std::snprintf(text, sizeof text, " %.9g", double(float(o.time)));
    std::cout << text;
  }
  std::cout << "\n";
  if (!sentinel_note.empty()) std::cout << "  the model " << sentinel_note << "\n";
  print_diagnosis(diagnosis, std::cout);
  char timing[64];
  std::snprintf(timing, sizeof timing, "  took %.2f s\n", seconds);
  std::cout << timing;
  if (report_dir) {
    std::error_code error;
    std::filesystem::create_directories(*report_dir, error);
    if (error || !std::filesystem::is_directory(*report_dir))
      throw std::runtime_error("option --report: cannot create the directory " + *report_dir);
    nlohmann::ordered_json json = diagnosis_json(diagnosis);
    json["model"] = model;
    json["animation"] = settings.animation;
    json["method"] = skinning_method_name(settings.method);
    json["bounds"] = bounds_model_name(settings.bounds);
    if (!recipe_label.empty()) json["recipe"] = recipe_label.substr(7);
    json["conventions_known"] = conventions_to_json(known.conventions);
    nlohmann::ordered_json dumps_json = nlohmann::ordered_json::array();
    for (const DiagnoseObservation& o : observations) dumps_json.push_back({{"path", o.label}, {"time", o.time}});
    json["dumps"] = dumps_json;
    json["seconds"] = seconds;
    write_file_atomically((std::filesystem::path(*report_dir) / "diagnosis.json").string(),
                          [&](std::ostream& out) { out << json.dump(2) << "\n"; });
    std::cout << "report: " << (std::filesystem::path(*report_dir) / "diagnosis.json").string() << "\n";
  }
  const bool matches = diagnosis.matches_specification && sentinel_note.empty();
  const int exit_code = matches ? kExitOk : kExitComparisonFailed;
  if (junit_path) {
    // One test case per dump, each carrying the verdict the dumps share (diagnose explains them together).
    const std::string output = tee->text();
    tee.reset();
    std::vector<JunitCase> cases;
    for (const std::string& path : dump_paths)
      cases.push_back(junit_from_output("skinref.diagnose." + model, path, seconds / double(dump_paths.size()),
                                        exit_code, output));
    write_junit(*junit_path, "skinref diagnose " + model, cases, output);
    std::cout << "JUnit: " << *junit_path << "\n";
  }
  return exit_code;
}

}  // namespace skinref::cli

// `skinref diagnose MODEL TEST.skv [TEST2.skv ...]`: which known engine conventions explain an engine's
// vertex dumps (verify/diagnose.h). Each dump is one moment of the same clip; its time comes from --time
// (one per dump, in order) or from the dump's record. Exit 0 when the dumps match glTF 2.0 (with the
// conventions given as known), 1 otherwise (the verdict names what explains them, or says nothing does), 2 for
// bad input.
#include "ci_report/ci_reports.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/dump_records.h"
#include "cli/option_groups.h"

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/assimp_import.h"
#include "io/gltf_load.h"
#include "io/load_model.h"
#include "io/pose_dump.h"
#include "io/vertex_dump.h"
#include "profile/engine_profile.h"
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


// What the command line asks for, read before any dump or model so that usage errors come first.
struct DiagnoseOptions {
  std::string model;
  std::vector<std::string> dump_paths;
  std::vector<std::string> time_texts;  // --time, one per dump or none
  std::vector<std::string> pose_paths;  // --pose, at most one per dump
  int max_conventions = DiagnoseSettings{}.max_settings;
  ConventionSelection known;
  std::optional<EngineProfile> profile;
  std::optional<std::string> anim, method, report_dir, junit_path;
};

DiagnoseOptions parse_diagnose_args(const ParsedArgs& parsed) {
  if (parsed.positionals.size() < 2) throw UsageError("diagnose: missing " + std::string(parsed.positionals.empty() ? "MODEL and " : "") + "TEST.skv");
  DiagnoseOptions options;
  options.model = parsed.positionals[0];
  options.dump_paths.assign(parsed.positionals.begin() + 1, parsed.positionals.end());
  static const std::vector<std::string> kSkv{".skv"};
  for (const std::string& path : options.dump_paths) require_extension(path, kSkv, "TEST");
  options.time_texts = parsed.values_of("--time");
  if (!options.time_texts.empty() && options.time_texts.size() != options.dump_paths.size())
    throw UsageError("diagnose: " + std::to_string(options.time_texts.size()) + " --time values for " +
                     std::to_string(options.dump_paths.size()) + " dumps: give one per dump, in order, or none");
  options.pose_paths = parsed.values_of("--pose");
  if (options.pose_paths.size() > options.dump_paths.size())
    throw UsageError("diagnose: " + std::to_string(options.pose_paths.size()) + " --pose dumps for " +
                     std::to_string(options.dump_paths.size()) + " vertex dumps: at most one per dump, in order");
  static const std::vector<std::string> kJson{".json"};
  for (const std::string& path : options.pose_paths) require_extension(path, kJson, "--pose");
  if (const std::optional<std::string> text = parsed.value("--max-conventions"))
    options.max_conventions = int(parse_integer(*text, "--max-conventions", 1, 4));
  options.known = parse_conventions(parsed, "diagnose");
  if (const std::optional<std::string> path = parsed.value("--profile")) {
    // The engine's profile (conformance run's profile.json): its conventions are known, its allowances widen.
    options.profile = read_engine_profile(*path);
    for (const std::string& assignment : options.profile->settings) {
      const std::string name = assignment.substr(0, assignment.find('='));
      const std::string given = find_convention_field(name)->get(options.known.conventions);
      if (given != find_convention_field(name)->get(Conventions{}) && name + "=" + given != assignment)
        throw UsageError("diagnose: --profile " + *path + " says " + assignment + ", the conventions given say " +
                         name + "=" + given);
      set_convention(options.known.conventions, assignment);
    }
  }
  options.report_dir = parsed.value("--report");
  if (options.report_dir && options.report_dir->empty()) throw UsageError("diagnose: option --report needs a non-empty value");
  options.anim = parsed.value("--anim");
  options.method = parsed.value("--method");
  options.junit_path = parsed.value("--junit");
  return options;
}

// The vertex dumps, each with its playback time, and the clip and method they share (options, then records).
struct RecordedDumps {
  std::vector<VertexDump> dumps;
  std::vector<double> times;
  RunFacts shared;  // animation and method
};

RecordedDumps read_recorded_dumps(const DiagnoseOptions& options) {
  RecordedDumps recorded;
  const std::vector<std::string>& dump_paths = options.dump_paths;
  if (options.anim) recorded.shared.animation = options.anim;
  if (options.method) recorded.shared.method = options.method;
  for (size_t i = 0; i < dump_paths.size(); ++i) {
    recorded.dumps.push_back(read_vertices_skv(dump_paths[i]));
    check_model_hash(options.model, recorded.dumps.back().record, dump_paths[i]);
    std::optional<double> time;
    if (!options.time_texts.empty()) time = parse_finite_double(options.time_texts[i], "--time");
    // The clip and method must be one for all dumps; the conventions a record states are the engine's claim,
    // which diagnose tests rather than assumes, so they are not merged.
    DumpRecord record = recorded.dumps.back().record;
    record.conventions.reset();
    record.palette.clear();
    record.model.clear();
    RunFacts merged = recorded.shared;
    merged.time = time;
    merge_record(merged, record, dump_paths[i], "diagnose");
    recorded.shared.animation = merged.animation;
    recorded.shared.method = merged.method;
    if (!merged.time)
      throw UsageError("diagnose: " + dump_paths[i] + " does not record its time: give --time, once per dump");
    recorded.times.push_back(*merged.time);
  }
  return recorded;
}

// The model and the settings of the search: what is known of the engine, the bounds, the recipe or clip, the
// method.
struct DiagnoseSetup {
  Scene scene;
  DiagnoseSettings settings;
  std::string recipe_label;   // "recipe FILE" when the engine played one
  std::string sentinel_note;  // load_for_diagnosis()
};

// A recipe's run as the dumps record it ("animation": "recipe:FILE"): the recipe and the dump that says so.
std::pair<std::string, std::string> recorded_recipe(const RecordedDumps& recorded, const DiagnoseOptions& options) {
  std::string recipe, recorded_by = options.dump_paths.front();
  for (size_t i = 0; i < recorded.dumps.size() && recipe.empty(); ++i)
    if (recorded.dumps[i].record.animation.rfind("recipe:", 0) == 0) {
      recipe = recorded.dumps[i].record.animation.substr(7);
      recorded_by = options.dump_paths[i];
    }
  return {recipe, recorded_by};
}

DiagnoseSetup set_up_diagnosis(const ParsedArgs& parsed, const DiagnoseOptions& options, const RecordedDumps& recorded) {
  DiagnoseSetup setup;
  DiagnoseSettings& settings = setup.settings;
  settings.max_settings = options.max_conventions;
  settings.base = options.known.conventions;
  if (options.profile) settings.allowances = options.profile->allowances;
  settings.bounds = parse_bounds(parsed, recorded.dumps.front().record.writer);
  setup.scene = load_for_diagnosis(options.model, settings.base, setup.sentinel_note);
  // Only glTF's own accessors can be read otherwise (accessor addressing, sparse).
  if (options.model.rfind("builtin:", 0) != 0 && !is_assimp_path(options.model))
    settings.reload = [model = options.model](const LoadConventions& reading) { return load_model(model, reading); };
  for (size_t i = 0; i < recorded.dumps.size(); ++i)
    check_joint_names(setup.scene, recorded.dumps[i].record, options.dump_paths[i]);
  // A recipe's run: --recipe, or the dumps' records.
  const auto [recipe, recorded_by] = recorded_recipe(recorded, options);
  if (parsed.value("--recipe") && parsed.value("--anim"))
    throw UsageError("diagnose: --recipe and --anim cannot be used together (the recipe names its animations)");
  if (const std::optional<std::string> recipe_path = recipe_of(parsed, recipe, recorded_by, "diagnose")) {
    if (parsed.value("--bounds") && settings.bounds == BoundsModel::SkinrefOrder)
      throw UsageError("diagnose: --bounds skinref-order does not apply to a recipe (skinref's float32 paths do not "
                       "evaluate recipes): its bounds are any-order");
    if (!recipe_applicable(settings.base))
      throw UsageError("diagnose: a recipe's evaluation does not take the conventions " +
                       describe_conventions(settings.base) +
                       " (time mapping, sampling rules but key quantization and resampling, palette, morph weight "
                       "selection)");
    settings.recipe = load_recipe(*recipe_path, setup.scene);
    settings.bounds = BoundsModel::AnyOrder;
    setup.recipe_label = "recipe " + *recipe_path;
  }
  const RunFacts& shared = recorded.shared;
  settings.animation = settings.recipe || (shared.animation && *shared.animation == "rest")
                           ? -1
                           : resolve_animation(setup.scene, shared.animation);
  if (shared.method) {
    const std::optional<SkinningMethod> method = parse_skinning_method(*shared.method);
    if (!method) throw UsageError("diagnose: method '" + *shared.method + "' is not one of " + skinning_method_choices(", "));
    settings.method = *method;
  }
  return setup;
}

// One observation per vertex dump (its vertices are moved out of `recorded`), with the engine's pose dump at
// its time when --pose gives one.
std::vector<DiagnoseObservation> observations_of(RecordedDumps& recorded, const DiagnoseOptions& options,
                                                 const Scene& scene, int animation) {
  std::vector<DiagnoseObservation> observations;
  for (size_t i = 0; i < recorded.dumps.size(); ++i) {
    std::optional<EvaluatedPose> pose;
    int pose_digits = 17;
    if (i < options.pose_paths.size()) {
      const std::string& pose_path = options.pose_paths[i];
      pose = read_pose_dump(pose_path, scene, nullptr, &pose_digits);
      if (pose->animation != animation)
        throw InputError(pose_path, "/animation", "animation " + std::to_string(animation) +
                                                      ", the one the vertex dumps played");
      if (double(float(pose->time)) != double(float(recorded.times[i])))
        throw InputError(pose_path, "/time", "the time of " + options.dump_paths[i] + " (" +
                                                 std::to_string(recorded.times[i]) + " s)");
    }
    observations.emplace_back(options.dump_paths[i], recorded.times[i], std::move(recorded.dumps[i].primitives),
                              std::move(pose), pose_digits);
  }
  return observations;
}

// The search, with a progress line on a terminal; an input problem it finds names the dump and the model.
// `settings` is a copy: the progress callback lives only as long as the search.
Diagnosis diagnose_dumps(const Scene& scene, const std::vector<DiagnoseObservation>& observations,
                         DiagnoseSettings settings, const DiagnoseOptions& options) {
  ProgressLine progress(0);  // the search's length is not known in advance
  settings.on_candidate = [&](const std::string& candidate) { progress.step(candidate.empty() ? "glTF 2.0" : candidate); };
  try {
    Diagnosis diagnosis = diagnose(scene, observations, settings);
    progress.finish();
    return diagnosis;
  } catch (const InputError& error) {
    throw InputError(error.file().empty() ? options.dump_paths.front() : error.file(), error.json_path(),
                     error.expected() + " (model " + options.model + ")");
  }
}

void print_diagnosis_summary(const ParsedArgs& parsed, const DiagnoseOptions& options, const DiagnoseSetup& setup,
                             const std::vector<DiagnoseObservation>& observations, const Diagnosis& diagnosis,
                             double seconds) {
  const DiagnoseSettings& settings = setup.settings;
  std::cout << "diagnose " << options.model << ", "
            << (!setup.recipe_label.empty() ? setup.recipe_label
                : settings.animation < 0 ? std::string("rest pose") : "animation " + std::to_string(settings.animation))
            << ", " << skinning_method_name(settings.method) << ", " << describe_bounds(settings.bounds, parsed, settings.recipe.has_value()) << ", "
            << observations.size() << " dump(s) at t =";
  for (const DiagnoseObservation& o : observations) {
    char text[32];
    std::snprintf(text, sizeof text, " %.9g", double(float(o.time)));
    std::cout << text;
  }
  std::cout << "\n";
  if (!setup.sentinel_note.empty()) std::cout << "  the model " << setup.sentinel_note << "\n";
  print_diagnosis(diagnosis, std::cout);
  char timing[64];
  std::snprintf(timing, sizeof timing, "  took %.2f s\n", seconds);
  std::cout << timing;
}

// --report DIR: DIR/diagnosis.json, every candidate ranked, with what the run was.
void write_diagnosis_report(const std::string& report_dir, const DiagnoseOptions& options, const DiagnoseSetup& setup,
                            const std::vector<DiagnoseObservation>& observations, const Diagnosis& diagnosis,
                            double seconds) {
  const DiagnoseSettings& settings = setup.settings;
  std::error_code error;
  std::filesystem::create_directories(report_dir, error);
  if (error || !std::filesystem::is_directory(report_dir))
    throw std::runtime_error("option --report: cannot create the directory " + report_dir);
  nlohmann::ordered_json json = diagnosis_json(diagnosis);
  json["model"] = options.model;
  json["animation"] = settings.animation;
  json["method"] = skinning_method_name(settings.method);
  json["bounds"] = bounds_model_name(settings.bounds);
  if (!setup.recipe_label.empty()) json["recipe"] = setup.recipe_label.substr(7);
  json["conventions_known"] = conventions_to_json(options.known.conventions);
  nlohmann::ordered_json dumps_json = nlohmann::ordered_json::array();
  for (const DiagnoseObservation& o : observations) dumps_json.push_back({{"path", o.label}, {"time", o.time}});
  json["dumps"] = dumps_json;
  json["seconds"] = seconds;
  write_file_atomically((std::filesystem::path(report_dir) / "diagnosis.json").string(),
                        [&](std::ostream& out) { out << json.dump(2) << "\n"; });
  std::cout << "report: " << (std::filesystem::path(report_dir) / "diagnosis.json").string() << "\n";
}

// --junit FILE: one test case per dump, each carrying the verdict the dumps share (diagnose explains them
// together), with what the command printed.
void write_diagnosis_junit(const std::string& junit_path, const DiagnoseOptions& options, const std::string& output,
                           double seconds, int exit_code) {
  std::vector<JunitCase> cases;
  for (const std::string& path : options.dump_paths)
    cases.push_back(junit_from_output("skinref.diagnose." + options.model, path,
                                      seconds / double(options.dump_paths.size()), exit_code, output));
  write_junit(junit_path, "skinref diagnose " + options.model, cases, output);
  std::cout << "JUnit: " << junit_path << "\n";
}

int run_diagnose(const ParsedArgs& parsed) {
  const DiagnoseOptions options = parse_diagnose_args(parsed);

  const auto start = std::chrono::steady_clock::now();
  RecordedDumps recorded = read_recorded_dumps(options);
  const DiagnoseSetup setup = set_up_diagnosis(parsed, options, recorded);
  const std::vector<DiagnoseObservation> observations =
      observations_of(recorded, options, setup.scene, setup.settings.animation);
  const Diagnosis diagnosis = diagnose_dumps(setup.scene, observations, setup.settings, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::optional<TeeOutput> tee;
  if (options.junit_path) tee.emplace();
  print_diagnosis_summary(parsed, options, setup, observations, diagnosis, seconds);
  if (options.report_dir) write_diagnosis_report(*options.report_dir, options, setup, observations, diagnosis, seconds);
  const bool matches = diagnosis.matches_specification && setup.sentinel_note.empty();
  const int exit_code = matches ? kExitOk : kExitComparisonFailed;
  if (options.junit_path) {
    const std::string output = tee->text();
    tee.reset();
    write_diagnosis_junit(*options.junit_path, options, output, seconds, exit_code);
  }
  return exit_code;
}

// diagnose's own options: what the engine played and what is known of it, and the search's limits.
std::vector<OptionDecl> diagnose_options() {
  const OptionDecl method = recorded_method_option("What the engine used", "the dumps");
  return {
      {"--anim", "NAME|INDEX", "The clip the engine played (an integer is an index); default: what the dumps "
                               "record, else the first. Not with --recipe."},
      {"--time", "SECONDS", "The playback time of a dump, rounded to float32: once per dump, in the dumps' order; "
                            "default: each dump's record.", {}, "", true},
      {"--pose", "TEST_POSE.json", "The engine's pose dump (skinref's pose format) at a dump's time, at most one per "
                                   "dump, in the dumps' order: when nothing explains the dumps, the first stage over "
                                   "its bound is then found from sampling on (the joint), else from the vertices.",
       {}, "", true},
      method,
      {"--profile", "FILE.json", "The engine's profile (a conformance run's profile.json): its conventions are "
                                 "known, and its allowances widen every candidate's bounds."},
      {"--max-conventions", "N", "At most N conventions combined in a candidate, 1 to 4.", {},
       std::to_string(DiagnoseSettings{}.max_settings)},
      bounds_option(),
      {"--recipe", "FILE", "The engine played a recipe (default: what the dumps record): the references are the "
                           "recipe's poses, held to its bounds, and the conventions a recipe's evaluation takes are "
                           "tried (load, key quantization, resampling, morph order, skinning)."},
      {"--report", "DIR", "Also write DIR/diagnosis.json: every candidate ranked, with what the run was."},
      {"--junit", "FILE.xml", "Also write a JUnit XML report: one test case per dump, with the verdict."},
  };
}

}  // namespace

CommandDecl diagnose_command() {
  return {"diagnose",
          "name the engine conventions that explain an engine's vertex dumps",
          {"MODEL TEST.skv [TEST2.skv ...] [--pose TEST_POSE.json ...] [--anim NAME|INDEX] [--time SECONDS ...] "
           "[OPTIONS]"},
          "Names the engine conventions (docs/conventions.md) that explain how an engine's vertex dumps differ from "
          "glTF 2.0. Each dump is one moment of the same clip. It checks the dumps against the specification first, "
          "then against every single convention and their combinations, each re-evaluated from the stage it "
          "touches, and prints a ranked verdict, e.g.\n"
          "\"matches glTF 2.0 with normals=blend-normal-matrices, rotation=nlerp: 0 of 6546 values over (as "
          "specified: 6546 over)\"\n"
          "or \"no known convention or mistake explains it\" with the worst vertex. Every candidate is held to the "
          "bounds of an engine that computes its own animation and palette in float32 (docs/error_bounds.md). Dumps "
          "may hold positions only; normals and tangents are checked where present.\n"
          "--convention, --conventions, --weights and --normals say what is known of the engine: the candidates add "
          "to it.\n"
          "On a terminal a progress line names the candidate being evaluated; nothing when not a terminal.\n"
          "Exit status: 0 the dumps match glTF 2.0 (with the given conventions), 1 they do not (the verdict says "
          "which conventions explain them), 2 unreadable or mismatched inputs or bad options.",
          joined(diagnose_options(), {convention_options()}),
          run_diagnose};
}

}  // namespace skinref::cli

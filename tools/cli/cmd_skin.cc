// `skinref skin MODEL ... --out FILE.(json|skv|ply)`: evaluates a model at one time through the whole
// reference pipeline and dumps the world-space vertices of every drawn primitive (vertex_dump.h).
#include "cli/backend_args.h"
#include "cli/cli_args.h"
#include "cli/choices.h"
#include "cli/commands.h"
#include "cli/option_groups.h"
#include "conformance/queries_file.h"
#include "conformance/runner.h"

#include "core/vertices.h"
#include "io/gltf_load.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "skin/options.h"
#include "verify/convention_pipeline.h"

#include <iostream>
#include <memory>
#include <optional>

namespace skinref::cli {
namespace {

// What every skinning of one command shares: the dump's precision, the conventions, the options and the backend.
struct SkinSetup {
  DumpPrecision precision = DumpPrecision::F64;
  Conventions conventions;
  SkinningOptions options;
  BackendOptions backend_options;
  ImportOptions import_options;
  bool convention_path = false;
  std::unique_ptr<Backend> backend;
};

SkinSetup parse_skin_setup(const ParsedArgs& parsed, const PoseSelection& selection) {
  SkinSetup setup;
  if (const std::optional<std::string> text = parsed.value("--precision")) {
    setup.precision = choice_value(kPrecisions, *text, "--precision");
  }
  setup.conventions = parse_conventions(parsed, "skin").conventions;
  setup.options = skinning_options_under(parse_skinning_options(parsed), setup.conventions.skinning);
  if (const std::optional<std::string> text = parsed.value("--threads")) {
    setup.options.threads = static_cast<int>(parse_integer(*text, "--threads", 1, kMaxThreads));
  }
  if (const std::optional<std::string> text = parsed.value("--cpu-kernel")) {
    setup.options.kernel = choice_value(kCpuKernels, *text, "--cpu-kernel");
    if (parsed.value("--backend").value_or("") != "cpu") throw UsageError("skin: --cpu-kernel needs --backend cpu");
  }
  setup.backend_options = parse_backend(parsed, selection, "skin", false);
  if (setup.backend_options.kind != BackendKind::Reference) {
    // Both compute in float32: an f64 dump would only widen those floats and suggest a precision they lack.
    if (parsed.value("--precision") && setup.precision == DumpPrecision::F64)
      throw UsageError(std::string("skin: --precision f64: the ") + backend_name(setup.backend_options.kind) +
                       " backend computes in float32 and writes f32 dumps");
    setup.precision = DumpPrecision::F32;
  }
  setup.convention_path = conventions_need_reference_backend(setup.conventions);
  if (setup.convention_path) refuse_conventions_off_reference(setup.backend_options, selection, setup.conventions, "skin");
  setup.import_options = parse_import_options(parsed);
  // Before the model loads, so that an unknown --device is reported at once.
  setup.backend = make_backend(setup.backend_options);
  return setup;
}

// Skins `scene` (loaded from `model`) at `selection` and writes the dump to `out_path`; returns what was written, for the log.
std::string skin_one(const SkinSetup& setup, const Scene& scene, const std::string& model,
                     const PoseSelection& selection, const std::string& out_path) {
  const SelectedPose selected = setup.convention_path ? convention_pose(scene, selection, setup.conventions)
                                                      : backend_pose(*setup.backend, scene, selection);
  VertexDump dump;
  dump.precision = setup.precision;
  dump.primitives = setup.convention_path ? evaluate_vertices(scene, selected.pose, setup.options, setup.conventions)
                                          : setup.backend->vertices(scene, selected.pose, setup.options);
  setup.backend->finish();
  dump.record = dump_record_of(model, selection, selected.pose, setup.options, setup.backend_options, setup.conventions);
  write_vertex_dump(scene, dump, out_path);
  size_t vertex_total = 0;
  for (const WorldPrimitive& primitive : dump.primitives) vertex_total += primitive.vertices.positions.size();
  return "wrote " + out_path + ": " + std::to_string(dump.primitives.size()) + " primitives, " +
         std::to_string(vertex_total) + " vertices, " + selected.description + setup.backend->summary();
}

// --queries FILE: every query of a conformance batch (conformance/queries_file.h) with one backend, one line
// "CASE at t = T: ..." each. A query that fails says why on its line and the others go on; the exit status is
// then 2 (the runner judges each query by its dump).
int run_skin_queries(const ParsedArgs& parsed, const std::string& queries_path) {
  for (const char* option : {"--out", "--anim", "--time", "--recipe", "--pose"})
    if (parsed.value(option))
      throw UsageError(std::string("skin: ") + option + " with --queries: each query names its model, animation, "
                       "time and output");
  if (!parsed.positionals.empty()) throw UsageError("skin: MODEL with --queries: each query names its model");
  const std::vector<conformance::Query> queries = conformance::read_queries_file(queries_path);
  PoseSelection representative;
  representative.anim = "0";
  const SkinSetup setup = parse_skin_setup(parsed, representative);
  size_t failed = 0;
  // A case's times come one after another: its model is loaded once for them.
  std::optional<Scene> scene;
  std::string loaded_model;
  for (const conformance::Query& query : queries) {
    PoseSelection selection;
    selection.anim = std::to_string(query.animation);
    selection.time = query.time;
    std::cout << query.case_id << " at t = " << conformance::time_text(query.time) << ": " << std::flush;
    try {
      if (!scene || loaded_model != query.model) {
        scene.reset();
        scene = load_model_under(query.model, setup.conventions, setup.import_options);
        loaded_model = query.model;
      }
      std::cout << skin_one(setup, *scene, query.model, selection, query.out) << "\n";
    } catch (const std::exception& error) {
      ++failed;
      std::cout << "skinref: " << error.what() << "\n";
    }
  }
  std::cout << "skinned " << queries.size() - failed << " of " << queries.size() << " queries of " << queries_path
            << "\n";
  return failed == 0 ? kExitOk : kExitBadInput;
}

int run_skin(const ParsedArgs& parsed) {
  if (const std::optional<std::string> queries = parsed.value("--queries")) return run_skin_queries(parsed, *queries);
  // Every check that needs no model comes first, so that usage errors do not wait for a load.
  require_positionals(parsed, 1, "MODEL", "skin");
  const std::string out_path = require_value(parsed, "--out", "skin");
  static const std::vector<std::string> kExtensions{".json", ".skv", ".ply"};
  require_extension(out_path, kExtensions, "--out");
  const PoseSelection selection = parse_pose_selection(parsed, "skin");
  const SkinSetup setup = parse_skin_setup(parsed, selection);
  const Scene scene = load_model_under(parsed.positionals[0], setup.conventions, setup.import_options);
  std::cout << skin_one(setup, scene, parsed.positionals[0], selection, out_path) << "\n";
  return kExitOk;
}

}  // namespace

CommandDecl skin_command() {
  std::vector<OptionDecl> own{
      {"--out", "FILE.json|FILE.skv|FILE.ply", "The dump: .json, .skv (binary) or .ply (for viewers); required "
                                               "(but with --queries); written atomically."},
      {"--precision", "f32|f64", "The values of a .json or .skv dump (.ply is always float); cpu and vulkan dumps "
                                 "are f32, so f64 is refused there.", choice_names(kPrecisions), "f64"},
      method_option(),
      threads_option(),
      {"--cpu-kernel", "auto|scalar|avx2|avx512", "With --backend cpu: the instruction set of its kernel; auto "
                                                  "times AVX-512 and AVX2 on the first 4,096 vertices and keeps "
                                                  "the faster (docs/cpu.md). Every kernel gives the same bits.",
       choice_names(kCpuKernels), "auto"},
      {"--queries", "FILE.json", "A conformance batch (docs/conformance.md): every query's model, animation and "
                                 "time with one backend, each dump to the query's out, a line per query; exit 2 if "
                                 "one failed (its line says why), the others written. For `conformance run "
                                 "--batch`; not with MODEL, --anim, --time, --recipe, --pose or --out."},
  };
  return {"skin",
          "dump skinned world-space vertices as .json, .skv or .ply",
          {"MODEL [--anim NAME|INDEX | --recipe FILE | --pose rest|bind] [--time SECONDS] --out FILE [OPTIONS]",
           "--queries FILE.json [OPTIONS]"},
          "Skins MODEL (a .gltf/.glb path, an FBX, Collada or other file Assimp reads, or builtin:NAME) at one time "
          "and writes the world-space positions, normals and tangents of every drawn primitive. Conventions beyond "
          "weights=sum and normals=blend-normal-matrices run on the reference backend, one clip: not with --recipe.",
          joined(std::move(own), {pose_selection_options(), convention_options(),
                                  backend_options(BackendUse::Skinning), import_options()}),
          run_skin};
}

}  // namespace skinref::cli

// `skinref skin MODEL ... --out FILE.(json|skv|ply)`: evaluates a model at one time through the whole
// reference pipeline and dumps the world-space vertices of every drawn primitive (vertex_dump.h).
#include "cli/backend_args.h"
#include "cli/cli_args.h"
#include "cli/commands.h"

#include "core/vertices.h"
#include "io/gltf_load.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "skin/options.h"
#include "verify/convention_pipeline.h"

#include <iostream>

namespace skinref::cli {
std::string skin_usage() {
  return "usage: skinref skin MODEL [--anim NAME|INDEX | --recipe FILE | --pose rest|bind] [--time SECONDS]\n"
         "         [--precision f32|f64]\n"
         "         [--convention NAME=VALUE ...] [--conventions FILE.json]\n"
         "         [--weights as-stored|renormalize] [--normals inverse-transpose|blend-normal-matrices]\n"
         "         " + method_option_synopsis() + " [--threads N]\n"
         "         [--backend reference|cpu|vulkan [--device NAME|INDEX] [--validate] [--palette reference|gpu]\n"
         "                    [--shader FILE.spv|FILE.comp|FILE.hlsl --interface FILE.json]]\n"
         "         --out FILE.json|FILE.skv|FILE.ply\n"
         "  Skins MODEL (a .gltf/.glb path, an FBX, Collada or other file Assimp reads, or builtin:NAME) at one\n"
         "  time and writes the world-space positions, normals and tangents of every drawn primitive.\n"
         "  --anim NAME|INDEX   animation to sample (an integer is an index); default: the first, or the rest\n"
         "                      pose when the model has none\n"
         "  --recipe FILE       a pose recipe (JSON: layers, cross-fades, additives, IK) instead of --anim\n"
         "  --time SECONDS      sampling time, a finite number; default 0, or the recipe's time (which it overrides)\n"
         + still_pose_option_help() +
         "  --precision P       f64 (default) or f32 values in the .json/.skv dump (.ply is always float)\n"
         + convention_option_help() +
         "                      (conventions beyond weights=sum and normals=blend-normal-matrices run on the\n"
         "                      reference backend, one clip: not with --recipe)\n"
         "  --method M          " + method_option_help() + "\n"
         "                      (--normals applies to lbs only)\n"
         "  --threads N         worker threads, 1 to 1024 (default 1); the output does not depend on it\n"
         "  --backend B         reference (default: the double-precision CPU reference), cpu (the fast float32 CPU\n"
         "                      backend: SIMD, --threads; the reference's pose) or vulkan (compute shaders in\n"
         "                      float32); cpu and vulkan dumps are always f32, so --precision f64 is refused\n"
         "  --device NAME|INDEX the Vulkan device, by index or a substring of its name (see skinref devices);\n"
         "                      default: the first discrete GPU, else integrated, else the first\n"
"  --validate          enable the Vulkan validation layer; any warning or error it reports fails the run\n"
         "  --palette P         with --backend vulkan: reference (default: the reference's pose and palettes, in\n"
         "                      float32) or gpu (sampling, local to model and palettes in a compute pass too, at\n"
         "                      the float32 time; one clip: not with --recipe)\n"
         "  --shader FILE       with --backend vulkan: your own skinning compute shader in place of skinref's\n"
         "                      (SPIR-V, or GLSL/HLSL compiled with glslc), checked against --interface FILE.json\n"
         "                      by SPIR-V reflection; the dump records writer \"user shader FILE\", which compare\n"
         "                      and diagnose hold to the any-order bounds (docs/vulkan.md)\n"
         "  --out FILE          .json, .skv (binary) or .ply (for viewers); required; written atomically\n";
}

int run_skin(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--anim", true},    {"--time", true},    {"--precision", true},
                                                {"--weights", true}, {"--normals", true}, {"--threads", true},
                                                {"--method", true},  {"--recipe", true}, {"--pose", true},
                                                {"--out", true}};
  static const std::vector<OptionSpec> kAllOptions = with_import_options(with_convention_options(with_backend_options(kOptions, true)));
  const ParsedArgs parsed = parse_args(args, kAllOptions, "skin");
  if (parsed.help) {
    std::cout << skin_usage();
    return kExitOk;
  }
  // Every check that needs no model comes first, so that usage errors do not wait for a load.
  require_positionals(parsed, 1, "MODEL", "skin");
  const std::string out_path = require_value(parsed, "--out", "skin");
  static const std::vector<std::string> kExtensions{".json", ".skv", ".ply"};
  require_extension(out_path, kExtensions, "--out");

  const PoseSelection selection = parse_pose_selection(parsed, "skin");

  VertexDump dump;
  if (const std::optional<std::string> text = parsed.value("--precision")) {
    static const std::vector<std::string> kChoices{"f32", "f64"};
    dump.precision = parse_choice(*text, "--precision", kChoices) == 0 ? DumpPrecision::F32 : DumpPrecision::F64;
  }
  const Conventions conventions = parse_conventions(parsed, "skin").conventions;
  SkinningOptions options = skinning_options_under(parse_skinning_options(parsed), conventions.skinning);
  if (const std::optional<std::string> text = parsed.value("--threads")) {
    options.threads = static_cast<int>(parse_integer(*text, "--threads", 1, kMaxThreads));
  }
  const BackendOptions backend_options = parse_backend(parsed, selection, "skin", false);
  if (backend_options.kind != BackendKind::Reference) {
    // Both compute in float32: an f64 dump would only widen those floats and suggest a precision they lack.
    if (parsed.value("--precision") && dump.precision == DumpPrecision::F64)
      throw UsageError(std::string("skin: --precision f64: the ") + backend_name(backend_options.kind) +
                       " backend computes in float32 and writes f32 dumps");
    dump.precision = DumpPrecision::F32;
  }
  const bool convention_path = conventions_need_reference_backend(conventions);
  if (convention_path) refuse_conventions_off_reference(backend_options, selection, conventions, "skin");
  // Before the model loads, so that an unknown --device is reported at once.
  const std::unique_ptr<Backend> backend = make_backend(backend_options);

  const Scene scene = load_model_under(parsed.positionals[0], conventions, parse_import_options(parsed));
  const SelectedPose selected =
      convention_path ? convention_pose(scene, selection, conventions) : backend_pose(*backend, scene, selection);
  dump.primitives = convention_path ? evaluate_vertices(scene, selected.pose, options, conventions)
                                    : backend->vertices(scene, selected.pose, options);
  backend->finish();
  dump.record = dump_record_of(parsed.positionals[0], selection, selected.pose, options, backend_options, conventions);
  write_vertex_dump(scene, dump, out_path);

  size_t vertex_total = 0;
  for (const WorldPrimitive& primitive : dump.primitives) vertex_total += primitive.vertices.positions.size();
  std::cout << "wrote " << out_path << ": " << dump.primitives.size() << " primitives, " << vertex_total
            << " vertices, " << selected.description << backend->summary() << "\n";
  return kExitOk;
}

}  // namespace skinref::cli

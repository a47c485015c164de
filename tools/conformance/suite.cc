#include "conformance/suite.h"

#include "anim/evaluate_pose.h"
#include "core/atomic_file.h"
#include "core/conventions.h"
#include "io/gltf_load.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "verify/bounds_model.h"
#include "verify/convention_pipeline.h"
#include "verify/vertex_compare.h"
#include "verify/verify_run.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace skinref::conformance {
namespace {

using Json = nlohmann::ordered_json;

// The bounds an engine's outputs are held to: those of every correct float32 engine, whatever its order of
// operations (verify/bounds_model.h).
constexpr BoundsModel kSuiteBounds = BoundsModel::AnyOrder;

int case_animation(const Scene& scene) { return scene.animations.empty() ? -1 : 0; }

}  // namespace

TimeReference evaluate_reference(const Scene& scene, const ConformanceCase& definition, double time) {
  TimeReference reference;
  RunPose run;  // glTF 2.0's conventions, and the engine's own pose
  run.animation = case_animation(scene);
  run.time = time;
  SkinningOptions options;
  options.method = definition.method;
  reference.pose = reference_pose(scene, run);
  reference.pose_bounds = run_pose_bounds(scene, run, kSuiteBounds).pose;
  reference.vertices = evaluate_vertices(scene, reference.pose, options);
  reference.bounds = check_bounds(VertexCheck{scene, reference.pose, options, kSuiteBounds, &reference.pose_bounds});
  return reference;
}

namespace {

// JSON with two-space indentation, but arrays of numbers on one line (a vertex, a matrix, a bound list), so
// that the files stay small and their diffs readable. Numbers as nlohmann writes them: the shortest text that
// reads back as the same double.
void write_compact(const Json& value, int indent, std::string& out) {
  const std::string pad(size_t(indent) * 2, ' ');
  const std::string inner(size_t(indent + 1) * 2, ' ');
  if (value.is_object() && !value.empty()) {
    out += "{\n";
    size_t i = 0;
    for (const auto& [key, member] : value.items()) {
      out += inner + Json(key).dump() + ": ";
      write_compact(member, indent + 1, out);
      out += ++i < value.size() ? ",\n" : "\n";
    }
    out += pad + "}";
  } else if (value.is_array() && !value.empty() &&
             !std::all_of(value.begin(), value.end(), [](const Json& e) { return e.is_number(); })) {
    out += "[\n";
    for (size_t i = 0; i < value.size(); ++i) {
      out += inner;
      write_compact(value[i], indent + 1, out);
      out += i + 1 < value.size() ? ",\n" : "\n";
    }
    out += pad + "]";
  } else if (value.is_array() && !value.empty()) {
    out += "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + value[i].dump();
    out += "]";
  } else {
    out += value.dump();
  }
}

std::string compact_text(const Json& value) {
  std::string out;
  write_compact(value, 0, out);
  return out + "\n";
}

Json vec3_rows(const std::vector<Vec3>& values) {
  Json rows = Json::array();
  for (const Vec3& v : values) rows.push_back({v.x(), v.y(), v.z()});
  return rows;
}

// A case whose reference or bounds are not finite at one of its times is a case built wrongly (keys half a turn
// apart, say): its expected outputs would say nothing.
void require_finite(const ConformanceCase& definition, double time, const TimeReference& reference) {
  const auto fail = [&](const std::string& what) {
    throw std::logic_error("conformance case " + definition.id + " at t = " + std::to_string(time) + ": " + what +
                           " is not finite");
  };
  for (size_t n = 0; n < reference.pose.model.global.size(); ++n) {
    if (!reference.pose.model.global[n].allFinite()) fail("a node's world matrix");
    for (double b : reference.pose_bounds.global[n])
      if (!std::isfinite(b)) fail("the bound of a node's world matrix");
  }
  for (const PrimitiveErrorBounds& bounds : reference.bounds)
    for (const std::vector<double>* values : {&bounds.position, &bounds.normal})
      for (double b : *values)
        if (!std::isfinite(b)) fail("a vertex bound");
}

Json time_json(const Scene& scene, double time, const TimeReference& reference) {
  Json nodes = Json::array();
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    Json world = Json::array(), bound = Json::array();
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) world.push_back(reference.pose.model.global[n](r, c));
    for (double b : reference.pose_bounds.global[n]) bound.push_back(b);
    nodes.push_back({{"node", n}, {"name", scene.nodes[n].name}, {"world", world}, {"world_bounds", bound}});
  }
  Json primitives = Json::array();
  for (size_t p = 0; p < reference.vertices.size(); ++p) {
    const WorldPrimitive& primitive = reference.vertices[p];
    Json entry = {{"node", primitive.node}, {"mesh", primitive.mesh}, {"primitive", primitive.primitive},
                  {"positions", vec3_rows(primitive.vertices.positions)},
                  {"position_bounds", reference.bounds[p].position}};
    if (!primitive.vertices.normals.empty()) {
      entry["normals"] = vec3_rows(primitive.vertices.normals);
      entry["normal_bounds"] = reference.bounds[p].normal;
    }
    if (!primitive.vertices.tangents.empty()) {
      Json rows = Json::array();
      for (const Vec4& t : primitive.vertices.tangents) rows.push_back({t.x(), t.y(), t.z(), t.w()});
      entry["tangents"] = std::move(rows);
      entry["tangent_bounds"] = reference.bounds[p].tangent;
    }
    primitives.push_back(std::move(entry));
  }
  return {{"time", time}, {"nodes", nodes}, {"primitives", primitives}};
}

// The reference under one target's conventions at every time of the case, against the specification's
// outputs and bounds: the largest error/bound.
Sensitivity plant(const Scene& scene, const ConformanceCase& definition, const DepartureTarget& target,
                  const std::vector<TimeReference>& references) {
  Sensitivity result;
  result.departure = target.departure;
  result.conventions = target.conventions;
  result.below_minimum_reason = target.below_minimum_reason;
  Conventions conventions;
  for (const std::string& assignment : target.conventions) set_convention(conventions, assignment);
  // The departures of the loader's own reading take the file again (same_accessor_reading()).
  Scene planted_scene =
      same_accessor_reading(conventions.load, LoadConventions{}) ? scene : load_case_scene(definition, conventions.load);
  apply_scene_conventions(planted_scene, conventions);
  SkinningOptions options;
  options.method = definition.method;
  for (size_t t = 0; t < definition.times.size(); ++t) {
    const EvaluatedPose pose = evaluate_pose(planted_scene, case_animation(scene), definition.times[t], conventions);
    const std::vector<WorldPrimitive> planted = evaluate_vertices(planted_scene, pose, options, conventions);
    const VertexComparison comparison = verify_within(scene, references[t].vertices, planted, references[t].bounds);
    if (comparison.max_ratio > result.ratio) {
      result.ratio = comparison.max_ratio;
      result.time = definition.times[t];
      result.attribute = comparison.worst.attribute;
      result.vertex = comparison.worst.vertex;
    }
  }
  return result;
}

Json case_manifest_entry(const GeneratedCase& generated) {
  const ConformanceCase& definition = *generated.definition;
  Json targets = Json::array();
  for (const Sensitivity& s : generated.sensitivities)
    targets.push_back({{"departure", s.departure},
                       {"tier", s.attribute == "position" || definition.rule_covers_normals ? "specification" : "geometry"},
                       {"planted_as", s.conventions},
                       {"error_over_bound", s.ratio},
                       {"at_time", s.time},
                       {"attribute", s.attribute},
                       {"vertex", s.vertex}});
  for (size_t i = 0; i < generated.sensitivities.size(); ++i)
    if (!generated.sensitivities[i].below_minimum_reason.empty())
      targets[i]["below_minimum_because"] = generated.sensitivities[i].below_minimum_reason;
  return {{"id", definition.id},
          {"title", definition.title},
          {"section", definition.section},
          {"rule", definition.rule},
          {"normals", definition.rule_covers_normals ? "specification" : "geometry"},
          {"model", "cases/" + definition.id + "/" + definition.id + ".gltf"},
          {"expected", "cases/" + definition.id + "/expected.json"},
          {"inputs", {{definition.id + ".gltf", content_hash_of_bytes(generated.gltf)},
                      {definition.id + ".bin", content_hash_of_bytes(generated.bin)}}},
          {"method", skinning_method_name(definition.method)},
          {"times", definition.times},
          {"departures", targets}};
}

std::string read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

Scene load_case_scene(const ConformanceCase& definition, const LoadConventions& reading) {
  GltfBuilder builder;
  definition.build(builder);
  return load_gltf_memory(builder.gltf_text(builder.embedded_uri()), definition.id + ".gltf", ".", reading);
}

GeneratedCase generate_case(const ConformanceCase& definition) {
  GeneratedCase generated;
  generated.definition = &definition;
  GltfBuilder builder;
  definition.build(builder);
  generated.gltf = builder.gltf_text(definition.id + ".bin");
  generated.bin.assign(builder.bin().begin(), builder.bin().end());
  const Scene scene = load_gltf_memory(builder.gltf_text(builder.embedded_uri()), definition.id + ".gltf", ".");

  std::vector<TimeReference> references;
  Json times = Json::array();
  for (double time : definition.times) {
    references.push_back(evaluate_reference(scene, definition, time));
    require_finite(definition, time, references.back());
    times.push_back(time_json(scene, time, references.back()));
  }
  const Json expected = {{"format", "skinref-conformance-expected"},
                         {"version", 1},
                         {"case", definition.id},
                         {"method", skinning_method_name(definition.method)},
                         {"bounds", bounds_model_name(kSuiteBounds)},
                         {"times", times}};
  generated.expected = compact_text(expected);
  for (const DepartureTarget& target : definition.targets)
    generated.sensitivities.push_back(plant(scene, definition, target, references));
  return generated;
}

GeneratedSuite generate_suite() {
  GeneratedSuite suite;
  Json cases = Json::array();
  for (const ConformanceCase& definition : conformance_cases()) {
    GeneratedCase generated = generate_case(definition);
    const std::string folder = "cases/" + definition.id + "/";
    suite.files[folder + definition.id + ".gltf"] = generated.gltf;
    suite.files[folder + definition.id + ".bin"] = generated.bin;
    suite.files[folder + "expected.json"] = generated.expected;
    cases.push_back(case_manifest_entry(generated));
    suite.cases.push_back(std::move(generated));
  }
  const Json manifest = {{"format", "skinref-conformance-suite"},
                         {"version", 1},
                         {"specification", "glTF 2.0"},
                         {"bounds", bounds_model_name(kSuiteBounds)},
                         {"cases", cases}};
  suite.files["suite.json"] = compact_text(manifest);
  return suite;
}

void write_suite(const GeneratedSuite& suite, const std::string& folder) {
  StagedFiles staged;
  for (const auto& file : suite.files) {
    const std::string& bytes = file.second;  // a name the lambda can capture (clang before 16 cannot a binding)
    const std::filesystem::path path = std::filesystem::path(folder) / file.first;
    std::filesystem::create_directories(path.parent_path());
    staged.stage(path.string(), [&bytes](const std::string& temporary) {
      std::ofstream out(temporary, std::ios::binary);
      out.write(bytes.data(), std::streamsize(bytes.size()));
      if (!out) throw std::runtime_error(temporary + ": cannot write");
    });
  }
  staged.commit_all();
}

std::vector<std::string> check_suite(const GeneratedSuite& suite, const std::string& folder) {
  std::vector<std::string> differences;
  for (const auto& [relative, bytes] : suite.files) {
    const std::filesystem::path path = std::filesystem::path(folder) / relative;
    if (!std::filesystem::exists(path))
      differences.push_back(relative + ": missing");
    else if (read_file_bytes(path) != bytes)
      differences.push_back(relative + ": differs from what the generator writes");
  }
  if (std::filesystem::is_directory(folder))
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
      if (!entry.is_regular_file()) continue;
      const std::string relative = std::filesystem::relative(entry.path(), folder).generic_string();
      if (relative != "README.md" && !suite.files.count(relative))
        differences.push_back(relative + ": not a file of the suite");
    }
  return differences;
}

}  // namespace skinref::conformance

// A planted engine: the reference evaluated under chosen conventions and rounded to float32, as an engine
// that follows exactly those conventions would dump it (positions, normals, tangents), and the check that
// diagnose names them. Shared by the diagnose tests on the convention scene and on the corpus.
#pragma once

#include "anim/evaluate_pose.h"
#include "core/conventions.h"
#include "skin/evaluate_vertices.h"
#include "verify/convention_pipeline.h"
#include "verify/diagnose.h"

#include <algorithm>
#include <string>
#include <vector>

namespace skinref::test {

inline std::vector<WorldPrimitive> planted_engine_dump(const Scene& source, int animation, double time,
                                                       const std::vector<std::string>& assignments,
                                                       SkinningMethod method = SkinningMethod::Lbs) {
  Conventions conventions;
  for (const std::string& assignment : assignments) set_convention(conventions, assignment);
  Scene scene = source;
  apply_scene_conventions(scene, conventions);
  const EvaluatedPose pose = evaluate_pose(scene, animation, double(float(time)), conventions);
  SkinningOptions options;
  options.method = method;
  std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, options, conventions);
  auto f32 = [](double value) { return double(float(value)); };
  for (WorldPrimitive& primitive : vertices) {
    for (Vec3& p : primitive.vertices.positions) p = Vec3(f32(p.x()), f32(p.y()), f32(p.z()));
    for (Vec3& n : primitive.vertices.normals) n = Vec3(f32(n.x()), f32(n.y()), f32(n.z()));
    for (Vec4& t : primitive.vertices.tangents) t = Vec4(f32(t.x()), f32(t.y()), f32(t.z()), t.w());
  }
  return vertices;
}

// How diagnose did on one planted case.
enum class Verdict {
  Exact,              // named exactly the planted conventions
  Tied,               // named another explanation with as few values over and as few conventions, and
                      // listed the planted one as equal
  Invisible,          // the planted conventions change nothing beyond the float32 bounds here: "matches glTF"
  Wrong,
};

inline const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Exact: return "exact";
    case Verdict::Tied: return "tied";
    case Verdict::Invisible: return "invisible";
    case Verdict::Wrong: return "wrong";
  }
  return "?";
}

inline std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

inline Verdict classify(const Diagnosis& diagnosis, std::vector<std::string> planted) {
  std::vector<std::string> named = diagnosis.best().settings;
  std::sort(planted.begin(), planted.end());
  std::sort(named.begin(), named.end());
  if (planted.empty()) return diagnosis.matches_specification ? Verdict::Exact : Verdict::Wrong;
  if (diagnosis.matches_specification) return Verdict::Invisible;
  if (!diagnosis.explained) return Verdict::Wrong;
  if (named == planted) return Verdict::Exact;
  for (const std::string& other : diagnosis.equally) {
    std::vector<std::string> planted_text = planted;
    // `equally` spells each alternative as its settings joined by ", " in pipeline order.
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= other.size()) {
      const size_t comma = other.find(", ", start);
      parts.push_back(other.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 2;
    }
    std::sort(parts.begin(), parts.end());
    if (parts == planted) return Verdict::Tied;
  }
  return Verdict::Wrong;
}

}  // namespace skinref::test

// A planted engine: the reference evaluated under chosen conventions and rounded to float32, as an engine
// that follows exactly those conventions would dump it (positions, normals, tangents), and the check that
// diagnose names them. Shared by the diagnose tests on the convention scene and on the corpus.
#pragma once

#include "anim/evaluate_pose.h"
#include "core/conventions.h"
#include "skin/evaluate_vertices.h"
#include "support/float32_rounding.h"
#include "verify/convention_pipeline.h"
#include "verify/diagnose.h"

#include <algorithm>
#include <string>
#include <vector>

namespace skinref::test {

// The bounds a planted engine is held to in the diagnose tests: skinref-order. A planted engine is the
// reference rounded to float32, well within the bounds of skinref's own order; the tests exercise the search,
// and the tighter bounds let every convention of the convention scene show. (Under any-order bounds, the
// default for an engine's dumps, the smaller conventions fall within the bounds and are named as closer fits:
// DiagnoseTest.AnyOrderBoundsStillNameEveryConvention.)
inline constexpr BoundsModel kPlantedBounds = BoundsModel::SkinrefOrder;

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
  return rounded_to_float32(evaluate_vertices(scene, pose, options, conventions));
}

// Whether `assignments` change the reference's vertices on `scene` at any of `times`: the conventions the
// convention scene was not built for (node matrices, stored integer weights, shared names, large skins,
// CUBICSPLINE weights, morph normals) act only on the conformance cases that target them (conformance/).
inline bool acts_on(const Scene& scene, const std::vector<std::string>& assignments, const std::vector<double>& times) {
  for (double time : times) {
    const std::vector<WorldPrimitive> planted = planted_engine_dump(scene, 0, time, assignments);
    const std::vector<WorldPrimitive> reference = planted_engine_dump(scene, 0, time, {});
    for (size_t p = 0; p < planted.size(); ++p)
      if (planted[p].vertices.positions != reference[p].vertices.positions ||
          planted[p].vertices.normals != reference[p].vertices.normals)
        return true;
  }
  return false;
}

// How diagnose did on one planted case.
enum class Verdict {
  Exact,              // named exactly the planted conventions
  Tied,               // named another explanation that is the same on this model (its reference equals the
                      // planted one's to rounding at these times), or one listed beside the planted one as
                      // listed the planted one as equal
  CloserFit,          // within the float32 bounds of glTF, and the planted conventions named as a far closer fit
  Invisible,          // the planted conventions change the vertices, but within glTF's float32 bounds here
  NoEffect,           // the planted conventions change nothing on this model at these times
  Wrong,
};

inline const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Exact: return "exact";
    case Verdict::Tied: return "tied";
    case Verdict::CloserFit: return "closer-fit";
    case Verdict::Invisible: return "within-bounds";
    case Verdict::NoEffect: return "no-effect";
    case Verdict::Wrong: return "wrong";
  }
  return "?";
}

inline std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// The two sets of conventions give the same vertices on `scene` at `times` (in double, to 1e-9 of the extent):
// no dump can tell them apart.
inline bool same_on_model(const Scene& scene, int animation, const std::vector<double>& times,
                          const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (double time : times) {
    const std::vector<WorldPrimitive> va = planted_engine_dump(scene, animation, time, a);
    const std::vector<WorldPrimitive> vb = planted_engine_dump(scene, animation, time, b);
    double extent = 0.0, largest = 0.0;
    for (size_t p = 0; p < va.size(); ++p)
      for (size_t v = 0; v < va[p].vertices.positions.size(); ++v) {
        extent = std::max(extent, va[p].vertices.positions[v].norm());
        largest = std::max(largest, (va[p].vertices.positions[v] - vb[p].vertices.positions[v]).norm());
        if (!va[p].vertices.normals.empty())
          largest = std::max(largest, (va[p].vertices.normals[v] - vb[p].vertices.normals[v]).norm());
      }
    if (largest > 1e-6 * std::max(extent, 1.0)) return false;  // beyond float32 rounding of the dumps
  }
  return true;
}

inline Verdict classify(const Diagnosis& diagnosis, std::vector<std::string> planted) {
  std::vector<std::string> named = diagnosis.best().settings;
  std::sort(planted.begin(), planted.end());
  std::sort(named.begin(), named.end());
  if (planted.empty()) return diagnosis.matches_specification ? Verdict::Exact : Verdict::Wrong;
  if (diagnosis.matches_specification) {
    if (!diagnosis.closer_fits.empty()) {
      std::vector<std::string> closest = diagnosis.closer_fits.front().settings;
      std::sort(closest.begin(), closest.end());
      return closest == planted ? Verdict::CloserFit : Verdict::Wrong;
    }
    return Verdict::Invisible;
  }
  if (!diagnosis.explained) return Verdict::Wrong;
  if (named == planted) return Verdict::Exact;
  for (const std::string& other : diagnosis.equally) {
    // `equally` spells each alternative as its settings joined by ", " in pipeline order.
    std::vector<std::string> parts = split_assignments(other);
    std::sort(parts.begin(), parts.end());
    if (parts == planted) return Verdict::Tied;
  }
  return Verdict::Wrong;
}

}  // namespace skinref::test

namespace skinref::test {

// classify(), where a verdict that names another explanation counts as Tied when that explanation and the
// planted one give the same vertices on this model at these times.
inline Verdict classify_on(const Scene& scene, int animation, const std::vector<double>& times,
                           const Diagnosis& diagnosis, const std::vector<std::string>& planted) {
  const Verdict verdict = classify(diagnosis, planted);
  if (verdict == Verdict::Invisible && same_on_model(scene, animation, times, planted, {})) return Verdict::NoEffect;
  if (verdict != Verdict::Wrong) return verdict;
  if (diagnosis.matches_specification && !diagnosis.closer_fits.empty())
    return same_on_model(scene, animation, times, diagnosis.closer_fits.front().settings, planted) ? Verdict::CloserFit
                                                                                                 : Verdict::Wrong;
  if (!diagnosis.explained) return verdict;
  return same_on_model(scene, animation, times, diagnosis.best().settings, planted) ? Verdict::Tied : Verdict::Wrong;
}

}  // namespace skinref::test

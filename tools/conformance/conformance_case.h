// One case of the conformance suite: a small glTF file that isolates one rule of glTF 2.0, the rule's text,
// the classes of engine departure it is built to catch (../shared/engine-departures.md, docs/conformance.md),
// and the playback times at which an engine is queried.
//
// Contract:
// - `id` is unique in the suite, made of [a-z0-9-]; it names the case's folder and files.
// - `section` and `rule` quote the glTF 2.0 specification (the section number and the sentence itself).
// - Each target names a departure class and how skinref plants it: the conventions (core/conventions.h,
//   "NAME=VALUE") under which the reference behaves as an engine with that departure. The suite's tests plant
//   each one and require the case to fail by at least kMinimumSensitivity (error over bound) at one time, or,
//   where the target states why it cannot yet, by more than the bound.
// - `times` are playback times in seconds, each exactly a float32 value, strictly increasing: between keys,
//   at keys, before the first key and after the last, where the rule needs them.
// - `build` writes the file through a GltfBuilder; the same call gives the same bytes.
// - `method`: the skinning method the case is evaluated with (LBS unless the rule is about DQS).
#pragma once

#include "conformance/gltf_builder.h"
#include "skin/method.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace skinref::conformance {

// The least error/bound that a planted departure must reach on its case, at one of the case's times, and the
// figure the suite aims at where the departure allows it (issue 39).
inline constexpr double kMinimumSensitivity = 10.0;
inline constexpr double kAimedSensitivity = 100.0;

struct DepartureTarget {
  DepartureTarget(std::string departure_, std::vector<std::string> conventions_, std::string reason = "")
      : departure(std::move(departure_)),
        conventions(std::move(conventions_)),
        below_minimum_reason(std::move(reason)) {}
  std::string departure;                 // the class, e.g. "S2"
  std::vector<std::string> conventions;  // how skinref plants it, e.g. {"rotation=nlerp"}; empty: not yet
  // Why the planted departure fails the case by less than kMinimumSensitivity (it must still exceed the
  // bound): empty for every target that reaches it.
  std::string below_minimum_reason;
};

struct ConformanceCase {
  std::string id;
  std::string title;
  std::string section;  // "3.7.3.1 Skins: Overview"
  std::string rule;     // the specification's sentence
  std::vector<DepartureTarget> targets;
  std::vector<double> times;
  SkinningMethod method = SkinningMethod::Lbs;
  std::function<void(GltfBuilder&)> build;
};

// Every case of the suite, in the order of the specification's sections.
const std::vector<ConformanceCase>& conformance_cases();

}  // namespace skinref::conformance

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
// - Two tiers: `rule` is the specification's sentence behind the case's positions (and, where
//   `rule_covers_normals`, its normals and tangents: the morph cases whose rule is about NORMAL and TANGENT
//   displacements). Elsewhere normals and tangents are the geometry tier: glTF 2.0 asks for unit vectors and says
//   nothing of how they transform, so they are held to the geometrically correct transform (kGeometryRule) and
//   reported beside the specification's verdict, never as a breach of it.
#pragma once

#include "conformance/gltf_builder.h"
#include "skin/method.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace skinref::conformance {

// The least error/bound that a planted departure must reach on its case, at one of the case's times, and the
// figure the suite aims at where the departure allows it.
inline constexpr double kMinimumSensitivity = 10.0;
inline constexpr double kAimedSensitivity = 100.0;

// What the geometry tier holds normals and tangents to, quoted where a case fails that tier alone.
inline constexpr const char* kGeometryRule =
    "glTF 2.0 asks for unit normals and tangents (3.7.2.1: \"Unit XYZ vertex normals\") and does not say how "
    "skinning or a node's transform moves them. Geometrically correct: a normal moves by the inverse transpose of "
    "the matrix that moves the positions (the blended joint matrix, or the node's world matrix) and is "
    "renormalized; a tangent's xyz moves by that matrix itself and is renormalized, its w kept.";

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
  std::string rule;     // the specification's sentence behind the positions (and normals, below)
  bool rule_covers_normals = false;  // normals and tangents are in the specification's tier too
  std::vector<DepartureTarget> targets;
  std::vector<double> times;
  SkinningMethod method = kDefaultSkinningMethod;
  std::function<void(GltfBuilder&)> build;
};

// Every case of the suite, in the order of the specification's sections.
const std::vector<ConformanceCase>& conformance_cases();

}  // namespace skinref::conformance

// The conformance suite as files: each case's glTF, the reference's expected outputs at the case's times
// with the bounds an engine is held to, and the manifest (suite.json) with each case's rule, departure
// classes and the sensitivity its planted departures reach. The generator is the source of truth; the
// committed folder (conformance/ at the top level) is its output, and check_suite() says whether a folder
// still equals it byte for byte.
//
// Contract:
// - generate_suite() is deterministic: the same build gives the same bytes on every run and thread count
//   (the reference's own guarantee, and JSON written in insertion order with shortest round-trip numbers).
// - Layout: suite.json; cases/ID/ID.gltf, cases/ID/ID.bin, cases/ID/expected.json. suite.json gives each case's
//   "inputs", the files an engine reads, with their content hashes (query_inputs.h checks them).
//   Each case's "normals" says the tier its normals and tangents are judged in ("specification" where its rule
//   covers them, else "geometry": conformance_case.h), and each target's "tier" the tier its departure shows in.
// - Expected outputs (expected.json), per time: every node's world matrix (column-major) with its any-order
//   bound, and every drawn primitive's skinned positions and normals (and tangents, where it has them) with
//   their any-order bounds
//   (verify/bounds_model.h): what a correct float32 engine must be within.
// - Sensitivity: for each target of a case, the reference is run under the target's conventions
//   (verify/convention_pipeline.h) at each time, and compared with the specification's outputs against those
//   bounds; the largest error/bound and where it occurs are recorded.
// - write_suite() replaces the folder's files atomically, each written to a temporary and renamed only once
//   all were written; files of the folder that the suite no longer has are listed, not deleted.
#pragma once

#include "conformance/conformance_case.h"
#include "core/conventions.h"
#include "core/pose.h"
#include "core/scene.h"
#include "core/vertices.h"
#include "verify/pose_error_bounds.h"
#include "verify/primitive_error_bounds.h"

#include <map>
#include <string>
#include <vector>

namespace skinref::conformance {

struct Sensitivity {
  std::string departure;
  std::vector<std::string> conventions;
  double ratio = 0.0;       // the largest error / bound over the case's times
  double time = 0.0;        // where it is reached
  std::string attribute;    // "position" or "normal"
  size_t vertex = 0;
  std::string below_minimum_reason;  // the target's (conformance_case.h)
};

// The reference at one of a case's times, with the bounds an engine's outputs are held to.
struct TimeReference {
  EvaluatedPose pose;
  PoseErrorBounds pose_bounds;
  std::vector<WorldPrimitive> vertices;
  std::vector<PrimitiveErrorBounds> bounds;
};
TimeReference evaluate_reference(const Scene& scene, const ConformanceCase& definition, double time);

// A case built and evaluated: its files and its figures.
struct GeneratedCase {
  const ConformanceCase* definition = nullptr;
  std::string gltf;  // the .gltf text (buffer uri: ID.bin)
  std::string bin;
  std::string expected;  // expected.json
  std::vector<Sensitivity> sensitivities;
};

// Builds the file of `definition` and loads it with the reference loader (its buffer embedded), reading its
// accessors as `reading` says (io/gltf_load.h; glTF 2.0 by default).
Scene load_case_scene(const ConformanceCase& definition, const LoadConventions& reading = {});

GeneratedCase generate_case(const ConformanceCase& definition);

// The suite's files by path relative to the suite folder, and the cases' figures.
struct GeneratedSuite {
  std::map<std::string, std::string> files;
  std::vector<GeneratedCase> cases;
};
GeneratedSuite generate_suite();

void write_suite(const GeneratedSuite& suite, const std::string& folder);

// The differences between `folder` and the suite: files missing, different, or not the suite's.
std::vector<std::string> check_suite(const GeneratedSuite& suite, const std::string& folder);

}  // namespace skinref::conformance

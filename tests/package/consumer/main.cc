// A consumer of the installed skinref package (tests/package/package_test.cmake):
//   package_consumer REF.skv OUT.skv
// Evaluates builtin:bend at 0.25 s through the library (pose, then skinned vertices), writes them to OUT.skv
// (f64, with a record, as an engine's test would), and checks them against REF.skv, the same moment written
// by the `skinref skin` program of the build: every position, normal and tangent bit for bit. It also checks
// that the clip moves the mesh at that time (against the rest pose), and the verify layer's comparison:
// REF.skv is within the float32 bounds of itself and the rest pose is not. Exit 0 when all hold, else 1.
#include "anim/evaluate_pose.h"
#include "core/pose.h"
#include "core/vertices.h"
#include "io/builtin_scenes.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "skin/method.h"
#include "skin/options.h"
#include "verify/vertex_compare.h"
#include "verify/vertex_error_bounds.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr double kTime = 0.25;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Values of `b` whose bits differ from `a`'s; the two must have the same length (else all of `b` counts).
template <typename Vector>
size_t differing_values(const std::vector<Vector>& a, const std::vector<Vector>& b) {
  if (a.size() != b.size()) return b.size() * size_t(Vector::RowsAtCompileTime) + 1;
  size_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i)
    for (int k = 0; k < Vector::RowsAtCompileTime; ++k) differing += same_bits(a[i][k], b[i][k]) ? 0 : 1;
  return differing;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: package_consumer REF.skv OUT.skv\n";
    return 2;
  }
  try {
    const std::string reference_path = argv[1], out_path = argv[2];
    const skinref::Scene scene = skinref::make_builtin_scene("bend");
    const skinref::SkinningOptions options;  // glTF 2.0: LBS, weights as stored, inverse-transpose normals
    const skinref::EvaluatedPose pose = skinref::evaluate_pose(scene, 0, kTime);
    const std::vector<skinref::WorldPrimitive> posed = skinref::evaluate_vertices(scene, pose, options);

    skinref::VertexDump dump;
    dump.precision = skinref::DumpPrecision::F64;
    dump.record.present = true;
    dump.record.writer = "package-consumer";
    dump.record.model = "builtin:bend";
    dump.record.animation = "0";
    dump.record.time = kTime;
    dump.record.method = skinref::skinning_method_name(options.method);
    dump.primitives = posed;
    skinref::write_vertex_dump(scene, dump, out_path);

    bool ok = true;
    // 1. Bit for bit the program's dump of the same moment.
    const skinref::VertexDump reference = skinref::read_vertices_skv(reference_path);
    if (reference.precision != skinref::DumpPrecision::F64) {
      std::cerr << reference_path << ": expected an f64 dump\n";
      return 1;
    }
    if (reference.primitives.size() != posed.size()) {
      std::cerr << "primitives: " << posed.size() << " here, " << reference.primitives.size() << " in "
                << reference_path << "\n";
      return 1;
    }
    size_t values = 0, differing = 0;
    for (size_t p = 0; p < posed.size(); ++p) {
      const skinref::WorldPrimitive& ours = posed[p];
      const skinref::WorldPrimitive& theirs = reference.primitives[p];
      if (ours.node != theirs.node || ours.mesh != theirs.mesh || ours.primitive != theirs.primitive ||
          ours.skinned != theirs.skinned) {
        std::cerr << "primitive " << p << ": node/mesh/primitive/skinned differ from " << reference_path << "\n";
        return 1;
      }
      differing += differing_values(theirs.vertices.positions, ours.vertices.positions) +
                   differing_values(theirs.vertices.normals, ours.vertices.normals) +
                   differing_values(theirs.vertices.tangents, ours.vertices.tangents);
      values += 3 * ours.vertices.positions.size() + 3 * ours.vertices.normals.size() +
                4 * ours.vertices.tangents.size();
    }
    std::cout << "bit for bit against " << reference_path << ": " << differing << " of " << values
              << " values differ\n";
    if (differing != 0 || values == 0) ok = false;

    // 2. The clip moves the mesh at kTime: the largest distance of a vertex from its rest-pose position.
    const skinref::EvaluatedPose rest_pose = skinref::evaluate_pose(scene, -1, 0.0);
    const std::vector<skinref::WorldPrimitive> rest = skinref::evaluate_vertices(scene, rest_pose, options);
    double moved = 0.0;
    for (size_t p = 0; p < posed.size(); ++p)
      for (size_t v = 0; v < posed[p].vertices.positions.size(); ++v)
        moved = std::max(moved, (posed[p].vertices.positions[v] - rest[p].vertices.positions[v]).norm());
    const double extent = skinref::positions_extent(posed);
    std::cout << "largest vertex displacement from the rest pose: " << moved << " (extent " << extent << ")\n";
    if (!(moved > 0.01 * extent)) ok = false;

    // 3. The verify layer: the reference is within the float32 bounds of itself; the rest pose is not.
    const std::vector<skinref::PrimitiveErrorBounds> bounds =
        skinref::float32_vertex_error_bounds(scene, pose, options, nullptr);
    const skinref::VertexComparison same = skinref::compare_vertices(scene, reference.primitives, posed, bounds);
    const skinref::VertexComparison other = skinref::compare_vertices(scene, reference.primitives, rest, bounds);
    std::cout << "compare_vertices: itself " << (same.passed() ? "passes" : "fails") << ", the rest pose "
              << other.over << " of " << other.values << " values over\n";
    if (!same.passed() || same.max_ratio != 0.0 || other.passed() || other.over == 0) ok = false;

    std::cout << (ok ? "PASS" : "FAIL") << "\n";
    return ok ? 0 : 1;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
}

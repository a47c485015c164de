// compare_vertices() (reference/verify/vertex_compare.h) on handcrafted results and bounds: structure mismatches
// refused naming what differs; values within and over their bound, unbounded values, the histogram bins,
// the median and the worst vertex with its joints and weights, all against closed-form expectations; a
// tangent's handedness; the printed and JSON reports. builtin:twist gives the structure (one skinned
// primitive of 792 vertices with normals; its vertices at x = 1 have weights 0.5 / 0.5, builtin_scenes.h).
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "io/builtin_scenes.h"
#include "skin/evaluate_vertices.h"
#include "support/tolerances.h"
#include "verify/vertex_compare.h"
#include "verify/vertex_error_bounds.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

struct Twist {
  Scene scene = make_builtin_scene("twist");
  std::vector<WorldPrimitive> reference = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.4), SkinningOptions{});
};

// Bounds of the reference's shape, every one `value`.
std::vector<PrimitiveErrorBounds> uniform_bounds(const std::vector<WorldPrimitive>& reference, double value) {
  std::vector<PrimitiveErrorBounds> bounds(reference.size());
  for (size_t i = 0; i < reference.size(); ++i) {
    bounds[i].position.assign(reference[i].vertices.positions.size(), value);
    bounds[i].normal.assign(reference[i].vertices.normals.size(), value);
    bounds[i].tangent.assign(reference[i].vertices.tangents.size(), value);
  }
  return bounds;
}

// The message of the InputError compare_vertices() throws, or "" when it throws none.
std::string mismatch_message(const Scene& scene, const std::vector<WorldPrimitive>& reference,
                             const std::vector<WorldPrimitive>& test, const std::vector<PrimitiveErrorBounds>& bounds) {
  try {
    compare_vertices(scene, reference, test, bounds);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(VertexCompareTest, StructureMismatchesNameWhatDiffers) {
  const Twist twist;
  const std::vector<PrimitiveErrorBounds> bounds = uniform_bounds(twist.reference, 1.0);
  struct Case {
    const char* what;  // in the message
    void (*mutate)(std::vector<WorldPrimitive>&);
  };
  const Case cases[] = {
      {"primitives", [](std::vector<WorldPrimitive>& t) { t.push_back(t[0]); }},
      {"node", [](std::vector<WorldPrimitive>& t) { t[0].node += 1; }},
      {"mesh", [](std::vector<WorldPrimitive>& t) { t[0].mesh += 1; }},
      {"primitive index", [](std::vector<WorldPrimitive>& t) { t[0].primitive += 1; }},
      {"skinned", [](std::vector<WorldPrimitive>& t) { t[0].skinned = false; }},
      {"vertex count", [](std::vector<WorldPrimitive>& t) { t[0].vertices.positions.pop_back(); }},
      {"tangents", [](std::vector<WorldPrimitive>& t) {
         t[0].vertices.tangents.assign(t[0].vertices.positions.size(), Vec4(1, 0, 0, 1));
       }},
  };
  for (const Case& c : cases) {
    std::vector<WorldPrimitive> test = twist.reference;
    c.mutate(test);
    const std::string message = mismatch_message(twist.scene, twist.reference, test, bounds);
    EXPECT_NE(message.find(c.what), std::string::npos) << c.what << ": " << message;
    EXPECT_NE(message.find("primitive"), std::string::npos) << message;
  }
  // Dumps that match each other but not the model: builtin:bend's vertices against builtin:twist's scene.
  const Scene bend = make_builtin_scene("bend");
  const std::vector<WorldPrimitive> bend_vertices = evaluate_vertices(bend, evaluate_pose(bend, 0, 0.0), {});
  const std::string message =
      mismatch_message(twist.scene, bend_vertices, bend_vertices, uniform_bounds(bend_vertices, 1.0));
  EXPECT_NE(message.find("the model"), std::string::npos) << message;
  // Bounds of another shape (another model's) than the dumps'.
  EXPECT_NE(mismatch_message(twist.scene, twist.reference, twist.reference, {}).find("drawn by the model"),
            std::string::npos);
  // Identical structure: no error.
  EXPECT_EQ(mismatch_message(twist.scene, twist.reference, twist.reference, bounds), "");
}

TEST(VertexCompareTest, AnEngineDumpWithPositionsOnlyIsComparedOnPositions) {
  const Twist twist;
  std::vector<WorldPrimitive> test = twist.reference;
  test[0].vertices.normals.clear();  // many engines dump positions only
  const size_t n = test[0].vertices.positions.size();
  test[0].vertices.positions[3] += Vec3(0.0, 2.0, 0.0);  // over a bound of 1
  const VertexComparison cmp = compare_vertices(twist.scene, twist.reference, test, uniform_bounds(twist.reference, 1.0));
  EXPECT_EQ(cmp.values, n);
  EXPECT_EQ(cmp.over, 1u);
  EXPECT_EQ(cmp.over_positions, 1u);
  EXPECT_EQ(cmp.over_normals, 0u);
  EXPECT_EQ(cmp.primitives_without_test_normals, 1u);
  EXPECT_EQ(cmp.primitives_without_test_tangents, 0u);  // the model has none there
  // The other way round (normals in the test, none in the reference) is still a mismatch.
  std::vector<WorldPrimitive> reference = twist.reference;
  reference[0].vertices.normals.clear();
  std::vector<PrimitiveErrorBounds> bounds = uniform_bounds(reference, 1.0);
  const std::string message = mismatch_message(twist.scene, reference, twist.reference, bounds);
  EXPECT_NE(message.find("normals absent in the reference, present in the test"), std::string::npos) << message;
}

// A normal left at the length a blend gave it is reported as not unit length, not as a direction error.
TEST(VertexCompareTest, AnUnnormalizedNormalIsNamedAsSuch) {
  const Twist twist;
  std::vector<WorldPrimitive> test = twist.reference;
  test[0].vertices.normals[5] *= 0.9;    // |n| - 1 = -0.1
  test[0].vertices.normals[6] *= 1.002;  // |n| - 1 = 0.002
  const VertexComparison cmp = compare_vertices(twist.scene, twist.reference, test, uniform_bounds(twist.reference, 1.0));
  EXPECT_EQ(cmp.unnormalized, 2u);
  EXPECT_NEAR(cmp.largest_length_error, 0.1, 1e-12);
  EXPECT_EQ(cmp.over, 0u);  // within a bound of 1, and not counted as over in any case
  EXPECT_FALSE(cmp.passed());
  std::ostringstream printed;
  print_vertex_comparison(cmp, printed);
  EXPECT_NE(printed.str().find("not unit length: 2 normals and tangents"), std::string::npos) << printed.str();
  EXPECT_NE(printed.str().find("normalize=no"), std::string::npos) << printed.str();
  // Within float32 normalization (1e-6 off): an ordinary value.
  test = twist.reference;
  test[0].vertices.normals[5] *= 1.0 + 1e-6;
  EXPECT_EQ(compare_vertices(twist.scene, twist.reference, test, uniform_bounds(twist.reference, 1.0)).unnormalized, 0u);
}

TEST(VertexCompareTest, CountsOverAndUnboundedAndFindsTheWorstVertex) {
  const Twist twist;
  const SkinnedVertices& r = twist.reference[0].vertices;
  const size_t n = r.positions.size();
  ASSERT_EQ(n, 792u);
  // The first vertex at x = 1 (the middle ring: weights 0.5 / 0.5 on the two joints).
  const Primitive& prim = twist.scene.meshes[0].primitives[0];
  size_t middle = n;
  for (size_t v = 0; v < n && middle == n; ++v)
    if (prim.positions[v].x() == 0.5 * kTwistLength) middle = v;
  ASSERT_LT(middle, n);
  const size_t a = (middle + 100) % n, b = (middle + 200) % n, c = (middle + 300) % n;

  constexpr double kBound = 1e-3;
  std::vector<PrimitiveErrorBounds> bounds = uniform_bounds(twist.reference, kBound);
  std::vector<WorldPrimitive> test = twist.reference;
  SkinnedVertices& t = test[0].vertices;
  t.positions[a] += Vec3(0.0, 5e-5, 0.0);       // ratio 0.05: within
  // Normals turned, not stretched (a test normal off unit length is reported apart): builtin:twist's normals
  // have no x, so adding d along x and renormalizing moves them by d to first order.
  t.normals[b] = (t.normals[b] + Vec3(5e-4, 0.0, 0.0)).normalized();  // ratio 0.5: within
  t.positions[middle] += Vec3(2e-3, 0.0, 0.0);  // ratio 2: over, the worst
  bounds[0].normal[c] = std::numeric_limits<double>::infinity();
  t.normals[c] = (t.normals[c] + Vec3(0.1, 0.0, 0.0)).normalized();  // unbounded: counted as such whatever its error

  const VertexComparison cmp = compare_vertices(twist.scene, twist.reference, test, bounds);
  EXPECT_EQ(cmp.values, 2 * n);
  EXPECT_EQ(cmp.over, 1u);
  EXPECT_EQ(cmp.over_positions, 1u);
  EXPECT_EQ(cmp.over_normals, 0u);
  EXPECT_EQ(cmp.unbounded, 1u);
  EXPECT_FALSE(cmp.passed());
  const double allowed_middle = kBound + tol::kReferenceRelative * r.positions[middle].norm();
  EXPECT_NEAR(cmp.max_ratio, 2e-3 / allowed_middle, tol::kClosedForm);
  // Three bounded values differ, with ratios about 0.05, 0.5 and 2: the median is the middle one.
  EXPECT_NEAR(cmp.median_ratio, 0.5, 1e-6);
  const std::array<size_t, 6> expected_histogram{2 * n - 4, 0, 0, 1, 1, 1};
  EXPECT_EQ(cmp.ratio_histogram, expected_histogram);

  const WorstVertex& worst = cmp.worst;
  EXPECT_EQ(worst.primitive_index, 0u);
  EXPECT_EQ(worst.node, twist.reference[0].node);
  EXPECT_EQ(worst.mesh, 0);
  EXPECT_EQ(worst.primitive, 0);
  EXPECT_EQ(worst.vertex, middle);
  EXPECT_EQ(worst.attribute, "position");
  EXPECT_NEAR(worst.error, 2e-3, tol::kClosedForm);
  EXPECT_EQ(worst.bound, kBound);
  // Its influences, as node indices: the two joints with 0.5 each, the unused slots with weight 0.
  ASSERT_EQ(worst.joint_nodes.size(), size_t(prim.influences_per_vertex));
  ASSERT_EQ(worst.weights.size(), worst.joint_nodes.size());
  std::vector<int> live;
  for (size_t i = 0; i < worst.weights.size(); ++i) {
    if (worst.weights[i] == 0.0) continue;
    live.push_back(worst.joint_nodes[i]);
    EXPECT_EQ(worst.weights[i], 0.5);
  }
  std::sort(live.begin(), live.end());
  std::vector<int> joints = twist.scene.skins[0].joints;
  std::sort(joints.begin(), joints.end());
  EXPECT_EQ(live, joints);

  // Nothing over, nothing unbounded: passed.
  const VertexComparison same = compare_vertices(twist.scene, twist.reference, twist.reference,
                                                 uniform_bounds(twist.reference, kBound));
  EXPECT_TRUE(same.passed());
  EXPECT_EQ(same.ratio_histogram[0], 2 * n);
  EXPECT_EQ(same.max_ratio, 0.0);
  EXPECT_EQ(same.median_ratio, 0.0);
  EXPECT_TRUE(same.worst.attribute.empty());
}

TEST(VertexCompareTest, HistogramBinsByDecade) {
  const Twist twist;
  constexpr double kBound = 1e-2;
  const std::vector<PrimitiveErrorBounds> bounds = uniform_bounds(twist.reference, kBound);
  std::vector<WorldPrimitive> test = twist.reference;
  // One normal per bin (|normal| = 1, so the allowance is kBound + 2^-40): ratios 5e-5, 5e-4, 5e-3, 5e-2, 0.5, 5.
  const double ratios[] = {5e-5, 5e-4, 5e-3, 5e-2, 0.5, 5.0};
  // Turned by about ratio * bound (x is perpendicular to builtin:twist's normals), kept unit length.
  for (size_t i = 0; i < 6; ++i) {
    Vec3& normal = test[0].vertices.normals[10 * i];
    normal = (normal + Vec3(ratios[i] * kBound, 0.0, 0.0)).normalized();
  }
  const VertexComparison c = compare_vertices(twist.scene, twist.reference, test, bounds);
  const size_t values = 2 * twist.reference[0].vertices.positions.size();
  const std::array<size_t, 6> expected{values - 5, 1, 1, 1, 1, 1};
  EXPECT_EQ(c.ratio_histogram, expected);
  EXPECT_EQ(c.over, 1u);
  EXPECT_EQ(c.worst.vertex, 50u);
  EXPECT_EQ(c.worst.attribute, "normal");
  // Six ratios: the median is the upper middle one (index 3 of 6). A unit normal turned by adding d
  // perpendicular to it and renormalizing moves by sqrt(2 - 2 / sqrt(1 + d^2)) exactly, here d = 5e-2 * bound
  // (the allowance's 2^-40 and the rounding move it by far less than 1e-9).
  const double d = 5e-2 * kBound;
  EXPECT_NEAR(c.median_ratio, std::sqrt(2.0 - 2.0 / std::sqrt(1.0 + d * d)) / kBound, 1e-9);
}

TEST(VertexCompareTest, TangentHandednessMismatchIsOverItsBound) {
  Scene scene = make_builtin_scene("twist");
  Primitive& prim = scene.meshes[0].primitives[0];
  prim.tangents.assign(prim.vertex_count(), Vec4(1.0, 0.0, 0.0, 1.0));
  finalize_scene(scene);
  const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.4), {});
  ASSERT_EQ(reference[0].vertices.tangents.size(), prim.vertex_count());
  std::vector<WorldPrimitive> test = reference;
  test[0].vertices.tangents[7].w() = -1.0;  // xyz unchanged: only the handedness differs
  const VertexComparison c = compare_vertices(scene, reference, test, uniform_bounds(reference, 3.0));
  EXPECT_EQ(c.values, 3 * prim.vertex_count());
  EXPECT_EQ(c.over, 1u);
  EXPECT_EQ(c.worst.attribute, "tangent");
  EXPECT_EQ(c.worst.vertex, 7u);
  EXPECT_NEAR(c.worst.error, 2.0, tol::kClosedForm);
  EXPECT_TRUE(std::isinf(c.max_ratio));
  EXPECT_EQ(c.ratio_histogram[5], 1u);
}

TEST(VertexCompareTest, ReportsPrintAndWriteJson) {
  const Twist twist;
  std::vector<WorldPrimitive> test = twist.reference;
  test[0].vertices.positions[3] += Vec3(0.0, 0.0, 3e-3);
  const VertexComparison c =
      compare_vertices(twist.scene, twist.reference, test, uniform_bounds(twist.reference, 1e-3));
  std::ostringstream text;
  print_vertex_comparison(c, text);
  EXPECT_NE(text.str().find("FAIL"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("position of vertex 3"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("1 over"), std::string::npos) << text.str();
  std::ostringstream out;
  write_vertex_comparison_json(c, out);
  const nlohmann::json json = nlohmann::json::parse(out.str());
  EXPECT_EQ(json["format"], "skinref-vertex-comparison");
  EXPECT_EQ(json["over"], 1);
  EXPECT_EQ(json["unbounded"], 0);
  EXPECT_EQ(json["pass"], false);
  EXPECT_EQ(json["worst"]["vertex"], 3);
  EXPECT_EQ(json["worst"]["attribute"], "position");
  EXPECT_EQ(json["worst"]["joint_nodes"].size(), 4u);
  EXPECT_EQ(json["ratio_histogram"].size(), 6u);
  EXPECT_EQ(json["ratio_histogram"][5]["count"], 1);
  EXPECT_NEAR(json["max_ratio"].get<double>(), c.max_ratio, 0.0);
}

}  // namespace
}  // namespace skinref

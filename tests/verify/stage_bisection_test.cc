// Stage bisection (reference/verify/stage_bisection.h) on hand-made divergences: a pose identical to the reference
// diverges nowhere; a wrong local rotation is a sampling divergence at that node; a wrong global matrix with
// correct locals is a local-to-model divergence; a wrong palette entry with correct globals is a palette
// divergence at that joint; a moved vertex with a correct pose is a skinning divergence at that vertex.
// Earlier stages win; the exact walk (first_differing_stage) finds a one-ulp change. Also the pose dump reader (pose_dump.h): a written dump reads back bit for bit, and
// malformed dumps name the JSON path.
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "io/builtin_scenes.h"
#include "io/pose_dump.h"
#include "skin/evaluate_vertices.h"
#include "support/skinning_cases.h"
#include "support/temp_dir.h"
#include "verify/stage_bisection.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <fstream>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

struct Fixture {
  Scene scene = make_builtin_scene("bend");
  EvaluatedPose reference = evaluate_pose(scene, 0, 0.25);
  PoseErrorBounds pose_bounds = float32_pose_error_bounds(scene, 0, 0.25);
  std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, reference, SkinningOptions{});
  std::vector<PrimitiveErrorBounds> vertex_bounds;

  Fixture() {
    // Hand-made vertex bounds (this test is about the bisection, not the bounds): 1e-6 everywhere.
    for (const WorldPrimitive& prim : vertices) {
      PrimitiveErrorBounds b;
      b.position.assign(prim.vertices.positions.size(), 1e-6);
      b.normal.assign(prim.vertices.normals.size(), 1e-6);
      b.tangent.assign(prim.vertices.tangents.size(), 1e-6);
      vertex_bounds.push_back(b);
    }
  }

  StageDivergence bisect(const EvaluatedPose& test_pose, const std::vector<WorldPrimitive>& test_vertices) const {
    return bisect_stages(scene, reference, &test_pose, &pose_bounds, vertices, test_vertices, vertex_bounds);
  }
};

TEST(StageBisectionTest, IdenticalRunsDivergeNowhere) {
  const Fixture f;
  const StageDivergence d = f.bisect(f.reference, f.vertices);
  EXPECT_EQ(d.stage, PipelineStage::None);
  EXPECT_EQ(d.values_over, 0u);
  EXPECT_GT(d.values_checked, 0u);
  EXPECT_STREQ(pipeline_stage_name(d.stage), "none");
}

// A run without normals (a positions-only dump, a user's shader that writes no normals) is examined on what it
// has: fewer values checked, and a wrong position still named at the skinning stage.
TEST(StageBisectionTest, ARunWithoutNormalsIsExaminedOnItsPositions) {
  const Fixture f;
  std::vector<WorldPrimitive> positions_only = f.vertices;
  for (WorldPrimitive& primitive : positions_only) primitive.vertices.normals.clear();
  ASSERT_FALSE(f.vertices.front().vertices.normals.empty());
  const StageDivergence full = f.bisect(f.reference, f.vertices);
  const StageDivergence partial = f.bisect(f.reference, positions_only);
  EXPECT_EQ(partial.stage, PipelineStage::None);
  EXPECT_EQ(full.values_checked - partial.values_checked, f.vertices.front().vertices.normals.size());
  positions_only.front().vertices.positions[3].x() += 1e-3;
  EXPECT_EQ(f.bisect(f.reference, positions_only).stage, PipelineStage::Skinning);
}

// A clip time an engine mapped wrongly (it started the clip at its first key, say) is named at the time
// mapping, before the sampling it throws off; within a few float32 roundings it passes.
TEST(StageBisectionTest, AWrongClipTimeIsTimeMapping) {
  const Fixture f;
  ASSERT_EQ(f.reference.clip_time, 0.25);
  EvaluatedPose test = f.reference;
  test.clip_time = 0.25 + 0x1p-24;  // one float32 rounding of 0.25 + 0.25: within
  EXPECT_EQ(f.bisect(test, f.vertices).stage, PipelineStage::None);
  test.clip_time = 0.75;
  test.local.local[1].rotation.coeffs()[2] += 1e-3;  // what sampling at the wrong time gives: reported later
  const StageDivergence d = f.bisect(test, f.vertices);
  EXPECT_EQ(d.stage, PipelineStage::TimeMapping);
  EXPECT_STREQ(pipeline_stage_name(d.stage), "time-mapping");
  EXPECT_NEAR(d.error, 0.5, 1e-15);
  EXPECT_NE(d.location.find("clip time"), std::string::npos) << d.location;
  // A dump that does not state its clip time skips the stage.
  test.clip_time = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(f.bisect(test, f.vertices).stage, PipelineStage::Sampling);
}

// A morph weight off is named at the morph stage, after the palettes it does not touch and before the
// skinning it feeds.
TEST(StageBisectionTest, AWrongMorphWeightIsMorph) {
  Fixture f;
  f.scene = test::decorated_bend();
  f.reference = evaluate_pose(f.scene, 0, 0.25);
  f.pose_bounds = float32_pose_error_bounds(f.scene, 0, 0.25);
  f.vertices = evaluate_vertices(f.scene, f.reference, SkinningOptions{});
  f.vertex_bounds.clear();
  for (const WorldPrimitive& prim : f.vertices) {
    PrimitiveErrorBounds b;
    b.position.assign(prim.vertices.positions.size(), 1e-6);
    b.normal.assign(prim.vertices.normals.size(), 1e-6);
    b.tangent.assign(prim.vertices.tangents.size(), 1e-6);
    f.vertex_bounds.push_back(b);
  }
  EvaluatedPose test = f.reference;
  size_t node = 0;
  while (node < test.local.morph_weights.size() && test.local.morph_weights[node].empty()) ++node;
  ASSERT_LT(node, test.local.morph_weights.size()) << "decorated_bend has morph targets";
  test.local.morph_weights[node][0] += 0.1;
  const StageDivergence d = f.bisect(test, f.vertices);
  EXPECT_EQ(d.stage, PipelineStage::Morph);
  EXPECT_STREQ(pipeline_stage_name(d.stage), "morph");
  EXPECT_EQ(d.node, int(node));
  EXPECT_NE(d.location.find("morph weight 0"), std::string::npos) << d.location;
}

TEST(StageBisectionTest, WrongLocalRotationIsSampling) {
  const Fixture f;
  EvaluatedPose test = f.reference;
  test.local.local[1].rotation.coeffs()[2] += 1e-3;  // rotation.z of node 1 ('elbow')
  std::vector<WorldPrimitive> moved = f.vertices;
  moved[0].vertices.positions[3].x() += 1.0;  // a later stage also wrong: the earlier one is reported
  const StageDivergence d = f.bisect(test, moved);
  EXPECT_EQ(d.stage, PipelineStage::Sampling);
  EXPECT_EQ(d.node, 1);
  EXPECT_EQ(d.values_over, 1u);
  EXPECT_NE(d.location.find("rotation.z"), std::string::npos) << d.location;
  EXPECT_NEAR(d.error, 1e-3, 1e-12);
}

TEST(StageBisectionTest, WrongGlobalIsLocalToModel) {
  const Fixture f;
  EvaluatedPose test = f.reference;
  test.model.global[2](0, 3) += 1e-4;  // translation x of node 2's global
  const StageDivergence d = f.bisect(test, f.vertices);
  EXPECT_EQ(d.stage, PipelineStage::LocalToModel);
  EXPECT_EQ(d.node, 2);
  EXPECT_NE(d.location.find("global (0,3)"), std::string::npos) << d.location;
}

TEST(StageBisectionTest, WrongPaletteEntryIsPalette) {
  const Fixture f;
  EvaluatedPose test = f.reference;
  ASSERT_GE(test.palettes[0].skinning.size(), 2u);
  test.palettes[0].skinning[1](1, 0) += 1e-4;
  const StageDivergence d = f.bisect(test, f.vertices);
  EXPECT_EQ(d.stage, PipelineStage::Palette);
  EXPECT_EQ(d.skin, 0);
  EXPECT_EQ(d.joint, 1);
  EXPECT_EQ(d.node, f.scene.skins[0].joints[1]);
  EXPECT_NE(d.location.find("palette (1,0)"), std::string::npos) << d.location;
}

TEST(StageBisectionTest, MovedVertexIsSkinning) {
  const Fixture f;
  std::vector<WorldPrimitive> moved = f.vertices;
  moved[0].vertices.positions[17].y() += 3e-6;  // over the 1e-6 bound
  moved[0].vertices.positions[18].y() += 5e-7;  // within it
  const StageDivergence d = f.bisect(f.reference, moved);
  EXPECT_EQ(d.stage, PipelineStage::Skinning);
  EXPECT_EQ(d.values_over, 1u);
  EXPECT_EQ(d.primitive_index, 0);
  EXPECT_EQ(d.vertex, 17);
  EXPECT_NEAR(d.error, 3e-6, 1e-12);
  EXPECT_NE(d.location.find("vertex 17 position"), std::string::npos) << d.location;
}

TEST(StageBisectionTest, FlippedNormalIsSkinning) {
  const Fixture f;
  std::vector<WorldPrimitive> moved = f.vertices;
  ASSERT_FALSE(moved[0].vertices.normals.empty());
  moved[0].vertices.normals[4] = -moved[0].vertices.normals[4];
  const StageDivergence d = f.bisect(f.reference, moved);
  EXPECT_EQ(d.stage, PipelineStage::Skinning);
  EXPECT_EQ(d.vertex, 4);
  EXPECT_NE(d.location.find("normal"), std::string::npos) << d.location;
}

TEST(StageBisectionTest, WithoutATestPoseOnlySkinningIsExamined) {
  const Fixture f;
  std::vector<WorldPrimitive> moved = f.vertices;
  moved[0].vertices.positions[2].z() += 1e-3;
  const StageDivergence d =
      bisect_stages(f.scene, f.reference, nullptr, nullptr, f.vertices, moved, f.vertex_bounds);
  EXPECT_EQ(d.stage, PipelineStage::Skinning);
  EXPECT_EQ(d.vertex, 2);
}

TEST(StageBisectionTest, StructuralMismatchThrows) {
  const Fixture f;
  std::vector<WorldPrimitive> fewer = f.vertices;
  fewer[0].vertices.positions.pop_back();
  EXPECT_THROW(f.bisect(f.reference, fewer), InputError);
}

TEST(FirstDifferingStageTest, ExactComparisonNamesTheFirstDifferingComponent) {
  const Fixture f;
  EXPECT_EQ(first_differing_stage(f.scene, f.reference, &f.reference, f.vertices, f.vertices).stage,
            PipelineStage::None);
  std::vector<WorldPrimitive> moved = f.vertices;
  moved[0].vertices.positions[7].y() = std::nextafter(moved[0].vertices.positions[7].y(), 1e300);  // one ulp
  const StageDivergence skinning = first_differing_stage(f.scene, f.reference, &f.reference, f.vertices, moved);
  EXPECT_EQ(skinning.stage, PipelineStage::Skinning);
  EXPECT_EQ(skinning.values_over, 1u);
  EXPECT_NE(skinning.location.find("vertex 7 position.y"), std::string::npos) << skinning.location;
  EvaluatedPose pose = f.reference;
  pose.model.global[2](1, 3) = std::nextafter(pose.model.global[2](1, 3), 1e300);
  const StageDivergence global = first_differing_stage(f.scene, f.reference, &pose, f.vertices, moved);
  EXPECT_EQ(global.stage, PipelineStage::LocalToModel);  // before skinning
  EXPECT_EQ(global.node, 2);
}

// ---- pose dump reader ------------------------------------------------------------------------------------------

// The reader reports the precision a dump was printed with, and charge_printing_rounding() adds half a unit of
// the last printed digit, at most 0.5 * 10^(1 - D) of each value, to its bound.
TEST(PoseDumpReadTest, PrintingPrecisionIsReadAndCharged) {
  const test::TempDir dir;
  const Scene scene = make_builtin_scene("twist");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.37);
  write_pose_dump(scene, pose, dir.file("pose.json"));
  int digits = 0;
  read_pose_dump(dir.file("pose.json"), scene, nullptr, &digits);
  EXPECT_EQ(digits, 17);
  // The same document with every number printed with at most 5 digits; strings with digits do not count.
  nlohmann::json short_numbers = nlohmann::json::parse(test::read_bytes(dir.file("pose.json")));
  short_numbers["source"] = "builtin:twist 1234567890123456789";
  short_numbers["time"] = 0.375;
  short_numbers["nodes"][0]["translation"] = {0.12345, -1.5, 2.0};
  std::string text = short_numbers.dump();
  test::write_bytes(dir.file("short.json"), text);
  read_pose_dump(dir.file("short.json"), scene, nullptr, &digits);
  EXPECT_EQ(digits, 17) << "the other numbers are still printed in full";
  PoseErrorBounds bounds = float32_pose_error_bounds(scene, 0, 0.37);
  const double before = bounds.local[0][0];
  charge_printing_rounding(bounds, pose, 9);
  EXPECT_DOUBLE_EQ(bounds.local[0][0], before + 0.5e-8 * std::abs(pose.local.local[0].translation.x()));
  const PoseErrorBounds unchanged = bounds;
  charge_printing_rounding(bounds, pose, 17);
  EXPECT_EQ(bounds.global, unchanged.global);
}

// An engine's dump: nodes in its own order (matched by name), palette rows in its joint order
// ("joint_names"), row-major matrices, no normal matrices. It reads back to the same pose, bit for bit.
TEST(PoseDumpReadTest, AnEnginesOrderAndLayoutReadBackToTheSamePose) {
  const test::TempDir dir;
  const Scene scene = make_builtin_scene("chain64");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.37);
  write_pose_dump(scene, pose, dir.file("pose.json"));
  nlohmann::json dump = nlohmann::json::parse(test::read_bytes(dir.file("pose.json")));
  auto transpose = [](nlohmann::json& matrix, int size) {
    const nlohmann::json copy = matrix;
    for (int r = 0; r < size; ++r)
      for (int c = 0; c < size; ++c) matrix[size_t(r * size + c)] = copy[size_t(c * size + r)];
  };
  dump["matrix_order"] = "row-major";
  for (nlohmann::json& node : dump["nodes"]) transpose(node["global"], 4);
  std::reverse(dump["nodes"].begin(), dump["nodes"].end());
  nlohmann::json& skin = dump["skins"][0];
  skin.erase("normal_matrices");
  nlohmann::json names = nlohmann::json::array(), rows = nlohmann::json::array();
  for (size_t j = skin["palette"].size(); j-- > 0;) {  // the engine's joint order: reversed
    names.push_back(scene.nodes[size_t(scene.skins[0].joints[j])].name);
    nlohmann::json row = skin["palette"][j];
    transpose(row, 4);
    rows.push_back(row);
  }
  skin["joint_names"] = names;
  skin["palette"] = rows;
  test::write_bytes(dir.file("engine.json"), dump.dump());
  const EvaluatedPose back = read_pose_dump(dir.file("engine.json"), scene);
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    EXPECT_EQ(back.model.global[n], pose.model.global[n]) << n;
    EXPECT_EQ(back.local.local[n].rotation.coeffs(), pose.local.local[n].rotation.coeffs()) << n;
  }
  for (size_t j = 0; j < pose.palettes[0].skinning.size(); ++j) {
    EXPECT_EQ(back.palettes[0].skinning[j], pose.palettes[0].skinning[j]) << j;
    EXPECT_EQ(back.palettes[0].normal[j], pose.palettes[0].normal[j]) << j;  // derived as compute_palette does
  }
  // A joint name the model lacks, or one given twice, is refused at its JSON path.
  skin["joint_names"][0] = "no such joint";
  test::write_bytes(dir.file("bad.json"), dump.dump());
  try {
    read_pose_dump(dir.file("bad.json"), scene);
    ADD_FAILURE() << "an unknown joint name was accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.json_path(), "/skins/0/joint_names/0");
  }
  skin["joint_names"][0] = skin["joint_names"][1];
  test::write_bytes(dir.file("bad.json"), dump.dump());
  EXPECT_THROW(read_pose_dump(dir.file("bad.json"), scene), InputError);
  dump["matrix_order"] = "diagonal";
  test::write_bytes(dir.file("bad.json"), dump.dump());
  EXPECT_THROW(read_pose_dump(dir.file("bad.json"), scene), InputError);
}

TEST(PoseDumpReadTest, RoundTripIsBitIdentical) {
  const test::TempDir dir;
  const Scene scene = make_builtin_scene("chain64");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.37);
  write_pose_dump(scene, pose, dir.file("pose.json"));
  std::string source;
  const EvaluatedPose back = read_pose_dump(dir.file("pose.json"), scene, &source);
  EXPECT_EQ(source, scene.source);
  EXPECT_EQ(read_pose_dump_source(dir.file("pose.json")), scene.source);
  EXPECT_EQ(back.animation, 0);
  EXPECT_EQ(back.time, 0.37);
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    EXPECT_EQ(back.model.global[n], pose.model.global[n]) << n;
    EXPECT_EQ(back.local.local[n].translation, pose.local.local[n].translation) << n;
    EXPECT_EQ(back.local.local[n].rotation.coeffs(), pose.local.local[n].rotation.coeffs()) << n;
  }
  for (size_t j = 0; j < pose.palettes[0].skinning.size(); ++j) {
    EXPECT_EQ(back.palettes[0].skinning[j], pose.palettes[0].skinning[j]) << j;
    EXPECT_EQ(back.palettes[0].normal[j], pose.palettes[0].normal[j]) << j;
  }
}

TEST(PoseDumpReadTest, MalformedDumpsNameTheJsonPath) {
  const test::TempDir dir;
  const Scene scene = make_builtin_scene("bend");
  const Scene other = make_builtin_scene("chain64");
  write_pose_dump(other, evaluate_pose(other, 0, 0.0), dir.file("other.json"));
  auto message_of = [&](const std::string& path) {
    try {
      read_pose_dump(path, scene);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of(dir.file("other.json")).find("/nodes"), std::string::npos);
  EXPECT_NE(message_of(dir.file("missing.json")).find("missing.json"), std::string::npos);
  test::write_bytes(dir.file("bad.json"), "{\"format\":\"skinref-pose\",\"version\":2}");
  EXPECT_NE(message_of(dir.file("bad.json")).find("/version"), std::string::npos);
  test::write_bytes(dir.file("notjson.json"), "{");
  EXPECT_NE(message_of(dir.file("notjson.json")).find("JSON"), std::string::npos);
}

}  // namespace
}  // namespace skinref

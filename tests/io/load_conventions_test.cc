// The load-stage conventions: influence limits (reference/io/load_conventions.h) against a vertex whose eight
// weights are known, inverse bind matrices recomputed from the rest pose (the rest pose then skins to the bind
// positions), and the "no joint" sentinel while reading JOINTS (io/gltf_load.h): accepted with weight 0 only.
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "io/gltf_load.h"
#include "io/load_conventions.h"
#include "support/convention_scene.h"
#include "support/gltf_builder.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

LoadConventions load_with(const char* assignment) {
  Conventions c;
  set_convention(c, assignment);
  return c.load;
}

// One skinned vertex with eight influences on joints 0..7.
Scene eight_influences() {
  Scene scene;
  scene.source = "test:eight-influences";
  for (int i = 0; i < 9; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    scene.nodes.push_back(node);
    scene.roots.push_back(i);
  }
  Primitive prim;
  prim.positions = {Vec3(1, 2, 3)};
  prim.influences_per_vertex = 8;
  prim.joints = {0, 1, 2, 3, 4, 5, 6, 7};
  prim.weights = {0.05, 0.3, 0.1, 0.02, 0.25, 0.08, 0.15, 0.05};
  Mesh mesh;
  mesh.primitives = {prim};
  scene.meshes = {mesh};
  Skin skin;
  skin.joints = {0, 1, 2, 3, 4, 5, 6, 7};
  skin.inverse_bind.assign(8, Mat4::Identity());
  scene.skins = {skin};
  scene.nodes[8].mesh = 0;
  scene.nodes[8].skin = 0;
  finalize_scene(scene);
  return scene;
}

TEST(LoadConventionsTest, InfluenceLimits) {
  struct Case {
    const char* convention;
    int influences_per_vertex;
    std::vector<uint32_t> joints;
    std::vector<double> weights;
  };
  const double top4 = 0.3 + 0.25 + 0.15 + 0.1;
  const Case cases[] = {
      {"influences=first-set", 4, {0, 1, 2, 3}, {0.05, 0.3, 0.1, 0.02}},
      {"influences=top4", 4, {1, 4, 6, 2}, {0.3, 0.25, 0.15, 0.1}},
      {"influences=top4-renormalized", 4, {1, 4, 6, 2}, {0.3 / top4, 0.25 / top4, 0.15 / top4, 0.1 / top4}},
      {"influences=top2", 4, {1, 4, 0, 0}, {0.3, 0.25, 0.0, 0.0}},
      // Equal weights (0.05 on joints 0 and 7): the earlier slot is kept.
      {"influences=top6", 8, {1, 4, 6, 2, 5, 0, 0, 0}, {0.3, 0.25, 0.15, 0.1, 0.08, 0.05, 0.0, 0.0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.convention);
    Scene scene = eight_influences();
    apply_load_conventions(scene, load_with(c.convention));
    const Primitive& prim = scene.meshes[0].primitives[0];
    EXPECT_EQ(prim.influences_per_vertex, c.influences_per_vertex);
    EXPECT_EQ(prim.joints, c.joints);
    ASSERT_EQ(prim.weights.size(), c.weights.size());
    for (size_t i = 0; i < c.weights.size(); ++i) EXPECT_DOUBLE_EQ(prim.weights[i], c.weights[i]) << i;
    finalize_scene(scene);  // still a valid scene
  }
}

TEST(LoadConventionsTest, InverseBindFromTheRestPoseSkinsTheRestPoseToTheBindPositions) {
  Scene scene = testing::make_convention_scene();
  apply_load_conventions(scene, load_with("inverse-bind=from-rest-pose"));
  const EvaluatedPose rest = evaluate_pose(scene, -1, 0.0);
  for (const Mat4& joint : rest.palettes[0].skinning)
    EXPECT_LT((joint - Mat4::Identity()).cwiseAbs().maxCoeff(), 1e-14);
}

TEST(LoadConventionsTest, AJointSentinelIsAcceptedWithWeightZeroOnly) {
  using test::SkinnedModel;
  test::TempDir dir;
  auto load = [&](test::GltfBuilder& model, JointSentinel sentinel) {
    const std::string path = dir.file("sentinel.gltf");
    test::write_bytes(path, model.to_gltf_string());
    return load_gltf_file(path, sentinel);
  };
  // Vertex 0 has weights (1, 0, 0, 0): its third joint becomes 0xFFFF, "no joint", with weight 0.
  test::GltfBuilder model = test::make_skinned_model();
  model.overwrite_u16(model.data_offset(SkinnedModel::kJoints) + 2 * 2, 0xFFFF);
  try {
    load(model, JointSentinel::None);
    ADD_FAILURE() << "glTF refuses a joint index outside the skin";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("joint indices < 2"), std::string::npos) << error.what();
  }
  EXPECT_THROW(load(model, JointSentinel::U8Max), InputError);  // 255 is not 65535
  for (const JointSentinel sentinel : {JointSentinel::AllOnes, JointSentinel::U16Max}) {
    const Scene scene = load(model, sentinel);
    EXPECT_EQ(scene.meshes[0].primitives[0].joints[2], 0u);
    EXPECT_EQ(scene.meshes[0].primitives[0].weights[2], 0.0);
  }
  // With a weight, the sentinel is still refused.
  test::GltfBuilder weighted = test::make_skinned_model();
  weighted.overwrite_u16(weighted.data_offset(SkinnedModel::kJoints), 0xFFFF);  // vertex 0, weight 1
  try {
    load(weighted, JointSentinel::AllOnes);
    ADD_FAILURE() << "a sentinel with weight 1 was accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("weight 0 where JOINTS_0 holds the no-joint sentinel 65535"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("WEIGHTS_0"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace skinref

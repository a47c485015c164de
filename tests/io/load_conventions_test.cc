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
    LoadConventions reading;
    reading.joint_sentinel = sentinel;
    return load_gltf_file(path, reading);
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

// The conformance suite's load-stage departures, each on a small scene against what the engine would read.
TEST(LoadConventionsTest, RawWeightsAreTheStoredIntegers) {
  Scene scene = eight_influences();
  Primitive& prim = scene.meshes[0].primitives[0];
  prim.weights = {128.0 / 255, 127.0 / 255, 0, 0, 0.5, 0.25, 0.25, 0};
  prim.weight_set_max = {255, 0};  // the first set stored as normalized bytes, the second as floats
  apply_load_conventions(scene, load_with("weight-decoding=raw"));
  EXPECT_EQ(scene.meshes[0].primitives[0].weights, (std::vector<double>{128, 127, 0, 0, 0.5, 0.25, 0.25, 0}));
}

TEST(LoadConventionsTest, NodeMatricesIgnoredOrWithoutTheirReflection) {
  Scene scene = eight_influences();
  scene.nodes[1].had_matrix = true;
  scene.nodes[1].rest.translation = Vec3(1, 2, 3);
  scene.nodes[1].rest.scale = Vec3(-2, 1, 1);  // a reflection, carried on x
  scene.nodes[2].rest.scale = Vec3(-1, 1, 1);  // TRS in the file: never touched
  Scene ignored = scene, lost = scene;
  apply_load_conventions(ignored, load_with("node-matrix=ignored"));
  EXPECT_EQ(ignored.nodes[1].rest.translation, Vec3::Zero());
  EXPECT_EQ(ignored.nodes[1].rest.scale, Vec3::Ones());
  EXPECT_EQ(ignored.nodes[2].rest.scale, Vec3(-1, 1, 1));
  apply_load_conventions(lost, load_with("node-matrix=reflection-lost"));
  EXPECT_EQ(lost.nodes[1].rest.translation, Vec3(1, 2, 3));
  EXPECT_EQ(lost.nodes[1].rest.scale, Vec3(2, 1, 1));
  EXPECT_EQ(lost.nodes[2].rest.scale, Vec3(-1, 1, 1));
}

TEST(LoadConventionsTest, ChannelsFindTheFirstNodeOfTheirTargetsName) {
  Scene scene = eight_influences();
  scene.nodes[5].name = scene.nodes[2].name;  // "n2" twice
  Animation animation;
  AnimationSampler sampler;
  sampler.times = {0.0};
  sampler.values = {1, 2, 3};
  sampler.components = 3;
  animation.samplers = {sampler};
  animation.channels = {{0, 5, ChannelPath::Translation}, {0, 3, ChannelPath::Translation}};
  scene.animations = {animation};
  finalize_scene(scene);
  apply_load_conventions(scene, load_with("channel-target=first-named"));
  EXPECT_EQ(scene.animations[0].channels[0].node, 2);
  EXPECT_EQ(scene.animations[0].channels[1].node, 3);
}

TEST(LoadConventionsTest, JointsReadAsNodeIndices) {
  Scene scene = eight_influences();
  scene.skins[0].joints = {7, 6, 5, 4, 3, 2, 1, 0};  // skin joint i is node 7 - i
  scene.meshes[0].primitives[0].joints = {0, 1, 2, 3, 4, 5, 6, 7};
  apply_load_conventions(scene, load_with("joint-index=node"));
  // JOINTS value k is node k, which is skin joint 7 - k.
  EXPECT_EQ(scene.meshes[0].primitives[0].joints, (std::vector<uint32_t>{7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(LoadConventionsTest, MorphNormalDeltasIgnored) {
  Scene scene = eight_influences();
  MorphTarget target;
  target.position_deltas = {Vec3(1, 0, 0)};
  target.normal_deltas = {Vec3(0, 1, 0)};
  scene.meshes[0].primitives[0].targets = {target};
  apply_load_conventions(scene, load_with("morph-normals=ignored"));
  EXPECT_EQ(scene.meshes[0].primitives[0].targets[0].position_deltas.size(), 1u);
  EXPECT_TRUE(scene.meshes[0].primitives[0].targets[0].normal_deltas.empty());
}

// ---- the loader's own reading: accessor-addressing and sparse (io/accessor.h) --------------------------------------

const std::vector<Vec3>& positions_of(const Scene& scene) { return scene.meshes[0].primitives[0].positions; }

Scene load_read_as(const test::GltfBuilder& model, AccessorAddressing addressing, SparseAccessors sparse) {
  LoadConventions reading;
  reading.accessor_addressing = addressing;
  reading.sparse = sparse;
  return load_gltf_memory(model.to_gltf_string(), "reading.gltf", "", reading);
}

// The strip's six positions (gltf_builder.h), x = v % 2, y = v / 2.
Vec3 strip_position(size_t v) { return Vec3(double(v % 2), double(v / 2), 0.0); }

TEST(LoadConventionsTest, SparseIgnoredKeepsTheBaseAndTheFileIsStillChecked) {
  test::GltfBuilder model = test::make_skinned_model();
  model.make_sparse(test::SkinnedModel::kPositions, {1, 3}, {0.5f, 0.5f, 0, 0.5f, 1.5f, 0});
  const Scene applied = load_read_as(model, AccessorAddressing::Specified, SparseAccessors::Applied);
  const Scene ignored = load_read_as(model, AccessorAddressing::Specified, SparseAccessors::Ignored);
  for (size_t v = 0; v < 6; ++v) {
    EXPECT_EQ(positions_of(ignored)[v], strip_position(v)) << v;
    const Vec3 substituted = v == 1 ? Vec3(0.5, 0.5, 0) : v == 3 ? Vec3(0.5, 1.5, 0) : strip_position(v);
    EXPECT_EQ(positions_of(applied)[v], substituted) << v;
  }
  // Sparse indices out of order are refused under either reading: the file is not glTF.
  test::GltfBuilder disordered = test::make_skinned_model();
  disordered.make_sparse(test::SkinnedModel::kPositions, {3, 1}, {0.5f, 0.5f, 0, 0.5f, 1.5f, 0});
  EXPECT_THROW(load_read_as(disordered, AccessorAddressing::Specified, SparseAccessors::Ignored), InputError);
}

// POSITION re-stored with a stride of 16 bytes (each element followed by the float 7) and 16 bytes into its
// view (four floats 9 before it): packed reading takes element v from float 3v of the strided data, view-start
// reading from float 4v of the whole view.
TEST(LoadConventionsTest, PackedAndViewStartReadingsTakeTheBytesAnEngineWithTheDefectTakes) {
  test::GltfBuilder model = test::make_skinned_model();
  std::vector<float> view = {9, 9, 9, 9};
  for (size_t v = 0; v < 6; ++v) {
    const Vec3 p = strip_position(v);
    view.insert(view.end(), {float(p.x()), float(p.y()), float(p.z()), 7.0f});
  }
  const size_t offset = model.append_floats(view);
  const int strided = model.add_buffer_view(offset, view.size() * 4, 16);
  const int accessor = model.add_accessor(strided, 16, 5126, 6, "VEC3");
  model.json["accessors"][accessor]["min"] = {0, 0, 0};
  model.json["accessors"][accessor]["max"] = {1, 2, 0};
  model.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = accessor;

  const Scene specified = load_read_as(model, AccessorAddressing::Specified, SparseAccessors::Applied);
  const Scene packed = load_read_as(model, AccessorAddressing::Packed, SparseAccessors::Applied);
  const Scene view_start = load_read_as(model, AccessorAddressing::ViewStart, SparseAccessors::Applied);
  for (size_t v = 0; v < 6; ++v) {
    EXPECT_EQ(positions_of(specified)[v], strip_position(v)) << v;
    const size_t p = 4 + 3 * v, s = 4 * v;  // first float read: after the offset, packed; at the view's start, strided
    EXPECT_EQ(positions_of(packed)[v], Vec3(view[p], view[p + 1], view[p + 2])) << v;
    EXPECT_EQ(positions_of(view_start)[v], Vec3(view[s], view[s + 1], view[s + 2])) << v;
  }
}

}  // namespace
}  // namespace skinref

// The glTF loader on valid input: every value the Scene holds is compared with what the test wrote into the
// file, by hand. Covers node ordering and active scenes, matrix decomposition, default inverse bind
// matrices, every component type and normalization the loader converts, interleaved and sparse data, mesh
// quantization, more than four influences, morph targets and weights, sampler layouts per interpolation,
// .glb against .gltf, non-indexed primitives and strip / fan expansion.
#include "io/gltf_load.h"
#include "support/gltf_builder.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::GltfBuilder;
using test::make_skinned_model;
using test::primitive0;
using M = test::SkinnedModel;
using nlohmann::json;

const std::string kFile = "test.gltf";

Scene load(const GltfBuilder& model) { return load_gltf_memory(model.to_gltf_string(), kFile, ""); }

// The positions make_skinned_model() writes, as doubles.
const std::vector<Vec3> kBasePositions = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0),
                                          Vec3(1, 1, 0), Vec3(0, 2, 0), Vec3(1, 2, 0)};

void expect_positions(const std::vector<Vec3>& actual, const std::vector<Vec3>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t v = 0; v < expected.size(); ++v) {
    EXPECT_EQ(actual[v].x(), expected[v].x()) << "vertex " << v;
    EXPECT_EQ(actual[v].y(), expected[v].y()) << "vertex " << v;
    EXPECT_EQ(actual[v].z(), expected[v].z()) << "vertex " << v;
  }
}

void expect_identity_rotation(const Quat& q) {
  EXPECT_EQ(q.x(), 0.0);
  EXPECT_EQ(q.y(), 0.0);
  EXPECT_EQ(q.z(), 0.0);
  EXPECT_EQ(q.w(), 1.0);
}

// Triangles rotated so that each starts at its smallest index: the same triangle with the same winding
// compares equal however the loader chose its first vertex.
std::vector<std::array<uint32_t, 3>> canonical_triangles(const std::vector<uint32_t>& indices) {
  std::vector<std::array<uint32_t, 3>> triangles;
  for (size_t i = 0; i + 2 < indices.size(); i += 3) {
    std::array<uint32_t, 3> t = {indices[i], indices[i + 1], indices[i + 2]};
    while (t[0] > t[1] || t[0] > t[2]) t = {t[1], t[2], t[0]};
    triangles.push_back(t);
  }
  return triangles;
}

// Twice the signed area of triangle (a, b, c) in the z = 0 plane: positive when counter-clockwise.
double signed_area_xy(const Vec3& a, const Vec3& b, const Vec3& c) {
  return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
}

// ---- the base model, read completely ----------------------------------------------------------------------------

TEST(LoaderValid, SkinnedModelReadsExactly) {
  const Scene scene = load(make_skinned_model());
  EXPECT_EQ(scene.source, kFile);

  ASSERT_EQ(scene.nodes.size(), 3u);
  EXPECT_EQ(scene.nodes[0].name, "root_joint");
  EXPECT_EQ(scene.nodes[0].parent, -1);
  EXPECT_EQ(scene.nodes[0].children, std::vector<int>({1}));
  EXPECT_EQ(scene.nodes[1].name, "child_joint");
  EXPECT_EQ(scene.nodes[1].parent, 0);
  EXPECT_TRUE(scene.nodes[1].children.empty());
  EXPECT_EQ(scene.nodes[1].rest.translation, Vec3(0, 1, 0));
  expect_identity_rotation(scene.nodes[1].rest.rotation);
  EXPECT_EQ(scene.nodes[1].rest.scale, Vec3(1, 1, 1));
  EXPECT_FALSE(scene.nodes[1].had_matrix);
  EXPECT_EQ(scene.nodes[2].mesh, 0);
  EXPECT_EQ(scene.nodes[2].skin, 0);
  EXPECT_EQ(scene.nodes[2].camera, -1);
  EXPECT_EQ(scene.nodes[2].parent, -1);
  EXPECT_TRUE(scene.nodes[2].morph_weights.empty());
  for (const Node& node : scene.nodes) EXPECT_TRUE(node.in_active_scene) << node.name;
  EXPECT_EQ(scene.roots, std::vector<int>({0, 2}));

  ASSERT_EQ(scene.meshes.size(), 1u);
  ASSERT_EQ(scene.meshes[0].primitives.size(), 1u);
  const Primitive& p = scene.meshes[0].primitives[0];
  EXPECT_EQ(p.topology, Topology::Triangles);
  EXPECT_TRUE(p.indexed);
  EXPECT_EQ(p.indices, std::vector<uint32_t>({0, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5}));
  expect_positions(p.positions, kBasePositions);
  ASSERT_EQ(p.normals.size(), 6u);
  for (const Vec3& n : p.normals) EXPECT_EQ(n, Vec3(0, 0, 1));
  EXPECT_TRUE(p.tangents.empty());
  EXPECT_TRUE(p.texcoords0.empty());
  EXPECT_EQ(p.influences_per_vertex, 4);
  EXPECT_EQ(p.joints, std::vector<uint32_t>({0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(p.weights, std::vector<double>({1, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0,
                                            0, 1, 0, 0, 0, 1, 0, 0}));
  EXPECT_TRUE(p.targets.empty());
  EXPECT_EQ(p.material, -1);
  EXPECT_TRUE(scene.meshes[0].default_weights.empty());

  ASSERT_EQ(scene.skins.size(), 1u);
  EXPECT_EQ(scene.skins[0].joints, std::vector<int>({0, 1}));
  EXPECT_EQ(scene.skins[0].skeleton, -1);
  ASSERT_EQ(scene.skins[0].inverse_bind.size(), 2u);
  EXPECT_EQ(scene.skins[0].inverse_bind[0], Mat4::Identity());
  Mat4 down = Mat4::Identity();
  down(1, 3) = -1.0;  // translation (0, -1, 0), stored column-major in the file
  EXPECT_EQ(scene.skins[0].inverse_bind[1], down);

  ASSERT_EQ(scene.animations.size(), 1u);
  const Animation& a = scene.animations[0];
  EXPECT_EQ(a.name, "bend");
  ASSERT_EQ(a.samplers.size(), 1u);
  EXPECT_EQ(a.samplers[0].interpolation, Interpolation::Linear);
  EXPECT_EQ(a.samplers[0].times, std::vector<double>({0, 1, 2}));
  EXPECT_EQ(a.samplers[0].components, 4);
  // The file holds float32 values of (0, 0, sin(a/2), cos(a/2)) for a = 0, 45, 90 degrees.
  const double s22 = static_cast<float>(std::sin(std::numbers::pi / 8.0));
  const double c22 = static_cast<float>(std::cos(std::numbers::pi / 8.0));
  const double s45 = static_cast<float>(std::sin(std::numbers::pi / 4.0));
  EXPECT_EQ(a.samplers[0].values, std::vector<double>({0, 0, 0, 1, 0, 0, s22, c22, 0, 0, s45, s45}));
  ASSERT_EQ(a.channels.size(), 1u);
  EXPECT_EQ(a.channels[0].sampler, 0);
  EXPECT_EQ(a.channels[0].node, 1);
  EXPECT_EQ(a.channels[0].path, ChannelPath::Rotation);
  EXPECT_EQ(a.start_time, 0.0);
  EXPECT_EQ(a.end_time, 2.0);
}

// ---- hierarchy order and the active scene -----------------------------------------------------------------------

// Children with lower indices than their parents: 2 -> 1 -> 0 and 3 -> 4; 5 stands alone.
GltfBuilder make_hierarchy() {
  GltfBuilder model;
  model.add_node({{"name", "leaf"}});                                        // 0
  model.add_node({{"name", "middle"}, {"children", json::array({0})}});      // 1
  model.add_node({{"name", "top"}, {"children", json::array({1})}});         // 2
  model.add_node({{"name", "other_root"}, {"children", json::array({4})}});  // 3
  model.add_node({{"name", "other_leaf"}});                                  // 4
  model.add_node({{"name", "lonely"}});                                      // 5
  model.add_scene({{"nodes", json::array({2})}});
  model.add_scene({{"nodes", json::array({3, 5})}});
  return model;
}

void expect_hierarchy(const Scene& scene) {
  ASSERT_EQ(scene.nodes.size(), 6u);
  const std::vector<int> expected_parents = {1, 2, -1, -1, 3, -1};
  for (size_t n = 0; n < expected_parents.size(); ++n) EXPECT_EQ(scene.nodes[n].parent, expected_parents[n]) << n;

  ASSERT_EQ(scene.node_order.size(), 6u);
  std::vector<int> position(6, -1);
  for (size_t i = 0; i < scene.node_order.size(); ++i) {
    const int node = scene.node_order[i];
    ASSERT_GE(node, 0);
    ASSERT_LT(node, 6);
    EXPECT_EQ(position[node], -1) << "node " << node << " listed twice";
    position[node] = static_cast<int>(i);
  }
  for (size_t n = 0; n < expected_parents.size(); ++n) {
    if (expected_parents[n] >= 0) {
      EXPECT_LT(position[expected_parents[n]], position[n]) << "node " << n;
    }
  }
}

TEST(LoaderValid, DefaultSceneChoosesSubsetAndOrderIsParentFirst) {
  GltfBuilder model = make_hierarchy();
  model.json["scene"] = 1;
  const Scene scene = load(model);
  expect_hierarchy(scene);
  EXPECT_EQ(scene.roots, std::vector<int>({3, 5}));
  const std::vector<bool> active = {false, false, false, true, true, true};
  for (size_t n = 0; n < active.size() && n < scene.nodes.size(); ++n) {
    EXPECT_EQ(scene.nodes[n].in_active_scene, active[n]) << n;
  }
}

TEST(LoaderValid, WithoutDefaultSceneTheFirstSceneIsActive) {
  const Scene scene = load(make_hierarchy());
  expect_hierarchy(scene);
  EXPECT_EQ(scene.roots, std::vector<int>({2}));
  const std::vector<bool> active = {true, true, true, false, false, false};
  for (size_t n = 0; n < active.size() && n < scene.nodes.size(); ++n) {
    EXPECT_EQ(scene.nodes[n].in_active_scene, active[n]) << n;
  }
}

TEST(LoaderValid, WithoutScenesEveryParentlessNodeIsARoot) {
  GltfBuilder model = make_hierarchy();
  model.json.erase("scenes");
  const Scene scene = load(model);
  expect_hierarchy(scene);
  EXPECT_EQ(scene.roots, std::vector<int>({2, 3, 5}));
  for (const Node& node : scene.nodes) EXPECT_TRUE(node.in_active_scene) << node.name;
}

// ---- node matrix decomposed into TRS ----------------------------------------------------------------------------

// Builds T * R * S with Eigen's own geometry module (independent of the loader's decomposition), stores it
// column-major in node 2, and checks the loaded TRS against the parts.
void check_matrix_decomposition(const Vec3& translation, const Quat& rotation, const Vec3& scale) {
  const Eigen::Affine3d affine = Eigen::Translation3d(translation) * rotation * Eigen::Scaling(scale);
  const Mat4 matrix = affine.matrix();
  json elements = json::array();
  for (int column = 0; column < 4; ++column) {
    for (int row = 0; row < 4; ++row) elements.push_back(matrix(row, column));
  }
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["matrix"] = elements;
  const Scene scene = load(model);
  ASSERT_EQ(scene.nodes.size(), 3u);
  const Node& node = scene.nodes[M::kMeshNode];
  EXPECT_TRUE(node.had_matrix);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(node.rest.translation[i], translation[i], tol::kClosedForm) << i;
    EXPECT_NEAR(node.rest.scale[i], scale[i], tol::kClosedForm) << i;
  }
  // q and -q are the same rotation: compare after aligning signs.
  const double sign = node.rest.rotation.dot(rotation) < 0 ? -1.0 : 1.0;
  EXPECT_NEAR(sign * node.rest.rotation.x(), rotation.x(), tol::kClosedForm);
  EXPECT_NEAR(sign * node.rest.rotation.y(), rotation.y(), tol::kClosedForm);
  EXPECT_NEAR(sign * node.rest.rotation.z(), rotation.z(), tol::kClosedForm);
  EXPECT_NEAR(sign * node.rest.rotation.w(), rotation.w(), tol::kClosedForm);
}

TEST(LoaderValid, NodeMatrixDecomposedToTrs) {
  const Quat rotation(Eigen::AngleAxisd(0.7, Vec3(1, 2, 2) / 3.0));
  check_matrix_decomposition(Vec3(1, -2, 3), rotation, Vec3(2, 0.5, 3));
}

TEST(LoaderValid, MirroredNodeMatrixCarriesNegativeXScale) {
  const Quat rotation(Eigen::AngleAxisd(-1.1, Vec3(0, 0.6, 0.8)));
  check_matrix_decomposition(Vec3(0.25, 4, -1), rotation, Vec3(-2, 0.5, 3));
}

// ---- skins ---------------------------------------------------------------------------------------------------

TEST(LoaderValid, MissingInverseBindMatricesAreIdentity) {
  GltfBuilder model = make_skinned_model();
  model.json["skins"][0].erase("inverseBindMatrices");
  const Scene scene = load(model);
  ASSERT_EQ(scene.skins.size(), 1u);
  ASSERT_EQ(scene.skins[0].inverse_bind.size(), 2u);
  EXPECT_EQ(scene.skins[0].inverse_bind[0], Mat4::Identity());
  EXPECT_EQ(scene.skins[0].inverse_bind[1], Mat4::Identity());
}

// ---- influence component types ------------------------------------------------------------------------------------

const Primitive& only_primitive(const Scene& scene) {
  if (scene.meshes.size() != 1 || scene.meshes[0].primitives.size() != 1) {
    throw std::runtime_error("expected exactly one mesh with one primitive");
  }
  return scene.meshes[0].primitives[0];
}

// A copy, so that the loaded Scene may go away.
Primitive load_primitive(const GltfBuilder& model) { return only_primitive(load(model)); }

TEST(LoaderValid, NormalizedU8WeightsAreCOver255) {
  GltfBuilder model = make_skinned_model();
  // 128 + 127 = 255: the middle row sums to exactly 1 as stored.
  primitive0(model)["attributes"]["WEIGHTS_0"] = model.add_u8_accessor(
      {255, 0, 0, 0, 255, 0, 0, 0, 128, 127, 0, 0, 128, 127, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0}, "VEC4", true);
  const Primitive p = load_primitive(model);
  const double h = 128.0 / 255.0;
  const double l = 127.0 / 255.0;
  EXPECT_EQ(p.weights, std::vector<double>({1, 0, 0, 0, 1, 0, 0, 0, h, l, 0, 0, h, l, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}));
}

TEST(LoaderValid, NormalizedU16WeightsAreCOver65535) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["attributes"]["WEIGHTS_0"] = model.add_u16_accessor(
      {65535, 0, 0, 0, 65535, 0, 0, 0, 40000, 25535, 0, 0, 40000, 25535, 0, 0, 0, 65535, 0, 0, 0, 65535, 0, 0},
      "VEC4", true);
  const Primitive p = load_primitive(model);
  const double h = 40000.0 / 65535.0;
  const double l = 25535.0 / 65535.0;
  EXPECT_EQ(p.weights, std::vector<double>({1, 0, 0, 0, 1, 0, 0, 0, h, l, 0, 0, h, l, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}));
}

TEST(LoaderValid, U8Joints) {
  GltfBuilder model = make_skinned_model();
  const std::vector<uint8_t> joints = {1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0};
  primitive0(model)["attributes"]["JOINTS_0"] = model.add_u8_accessor(joints, "VEC4");
  const Primitive p = load_primitive(model);
  EXPECT_EQ(p.joints, std::vector<uint32_t>(joints.begin(), joints.end()));
}

TEST(LoaderValid, EightInfluencesFromTwoSets) {
  GltfBuilder model = make_skinned_model();
  std::vector<uint16_t> joints0, joints1;
  std::vector<float> weights0, weights1;
  for (int v = 0; v < M::kVertexCount; ++v) {
    joints0.insert(joints0.end(), {0, 1, 0, 1});
    joints1.insert(joints1.end(), {1, 0, 1, 0});
    weights0.insert(weights0.end(), {0.25f, 0.25f, 0.125f, 0.125f});  // binary fractions: exact in float
    weights1.insert(weights1.end(), {0.0625f, 0.0625f, 0.0625f, 0.0625f});
  }
  json& attributes = primitive0(model)["attributes"];
  attributes["JOINTS_0"] = model.add_u16_accessor(joints0, "VEC4");
  attributes["JOINTS_1"] = model.add_u16_accessor(joints1, "VEC4");
  attributes["WEIGHTS_0"] = model.add_float_accessor(weights0, "VEC4");
  attributes["WEIGHTS_1"] = model.add_float_accessor(weights1, "VEC4");
  const Primitive p = load_primitive(model);
  EXPECT_EQ(p.influences_per_vertex, 8);
  ASSERT_EQ(p.joints.size(), 8u * M::kVertexCount);
  ASSERT_EQ(p.weights.size(), 8u * M::kVertexCount);
  const std::array<uint32_t, 8> expected_joints = {0, 1, 0, 1, 1, 0, 1, 0};
  const std::array<double, 8> expected_weights = {0.25, 0.25, 0.125, 0.125, 0.0625, 0.0625, 0.0625, 0.0625};
  for (int v = 0; v < M::kVertexCount; ++v) {
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(p.joints[v * 8 + i], expected_joints[i]) << "vertex " << v << " influence " << i;
      EXPECT_EQ(p.weights[v * 8 + i], expected_weights[i]) << "vertex " << v << " influence " << i;
    }
  }
}

// ---- layouts: interleaved and sparse -----------------------------------------------------------------------------

TEST(LoaderValid, InterleavedPositionAndNormal) {
  GltfBuilder model = make_skinned_model();
  std::vector<float> interleaved;
  std::vector<Vec3> expected_normals;
  for (int v = 0; v < M::kVertexCount; ++v) {
    const Vec3& p = kBasePositions[v];
    const std::array<float, 3> n = v % 2 == 0 ? std::array<float, 3>{0, 0, 1} : std::array<float, 3>{0, 0.6f, 0.8f};
    interleaved.insert(interleaved.end(), {static_cast<float>(p.x()), static_cast<float>(p.y()),
                                           static_cast<float>(p.z()), n[0], n[1], n[2]});
    expected_normals.emplace_back(n[0], n[1], n[2]);
  }
  const size_t offset = model.append_floats(interleaved);
  const int view = model.add_buffer_view(offset, interleaved.size() * sizeof(float), 24);
  primitive0(model)["attributes"]["POSITION"] =
      model.add_accessor(view, 0, test::kComponentFloat, M::kVertexCount, "VEC3");
  primitive0(model)["attributes"]["NORMAL"] =
      model.add_accessor(view, 12, test::kComponentFloat, M::kVertexCount, "VEC3");
  const Primitive p = load_primitive(model);
  expect_positions(p.positions, kBasePositions);
  expect_positions(p.normals, expected_normals);
}

TEST(LoaderValid, SparsePositionsOverBaseData) {
  GltfBuilder model = make_skinned_model();
  model.make_sparse(M::kPositions, {1, 4}, {0.5f, 0.25f, 0, 0.75f, 1.5f, 0});
  std::vector<Vec3> expected = kBasePositions;
  expected[1] = Vec3(0.5, 0.25, 0);
  expected[4] = Vec3(0.75, 1.5, 0);
  expect_positions(load_primitive(model).positions, expected);
}

TEST(LoaderValid, SparsePositionsWithoutBufferViewStartFromZeros) {
  GltfBuilder model = make_skinned_model();
  const int positions = model.add_accessor(-1, 0, test::kComponentFloat, M::kVertexCount, "VEC3");
  model.make_sparse(positions, {2, 5}, {1, 1, 0, 1, 2, 0});
  primitive0(model)["attributes"]["POSITION"] = positions;
  std::vector<Vec3> expected(M::kVertexCount, Vec3::Zero());
  expected[2] = Vec3(1, 1, 0);
  expected[5] = Vec3(1, 2, 0);
  expect_positions(load_primitive(model).positions, expected);
}

// ---- quantized data ----------------------------------------------------------------------------------------

TEST(LoaderValid, RotationKeysAsNormalizedI16) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["samplers"][0]["output"] =
      model.add_i16_accessor({0, 0, 0, 32767, 0, 0, 12540, 30273, 0, 0, -32768, 0}, "VEC4", true);
  const Scene scene = load(model);
  ASSERT_EQ(scene.animations.size(), 1u);
  ASSERT_EQ(scene.animations[0].samplers.size(), 1u);
  // c / 32767, and -32768 clamps to -1 (glTF's max(c / 32767, -1)).
  EXPECT_EQ(scene.animations[0].samplers[0].values,
            std::vector<double>({0, 0, 0, 1, 0, 0, 12540.0 / 32767.0, 30273.0 / 32767.0, 0, 0, -1, 0}));
}

TEST(LoaderValid, RotationKeysAsNormalizedI8) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["samplers"][0]["output"] =
      model.add_i8_accessor({0, 0, 0, 127, 0, 0, 49, 117, 0, 0, -128, 0}, "VEC4", true);
  const Scene scene = load(model);
  ASSERT_EQ(scene.animations.size(), 1u);
  ASSERT_EQ(scene.animations[0].samplers.size(), 1u);
  EXPECT_EQ(scene.animations[0].samplers[0].values,
            std::vector<double>({0, 0, 0, 1, 0, 0, 49.0 / 127.0, 117.0 / 127.0, 0, 0, -1, 0}));
}

// POSITION as VEC3 i16 with byteStride 8, so that each element stays 4-byte aligned as glTF requires.
int add_i16_positions(GltfBuilder& model, const std::vector<int16_t>& xyz, bool normalized) {
  std::vector<int16_t> padded;
  for (size_t i = 0; i < xyz.size(); i += 3) padded.insert(padded.end(), {xyz[i], xyz[i + 1], xyz[i + 2], 0});
  const size_t offset = model.append_i16(padded);
  const int view = model.add_buffer_view(offset, padded.size() * sizeof(int16_t), 8);
  return model.add_accessor(view, 0, test::kComponentShort, xyz.size() / 3, "VEC3", normalized);
}

void require_mesh_quantization(GltfBuilder& model) {
  model.json["extensionsUsed"] = json::array({"KHR_mesh_quantization"});
  model.json["extensionsRequired"] = json::array({"KHR_mesh_quantization"});
}

TEST(LoaderValid, MeshQuantizationPositionsAsI16) {
  GltfBuilder model = make_skinned_model();
  require_mesh_quantization(model);
  primitive0(model)["attributes"]["POSITION"] =
      add_i16_positions(model, {0, 0, 0, 100, 0, 0, 0, 100, 0, 100, 100, 0, 0, 200, 0, -100, 200, -300}, false);
  expect_positions(load_primitive(model).positions,
                   {Vec3(0, 0, 0), Vec3(100, 0, 0), Vec3(0, 100, 0), Vec3(100, 100, 0), Vec3(0, 200, 0),
                    Vec3(-100, 200, -300)});
}

TEST(LoaderValid, MeshQuantizationPositionsAsNormalizedI16) {
  GltfBuilder model = make_skinned_model();
  require_mesh_quantization(model);
  primitive0(model)["attributes"]["POSITION"] = add_i16_positions(
      model, {0, 0, 0, 32767, 0, 0, 0, 16384, 0, 32767, 16384, 0, 0, 32767, 0, -32768, 32767, -16384}, true);
  const double half = 16384.0 / 32767.0;
  expect_positions(load_primitive(model).positions,
                   {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, half, 0), Vec3(1, half, 0), Vec3(0, 1, 0),
                    Vec3(-1, 1, -half)});
}

// ---- morph targets and weights ------------------------------------------------------------------------------------

TEST(LoaderValid, MorphTargetsAndWeights) {
  GltfBuilder model = make_skinned_model();
  std::vector<float> target0_positions, target0_normals, target1_positions;
  std::vector<Vec3> expected0_positions, expected0_normals, expected1_positions;
  for (int v = 0; v < M::kVertexCount; ++v) {
    target0_positions.insert(target0_positions.end(), {0, 0, 0.25f * static_cast<float>(v)});
    expected0_positions.emplace_back(0, 0, 0.25 * v);
    target0_normals.insert(target0_normals.end(), {0, 0.5f, 0});
    expected0_normals.emplace_back(0, 0.5, 0);
    target1_positions.insert(target1_positions.end(), {0.5f, 0, 0});
    expected1_positions.emplace_back(0.5, 0, 0);
  }
  model.add_morph_target(0, 0,
                         {{"POSITION", model.add_float_accessor(target0_positions, "VEC3")},
                          {"NORMAL", model.add_float_accessor(target0_normals, "VEC3")}});
  model.add_morph_target(0, 0, {{"POSITION", model.add_float_accessor(target1_positions, "VEC3")}});
  model.json["meshes"][0]["weights"] = json::array({0.25, 0.5});
  model.json["nodes"][M::kMeshNode]["weights"] = json::array({0.75, 0.125});
  // A second instance of the skinned mesh without its own weights: the mesh's defaults apply to it.
  const int second_instance = model.add_node({{"name", "second_instance"}, {"mesh", 0}, {"skin", 0}});
  model.json["scenes"][0]["nodes"].push_back(second_instance);
  // Animated weights: 3 keys x 2 targets.
  const int animated_weights = model.add_float_accessor({0, 1, 0.5f, 0.5f, 1, 0}, "SCALAR");
  model.json["animations"][0]["samplers"].push_back({{"input", M::kKeyTimes}, {"output", animated_weights}});
  model.json["animations"][0]["channels"].push_back(
      {{"sampler", 1}, {"target", {{"node", second_instance}, {"path", "weights"}}}});

  const Scene scene = load(model);
  const Primitive& p = only_primitive(scene);
  ASSERT_EQ(p.targets.size(), 2u);
  expect_positions(p.targets[0].position_deltas, expected0_positions);
  expect_positions(p.targets[0].normal_deltas, expected0_normals);
  EXPECT_TRUE(p.targets[0].tangent_deltas.empty());
  expect_positions(p.targets[1].position_deltas, expected1_positions);
  EXPECT_TRUE(p.targets[1].normal_deltas.empty());
  EXPECT_EQ(scene.meshes[0].default_weights, std::vector<double>({0.25, 0.5}));
  ASSERT_EQ(scene.nodes.size(), 4u);
  EXPECT_EQ(scene.nodes[M::kMeshNode].morph_weights, std::vector<double>({0.75, 0.125}));
  EXPECT_TRUE(scene.nodes[second_instance].morph_weights.empty());

  ASSERT_EQ(scene.animations.size(), 1u);
  const Animation& a = scene.animations[0];
  ASSERT_EQ(a.samplers.size(), 2u);
  EXPECT_EQ(a.samplers[1].components, 2);
  EXPECT_EQ(a.samplers[1].values, std::vector<double>({0, 1, 0.5, 0.5, 1, 0}));
  ASSERT_EQ(a.channels.size(), 2u);
  EXPECT_EQ(a.channels[1].path, ChannelPath::Weights);
  EXPECT_EQ(a.channels[1].node, second_instance);
}

// ---- sampler layouts ------------------------------------------------------------------------------------------

TEST(LoaderValid, SamplerOutputsPerInterpolation) {
  GltfBuilder model = make_skinned_model();
  json& animation = model.json["animations"][0];
  // STEP translation of the child joint over its own key times, which end after the other samplers' keys.
  const int step_times = model.add_float_accessor({0.5f, 3}, "SCALAR");
  const int step_values = model.add_float_accessor({0, 1, 0, 0, 2, 0}, "VEC3");
  animation["samplers"].push_back({{"input", step_times}, {"output", step_values}, {"interpolation", "STEP"}});
  animation["channels"].push_back(
      {{"sampler", 1}, {"target", {{"node", M::kChildJointNode}, {"path", "translation"}}}});
  // CUBICSPLINE scale of the root joint: per key in-tangent, value, out-tangent; element e is
  // (e, e + 0.5, e + 0.25), all exact in float.
  std::vector<float> cubic;
  std::vector<double> expected_cubic;
  for (int e = 0; e < 9; ++e) {
    cubic.insert(cubic.end(), {static_cast<float>(e), e + 0.5f, e + 0.25f});
    expected_cubic.insert(expected_cubic.end(), {static_cast<double>(e), e + 0.5, e + 0.25});
  }
  const int cubic_values = model.add_float_accessor(cubic, "VEC3");
  animation["samplers"].push_back(
      {{"input", M::kKeyTimes}, {"output", cubic_values}, {"interpolation", "CUBICSPLINE"}});
  animation["channels"].push_back({{"sampler", 2}, {"target", {{"node", M::kRootJointNode}, {"path", "scale"}}}});

  const Scene scene = load(model);
  ASSERT_EQ(scene.animations.size(), 1u);
  const Animation& a = scene.animations[0];
  ASSERT_EQ(a.samplers.size(), 3u);
  EXPECT_EQ(a.samplers[0].interpolation, Interpolation::Linear);
  EXPECT_EQ(a.samplers[0].values.size(), 12u);

  EXPECT_EQ(a.samplers[1].interpolation, Interpolation::Step);
  EXPECT_EQ(a.samplers[1].times, std::vector<double>({0.5, 3}));
  EXPECT_EQ(a.samplers[1].components, 3);
  EXPECT_EQ(a.samplers[1].values, std::vector<double>({0, 1, 0, 0, 2, 0}));

  EXPECT_EQ(a.samplers[2].interpolation, Interpolation::CubicSpline);
  EXPECT_EQ(a.samplers[2].times, std::vector<double>({0, 1, 2}));
  EXPECT_EQ(a.samplers[2].components, 3);
  EXPECT_EQ(a.samplers[2].values, expected_cubic);

  ASSERT_EQ(a.channels.size(), 3u);
  EXPECT_EQ(a.channels[1].path, ChannelPath::Translation);
  EXPECT_EQ(a.channels[1].node, M::kChildJointNode);
  EXPECT_EQ(a.channels[2].path, ChannelPath::Scale);
  EXPECT_EQ(a.channels[2].node, M::kRootJointNode);
  EXPECT_EQ(a.start_time, 0.0);
  EXPECT_EQ(a.end_time, 3.0);
}

// ---- .glb against .gltf ------------------------------------------------------------------------------------

void expect_same_primitive(const Primitive& a, const Primitive& b) {
  EXPECT_EQ(a.topology, b.topology);
  EXPECT_EQ(a.indexed, b.indexed);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_EQ(a.positions, b.positions);
  EXPECT_EQ(a.normals, b.normals);
  EXPECT_EQ(a.tangents, b.tangents);
  EXPECT_EQ(a.texcoords0, b.texcoords0);
  EXPECT_EQ(a.influences_per_vertex, b.influences_per_vertex);
  EXPECT_EQ(a.joints, b.joints);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.material, b.material);
  ASSERT_EQ(a.targets.size(), b.targets.size());
  for (size_t t = 0; t < a.targets.size(); ++t) {
    EXPECT_EQ(a.targets[t].position_deltas, b.targets[t].position_deltas);
    EXPECT_EQ(a.targets[t].normal_deltas, b.targets[t].normal_deltas);
    EXPECT_EQ(a.targets[t].tangent_deltas, b.targets[t].tangent_deltas);
  }
}

void expect_same_scene(const Scene& a, const Scene& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t n = 0; n < a.nodes.size(); ++n) {
    const Node& x = a.nodes[n];
    const Node& y = b.nodes[n];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.children, y.children);
    EXPECT_EQ(x.rest.translation, y.rest.translation);
    EXPECT_EQ(x.rest.rotation.coeffs(), y.rest.rotation.coeffs());
    EXPECT_EQ(x.rest.scale, y.rest.scale);
    EXPECT_EQ(x.had_matrix, y.had_matrix);
    EXPECT_EQ(x.mesh, y.mesh);
    EXPECT_EQ(x.skin, y.skin);
    EXPECT_EQ(x.camera, y.camera);
    EXPECT_EQ(x.morph_weights, y.morph_weights);
    EXPECT_EQ(x.in_active_scene, y.in_active_scene);
  }
  EXPECT_EQ(a.node_order, b.node_order);
  EXPECT_EQ(a.roots, b.roots);
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    EXPECT_EQ(a.meshes[m].default_weights, b.meshes[m].default_weights);
    ASSERT_EQ(a.meshes[m].primitives.size(), b.meshes[m].primitives.size());
    for (size_t p = 0; p < a.meshes[m].primitives.size(); ++p) {
      expect_same_primitive(a.meshes[m].primitives[p], b.meshes[m].primitives[p]);
    }
  }
  ASSERT_EQ(a.skins.size(), b.skins.size());
  for (size_t s = 0; s < a.skins.size(); ++s) {
    EXPECT_EQ(a.skins[s].joints, b.skins[s].joints);
    EXPECT_EQ(a.skins[s].inverse_bind, b.skins[s].inverse_bind);
    EXPECT_EQ(a.skins[s].skeleton, b.skins[s].skeleton);
  }
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t i = 0; i < a.animations.size(); ++i) {
    const Animation& x = a.animations[i];
    const Animation& y = b.animations[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.start_time, y.start_time);
    EXPECT_EQ(x.end_time, y.end_time);
    ASSERT_EQ(x.samplers.size(), y.samplers.size());
    for (size_t s = 0; s < x.samplers.size(); ++s) {
      EXPECT_EQ(x.samplers[s].interpolation, y.samplers[s].interpolation);
      EXPECT_EQ(x.samplers[s].times, y.samplers[s].times);
      EXPECT_EQ(x.samplers[s].values, y.samplers[s].values);
      EXPECT_EQ(x.samplers[s].components, y.samplers[s].components);
    }
    ASSERT_EQ(x.channels.size(), y.channels.size());
    for (size_t c = 0; c < x.channels.size(); ++c) {
      EXPECT_EQ(x.channels[c].sampler, y.channels[c].sampler);
      EXPECT_EQ(x.channels[c].node, y.channels[c].node);
      EXPECT_EQ(x.channels[c].path, y.channels[c].path);
    }
  }
  EXPECT_EQ(a.materials.size(), b.materials.size());
  EXPECT_EQ(a.textures.size(), b.textures.size());
  EXPECT_EQ(a.images.size(), b.images.size());
  EXPECT_EQ(a.cameras.size(), b.cameras.size());
}

TEST(LoaderValid, GlbLoadsLikeGltf) {
  const GltfBuilder model = make_skinned_model();
  const Scene from_gltf = load_gltf_memory(model.to_gltf_string(), kFile, "");
  const Scene from_glb = load_gltf_memory(model.to_glb_bytes(), "test.glb", "");
  EXPECT_EQ(from_glb.source, "test.glb");
  expect_same_scene(from_gltf, from_glb);
  // And both are the model that was written, not merely equal to each other.
  ASSERT_EQ(from_glb.meshes.size(), 1u);
  ASSERT_EQ(from_glb.meshes[0].primitives.size(), 1u);
  expect_positions(from_glb.meshes[0].primitives[0].positions, kBasePositions);
}

// ---- index generation and strip / fan expansion --------------------------------------------------------------

TEST(LoaderValid, NonIndexedPrimitiveGetsSequentialIndices) {
  GltfBuilder model = make_skinned_model();
  primitive0(model).erase("indices");
  const Primitive p = load_primitive(model);
  EXPECT_FALSE(p.indexed);
  EXPECT_EQ(p.topology, Topology::Triangles);
  EXPECT_EQ(p.indices, std::vector<uint32_t>({0, 1, 2, 3, 4, 5}));
}

TEST(LoaderValid, TriangleStripExpandsWithAlternatingWinding) {
  GltfBuilder model = make_skinned_model();
  primitive0(model).erase("indices");
  primitive0(model)["mode"] = test::kModeTriangleStrip;
  const Primitive p = load_primitive(model);
  EXPECT_FALSE(p.indexed);
  EXPECT_EQ(p.topology, Topology::Triangles);
  // glTF: triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}).
  const std::vector<std::array<uint32_t, 3>> expected = {{0, 1, 2}, {1, 3, 2}, {2, 3, 4}, {3, 5, 4}};
  EXPECT_EQ(canonical_triangles(p.indices), expected);
  // The base strip is counter-clockwise seen from +z: every expanded triangle must be too.
  ASSERT_EQ(p.indices.size(), 12u);
  for (size_t i = 0; i < p.indices.size(); i += 3) {
    EXPECT_GT(signed_area_xy(p.positions[p.indices[i]], p.positions[p.indices[i + 1]],
                             p.positions[p.indices[i + 2]]),
              0.0)
        << "triangle " << i / 3;
  }
}

TEST(LoaderValid, IndexedTriangleStripUsesIndexValues) {
  GltfBuilder model = make_skinned_model();
  // Swapping each pair of strip vertices turns the whole strip clockwise.
  primitive0(model)["indices"] = model.add_u16_accessor({1, 0, 3, 2, 5, 4}, "SCALAR");
  primitive0(model)["mode"] = test::kModeTriangleStrip;
  const Primitive p = load_primitive(model);
  EXPECT_TRUE(p.indexed);
  // Strip triangles over the index list: (1,0,3) (0,2,3) (3,2,5) (2,4,5), each rotated to its smallest index.
  const std::vector<std::array<uint32_t, 3>> expected = {{0, 3, 1}, {0, 2, 3}, {2, 5, 3}, {2, 4, 5}};
  EXPECT_EQ(canonical_triangles(p.indices), expected);
  ASSERT_EQ(p.indices.size(), 12u);
  for (size_t i = 0; i < p.indices.size(); i += 3) {
    EXPECT_LT(signed_area_xy(p.positions[p.indices[i]], p.positions[p.indices[i + 1]],
                             p.positions[p.indices[i + 2]]),
              0.0)
        << "triangle " << i / 3;
  }
}

TEST(LoaderValid, TriangleFanExpands) {
  GltfBuilder model = make_skinned_model();
  primitive0(model).erase("indices");
  primitive0(model)["mode"] = test::kModeTriangleFan;
  const Primitive p = load_primitive(model);
  EXPECT_FALSE(p.indexed);
  // glTF: triangle i is (v_{i+1}, v_{i+2}, v_0).
  const std::vector<std::array<uint32_t, 3>> expected = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}};
  EXPECT_EQ(canonical_triangles(p.indices), expected);
}

}  // namespace
}  // namespace skinref

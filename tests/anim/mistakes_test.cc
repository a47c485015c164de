// The implementation mistakes (core/mistakes.h), each against a closed form or an independent computation
// from the glTF stages' own outputs: the palette's (transposed, the product reversed, the inverse bind
// missing, twice or transposed, the ancestors doubled), the hierarchy's (no parent chain, reversed, the TRS
// product in another order, built here with Eigen's geometry module), the reader's (quaternions read as wxyz,
// conjugated, the mesh's z negated), time and sampling (time units, the factor reversed, the key pair off by
// one, channels ignored), morph weights on the wrong targets, and skinning (skipped, weights equal, ones or
// the last derived, the first influence alone, joint indices off by one, normals unskinned, the mesh node
// twice). Every field's spelling round-trips, and is_mistake() tells the mistakes from the conventions.
#include "anim/evaluate_pose.h"
#include "anim/pose_mistakes.h"
#include "anim/scene_mistakes.h"
#include "io/builtin_scenes.h"
#include "io/load_conventions.h"
#include "skin/evaluate_vertices.h"
#include "skin/skinning_conventions.h"
#include "support/convention_scene.h"
#include "verify/convention_pipeline.h"

#include <Eigen/Geometry>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

// Rounding of a few double products: the mistakes' matrices are built in another order than the test's.
constexpr double kProductTolerance = 1e-12;

Conventions mistaken(std::initializer_list<const char*> assignments) {
  Conventions c;
  for (const char* a : assignments) set_convention(c, a);
  return c;
}

// The convention scene's pose at t = 1.3 (between keys of every channel) under `conventions`.
EvaluatedPose pose_under(const Scene& source, const Conventions& conventions, Scene* scene_out = nullptr) {
  Scene scene = source;
  apply_scene_conventions(scene, conventions);
  EvaluatedPose pose = evaluate_pose(scene, 0, 1.3, conventions);
  if (scene_out) *scene_out = scene;
  return pose;
}

void expect_near(const Mat4& actual, const Mat4& expected, const std::string& what) {
  EXPECT_LE((actual - expected).cwiseAbs().maxCoeff(), kProductTolerance * std::max(1.0, expected.norm()))
      << what << "\nactual\n" << actual << "\nexpected\n" << expected;
}

// The upper three rows of a 4x4 product, as the palette mistakes keep them.
Mat4 upper_rows(Mat4 m) {
  m.row(3) << 0.0, 0.0, 0.0, 1.0;
  return m;
}

TEST(MistakeFieldsTest, EverySpellingRoundTripsAndIsAMistake) {
  size_t mistakes = 0;
  for (const ConventionField& field : convention_fields())
    for (const std::string& value : field.mistakes) {
      ++mistakes;
      const std::string assignment = std::string(field.name) + "=" + value;
      Conventions c;
      set_convention(c, assignment);
      EXPECT_EQ(field.get(c), value) << assignment;
      EXPECT_TRUE(is_mistake(assignment)) << assignment;
      EXPECT_EQ(std::count(field.candidates.begin(), field.candidates.end(), value), 0) << assignment;
      EXPECT_EQ(convention_differences(c), std::vector<std::string>{assignment});
      EXPECT_TRUE(same_conventions(conventions_from_json(conventions_to_json(c)), c)) << assignment;
    }
  EXPECT_GE(mistakes, 30u);
  EXPECT_FALSE(is_mistake("rotation=nlerp"));
  EXPECT_FALSE(is_mistake("mesh-node=applied"));
  EXPECT_TRUE(is_mistake("mesh-node=applied-twice"));
  EXPECT_FALSE(is_mistake("no-such-field=x"));
  Conventions refused;
  EXPECT_THROW(set_convention(refused, "trs-order=x-y-z"), std::invalid_argument);
}

TEST(PaletteMistakeTest, EachJointMatrixAgainstItsProduct) {
  const Scene scene = testing::make_convention_scene();
  const EvaluatedPose gltf = pose_under(scene, {});
  const Skin& skin = scene.skins[0];
  struct Case {
    const char* assignment;
    std::function<Mat4(const Mat4& g, const Mat4& ibm)> expected;
  };
  const Case cases[] = {
      {"palette-matrices=transposed", [](const Mat4& g, const Mat4& ibm) { return upper_rows((g * ibm).transpose()); }},
      {"palette-product=inverse-bind-times-global", [](const Mat4& g, const Mat4& ibm) { return upper_rows(ibm * g); }},
      {"inverse-bind-use=missing", [](const Mat4& g, const Mat4&) { return g; }},
      {"inverse-bind-use=twice", [](const Mat4& g, const Mat4& ibm) { return upper_rows(g * ibm * ibm); }},
      {"inverse-bind-use=transposed", [](const Mat4& g, const Mat4& ibm) { return upper_rows(g * ibm.transpose()); }},
  };
  for (const Case& c : cases) {
    const EvaluatedPose pose = pose_under(scene, mistaken({c.assignment}));
    for (size_t j = 0; j < skin.joints.size(); ++j)
      expect_near(pose.palettes[0].skinning[j],
                  c.expected(gltf.model.global[size_t(skin.joints[j])], skin.inverse_bind[j]),
                  std::string(c.assignment) + " joint " + std::to_string(j));
  }
  // The transposed joint matrix of a rigid joint M = [R t] moves p to R^T p: the translation is lost.
  const Mat4 m = gltf.palettes[0].skinning[0];
  const Mat4 t = pose_under(scene, mistaken({"palette-matrices=transposed"})).palettes[0].skinning[0];
  EXPECT_EQ(Vec3(t.topRightCorner<3, 1>()), Vec3::Zero());
  EXPECT_LE((Mat3(t.topLeftCorner<3, 3>()) - Mat3(m.topLeftCorner<3, 3>().transpose())).cwiseAbs().maxCoeff(), 0.0);
}

TEST(PaletteMistakeTest, AncestorsDoubled) {
  const Scene scene = testing::make_convention_scene();
  const EvaluatedPose gltf = pose_under(scene, {});
  const EvaluatedPose doubled = pose_under(scene, mistaken({"skeleton-ancestors=doubled"}));
  const Skin& skin = scene.skins[0];
  const int above = scene.nodes[size_t(skeleton_root(scene, 0))].parent;
  ASSERT_GE(above, 0) << "the convention scene has a node above its skeleton root";
  for (size_t j = 0; j < skin.joints.size(); ++j)
    expect_near(doubled.palettes[0].skinning[j],
                gltf.model.global[size_t(above)] * gltf.model.global[size_t(skin.joints[j])] * skin.inverse_bind[j],
                "joint " + std::to_string(j));
}

// A node's local matrix in each order, from Eigen's Translation, Quaternion and Scaling.
TEST(HierarchyMistakeTest, TrsOrdersAndParentChains) {
  const Scene scene = testing::make_convention_scene();
  const EvaluatedPose gltf = pose_under(scene, {});
  auto local = [&](size_t n, const char* order) {
    const Transform& trs = gltf.local.local[n];
    const Eigen::Affine3d t(Eigen::Translation3d(trs.translation));
    const Eigen::Affine3d r(trs.rotation);
    const Eigen::Affine3d s(Eigen::Scaling(trs.scale));
    const std::string o = order;
    const Eigen::Affine3d m = o == "t-r-s" ? t * r * s : o == "s-r-t" ? s * r * t : o == "r-s-t" ? r * s * t : t * s * r;
    return Mat4(m.matrix());
  };
  for (const char* order : {"s-r-t", "r-s-t", "t-s-r"}) {
    const EvaluatedPose pose = pose_under(scene, mistaken({(std::string("trs-order=") + order).c_str()}));
    for (int n : scene.node_order) {
      const int parent = scene.nodes[size_t(n)].parent;
      const Mat4 expected = parent < 0 ? local(size_t(n), order) : Mat4(pose.model.global[size_t(parent)] * local(size_t(n), order));
      expect_near(pose.model.global[size_t(n)], expected, std::string(order) + " node " + std::to_string(n));
    }
  }
  const EvaluatedPose ignored = pose_under(scene, mistaken({"parent-chain=ignored"}));
  const EvaluatedPose reversed = pose_under(scene, mistaken({"parent-chain=reversed"}));
  for (int n : scene.node_order) {
    expect_near(ignored.model.global[size_t(n)], local(size_t(n), "t-r-s"), "ignored node " + std::to_string(n));
    const int parent = scene.nodes[size_t(n)].parent;
    const Mat4 expected = parent < 0 ? local(size_t(n), "t-r-s")
                                     : Mat4(local(size_t(n), "t-r-s") * reversed.model.global[size_t(parent)]);
    expect_near(reversed.model.global[size_t(n)], expected, "reversed node " + std::to_string(n));
  }
}

TEST(ReaderMistakeTest, QuaternionsReadAsWxyzOrConjugated) {
  Scene scene = make_builtin_scene("bend");
  Scene wxyz = scene, conjugated = scene;
  apply_scene_mistakes(wxyz, mistaken({"quaternion-order=wxyz"}).mistakes);
  apply_scene_mistakes(conjugated, mistaken({"rotation-sense=conjugated"}).mistakes);
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    const Quat q = scene.nodes[n].rest.rotation;
    // Stored (x, y, z, w) = (a, b, c, d) read as w = a, x = b, y = c, z = d.
    const Quat read = wxyz.nodes[n].rest.rotation;
    EXPECT_EQ(read.w(), q.x());
    EXPECT_EQ(read.x(), q.y());
    EXPECT_EQ(read.y(), q.z());
    EXPECT_EQ(read.z(), q.w());
    // The conjugate of a unit quaternion is the inverse rotation: R' = R^T.
    const Mat3 r = q.toRotationMatrix(), r_conjugated = conjugated.nodes[n].rest.rotation.toRotationMatrix();
    EXPECT_LE((r_conjugated - r.transpose()).cwiseAbs().maxCoeff(), kProductTolerance);
  }
  // The identity read as wxyz is the half turn about z: (x, y, z, w) = (0, 0, 1, 0).
  Scene identity = scene;
  identity.nodes[0].rest.rotation = Quat::Identity();
  apply_scene_mistakes(identity, mistaken({"quaternion-order=wxyz"}).mistakes);
  EXPECT_EQ(identity.nodes[0].rest.rotation.coeffs(), Eigen::Vector4d(0.0, 0.0, 1.0, 0.0));
}

TEST(ReaderMistakeTest, MeshZNegatedLeavesTheSkeleton) {
  const Scene scene = make_builtin_scene("bend");
  const Conventions c = mistaken({"handedness=mesh-z-negated", "skinning=skipped"});
  Scene read = scene;
  apply_scene_conventions(read, c);
  const std::vector<WorldPrimitive> out = evaluate_vertices(read, evaluate_pose(read, 0, 0.37, c), {}, c);
  const Primitive& prim = scene.meshes[0].primitives[0];
  for (size_t v = 0; v < prim.positions.size(); ++v)
    EXPECT_EQ(out[0].vertices.positions[v], Vec3(prim.positions[v].x(), prim.positions[v].y(), -prim.positions[v].z()));
  for (size_t n = 0; n < scene.nodes.size(); ++n)
    EXPECT_EQ(read.nodes[n].rest.translation, scene.nodes[n].rest.translation);
}

// One translation channel, keys 0, 10, 30 at t = 0, 1, 2 (x only).
struct ThreeKeys {
  Scene scene;
  ThreeKeys() {
    scene.nodes.resize(1);
    Animation& clip = scene.animations.emplace_back();
    AnimationSampler& s = clip.samplers.emplace_back();
    s.interpolation = Interpolation::Linear;
    s.components = 3;
    s.times = {0.0, 1.0, 2.0};
    s.values = {0, 0, 0, 10, 0, 0, 30, 0, 0};
    clip.channels.push_back({0, 0, ChannelPath::Translation});
    clip.end_time = 2.0;
  }
  double x_at(double t, std::initializer_list<const char*> assignments) const {
    LocalPose pose;
    pose.local.resize(1);
    pose.morph_weights.resize(1);
    sample_animation_with_mistakes(scene, 0, t, pose, {}, mistaken(assignments).mistakes);
    return pose.local[0].translation.x();
  }
};

TEST(SamplingMistakeTest, FactorReversedAndKeyPairsOffByOne) {
  const ThreeKeys keys;
  EXPECT_DOUBLE_EQ(keys.x_at(0.25, {}), 2.5);
  EXPECT_DOUBLE_EQ(keys.x_at(0.25, {"interpolation-factor=reversed"}), 7.5);
  EXPECT_DOUBLE_EQ(keys.x_at(1.25, {"interpolation-factor=reversed"}), 25.0);
  EXPECT_DOUBLE_EQ(keys.x_at(0.25, {"key-pair=one-late"}), 15.0);
  EXPECT_DOUBLE_EQ(keys.x_at(1.25, {"key-pair=one-late"}), 15.0);  // clamped to the last pair
  EXPECT_DOUBLE_EQ(keys.x_at(1.25, {"key-pair=one-early"}), 2.5);
  EXPECT_DOUBLE_EQ(keys.x_at(0.25, {"key-pair=one-early"}), 2.5);  // clamped to the first pair
  EXPECT_DOUBLE_EQ(keys.x_at(3.0, {"key-pair=one-late", "interpolation-factor=reversed"}), 30.0);  // past the end
  EXPECT_DOUBLE_EQ(keys.x_at(0.25, {"translation-channels=ignored"}), 0.0);  // the value it had
}

TEST(TimeMistakeTest, UnitsScaleThePlaybackTime) {
  const ThreeKeys keys;
  auto at = [&](double t, const char* assignment) { return convention_sample_time(keys.scene, 0, t, mistaken({assignment})); };
  EXPECT_DOUBLE_EQ(at(0.05, "time-unit=frames"), 1.5);
  EXPECT_DOUBLE_EQ(at(0.0015, "time-unit=milliseconds"), 1.5);
  EXPECT_DOUBLE_EQ(at(45.0, "time-unit=seconds-as-frames"), 1.5);
  EXPECT_DOUBLE_EQ(at(1500.0, "time-unit=seconds-as-milliseconds"), 1.5);
  EXPECT_EQ(at(0.7, "time-unit=seconds"), 0.7);
  const EvaluatedPose rest = evaluate_pose(keys.scene, 0, 0.7, mistaken({"animation=not-played"}));
  EXPECT_EQ(rest.local.local[0].translation, Vec3::Zero());
}

TEST(MorphMistakeTest, WeightsOnTheWrongTargets) {
  LocalPose pose;
  pose.morph_weights = {{0.1, 0.2, 0.3}, {}};
  LocalPose shifted = pose, reversed = pose;
  apply_morph_weight_mistake(MorphWeightTargets::Shifted, shifted);
  apply_morph_weight_mistake(MorphWeightTargets::Reversed, reversed);
  EXPECT_EQ(shifted.morph_weights[0], (std::vector<double>{0.3, 0.1, 0.2}));  // target k gets weight k - 1
  EXPECT_EQ(reversed.morph_weights[0], (std::vector<double>{0.3, 0.2, 0.1}));
  EXPECT_TRUE(shifted.morph_weights[1].empty());
}

TEST(SkinningMistakeTest, WeightRules) {
  const std::vector<uint32_t> joints = {0, 1, 2, 3};
  const std::vector<double> weights = {0.5, 0.3, 0.1, 0.3};
  auto adjusted = [&](const char* assignment) {
    return adjust_influences(joints, weights, 4, mistaken({assignment}).skinning).weights;
  };
  EXPECT_EQ(adjusted("weights=equal"), (std::vector<double>{0.25, 0.25, 0.25, 0.25}));
  EXPECT_EQ(adjusted("weights=ones"), (std::vector<double>{1.0, 1.0, 1.0, 1.0}));
  const std::vector<double> last = adjusted("weights=last-from-others");
  EXPECT_EQ(last[0], 0.5);
  EXPECT_DOUBLE_EQ(last[3], 1.0 - 0.9);
}

TEST(SkinningMistakeTest, FirstInfluenceKeepsItsStoredWeight) {
  Scene scene = testing::make_convention_scene();
  const Primitive before = scene.meshes[0].primitives[0];
  LoadConventions load;
  load.influences = InfluenceLimit::FirstInfluence;
  apply_load_conventions(scene, load);
  const Primitive& after = scene.meshes[0].primitives[0];
  ASSERT_EQ(after.influences_per_vertex, 4);
  const size_t k = size_t(before.influences_per_vertex);
  for (size_t v = 0; v < before.vertex_count(); ++v) {
    EXPECT_EQ(after.joints[v * 4], before.joints[v * k]);
    EXPECT_EQ(after.weights[v * 4], before.weights[v * k]);
    for (size_t i = 1; i < 4; ++i) EXPECT_EQ(after.weights[v * 4 + i], 0.0);
  }
}

// joint-offset=1 against glTF's evaluation of a scene whose joint indices are incremented and whose skin has an
// extra joint at the end, an identity node with the identity inverse bind matrix.
TEST(SkinningMistakeTest, JointOffsetByOneAgainstAnEditedScene) {
  const Scene scene = make_builtin_scene("bend");
  Scene edited = scene;
  Node identity;
  identity.name = "identity";
  edited.nodes.push_back(identity);
  edited.roots.push_back(int(edited.nodes.size()) - 1);
  edited.skins[0].joints.push_back(int(edited.nodes.size()) - 1);
  edited.skins[0].inverse_bind.push_back(Mat4::Identity());
  for (Mesh& mesh : edited.meshes)
    for (Primitive& prim : mesh.primitives)
      for (uint32_t& joint : prim.joints) ++joint;
  finalize_scene(edited);
  const Conventions offset = mistaken({"joint-offset=1"});
  const std::vector<WorldPrimitive> mistaken_out = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.37, offset), {}, offset);
  const std::vector<WorldPrimitive> expected = evaluate_vertices(edited, evaluate_pose(edited, 0, 0.37), {});
  for (size_t v = 0; v < expected[0].vertices.positions.size(); ++v)
    EXPECT_LE((mistaken_out[0].vertices.positions[v] - expected[0].vertices.positions[v]).norm(), kProductTolerance) << v;
}

TEST(SkinningMistakeTest, SkippedAndUnskinnedNormalsStayInBindSpace) {
  const Scene scene = make_builtin_scene("bend");
  const Primitive& prim = scene.meshes[0].primitives[0];
  const Conventions skipped = mistaken({"skinning=skipped"});
  const Conventions unskinned = mistaken({"normals=unskinned"});
  const std::vector<WorldPrimitive> a = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.37, skipped), {}, skipped);
  const std::vector<WorldPrimitive> b = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.37, unskinned), {}, unskinned);
  const std::vector<WorldPrimitive> gltf = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.37), {});
  for (size_t v = 0; v < prim.positions.size(); ++v) {
    EXPECT_EQ(a[0].vertices.positions[v], prim.positions[v]);
    EXPECT_EQ(a[0].vertices.normals[v], prim.normals[v]);
    EXPECT_LE((b[0].vertices.normals[v] - prim.normals[v].normalized()).norm(), kProductTolerance);
    EXPECT_LE((b[0].vertices.positions[v] - gltf[0].vertices.positions[v]).norm(), kProductTolerance);
  }
}

TEST(SkinningMistakeTest, MeshNodeAppliedTwiceIsAppliedOnceMore) {
  const Scene scene = testing::make_convention_scene();
  const Conventions once = mistaken({"mesh-node=applied"}), twice = mistaken({"mesh-node=applied-twice"});
  const EvaluatedPose pose = evaluate_pose(scene, 0, 1.3);
  const std::vector<WorldPrimitive> a = evaluate_vertices(scene, pose, {}, once);
  const std::vector<WorldPrimitive> b = evaluate_vertices(scene, pose, {}, twice);
  for (size_t p = 0; p < a.size(); ++p) {
    if (!a[p].skinned) continue;
    const Mat4& m = pose.model.global[size_t(a[p].node)];
    for (size_t v = 0; v < a[p].vertices.positions.size(); ++v) {
      const Vec3 expected = m.topLeftCorner<3, 3>() * a[p].vertices.positions[v] + m.topRightCorner<3, 1>();
      EXPECT_LE((b[p].vertices.positions[v] - expected).norm(), kProductTolerance * std::max(1.0, expected.norm()));
    }
  }
}

}  // namespace
}  // namespace skinref

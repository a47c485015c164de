// Tests of pose recipes (recipe.h): parsing (names resolved, defaults, every malformed case named by its JSON
// pointer, invalid JSON text, files) and evaluation (one clip bit-identical to evaluate_pose at the hand-mapped
// time, two-layer blends against blend_poses and closed-form angles, joint masks, additives, cross-fades
// before, during and after the fade, synchronised cross-fades, IK steps reaching their targets, the time
// override). The scene is builtin:bend with three more clips whose poses are known in closed form.
#include "anim/blending.h"
#include "anim/evaluate_pose.h"
#include "anim/local_to_model.h"
#include "anim/pose_selection.h"
#include "anim/recipe.h"
#include "core/input_error.h"
#include "io/builtin_scenes.h"
#include "support/math_expect.h"
#include "support/temp_dir.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using nlohmann::json;
using test::expect_matrix3_near;
using test::expect_vec3_near;

constexpr double kDegree = std::numbers::pi / 180.0;
constexpr char kFile[] = "test.recipe.json";

// Animation indices of the test scene.
constexpr int kMain = 0;   // builtin:bend's own: elbow about +Z, 0 -> 90 -> 0 degrees at t = 0, 0.5, 1
constexpr int kRaise = 1;  // shoulder about +Z 0 -> 60 degrees, elbow 0 -> -30, LINEAR over [0, 2]
constexpr int kSlide = 2;  // shoulder translation (0, 0, 0) -> (0, 2, 0), LINEAR over [0, 1]
constexpr int kCurl = 3;   // elbow about +Z 0 -> 90 degrees, LINEAR over [0, 1]

Quat z_degrees(double degrees) { return test::z_rotation(degrees * kDegree); }

// A two-key LINEAR channel from `a` at t = 0 to `b` at t = `end`.
void add_linear_channel(Animation& animation, int node, ChannelPath path, std::vector<double> a,
                        const std::vector<double>& b, double end) {
  AnimationSampler sampler;
  sampler.interpolation = Interpolation::Linear;
  sampler.times = {0.0, end};
  sampler.components = static_cast<int>(a.size());
  sampler.values = std::move(a);
  sampler.values.insert(sampler.values.end(), b.begin(), b.end());
  animation.samplers.push_back(std::move(sampler));
  animation.channels.push_back({static_cast<int>(animation.samplers.size()) - 1, node, path});
  animation.end_time = std::max(animation.end_time, end);
}

std::vector<double> xyzw(const Quat& q) {
  const auto v = quat_to_xyzw(q);
  return {v[0], v[1], v[2], v[3]};
}

class RecipeTest : public ::testing::Test {
 protected:
  RecipeTest() : scene_(make_builtin_scene("bend")) {
    shoulder_ = find_node(scene_, "shoulder");
    elbow_ = find_node(scene_, "elbow");
    wrist_ = find_node(scene_, "wrist");
    Animation raise;
    raise.name = "raise";
    add_linear_channel(raise, shoulder_, ChannelPath::Rotation, xyzw(Quat::Identity()), xyzw(z_degrees(60)), 2.0);
    add_linear_channel(raise, elbow_, ChannelPath::Rotation, xyzw(Quat::Identity()), xyzw(z_degrees(-30)), 2.0);
    Animation slide;
    slide.name = "slide";
    add_linear_channel(slide, shoulder_, ChannelPath::Translation, {0.0, 0.0, 0.0}, {0.0, 2.0, 0.0}, 1.0);
    Animation curl;
    curl.name = "curl";
    add_linear_channel(curl, elbow_, ChannelPath::Rotation, xyzw(Quat::Identity()), xyzw(z_degrees(90)), 1.0);
    scene_.animations.push_back(std::move(raise));
    scene_.animations.push_back(std::move(slide));
    scene_.animations.push_back(std::move(curl));
    finalize_scene(scene_);
  }

  Recipe parse(const json& recipe) const { return parse_recipe(recipe.dump(), kFile, scene_); }
  EvaluatedPose evaluate(const json& recipe) const { return evaluate_recipe(scene_, parse(recipe)); }

  // A recipe of the given layers at global time `time`.
  static json with_layers(const json& layers, double time) {
    return {{"format", "skinref-recipe"}, {"version", 1}, {"time", time}, {"layers", layers}};
  }

  // The local rotation of `node` is the rotation by `degrees` about +Z.
  void expect_z_rotation(const EvaluatedPose& pose, int node, double degrees) const {
    SCOPED_TRACE("node " + scene_.nodes[size_t(node)].name + ", expected " + std::to_string(degrees) + " degrees");
    expect_matrix3_near(pose.local.local[size_t(node)].rotation.toRotationMatrix(),
                        test::rotation(degrees * kDegree, Vec3::UnitZ()), tol::kClosedForm);
  }

  Vec3 position(const EvaluatedPose& pose, int node) const { return pose.model.global[size_t(node)].block<3, 1>(0, 3); }

  Scene scene_;
  int shoulder_ = -1, elbow_ = -1, wrist_ = -1;
};

void expect_same_transform(const Transform& actual, const Transform& expected, const std::string& where) {
  EXPECT_TRUE(actual.translation == expected.translation) << where << " translation " << actual.translation.transpose()
                                                          << " vs " << expected.translation.transpose();
  EXPECT_TRUE(actual.rotation.coeffs() == expected.rotation.coeffs())
      << where << " rotation " << actual.rotation.coeffs().transpose() << " vs "
      << expected.rotation.coeffs().transpose();
  EXPECT_TRUE(actual.scale == expected.scale) << where << " scale";
}

// Every local TRS, morph weight, global matrix and palette entry bit for bit.
void expect_same_pose(const EvaluatedPose& actual, const EvaluatedPose& expected) {
  ASSERT_EQ(actual.local.local.size(), expected.local.local.size());
  ASSERT_EQ(actual.model.global.size(), expected.model.global.size());
  for (size_t n = 0; n < expected.local.local.size(); ++n) {
    expect_same_transform(actual.local.local[n], expected.local.local[n], "node " + std::to_string(n));
    EXPECT_EQ(actual.local.morph_weights[n], expected.local.morph_weights[n]) << "node " << n;
    EXPECT_TRUE(actual.model.global[n] == expected.model.global[n]) << "global of node " << n;
  }
  ASSERT_EQ(actual.palettes.size(), expected.palettes.size());
  for (size_t s = 0; s < expected.palettes.size(); ++s) {
    ASSERT_EQ(actual.palettes[s].skinning.size(), expected.palettes[s].skinning.size());
    for (size_t j = 0; j < expected.palettes[s].skinning.size(); ++j) {
      EXPECT_TRUE(actual.palettes[s].skinning[j] == expected.palettes[s].skinning[j]) << "skin " << s << " joint " << j;
      EXPECT_TRUE(actual.palettes[s].normal[j] == expected.palettes[s].normal[j]) << "skin " << s << " joint " << j;
    }
  }
}

// ---- evaluation -------------------------------------------------------------------------------------------

struct MappedCase {
  const char* name;
  json playback;
  double tau;
  int animation;
  double local_time;  // worked out by hand from time_mapping.h's formulas
};

TEST_F(RecipeTest, OneClipIsEvaluatePoseAtTheMappedTimeBitForBit) {
  const std::vector<MappedCase> cases{
      // u = (1 - 0.25) * 2 = 1.5, looped over D = 1: 0.5.
      {"loop", {{"animation", "main"}, {"start", 0.25}, {"rate", 2.0}, {"mode", "loop"}}, 1.0, kMain, 0.5},
      // Backwards once: D - 0.25.
      {"reverse", {{"animation", 0}, {"rate", -1.0}}, 0.25, kMain, 0.75},
      // u = 3 over D = 2 ping-pong: 3 mod 4 = 3, reflected to 4 - 3 = 1.
      {"pingpong", {{"animation", "raise"}, {"mode", "pingpong"}}, 3.0, kRaise, 1.0},
      // Two loop passes of D = 1 end at u = 2; later the last frame (D) holds.
      {"repetitions", {{"animation", "curl"}, {"mode", "loop"}, {"repetitions", 2}}, 2.5, kCurl, 1.0},
      // Before the start the first frame holds.
      {"before start", {{"animation", "raise"}, {"start", 1.0}}, 0.5, kRaise, 0.0},
  };
  for (const MappedCase& c : cases) {
    SCOPED_TRACE(c.name);
    const EvaluatedPose pose = evaluate(with_layers({{{"clip", c.playback}}}, c.tau));
    EXPECT_EQ(pose.animation, -1);
    EXPECT_EQ(pose.time, c.tau);
    expect_same_pose(pose, evaluate_pose(scene_, c.animation, c.local_time));
  }
}

TEST_F(RecipeTest, TwoLayersBlendLikeBlendPosesByHand) {
  const double tau = 0.5;
  const EvaluatedPose pose = evaluate(
      with_layers({{{"clip", {{"animation", "curl"}}}}, {{"clip", {{"animation", "raise"}}}, {"weight", 1.0}}}, tau));
  const LocalPose curl = evaluate_pose(scene_, kCurl, tau).local;
  const LocalPose raise = evaluate_pose(scene_, kRaise, tau).local;
  const BlendLayer layers[] = {{&curl, 1.0, {}}, {&raise, 1.0, {}}};
  const LocalPose by_hand = blend_poses(layers, rest_pose(scene_));
  for (size_t n = 0; n < scene_.nodes.size(); ++n) {
    expect_same_transform(pose.local.local[n], by_hand.local[n], "node " + std::to_string(n));
  }
  const ModelPose model = local_to_model(scene_, by_hand);
  for (size_t n = 0; n < scene_.nodes.size(); ++n) EXPECT_TRUE(pose.model.global[n] == model.global[n]) << n;
  // Closed form: two rotations about one axis averaged with equal weights give the mean angle. Curl at 0.5
  // holds the elbow at 45 degrees, raise at 0.5 the shoulder at 15 and the elbow at -7.5.
  expect_z_rotation(pose, shoulder_, 7.5);
  expect_z_rotation(pose, elbow_, 18.75);
}

TEST_F(RecipeTest, SlerpBlendOfTwoLayersFollowsTheSecondWeight) {
  json recipe =
      with_layers({{{"clip", {{"animation", "curl"}}}}, {{"clip", {{"animation", "raise"}}}, {"weight", 3.0}}}, 0.5);
  recipe["rotation_blend"] = "slerp";
  const EvaluatedPose pose = evaluate(recipe);
  // slerp by 3 / (1 + 3): elbow 45 + 0.75 * (-7.5 - 45), shoulder 0.75 * 15.
  expect_z_rotation(pose, elbow_, 5.625);
  expect_z_rotation(pose, shoulder_, 11.25);
}

TEST_F(RecipeTest, SubtreeMaskLeavesOtherJointsAtTheFirstLayer) {
  const json masked_raise = {{"clip", {{"animation", "raise"}}}, {"mask", {{"joint", "elbow"}, {"subtree", true}}}};
  const EvaluatedPose pose = evaluate(with_layers({{{"clip", {{"animation", "curl"}}}}, masked_raise}, 0.5));
  const EvaluatedPose curl = evaluate_pose(scene_, kCurl, 0.5);
  // The shoulder is outside the mask: raise animates it (15 degrees) but only curl reaches it.
  expect_same_transform(pose.local.local[size_t(shoulder_)], curl.local.local[size_t(shoulder_)], "shoulder");
  expect_z_rotation(pose, elbow_, 18.75);

  // The same mask as per-node weights gives the same bits; "subtree": false is the joint alone, which here
  // (the wrist is not animated) is the same pose.
  std::vector<double> weights(scene_.nodes.size(), 0.0);
  weights[size_t(elbow_)] = weights[size_t(wrist_)] = 1.0;
  const json by_array = {{"clip", {{"animation", "raise"}}}, {"mask", weights}};
  expect_same_pose(evaluate(with_layers({{{"clip", {{"animation", "curl"}}}}, by_array}, 0.5)), pose);
  const json joint_only = {{"clip", {{"animation", "raise"}}}, {"mask", {{"joint", "elbow"}, {"subtree", false}}}};
  const EvaluatedPose alone = evaluate(with_layers({{{"clip", {{"animation", "curl"}}}}, joint_only}, 0.5));
  expect_same_transform(alone.local.local[size_t(elbow_)], pose.local.local[size_t(elbow_)], "elbow");

  // A node that no layer reaches keeps its rest pose exactly.
  const EvaluatedPose only_masked = evaluate(with_layers(json::array({masked_raise}), 0.5));
  expect_same_transform(only_masked.local.local[size_t(shoulder_)], scene_.nodes[size_t(shoulder_)].rest,
                        "shoulder");
  expect_z_rotation(only_masked, elbow_, -7.5);
}

TEST_F(RecipeTest, AdditiveWithItselfAsReferenceChangesNothing) {
  const json base = with_layers({{{"clip", {{"animation", "curl"}}}}}, 0.5);
  json recipe = base;
  recipe["additive"] = {{{"clip", {{"animation", "raise"}}},
                         {"reference", {{"animation", "raise"}, {"time", 0.5}}},
                         {"weight", 0.7}}};
  const EvaluatedPose with_additive = evaluate(recipe);
  const EvaluatedPose without = evaluate(base);
  for (size_t n = 0; n < scene_.nodes.size(); ++n) {
    SCOPED_TRACE("node " + std::to_string(n));
    const Transform& a = with_additive.local.local[n];
    const Transform& b = without.local.local[n];
    EXPECT_TRUE(a.translation == b.translation);
    EXPECT_TRUE(a.scale == b.scale);
    expect_matrix3_near(a.rotation.toRotationMatrix(), b.rotation.toRotationMatrix(), tol::kClosedForm);
  }
}

TEST_F(RecipeTest, AdditiveFromRestAddsTheClipsRotationByWeightAndMask) {
  // Base: curl at 0.5 (elbow 45). Additive: raise at 0.5 against the rest pose (shoulder 15, elbow -7.5).
  json recipe = with_layers({{{"clip", {{"animation", "curl"}}}}}, 0.5);
  recipe["additive"] = {{{"clip", {{"animation", "raise"}}}, {"reference", "rest"}}};
  EvaluatedPose pose = evaluate(recipe);
  expect_z_rotation(pose, shoulder_, 15.0);
  expect_z_rotation(pose, elbow_, 37.5);

  recipe["additive"][0]["weight"] = 0.5;
  pose = evaluate(recipe);
  expect_z_rotation(pose, shoulder_, 7.5);
  expect_z_rotation(pose, elbow_, 41.25);

  recipe["additive"][0]["mask"] = {{"joint", "elbow"}};
  pose = evaluate(recipe);
  expect_same_transform(pose.local.local[size_t(shoulder_)], scene_.nodes[size_t(shoulder_)].rest, "shoulder");
  expect_z_rotation(pose, elbow_, 41.25);
}

TEST_F(RecipeTest, CrossFadeBeforeDuringAndAfter) {
  const json fade = {{"crossfade",
                      {{"from", {{"animation", "raise"}}},
                       {"to", {{"animation", "slide"}}},
                       {"start", 0.5},
                       {"duration", 0.5}}}};
  // Before the fade only the outgoing clip plays; from its end on only the incoming one.
  expect_same_pose(evaluate(with_layers(json::array({fade}), 0.25)), evaluate_pose(scene_, kRaise, 0.25));
  expect_same_pose(evaluate(with_layers(json::array({fade}), 1.0)), evaluate_pose(scene_, kSlide, 1.0));
  expect_same_pose(evaluate(with_layers(json::array({fade}), 1.5)), evaluate_pose(scene_, kSlide, 1.5));

  // Halfway (tau 0.75, incoming weight 0.5): raise has the shoulder at 22.5 degrees and the elbow at
  // -11.25, slide the shoulder at (0, 1.5, 0); each is averaged with the other's rest value.
  const EvaluatedPose mid = evaluate(with_layers(json::array({fade}), 0.75));
  expect_vec3_near(mid.local.local[size_t(shoulder_)].translation, Vec3(0.0, 0.75, 0.0), tol::kClosedForm);
  expect_z_rotation(mid, shoulder_, 11.25);
  expect_z_rotation(mid, elbow_, -5.625);
  // A quarter of the way (tau 0.625): a quarter of slide's shoulder translation (0, 1.25, 0).
  const EvaluatedPose quarter = evaluate(with_layers(json::array({fade}), 0.625));
  expect_vec3_near(quarter.local.local[size_t(shoulder_)].translation, Vec3(0.0, 0.3125, 0.0), tol::kClosedForm);
}

TEST_F(RecipeTest, SyncedCrossFadePlaysTheIncomingClipAtTheOutgoingPhase) {
  // A cut at 0 from curl (D = 1) to raise (D = 2): at tau 0.25 curl's phase is 0.25, so raise plays at 0.5.
  json cut = {{"crossfade",
               {{"from", {{"animation", "curl"}}},
                {"to", {{"animation", "raise"}}},
                {"start", 0.0},
                {"duration", 0.0},
                {"sync", true}}}};
  expect_same_pose(evaluate(with_layers(json::array({cut}), 0.25)), evaluate_pose(scene_, kRaise, 0.5));
  cut["crossfade"]["sync"] = false;
  expect_same_pose(evaluate(with_layers(json::array({cut}), 0.25)), evaluate_pose(scene_, kRaise, 0.25));

  // During a synced fade (start 0, duration 1, tau 0.25: incoming weight 0.25), slerp-blended: curl has the
  // elbow at 22.5 degrees, raise at 0.5 the elbow at -7.5 and the shoulder at 15.
  json recipe = with_layers({{{"crossfade",
                               {{"from", {{"animation", "curl"}}},
                                {"to", {{"animation", "raise"}}},
                                {"start", 0.0},
                                {"duration", 1.0},
                                {"sync", true}}}}},
                            0.25);
  recipe["rotation_blend"] = "slerp";
  const EvaluatedPose pose = evaluate(recipe);
  expect_z_rotation(pose, elbow_, 15.0);     // 22.5 + 0.25 * (-7.5 - 22.5)
  expect_z_rotation(pose, shoulder_, 3.75);  // 0.25 * 15
}

TEST_F(RecipeTest, IkStepsReachTheirTargets) {
  // Curl at 0 leaves the arm straight along +X: shoulder at 0, elbow at 1, wrist at 2.
  const Vec3 target(1.2, 0.8, 0.0);
  const Vec3 pole(1.0, 1.0, 0.0);  // the bend plane is z = 0; the elbow goes to the pole's side
  const Vec3 aim_target(3.0, 2.0, 0.5);
  const Vec3 aim_pole(0.0, 0.0, 1.0);
  json recipe = with_layers({{{"clip", {{"animation", "curl"}}}}}, 0.0);
  recipe["ik"] = {{{"type", "two-bone"},
                   {"root", "shoulder"},
                   {"middle", "elbow"},
                   {"end", wrist_},
                   {"target", {target.x(), target.y(), target.z()}},
                   {"pole", {pole.x(), pole.y(), pole.z()}}},
                  {{"type", "aim"},
                   {"joint", "wrist"},
                   {"forward", {1.0, 0.0, 0.0}},
                   {"up", {0.0, 1.0, 0.0}},
                   {"target", {aim_target.x(), aim_target.y(), aim_target.z()}},
                   {"pole", {aim_pole.x(), aim_pole.y(), aim_pole.z()}}}};
  const EvaluatedPose pose = evaluate(recipe);
  const Vec3 shoulder = position(pose, shoulder_);
  const Vec3 elbow = position(pose, elbow_);
  const Vec3 wrist = position(pose, wrist_);
  expect_vec3_near(wrist, target, tol::kIkReach);
  EXPECT_NEAR((elbow - shoulder).norm(), 1.0, tol::kIkReach);
  EXPECT_NEAR((wrist - elbow).norm(), 1.0, tol::kIkReach);
  EXPECT_NEAR(elbow.z(), 0.0, tol::kIkReach);
  EXPECT_GT(target.cross(elbow).z() * target.cross(pole).z(), 0.0) << "the elbow is not on the pole's side";

  // The aim step ran after it: the wrist's +X points at its target, its +Y leans towards the pole.
  const Mat3 wrist_linear = pose.model.global[size_t(wrist_)].topLeftCorner<3, 3>();
  const Vec3 forward = wrist_linear * Vec3::UnitX();
  const Vec3 up = wrist_linear * Vec3::UnitY();
  expect_vec3_near(forward.normalized(), (aim_target - wrist).normalized(), tol::kIkReach);
  EXPECT_NEAR(up.dot(forward.cross(aim_pole)), 0.0, tol::kIkReach);
  EXPECT_GT(up.dot(aim_pole), 0.0);

  // The palettes are those of the solved pose.
  for (size_t j = 0; j < scene_.skins[0].joints.size(); ++j) {
    const int joint = scene_.skins[0].joints[j];
    test::expect_matrix_near(pose.palettes[0].skinning[j],
                             multiply_affine(pose.model.global[size_t(joint)], scene_.skins[0].inverse_bind[j]),
                             tol::kClosedForm);
  }
  // Weight 0 changes nothing, bit for bit.
  recipe["ik"][0]["weight"] = 0.0;
  recipe["ik"][1]["weight"] = 0.0;
  expect_same_pose(evaluate(recipe), evaluate_pose(scene_, kCurl, 0.0));
}

TEST_F(RecipeTest, SolverErrorsNameTheRecipeStep) {
  json recipe = with_layers({{{"clip", {{"animation", "curl"}}}}}, 0.0);
  // The wrist is at (2, 0, 0) at tau 0: there is no direction to aim at.
  recipe["ik"] = {{{"type", "aim"},
                   {"joint", "wrist"},
                   {"forward", {1.0, 0.0, 0.0}},
                   {"up", {0.0, 1.0, 0.0}},
                   {"target", {2.0, 0.0, 0.0}},
                   {"pole", {0.0, 0.0, 1.0}}}};
  const Recipe parsed = parse(recipe);
  try {
    evaluate_recipe(scene_, parsed);
    FAIL() << "aiming at the joint's own position was accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), kFile);
    EXPECT_EQ(error.json_path(), "/ik/0");
  }
}

TEST_F(RecipeTest, TimeArgumentOverridesTheRecipeTime) {
  const json recipe = with_layers({{{"clip", {{"animation", "raise"}}}}}, 1.5);
  const Recipe parsed = parse(recipe);
  const EvaluatedPose overridden = evaluate_recipe(scene_, parsed, 0.25);
  EXPECT_EQ(overridden.time, 0.25);
  expect_same_pose(overridden, evaluate(with_layers({{{"clip", {{"animation", "raise"}}}}}, 0.25)));
  expect_z_rotation(overridden, shoulder_, 7.5);
  const EvaluatedPose own = evaluate_recipe(scene_, parsed);
  EXPECT_EQ(own.time, 1.5);
  expect_z_rotation(own, shoulder_, 45.0);
}

// Pose selection (anim/pose_selection.h): a clip source is evaluate_pose() at the time (0 when none), a recipe
// source is evaluate_recipe() at the time (its own when none), whatever its animation field says.
TEST_F(RecipeTest, SelectPoseOfAClipIsEvaluatePoseAtTheTime) {
  PoseSource clip;
  clip.animation = kRaise;
  expect_same_pose(select_pose(scene_, clip, 1.0), evaluate_pose(scene_, kRaise, 1.0));
  expect_z_rotation(select_pose(scene_, clip, 1.0), shoulder_, 30.0);
  expect_same_pose(select_pose(scene_, clip, std::nullopt), evaluate_pose(scene_, kRaise, 0.0));
  EXPECT_EQ(clip.description(), "animation " + std::to_string(kRaise));
  const PoseSource rest;
  expect_same_pose(select_pose(scene_, rest, 0.5), evaluate_pose(scene_, -1, 0.5));
  EXPECT_EQ(rest.description(), "rest pose");
}

TEST_F(RecipeTest, SelectPoseOfARecipeIsTheRecipeAtTheTimeOrItsOwn) {
  PoseSource source;
  source.animation = kSlide;  // ignored: the recipe decides
  source.recipe = parse(with_layers({{{"clip", {{"animation", "raise"}}}}}, 1.5));
  source.recipe_path = "poses/raise.json";
  expect_z_rotation(select_pose(scene_, source, std::nullopt), shoulder_, 45.0);
  expect_z_rotation(select_pose(scene_, source, 0.25), shoulder_, 7.5);
  expect_same_pose(select_pose(scene_, source, 0.25), evaluate_recipe(scene_, *source.recipe, 0.25));
  EXPECT_EQ(source.description(), "recipe poses/raise.json");
}

TEST_F(RecipeTest, HandBuiltRecipeWithABadAnimationIndexIsRefused) {
  Recipe recipe;
  recipe.source = kFile;
  Playback playback;
  playback.animation = 7;
  recipe.layers.push_back({playback, 1.0, {}});
  try {
    evaluate_recipe(scene_, recipe);
    FAIL() << "animation 7 of 4 was accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.json_path(), "/layers/0/clip/animation");
  }
}

// ---- parsing ----------------------------------------------------------------------------------------------

TEST_F(RecipeTest, ParsesEveryFieldResolvingNamesAndDefaults) {
  const std::string text = R"({
    "format": "skinref-recipe", "version": 1, "time": 1.25, "rotation_blend": "slerp",
    "layers": [
      {"clip": {"animation": "raise", "start": 0.5, "rate": -2, "mode": "pingpong", "repetitions": 3},
       "weight": 0.25, "mask": {"joint": "elbow"}},
      {"crossfade": {"from": {"animation": 0}, "to": {"animation": "slide"}, "start": 0.5, "duration": 0.25,
                     "sync": true}}
    ],
    "additive": [{"clip": {"animation": "curl"}, "reference": {"animation": "main", "time": 0.75}, "weight": 0.5},
                 {"clip": {"animation": "curl"}, "reference": "rest"}],
    "ik": [{"type": "two-bone", "root": 0, "middle": "elbow", "end": "wrist", "target": [1, 2, 3],
            "pole": [0, 1, 0], "weight": 0.5, "soft": 0.9},
           {"type": "aim", "joint": "wrist", "forward": [1, 0, 0], "up": [0, 1, 0], "target": [4, 5, 6],
            "pole": [0, 0, 1]}]
  })";
  const Recipe recipe = parse_recipe(text, kFile, scene_);
  EXPECT_EQ(recipe.source, kFile);
  EXPECT_EQ(recipe.time, 1.25);
  EXPECT_EQ(recipe.rotation_blend, BlendRotation::Slerp);
  ASSERT_EQ(recipe.layers.size(), 2u);
  const auto* clip = std::get_if<Playback>(&recipe.layers[0].source);
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(clip->animation, kRaise);
  EXPECT_EQ(clip->start_time, 0.5);
  EXPECT_EQ(clip->rate, -2.0);
  EXPECT_EQ(clip->mode, PlaybackMode::PingPong);
  EXPECT_EQ(clip->repetitions, 3);
  EXPECT_EQ(recipe.layers[0].weight, 0.25);
  EXPECT_EQ(recipe.layers[0].mask, subtree_mask(scene_, elbow_));  // "subtree" defaults to true
  const auto* fade = std::get_if<RecipeCrossFade>(&recipe.layers[1].source);
  ASSERT_NE(fade, nullptr);
  EXPECT_EQ(fade->from.animation, kMain);
  EXPECT_EQ(fade->from.rate, 1.0);
  EXPECT_EQ(fade->from.mode, PlaybackMode::Once);
  EXPECT_EQ(fade->to.animation, kSlide);
  EXPECT_EQ(fade->start, 0.5);
  EXPECT_EQ(fade->duration, 0.25);
  EXPECT_TRUE(fade->sync);
  EXPECT_EQ(recipe.layers[1].weight, 1.0);
  EXPECT_TRUE(recipe.layers[1].mask.empty());
  ASSERT_EQ(recipe.additive.size(), 2u);
  EXPECT_EQ(recipe.additive[0].clip.animation, kCurl);
  EXPECT_EQ(recipe.additive[0].reference_animation, kMain);
  EXPECT_EQ(recipe.additive[0].reference_time, 0.75);
  EXPECT_EQ(recipe.additive[0].weight, 0.5);
  EXPECT_EQ(recipe.additive[1].reference_animation, -1);
  EXPECT_EQ(recipe.additive[1].weight, 1.0);
  ASSERT_EQ(recipe.ik.size(), 2u);
  const auto* two_bone = std::get_if<TwoBoneIk>(&recipe.ik[0]);
  ASSERT_NE(two_bone, nullptr);
  EXPECT_EQ(two_bone->root, shoulder_);
  EXPECT_EQ(two_bone->middle, elbow_);
  EXPECT_EQ(two_bone->end, wrist_);
  EXPECT_EQ(two_bone->target, Vec3(1, 2, 3));
  EXPECT_EQ(two_bone->pole, Vec3(0, 1, 0));
  EXPECT_EQ(two_bone->weight, 0.5);
  EXPECT_EQ(two_bone->soft, 0.9);
  const auto* aim = std::get_if<AimIk>(&recipe.ik[1]);
  ASSERT_NE(aim, nullptr);
  EXPECT_EQ(aim->joint, wrist_);
  EXPECT_EQ(aim->target, Vec3(4, 5, 6));
  EXPECT_EQ(aim->pole, Vec3(0, 0, 1));
  EXPECT_EQ(aim->weight, 1.0);
}

// A valid recipe using every section; each malformed case below breaks one thing in it.
json valid_recipe() {
  return {{"format", "skinref-recipe"},
          {"version", 1},
          {"time", 0.5},
          {"layers",
           {{{"clip", {{"animation", "main"}, {"mode", "loop"}}}, {"weight", 1.0}, {"mask", {{"joint", "shoulder"}}}},
            {{"crossfade",
              {{"from", {{"animation", "raise"}}}, {"to", {{"animation", 2}}}, {"start", 0.0}, {"duration", 1.0}}}}}},
          {"additive", {{{"clip", {{"animation", "curl"}}}, {"reference", "rest"}, {"weight", 0.5}}}},
          {"ik",
           {{{"type", "two-bone"},
             {"root", "shoulder"},
             {"middle", "elbow"},
             {"end", "wrist"},
             {"target", {1.0, 1.0, 0.0}},
             {"pole", {0.0, 1.0, 0.0}}},
            {{"type", "aim"},
             {"joint", "wrist"},
             {"forward", {1.0, 0.0, 0.0}},
             {"up", {0.0, 1.0, 0.0}},
             {"target", {3.0, 1.0, 0.0}},
             {"pole", {0.0, 0.0, 1.0}}}}}};
}

struct MalformedCase {
  const char* name;
  std::string text;
  const char* path;     // expected JSON pointer
  const char* mention;  // expected somewhere in the message
};

// The valid recipe with the value at `pointer` replaced (or removed when `value` is discarded).
std::string with_value(const char* pointer, const json& value) {
  json recipe = valid_recipe();
  const json::json_pointer at(pointer);
  if (value.is_discarded()) {
    recipe[at.parent_pointer()].erase(at.back());
  } else {
    recipe[at] = value;
  }
  return recipe.dump();
}

std::string without(const char* pointer) { return with_value(pointer, json(json::value_t::discarded)); }

// The valid recipe's text with its "time" value replaced by `literal` (JSON nlohmann would not write).
std::string with_time_literal(const std::string& literal) {
  json recipe = valid_recipe();
  recipe["time"] = 12345.5;
  std::string text = recipe.dump();
  text.replace(text.find("12345.5"), 7, literal);
  return text;
}

TEST_F(RecipeTest, ValidRecipeOfTheMalformedCasesParsesAndEvaluates) {
  const Recipe recipe = parse_recipe(valid_recipe().dump(), kFile, scene_);
  EXPECT_EQ(recipe.layers.size(), 2u);
  EXPECT_EQ(recipe.additive.size(), 1u);
  EXPECT_EQ(recipe.ik.size(), 2u);
  const EvaluatedPose pose = evaluate_recipe(scene_, recipe);
  EXPECT_EQ(pose.palettes.size(), scene_.skins.size());
}

TEST_F(RecipeTest, EveryMalformedCaseNamesItsJsonPath) {
  const std::vector<MalformedCase> cases{
      {"wrong type", with_value("/layers/0/weight", "1"), "/layers/0/weight", "a number"},
      {"unknown key", with_value("/layers/0/wieght", 1.0), "/layers/0/wieght", "weight"},
      {"unknown key with a slash", with_value("/layers/0/a~1b", 1.0), "/layers/0/a~1b", "no such key"},
      {"unknown top-level key", with_value("/layers2", json::array()), "/layers2", "layers"},
      {"unknown animation name", with_value("/layers/0/clip/animation", "nosuchclip"), "/layers/0/clip/animation",
       "nosuchclip"},
      {"animation index out of range", with_value("/layers/1/crossfade/to/animation", 4),
       "/layers/1/crossfade/to/animation", "[0, 3]"},
      {"animation of the wrong type", with_value("/additive/0/clip/animation", 1.5), "/additive/0/clip/animation",
       "1.5"},
      {"missing animation", without("/layers/0/clip/animation"), "/layers/0/clip/animation", "required"},
      {"unknown node", with_value("/layers/0/mask/joint", "nosuchjoint"), "/layers/0/mask/joint", "nosuchjoint"},
      {"node index out of range", with_value("/ik/0/root", 99), "/ik/0/root", "99"},
      {"negative weight", with_value("/layers/0/weight", -0.5), "/layers/0/weight", ">= 0"},
      {"negative additive weight", with_value("/additive/0/weight", -1.0), "/additive/0/weight", ">= 0"},
      {"non-finite number", with_time_literal("1e999"), "/time", "finite"},
      {"non-finite vector component", [] {
         json recipe = valid_recipe();
         recipe["ik"][0]["target"] = {1.0, 12345.5, 0.0};
         std::string text = recipe.dump();
         return text.replace(text.find("12345.5"), 7, "-1e400");
       }(), "/ik/0/target/1", "finite"},
      {"bad mode", with_value("/layers/0/clip/mode", "bounce"), "/layers/0/clip/mode", "pingpong"},
      {"negative repetitions", with_value("/layers/0/clip/repetitions", -1), "/layers/0/clip/repetitions", "-1"},
      {"fractional repetitions", with_value("/layers/0/clip/repetitions", 1.5), "/layers/0/clip/repetitions",
       "integer"},
      {"rate of the wrong type", with_value("/layers/0/clip/rate", "fast"), "/layers/0/clip/rate", "a number"},
      {"negative duration", with_value("/layers/1/crossfade/duration", -0.25), "/layers/1/crossfade/duration",
       ">= 0"},
      {"cross-fade without start", without("/layers/1/crossfade/start"), "/layers/1/crossfade/start", "required"},
      {"sync not a boolean", with_value("/layers/1/crossfade/sync", 1), "/layers/1/crossfade/sync", "true or false"},
      {"clip and crossfade", with_value("/layers/1/clip", {{"animation", 0}}), "/layers/1/crossfade", "not both"},
      {"neither clip nor crossfade", without("/layers/0/clip"), "/layers/0/clip", "neither"},
      {"layer not an object", with_value("/layers/1", 3), "/layers/1", "a layer object"},
      {"layers not an array", with_value("/layers", json::object()), "/layers", "an array"},
      {"nothing plays", [] {
         json recipe = valid_recipe();
         recipe["layers"] = json::array();
         recipe.erase("additive");
         return recipe.dump();
       }(), "/layers", "at least one"},
      {"mask of the wrong length", with_value("/layers/0/mask", {1.0, 0.0}), "/layers/0/mask", "one weight per node"},
      {"mask weight above 1", with_value("/layers/0/mask", {0.0, 1.5, 0.0, 0.0}), "/layers/0/mask/1", "[0, 1]"},
      {"wrong format", with_value("/format", "skinref-pose"), "/format", "skinref-recipe"},
      {"missing format", without("/format"), "/format", "required"},
      {"wrong version", with_value("/version", 2), "/version", "version 1"},
      {"version as text", with_value("/version", "1"), "/version", "version 1"},
      {"bad rotation blend", with_value("/rotation_blend", "nlerp"), "/rotation_blend", "average"},
      {"bad reference", with_value("/additive/0/reference", "bind"), "/additive/0/reference", "rest"},
      {"reference without animation", with_value("/additive/0/reference", {{"time", 0.5}}),
       "/additive/0/reference/animation", "required"},
      {"vector of two numbers", with_value("/ik/0/target", {1.0, 2.0}), "/ik/0/target", "3 numbers"},
      {"vector with text", with_value("/ik/0/pole/2", "z"), "/ik/0/pole/2", "a number"},
      {"bad IK type", with_value("/ik/0/type", "three-bone"), "/ik/0/type", "two-bone"},
      {"key of the other IK type", with_value("/ik/0/forward", {1.0, 0.0, 0.0}), "/ik/0/forward", "middle"},
      {"IK weight above 1", with_value("/ik/1/weight", 1.5), "/ik/1/weight", "[0, 1]"},
      {"soft of 0", with_value("/ik/0/soft", 0.0), "/ik/0/soft", "(0, 1]"},
      {"broken chain", with_value("/ik/0/middle", "wrist"), "/ik/0/end", "descendant"},
      {"middle above the root", with_value("/ik/0/root", "elbow"), "/ik/0/middle", "descendant"},
      {"up parallel to forward", with_value("/ik/1/up", {-2.0, 0.0, 0.0}), "/ik/1/up", "parallel"},
      {"zero forward", with_value("/ik/1/forward", {0.0, 0.0, 0.0}), "/ik/1/forward", "non-zero"},
      {"root not an object", "[1, 2]", "", "JSON object"},
      {"repeated key", [] {
         std::string text = valid_recipe().dump();
         text.replace(text.find("\"time\":"), 7, "\"time\":0.25,\"time\":");
         return text;
       }(), "/time", "repeated"},
  };
  for (const MalformedCase& c : cases) {
    SCOPED_TRACE(std::string(c.name) + ": " + c.text);
    try {
      parse_recipe(c.text, kFile, scene_);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), kFile);
      EXPECT_EQ(error.json_path(), c.path) << error.what();
      EXPECT_NE(error.expected().find(c.mention), std::string::npos) << error.what();
      const std::string what = error.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_EQ(what.rfind(std::string(kFile) + ": " + c.path, 0), 0u) << what;
    }
  }
}

TEST_F(RecipeTest, InvalidJsonTextIsOneLineWithoutAPath) {
  for (const std::string text : {"{\"format\": \"skinref-recipe\",\n\"version\": 1,\n", "", "{\"time\": nan}"}) {
    SCOPED_TRACE(text);
    try {
      parse_recipe(text, kFile, scene_);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), kFile);
      EXPECT_EQ(error.json_path(), "");
      EXPECT_NE(error.expected().find("parse error"), std::string::npos) << error.what();
      EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
    }
  }
}

TEST_F(RecipeTest, SceneWithoutAnimationsRefusesEveryClip) {
  Scene still = make_builtin_scene("bend");
  still.animations.clear();
  try {
    parse_recipe(with_layers({{{"clip", {{"animation", 0}}}}}, 0.0).dump(), kFile, still);
    FAIL() << "accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.json_path(), "/layers/0/clip/animation");
    EXPECT_NE(error.expected().find("no animations"), std::string::npos) << error.what();
  }
}

TEST_F(RecipeTest, LoadRecipeReadsTheFileAndNamesIt) {
  const test::TempDir dir;
  const std::string path = dir.file("arm.json");
  test::write_bytes(path, with_layers({{{"clip", {{"animation", "raise"}}}}}, 0.5).dump(2));
  const Recipe recipe = load_recipe(path, scene_);
  EXPECT_EQ(recipe.source, path);
  expect_same_pose(evaluate_recipe(scene_, recipe), evaluate_pose(scene_, kRaise, 0.5));

  test::write_bytes(path, with_value("/layers/0/weight", -1.0));
  try {
    load_recipe(path, scene_);
    FAIL() << "accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), path);
    EXPECT_EQ(error.json_path(), "/layers/0/weight");
  }
  try {
    load_recipe(dir.file("absent.json"), scene_);
    FAIL() << "accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), dir.file("absent.json"));
    EXPECT_EQ(error.json_path(), "");
  }
}

}  // namespace
}  // namespace skinref

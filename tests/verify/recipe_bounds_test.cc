// Recipe bounds (verify/recipe_bounds.h) on every golden recipe (blend, mask, additive, cross-fade, two-bone
// and aim IK) at its golden times:
// - a correct run passes: the reference's recipe pose with every value rounded to float32, and its vertices,
//   are within their bounds, stage by stage;
// - a planted 1e-4 rad error in the additive layer (what the layer adds to the masked joint turned by 1e-4 rad:
//   its clip's rotation turned by 1e-4 rad / the layer's weight) is caught and named at the blend stage, at
//   that joint;
// - a planted 1e-3 rad error in IK's result (the solved middle joint turned after the solve) is caught and
//   named at the ik stage.
// The bounds' sizes are printed per case: the largest local bound of the blended nodes and of the IK nodes.
#include "anim/local_to_model.h"
#include "anim/palette.h"
#include "anim/recipe.h"
#include "io/builtin_scenes.h"
#include "skin/evaluate_vertices.h"
#include "verify/any_order_vertex_bounds.h"
#include "verify/recipe_bounds.h"
#include "verify/stage_bisection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <string>

namespace skinref {
namespace {

constexpr double kPlantedAngle = 1e-4;  // rad, in the additive layer
// IK's bounds are wider: the solver's output moves with every local value above it (its Jacobian), about
// 1e-4 rad on builtin:bend's arm, so the planted IK error is 1e-3 rad.
constexpr double kPlantedIkAngle = 1e-3;

struct GoldenRecipe {
  std::string model, recipe;
  double time;
};

const GoldenRecipe kRecipes[] = {
    {"bend", "blend", 0.25},     {"bend", "blend", 0.6875},       {"chain64", "mask", 0.5},
    {"chain64", "mask", 1.25},   {"twist", "additive", 0.5},      {"twist", "additive", 1.0},
    {"bend", "crossfade", 0.125}, {"bend", "crossfade", 0.5},     {"bend", "crossfade", 0.875},
    {"bend", "ik-two-bone", 0.25}, {"bend", "ik-two-bone", 0.75}, {"chain64", "ik-aim", 0.5},
    {"chain64", "ik-aim", 1.5},
};

std::string recipe_path(const std::string& name) { return std::string(SKINREF_GOLDEN_DIR) + "/recipes/" + name + ".json"; }

double f32(double x) { return double(float(x)); }

EvaluatedPose rounded(EvaluatedPose pose) {
  for (size_t n = 0; n < pose.local.local.size(); ++n) {
    Transform& t = pose.local.local[n];
    for (int i = 0; i < 3; ++i) {
      t.translation[i] = f32(t.translation[i]);
      t.scale[i] = f32(t.scale[i]);
    }
    for (int i = 0; i < 4; ++i) t.rotation.coeffs()[i] = f32(t.rotation.coeffs()[i]);
    for (double& w : pose.local.morph_weights[n]) w = f32(w);
    for (int i = 0; i < 16; ++i) pose.model.global[n].data()[i] = f32(pose.model.global[n].data()[i]);
  }
  for (JointPalette& palette : pose.palettes) {
    for (Mat4& m : palette.skinning)
      for (int i = 0; i < 16; ++i) m.data()[i] = f32(m.data()[i]);
    for (Mat3& m : palette.normal)
      for (int i = 0; i < 9; ++i) m.data()[i] = f32(m.data()[i]);
  }
  return pose;
}

std::vector<WorldPrimitive> rounded(std::vector<WorldPrimitive> vertices) {
  for (WorldPrimitive& p : vertices) {
    for (Vec3& v : p.vertices.positions) v = Vec3(f32(v.x()), f32(v.y()), f32(v.z()));
    for (Vec3& v : p.vertices.normals) v = Vec3(f32(v.x()), f32(v.y()), f32(v.z()));
    for (Vec4& v : p.vertices.tangents) v = Vec4(f32(v.x()), f32(v.y()), f32(v.z()), v.w());
  }
  return vertices;
}

// The recipe's pose from (possibly altered) samples, with IK and palettes: evaluate_recipe()'s steps.
EvaluatedPose pose_from(const Scene& scene, const Recipe& recipe, const RecipeSamples& samples,
                        const std::function<void(LocalPose&)>& after_ik = {}) {
  EvaluatedPose pose;
  pose.animation = -1;
  pose.time = samples.tau;
  pose.local = combine_recipe(scene, recipe, samples);
  pose.model = local_to_model(scene, pose.local);
  apply_recipe_ik(scene, recipe, pose.local, pose.model);
  if (after_ik) {
    after_ik(pose.local);
    pose.model = local_to_model(scene, pose.local);
  }
  for (size_t s = 0; s < scene.skins.size(); ++s) pose.palettes.push_back(compute_palette(scene, pose.model, int(s)));
  return pose;
}

class RecipeBoundsTest : public ::testing::TestWithParam<GoldenRecipe> {};

TEST_P(RecipeBoundsTest, ACorrectRunPassesAndPlantedErrorsAreNamed) {
  const GoldenRecipe& c = GetParam();
  const Scene scene = make_builtin_scene(c.model);
  const Recipe recipe = load_recipe(recipe_path(c.recipe), scene);
  const double tau = f32(c.time);
  const EvaluatedPose reference = evaluate_recipe(scene, recipe, tau);
  const RecipePoseBounds bounds = recipe_pose_error_bounds(scene, recipe, tau);
  const RecipeStages stages{bounds.ik_nodes};
  const std::vector<WorldPrimitive> reference_vertices = evaluate_vertices(scene, reference, {});
  const std::vector<PrimitiveErrorBounds> vertex_bounds =
      any_order_vertex_error_bounds(scene, reference, {}, &bounds.pose);

  // A correct run: every value rounded to float32.
  const EvaluatedPose correct = rounded(reference);
  const StageDivergence pass = bisect_stages(scene, reference, &correct, &bounds.pose, reference_vertices,
                                             rounded(evaluate_vertices(scene, correct, {})), vertex_bounds, &stages);
  EXPECT_EQ(pass.stage, PipelineStage::None) << pass.location << ": " << pass.error << " > " << pass.bound;

  double blended = 0.0, solved = 0.0;  // the largest rotation component bound of each kind of node
  for (size_t n = 0; n < scene.nodes.size(); ++n) {
    double& largest = bounds.ik_nodes[n] ? solved : blended;
    for (size_t i = 3; i < 7; ++i) largest = std::max(largest, bounds.pose.local[n][i]);
  }
  std::printf("  %s %s at %g: largest rotation bound %.3g (blend), %.3g (IK nodes); values checked %zu\n",
              c.model.c_str(), c.recipe.c_str(), tau, blended, solved, pass.values_checked);

  // A planted 1e-4 rad error in the additive layer: its clip's rotation of the first masked joint turned.
  for (size_t a = 0; a < recipe.additive.size(); ++a) {
    RecipeSamples samples = sample_recipe(scene, recipe, tau);
    const std::vector<double>& mask = recipe.additive[a].mask;
    size_t joint = 0;
    while (!mask.empty() && joint < mask.size() && mask[joint] == 0.0) ++joint;
    Quat& q = samples.additive_clips[a].pose.local[joint].rotation;
    q = (Quat(Eigen::AngleAxisd(kPlantedAngle / recipe.additive[a].weight, Vec3::UnitX())) * q).normalized();
    const EvaluatedPose planted = rounded(pose_from(scene, recipe, samples));
    const StageDivergence found = bisect_stages(scene, reference, &planted, &bounds.pose, reference_vertices,
                                                rounded(evaluate_vertices(scene, planted, {})), vertex_bounds, &stages);
    EXPECT_EQ(found.stage, PipelineStage::Blend) << pipeline_stage_name(found.stage) << " " << found.location;
    EXPECT_EQ(found.node, int(joint)) << found.location;
    std::printf("  planted 1e-4 rad in additive layer %zu at node %zu: %s stage, %s (error %.3g, bound %.3g)\n", a,
                joint, pipeline_stage_name(found.stage), found.location.c_str(), found.error, found.bound);
  }

  // A planted 1e-3 rad error in the solved middle joint of a two-bone step.
  for (const auto& step : recipe.ik) {
    const auto* two_bone = std::get_if<TwoBoneIk>(&step);
    if (!two_bone) continue;
    const int middle = two_bone->middle;
    const EvaluatedPose planted = rounded(pose_from(scene, recipe, sample_recipe(scene, recipe, tau), [&](LocalPose& local) {
      Quat& q = local.local[size_t(middle)].rotation;
      q = (q * Quat(Eigen::AngleAxisd(kPlantedIkAngle, Vec3::UnitZ()))).normalized();
    }));
    const StageDivergence found = bisect_stages(scene, reference, &planted, &bounds.pose, reference_vertices,
                                                rounded(evaluate_vertices(scene, planted, {})), vertex_bounds, &stages);
    EXPECT_EQ(found.stage, PipelineStage::Ik) << pipeline_stage_name(found.stage) << " " << found.location;
    EXPECT_EQ(found.node, middle) << found.location;
    std::printf("  planted 1e-3 rad after the two-bone solve at node %d: %s stage, %s\n", middle,
                pipeline_stage_name(found.stage), found.location.c_str());
  }
}

std::string case_name(const ::testing::TestParamInfo<GoldenRecipe>& info) {
  std::string name = info.param.model + "_" + info.param.recipe + "_" + std::to_string(info.index);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Golden, RecipeBoundsTest, ::testing::ValuesIn(kRecipes), case_name);

}  // namespace
}  // namespace skinref

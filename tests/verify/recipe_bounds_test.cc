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
#include "support/float32_rounding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <string>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

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

std::string recipe_path(const std::string& name) {
  return std::string(SKINREF_GOLDEN_DIR) + "/recipes/" + name + ".json";
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
  const double tau = test::rounded_to_float32(c.time);
  const EvaluatedPose reference = evaluate_recipe(scene, recipe, tau);
  const RecipePoseBounds bounds = recipe_pose_error_bounds(scene, recipe, tau);
  const RecipeStages stages{bounds.ik_nodes};
  const std::vector<WorldPrimitive> reference_vertices = evaluate_vertices(scene, reference, {});
  const std::vector<PrimitiveErrorBounds> vertex_bounds =
      any_order_vertex_error_bounds(scene, reference, {}, &bounds.pose);

  // A run's pose rounded to float32, and its vertices, bisected against the reference.
  auto bisect = [&](const EvaluatedPose& run) {
    const EvaluatedPose held = test::rounded_to_float32(run);
    return bisect_stages(scene, reference, &held, &bounds.pose, reference_vertices,
                         test::rounded_to_float32(evaluate_vertices(scene, held, {})), vertex_bounds, &stages);
  };

  // A correct run.
  const StageDivergence pass = bisect(reference);
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
    const StageDivergence found = bisect(pose_from(scene, recipe, samples));
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
    const StageDivergence found =
        bisect(pose_from(scene, recipe, sample_recipe(scene, recipe, tau), [&](LocalPose& local) {
          Quat& q = local.local[size_t(middle)].rotation;
          q = (q * Quat(Eigen::AngleAxisd(kPlantedIkAngle, Vec3::UnitZ()))).normalized();
        }));
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

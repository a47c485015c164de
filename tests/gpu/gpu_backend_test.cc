// The vulkan backend (tools/backend/vulkan_backend.h) over a validated context: its pose, vertices, skinning
// jobs and image are the Vulkan path's own, bit for bit, and a recipe takes the reference's pose.
#include "anim/evaluate_pose.h"
#include "anim/pose_selection.h"
#include "backend/vulkan_backend.h"
#include "gpu/animation_gpu.h"
#include "gpu/render_gpu.h"
#include "gpu/skinning_gpu.h"
#include "io/builtin_scenes.h"
#include "raster/camera.h"
#include "support/gpu_fixture.h"
#include "support/skinning_fixtures.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_same_primitives;
using test::ValidatedGpuTest;

using VulkanBackendTest = ValidatedGpuTest;

TEST_F(VulkanBackendTest, VerticesAndJobsAreTheVulkanPathsBits) {
  const std::unique_ptr<Backend> backend = make_vulkan_backend(*context_, false);
  EXPECT_EQ(backend->kind(), BackendKind::Vulkan);
  EXPECT_FALSE(backend->gpu_pose());
  EXPECT_EQ(backend->description(), "vulkan, vulkan on " + context_->info().name);
  const Scene scene = make_builtin_scene("twist");
  PoseSource source;
  source.animation = 0;
  const EvaluatedPose pose = backend->pose(scene, source, 0.85);  // the reference's: no gpu_pose
  for (const SkinningMethod method : kSkinningMethods) {
    SCOPED_TRACE(skinning_method_name(method));
    SkinningOptions options;
    options.method = method;
    const std::vector<WorldPrimitive> expected = gpu::gpu_evaluate_vertices(*context_, scene, pose, options);
    expect_same_primitives(backend->vertices(scene, pose, options), expected);
    const std::unique_ptr<SkinningJob> job = backend->prepare_skinning(scene, pose, options);
    EXPECT_GE(job->prepare_seconds(), 0.0);
    job->run();
    job->run();
    expect_same_primitives(job->vertices(), expected);
    ASSERT_TRUE(job->device_seconds().has_value());
    // 64 + 8 K bytes per vertex: vec4 position and normal in and out, K = 4 influences of uint + float.
    const size_t vertices = scene.meshes[0].primitives[0].vertex_count();
    EXPECT_EQ(job->traffic_bytes(), double(vertices) * (64.0 + 8.0 * 4.0));
  }
  EXPECT_NO_THROW(backend->finish());
}

TEST_F(VulkanBackendTest, GpuPoseRunsTheAnimationPassForClipsAndTheReferenceForRecipes) {
  const std::unique_ptr<Backend> backend = make_vulkan_backend(*context_, true);
  EXPECT_TRUE(backend->gpu_pose());
  EXPECT_EQ(backend->summary(), ", vulkan on " + context_->info().name + ", GPU animation");
  const Scene scene = make_builtin_scene("bend");
  PoseSource clip;
  clip.animation = 0;
  const EvaluatedPose gpu_pose = backend->pose(scene, clip, 0.3);
  const EvaluatedPose expected = gpu::gpu_evaluate_pose(*context_, scene, 0, 0.3);
  ASSERT_EQ(gpu_pose.palettes.size(), expected.palettes.size());
  EXPECT_EQ(0, std::memcmp(gpu_pose.palettes[0].skinning.data(), expected.palettes[0].skinning.data(),
                           expected.palettes[0].skinning.size() * sizeof(Mat4)));
  PoseSource recipe;
  recipe.recipe = parse_recipe(R"({"format": "skinref-recipe", "version": 1, "time": 0.3,
                                   "layers": [{"clip": {"animation": "main"}}]})",
                               "inline.recipe.json", scene);
  const EvaluatedPose reference = backend->pose(scene, recipe, std::nullopt);
  const EvaluatedPose expected_reference = evaluate_recipe(scene, *recipe.recipe);
  EXPECT_EQ(0, std::memcmp(reference.palettes[0].skinning.data(), expected_reference.palettes[0].skinning.data(),
                           expected_reference.palettes[0].skinning.size() * sizeof(Mat4)));
}

TEST_F(VulkanBackendTest, RendersWithTheGpuRenderer) {
  const std::unique_ptr<Backend> backend = make_vulkan_backend(*context_, false);
  const Scene scene = make_builtin_scene("twist");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.5);
  const std::vector<WorldPrimitive> primitives = gpu::gpu_evaluate_vertices(*context_, scene, pose, {});
  RenderOptions options;
  options.width = 48;
  options.height = 32;
  const RenderCamera camera = auto_camera(scene, 0, {}, 1.5);
  EXPECT_EQ(backend->render(scene, pose, primitives, camera, options).image.pixels,
            gpu::gpu_render(*context_, scene, pose, primitives, camera, options).pixels);
}

}  // namespace
}  // namespace skinref

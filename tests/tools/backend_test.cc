// Tests of the Backend interface (tools/backend/backend.h) on the backends every build has, reference and
// cpu (the vulkan backend's tests are in tests/gpu/gpu_backend_test.cc, under the validation layer): kinds
// parse and print through one table, make_backend() refuses what a kind cannot take, and each backend's pose,
// vertices, skinning jobs and image are its stages' own, bit for bit.
#include "anim/evaluate_pose.h"
#include "backend/backend.h"
#include "cpu/skinning_cpu.h"
#include "io/builtin_scenes.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "skin/evaluate_vertices.h"
#include "support/skinning_cases.h"
#include "support/skinning_fixtures.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_same_primitives;

std::vector<std::pair<std::string, Scene>> test_scenes() {
  std::vector<std::pair<std::string, Scene>> scenes;
  for (const char* name : {"twist", "eight-influences", "node-transforms"})
    scenes.emplace_back(name, make_builtin_scene(name));
  scenes.emplace_back("bend+morph+rigid", test::decorated_bend());
  return scenes;
}

TEST(BackendKind, EveryKindPrintsAndParsesBackToItself) {
  std::set<std::string> names;
  for (const BackendKind kind : kBackendKinds) {
    EXPECT_TRUE(names.insert(backend_name(kind)).second) << backend_name(kind);
    EXPECT_EQ(parse_backend_kind(backend_name(kind)), kind) << backend_name(kind);
  }
  EXPECT_EQ(backend_choices(), "reference|vulkan|cpu");
  EXPECT_EQ(backend_choices(", "), "reference, vulkan, cpu");
  for (const char* text : {"", "Reference", "gpu", "cpu ", "vk"}) EXPECT_FALSE(parse_backend_kind(text)) << text;
  EXPECT_TRUE(backend_built(BackendKind::Reference));
  EXPECT_TRUE(backend_built(BackendKind::Cpu));
}

TEST(MakeBackend, RefusesVulkanOptionsOnOtherKindsAndUnbuiltKinds) {
  for (const BackendKind kind : {BackendKind::Reference, BackendKind::Cpu}) {
    BackendOptions with_device;
    with_device.kind = kind;
    with_device.device = "0";
    EXPECT_THROW(make_backend(with_device), std::invalid_argument) << backend_name(kind);
    BackendOptions validated;
    validated.kind = kind;
    validated.validate = true;
    EXPECT_THROW(make_backend(validated), std::invalid_argument) << backend_name(kind);
    BackendOptions gpu_pose;
    gpu_pose.kind = kind;
    gpu_pose.gpu_pose = true;
    EXPECT_THROW(make_backend(gpu_pose), std::invalid_argument) << backend_name(kind);
    EXPECT_EQ(make_backend(kind)->kind(), kind);
  }
  if (!backend_built(BackendKind::Vulkan)) {
    EXPECT_THROW(make_backend(BackendKind::Vulkan), std::invalid_argument);
  }
}

TEST(ReferenceBackend, IsTheReferenceBitForBit) {
  const std::unique_ptr<Backend> backend = make_backend(BackendKind::Reference);
  EXPECT_FALSE(backend->gpu_pose());
  EXPECT_EQ(backend->summary(), "");
  EXPECT_EQ(backend->description(), "reference");
  for (const auto& [name, scene] : test_scenes()) {
    PoseSource source;
    source.animation = 0;
    const double time = 0.4 * scene.animations[0].end_time;
    const EvaluatedPose pose = backend->pose(scene, source, time);
    const EvaluatedPose expected_pose = evaluate_pose(scene, 0, time);
    ASSERT_EQ(pose.palettes.size(), expected_pose.palettes.size());
    for (size_t s = 0; s < pose.palettes.size(); ++s)
      EXPECT_EQ(0, std::memcmp(pose.palettes[s].skinning.data(), expected_pose.palettes[s].skinning.data(),
                               pose.palettes[s].skinning.size() * sizeof(Mat4)));
    for (const SkinningMethod method : kSkinningMethods) {
      SCOPED_TRACE(name + " " + skinning_method_name(method));
      SkinningOptions options;
      options.method = method;
      const std::vector<WorldPrimitive> expected = evaluate_vertices(scene, pose, options);
      expect_same_primitives(backend->vertices(scene, pose, options), expected);
      // A job runs any number of times, with any thread count, to the same bits.
      const std::unique_ptr<SkinningJob> job = backend->prepare_skinning(scene, pose, options);
      job->run();
      job->set_threads(3);
      job->run();
      expect_same_primitives(job->vertices(), expected);
      EXPECT_FALSE(job->device_seconds().has_value());
      EXPECT_NE(job->label().find("threads=3"), std::string::npos) << job->label();
    }
  }
}

TEST(ReferenceBackend, RendersWithTheReferenceRasterizer) {
  const std::unique_ptr<Backend> backend = make_backend(BackendKind::Reference);
  const Scene scene = make_builtin_scene("twist");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.5);
  const std::vector<WorldPrimitive> primitives = evaluate_vertices(scene, pose, {});
  RenderOptions options;
  options.width = 48;
  options.height = 32;
  const RenderCamera camera = auto_camera(scene, 0, {}, 1.5);
  const RgbaImage image = backend->render(scene, pose, primitives, camera, options).image;
  EXPECT_EQ(image.pixels, render_scene(scene, pose, primitives, camera, options).image.pixels);
}

TEST(CpuBackend, IsTheCpuBackendBitForBit) {
  const std::unique_ptr<Backend> backend = make_backend(BackendKind::Cpu);
  const std::string kernel = cpu::cpu_kernel_name(SkinningKernel::Auto);
  EXPECT_EQ(backend->summary(), ", cpu backend (" + kernel + ")");
  EXPECT_EQ(backend->description(), "cpu (" + kernel + ")");
  for (const auto& [name, scene] : test_scenes()) {
    PoseSource source;
    source.animation = 0;
    // The cpu backend skins the reference's pose.
    const EvaluatedPose pose = backend->pose(scene, source, 0.3);
    for (const SkinningMethod method : kSkinningMethods) {
      SCOPED_TRACE(name + " " + skinning_method_name(method));
      SkinningOptions options;
      options.method = method;
      const std::vector<WorldPrimitive> expected = cpu::cpu_evaluate_vertices(scene, pose, options);
      expect_same_primitives(backend->vertices(scene, pose, options), expected);
      const std::unique_ptr<SkinningJob> job = backend->prepare_skinning(scene, pose, options);
      job->set_threads(2);
      job->run();
      job->run();
      expect_same_primitives(job->vertices(), expected);
      EXPECT_EQ(job->traffic_bytes(), cpu::cpu_skinning_traffic_bytes(cpu::prepare_cpu_skinning(scene, pose, options)));
    }
  }
}

}  // namespace
}  // namespace skinref

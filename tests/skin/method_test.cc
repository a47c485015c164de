// Tests of the skinning method type (skin/method.h) and of the vertex pipeline's two steps
// (skin/evaluate_vertices.h): names parse and print through one table, skin_primitive() dispatches to the
// method's stage, and prepare_vertices() + skin_prepared() give evaluate_vertices()'s bits, run after run.
#include "anim/evaluate_pose.h"
#include "io/builtin_scenes.h"
#include "skin/dqs.h"
#include "skin/evaluate_vertices.h"
#include "skin/lbs.h"
#include "skin/method.h"
#include "support/skinning_cases.h"
#include "support/skinning_fixtures.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_bit_identical;
using test::expect_same_primitives;

TEST(SkinningMethod, EveryMethodPrintsAndParsesBackToItself) {
  std::set<std::string> names;
  for (const SkinningMethod method : kSkinningMethods) {
    const std::string name = skinning_method_name(method);
    EXPECT_TRUE(names.insert(name).second) << name << " is used twice";
    const std::optional<SkinningMethod> parsed = parse_skinning_method(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(*parsed, method) << name;
  }
  // The spellings the command line, the golden manifest and the benchmark names document.
  EXPECT_EQ(parse_skinning_method("lbs"), SkinningMethod::Lbs);
  EXPECT_EQ(parse_skinning_method("dqs"), SkinningMethod::Dqs);
  EXPECT_EQ(skinning_method_choices(), "lbs|dqs");
  EXPECT_EQ(skinning_method_choices(", "), "lbs, dqs");
}

TEST(SkinningMethod, OnlyExactNamesParse) {
  for (const char* text : {"", "LBS", "Dqs", "lbs ", " dqs", "lb", "dqss", "linear"})
    EXPECT_FALSE(parse_skinning_method(text).has_value()) << "'" << text << "'";
}

TEST(SkinningMethod, EveryMethodHasAWholeDescriptor) {
  std::set<uint32_t> shader_methods;
  for (const SkinningMethod method : kSkinningMethods) {
    const SkinningMethodDescriptor d = skinning_method_descriptor(method);
    SCOPED_TRACE(skinning_method_name(method));
    EXPECT_STREQ(d.name, skinning_method_name(method));
    EXPECT_STREQ(d.summary, skinning_method_summary(method));
    ASSERT_NE(d.label, nullptr);
    EXPECT_NE(std::string(d.label), "");
    EXPECT_NE(d.stage, nullptr);
    ASSERT_NE(d.kernel_name, nullptr);
    EXPECT_STREQ(d.kernel_name(SkinningKernel::Scalar), "scalar");
    // skin.comp picks the method's kernel by it: each method its own value.
    EXPECT_TRUE(shader_methods.insert(d.shader_method).second) << d.shader_method << " is used twice";
  }
  // A value past the last method has none, and naming it throws.
  const auto past = static_cast<SkinningMethod>(kSkinningMethods.size());
  EXPECT_EQ(skinning_method_descriptor(past).name, nullptr);
  EXPECT_THROW(skinning_method_name(past), std::invalid_argument);
  // The default and the rigid nodes' method are methods; rigid nodes blend the palette's matrices.
  EXPECT_NE(skinning_method_descriptor(kDefaultSkinningMethod).name, nullptr);
  EXPECT_EQ(skinning_method_descriptor(kRigidNodeMethod).palette, PaletteBlend::Matrices);
  EXPECT_EQ(skinning_method_descriptor(kRigidNodeMethod).stage, &skin_lbs);
}

TEST(SkinningMethod, SkinPrimitiveRunsTheMethodsStage) {
  const test::VariedInput varied = test::make_varied_input(37, 4, 0.3);
  const SkinningInput input = varied.data.input(varied.palette);
  for (const SkinningMethod method : kSkinningMethods) {
    SCOPED_TRACE(skinning_method_name(method));
    SkinningOptions options;
    options.method = method;
    SkinnedVertices dispatched, direct;
    skin_primitive(input, options, dispatched);
    if (method == SkinningMethod::Dqs) skin_dqs(input, options, direct);
    else skin_lbs(input, options, direct);
    expect_bit_identical(dispatched, direct);
  }
}

TEST(PreparedVertices, GiveEvaluateVerticesBitsOnEveryRun) {
  std::vector<std::pair<std::string, Scene>> scenes;
  for (const char* name : {"twist", "bend", "eight-influences", "node-transforms"})
    scenes.emplace_back(name, make_builtin_scene(name));
  scenes.emplace_back("bend+morph+rigid", test::decorated_bend());
  for (const auto& [name, scene] : scenes) {
    const EvaluatedPose pose = evaluate_pose(scene, 0, 0.4 * scene.animations[0].end_time);
    for (const SkinningMethod method : kSkinningMethods) {
      SCOPED_TRACE(name + " " + skinning_method_name(method));
      SkinningOptions options;
      options.method = method;
      const std::vector<WorldPrimitive> expected = evaluate_vertices(scene, pose, options);
      PreparedVertices prepared = prepare_vertices(scene, pose, options);
      std::vector<WorldPrimitive> output;
      skin_prepared(prepared, output);
      expect_same_primitives(output, expected);
      // Moved (its inputs point into itself) and with more threads: the same bits again, into the same outputs.
      PreparedVertices moved = std::move(prepared);
      moved.options.threads = 3;
      skin_prepared(moved, output);
      expect_same_primitives(output, expected);
    }
  }
}

TEST(PreparedVertices, ListEveryDrawnPrimitiveWithItsMorphedInputs) {
  const Scene scene = test::decorated_bend();
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.3);
  const PreparedVertices prepared = prepare_vertices(scene, pose, SkinningOptions{});
  ASSERT_EQ(prepared.primitives.size(), 2u);  // the skinned mesh and its rigid copy
  EXPECT_EQ(prepared.rigid_palettes.size(), 1u);
  for (const PreparedPrimitive& prim : prepared.primitives) {
    const Primitive& source = scene.meshes[size_t(prim.mesh)].primitives[size_t(prim.primitive)];
    // Morphed: p0 + 0.25 dP0 - 0.6 dP1 (the mesh's default weights), not the bind positions.
    const Vec3 expected = source.positions[5] + 0.25 * source.targets[0].position_deltas[5] +
                          -0.6 * source.targets[1].position_deltas[5];
    EXPECT_LT((prim.input.positions[5] - expected).norm(), tol::kClosedForm);
    EXPECT_EQ(prim.input.positions.size(), source.vertex_count());
    if (prim.skinned) {
      EXPECT_EQ(prim.input.palette, &pose.palettes[0]);
      EXPECT_EQ(prim.input.influences_per_vertex, source.influences_per_vertex);
    } else {
      EXPECT_EQ(prim.input.palette, &prepared.rigid_palettes[0]);
      EXPECT_EQ(prim.input.influences_per_vertex, 1);
      EXPECT_EQ(prim.input.palette->skinning[0], pose.model.global[size_t(prim.node)]);
    }
  }
}

}  // namespace
}  // namespace skinref

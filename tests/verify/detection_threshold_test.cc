// Both sides of the line, measured: the smallest defect today's own-palette bounds still catch, on every
// built-in scene and the skinned corpus models, in units of the model's extent. Two defects:
// - one joint turned by e rad about itself (its palette matrix pre-multiplied by a rotation about the joint's
//   world position, the joint that carries the most weight);
// - one weight moved: d of a vertex's largest influence given to its second (the vertex whose two joints
//   move it apart the most).
// Each threshold is found by bisection on a log scale between "passes" and "caught" (compare_vertices of the
// float32-rounded result), and printed beside the float32 error of a correct engine (about 1e-7 of the
// extent, tests/verify/independent_engine_test.cc). Requirement: a defect that moves a vertex by 1e-3 of the
// extent is caught on every model.
#include "anim/evaluate_pose.h"
#include "io/builtin_scenes.h"
#include "io/gltf_load.h"
#include "skin/evaluate_vertices.h"
#include "support/corpus_models.h"
#include "support/skinning_cases.h"
#include "verify/pose_error_bounds.h"
#include "verify/vertex_compare.h"
#include "verify/vertex_error_bounds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

namespace skinref {
namespace {

constexpr double kRequiredDetection = 1e-3;  // of the extent

std::vector<WorldPrimitive> rounded(std::vector<WorldPrimitive> vertices) {
  auto f32 = [](double v) { return double(float(v)); };
  for (WorldPrimitive& p : vertices) {
    for (Vec3& v : p.vertices.positions) v = Vec3(f32(v.x()), f32(v.y()), f32(v.z()));
    for (Vec3& v : p.vertices.normals) v = Vec3(f32(v.x()), f32(v.y()), f32(v.z()));
    for (Vec4& v : p.vertices.tangents) v = Vec4(f32(v.x()), f32(v.y()), f32(v.z()), v.w());
  }
  return vertices;
}

double largest_move(const std::vector<WorldPrimitive>& a, const std::vector<WorldPrimitive>& b) {
  double largest = 0.0;
  for (size_t p = 0; p < a.size(); ++p)
    for (size_t v = 0; v < a[p].vertices.positions.size(); ++v)
      largest = std::max(largest, (a[p].vertices.positions[v] - b[p].vertices.positions[v]).norm());
  return largest;
}

// The smallest size in [1e-12, 1] at which `caught(size)` holds, to a factor of 1.02; +inf when even 1 passes.
double threshold(const std::function<bool(double)>& caught) {
  double low = 1e-12, high = 1.0;
  if (!caught(high)) return INFINITY;
  while (high / low > 1.02) {
    const double middle = std::sqrt(low * high);
    (caught(middle) ? high : low) = middle;
  }
  return high;
}

void check_model(const std::string& label, const Scene& scene) {
  if (scene.animations.empty() || scene.skins.empty()) GTEST_SKIP() << label << " has no clip or no skin";
  const Animation& clip = scene.animations[0];
  const double time = double(float(0.5 * (clip.start_time + clip.end_time)));
  const EvaluatedPose pose = evaluate_pose(scene, 0, time);
  const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, {});
  const PoseErrorBounds pose_bounds = float32_pose_error_bounds(scene, 0, time);
  const std::vector<PrimitiveErrorBounds> bounds = float32_vertex_error_bounds(scene, pose, {}, &pose_bounds);
  const double extent = positions_extent(reference);
  ASSERT_GT(extent, 0.0);
  auto caught = [&](const std::vector<WorldPrimitive>& test) {
    return !compare_vertices(scene, reference, rounded(test), bounds).passed();
  };
  ASSERT_FALSE(caught(reference)) << "the unperturbed run passes";

  // The skinned primitive and the joint that carries the most weight in it.
  size_t prim_index = 0;
  while (prim_index < reference.size() && !reference[prim_index].skinned) ++prim_index;
  ASSERT_LT(prim_index, reference.size());
  const int node = reference[prim_index].node;
  const int skin = scene.nodes[size_t(node)].skin;
  const Primitive& prim = scene.meshes[size_t(reference[prim_index].mesh)].primitives[size_t(reference[prim_index].primitive)];
  const size_t k = size_t(prim.influences_per_vertex);
  std::vector<double> carried(scene.skins[size_t(skin)].joints.size(), 0.0);
  for (size_t i = 0; i < prim.joints.size(); ++i) carried[prim.joints[i]] += prim.weights[i];
  const size_t joint = size_t(std::max_element(carried.begin(), carried.end()) - carried.begin());

  // A joint turned by e rad about its own world position.
  const Mat4& global = pose.model.global[size_t(scene.skins[size_t(skin)].joints[joint])];
  const Vec3 pivot = global.block<3, 1>(0, 3);
  double rotation_move = 0.0;
  const double rotation = threshold([&](double e) {
    EvaluatedPose turned = pose;
    Mat4 about = Mat4::Identity();
    about.topLeftCorner<3, 3>() = Eigen::AngleAxisd(e, Vec3(1, 1, 1).normalized()).toRotationMatrix();
    about.block<3, 1>(0, 3) = pivot - about.topLeftCorner<3, 3>() * pivot;
    Mat4& jm = turned.palettes[size_t(skin)].skinning[joint];
    jm = (about * jm).eval();
    turned.palettes[size_t(skin)].normal[joint] = normal_matrix(jm.topLeftCorner<3, 3>());
    const std::vector<WorldPrimitive> test = evaluate_vertices(scene, turned, {});
    rotation_move = largest_move(test, reference);
    return caught(test);
  });

  // A weight moved between a vertex's two largest influences.
  size_t vertex = 0, first = 0, second = 0;
  double spread = -1.0;
  const JointPalette& palette = pose.palettes[size_t(skin)];
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    std::vector<size_t> order(k);
    for (size_t i = 0; i < k; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return prim.weights[v * k + a] > prim.weights[v * k + b]; });
    if (k < 2 || prim.weights[v * k + order[1]] <= 0.0) continue;
    const Vec3 p = prim.positions[v];
    const Mat4& a = palette.skinning[prim.joints[v * k + order[0]]];
    const Mat4& b = palette.skinning[prim.joints[v * k + order[1]]];
    const double d = ((a.topLeftCorner<3, 3>() - b.topLeftCorner<3, 3>()) * p + a.block<3, 1>(0, 3) - b.block<3, 1>(0, 3)).norm();
    if (d > spread) {
      spread = d;
      vertex = v;
      first = order[0];
      second = order[1];
    }
  }
  double weight_move = INFINITY;
  double weight = INFINITY;
  if (spread > 0.0) {
    weight = threshold([&](double d) {
      Scene moved = scene;
      Primitive& mp = moved.meshes[size_t(reference[prim_index].mesh)].primitives[size_t(reference[prim_index].primitive)];
      const double amount = std::min(d, mp.weights[vertex * k + first]);
      mp.weights[vertex * k + first] -= amount;
      mp.weights[vertex * k + second] += amount;
      const std::vector<WorldPrimitive> test = evaluate_vertices(moved, pose, {});
      weight_move = largest_move(test, reference);
      return caught(test);
    });
  }
  std::printf("%s: a joint turned by %.3g rad is caught (it moves vertices by %.3g of the extent); ", label.c_str(),
              rotation, rotation_move / extent);
  if (spread > 0.0)
    std::printf("a weight moved by %.3g (%.3g of the extent)\n", weight, weight_move / extent);
  else
    std::printf("no blended vertex whose two joints move it apart at this time\n");
  EXPECT_LT(rotation_move / extent, kRequiredDetection);
  if (spread > 0.0) {
    EXPECT_LT(weight_move / extent, kRequiredDetection);
  }
}

class DetectionBuiltin : public ::testing::TestWithParam<std::string> {};

TEST_P(DetectionBuiltin, DefectsOfAThousandthOfTheExtentAreCaught) {
  check_model("builtin:" + GetParam(), make_builtin_scene(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(All, DetectionBuiltin,
                         ::testing::ValuesIn(test::small_builtin_scene_names()), test::builtin_test_name);

class DetectionCorpus : public ::testing::TestWithParam<test::CorpusModel> {};

TEST_P(DetectionCorpus, DefectsOfAThousandthOfTheExtentAreCaught) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  check_model(GetParam().path, load_model(test::corpus_dir() + "/" + GetParam().path));
}

const test::CorpusModel kSkinnedModels[] = {
    {"CesiumMan", "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf"},
    {"RiggedFigure", "glTF-Sample-Assets/RiggedFigure/glTF/RiggedFigure.gltf"},
    {"RiggedSimple", "glTF-Sample-Assets/RiggedSimple/glTF/RiggedSimple.gltf"},
    {"SimpleSkin", "glTF-Sample-Assets/SimpleSkin/glTF/SimpleSkin.gltf"},
};

INSTANTIATE_TEST_SUITE_P(Corpus, DetectionCorpus, ::testing::ValuesIn(kSkinnedModels), test::model_test_name);

}  // namespace
}  // namespace skinref

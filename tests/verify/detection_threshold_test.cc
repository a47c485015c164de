// Both sides of the line, measured: the smallest defect each bound model (any-order, the default for an
// engine's dumps, and skinref-order) still catches with the engine's own palette, on every built-in scene and
// the skinned corpus models, in units of the model's extent. Three defects:
// - one joint turned by e rad about itself (its palette matrix pre-multiplied by a rotation about the joint's
//   world position, the joint that carries the most weight);
// - one key: the rotation key of that joint's channel that the time samples from (the key before the time),
//   turned by e rad;
// - one weight moved: d of a vertex's largest influence given to its second (the vertex whose two joints
//   move it apart the most).
// Each threshold is found by bisection on a log scale between "passes" and "caught" (compare_vertices of the
// float32-rounded result), and printed beside the float32 error of a correct engine (about 1e-7 of the
// extent, tests/verify/independent_engine_test.cc). Then every convention diagnose knows, planted alone
// (support/planted_engine.h): its effect and whether each model catches it.
// Requirements: a defect that moves a vertex by 1e-3 of the extent is caught on every model, under both
// bound models; so is every convention that moves a vertex by more than its largest position bound.
#include "anim/evaluate_pose.h"
#include "io/builtin_scenes.h"
#include "io/load_model.h"
#include "skin/evaluate_vertices.h"
#include "support/corpus_models.h"
#include "support/skinning_cases.h"
#include "support/float32_rounding.h"
#include "support/planted_engine.h"
#include "verify/bounds_model.h"
#include "verify/vertex_compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

constexpr double kRequiredDetection = 1e-3;  // of the extent

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

// The channel sampler that rotates `node` in clip 0, or null.
AnimationSampler* rotation_sampler(Scene& scene, int node) {
  for (const AnimationChannel& ch : scene.animations[0].channels)
    if (ch.node == node && ch.path == ChannelPath::Rotation) return &scene.animations[0].samplers[size_t(ch.sampler)];
  return nullptr;
}

// Whether a bound model catches a test run (the float32-rounded run against the reference and the bounds).
using CaughtFn = std::function<bool(const std::vector<WorldPrimitive>&)>;

// One defect's measurement: the smallest size caught (+inf when none is, or when the defect does not apply) and
// the largest vertex move of the last size tried, in model units.
struct DefectThreshold {
  double size = INFINITY;
  double move = INFINITY;
};

// The joint that carries the most weight in the skinned primitive, with its skin and node.
struct HeaviestJoint {
  int skin = -1;
  size_t joint = 0;  // index into the skin's joints (and its palette)
  int node = -1;     // the joint's node
};

HeaviestJoint heaviest_joint(const Scene& scene, const WorldPrimitive& world, const Primitive& prim) {
  HeaviestJoint out;
  out.skin = scene.nodes[size_t(world.node)].skin;
  std::vector<double> carried(scene.skins[size_t(out.skin)].joints.size(), 0.0);
  for (size_t i = 0; i < prim.joints.size(); ++i) carried[prim.joints[i]] += prim.weights[i];
  out.joint = size_t(std::max_element(carried.begin(), carried.end()) - carried.begin());
  out.node = scene.skins[size_t(out.skin)].joints[out.joint];
  return out;
}

// A joint turned by e rad about its own world position (its palette matrix pre-multiplied by the turn).
DefectThreshold joint_turn_threshold(const Scene& scene, const EvaluatedPose& pose, const HeaviestJoint& hj,
                                     const std::vector<WorldPrimitive>& reference, const CaughtFn& caught) {
  const Mat4& global = pose.model.global[size_t(hj.node)];
  const Vec3 pivot = global.block<3, 1>(0, 3);
  DefectThreshold out;
  out.move = 0.0;
  out.size = threshold([&](double e) {
    EvaluatedPose turned = pose;
    Mat4 about = Mat4::Identity();
    about.topLeftCorner<3, 3>() = Eigen::AngleAxisd(e, Vec3(1, 1, 1).normalized()).toRotationMatrix();
    about.block<3, 1>(0, 3) = pivot - about.topLeftCorner<3, 3>() * pivot;
    Mat4& jm = turned.palettes[size_t(hj.skin)].skinning[hj.joint];
    jm = (about * jm).eval();
    turned.palettes[size_t(hj.skin)].normal[hj.joint] = normal_matrix(jm.topLeftCorner<3, 3>());
    const std::vector<WorldPrimitive> test = evaluate_vertices(scene, turned, {});
    out.move = largest_move(test, reference);
    return caught(test);
  });
  return out;
}

// One rotation key of the joint's channel turned by e rad: the key the time samples from. Not applicable (both
// +inf) when the joint has no rotation channel with more than one key.
DefectThreshold key_turn_threshold(const Scene& scene, int joint_node, double time,
                                   const std::vector<WorldPrimitive>& reference, const CaughtFn& caught) {
  DefectThreshold out;
  Scene keyed = scene;
  AnimationSampler* sampler = rotation_sampler(keyed, joint_node);
  if (!sampler || sampler->times.size() <= 1) return out;
  const size_t after = size_t(std::upper_bound(sampler->times.begin(), sampler->times.end(), time) -
                              sampler->times.begin());
  const size_t key_index = after == 0 ? 0 : after - 1;
  const bool cubic = sampler->interpolation == Interpolation::CubicSpline;
  const size_t at = (cubic ? key_index * 3 + 1 : key_index) * 4;
  const std::vector<double> original(sampler->values.begin() + std::ptrdiff_t(at),
                                     sampler->values.begin() + std::ptrdiff_t(at + 4));
  out.size = threshold([&](double e) {
    const Quat q = Quat(Eigen::AngleAxisd(e, Vec3(0, 0, 1))) *
                   quat_from_xyzw(original[0], original[1], original[2], original[3]);
    const auto xyzw = quat_to_xyzw(q);
    for (size_t i = 0; i < 4; ++i) sampler->values[at + i] = xyzw[i];
    finalize_scene(keyed);
    const std::vector<WorldPrimitive> test = evaluate_vertices(keyed, evaluate_pose(keyed, 0, time), {});
    out.move = largest_move(test, reference);
    return caught(test);
  });
  return out;
}

// The blended vertex whose two largest influences move it apart the most; spread -1 when there is none.
struct SpreadVertex {
  size_t vertex = 0, first = 0, second = 0;  // the vertex and its two largest influence slots
  double spread = -1.0;                      // how far apart its two largest joints move it
};

SpreadVertex most_spread_vertex(const Primitive& prim, const JointPalette& palette) {
  const size_t k = size_t(prim.influences_per_vertex);
  SpreadVertex out;
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    std::vector<size_t> order(k);
    for (size_t i = 0; i < k; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return prim.weights[v * k + a] > prim.weights[v * k + b]; });
    if (k < 2 || prim.weights[v * k + order[1]] <= 0.0) continue;
    const Vec3 p = prim.positions[v];
    const Mat4& a = palette.skinning[prim.joints[v * k + order[0]]];
    const Mat4& b = palette.skinning[prim.joints[v * k + order[1]]];
    const double d = ((a.topLeftCorner<3, 3>() - b.topLeftCorner<3, 3>()) * p + a.block<3, 1>(0, 3) - b.block<3, 1>(0, 3)).norm();
    if (d > out.spread) {
      out.spread = d;
      out.vertex = v;
      out.first = order[0];
      out.second = order[1];
    }
  }
  return out;
}

// A weight moved: d of the spread vertex's largest influence given to its second. Not applicable (both +inf)
// without a spread vertex.
DefectThreshold weight_move_threshold(const Scene& scene, const EvaluatedPose& pose, const WorldPrimitive& world,
                                      const SpreadVertex& sv, const std::vector<WorldPrimitive>& reference,
                                      const CaughtFn& caught) {
  DefectThreshold out;
  if (!(sv.spread > 0.0)) return out;
  out.size = threshold([&](double d) {
    Scene moved = scene;
    Primitive& mp = moved.meshes[size_t(world.mesh)].primitives[size_t(world.primitive)];
    const size_t k = size_t(mp.influences_per_vertex);
    const double amount = std::min(d, mp.weights[sv.vertex * k + sv.first]);
    mp.weights[sv.vertex * k + sv.first] -= amount;
    mp.weights[sv.vertex * k + sv.second] += amount;
    const std::vector<WorldPrimitive> test = evaluate_vertices(moved, pose, {});
    out.move = largest_move(test, reference);
    return caught(test);
  });
  return out;
}

// The three defects' thresholds, printed, and each applicable one's move required under kRequiredDetection.
struct DefectReport {
  const char* label;
  BoundsModel model;
  double extent, largest_bound;
  DefectThreshold rotation, key, weight;
  bool has_spread;  // a blended vertex exists, so the weight defect applies
};

void report_and_check_defects(const DefectReport& r) {
  std::printf("%s, %s bounds (largest position bound %.3g of the extent):\n  joint turned by %.3g rad caught (moves "
              "vertices by %.3g of the extent)", r.label, bounds_model_name(r.model), r.largest_bound / r.extent,
              r.rotation.size, r.rotation.move / r.extent);
  if (std::isfinite(r.key.size)) std::printf("; key turned by %.3g rad (%.3g)", r.key.size, r.key.move / r.extent);
  else std::printf("; no rotation key on that joint");
  if (r.has_spread) std::printf("; weight moved by %.3g (%.3g)\n", r.weight.size, r.weight.move / r.extent);
  else std::printf("; no blended vertex whose two joints move it apart at this time\n");
  EXPECT_LT(r.rotation.move / r.extent, kRequiredDetection);
  if (std::isfinite(r.key.size)) {
    EXPECT_LT(r.key.move / r.extent, kRequiredDetection);
  }
  if (r.has_spread) {
    EXPECT_LT(r.weight.move / r.extent, kRequiredDetection);
  }
}

// Every convention diagnose knows, planted alone: its effect (the largest position move from a planted glTF
// engine's dump, both rounded to float32 alike) and the verdict. Conventions with no effect on this model at
// this time are left out. One that moves a vertex past every bound must be caught.
void check_conventions(const Scene& scene, double time, const std::vector<WorldPrimitive>& reference,
                       const std::vector<PrimitiveErrorBounds>& bounds, double extent, double largest_bound) {
  std::string caught_list, passed_list;
  const std::vector<WorldPrimitive> planted_gltf = test::planted_engine_dump(scene, 0, time, {});
  for (const std::vector<std::string>& candidate : diagnose_candidates()) {
    const std::vector<WorldPrimitive> test = test::planted_engine_dump(scene, 0, time, candidate);
    if (test.size() != reference.size()) continue;
    bool comparable = true;
    for (size_t p = 0; p < test.size(); ++p)
      comparable = comparable && test[p].vertices.positions.size() == reference[p].vertices.positions.size();
    if (!comparable) continue;
    const double move = largest_move(test, planted_gltf);
    const bool is_caught = !compare_vertices(scene, reference, test, bounds).passed();
    if (move == 0.0 && !is_caught) continue;  // no effect here (normalize=no moves no position, but normals)
    char entry[160];
    std::snprintf(entry, sizeof entry, " %s (%.2g)", test::joined(candidate).c_str(), move / extent);
    (is_caught ? caught_list : passed_list) += entry;
    if (move > largest_bound || move > kRequiredDetection * extent) {
      EXPECT_TRUE(is_caught) << test::joined(candidate) << " moves a vertex by " << move / extent
                             << " of the extent, over every bound";
    }
  }
  std::printf("  conventions caught:%s\n  conventions within the bounds:%s\n", caught_list.c_str(),
              passed_list.empty() ? " none" : passed_list.c_str());
}

// The three defects' thresholds and the planted conventions on `scene` under one bound model, at the clip's mid
// time (rounded to float32).
void check_model_under(const std::string& label, const Scene& scene, BoundsModel model) {
  const Animation& clip = scene.animations[0];
  const double time = double(float(0.5 * (clip.start_time + clip.end_time)));
  const EvaluatedPose pose = evaluate_pose(scene, 0, time);
  const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, {});
  const PoseErrorBounds pose_bounds = pose_error_bounds(model, scene, 0, time);
  const std::vector<PrimitiveErrorBounds> bounds = vertex_error_bounds(model, scene, pose, {}, &pose_bounds);
  const double extent = positions_extent(reference);
  ASSERT_GT(extent, 0.0);
  double largest_bound = 0.0;
  for (const PrimitiveErrorBounds& b : bounds)
    for (double bound : b.position) largest_bound = std::max(largest_bound, bound);
  const CaughtFn caught = [&](const std::vector<WorldPrimitive>& test) {
    return !compare_vertices(scene, reference, test::rounded_to_float32(test), bounds).passed();
  };
  ASSERT_FALSE(caught(reference)) << "the unperturbed run passes";

  // The skinned primitive and the joint that carries the most weight in it.
  size_t prim_index = 0;
  while (prim_index < reference.size() && !reference[prim_index].skinned) ++prim_index;
  ASSERT_LT(prim_index, reference.size());
  const WorldPrimitive& world = reference[prim_index];
  const Primitive& prim = scene.meshes[size_t(world.mesh)].primitives[size_t(world.primitive)];
  const HeaviestJoint hj = heaviest_joint(scene, world, prim);

  const DefectThreshold rotation = joint_turn_threshold(scene, pose, hj, reference, caught);
  const DefectThreshold key = key_turn_threshold(scene, hj.node, time, reference, caught);
  const SpreadVertex sv = most_spread_vertex(prim, pose.palettes[size_t(hj.skin)]);
  const DefectThreshold weight = weight_move_threshold(scene, pose, world, sv, reference, caught);
  report_and_check_defects({label.c_str(), model, extent, largest_bound, rotation, key, weight, sv.spread > 0.0});

  check_conventions(scene, time, reference, bounds, extent, largest_bound);
}

void check_detection_threshold(const std::string& label, const Scene& scene) {
  if (scene.animations.empty() || scene.skins.empty()) GTEST_SKIP() << label << " has no clip or no skin";
  // any-order-wide: the threshold under the wide sampling allowances (tol::kWideSamplingAllowances), for the table.
  for (BoundsModel model : {BoundsModel::AnyOrder, BoundsModel::AnyOrderWide, BoundsModel::SkinrefOrder}) {
    SCOPED_TRACE(bounds_model_name(model));
    check_model_under(label, scene, model);
  }
}

class DetectionBuiltin : public ::testing::TestWithParam<std::string> {};

TEST_P(DetectionBuiltin, DefectsOfAThousandthOfTheExtentAreCaught) {
  check_detection_threshold("builtin:" + GetParam(), make_builtin_scene(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(All, DetectionBuiltin,
                         ::testing::ValuesIn(test::small_builtin_scene_names()), test::builtin_test_name);

class DetectionCorpus : public ::testing::TestWithParam<test::CorpusModel> {};

TEST_P(DetectionCorpus, DefectsOfAThousandthOfTheExtentAreCaught) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  check_detection_threshold(GetParam().path, load_model(test::corpus_dir() + "/" + GetParam().path));
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

// The fast CPU backend (cpu/skinning_cpu.h) against the double-precision reference, held to the derived
// per-vertex float32 bounds of reference/verify/vertex_error_bounds.h (the bounds of skin.comp's computation, which
// the CPU kernel performs lane for lane): every built-in scene, LBS and DQS, at three times; every corpus skin
// model; morph targets, tangents and rigid nodes; both weight policies and both normal conventions. Every
// kernel this CPU has gives the scalar kernel's bits, and 1, 2 and 3 threads give the same bits. The other
// normal convention must be caught by the bounds. The command line: `skin --backend cpu` and `compare`.
#include "anim/evaluate_pose.h"
#include "cpu/kernel_choice.h"
#include "cpu/skinning_cpu.h"
#include "io/builtin_scenes.h"
#include "io/load_model.h"
#include "skin/dqs.h"
#include "skin/evaluate_vertices.h"
#include "support/cli_runner.h"
#include "support/corpus_models.h"
#include "support/skinning_cases.h"
#include "support/temp_dir.h"
#include "support/tolerances.h"
#include "verify/vertex_compare.h"
#include "verify/vertex_error_bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using cpu::CpuSkinningInputs;
using cpu::CpuSkinningOutputs;
using test::method_name;
using test::builtin_sample_times;
using test::sample_times;
using test::time_text;

// ---- scenes ---------------------------------------------------------------------------------------------------

using test::decorated_bend;

// `name` with a set of 4 more influences per vertex, first, of weight 0 (joint 0): an influence count the
// kernels do not specialize (12 for builtin:eight-influences) and zero slots DQS's pivot must skip.
Scene with_leading_zero_influences(const std::string& name) {
  Scene scene = make_builtin_scene(name);
  for (Primitive& prim : scene.meshes[0].primitives) {
    const size_t k = size_t(prim.influences_per_vertex), n = prim.vertex_count();
    std::vector<uint32_t> joints;
    std::vector<double> weights;
    for (size_t v = 0; v < n; ++v) {
      joints.insert(joints.end(), 4, 0u);
      weights.insert(weights.end(), 4, 0.0);
      joints.insert(joints.end(), prim.joints.begin() + long(v * k), prim.joints.begin() + long((v + 1) * k));
      weights.insert(weights.end(), prim.weights.begin() + long(v * k), prim.weights.begin() + long((v + 1) * k));
    }
    prim.joints = std::move(joints);
    prim.weights = std::move(weights);
    prim.influences_per_vertex = int(k + 4);
  }
  finalize_scene(scene);
  return scene;
}

// ---- checks ---------------------------------------------------------------------------------------------------

size_t capped_count(const std::vector<PrimitiveErrorBounds>& bounds) {
  size_t capped = 0;
  for (const PrimitiveErrorBounds& b : bounds) {
    capped += size_t(std::count(b.normal.begin(), b.normal.end(), tol::kUnitVectorDifferenceCap));
    capped += size_t(std::count(b.tangent.begin(), b.tangent.end(), tol::kUnitVectorDifferenceCap));
  }
  return capped;
}

// Every value a float32 value, and how many differ from the reference's doubles at all. Counted by hand over
// the raw components and asserted once: this runs over the million-vertex scene, and the test code is built
// without optimization in the sanitizer tree, where an assertion and an Eigen index per component cost seconds.
size_t float_values_differing(const std::vector<WorldPrimitive>& cpu, const std::vector<WorldPrimitive>& ref) {
  size_t differing = 0, not_float = 0;
  auto count = [&](const double* values, const double* reference, size_t n) {
    for (size_t k = 0; k < n; ++k) {
      not_float += values[k] != double(static_cast<float>(values[k])) ? 1 : 0;
      differing += values[k] != reference[k] ? 1 : 0;
    }
  };
  for (size_t i = 0; i < cpu.size() && i < ref.size(); ++i) {
    const SkinnedVertices &c = cpu[i].vertices, &r = ref[i].vertices;
    if (c.positions.size() == r.positions.size() && !c.positions.empty())
      count(c.positions[0].data(), r.positions[0].data(), 3 * c.positions.size());
    if (c.normals.size() == r.normals.size() && !c.normals.empty())
      count(c.normals[0].data(), r.normals[0].data(), 3 * c.normals.size());
    if (c.tangents.size() == r.tangents.size() && !c.tangents.empty())
      count(c.tangents[0].data(), r.tangents[0].data(), 4 * c.tangents.size());
  }
  EXPECT_EQ(not_float, 0u) << "components that are not float32 values";
  return differing;
}

// The CPU backend against the reference at one time, within the bounds of the reference's palette: no value
// over its bound, none unbounded, exactly `capped` directions at the cap. Prints the figures.
VertexComparison check_within_bounds(const Scene& scene, int animation, double time, const SkinningOptions& options,
                                     const std::string& what, size_t capped = 0) {
  const EvaluatedPose pose = evaluate_pose(scene, animation, time);
  const std::vector<WorldPrimitive> cpu = cpu::cpu_evaluate_vertices(scene, pose, options);
  const std::vector<WorldPrimitive> ref = evaluate_vertices(scene, pose, options);
  const std::vector<PrimitiveErrorBounds> bounds = float32_vertex_error_bounds(scene, pose, options, nullptr);
  const VertexComparison c = compare_vertices(scene, ref, cpu, bounds);
  EXPECT_GT(c.values, 0u) << what;
  EXPECT_EQ(c.over, 0u) << what << ": worst " << c.worst.attribute << " of vertex " << c.worst.vertex
                        << " in primitive " << c.worst.primitive_index << ", error " << c.worst.error << " bound "
                        << c.worst.bound;
  EXPECT_EQ(c.unbounded, 0u) << what;
  EXPECT_EQ(capped_count(bounds), capped) << what;
  const size_t differing = float_values_differing(cpu, ref);
  std::printf("[ measured ] %-44s %8zu values, %7zu components differ from the reference, error/bound max %.3f"
              " median %.2e\n",
              what.c_str(), c.values, differing, c.max_ratio, c.median_ratio);
  return c;
}

bool same_bits(const cpu_detail::Floats& a, const cpu_detail::Floats& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}
bool same_bits(const cpu_detail::Planes& a, const cpu_detail::Planes& b) {
  return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z) && same_bits(a.w, b.w);
}
bool same_bits(const CpuSkinningOutputs& a, const CpuSkinningOutputs& b) {
  return same_bits(a.positions, b.positions) && same_bits(a.normals, b.normals) && same_bits(a.tangents, b.tangents);
}

// ---- within the derived bounds --------------------------------------------------------------------------------

TEST(CpuSkinningBounds, BuiltinScenesAtThreeTimes) {
  for (const std::string& name : builtin_scene_names()) {
    const Scene scene = make_builtin_scene(name);
    for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
      SkinningOptions options;
      options.method = method;
      for (double time : builtin_sample_times(scene, name)) {
        // LBS at builtin:twist's half turn collapses the middle ring: its normals' direction is at the cap.
        const bool collapsed = name == "twist" && time == scene.animations[0].end_time && method == SkinningMethod::Lbs;
        check_within_bounds(scene, 0, time, options, name + " " + method_name(method) + " t=" + time_text(time),
                            collapsed ? test::twist_collapsed_ring(scene) : 0);
      }
    }
  }
}

TEST(CpuSkinningBounds, MorphTargetsTangentsAndRigidNodes) {
  const Scene scene = decorated_bend();
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.3);
  // The scene does what it is for: a rigid primitive, tangents, morph weights in use.
  const std::vector<WorldPrimitive> cpu = cpu::cpu_evaluate_vertices(scene, pose, SkinningOptions{});
  ASSERT_EQ(cpu.size(), 2u);
  EXPECT_NE(cpu[0].skinned, cpu[1].skinned);
  for (const WorldPrimitive& primitive : cpu) {
    EXPECT_EQ(primitive.vertices.tangents.size(), primitive.vertices.positions.size());
    EXPECT_EQ(pose.local.morph_weights[size_t(primitive.node)], (std::vector<double>{0.25, -0.6}));
  }
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs})
    for (double time : {0.0, 0.3}) {
      SkinningOptions options;
      options.method = method;
      check_within_bounds(scene, 0, time, options, std::string("bend+morph+rigid ") + method_name(method) + " t=" +
                                                       time_text(time));
    }
}

TEST(CpuSkinningBounds, WeightPoliciesNormalModesAndUnspecializedInfluenceCounts) {
  // The weights scaled to sum to 0.7, both policies and both normal conventions.
  const Scene scaled = test::twist_with_scaled_weights(0.7);
  const Scene padded = with_leading_zero_influences("eight-influences");
  for (const SkinningOptions& options : test::weight_and_normal_options()) {
    check_within_bounds(scaled, 0, 0.4, options, "twist x0.7 " + test::options_label(options));
    check_within_bounds(padded, 0, 0.4 * padded.animations[0].end_time, options,
                        "eight +4 zero slots " + test::options_label(options));
  }
}

// Built-in scene `name` with every 7th vertex from the 4th (so that wide blocks mix both kinds) stripped of all
// its weights; *unweighted counts them.
Scene with_unweighted_vertices(const std::string& name, size_t* unweighted = nullptr) {
  Scene scene = make_builtin_scene(name);
  size_t count = 0;
  for (Mesh& mesh : scene.meshes)
    for (Primitive& prim : mesh.primitives) {
      const size_t k = size_t(prim.influences_per_vertex);
      for (size_t v = 3; v < prim.vertex_count() && k > 0; v += 7, ++count)
        std::fill_n(prim.weights.begin() + long(v * k), k, 0.0);
    }
  finalize_scene(scene);
  if (unweighted != nullptr) *unweighted = count;
  return scene;
}

TEST(CpuSkinningBounds, VerticesWhoseWeightsSumToZeroKeepTheirBindAttributes) {
  // Every 7th vertex of scenes with 4 and 8 influences (the kernels' per-vertex blend) and 2 (builtin:bend)
  // loses all its weights: it keeps its bind position and normal, as the reference does, under both weight
  // policies, and everything stays within the bounds.
  for (const std::string name : {"bend", "million", "eight-influences"}) {
    size_t unweighted = 0;
    const Scene scene = with_unweighted_vertices(name, &unweighted);
    ASSERT_GT(unweighted, 0u) << name;
    const double time = 0.4 * scene.animations[0].end_time;
    size_t checks = 0;
    for (const SkinningOptions& options : test::weight_and_normal_options()) {
      // builtin:million (the 4-influence case) with the default normal convention only: it is large. Under the
      // sanitizers, once (support/sanitizer_workload.h).
      if (name == "million" && options.normals != NormalMode::InverseTransposeOfBlend) continue;
      if (test::once_under_sanitizers(name) && checks > 0) continue;
      check_within_bounds(scene, 0, time, options, name + " 1/7 unweighted " + test::options_label(options));
      ++checks;
    }
    const std::vector<WorldPrimitive> cpu =
        cpu::cpu_evaluate_vertices(scene, evaluate_pose(scene, 0, time), SkinningOptions{});
    for (const WorldPrimitive& primitive : cpu) {
      if (!primitive.skinned) continue;
      const Primitive& prim = scene.meshes[size_t(primitive.mesh)].primitives[size_t(primitive.primitive)];
      for (size_t v = 3; v < prim.vertex_count(); v += 7)
        for (int e = 0; e < 3; ++e) {
          ASSERT_EQ(primitive.vertices.positions[v][e], double(float(prim.positions[v][e]))) << name << " " << v;
          ASSERT_EQ(primitive.vertices.normals[v][e], double(float(prim.normals[v][e]))) << name << " " << v;
        }
    }
  }
}

TEST(CpuSkinningBounds, OtherNormalConventionIsCaught) {
  // builtin:chain64 between keys: blending the joints' normal matrices instead of taking the inverse transpose
  // of the blended matrix moves the normals of two-joint vertices by a few 1e-5, far above float rounding.
  const Scene scene = make_builtin_scene("chain64");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.4 * scene.animations[0].end_time);
  const SkinningOptions options;  // inverse transpose: the reference and its bounds
  SkinningOptions wrong;
  wrong.normals = NormalMode::BlendedNormalMatrices;
  const VertexComparison c =
      compare_vertices(scene, evaluate_vertices(scene, pose, options), cpu::cpu_evaluate_vertices(scene, pose, wrong),
                       float32_vertex_error_bounds(scene, pose, options, nullptr));
  std::printf("[ measured ] other normal convention: %zu of %zu values over their bound, max error/bound %.3g\n",
              c.over, c.values, c.max_ratio);
  EXPECT_GT(c.over, 0u);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.worst.attribute, "normal");
  EXPECT_GT(c.max_ratio, 10.0);
}

class CpuSkinningCorpusTest : public ::testing::TestWithParam<test::CorpusModel> {};

TEST_P(CpuSkinningCorpusTest, WithinBoundsAtThreeTimes) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  const Scene scene = load_model(test::corpus_dir() + "/" + GetParam().path);
  const int animation = scene.animations.empty() ? -1 : 0;
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    if (method == SkinningMethod::Dqs && scene.skins.empty()) continue;  // DQS applies to skinned nodes only
    SkinningOptions options;
    options.method = method;
    for (double time : sample_times(scene, animation))
      check_within_bounds(scene, animation, time, options,
                          std::string(GetParam().name) + " " + method_name(method) + " t=" + time_text(time));
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CpuSkinningCorpusTest, ::testing::ValuesIn(test::kCorpusModels),
                         test::model_test_name);

// ---- identical bits: kernels and thread counts ----------------------------------------------------------------

// Each of `kernels`, with per-vertex blends under both DQS schedules and with gathered blends, gives the scalar
// kernel's bits on `in`, and on `in` with its normals dropped (the wide loops' positions-only Shape); returns the
// number of runs compared.
size_t expect_scalar_bits(const CpuSkinningInputs& in, const std::vector<SkinningKernel>& kernels,
                          const std::string& what) {
  CpuSkinningInputs positions_only = in;
  positions_only.normals = {};
  for (cpu_detail::Segment& segment : positions_only.segments) segment.normals = false;
  struct Way {
    cpu::WideBlends blends;
    cpu::DqsSchedule schedule;
    const char* name;
  };
  const Way ways[] = {{cpu::WideBlends::PerVertex, cpu::DqsSchedule::Pipelined, "per-vertex blends, DQS pipelined"},
                      {cpu::WideBlends::PerVertex, cpu::DqsSchedule::InOrder, "per-vertex blends, DQS in order"},
                      {cpu::WideBlends::Gathers, cpu::DqsSchedule::Auto, "gathers"}};
  size_t compared = 0;
  for (const CpuSkinningInputs* inputs : {&in, static_cast<const CpuSkinningInputs*>(&positions_only)}) {
    const std::string variant = inputs == &in ? "" : " (positions only)";
    CpuSkinningOutputs scalar;
    cpu::skin_cpu(*inputs, scalar, 1, SkinningKernel::Scalar);
    for (SkinningKernel k : kernels)
      for (const Way& way : ways) {
        CpuSkinningOutputs wide;
        cpu::skin_cpu(*inputs, wide, 1, k, cpu::OutputStores::Auto, way.blends, way.schedule);
        EXPECT_TRUE(same_bits(scalar, wide)) << what << variant << " " << cpu::cpu_kernel_name(k) << " " << way.name;
        ++compared;
      }
  }
  return compared;
}

TEST(CpuSkinningBits, EveryKernelGivesTheScalarBits) {
  std::vector<SkinningKernel> kernels;
  for (SkinningKernel k : {SkinningKernel::Avx2, SkinningKernel::Avx512}) {
    if (cpu::cpu_kernel_available(k)) kernels.push_back(k);
    else std::printf("[ skipped  ] the %s kernel: not on this CPU or build\n", cpu::cpu_kernel_name(k));
  }
  ASSERT_TRUE(cpu::cpu_kernel_available(SkinningKernel::Scalar));
  std::vector<std::pair<std::string, Scene>> scenes;
  for (const std::string& name : builtin_scene_names()) scenes.emplace_back(name, make_builtin_scene(name));
  scenes.emplace_back("bend+morph+rigid", decorated_bend());
  scenes.emplace_back("eight +4 zero slots", with_leading_zero_influences("eight-influences"));
  scenes.emplace_back("bend 1/7 unweighted", with_unweighted_vertices("bend"));  // lanes that keep their bind
  scenes.emplace_back("eight-influences 1/7 unweighted", with_unweighted_vertices("eight-influences"));
  size_t compared = 0;
  for (const auto& [name, scene] : scenes)
    for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs})
      for (WeightPolicy weights : {WeightPolicy::AsStored, WeightPolicy::Renormalize})
        for (NormalMode normals : {NormalMode::InverseTransposeOfBlend, NormalMode::BlendedNormalMatrices}) {
          const bool default_options =
              weights == WeightPolicy::AsStored && normals == NormalMode::InverseTransposeOfBlend;
          if (name == "million" && !default_options) continue;  // one option set is enough for its size
          SkinningOptions options;
          options.method = method;
          options.weights = weights;
          options.normals = normals;
          const CpuSkinningInputs in =
              cpu::prepare_cpu_skinning(scene, evaluate_pose(scene, 0, 0.4 * scene.animations[0].end_time), options);
          compared += expect_scalar_bits(in, kernels, name + " " + method_name(method));
        }
  std::printf("[ measured ] %zu runs of the wide kernels (%s) bit-identical to the scalar kernel\n", compared,
              cpu::cpu_kernel_name(SkinningKernel::Auto));
}

// Palette joint j as [linear | translation], with its normal matrix.
void set_joint(JointPalette& palette, size_t j, const Mat3& linear, const Vec3& translation) {
  Mat4 jm = Mat4::Identity();
  jm.topLeftCorner<3, 3>() = linear;
  jm.topRightCorner<3, 1>() = translation;
  palette.skinning[j] = jm;
  palette.normal[j] = linear.inverse().transpose();
}

// Calls visit(dot) for every influence after the first of every vertex of the scene's skinned primitives whose
// joints lie in the palette: dot is the double-precision dot of the two joints' DQS real parts.
template <class Visit>
void for_each_dot_with_first(const Scene& scene, const JointPalette& palette, Visit visit) {
  for (const Mesh& mesh : scene.meshes)
    for (const Primitive& prim : mesh.primitives) {
      const size_t k = size_t(prim.influences_per_vertex);
      if (k < 2 || prim.joints.size() < k) continue;
      for (size_t v = 0; v < prim.joints.size() / k; ++v)
        for (size_t i = 1; i < k; ++i) {
          const size_t first = prim.joints[v * k], other = prim.joints[v * k + i];
          if (first >= palette.skinning.size() || other >= palette.skinning.size()) continue;
          const DqsJointSplit a = split_dqs_joint(palette.skinning[first]);
          const DqsJointSplit b = split_dqs_joint(palette.skinning[other]);
          visit(a.real[0] * b.real[0] + a.real[1] * b.real[1] + a.real[2] * b.real[2] + a.real[3] * b.real[3]);
        }
    }
}

// Scrambled palettes: every joint a random rotation of any angle (so that about half of a vertex's influences
// lie in the other hemisphere from its pivot, which the animated scenes above rarely give), a random
// translation and, for every third joint, a non-uniform scale; weights random, some zero (the first ones
// included, which the pivot must skip) and some negative. DQS and LBS, both weight policies and both normal
// conventions, every influence count of the built-in scenes. The count of hemisphere flips is printed and must
// be non-zero, so that this test would see a kernel that signs (or fails to sign) the wrong parts. Both ways
// of reading the palette (cpu::WideBlends) are compared.
TEST(CpuSkinningBits, EveryKernelGivesTheScalarBitsOnScrambledPalettes) {
  std::vector<SkinningKernel> kernels;
  for (SkinningKernel k : {SkinningKernel::Avx2, SkinningKernel::Avx512})
    if (cpu::cpu_kernel_available(k)) kernels.push_back(k);
  if (kernels.empty()) GTEST_SKIP() << "no wide kernel on this CPU or build";
  std::mt19937 random(20261126u);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  size_t compared = 0, flipped = 0, influences_seen = 0;
  for (const std::string& name : builtin_scene_names()) {
    if (name == "million") continue;  // its size adds nothing here
    Scene scene = make_builtin_scene(name);
    if (scene.skins.empty()) continue;
    for (Mesh& mesh : scene.meshes)
      for (Primitive& prim : mesh.primitives)
        for (size_t i = 0; i < prim.weights.size(); ++i) {
          const double u = unit(random);
          prim.weights[i] = u < -0.8 ? 0.0 : u < -0.7 ? -0.25 * (u + 0.7) - 0.05 : 0.5 * (u + 1.0);
        }
    finalize_scene(scene);
    EvaluatedPose pose = evaluate_pose(scene, 0, 0.4 * scene.animations[0].end_time);
    for (JointPalette& palette : pose.palettes) {
      for (size_t j = 0; j < palette.skinning.size(); ++j) {
        Quat q(unit(random), unit(random), unit(random), unit(random));
        if (q.norm() < 1e-3) q = Quat::Identity();
        q.normalize();
        Mat3 linear = q.toRotationMatrix();
        if (j % 3 == 2) linear = linear * Vec3(1.0 + 0.5 * unit(random), 1.0, 1.0 + 0.25 * unit(random)).asDiagonal();
        set_joint(palette, j, linear, Vec3(unit(random), unit(random), unit(random)));
      }
      for (const Mesh& mesh : scene.meshes)
        for (const Primitive& prim : mesh.primitives) {
          const size_t k = size_t(prim.influences_per_vertex);
          if (k >= 2 && prim.joints.size() >= k) influences_seen = std::max(influences_seen, k);
        }
      for_each_dot_with_first(scene, palette, [&](double dot) { flipped += dot < 0.0 ? 1 : 0; });
    }
    for (const SkinningOptions& options : test::weight_and_normal_options()) {
      const CpuSkinningInputs in = cpu::prepare_cpu_skinning(scene, pose, options);
      compared += expect_scalar_bits(in, kernels, name + " " + method_name(options.method));
    }
  }
  EXPECT_GT(flipped, 0u);
  EXPECT_GE(influences_seen, 8u);
  std::printf("[ measured ] %zu runs on scrambled palettes bit-identical to the scalar kernel; %zu influences in "
              "the other hemisphere from their vertex's first\n",
              compared, flipped);
}

// Palettes where rounding decides the hemisphere: every odd joint is the joint before it turned by a half turn
// (or a half turn less a hair) about a random axis, so the two real parts are orthogonal or nearly and the
// hemisphere test's dot of a vertex whose influences pair them is a cancellation whose sign its rounding
// decides. A kernel that sums that dot in another order, or mixes up its components, takes the other sign for
// some of them (a different blend), which the scrambled palettes above, whose dots are far from 0, cannot show.
// The count of such pairs (|dot| < 1e-6) is printed and must be non-zero.
TEST(CpuSkinningBits, EveryKernelGivesTheScalarBitsWhereRoundingDecidesTheHemisphere) {
  std::vector<SkinningKernel> kernels;
  for (SkinningKernel k : {SkinningKernel::Avx2, SkinningKernel::Avx512})
    if (cpu::cpu_kernel_available(k)) kernels.push_back(k);
  if (kernels.empty()) GTEST_SKIP() << "no wide kernel on this CPU or build";
  std::mt19937 random(20261127u);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  size_t compared = 0, near_orthogonal = 0;
  for (const std::string& name : builtin_scene_names()) {
    if (name == "million") continue;  // its size adds nothing here
    const Scene scene = make_builtin_scene(name);
    if (scene.skins.empty()) continue;
    EvaluatedPose pose = evaluate_pose(scene, 0, 0.4 * scene.animations[0].end_time);
    for (JointPalette& palette : pose.palettes) {
      for (size_t j = 0; j < palette.skinning.size(); ++j) {
        Mat3 linear;
        if (j % 2 == 0) {
          Quat q(unit(random), unit(random), unit(random), unit(random));
          if (q.norm() < 1e-3) q = Quat::Identity();
          linear = q.normalized().toRotationMatrix();
        } else {
          const double hair = j % 4 == 1 ? 0.0 : 1e-7 * unit(random);
          const Vec3 axis = Vec3(unit(random), unit(random), unit(random)) + Vec3(1e-3, 0.0, 0.0);
          linear = palette.skinning[j - 1].topLeftCorner<3, 3>() *
                   Eigen::AngleAxisd(std::numbers::pi - hair, axis.normalized()).toRotationMatrix();
        }
        set_joint(palette, j, linear, Vec3(unit(random), unit(random), unit(random)));
      }
      for_each_dot_with_first(scene, palette, [&](double dot) { near_orthogonal += std::abs(dot) < 1e-6 ? 1 : 0; });
    }
    SkinningOptions options;
    options.method = SkinningMethod::Dqs;
    compared += expect_scalar_bits(cpu::prepare_cpu_skinning(scene, pose, options), kernels, name + " dqs");
  }
  EXPECT_GT(near_orthogonal, 0u);
  std::printf("[ measured ] %zu runs bit-identical to the scalar kernel where %zu influences are orthogonal, or "
              "nearly, to their vertex's first\n",
              compared, near_orthogonal);
}

// Auto measures its kernel on the first job with a skinned primitive of kTrialVertices vertices where the CPU has
// two wide kernels (cpu/kernel_choice.h): the kernel chosen is one of them, the description says how, and the
// job's bits are the scalar kernel's whichever it is.
TEST(CpuKernelChoice, AutoIsMeasuredOnTheFirstJobAndGivesTheScalarBits) {
  // chain64's vertices three times over (the indices still draw the first copy): one skinned primitive of
  // more than kTrialVertices vertices, and small enough for the sanitizer build.
  Scene scene = make_builtin_scene("chain64");
  Primitive& prim = scene.meshes[0].primitives[0];
  ASSERT_TRUE(prim.tangents.empty() && prim.texcoords0.empty() && prim.other_attributes.empty() && prim.targets.empty());
  for (auto* values : {&prim.positions, &prim.normals}) {
    const std::vector<Vec3> copy = *values;
    for (int k = 0; k < 2; ++k) values->insert(values->end(), copy.begin(), copy.end());
  }
  const std::vector<uint32_t> joints = prim.joints;
  const std::vector<double> weights = prim.weights;
  for (int k = 0; k < 2; ++k) {
    prim.joints.insert(prim.joints.end(), joints.begin(), joints.end());
    prim.weights.insert(prim.weights.end(), weights.begin(), weights.end());
  }
  ASSERT_GE(prim.vertex_count(), cpu::kTrialVertices);
  const CpuSkinningInputs in = cpu::prepare_cpu_skinning(scene, evaluate_pose(scene, 0, 0.25), SkinningOptions{});
  CpuSkinningOutputs automatic, scalar;
  cpu::skin_cpu(in, automatic, 1, SkinningKernel::Auto);
  cpu::skin_cpu(in, scalar, 1, SkinningKernel::Scalar);
  EXPECT_TRUE(same_bits(scalar, automatic));
  const std::string chosen = cpu::cpu_kernel_name(SkinningKernel::Auto);
  const std::string description = cpu::kernel_choice_description();
  std::printf("[ measured ] Auto chose the %s kernel: %s\n", chosen.c_str(), description.c_str());
  const bool two_wide = cpu::cpu_kernel_available(SkinningKernel::Avx2) && cpu::cpu_kernel_available(SkinningKernel::Avx512);
  if (two_wide) {
    EXPECT_TRUE(chosen == "avx2" || chosen == "avx512") << chosen;
    EXPECT_NE(description.find("measured at start-up"), std::string::npos) << description;
    EXPECT_NE(description.find("avx512 "), std::string::npos) << description;
    EXPECT_NE(description.find("avx2 "), std::string::npos) << description;
  } else {
    EXPECT_EQ(chosen, skinning_kernel_name(cpu::widest_kernel()));
  }
}

TEST(CpuSkinningBits, StreamingAndCachedStoresGiveTheSameBits) {
  // builtin:million's outputs (24 MB) are below OutputStores::Auto's threshold: both kinds forced, 1 and 3
  // threads (ranges that start inside a segment, so scalar heads before aligned streaming lanes).
  const Scene scene = make_builtin_scene("million");
  for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
    SkinningOptions options;
    options.method = method;
    const CpuSkinningInputs in = cpu::prepare_cpu_skinning(scene, evaluate_pose(scene, 0, 0.3), options);
    CpuSkinningOutputs cached;
    cpu::skin_cpu(in, cached, 1, SkinningKernel::Auto, cpu::OutputStores::Cached);
    for (int threads : {1, 3}) {
      CpuSkinningOutputs streamed;
      cpu::skin_cpu(in, streamed, threads, SkinningKernel::Auto, cpu::OutputStores::Streaming);
      EXPECT_TRUE(same_bits(cached, streamed)) << method_name(method) << " " << threads << " threads";
    }
  }
}

TEST(CpuSkinningBits, OneTwoAndThreeThreadsGiveTheSameBits) {
  // builtin:million (1,001,000 vertices: several ranges) and the decorated bend (two primitives, small).
  for (const Scene& scene : {make_builtin_scene("million"), decorated_bend()})
    for (SkinningMethod method : {SkinningMethod::Lbs, SkinningMethod::Dqs}) {
      SkinningOptions options;
      options.method = method;
      const CpuSkinningInputs in = cpu::prepare_cpu_skinning(scene, evaluate_pose(scene, 0, 0.3), options);
      CpuSkinningOutputs one;
      cpu::skin_cpu(in, one, 1);
      for (int threads : {2, 3}) {
        CpuSkinningOutputs many;
        cpu::skin_cpu(in, many, threads);
        EXPECT_TRUE(same_bits(one, many)) << scene.source << " " << method_name(method) << " " << threads << " threads";
      }
    }
}

TEST(CpuSkinningErrors, BadThreadCountAndJointOutsideThePalette) {
  Scene scene = make_builtin_scene("bend");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.0);
  const CpuSkinningInputs in = cpu::prepare_cpu_skinning(scene, pose, SkinningOptions{});
  CpuSkinningOutputs out;
  EXPECT_THROW(cpu::skin_cpu(in, out, 0), std::invalid_argument);
  scene.meshes[0].primitives[0].joints[0] = uint32_t(scene.skins[0].joints.size());
  EXPECT_THROW(cpu::prepare_cpu_skinning(scene, pose, SkinningOptions{}), std::invalid_argument);
}

// ---- the command line -------------------------------------------------------------------------------------------

TEST(CpuSkinningCli, SkinDumpComparesWithinBoundsAndOptionsAreChecked) {
  const test::TempDir dir;
  for (const std::string method : {"lbs", "dqs"}) {
    SCOPED_TRACE(method);
    const test::CliRun cpu = test::run_cli(dir, {"skin", "builtin:bend", "--time", "0.625", "--method", method,
                                                 "--backend", "cpu", "--threads", "2", "--out", dir.file("cpu.skv")});
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_NE(cpu.out.find("cpu"), std::string::npos) << cpu.out;
    const test::CliRun ref = test::run_cli(
        dir, {"skin", "builtin:bend", "--time", "0.625", "--method", method, "--out", dir.file("ref.skv")});
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    const test::CliRun compare =
        test::run_cli(dir, {"compare", dir.file("ref.skv"), dir.file("cpu.skv"), "--model", "builtin:bend", "--time",
                            "0.625", "--method", method});
    EXPECT_EQ(compare.exit_code, 0) << compare.out << compare.err;
    EXPECT_NE(compare.out.find("PASS"), std::string::npos) << compare.out;
  }
  const test::CliRun render = test::run_cli(dir, {"render", "builtin:bend", "--time", "0.625", "--size", "64x64",
                                                  "--backend", "cpu", "--out", dir.file("cpu.png")});
  EXPECT_EQ(render.exit_code, 0) << render.err;
  EXPECT_FALSE(test::read_bytes(dir.file("cpu.png")).empty());
  // Vulkan-only options and an f64 dump are usage errors with the CPU backend, as is the pose command.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"skin", "builtin:bend", "--backend", "cpu", "--device", "0", "--out",
                                 dir.file("x.skv")},
        std::vector<std::string>{"skin", "builtin:bend", "--backend", "cpu", "--validate", "--out", dir.file("x.skv")},
        std::vector<std::string>{"skin", "builtin:bend", "--backend", "cpu", "--palette", "gpu", "--out",
                                 dir.file("x.skv")},
        std::vector<std::string>{"skin", "builtin:bend", "--backend", "cpu", "--precision", "f64", "--out",
                                 dir.file("x.skv")},
        std::vector<std::string>{"pose", "builtin:bend", "--backend", "cpu", "--out", dir.file("x.json")}}) {
    const test::CliRun run = test::run_cli(dir, args);
    EXPECT_EQ(run.exit_code, 2) << args[0] << " " << args[4] << ": " << run.out << run.err;
    EXPECT_FALSE(run.err.empty());
  }
}

// skin --cpu-kernel forces the CPU backend's kernel, names it, and writes the bits of any other; it needs
// --backend cpu.
TEST(CpuSkinningCli, CpuKernelForcesTheKernelAndKeepsTheBits) {
  const test::TempDir dir;
  std::vector<std::string> dumps;
  for (const char* kernel : {"scalar", "avx2", "avx512", "auto"}) {
    if (std::string(kernel) != "auto" && std::string(kernel) != "scalar" &&
        !cpu::cpu_kernel_available(std::string(kernel) == "avx2" ? SkinningKernel::Avx2 : SkinningKernel::Avx512)) {
      std::printf("[ skipped  ] the %s kernel: not on this CPU or build\n", kernel);
      continue;
    }
    dumps.push_back(dir.file(std::string(kernel) + ".skv"));
    const test::CliRun run = test::run_cli(dir, {"skin", "builtin:bend", "--time", "0.625", "--method", "dqs",
                                                 "--backend", "cpu", "--cpu-kernel", kernel, "--out", dumps.back()});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    if (std::string(kernel) != "auto") {
      EXPECT_NE(run.out.find(std::string("cpu backend (") + kernel + ")"), std::string::npos) << run.out;
    }
  }
  for (const std::string& dump : dumps) EXPECT_EQ(test::read_bytes(dump), test::read_bytes(dumps.front())) << dump;
  const test::CliRun reference =
      test::run_cli(dir, {"skin", "builtin:bend", "--cpu-kernel", "avx2", "--out", dir.file("r.skv")});
  EXPECT_EQ(reference.exit_code, 2);
  EXPECT_NE(reference.err.find("--cpu-kernel needs --backend cpu"), std::string::npos) << reference.err;
}

}  // namespace
}  // namespace skinref

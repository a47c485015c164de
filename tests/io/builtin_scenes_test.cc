// Tests of the built-in scenes (builtin_scenes.h) and of their glTF export (gltf_export.h): the documented
// sizes, float32-representable data, weights that sum to 1, outward winding, the bind pose reproducing the
// bind positions, determinism, an exact .gltf / .glb round trip through load_gltf_file (data and skinned
// vertices bit for bit), the candy-wrapper collapse of builtin:twist in closed form, and builtin:
// node-transforms, whose mesh node's own transform must be ignored. The exporter is also checked on a
// hand-built scene with what the built-ins lack (morph targets, cameras, STEP / CUBICSPLINE, tangents).
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "io/builtin_scenes.h"
#include "io/gltf_export.h"
#include "io/gltf_load.h"
#include "skin/evaluate_vertices.h"
#include "support/sanitizer_workload.h"
#include "support/temp_dir.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::TempDir;

constexpr double kPi = std::numbers::pi;

// What builtin_scenes.cc documents for each scene.
struct Documented {
  const char* name;
  size_t vertices;
  size_t joints;
  int influences_per_vertex;
};

const std::vector<Documented>& documented() {
  static const std::vector<Documented> table = {
      {"twist", 33 * 24, 2, 4},          {"bend", 21 * 16, 3, 4},
      {"chain64", 127 * 12, 64, 4},      {"eight-influences", 16 * 16, 9, 8},
      {"node-transforms", 32, 2, 4},     {"million", 1001 * 1000, 32, 4},
  };
  return table;
}

const Documented& documented(const std::string& name) {
  for (const Documented& d : documented())
    if (name == d.name) return d;
  throw std::out_of_range("no documented sizes for " + name);
}

// Each scene is built once per test program (million takes a moment); make_builtin_scene is deterministic,
// which BuiltinScene.IsDeterministic checks separately.
const Scene& builtin(const std::string& name) {
  static std::map<std::string, Scene> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, make_builtin_scene(name)).first;
  return it->second;
}

// Through a volatile: GCC 12.2's SLP vectorizer at -O2 drops adjacent (double)(float) round trips.
double f32(double v) {
  const volatile float rounded = static_cast<float>(v);
  return static_cast<double>(rounded);
}

bool same_bits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

// The one skinned mesh node of a built-in scene.
int skinned_node(const Scene& scene) {
  int found = -1;
  for (size_t n = 0; n < scene.nodes.size(); ++n)
    if (scene.nodes[n].skin >= 0) found = static_cast<int>(n);
  return found;
}

const Primitive& skinned_primitive(const Scene& scene) {
  return scene.meshes.at(scene.nodes.at(skinned_node(scene)).mesh).primitives.at(0);
}

// ---- bitwise comparison, reporting the first difference only (a million vertices would flood the log) ----

template <typename T>
::testing::AssertionResult same_doubles(const std::vector<T>& expected, const std::vector<T>& actual,
                                        const std::string& what) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << what << ": " << actual.size() << " elements, expected "
                                         << expected.size();
  // The same bytes are the same bits, element by element (doubles and fixed-size Eigen vectors of doubles have
  // no padding): one memcmp over the million scene's vectors instead of an unoptimized loop under the
  // sanitizers. A difference is then found and reported by the loop.
  if (expected.empty() || std::memcmp(expected.data(), actual.data(), expected.size() * sizeof(T)) == 0)
    return ::testing::AssertionSuccess();
  for (size_t i = 0; i < expected.size(); ++i) {
    if constexpr (std::is_arithmetic_v<T>) {
      if (!same_bits(double(expected[i]), double(actual[i])))
        return ::testing::AssertionFailure() << what << "[" << i << "]: " << actual[i] << ", expected "
                                             << expected[i];
    } else {
      for (Eigen::Index c = 0; c < expected[i].size(); ++c)
        if (!same_bits(expected[i](c), actual[i](c)))
          return ::testing::AssertionFailure() << what << "[" << i << "]: (" << actual[i].transpose()
                                               << "), expected (" << expected[i].transpose() << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult same_matrices(const std::vector<Mat4>& expected, const std::vector<Mat4>& actual,
                                         const std::string& what) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << what << ": " << actual.size() << " matrices, expected "
                                         << expected.size();
  for (size_t i = 0; i < expected.size(); ++i)
    for (Eigen::Index k = 0; k < 16; ++k)
      if (!same_bits(expected[i](k), actual[i](k)))
        return ::testing::AssertionFailure() << what << "[" << i << "] element " << k << ": " << actual[i](k)
                                             << ", expected " << expected[i](k);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult same_transform(const Transform& expected, const Transform& actual) {
  const std::vector<double> e = {expected.translation.x(), expected.translation.y(), expected.translation.z(),
                                 expected.rotation.x(),    expected.rotation.y(),    expected.rotation.z(),
                                 expected.rotation.w(),    expected.scale.x(),       expected.scale.y(),
                                 expected.scale.z()};
  const std::vector<double> a = {actual.translation.x(), actual.translation.y(), actual.translation.z(),
                                 actual.rotation.x(),    actual.rotation.y(),    actual.rotation.z(),
                                 actual.rotation.w(),    actual.scale.x(),       actual.scale.y(),
                                 actual.scale.z()};
  return same_doubles(e, a, "TRS (t, q xyzw, s)");
}

// Everything a Scene holds except `source`, bit for bit.
void expect_same_builtin_scene(const Scene& expected, const Scene& actual) {
  EXPECT_EQ(actual.roots, expected.roots);
  EXPECT_EQ(actual.node_order, expected.node_order);
  ASSERT_EQ(actual.nodes.size(), expected.nodes.size());
  for (size_t n = 0; n < expected.nodes.size(); ++n) {
    SCOPED_TRACE("node " + std::to_string(n));
    const Node& e = expected.nodes[n];
    const Node& a = actual.nodes[n];
    EXPECT_EQ(a.name, e.name);
    EXPECT_EQ(a.parent, e.parent);
    EXPECT_EQ(a.children, e.children);
    EXPECT_TRUE(same_transform(e.rest, a.rest));
    EXPECT_EQ(a.mesh, e.mesh);
    EXPECT_EQ(a.skin, e.skin);
    EXPECT_EQ(a.camera, e.camera);
    EXPECT_TRUE(same_doubles(e.morph_weights, a.morph_weights, "morph_weights"));
    EXPECT_EQ(a.in_active_scene, e.in_active_scene);
  }
  ASSERT_EQ(actual.meshes.size(), expected.meshes.size());
  for (size_t m = 0; m < expected.meshes.size(); ++m) {
    SCOPED_TRACE("mesh " + std::to_string(m));
    EXPECT_EQ(actual.meshes[m].name, expected.meshes[m].name);
    EXPECT_TRUE(same_doubles(expected.meshes[m].default_weights, actual.meshes[m].default_weights, "weights"));
    ASSERT_EQ(actual.meshes[m].primitives.size(), expected.meshes[m].primitives.size());
    for (size_t p = 0; p < expected.meshes[m].primitives.size(); ++p) {
      const Primitive& e = expected.meshes[m].primitives[p];
      const Primitive& a = actual.meshes[m].primitives[p];
      EXPECT_EQ(a.topology, e.topology);
      EXPECT_EQ(a.indexed, e.indexed);
      EXPECT_EQ(a.indices, e.indices);
      EXPECT_TRUE(same_doubles(e.positions, a.positions, "positions"));
      EXPECT_TRUE(same_doubles(e.normals, a.normals, "normals"));
      EXPECT_TRUE(same_doubles(e.tangents, a.tangents, "tangents"));
      EXPECT_TRUE(same_doubles(e.texcoords0, a.texcoords0, "texcoords0"));
      EXPECT_EQ(a.influences_per_vertex, e.influences_per_vertex);
      EXPECT_EQ(a.joints, e.joints);
      EXPECT_TRUE(same_doubles(e.weights, a.weights, "weights"));
      ASSERT_EQ(a.targets.size(), e.targets.size());
      for (size_t t = 0; t < e.targets.size(); ++t) {
        const std::string target = "target " + std::to_string(t) + " ";
        EXPECT_TRUE(same_doubles(e.targets[t].position_deltas, a.targets[t].position_deltas, target + "POSITION"));
        EXPECT_TRUE(same_doubles(e.targets[t].normal_deltas, a.targets[t].normal_deltas, target + "NORMAL"));
        EXPECT_TRUE(same_doubles(e.targets[t].tangent_deltas, a.targets[t].tangent_deltas, target + "TANGENT"));
      }
      EXPECT_EQ(a.material, e.material);
    }
  }
  ASSERT_EQ(actual.skins.size(), expected.skins.size());
  for (size_t s = 0; s < expected.skins.size(); ++s) {
    EXPECT_EQ(actual.skins[s].name, expected.skins[s].name);
    EXPECT_EQ(actual.skins[s].joints, expected.skins[s].joints);
    EXPECT_EQ(actual.skins[s].skeleton, expected.skins[s].skeleton);
    EXPECT_TRUE(same_matrices(expected.skins[s].inverse_bind, actual.skins[s].inverse_bind, "inverse_bind"));
  }
  ASSERT_EQ(actual.animations.size(), expected.animations.size());
  for (size_t i = 0; i < expected.animations.size(); ++i) {
    SCOPED_TRACE("animation " + std::to_string(i));
    const Animation& e = expected.animations[i];
    const Animation& a = actual.animations[i];
    EXPECT_EQ(a.name, e.name);
    EXPECT_TRUE(same_bits(a.start_time, e.start_time));
    EXPECT_TRUE(same_bits(a.end_time, e.end_time));
    ASSERT_EQ(a.samplers.size(), e.samplers.size());
    for (size_t s = 0; s < e.samplers.size(); ++s) {
      EXPECT_EQ(a.samplers[s].interpolation, e.samplers[s].interpolation);
      EXPECT_EQ(a.samplers[s].components, e.samplers[s].components);
      EXPECT_TRUE(same_doubles(e.samplers[s].times, a.samplers[s].times, "times of sampler " + std::to_string(s)));
      EXPECT_TRUE(same_doubles(e.samplers[s].values, a.samplers[s].values, "values of sampler " + std::to_string(s)));
    }
    ASSERT_EQ(a.channels.size(), e.channels.size());
    for (size_t c = 0; c < e.channels.size(); ++c) {
      EXPECT_EQ(a.channels[c].sampler, e.channels[c].sampler);
      EXPECT_EQ(a.channels[c].node, e.channels[c].node);
      EXPECT_EQ(a.channels[c].path, e.channels[c].path);
    }
  }
  ASSERT_EQ(actual.materials.size(), expected.materials.size());
  for (size_t m = 0; m < expected.materials.size(); ++m) {
    EXPECT_EQ(actual.materials[m].name, expected.materials[m].name);
    for (int c = 0; c < 4; ++c)
      EXPECT_TRUE(same_bits(actual.materials[m].base_color_factor[c], expected.materials[m].base_color_factor[c]));
    EXPECT_EQ(actual.materials[m].base_color_texture, expected.materials[m].base_color_texture);
    EXPECT_EQ(actual.materials[m].double_sided, expected.materials[m].double_sided);
  }
  ASSERT_EQ(actual.cameras.size(), expected.cameras.size());
  for (size_t c = 0; c < expected.cameras.size(); ++c) {
    const Camera& e = expected.cameras[c];
    const Camera& a = actual.cameras[c];
    EXPECT_EQ(a.name, e.name);
    EXPECT_EQ(a.perspective, e.perspective);
    EXPECT_TRUE(same_doubles(std::vector<double>{e.yfov, e.aspect_ratio, e.xmag, e.ymag, e.znear, e.zfar},
                             std::vector<double>{a.yfov, a.aspect_ratio, a.xmag, a.ymag, a.znear, a.zfar},
                             "camera " + std::to_string(c) + " (yfov, aspect, xmag, ymag, znear, zfar)"));
  }
}

void expect_same_vertices(const std::vector<WorldPrimitive>& expected, const std::vector<WorldPrimitive>& actual) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].node, expected[i].node);
    EXPECT_EQ(actual[i].mesh, expected[i].mesh);
    EXPECT_EQ(actual[i].primitive, expected[i].primitive);
    EXPECT_EQ(actual[i].skinned, expected[i].skinned);
    EXPECT_TRUE(same_doubles(expected[i].vertices.positions, actual[i].vertices.positions, "skinned positions"));
    EXPECT_TRUE(same_doubles(expected[i].vertices.normals, actual[i].vertices.normals, "skinned normals"));
  }
}

// ---- the list of scenes and unknown names ----------------------------------------------------------------

TEST(BuiltinScenes, NamesAreTheDocumentedSix) {
  EXPECT_EQ(builtin_scene_names(),
            (std::vector<std::string>{"twist", "bend", "chain64", "eight-influences", "node-transforms", "million"}));
}

TEST(BuiltinScenes, UnknownNameIsAnInputErrorListingTheKnownOnes) {
  try {
    make_builtin_scene("no-such-scene");
    FAIL() << "make_builtin_scene accepted an unknown name";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "builtin:no-such-scene");
    EXPECT_EQ(e.json_path(), "");
    for (const std::string& name : builtin_scene_names())
      EXPECT_NE(e.expected().find(name), std::string::npos) << name << " missing from: " << e.expected();
  }
}

TEST(BuiltinScenes, MaterialsHaveDistinctColours) {
  std::vector<Vec4> colours;
  for (const std::string& name : builtin_scene_names()) {
    const Scene& scene = builtin(name);
    ASSERT_EQ(scene.materials.size(), 1u) << name;
    EXPECT_FALSE(scene.materials[0].double_sided) << name;
    for (const Vec4& other : colours) EXPECT_NE(scene.materials[0].base_color_factor, other) << name;
    colours.push_back(scene.materials[0].base_color_factor);
  }
}

TEST(BuiltinScenes, ExportRefusesOtherExtensions) {
  TempDir dir("ext");
  const std::string path = dir.file("scene.obj");
  try {
    export_gltf(builtin("twist"), path);
    FAIL() << "export_gltf accepted " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.expected(), "an output path ending in .gltf or .glb");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

// ---- properties every built-in has -----------------------------------------------------------------------

class BuiltinScene : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinScene, HasTheDocumentedStructure) {
  const std::string& name = GetParam();
  const Scene& scene = builtin(name);
  const Documented& doc = documented(name);
  EXPECT_EQ(scene.source, "builtin:" + name);
  // finalize_scene ran: every node ordered once, every node of these scenes reachable from the roots.
  EXPECT_EQ(scene.node_order.size(), scene.nodes.size());
  for (const Node& node : scene.nodes) EXPECT_TRUE(node.in_active_scene) << node.name;
  ASSERT_EQ(scene.animations.size(), 1u);
  EXPECT_EQ(scene.animations[0].name, "main");
  EXPECT_FALSE(scene.animations[0].channels.empty());
  for (const AnimationSampler& sampler : scene.animations[0].samplers)
    EXPECT_EQ(sampler.interpolation, Interpolation::Linear);

  const int node = skinned_node(scene);
  ASSERT_GE(node, 0);
  ASSERT_EQ(scene.skins.size(), 1u);
  EXPECT_EQ(scene.skins[0].joints.size(), doc.joints);
  EXPECT_EQ(scene.skins[0].inverse_bind.size(), doc.joints);
  const Primitive& prim = skinned_primitive(scene);
  EXPECT_EQ(prim.vertex_count(), doc.vertices);
  EXPECT_EQ(prim.influences_per_vertex, doc.influences_per_vertex);
  EXPECT_EQ(prim.normals.size(), prim.vertex_count());
  EXPECT_EQ(prim.topology, Topology::Triangles);
  EXPECT_TRUE(prim.indexed);
  EXPECT_EQ(prim.indices.size() % 3, 0u);
  EXPECT_EQ(prim.material, 0);
  const uint32_t n = static_cast<uint32_t>(prim.vertex_count());
  EXPECT_TRUE(std::all_of(prim.indices.begin(), prim.indices.end(), [n](uint32_t i) { return i < n; }));
  const auto joint_count = static_cast<uint32_t>(doc.joints);
  EXPECT_TRUE(std::all_of(prim.joints.begin(), prim.joints.end(), [&](uint32_t j) { return j < joint_count; }));
}

TEST_P(BuiltinScene, WeightsAreNonNegativeAndSumToOne) {
  const Primitive& prim = skinned_primitive(builtin(GetParam()));
  const size_t ipv = static_cast<size_t>(prim.influences_per_vertex);
  ASSERT_EQ(prim.weights.size(), prim.vertex_count() * ipv);
  size_t worst_vertex = 0;
  double worst = 0.0;
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    double sum = 0.0;
    for (size_t i = 0; i < ipv; ++i) {
      ASSERT_GE(prim.weights[v * ipv + i], 0.0) << "vertex " << v;
      sum += prim.weights[v * ipv + i];
    }
    if (std::abs(sum - 1.0) > worst) {
      worst = std::abs(sum - 1.0);
      worst_vertex = v;
    }
  }
  EXPECT_LE(worst, tol::kStoredWeightSum) << "vertex " << worst_vertex;
}

TEST_P(BuiltinScene, EveryStoredValueIsAFloat32) {
  const Scene& scene = builtin(GetParam());
  auto check = [](double v) { return same_bits(v, f32(v)); };
  const Primitive& prim = skinned_primitive(scene);
  for (size_t v = 0; v < prim.vertex_count(); ++v)
    for (int c = 0; c < 3; ++c) {
      ASSERT_TRUE(check(prim.positions[v][c])) << "position " << v;
      ASSERT_TRUE(check(prim.normals[v][c])) << "normal " << v;
    }
  for (double w : prim.weights) ASSERT_TRUE(check(w));
  for (const Mat4& m : scene.skins[0].inverse_bind)
    for (Eigen::Index k = 0; k < 16; ++k) ASSERT_TRUE(check(m(k)));
  for (const AnimationSampler& s : scene.animations[0].samplers) {
    for (double t : s.times) ASSERT_TRUE(check(t));
    for (double v : s.values) ASSERT_TRUE(check(v));
  }
  for (const Node& node : scene.nodes) {
    for (int c = 0; c < 3; ++c) {
      EXPECT_TRUE(check(node.rest.translation[c])) << node.name;
      EXPECT_TRUE(check(node.rest.scale[c])) << node.name;
    }
    for (int c = 0; c < 4; ++c) EXPECT_TRUE(check(node.rest.rotation.coeffs()[c])) << node.name;
    // Loaders normalize rest rotations; only an exactly unit quaternion survives that unchanged.
    EXPECT_TRUE(same_bits(node.rest.rotation.squaredNorm(), 1.0)) << node.name;
  }
}

// Counter-clockwise seen from outside: each triangle's geometric normal points along its vertex normals.
TEST_P(BuiltinScene, TrianglesFaceTheirNormals) {
  const Primitive& prim = skinned_primitive(builtin(GetParam()));
  size_t inward = 0;
  for (size_t t = 0; t + 2 < prim.indices.size(); t += 3) {
    const uint32_t a = prim.indices[t], b = prim.indices[t + 1], c = prim.indices[t + 2];
    const Vec3 face = (prim.positions[b] - prim.positions[a]).cross(prim.positions[c] - prim.positions[a]);
    if (!(face.dot(prim.normals[a] + prim.normals[b] + prim.normals[c]) > 0.0)) ++inward;
  }
  EXPECT_EQ(inward, 0u) << "of " << prim.indices.size() / 3 << " triangles";
}

// Joints at rest and IBM = inverse(bind global): every skinning matrix is the identity up to the float32
// rounding of the IBMs, so the skinned vertices are the bind vertices.
TEST_P(BuiltinScene, RestPoseReproducesTheBindVertices) {
  const Scene& scene = builtin(GetParam());
  const EvaluatedPose pose = evaluate_pose(scene, -1, 0.0);
  const std::vector<WorldPrimitive> world = evaluate_vertices(scene, pose, SkinningOptions{});
  ASSERT_EQ(world.size(), 1u);
  ASSERT_TRUE(world[0].skinned);
  const Primitive& prim = skinned_primitive(scene);
  ASSERT_EQ(world[0].vertices.positions.size(), prim.vertex_count());
  double worst_position = 0.0, worst_normal = 0.0;
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    worst_position = std::max(worst_position, (world[0].vertices.positions[v] - prim.positions[v]).cwiseAbs().maxCoeff());
    worst_normal = std::max(worst_normal, (world[0].vertices.normals[v] - prim.normals[v]).cwiseAbs().maxCoeff());
  }
  EXPECT_LE(worst_position, tol::kFloatInput);
  EXPECT_LE(worst_normal, tol::kFloatInput);
}

TEST_P(BuiltinScene, IsDeterministic) {
  const Scene again = make_builtin_scene(GetParam());
  expect_same_builtin_scene(builtin(GetParam()), again);
}

// The float-representable contract: export -> load reproduces the Scene and hence its skinned vertices
// bit for bit, for both containers (builtin:million once under the sanitizers: support/sanitizer_workload.h).
TEST_P(BuiltinScene, RoundTripsThroughGltfAndGlbExactly) {
  const std::string& name = GetParam();
  const Scene& scene = builtin(name);
  const double end = scene.animations[0].end_time;
  const std::vector<double> times =
      test::once_under_sanitizers(name) ? std::vector<double>{0.3} : std::vector<double>{0.0, 0.3, 0.5 * end, end};
  std::vector<std::vector<WorldPrimitive>> expected;
  for (double t : times) expected.push_back(evaluate_vertices(scene, evaluate_pose(scene, 0, t), SkinningOptions{}));

  TempDir dir(name);
  for (const char* extension : {".gltf", ".glb"}) {
    // builtin:million as GLB alone under the sanitizers: the .gltf's buffer is a base64 data URI of 60 MB, whose
    // writing and parsing (the same code as every other scene's) took 35 s of CPU there.
    if (test::once_under_sanitizers(name) && std::string(extension) == ".gltf") continue;
    SCOPED_TRACE(extension);
    const std::string path = dir.file(name + extension);
    export_gltf(scene, path);
    const Scene reloaded = load_gltf_file(path);
    EXPECT_EQ(reloaded.source, path);
    expect_same_builtin_scene(scene, reloaded);
    for (size_t i = 0; i < times.size(); ++i) {
      SCOPED_TRACE("t = " + std::to_string(times[i]));
      expect_same_vertices(expected[i],
                           evaluate_vertices(reloaded, evaluate_pose(reloaded, 0, times[i]), SkinningOptions{}));
    }
  }
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, BuiltinScene, ::testing::ValuesIn(builtin_scene_names()), param_name);

// ---- the exporter on what the built-ins do not use -------------------------------------------------------

// Morph targets with node and mesh weights, tangents, texture coordinates, a non-indexed primitive, STEP
// and CUBICSPLINE samplers, a double-sided material, an infinite and an orthographic camera, and a node
// whose properties are all defaults. Every value is a float32 (dyadic), so the round trip must be exact.
Scene exporter_scene() {
  Scene scene;
  scene.source = "test:exporter";
  Material material;
  material.name = "double_sided";
  material.base_color_factor = Vec4(0.5, 0.25, 1.0, 0.75);
  material.double_sided = true;
  scene.materials.push_back(material);

  Primitive prim;
  prim.positions = {Vec3(0.0, 0.0, 0.0), Vec3(1.0, 0.0, 0.0), Vec3(0.0, 1.0, 0.0)};
  prim.normals = {Vec3::UnitZ(), Vec3::UnitZ(), Vec3::UnitZ()};
  prim.tangents = {Vec4(1.0, 0.0, 0.0, 1.0), Vec4(1.0, 0.0, 0.0, 1.0), Vec4(1.0, 0.0, 0.0, -1.0)};
  prim.texcoords0 = {Vec2(0.0, 0.0), Vec2(1.0, 0.0), Vec2(0.0, 1.0)};
  prim.indexed = false;
  prim.indices = {0, 1, 2};
  prim.material = 0;
  MorphTarget lift;
  lift.position_deltas = {Vec3(0.0, 0.0, 0.5), Vec3(0.0, 0.0, 0.25), Vec3(0.0, 0.0, 0.125)};
  lift.normal_deltas = {Vec3(0.5, 0.0, 0.0), Vec3(0.5, 0.0, 0.0), Vec3(0.5, 0.0, 0.0)};
  MorphTarget shear;
  shear.position_deltas = {Vec3(0.25, 0.0, 0.0), Vec3(0.0, 0.0, 0.0), Vec3(0.0, -0.5, 0.0)};
  shear.tangent_deltas = {Vec3(0.0, 0.25, 0.0), Vec3(0.0, 0.25, 0.0), Vec3(0.0, 0.25, 0.0)};
  prim.targets = {lift, shear};
  Mesh mesh;
  mesh.name = "morphed_triangle";
  mesh.primitives.push_back(prim);
  mesh.default_weights = {0.25, 0.5};
  scene.meshes.push_back(mesh);

  Camera infinite;
  infinite.name = "infinite";
  infinite.perspective = true;
  infinite.yfov = 0.75;
  infinite.aspect_ratio = 1.5;
  infinite.znear = 0.125;
  infinite.zfar = 0.0;  // infinite far plane
  Camera ortho;
  ortho.name = "ortho";
  ortho.perspective = false;
  ortho.xmag = 2.0;
  ortho.ymag = 1.5;
  ortho.znear = 0.0;
  ortho.zfar = 100.0;
  scene.cameras = {infinite, ortho};

  Node morphed;
  morphed.name = "morphed";
  morphed.mesh = 0;
  morphed.morph_weights = {0.5, 0.125};
  morphed.rest.translation = Vec3(1.0, 2.0, 3.0);
  Node viewer;
  viewer.name = "viewer";
  viewer.camera = 0;
  viewer.children = {2};
  viewer.rest.rotation = quat_from_xyzw(0.0, 1.0, 0.0, 0.0);
  viewer.rest.scale = Vec3(1.0, 2.0, 0.5);
  const Node all_defaults;
  scene.nodes = {morphed, viewer, all_defaults};
  scene.roots = {0, 1};

  Animation animation;
  animation.name = "morph";
  AnimationSampler step;
  step.interpolation = Interpolation::Step;
  step.times = {0.0, 1.0};
  step.values = {0.0, 0.0, 1.0, 0.5};  // 2 keys x 2 targets
  step.components = 2;
  AnimationSampler cubic;
  cubic.interpolation = Interpolation::CubicSpline;
  cubic.times = {0.0, 2.0};
  // Per key: in-tangent, value, out-tangent.
  cubic.values = {0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.5, 0.0, 0.0, -0.5, 0.0, 0.0, 2.0, 2.0, 3.0, 0.0, 0.0, 0.0};
  cubic.components = 3;
  animation.samplers = {step, cubic};
  AnimationChannel weights_channel;
  weights_channel.sampler = 0;
  weights_channel.node = 0;
  weights_channel.path = ChannelPath::Weights;
  AnimationChannel translation_channel;
  translation_channel.sampler = 1;
  translation_channel.node = 0;
  translation_channel.path = ChannelPath::Translation;
  animation.channels = {weights_channel, translation_channel};
  animation.start_time = 0.0;
  animation.end_time = 2.0;
  scene.animations.push_back(animation);
  finalize_scene(scene);
  return scene;
}

TEST(GltfExport, RoundTripsMorphTargetsCamerasAndEveryInterpolationExactly) {
  const Scene scene = exporter_scene();
  TempDir dir("exporter");
  for (const char* extension : {".gltf", ".glb"}) {
    SCOPED_TRACE(extension);
    const std::string path = dir.file(std::string("exporter") + extension);
    export_gltf(scene, path);
    const Scene reloaded = load_gltf_file(path);
    expect_same_builtin_scene(scene, reloaded);
    for (double t : {0.0, 0.5, 1.0, 1.5}) {
      SCOPED_TRACE("t = " + std::to_string(t));
      expect_same_vertices(evaluate_vertices(scene, evaluate_pose(scene, 0, t), SkinningOptions{}),
                           evaluate_vertices(reloaded, evaluate_pose(reloaded, 0, t), SkinningOptions{}));
    }
  }
}

// What tinygltf 2.7 gets wrong on its own, and what the glTF schema requires of the exporter.
TEST(GltfExport, WritesSchemaValidJson) {
  const Scene scene = exporter_scene();
  TempDir dir("json");
  const std::string path = dir.file("exporter.gltf");
  export_gltf(scene, path);
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);

  EXPECT_EQ(doc.at("asset").at("version"), "2.0");
  EXPECT_EQ(doc.at("asset").at("generator"), "skinref");
  EXPECT_EQ(doc.at("scene"), 0);
  EXPECT_EQ(doc.at("scenes").at(0).at("nodes"), nlohmann::json::array({0, 1}));
  // A node with every property at its default is an empty object, never null.
  EXPECT_TRUE(doc.at("nodes").at(2).is_object());
  // zfar > 0 when present: an infinite perspective camera has none.
  EXPECT_FALSE(doc.at("cameras").at(0).at("perspective").contains("zfar"));
  EXPECT_EQ(doc.at("cameras").at(1).at("orthographic").at("zfar"), 100.0);

  const nlohmann::json& buffer = doc.at("buffers").at(0);
  const std::string prefix = "data:application/octet-stream;base64,";
  const std::string uri = buffer.at("uri");
  ASSERT_EQ(uri.compare(0, prefix.size(), prefix), 0);
  // Base64: 4 characters per 3 bytes, padded.
  EXPECT_EQ(uri.size() - prefix.size(), (buffer.at("byteLength").get<size_t>() + 2) / 3 * 4);

  const nlohmann::json& prim = doc.at("meshes").at(0).at("primitives").at(0);
  EXPECT_FALSE(prim.contains("indices")) << "a non-indexed primitive stays non-indexed";
  const nlohmann::json& position = doc.at("accessors").at(prim.at("attributes").at("POSITION").get<size_t>());
  EXPECT_EQ(position.at("min"), nlohmann::json::array({0.0, 0.0, 0.0}));
  EXPECT_EQ(position.at("max"), nlohmann::json::array({1.0, 1.0, 0.0}));
  const nlohmann::json& lift = doc.at("accessors").at(prim.at("targets").at(0).at("POSITION").get<size_t>());
  EXPECT_EQ(lift.at("min"), nlohmann::json::array({0.0, 0.0, 0.125}));
  EXPECT_EQ(lift.at("max"), nlohmann::json::array({0.0, 0.0, 0.5}));
  for (const nlohmann::json& sampler : doc.at("animations").at(0).at("samplers")) {
    const nlohmann::json& input = doc.at("accessors").at(sampler.at("input").get<size_t>());
    EXPECT_TRUE(input.contains("min") && input.contains("max")) << "animation inputs need min and max";
  }
  EXPECT_EQ(doc.at("animations").at(0).at("samplers").at(0).at("interpolation"), "STEP");
  EXPECT_EQ(doc.at("animations").at(0).at("samplers").at(1).at("interpolation"), "CUBICSPLINE");
  EXPECT_EQ(doc.at("materials").at(0).at("doubleSided"), true);
}

// ---- scene-specific checks -------------------------------------------------------------------------------

TEST(BuiltinTwist, WeightsFollowTheDocumentedRampAndTheMiddleRingIsHalfAndHalf) {
  const Primitive& prim = skinned_primitive(builtin("twist"));
  size_t middle = 0;
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    double w[2] = {0.0, 0.0};  // per joint, summed over the influence slots
    for (int i = 0; i < 4; ++i) w[prim.joints[v * 4 + i]] += prim.weights[v * 4 + i];
    const double x = prim.positions[v].x();
    // x is a multiple of kTwistLength / 32 = 1/16, so the ramp is exact in float32.
    const double w1 = std::clamp((x - kTwistLength / 4.0) / (kTwistLength / 2.0), 0.0, 1.0);
    ASSERT_EQ(w[1], w1) << "vertex " << v << " at x = " << x;
    ASSERT_EQ(w[0], 1.0 - w1) << "vertex " << v << " at x = " << x;
    if (x == kTwistLength / 2.0) {
      ++middle;
      EXPECT_EQ(w[0], 0.5);
      EXPECT_EQ(w[1], 0.5);
    }
  }
  EXPECT_EQ(middle, 24u);  // one ring of 24 segments
}

// The candy-wrapper defect of linear blend skinning, in closed form. A middle-ring vertex p = (L/2, y, z)
// has weights 0.5 / 0.5. Joint 0 stays at rest (JM_0 = I); joint 1 sits at c = (L/2, 0, 0) and twists by
// theta about +X, so JM_1 = T(c) R_x(theta) T(-c), and JM_1 p = c + R_x(theta) (0, y, z). Hence
//   p' = 0.5 p + 0.5 JM_1 p = (L/2, 0.5 (q + R(theta) q))   with q = (y, z),
// and |q + R(theta) q| = 2 |q| |cos(theta / 2)|, so the ring's radius shrinks to R |cos(theta / 2)|: R / sqrt(2)
// at 90 degrees and 0 at 180 degrees, where the whole ring collapses onto the axis.
TEST(BuiltinTwist, LinearBlendCollapsesTheMiddleRingLikeACandyWrapper) {
  const Scene& scene = builtin("twist");
  const Primitive& prim = skinned_primitive(scene);
  for (double t : {0.0, 0.5, kTwistDuration}) {
    const double theta = kPi * t / kTwistDuration;  // 0 -> 180 degrees, uniform (keys every 45 degrees)
    SCOPED_TRACE("t = " + std::to_string(t));
    const std::vector<WorldPrimitive> world = evaluate_vertices(scene, evaluate_pose(scene, 0, t), SkinningOptions{});
    ASSERT_EQ(world.size(), 1u);
    size_t checked = 0;
    for (size_t v = 0; v < prim.vertex_count(); ++v) {
      if (prim.positions[v].x() != kTwistLength / 2.0) continue;
      const Vec3& p = world[0].vertices.positions[v];
      EXPECT_NEAR(std::hypot(p.y(), p.z()), kTwistRadius * std::abs(std::cos(theta / 2.0)), tol::kTwistRadius)
          << "vertex " << v;
      EXPECT_NEAR(p.x(), kTwistLength / 2.0, tol::kTwistRadius) << "vertex " << v;
      ++checked;
    }
    EXPECT_EQ(checked, 24u);
  }
}

TEST(BuiltinEightInfluences, WeightsAreEightNormalizedInverseDistances) {
  const Scene& scene = builtin("eight-influences");
  const Primitive& prim = skinned_primitive(scene);
  ASSERT_EQ(prim.influences_per_vertex, 8);
  const Skin& skin = scene.skins[0];
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    // Independent of the builder: distances to the joints' bind positions, from the inverse bind matrices.
    double inverse_distance[8];
    double total = 0.0;
    for (int i = 0; i < 8; ++i) {
      const uint32_t joint = prim.joints[v * 8 + i];
      ASSERT_GT(prim.weights[v * 8 + i], 0.0) << "vertex " << v << " influence " << i;
      const Mat4 bind_global = skin.inverse_bind[joint].inverse();
      inverse_distance[i] = 1.0 / (prim.positions[v] - Vec3(bind_global.block<3, 1>(0, 3))).norm();
      total += inverse_distance[i];
    }
    for (int i = 0; i < 8; ++i)
      ASSERT_NEAR(prim.weights[v * 8 + i], inverse_distance[i] / total, tol::kFloatInput)
          << "vertex " << v << " influence " << i;
  }
}

TEST(BuiltinMillion, HasOverAMillionVerticesWithFourInfluences) {
  const Primitive& prim = skinned_primitive(builtin("million"));
  EXPECT_GT(prim.vertex_count(), 1000000u);
  EXPECT_EQ(prim.influences_per_vertex, 4);
  EXPECT_EQ(prim.weights.size(), prim.vertex_count() * 4);
}

// glTF 2.0, "Skins": the mesh node's transform (and its parent's) is ignored for a skinned mesh. At t = 0
// the animation is at its rest key, so JM_i = G(joint_i) * inverse(G_bind(joint_i)) = I and the skinned
// vertices are the bind vertices, however the mesh node and its parent are placed.
TEST(BuiltinNodeTransforms, SkinnedMeshIgnoresItsNodeTransform) {
  const Scene& scene = builtin("node-transforms");
  const Primitive& prim = skinned_primitive(scene);
  const int node = skinned_node(scene);
  ASSERT_GE(scene.nodes[node].parent, 0) << "the mesh node should be a child";
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.0);
  const std::vector<WorldPrimitive> world = evaluate_vertices(scene, pose, SkinningOptions{});
  ASSERT_EQ(world.size(), 1u);
  const Mat4& mesh_global = pose.model.global[node];
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    const Vec3& p = world[0].vertices.positions[v];
    EXPECT_LE((p - prim.positions[v]).cwiseAbs().maxCoeff(), tol::kFloatInput) << "vertex " << v;
    // The test has teeth: applying the mesh node's global transform would move this vertex.
    const Vec3 wrongly_placed = (mesh_global * prim.positions[v].homogeneous()).head<3>();
    EXPECT_GT((wrongly_placed - prim.positions[v]).norm(), tol::kFloatInput) << "vertex " << v;
  }
}

// At 0.5 s jointB has turned 60 degrees about +Z around its bind position b = (1, 0, 0), so
// JM_B = T(b) R_z(60) T(-b), JM_A = I, and p' = (1 - x/2) p + (x/2) JM_B p.
TEST(BuiltinNodeTransforms, BendMatchesTheClosedForm) {
  const Scene& scene = builtin("node-transforms");
  const Primitive& prim = skinned_primitive(scene);
  const std::vector<WorldPrimitive> world = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.5), SkinningOptions{});
  ASSERT_EQ(world.size(), 1u);
  const Mat3 rz = Eigen::AngleAxisd(kPi / 3.0, Vec3::UnitZ()).toRotationMatrix();
  const Vec3 b(1.0, 0.0, 0.0);
  for (size_t v = 0; v < prim.vertex_count(); ++v) {
    const Vec3& p = prim.positions[v];
    const double wb = p.x() / 2.0;
    const Vec3 expected = (1.0 - wb) * p + wb * (b + rz * (p - b));
    EXPECT_LE((world[0].vertices.positions[v] - expected).cwiseAbs().maxCoeff(), tol::kFloatInput) << "vertex " << v;
  }
}

}  // namespace
}  // namespace skinref

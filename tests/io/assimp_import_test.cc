// The Assimp loader (io/assimp_import.h): FBX and Collada files from Assimp's own test set (the shared corpus,
// skipped visibly without it) posed and skinned by the reference agree with an independent engine that
// evaluates Assimp's own data (support/assimp_engine.h: its matrices, keys and slerp, float32) within the
// any-order bounds; units and axes against closed forms; Assimp's LimitBoneWeights named by diagnose against
// the untouched asset; malformed files (truncated, corrupted) and the child's limits (memory, time) give an
// InputError naming the file, never a crash.
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "core/vertices.h"
#include "io/assimp_import.h"
#include "io/gltf_load.h"
#include "skin/evaluate_vertices.h"
#include "support/assimp_engine.h"
#include "support/corpus_models.h"
#include "support/temp_dir.h"
#include "verify/bounds_model.h"
#include "verify/diagnose.h"
#include "verify/vertex_compare.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace skinref {
namespace {

namespace fs = std::filesystem;

std::string assimp_corpus(const std::string& name) { return test::corpus_dir() + "/assimp/" + name; }

bool assimp_corpus_present() { return fs::is_directory(test::corpus_dir() + "/assimp"); }

ImportOptions as_stored() {
  ImportOptions options;
  options.scale_mode = ImportOptions::Mode::None;
  options.up_mode = ImportOptions::Mode::None;
  return options;
}

std::vector<WorldPrimitive> skinned_at(const Scene& scene, double time) {
  const EvaluatedPose pose = evaluate_pose(scene, scene.animations.empty() ? -1 : 0, time);
  return evaluate_vertices(scene, pose, SkinningOptions{});
}

double extent_of(const std::vector<WorldPrimitive>& primitives) { return positions_extent(primitives); }

struct SkinnedFile {
  const char* name;
  std::vector<double> times;
};

class AssimpCorpusTest : public ::testing::TestWithParam<SkinnedFile> {};

// The reference's vertices of the imported file against Assimp's own evaluation, held to the bounds of an
// engine that computes its own palette in float32 in any order.
TEST_P(AssimpCorpusTest, AgreesWithAssimpsOwnEvaluation) {
  if (!assimp_corpus_present()) GTEST_SKIP() << "no Assimp corpus at " << test::corpus_dir() << "/assimp";
  const std::string path = assimp_corpus(GetParam().name);
  const Scene scene = load_assimp_file(path, as_stored());
  const test::AssimpEngine engine(path, 0, aiProcess_Triangulate | aiProcess_SortByPType);
  ASSERT_NE(engine.scene(), nullptr) << engine.error();
  ASSERT_FALSE(scene.animations.empty());
  for (const double time : GetParam().times) {
    SCOPED_TRACE(std::to_string(time) + " s");
    const EvaluatedPose pose = evaluate_pose(scene, 0, time);
    SkinningOptions options;
    const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, options);
    // The engine's meshes with bones, matched to the reference's skinned primitives in order.
    std::vector<WorldPrimitive> engine_vertices = engine.skin(double(float(time)));
    std::vector<WorldPrimitive> test;
    size_t next = 0;
    for (const WorldPrimitive& primitive : reference) {
      if (!primitive.skinned) continue;
      while (next < engine_vertices.size() && engine.scene()->mMeshes[next]->mNumBones == 0) ++next;
      ASSERT_LT(next, engine_vertices.size());
      WorldPrimitive dumped = std::move(engine_vertices[next++]);
      ASSERT_EQ(dumped.vertices.positions.size(), primitive.vertices.positions.size());
      dumped.node = primitive.node;
      dumped.mesh = primitive.mesh;
      dumped.primitive = primitive.primitive;
      test.push_back(std::move(dumped));
    }
    ASSERT_FALSE(test.empty());
    std::vector<WorldPrimitive> skinned_reference;
    for (const WorldPrimitive& primitive : reference)
      if (primitive.skinned) skinned_reference.push_back(primitive);
    const PoseErrorBounds palette_bounds = pose_error_bounds(BoundsModel::AnyOrder, scene, 0, double(float(time)));
    const std::vector<PrimitiveErrorBounds> all_bounds =
        vertex_error_bounds(BoundsModel::AnyOrder, scene, pose, options, &palette_bounds);
    std::vector<PrimitiveErrorBounds> bounds;
    for (size_t p = 0; p < reference.size(); ++p)
      if (reference[p].skinned) bounds.push_back(all_bounds[p]);
    const VertexComparison comparison = compare_vertices(scene, skinned_reference, test, bounds);
    EXPECT_EQ(comparison.over, 0u) << "max error/bound " << comparison.max_ratio;
    EXPECT_EQ(comparison.unbounded, 0u);
    EXPECT_GT(comparison.values, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, AssimpCorpusTest,
                         ::testing::Values(SkinnedFile{"huesitos.fbx", {0.0, 0.5, 1.2}},
                                           SkinnedFile{"animation_with_skeleton.fbx", {0.1, 0.4, 0.7}},
                                           SkinnedFile{"box_nested_animation.dae", {0.0, 0.5, 1.0}}),
                         [](const ::testing::TestParamInfo<SkinnedFile>& info) {
                           std::string name = info.param.name;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// FBX stores centimetres (UnitScaleFactor 1 here): auto is the stored values times 0.01; a Z-up reading maps
// (x, y, z) to (x, z, -y).
TEST(AssimpUnits, ScaleAndAxesAreAppliedAsStated) {
  if (!assimp_corpus_present()) GTEST_SKIP() << "no Assimp corpus at " << test::corpus_dir() << "/assimp";
  const std::string path = assimp_corpus("huesitos.fbx");
  const Scene stored = load_assimp_file(path, as_stored());
  const Scene automatic = load_assimp_file(path);
  ImportOptions z_up = as_stored();
  z_up.up_mode = ImportOptions::Mode::Given;
  z_up.up = 'z';
  const Scene turned = load_assimp_file(path, z_up);
  bool saw_scale = false;
  for (const auto& [key, value] : automatic.import_facts) saw_scale = saw_scale || (key == "applied scale" && value == "0.01");
  EXPECT_TRUE(saw_scale);
  const std::vector<WorldPrimitive> a = skinned_at(stored, 0.5), b = skinned_at(automatic, 0.5), c = skinned_at(turned, 0.5);
  const double extent = extent_of(a);
  ASSERT_GT(extent, 0.0);
  for (size_t p = 0; p < a.size(); ++p)
    for (size_t v = 0; v < a[p].vertices.positions.size(); ++v) {
      const Vec3& x = a[p].vertices.positions[v];
      // float32(0.01) is the root's scale, 0.01 within 2e-10 relative.
      EXPECT_LT((b[p].vertices.positions[v] - 0.01 * x).norm(), 1e-9 * extent);
      EXPECT_LT((c[p].vertices.positions[v] - Vec3(x.x(), x.z(), -x.y())).norm(), 1e-6 * extent);
    }
}

// An engine whose importer keeps the two largest weights: diagnose names it against the untouched asset.
TEST(AssimpLimitWeights, DiagnoseNamesTheImportersLimit) {
  if (!assimp_corpus_present()) GTEST_SKIP() << "no Assimp corpus at " << test::corpus_dir() << "/assimp";
  const std::string path = assimp_corpus("animation_with_skeleton.fbx");
  const Scene untouched = load_assimp_file(path);
  ImportOptions limited_options;
  limited_options.limit_weights = 2;
  const Scene limited = load_assimp_file(path, limited_options);
  std::vector<WorldPrimitive> dump = skinned_at(limited, 0.4);
  for (WorldPrimitive& primitive : dump)  // an engine's float32 output
    for (Vec3& p : primitive.vertices.positions) p = p.cast<float>().cast<double>();
  for (WorldPrimitive& primitive : dump) {
    primitive.vertices.normals.clear();
    primitive.vertices.tangents.clear();
  }
  DiagnoseSettings settings;
  settings.animation = 0;
  const Diagnosis d = diagnose(untouched, {{"limited", 0.4, dump}}, settings);
  ASSERT_FALSE(d.matches_specification);
  EXPECT_EQ(d.best().settings, std::vector<std::string>{"influences=top2-renormalized"});
}

// Truncated and corrupted FBX and Collada files: a Scene or an error naming the file, never a crash of the
// caller (the import runs in a child process).
TEST(AssimpMalformed, TruncatedAndCorruptedFilesAreRefusedCleanly) {
  if (!assimp_corpus_present()) GTEST_SKIP() << "no Assimp corpus at " << test::corpus_dir() << "/assimp";
  test::TempDir dir;
  size_t refused = 0, loaded = 0;
  std::mt19937 random(20261125u);
  for (const char* name : {"huesitos.fbx", "box_nested_animation.dae"}) {
    std::ifstream in(assimp_corpus(name), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string ext = fs::path(name).extension().string();
    std::vector<std::string> variants;
    for (const double fraction : {0.0, 0.01, 0.1, 0.37, 0.5, 0.9, 0.999}) variants.push_back(bytes.substr(0, size_t(fraction * double(bytes.size()))));
    for (int k = 0; k < 12; ++k) {
      std::string corrupted = bytes;
      for (int flips = 0; flips < 16; ++flips) corrupted[random() % corrupted.size()] = char(random() & 0xFF);
      variants.push_back(corrupted);
    }
    for (size_t v = 0; v < variants.size(); ++v) {
      const std::string path = dir.file("malformed" + std::to_string(v) + ext);
      std::ofstream(path, std::ios::binary) << variants[v];
      SCOPED_TRACE(path);
      try {
        const Scene scene = load_assimp_file(path);
        ++loaded;
        skinned_at(scene, 0.25);  // what loads also evaluates
      } catch (const std::exception& error) {
        ++refused;
        EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
      }
    }
  }
  EXPECT_GE(refused, 14u);  // every truncation at least
  std::cout << "malformed files: " << refused << " refused, " << loaded << " loaded\n";
}

TEST(AssimpMalformed, ChildLimitsAreReported) {
  if (!assimp_corpus_present()) GTEST_SKIP() << "no Assimp corpus at " << test::corpus_dir() << "/assimp";
  const std::string path = assimp_corpus("animation_with_skeleton.fbx");
  ImportOptions hurried;
  hurried.wall_seconds = 1e-4;
  try {
    load_assimp_file(path, hurried);
    FAIL() << "an import within 0.1 ms";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("Assimp was stopped"), std::string::npos) << error.what();
  }
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the address-space limit is not set under AddressSanitizer (its shadow memory needs the space)";
#else
  // In a freshly executed copy of this test program (gtest's threadsafe death-test style), so that the forked
  // import inherits no free heap from earlier tests: every allocation past what is mapped then fails.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ImportOptions starved;
        starved.address_space_bytes = 1ull << 20;
        try {
          load_assimp_file(path, starved);
          std::fprintf(stderr, "loaded within 1 MiB\n");
          std::exit(1);
        } catch (const std::exception& error) {
          std::fprintf(stderr, "%s\n", error.what());
          std::exit(0);
        }
      },
      ::testing::ExitedWithCode(0), "animation_with_skeleton.fbx: .*(MiB of address space|crashed|without a result)");
#endif
}

TEST(AssimpMalformed, AFileAssimpCannotLoadNamesTheFile) {
  if (!assimp_corpus_present()) GTEST_SKIP() << "no Assimp corpus at " << test::corpus_dir() << "/assimp";
  const std::string path = assimp_corpus("library_animation_clips.dae");
  try {
    load_model(path);
    FAIL() << "Assimp 5.2 cannot load " << path;
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("Assimp"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace skinref

// Rendering tests on the public glTF sample models under SKINREF_CORPUS_DIR: every corpus model renders in
// every view at 128x128 with the auto camera (size, coverage, background, byte-identical repeats), and the
// glTF-Asset-Generator skin cases render at the generator's 400x400 from the generator's camera, written beside
// the generator's own images into SKINREF_TEST_OUTPUT_DIR/asset-generator/index.html for a person to compare;
// where the generator's image is a still PNG, silhouette coverage is compared coarsely. Each test skips,
// visibly, when the corpus folder is absent.
#include "anim/evaluate_pose.h"
#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/load_model.h"
#include "io/image_io.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "raster/shading.h"
#include "skin/evaluate_vertices.h"
#include "support/corpus_models.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <numbers>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef SKINREF_TEST_OUTPUT_DIR
#error "SKINREF_TEST_OUTPUT_DIR must be defined by the build (see CMakeLists.txt)"
#endif

inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using skinref::test::corpus_dir;
using skinref::test::corpus_present;
using skinref::test::corpus_skip_reason;
using skinref::test::CorpusModel;
using skinref::test::kCorpusModels;
using skinref::test::model_test_name;

namespace fs = std::filesystem;
using skinref::RenderView;


// The smoke renders: small, so that 50 models x 4 views x 3 renders stay quick.
constexpr int kSmokeSize = 128;
// The second of the repeated renders uses several threads: the contract says the bytes do not depend on it.
constexpr int kRepeatThreads = 4;

// The glTF-Asset-Generator's screenshots (kcoley/screenshotGenerator, BabylonJS 3.3): 400x400, an
// ArcRotateCamera placed at the manifest's camera.translation (glTF coordinates) looking at the origin, with
// Babylon's default vertical field of view of 0.8 radians. Static models (no animation) have PNG stills;
// animated ones GIFs.
constexpr int kGeneratorImageSize = 400;
constexpr double kGeneratorFovDegrees = 0.8 * 180.0 / std::numbers::pi;

// The generator's stills show the model (base colour 0.8 grey, or pure blue in Animation_Skin_05) in front of
// a blurred photographic environment, with alpha 1 everywhere, so its silhouette is found by colour: a
// pixel is the model when it is bright and nearly neutral (the lit grey: every channel at least
// kModelMinChannel, the channels within kModelMaxSpread of each other) but not a clipped light of the
// environment (every channel kClippedChannel or more), or saturated blue. Stray environment pixels that pass
// form small blobs; connected regions under kMinModelRegion pixels are dropped.
constexpr int kModelMinChannel = 185;
constexpr int kModelMaxSpread = 24;
constexpr int kClippedChannel = 250;
constexpr int kBlueMinChannel = 150;
constexpr int kBlueMaxOther = 80;
constexpr size_t kMinModelRegion = 800;  // 0.5 % of a 400x400 image

std::string fixed(double value, int digits = 4) {
  std::ostringstream out;
  out.precision(digits);
  out << std::fixed << value;
  return out.str();
}

const char* view_name(RenderView view) {
  switch (view) {
    case RenderView::Shaded: return "shaded";
    case RenderView::Normals: return "normals";
    case RenderView::Weights: return "weights:0";
    case RenderView::Depth: return "depth";
  }
  return "?";
}

// The background's bytes, computed here from shading.h's formulas (IEC 61966-2-1 encoding of the linear
// kBackground, rounded half up) rather than through encode_srgb8.
std::array<uint8_t, 4> expected_background() {
  std::array<uint8_t, 4> bytes{};
  for (int c = 0; c < 3; ++c) {
    const double linear = skinref::kBackground[c];
    const double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
    bytes[c] = static_cast<uint8_t>(std::floor(255.0 * encoded + 0.5));
  }
  bytes[3] = 255;
  return bytes;
}

// Animation 0 at its mid time (timelines start at 0), or the rest pose for a model without animations.
struct Moment {
  int animation = -1;
  double time = 0.0;
};

Moment mid_animation(const skinref::Scene& scene) {
  if (scene.animations.empty()) return {};
  return {0, 0.5 * scene.animations[0].end_time};
}

bool draws_skinned_primitive(const std::vector<skinref::WorldPrimitive>& primitives) {
  return std::any_of(primitives.begin(), primitives.end(), [](const auto& p) { return p.skinned; });
}

size_t covered_pixels(const skinref::RasterBuffers& buffers) {
  return static_cast<size_t>(std::count_if(buffers.triangle.begin(), buffers.triangle.end(),
                                           [](uint32_t id) { return id != skinref::RasterBuffers::kNoTriangle; }));
}

skinref::Scene load_or_fail(const std::string& path) {
  try {
    return skinref::load_model(path);
  } catch (const skinref::InputError& error) {
    ADD_FAILURE() << "a valid corpus model was refused: " << error.what();
    throw;
  }
}

// ---- every corpus model, every view ------------------------------------------------------------------------

class CorpusRenderTest : public ::testing::TestWithParam<CorpusModel> {
 protected:
  void SetUp() override {
    if (!corpus_present()) {
      GTEST_SKIP() << corpus_skip_reason();
    }
    path_ = (fs::path(corpus_dir()) / GetParam().path).string();
    ASSERT_TRUE(fs::is_regular_file(path_)) << "the corpus folder exists but lacks " << path_;
  }
  std::string path_;
};

// Shaded, normals, depth and (for models that draw a skinned primitive) the weights of skin joint 0, at
// 128x128 from the auto camera at animation 0's mid time: the image and buffers have the requested size and
// alpha 1; the model covers some pixels, and exactly the uncovered pixels hold the background colour;
// covered depth pixels are grey with a depth below the cleared 1.0; rendering again, once with the same
// options and once with several threads, gives the same bytes.
TEST_P(CorpusRenderTest, EveryViewRendersDeterministically) {
  const skinref::Scene scene = load_or_fail(path_);
  const Moment moment = mid_animation(scene);
  const skinref::EvaluatedPose pose = skinref::evaluate_pose(scene, moment.animation, moment.time);
  const std::vector<skinref::WorldPrimitive> primitives = skinref::evaluate_vertices(scene, pose, {});
  const skinref::RenderCamera camera = skinref::auto_camera(scene, moment.animation, {}, 1.0);

  std::vector<RenderView> views = {RenderView::Shaded, RenderView::Normals, RenderView::Depth};
  if (!scene.skins.empty() && draws_skinned_primitive(primitives)) views.push_back(RenderView::Weights);

  const std::array<uint8_t, 4> background = expected_background();
  const size_t pixel_count = static_cast<size_t>(kSmokeSize) * kSmokeSize;
  for (const RenderView view : views) {
    SCOPED_TRACE(std::string("view ") + view_name(view) + ", animation " + std::to_string(moment.animation) +
                 " at t = " + std::to_string(moment.time));
    skinref::RenderOptions options;
    options.width = kSmokeSize;
    options.height = kSmokeSize;
    options.view = view;
    options.weights_joint = 0;
    options.threads = 1;
    const skinref::RenderResult first = skinref::render_scene(scene, pose, primitives, camera, options);
    const skinref::RenderResult again = skinref::render_scene(scene, pose, primitives, camera, options);
    options.threads = kRepeatThreads;
    const skinref::RenderResult threaded = skinref::render_scene(scene, pose, primitives, camera, options);

    const skinref::RgbaImage& image = first.image;
    ASSERT_EQ(image.width, kSmokeSize);
    ASSERT_EQ(image.height, kSmokeSize);
    ASSERT_EQ(image.pixels.size(), pixel_count * 4);
    ASSERT_EQ(first.buffers.width, kSmokeSize);
    ASSERT_EQ(first.buffers.height, kSmokeSize);
    ASSERT_EQ(first.buffers.triangle.size(), pixel_count);
    ASSERT_EQ(first.buffers.depth.size(), pixel_count);

    const size_t covered = covered_pixels(first.buffers);
    EXPECT_GT(covered, 0u) << "the model covers no pixel";
    size_t not_background = 0, wrong_background = 0, non_grey_depth = 0, bad_depth = 0, bad_alpha = 0;
    for (size_t i = 0; i < pixel_count; ++i) {
      const uint8_t* px = &image.pixels[4 * i];
      const bool is_background_colour =
          px[0] == background[0] && px[1] == background[1] && px[2] == background[2];
      bad_alpha += px[3] != 255;
      if (first.buffers.triangle[i] == skinref::RasterBuffers::kNoTriangle) {
        wrong_background += !is_background_colour;
        continue;
      }
      not_background += !is_background_colour;
      if (view == RenderView::Depth) {
        non_grey_depth += !(px[0] == px[1] && px[1] == px[2]);
        bad_depth += !(first.buffers.depth[i] < 1.0f);
      }
    }
    EXPECT_GT(not_background, 0u) << "no covered pixel differs from the background colour";
    EXPECT_EQ(wrong_background, 0u) << "uncovered pixels that are not the background colour";
    EXPECT_EQ(bad_alpha, 0u) << "pixels with alpha other than 255";
    EXPECT_EQ(non_grey_depth, 0u) << "covered depth-view pixels that are not grey";
    EXPECT_EQ(bad_depth, 0u) << "covered pixels whose depth is not below the cleared 1.0";

    EXPECT_TRUE(again.image.pixels == image.pixels) << "a second render with the same options differs";
    EXPECT_TRUE(threaded.image.pixels == image.pixels)
        << "a render with " << kRepeatThreads << " threads differs from the one-thread render";
    EXPECT_TRUE(threaded.buffers.triangle == first.buffers.triangle);
    std::cout << "[ render   ] " << GetParam().name << " " << view_name(view) << ": " << covered << " of "
              << pixel_count << " pixels covered\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusRenderTest, ::testing::ValuesIn(kCorpusModels), model_test_name);

// ---- the glTF-Asset-Generator skin cases beside the generator's own images ------------------------------------

// The fraction of a generator still's pixels that show the model (see kModelMinChannel).
double generator_coverage(const skinref::RgbaImage& image) {
  const size_t width = static_cast<size_t>(image.width), height = static_cast<size_t>(image.height);
  std::vector<uint8_t> candidate(width * height, 0);
  for (size_t i = 0; i < width * height; ++i) {
    const int r = image.pixels[4 * i], g = image.pixels[4 * i + 1], b = image.pixels[4 * i + 2];
    const int low = std::min({r, g, b}), high = std::max({r, g, b});
    const bool grey = low >= kModelMinChannel && high - low <= kModelMaxSpread && low < kClippedChannel;
    const bool blue = b >= kBlueMinChannel && r <= kBlueMaxOther && g <= kBlueMaxOther;
    candidate[i] = grey || blue;
  }
  // 4-connected regions by flood fill; only regions of kMinModelRegion pixels or more count.
  std::vector<uint8_t> seen(width * height, 0);
  std::vector<size_t> stack;
  size_t model = 0;
  for (size_t start = 0; start < width * height; ++start) {
    if (!candidate[start] || seen[start]) continue;
    size_t region = 0;
    stack.assign(1, start);
    seen[start] = 1;
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      ++region;
      const size_t x = i % width, y = i / width;
      const auto visit = [&](size_t j) {
        if (candidate[j] && !seen[j]) {
          seen[j] = 1;
          stack.push_back(j);
        }
      };
      if (x > 0) visit(i - 1);
      if (x + 1 < width) visit(i + 1);
      if (y > 0) visit(i - width);
      if (y + 1 < height) visit(i + width);
    }
    if (region >= kMinModelRegion) model += region;
  }
  return static_cast<double>(model) / static_cast<double>(width * height);
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

struct GeneratorRow {
  std::string group;
  std::string name;
  std::string generator_file;  // copied beside ours, relative to the page
  std::string our_file;
  Moment moment;
  std::array<double, 3> eye{};
  double ours = 0.0;
  double theirs = -1.0;  // < 0: the generator's image is a GIF, not compared
};

constexpr const char* kRowMarker = "<tr class=\"model\">";

void write_index(const fs::path& path, const std::vector<GeneratorRow>& rows) {
  skinref::write_file_atomically(path.string(), [&](std::ostream& out) {
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>skinref vs glTF-Asset-Generator</title>\n"
        << "<style>body{font-family:sans-serif} td,th{padding:4px;text-align:center;vertical-align:middle}"
        << " img{width:400px;height:400px}</style></head><body>\n"
        << "<h1>glTF-Asset-Generator skin cases: the generator's image and skinref's</h1>\n"
        << "<p>Left: the image shipped with glTF-Asset-Generator (BabylonJS with image-based lighting; GIFs are "
        << "animated). Right: skinref's reference renderer (shaded view), " << kGeneratorImageSize << "x"
        << kGeneratorImageSize << ", looking from the manifest's camera translation at the origin, vertical "
           "field of view "
        << fixed(kGeneratorFovDegrees, 2)
        << " degrees, animated models at animation 0's mid time. Coverage: the fraction of pixels showing the "
           "model (the generator's from its colours, stills only). Models and images: glTF-Asset-Generator, "
           "MIT licence.</p>\n"
        << "<table>\n<tr><th>model</th><th>glTF-Asset-Generator</th><th>skinref</th></tr>\n";
    for (const GeneratorRow& row : rows) {
      out << kRowMarker << "<td>" << html_escape(row.group) << "<br><b>" << html_escape(row.name) << "</b><br>camera ("
          << row.eye[0] << ", " << row.eye[1] << ", " << row.eye[2] << ")<br>";
      if (row.moment.animation >= 0)
        out << "animation " << row.moment.animation << " at " << fixed(row.moment.time, 3) << " s";
      else
        out << "rest pose";
      out << "<br>coverage ours " << fixed(row.ours);
      if (row.theirs >= 0.0) out << ", theirs " << fixed(row.theirs);
      out << "</td><td><img src=\"" << html_escape(row.generator_file) << "\" alt=\"generator\"></td>"
          << "<td><img src=\"" << html_escape(row.our_file) << "\" alt=\"skinref\"></td></tr>\n";
    }
    out << "</table>\n</body></html>\n";
  });
}

size_t count_occurrences(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

// The Animation_Skin* groups under the generator's folder, sorted.
std::vector<fs::path> skin_groups(const fs::path& generator_dir) {
  std::vector<fs::path> groups;
  for (const auto& entry : fs::directory_iterator(generator_dir)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("Animation_Skin", 0) == 0)
      groups.push_back(entry.path());
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

// What the generator test gathers over all groups: a row per model rendered, and the counts it checks.
struct GeneratorTally {
  size_t manifest_models = 0;  // models the manifests list
  size_t stills = 0;           // generator images that are PNG stills (silhouettes compared)
  std::vector<GeneratorRow> rows;
};

// Our shaded render at the generator's size, from `eye` looking at the origin with the generator's field of view.
skinref::RenderResult render_from_generator_camera(const skinref::Scene& scene, const Moment& moment,
                                                   const std::array<double, 3>& eye) {
  const skinref::EvaluatedPose pose = skinref::evaluate_pose(scene, moment.animation, moment.time);
  const std::vector<skinref::WorldPrimitive> primitives = skinref::evaluate_vertices(scene, pose, {});
  const skinref::RenderCamera camera =
      skinref::look_at_camera(skinref::Vec3(eye[0], eye[1], eye[2]), skinref::Vec3::Zero(), kGeneratorFovDegrees, 1.0);
  skinref::RenderOptions options;
  options.width = kGeneratorImageSize;
  options.height = kGeneratorImageSize;
  options.view = RenderView::Shaded;
  return skinref::render_scene(scene, pose, primitives, camera, options);
}

// Our image written as row.our_file in out_dir; it must read back as written.
void write_ours(const skinref::RgbaImage& image, const fs::path& out_dir, GeneratorRow& row) {
  row.our_file = row.name + ".skinref.png";
  skinref::write_png(image, (out_dir / row.our_file).string());
  const skinref::RgbaImage written = skinref::read_png((out_dir / row.our_file).string());
  EXPECT_EQ(written.width, kGeneratorImageSize);
  EXPECT_TRUE(written.pixels == image.pixels) << "the PNG does not read back as written";
}

// The generator's image copied beside ours as row.generator_file; a PNG still's silhouette coverage compared
// with ours (counted in `stills`), a GIF not. Fatal failures return here; the caller checks for them.
void compare_with_generators_image(const fs::path& theirs_path, const fs::path& out_dir, GeneratorRow& row,
                                   size_t& stills) {
  ASSERT_TRUE(fs::is_regular_file(theirs_path)) << "the manifest names a missing image " << theirs_path;
  const std::string extension = theirs_path.extension().string();
  row.generator_file = row.name + ".generator" + extension;
  fs::copy_file(theirs_path, out_dir / row.generator_file, fs::copy_options::overwrite_existing);

  std::cout << "[ render   ] " << row.name << " coverage ours " << fixed(row.ours);
  if (extension == ".png") {
    ++stills;
    const skinref::RgbaImage theirs = skinref::read_png(theirs_path.string());
    ASSERT_EQ(theirs.width, kGeneratorImageSize);
    ASSERT_EQ(theirs.height, kGeneratorImageSize);
    row.theirs = generator_coverage(theirs);
    std::cout << " theirs " << fixed(row.theirs) << "\n";
    EXPECT_GT(row.theirs, 0.0) << "no model found in the generator's image";
    EXPECT_LE(std::abs(row.ours - row.theirs), skinref::tol::kSilhouetteCoverageRelative * row.theirs)
        << "silhouette coverage: ours " << row.ours << ", the generator's " << row.theirs;
  } else {
    std::cout << " (the generator's image is an animated GIF: not compared)\n";
  }
}

// One model of a group's manifest: rendered, written, compared, and its row added to the tally. Fatal failures
// return here (as they would have ended the test); the caller checks for them.
void render_generator_model(const fs::path& group, const fs::path& manifest_path, const nlohmann::json& model,
                            const fs::path& out_dir, GeneratorTally& tally) {
  ++tally.manifest_models;
  const std::string file_name = model.at("fileName").get<std::string>();
  const std::string sample_image = model.at("sampleImageName").get<std::string>();
  const std::vector<double> translation = model.at("camera").at("translation").get<std::vector<double>>();
  ASSERT_EQ(translation.size(), 3u) << manifest_path << ": " << file_name;
  SCOPED_TRACE(file_name);

  GeneratorRow row;
  row.group = group.filename().string();
  row.name = fs::path(file_name).stem().string();
  row.eye = {translation[0], translation[1], translation[2]};
  const skinref::Scene scene = load_or_fail((group / file_name).string());
  row.moment = mid_animation(scene);
  const skinref::RenderResult result = render_from_generator_camera(scene, row.moment, row.eye);
  ASSERT_EQ(result.image.width, kGeneratorImageSize);
  ASSERT_EQ(result.image.height, kGeneratorImageSize);
  row.ours = static_cast<double>(covered_pixels(result.buffers)) /
             (static_cast<double>(kGeneratorImageSize) * kGeneratorImageSize);
  EXPECT_GT(row.ours, 0.0) << "the model is not in view";

  write_ours(result.image, out_dir, row);
  compare_with_generators_image(group / sample_image, out_dir, row, tally.stills);
  if (::testing::Test::HasFatalFailure()) return;
  tally.rows.push_back(row);
}

// Every model of one group's Manifest.json. Fatal failures return here; the caller checks for them.
void render_generator_group(const fs::path& group, const fs::path& out_dir, GeneratorTally& tally) {
  const fs::path manifest_path = group / "Manifest.json";
  ASSERT_TRUE(fs::is_regular_file(manifest_path)) << manifest_path;
  nlohmann::json manifest;
  std::ifstream(manifest_path) >> manifest;
  ASSERT_TRUE(manifest.contains("models") && manifest["models"].is_array()) << manifest_path;
  for (const nlohmann::json& model : manifest["models"]) {
    render_generator_model(group, manifest_path, model, out_dir, tally);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The written index.html: a row per manifest model, and every image it names present and on the page.
void check_index_page(const fs::path& index, const fs::path& out_dir, const GeneratorTally& tally) {
  std::ifstream in(index, std::ios::binary);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(tally.rows.size(), tally.manifest_models) << "every model of the manifests rendered";
  EXPECT_EQ(count_occurrences(page, kRowMarker), tally.manifest_models) << "one row per model in " << index;
  for (const GeneratorRow& row : tally.rows) {
    EXPECT_TRUE(fs::is_regular_file(out_dir / row.our_file)) << row.our_file;
    EXPECT_TRUE(fs::is_regular_file(out_dir / row.generator_file)) << row.generator_file;
    EXPECT_NE(page.find("src=\"" + row.our_file + "\""), std::string::npos) << row.our_file << " is not on the page";
  }
}

// Every model of every Animation_Skin* group's Manifest.json renders at 400x400 from the manifest's camera;
// our PNG and a copy of the generator's image go to SKINREF_TEST_OUTPUT_DIR/asset-generator/ with an
// index.html showing them side by side. Not a pixel comparison (different renderer, lighting and
// background); for the stills, the silhouette coverage of ours and theirs agree within
// kSilhouetteCoverageRelative.
TEST(AssetGeneratorRenderTest, SkinCasesRenderBesideTheGeneratorsImages) {
  if (!corpus_present()) {
    GTEST_SKIP() << corpus_skip_reason();
  }
  const fs::path generator_dir = fs::path(corpus_dir()) / "glTF-Asset-Generator";
  ASSERT_TRUE(fs::is_directory(generator_dir)) << "the corpus folder exists but lacks " << generator_dir;
  const std::vector<fs::path> groups = skin_groups(generator_dir);
  ASSERT_FALSE(groups.empty()) << "no Animation_Skin* group under " << generator_dir;

  const fs::path out_dir = fs::path(SKINREF_TEST_OUTPUT_DIR) / "asset-generator";
  fs::remove_all(out_dir);  // no stale images from models that have since left the corpus
  fs::create_directories(out_dir);

  GeneratorTally tally;
  for (const fs::path& group : groups) {
    render_generator_group(group, out_dir, tally);
    if (HasFatalFailure()) return;  // an ASSERT in the steps ends the test, as it would inline
  }

  const fs::path index = out_dir / "index.html";
  write_index(index, tally.rows);
  check_index_page(index, out_dir, tally);
  EXPECT_GT(tally.stills, 0u) << "no still image to compare silhouettes with";
  RecordProperty("models", std::to_string(tally.rows.size()));
  RecordProperty("index", index.string());
  std::cout << "[ render   ] " << tally.rows.size() << " models, " << tally.stills
            << " stills compared; page: " << index.string() << "\n";
}

}  // namespace

// The offscreen Vulkan renderer (gpu/render_gpu.h) against the reference renderer (render_scene), given the
// same vertices and camera: every built-in scene in every view at 64x64 and 128x128 at two times; every
// corpus model (skipped visibly without the corpus); textures (an in-memory quad in every filter and wrap
// mode, a minified checkerboard at a grazing angle, and the corpus's CesiumMan); culling and winding of
// single- and double-sided quads seen from the front and the back, mirrored nodes and face normals; the
// sRGB encoding of the colour attachment against encode_srgb8 at exactly known linear values; size limits;
// and `skinref render --backend vulkan` on the command line. Images must agree on at least
// tol::kGpuImagePixelFraction of the pixels within tol::kGpuImageChannelBytes per channel; each comparison
// prints its agreement, largest difference and where the differing pixels lie. Validation is on in every
// test, and any validation warning or error fails it.
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "gpu/context.h"
#include "gpu/render_gpu.h"
#include "io/builtin_scenes.h"
#include "io/gltf_load.h"
#include "io/image_io.h"
#include "raster/camera.h"
#include "raster/render.h"
#include "raster/shading.h"
#include "skin/evaluate_vertices.h"
#include "support/cli_runner.h"
#include "support/corpus_models.h"
#include "support/temp_dir.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace skinref::gpu {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

namespace fs = std::filesystem;
using test::TempDir;

ContextOptions validated() {
  ContextOptions options;
  options.validate = true;
  return options;
}

// No validation-layer warning or error over the test's work (the context lives for one test).
void expect_render_validation_clean(const Context& context) {
  const ValidationCounts counts = context.validation_counts();
  std::string messages;
  for (const std::string& message : context.validation_messages()) messages += "\n  " + message;
  EXPECT_EQ(counts.warning, 0u) << messages;
  EXPECT_EQ(counts.error, 0u) << messages;
}

const char* view_label(RenderView view) {
  switch (view) {
    case RenderView::Shaded: return "shaded";
    case RenderView::Normals: return "normals";
    case RenderView::Weights: return "weights";
    case RenderView::Depth: return "depth";
  }
  return "?";
}

// ---- image comparison -------------------------------------------------------------------------------------

// How a GPU image compares with the reference image. A pixel "agrees" when every channel (RGBA) is within
// tol::kGpuImageChannelBytes, of the reference's byte or, where the reference gives one, of the range its
// LINEAR texture samples may take under the device's filter quantization (shading.h, sample_texture_range:
// on an H200, NVIDIA's quantized weights moved magnified high-contrast texels by up to 3/255). With the reference's triangle buffers, the differing pixels are sorted by where
// they lie: on the silhouette band (a 3x3 neighbourhood holding background and model), on an inner edge band
// (two triangles meet, no background), or in a triangle's interior; coverage differences (background in one
// image only) are counted too, and those off the silhouette band.
struct Comparison {
  size_t pixels = 0;
  size_t agreeing = 0;
  int max_difference = 0;
  int max_beyond_range = 0;             // beyond the pixel's filter range (= max_difference without ranges)
  size_t agreeing_by_filter_range = 0;  // agreeing thanks to the range only
  size_t over_silhouette = 0, over_inner_edge = 0, over_interior = 0;
  size_t coverage_differs = 0, coverage_differs_off_silhouette = 0;
  size_t reference_covered = 0;
  bool classified = false;

  double fraction() const { return pixels == 0 ? 0.0 : double(agreeing) / double(pixels); }

  std::string describe() const {
    std::ostringstream text;
    text << std::fixed << std::setprecision(3) << 100.0 * fraction() << "% of " << pixels << " px within "
         << tol::kGpuImageChannelBytes << "/255, max difference " << max_difference << "/255";
    if (agreeing_by_filter_range > 0) {
      text << " (" << agreeing_by_filter_range << " px within their LINEAR filter range only; largest excess "
           << max_beyond_range << "/255)";
    }
    if (classified) {
      text << "; differing px: " << over_silhouette << " on the silhouette, " << over_inner_edge
           << " on inner edges, " << over_interior << " interior; coverage differs at " << coverage_differs
           << " px (" << coverage_differs_off_silhouette << " off the silhouette band); reference covers "
           << reference_covered << " px";
    }
    return text.str();
  }
};

bool is_background(const RgbaImage& image, size_t p, const std::array<uint8_t, 3>& background) {
  return image.pixels[4 * p] == background[0] && image.pixels[4 * p + 1] == background[1] &&
         image.pixels[4 * p + 2] == background[2];
}

// With `low` and `high` (RenderResult::image_low / image_high), a channel agrees within tolerance of the range
// the device's LINEAR filter quantization allows, not only of the reference's byte.
Comparison compare_images(const RgbaImage& reference, const RgbaImage& actual, const RasterBuffers* buffers,
                          const RgbaImage* low = nullptr, const RgbaImage* high = nullptr) {
  Comparison result;
  if (reference.width != actual.width || reference.height != actual.height ||
      actual.pixels.size() != reference.pixels.size()) {
    ADD_FAILURE() << "image sizes differ: reference " << reference.width << "x" << reference.height << ", actual "
                  << actual.width << "x" << actual.height;
    return result;
  }
  const int width = reference.width, height = reference.height;
  result.pixels = size_t(width) * size_t(height);
  result.classified = buffers != nullptr;
  const std::array<uint8_t, 3> background = {encode_srgb8(kBackground[0]), encode_srgb8(kBackground[1]),
                                             encode_srgb8(kBackground[2])};
  constexpr uint32_t kNone = RasterBuffers::kNoTriangle;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const size_t p = size_t(y) * size_t(width) + size_t(x);
      int difference = 0, beyond_range = 0;
      for (int c = 0; c < 4; ++c) {
        const size_t i = 4 * p + size_t(c);
        const int value = actual.pixels[i], exact = reference.pixels[i];
        difference = std::max(difference, std::abs(exact - value));
        const int least = low != nullptr ? std::min<int>(exact, low->pixels[i]) : exact;
        const int greatest = high != nullptr ? std::max<int>(exact, high->pixels[i]) : exact;
        beyond_range = std::max(beyond_range, std::max(least - value, value - greatest));
      }
      result.max_difference = std::max(result.max_difference, difference);
      result.max_beyond_range = std::max(result.max_beyond_range, beyond_range);
      const bool agrees = beyond_range <= tol::kGpuImageChannelBytes;
      result.agreeing += agrees ? 1 : 0;
      result.agreeing_by_filter_range += agrees && difference > tol::kGpuImageChannelBytes ? 1 : 0;
      if (buffers == nullptr) continue;

      const uint32_t id = buffers->triangle[p];
      result.reference_covered += id != kNone ? 1 : 0;
      bool any_background = false, any_model = false, several_triangles = false;
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = x + dx, ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const uint32_t other = buffers->triangle[size_t(ny) * size_t(width) + size_t(nx)];
          (other == kNone ? any_background : any_model) = true;
          if (other != kNone && id != kNone && other != id) several_triangles = true;
        }
      }
      const bool silhouette = any_background && any_model;
      if (!agrees) {
        if (silhouette) {
          ++result.over_silhouette;
        } else if (several_triangles) {
          ++result.over_inner_edge;
        } else {
          ++result.over_interior;
        }
      }
      if ((id == kNone) != is_background(actual, p, background)) {
        ++result.coverage_differs;
        result.coverage_differs_off_silhouette += silhouette ? 0 : 1;
      }
    }
  }
  return result;
}

// Writes the reference, the GPU image and their difference (|a - b| x 32 per channel, alpha 255) next to
// the test's temporary files, so that a failure can be looked at; returns where.
std::string write_failure_images(const std::string& name, const RgbaImage& reference, const RgbaImage& actual) {
  const fs::path folder = fs::path(::testing::TempDir()) / "skinref_gpu_render_failures";
  fs::create_directories(folder);
  RgbaImage difference = reference;
  for (size_t i = 0; i < difference.pixels.size(); ++i) {
    difference.pixels[i] = i % 4 == 3 ? 255
                                      : uint8_t(std::min(255, 32 * std::abs(int(reference.pixels[i]) -
                                                                            int(actual.pixels[i]))));
  }
  std::string stem = name;
  std::replace_if(stem.begin(), stem.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  write_png(reference, (folder / (stem + "_reference.png")).string());
  write_png(actual, (folder / (stem + "_gpu.png")).string());
  write_png(difference, (folder / (stem + "_difference.png")).string());
  return (folder / (stem + "_{reference,gpu,difference}.png")).string();
}

// Renders with both renderers from the same vertices and camera, prints the comparison and checks the
// criterion; returns the comparison for further checks.
Comparison render_and_compare(Context& context, const std::string& name, const Scene& scene, const EvaluatedPose& pose,
                              const std::vector<WorldPrimitive>& vertices, const RenderCamera& camera,
                              const RenderOptions& options, RgbaImage* gpu_out = nullptr) {
  // The reference also gives each pixel's range under this device's LINEAR filter quantization.
  RenderOptions ranged = options;
  ranged.filter_sub_texel_bits = int(context.limits().subTexelPrecisionBits);
  const RenderResult reference = render_scene(scene, pose, vertices, camera, ranged);
  const RgbaImage gpu = gpu_render(context, scene, pose, vertices, camera, options);
  EXPECT_EQ(gpu.width, options.width);
  EXPECT_EQ(gpu.height, options.height);
  const Comparison comparison =
      compare_images(reference.image, gpu, &reference.buffers, &reference.image_low, &reference.image_high);
  std::cout << "[ compare  ] " << name << ": " << comparison.describe() << std::endl;
  EXPECT_GE(comparison.fraction(), tol::kGpuImagePixelFraction) << name << ": " << comparison.describe();
  // Coverage may differ only along the silhouette (where a snapped vertex can land on the other side of a
  // pixel centre), never inside the model or out in the background.
  EXPECT_EQ(comparison.coverage_differs_off_silhouette, 0u) << name << ": " << comparison.describe();
  if (comparison.fraction() < tol::kGpuImagePixelFraction) {
    ADD_FAILURE() << "images written to " << write_failure_images(name, reference.image, gpu);
  }
  if (gpu_out != nullptr) *gpu_out = gpu;
  return comparison;
}

// ---- built-in scenes ---------------------------------------------------------------------------------------

struct BuiltinCase {
  const char* scene;
  RenderView view;
};

void PrintTo(const BuiltinCase& param, std::ostream* os) { *os << "builtin:" << param.scene << " " << view_label(param.view); }

std::string builtin_case_name(const ::testing::TestParamInfo<BuiltinCase>& info) {
  std::string name = std::string(info.param.scene) + "_" + view_label(info.param.view);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class GpuRenderBuiltinTest : public ::testing::TestWithParam<BuiltinCase> {};

// Image sizes and times (as fractions of the clip) every built-in scene is rendered at; the weights view
// shows skin joint kWeightsJoint (every built-in skin has at least two joints).
constexpr int kSizes[] = {64, 128};
constexpr double kTimeFractions[] = {0.3, 0.7};
constexpr int kWeightsJoint = 1;

TEST_P(GpuRenderBuiltinTest, MatchesReference) {
  const BuiltinCase& param = GetParam();
  const Scene scene = make_builtin_scene(param.scene);
  ASSERT_FALSE(scene.animations.empty());
  Context context(validated());
  const SkinningOptions skinning;
  // One camera for the whole clip (auto_camera frames every time), square images.
  const RenderCamera camera = auto_camera(scene, 0, skinning, 1.0);
  for (const int size : kSizes) {
    for (const double fraction : kTimeFractions) {
      const double time = fraction * scene.animations[0].end_time;
      const EvaluatedPose pose = evaluate_pose(scene, 0, time);
      const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, skinning);
      RenderOptions options;
      options.width = size;
      options.height = size;
      options.view = param.view;
      options.weights_joint = kWeightsJoint;
      std::ostringstream name;
      name << "builtin:" << param.scene << " " << view_label(param.view) << " " << size << "x" << size << " t=" << time;
      const Comparison comparison = render_and_compare(context, name.str(), scene, pose, vertices, camera, options);
      // The auto camera frames the model: a visible part of the image shows it (chain64's thin tube covers
      // the least, about 1.3 %).
      EXPECT_GT(comparison.reference_covered, comparison.pixels / 100) << name.str();
    }
  }
  expect_render_validation_clean(context);
}

INSTANTIATE_TEST_SUITE_P(
    AllScenesAllViews, GpuRenderBuiltinTest,
    ::testing::Values(BuiltinCase{"twist", RenderView::Shaded}, BuiltinCase{"twist", RenderView::Normals},
                      BuiltinCase{"twist", RenderView::Weights}, BuiltinCase{"twist", RenderView::Depth},
                      BuiltinCase{"bend", RenderView::Shaded}, BuiltinCase{"bend", RenderView::Normals},
                      BuiltinCase{"bend", RenderView::Weights}, BuiltinCase{"bend", RenderView::Depth},
                      BuiltinCase{"chain64", RenderView::Shaded}, BuiltinCase{"chain64", RenderView::Normals},
                      BuiltinCase{"chain64", RenderView::Weights}, BuiltinCase{"chain64", RenderView::Depth},
                      BuiltinCase{"eight-influences", RenderView::Shaded},
                      BuiltinCase{"eight-influences", RenderView::Normals},
                      BuiltinCase{"eight-influences", RenderView::Weights},
                      BuiltinCase{"eight-influences", RenderView::Depth},
                      BuiltinCase{"node-transforms", RenderView::Shaded},
                      BuiltinCase{"node-transforms", RenderView::Normals},
                      BuiltinCase{"node-transforms", RenderView::Weights},
                      BuiltinCase{"node-transforms", RenderView::Depth}),
    builtin_case_name);

// The million-vertex scene, once (shaded, 128x128, one time): its two million triangles make every other
// view and size a repetition of the same check at many times the cost.
TEST(GpuRenderMillionTest, MatchesReference) {
  const Scene scene = make_builtin_scene("million");
  Context context(validated());
  const SkinningOptions skinning;
  const double time = kTimeFractions[0] * scene.animations[0].end_time;
  const EvaluatedPose pose = evaluate_pose(scene, 0, time);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, skinning);
  // Framed on the rest pose (one skinning pass instead of kAutoCameraSamples): the wave bends the tube by a
  // few degrees only, so it stays in the picture.
  const RenderCamera camera = auto_camera(scene, -1, skinning, 1.0);
  RenderOptions options;
  options.width = 128;
  options.height = 128;
  std::ostringstream name;
  name << "builtin:million shaded 128x128 t=" << time;
  const Comparison comparison = render_and_compare(context, name.str(), scene, pose, vertices, camera, options);
  EXPECT_GT(comparison.reference_covered, comparison.pixels / 50);
  expect_render_validation_clean(context);
}

// ---- a quad: culling, winding, face normals, textures -------------------------------------------------------

constexpr int kQuadImage = 64;
constexpr double kEyeDistance = 4.0;
constexpr double kFovDegrees = 60.0;
const Vec3 kQuadColour(0.8, 0.4, 0.2);

struct QuadSpec {
  bool normals = true;
  bool double_sided = false;
  Vec3 scale = Vec3::Ones();
  // Textured: a 4x4 texture of distinct colours, uv spanning [kUvLow, kUvHigh] so that wrapping shows;
  // or, with `checker` > 0, a black and white checkerboard of checker x checker texels of one texel each.
  bool textured = false;
  int checker = 0;
  Filter filter = Filter::Linear;
  WrapMode wrap_s = WrapMode::Repeat;
  WrapMode wrap_t = WrapMode::Repeat;
};

constexpr double kUvLow = -1.25;
constexpr double kUvHigh = 2.25;

// A quad [-1, 1]^2 at z = 0, counter-clockwise seen from +Z (its front), normals +Z, on a rigid node with
// scale `scale`; uv (kUvLow, kUvLow) at the top-left corner when textured.
Scene quad_scene(const QuadSpec& spec) {
  Scene scene;
  scene.source = "test:quad";
  Primitive quad;
  quad.positions = {Vec3(-1.0, -1.0, 0.0), Vec3(1.0, -1.0, 0.0), Vec3(1.0, 1.0, 0.0), Vec3(-1.0, 1.0, 0.0)};
  if (spec.normals) quad.normals.assign(4, Vec3::UnitZ());
  quad.texcoords0 = {Vec2(kUvLow, kUvHigh), Vec2(kUvHigh, kUvHigh), Vec2(kUvHigh, kUvLow), Vec2(kUvLow, kUvLow)};
  quad.indices = {0, 1, 2, 0, 2, 3};
  quad.indexed = true;
  quad.material = 0;
  Material material;
  material.base_color_factor = Vec4(kQuadColour.x(), kQuadColour.y(), kQuadColour.z(), 1.0);
  material.double_sided = spec.double_sided;
  if (spec.textured) {
    Image image;
    if (spec.checker > 0) {
      image.width = spec.checker;
      image.height = spec.checker;
      for (int texel = 0; texel < spec.checker * spec.checker; ++texel) {
        const uint8_t value = (texel / spec.checker + texel % spec.checker) % 2 == 0 ? 255 : 0;
        image.rgba8.insert(image.rgba8.end(), {value, value, value, 255});
      }
    } else {
      image.width = 4;
      image.height = 4;
      for (int texel = 0; texel < 16; ++texel) {
        // Distinct, high-contrast colours: neighbouring texels differ strongly, so filtering and wrapping show.
        image.rgba8.push_back(uint8_t((texel * 97) % 256));
        image.rgba8.push_back(uint8_t((texel * 53 + 40) % 256));
        image.rgba8.push_back(uint8_t(255 - (texel * 31) % 256));
        image.rgba8.push_back(255);
      }
    }
    scene.images.push_back(image);
    Texture texture;
    texture.image = 0;
    texture.sampler.mag_filter = spec.filter;
    texture.sampler.min_filter = spec.filter;
    texture.sampler.wrap_s = spec.wrap_s;
    texture.sampler.wrap_t = spec.wrap_t;
    scene.textures.push_back(texture);
    material.base_color_factor = Vec4::Ones();
    material.base_color_texture = 0;
  }
  scene.materials.push_back(material);
  Node node;
  node.mesh = 0;
  node.rest.scale = spec.scale;
  scene.nodes = {node};
  scene.roots = {0};
  Mesh mesh;
  mesh.primitives.push_back(quad);
  scene.meshes.push_back(mesh);
  finalize_scene(scene);
  return scene;
}

RenderCamera quad_camera(bool from_behind) {
  return look_at_camera(Vec3(0.0, 0.0, from_behind ? -kEyeDistance : kEyeDistance), Vec3::Zero(), kFovDegrees, 1.0);
}

struct QuadRender {
  Comparison comparison;
  RgbaImage gpu;
};

QuadRender render_quad(Context& context, const std::string& name, const Scene& scene, bool from_behind,
                       RenderView view = RenderView::Shaded, int size = kQuadImage) {
  const EvaluatedPose pose = evaluate_pose(scene, -1, 0.0);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, {});
  RenderOptions options;
  options.width = size;
  options.height = size;
  options.view = view;
  QuadRender result;
  result.comparison =
      render_and_compare(context, name, scene, pose, vertices, quad_camera(from_behind), options, &result.gpu);
  return result;
}

std::array<int, 3> centre_pixel(const RgbaImage& image) {
  const size_t p = size_t(image.height / 2) * size_t(image.width) + size_t(image.width / 2);
  return {image.pixels[4 * p], image.pixels[4 * p + 1], image.pixels[4 * p + 2]};
}

// The closed-form colour of the quad at `light` = a + (1 - a) max(0, n . L), as encode_srgb8 gives it; the
// GPU may differ by one step of the encoding (docs/shading.md).
void expect_centre(const RgbaImage& image, const Vec3& linear, const std::string& what) {
  const std::array<int, 3> actual = centre_pixel(image);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(actual[size_t(c)], encode_srgb8(linear[c]), tol::kGpuImageChannelBytes) << what << " channel " << c;
  }
}

// n = +Z: n . L = 0.5 / |(0.3, 0.8, 0.5)|.
double lit(double n_dot_l) { return kAmbient + (1.0 - kAmbient) * std::max(0.0, n_dot_l); }
const double kQuadNdotL = 0.5 / std::sqrt(0.98);

TEST(GpuRenderCullingTest, SingleSidedFrontDrawnBackCulled) {
  Context context(validated());
  const Scene scene = quad_scene({});
  // From the front (+Z): counter-clockwise as seen, front-facing, lit with n = +Z.
  const QuadRender front = render_quad(context, "single-sided quad, front", scene, false);
  EXPECT_EQ(front.comparison.coverage_differs, 0u);
  EXPECT_GT(front.comparison.reference_covered, 300u);  // about 28 x 28 pixels
  expect_centre(front.gpu, kQuadColour * lit(kQuadNdotL), "front");
  // From behind: clockwise as seen, culled; nothing but the background.
  const QuadRender back = render_quad(context, "single-sided quad, back", scene, true);
  EXPECT_EQ(back.comparison.reference_covered, 0u);
  EXPECT_EQ(back.comparison.coverage_differs, 0u);
  expect_centre(back.gpu, kBackground, "back (background)");
  expect_render_validation_clean(context);
}

TEST(GpuRenderCullingTest, DoubleSidedBothSidesDrawnBackNormalNegated) {
  Context context(validated());
  QuadSpec spec;
  spec.double_sided = true;
  const Scene scene = quad_scene(spec);
  const QuadRender front = render_quad(context, "double-sided quad, front", scene, false);
  EXPECT_GT(front.comparison.reference_covered, 300u);
  expect_centre(front.gpu, kQuadColour * lit(kQuadNdotL), "front");
  // The back face shows n = -Z, which faces away from the light: ambient only.
  const QuadRender back = render_quad(context, "double-sided quad, back", scene, true);
  EXPECT_GT(back.comparison.reference_covered, 300u);
  EXPECT_EQ(back.comparison.coverage_differs, 0u);
  expect_centre(back.gpu, kQuadColour * lit(-kQuadNdotL), "back");
  // The normals view shows the negated normal on the back: (0, 0, -1) * 0.5 + 0.5.
  const QuadRender normals = render_quad(context, "double-sided quad, back, normals", scene, true, RenderView::Normals);
  expect_centre(normals.gpu, Vec3(0.5, 0.5, 0.0), "back normals");
  expect_render_validation_clean(context);
}

TEST(GpuRenderCullingTest, MirroredNodeFlipsWinding) {
  Context context(validated());
  QuadSpec spec;
  spec.scale = Vec3(-1.0, 1.0, 1.0);  // mirrors x: the stored winding turns clockwise as seen from +Z
  const Scene scene = quad_scene(spec);
  // The negative determinant flips the front face, so the quad still shows from the front and is culled
  // from behind.
  const QuadRender front = render_quad(context, "mirrored single-sided quad, front", scene, false);
  EXPECT_GT(front.comparison.reference_covered, 300u);
  expect_centre(front.gpu, kQuadColour * lit(kQuadNdotL), "front");
  const QuadRender back = render_quad(context, "mirrored single-sided quad, back", scene, true);
  EXPECT_EQ(back.comparison.reference_covered, 0u);
  EXPECT_EQ(back.comparison.coverage_differs, 0u);
  expect_render_validation_clean(context);
}

TEST(GpuRenderCullingTest, FaceNormalsWithoutVertexNormals) {
  Context context(validated());
  for (const bool mirrored : {false, true}) {
    QuadSpec spec;
    spec.normals = false;
    spec.double_sided = true;
    if (mirrored) spec.scale = Vec3(-1.0, 1.0, 1.0);
    const Scene scene = quad_scene(spec);
    const std::string label = mirrored ? "mirrored quad without normals" : "quad without normals";
    // The face normal points to the front (+Z, flipped back by the mirror's sign), negated on the back.
    const QuadRender front = render_quad(context, label + ", front", scene, false);
    expect_centre(front.gpu, kQuadColour * lit(kQuadNdotL), label + " front");
    const QuadRender back = render_quad(context, label + ", back", scene, true);
    expect_centre(back.gpu, kQuadColour * lit(-kQuadNdotL), label + " back");
    const QuadRender normals = render_quad(context, label + ", front, normals", scene, false, RenderView::Normals);
    expect_centre(normals.gpu, Vec3(0.5, 0.5, 1.0), label + " front normals");
  }
  expect_render_validation_clean(context);
}

// Every filter and wrap mode of a 4x4 texture on a quad whose uv runs from -1.25 to 2.25: the texture
// repeats, mirrors or clamps three and a half times across the quad.
TEST(GpuRenderTextureTest, FiltersAndWrapModes) {
  Context context(validated());
  const std::pair<WrapMode, const char*> wraps[] = {{WrapMode::Repeat, "REPEAT"},
                                                    {WrapMode::ClampToEdge, "CLAMP_TO_EDGE"},
                                                    {WrapMode::MirroredRepeat, "MIRRORED_REPEAT"}};
  for (const Filter filter : {Filter::Nearest, Filter::Linear}) {
    for (const auto& [wrap, wrap_name] : wraps) {
      QuadSpec spec;
      spec.textured = true;
      spec.filter = filter;
      spec.wrap_s = wrap;
      // t wraps differently from s where possible, so that the two axes are not confused.
      spec.wrap_t = wrap == WrapMode::Repeat ? WrapMode::MirroredRepeat : WrapMode::Repeat;
      const Scene scene = quad_scene(spec);
      const std::string name = std::string("textured quad ") + (filter == Filter::Nearest ? "NEAREST" : "LINEAR") +
                               " wrap_s " + wrap_name;
      const QuadRender result = render_quad(context, name, scene, false, RenderView::Shaded, 128);
      EXPECT_GT(result.comparison.reference_covered, 1000u);
      EXPECT_EQ(result.comparison.coverage_differs, 0u);
    }
  }
  expect_render_validation_clean(context);
}

// A 256x256 one-texel checkerboard repeated 3.5 times across the quad, seen at a grazing angle (about 16
// degrees) at 128x128: far away, tens of texels fall in one pixel, so uv changes fast across it. There a
// shift of the triangle by 1/512 pixel moves the sample by a sizeable part of a texel; the GPU must
// interpolate from the snapped positions, as the reference does, to agree (render.vert).
TEST(GpuRenderTextureTest, MinifiedCheckerboardAtGrazingAngle) {
  Context context(validated());
  QuadSpec spec;
  spec.textured = true;
  spec.checker = 256;
  const Scene scene = quad_scene(spec);
  const EvaluatedPose pose = evaluate_pose(scene, -1, 0.0);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, {});
  const RenderCamera camera = look_at_camera(Vec3(3.5, 0.0, 1.0), Vec3::Zero(), 40.0, 1.0);
  RenderOptions options;
  options.width = 128;
  options.height = 128;
  const Comparison comparison = render_and_compare(context, "minified checkerboard at a grazing angle", scene, pose,
                                                   vertices, camera, options);
  EXPECT_GT(comparison.reference_covered, 1000u);
  expect_render_validation_clean(context);
}

// CesiumMan: a skinned model with a base colour texture (LINEAR, REPEAT), at two times and two sizes.
TEST(GpuRenderTextureTest, CorpusCesiumMan) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  const std::string path = test::corpus_dir() + "/glTF-Sample-Assets/CesiumMan/glTF-Binary/CesiumMan.glb";
  const Scene scene = load_gltf_file(path);
  ASSERT_FALSE(scene.animations.empty());
  ASSERT_FALSE(scene.textures.empty());
  Context context(validated());
  const SkinningOptions skinning;
  const RenderCamera camera = auto_camera(scene, 0, skinning, 1.0);
  for (const int size : {128, 256}) {
    for (const double fraction : kTimeFractions) {
      const double time = fraction * scene.animations[0].end_time;
      const EvaluatedPose pose = evaluate_pose(scene, 0, time);
      const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, skinning);
      RenderOptions options;
      options.width = size;
      options.height = size;
      std::ostringstream name;
      name << "CesiumMan shaded " << size << "x" << size << " t=" << time;
      const Comparison comparison = render_and_compare(context, name.str(), scene, pose, vertices, camera, options);
      EXPECT_GT(comparison.reference_covered, comparison.pixels / 50);
    }
  }
  expect_render_validation_clean(context);
}

// Every corpus model, shaded and in the normals view, at 128x128 at animation 0's mid time (the rest pose
// without animations): rigid and skinned nodes, morph targets, several primitives and materials, textures.
class GpuRenderCorpusTest : public ::testing::TestWithParam<test::CorpusModel> {};

TEST_P(GpuRenderCorpusTest, MatchesReference) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  const std::string path = (fs::path(test::corpus_dir()) / GetParam().path).string();
  ASSERT_TRUE(fs::is_regular_file(path)) << "the corpus folder exists but lacks " << path;
  const Scene scene = load_gltf_file(path);
  const int animation = scene.animations.empty() ? -1 : 0;
  const double time = animation < 0 ? 0.0 : 0.5 * scene.animations[0].end_time;
  Context context(validated());
  const EvaluatedPose pose = evaluate_pose(scene, animation, time);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, {});
  const RenderCamera camera = auto_camera(scene, animation, {}, 1.0);
  for (const RenderView view : {RenderView::Shaded, RenderView::Normals}) {
    RenderOptions options;
    options.width = 128;
    options.height = 128;
    options.view = view;
    std::ostringstream name;
    name << GetParam().name << " " << view_label(view) << " 128x128 t=" << time;
    const Comparison comparison = render_and_compare(context, name.str(), scene, pose, vertices, camera, options);
    EXPECT_GT(comparison.reference_covered, 0u) << name.str();
  }
  expect_render_validation_clean(context);
}

INSTANTIATE_TEST_SUITE_P(Corpus, GpuRenderCorpusTest, ::testing::ValuesIn(test::kCorpusModels),
                         test::model_test_name);

// ---- the sRGB encoding of the colour attachment ------------------------------------------------------------

// The attachment's linear -> sRGB8 conversion against encode_srgb8 (floor(255 s + 0.5)) at exactly known
// linear values: each value is drawn as a block of pixels by a quad whose normal faces away from the light,
// so the shader's colour is base_color_factor x kAmbient = factor / 4, exact in float and in double when
// the factor is a float. The values are every byte's rounding boundary (the linear value whose exact sRGB
// is k + 0.5 steps) moved by a few relative offsets, and an even sweep of [0, 1].
TEST(GpuRenderSrgbTest, AttachmentEncodingAgreesWithEncodeSrgb8) {
  std::vector<double> linear_values;
  for (int k = 0; k < 255; ++k) {
    const double boundary = srgb_to_linear((k + 0.5) / 255.0);
    for (const double offset : {-1e-2, -1e-3, -3e-4, -1e-4, -1e-5, 0.0, 1e-5, 1e-4, 3e-4, 1e-3, 1e-2}) {
      linear_values.push_back(std::clamp(boundary * (1.0 + offset), 0.0, 1.0));
    }
  }
  const size_t sweep_begin = linear_values.size();
  constexpr int kSweep = 1024;
  for (int i = 0; i <= kSweep; ++i) linear_values.push_back(double(i) / kSweep);
  // As float factors (x 4), so that CPU and GPU start from the same value.
  for (double& value : linear_values) value = double(float(value * 4.0)) / 4.0;

  // Cells of kCell x kCell pixels in a kColumns-wide grid; the camera maps world (x, y) in pixels
  // directly to the framebuffer (x right, y down), depth 0.5.
  constexpr int kCell = 4, kColumns = 64;
  const int rows = int((linear_values.size() + kColumns - 1) / kColumns);
  const int width = kColumns * kCell, height = rows * kCell;
  Scene scene;
  scene.source = "test:srgb-cells";
  Mesh mesh;
  for (size_t i = 0; i < linear_values.size(); ++i) {
    const double x0 = double(int(i) % kColumns * kCell), y0 = double(int(i) / kColumns * kCell);
    const double x1 = x0 + kCell, y1 = y0 + kCell;
    Primitive cell;
    // Counter-clockwise on the screen as viewed (x right, y down): front-facing (raster.h).
    cell.positions = {Vec3(x0, y0, 0.0), Vec3(x0, y1, 0.0), Vec3(x1, y1, 0.0), Vec3(x1, y0, 0.0)};
    // Away from the light (n . L = -0.81): light = kAmbient exactly.
    cell.normals.assign(4, Vec3(0.0, -1.0, 0.0));
    cell.indices = {0, 1, 2, 0, 2, 3};
    cell.indexed = true;
    cell.material = int(i);
    mesh.primitives.push_back(cell);
    Material material;
    material.base_color_factor = Vec4(linear_values[i] * 4.0, linear_values[i] * 4.0, linear_values[i] * 4.0, 1.0);
    scene.materials.push_back(material);
  }
  scene.meshes.push_back(mesh);
  Node node;
  node.mesh = 0;
  scene.nodes = {node};
  scene.roots = {0};
  finalize_scene(scene);
  ASSERT_EQ(kAmbient, 0.25);  // the exactness argument above

  RenderCamera camera;
  camera.view = Mat4::Identity();
  camera.projection = Mat4::Zero();
  camera.projection(0, 0) = 2.0 / width;
  camera.projection(0, 3) = -1.0;
  camera.projection(1, 1) = 2.0 / height;
  camera.projection(1, 3) = -1.0;
  camera.projection(2, 3) = 0.5;
  camera.projection(3, 3) = 1.0;
  RenderOptions options;
  options.width = width;
  options.height = height;

  Context context(validated());
  const EvaluatedPose pose = evaluate_pose(scene, -1, 0.0);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, {});
  const RenderResult reference = render_scene(scene, pose, vertices, camera, options);
  const RgbaImage gpu = gpu_render(context, scene, pose, vertices, camera, options);
  ASSERT_EQ(gpu.width, width);

  size_t differ = 0, sweep_differ = 0;  // values (all three channels carry the same one)
  int max_difference = 0;
  double widest = 0.0;  // the largest distance of a differing value's exact 255 s from a rounding boundary
  for (size_t i = 0; i < linear_values.size(); ++i) {
    const int x = int(i) % kColumns * kCell + kCell / 2, y = int(i) / kColumns * kCell + kCell / 2;
    const size_t p = size_t(y) * size_t(width) + size_t(x);
    ASSERT_NE(reference.buffers.triangle[p], RasterBuffers::kNoTriangle) << "cell " << i << " not drawn";
    const int expected = encode_srgb8(linear_values[i]);
    ASSERT_EQ(reference.image.pixels[4 * p], expected);
    int difference = 0;
    for (int c = 0; c < 3; ++c) {
      const int actual = gpu.pixels[4 * p + size_t(c)];
      difference = std::max(difference, std::abs(actual - expected));
      EXPECT_LE(std::abs(actual - expected), tol::kGpuImageChannelBytes) << "linear " << linear_values[i] << " channel " << c;
    }
    max_difference = std::max(max_difference, difference);
    if (difference != 0) {
      ++differ;
      sweep_differ += i >= sweep_begin ? 1 : 0;
      const double steps = 255.0 * linear_to_srgb(linear_values[i]);
      widest = std::max(widest, std::abs(steps - (std::floor(steps) + 0.5)));
    }
  }
  std::cout << "[ srgb     ] " << linear_values.size() << " linear values (" << sweep_begin
            << " near rounding boundaries, " << linear_values.size() - sweep_begin << " evenly spread): " << differ
            << " encode one step away from encode_srgb8 (" << sweep_differ << " of the evenly spread), max difference "
            << max_difference << "; every differing value lies within " << widest
            << " steps of a rounding boundary k + 0.5" << std::endl;
  EXPECT_LE(widest, tol::kGpuSrgbEncodeBand);
  expect_render_validation_clean(context);
}

// ---- argument checks -----------------------------------------------------------------------------------------

TEST(GpuRenderArgumentsTest, SizeOutOfRangeIsInputError) {
  Context context(validated());
  const Scene scene = make_builtin_scene("twist");
  const EvaluatedPose pose = evaluate_pose(scene, 0, 0.0);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, {});
  const RenderCamera camera = auto_camera(scene, 0, {}, 1.0);
  const uint32_t limit = context.limits().maxImageDimension2D;
  const std::pair<int, int> sizes[] = {{0, 64}, {64, 0}, {int(limit) + 1, 64}, {64, int(limit) + 1}};
  for (const auto& [width, height] : sizes) {
    RenderOptions options;
    options.width = width;
    options.height = height;
    try {
      gpu_render(context, scene, pose, vertices, camera, options);
      ADD_FAILURE() << width << "x" << height << " was accepted";
    } catch (const InputError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(std::to_string(width) + "x" + std::to_string(height)), std::string::npos) << message;
      EXPECT_NE(message.find(std::to_string(limit)), std::string::npos) << message;
      EXPECT_NE(message.find("maxImageDimension2D"), std::string::npos) << message;
    }
  }
  expect_render_validation_clean(context);
}

// ---- the command line ----------------------------------------------------------------------------------------

using test::CliRun;
using test::run_cli;

TEST(GpuRenderCliTest, VulkanBackendMatchesReferenceImage) {
  TempDir dir;
  const std::string gpu_png = dir.file("x.png"), reference_png = dir.file("reference.png");
  const CliRun gpu = run_cli(dir, {"render", "builtin:twist", "--backend", "vulkan", "--out", gpu_png});
  EXPECT_EQ(gpu.exit_code, 0) << gpu.err;
  EXPECT_EQ(gpu.err, "");
  EXPECT_NE(gpu.out.find("vulkan on "), std::string::npos) << gpu.out;
  const CliRun reference = run_cli(dir, {"render", "builtin:twist", "--out", reference_png});
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  const RgbaImage gpu_image = read_png(gpu_png), reference_image = read_png(reference_png);
  const Comparison comparison = compare_images(reference_image, gpu_image, nullptr);
  std::cout << "[ compare  ] skinref render builtin:twist --backend vulkan (512x512): " << comparison.describe()
            << std::endl;
  EXPECT_GE(comparison.fraction(), tol::kGpuImagePixelFraction) << comparison.describe();
}

// --validate fails the run on any validation message, and the context reports leaks on stderr at teardown:
// exit 0 with an empty stderr is a clean run.
TEST(GpuRenderCliTest, ValidatedRunIsClean) {
  TempDir dir;
  const CliRun run = run_cli(dir, {"render", "builtin:bend", "--backend", "vulkan", "--validate", "--size", "96x64",
                                   "--view", "weights:elbow", "--time", "0.5", "--out", dir.file("bend.png")});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_NE(run.out.find("vulkan on "), std::string::npos) << run.out;
  const RgbaImage image = read_png(dir.file("bend.png"));
  EXPECT_EQ(image.width, 96);
  EXPECT_EQ(image.height, 64);
}

TEST(GpuRenderCliTest, BadBackendOptionsAreUsageErrors) {
  TempDir dir;
  struct Case {
    std::vector<std::string> extra;
    std::string mention;
  };
  const Case cases[] = {
      {{"--backend", "metal"}, "--backend"},
      {{"--device", "0"}, "--backend vulkan"},
      {{"--validate"}, "--backend vulkan"},
      {{"--backend", "vulkan", "--device", "no-such-device-name"}, "no-such-device-name"},
      {{"--backend", "vulkan", "--ids", dir.file("ids.png")}, "--ids"},
      {{"--backend", "vulkan", "--trace", "1,1"}, "--trace"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"render", "builtin:twist", "--size", "32x32", "--out", dir.file("never.png")};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const CliRun run = run_cli(dir, args);
    EXPECT_EQ(run.exit_code, 2) << c.mention << ": " << run.err;
    EXPECT_EQ(run.err.rfind("skinref: ", 0), 0u) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find(c.mention), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(dir.file("never.png")));
  }
}

}  // namespace
}  // namespace skinref::gpu

// The renderer (render.h) and PNG files (image_io.h). A 2 x 2 quad facing a look-at camera checks every view
// against closed forms: Lambert colour, face normals, back-face culling and double-sided lighting, the winding
// flip of mirrored rigid nodes (from the pose), the normals, depth and weights views, and a NEAREST texture.
// builtin:twist renders in every view (background, coverage, depth order, identical bytes for any thread
// count). Triangle-id images, triangle numbering across primitives, argument checks, and PNG round trips,
// refusals and atomic writes follow.
#include "anim/evaluate_pose.h"
#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/builtin_scenes.h"
#include "io/image_io.h"
#include "raster/render.h"
#include "raster/shading.h"
#include "skin/evaluate_vertices.h"
#include "support/sanitizer_workload.h"
#include "support/temp_dir.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::read_bytes;
using test::TempDir;
using test::write_bytes;

using Rgb8 = std::array<int, 3>;

constexpr int kSize = 64;
constexpr double kEyeDistance = 4.0;
constexpr double kFovDegrees = 60.0;
const Vec3 kQuadColour(0.8, 0.4, 0.2);

Rgb8 encode(const Vec3& linear) {
  return {encode_srgb8(linear.x()), encode_srgb8(linear.y()), encode_srgb8(linear.z())};
}

Rgb8 pixel(const RgbaImage& image, int column, int row) {
  const size_t offset = (size_t(row) * size_t(image.width) + size_t(column)) * 4;
  return {image.pixels[offset], image.pixels[offset + 1], image.pixels[offset + 2]};
}

// Where the view ray through a pixel centre meets the plane z = 0, for the camera at (0, 0, +-kEyeDistance)
// looking at the origin (vertical fov kFovDegrees, square image); `from_behind` mirrors x.
Vec2 plane_point(int column, int row, bool from_behind = false) {
  const double half = kEyeDistance * std::tan(kFovDegrees * 0.5 * std::acos(-1.0) / 180.0);
  const double x = ((column + 0.5) / (kSize / 2.0) - 1.0) * half;
  const double y = -((row + 0.5) / (kSize / 2.0) - 1.0) * half;
  return Vec2(from_behind ? -x : x, y);
}

// Inside the quad with a margin of `margin` (negative: outside by that much).
bool inside_quad(const Vec2& p, double margin) {
  return std::abs(p.x()) < 1.0 - margin && std::abs(p.y()) < 1.0 - margin;
}

struct QuadSpec {
  bool normals = true;
  bool double_sided = false;
  Vec3 scale = Vec3::Ones();
  bool skinned = false;
  bool textured = false;
  bool animated_mirror = false;  // STEP scale animation: (1, 1, 1) at 0 s, (-1, 1, 1) from 1 s
};

// A quad [-1, 1]^2 at z = 0, counter-clockwise seen from +Z, normals +Z, uv (0, 0) at the top-left corner.
// Skinned: joint 0 holds the x = -1 edge, joint 1 the x = +1 edge (identity joints and bind matrices).
Scene quad_scene(const QuadSpec& spec) {
  Scene scene;
  scene.source = "test:quad";
  Primitive quad;
  quad.positions = {Vec3(-1.0, -1.0, 0.0), Vec3(1.0, -1.0, 0.0), Vec3(1.0, 1.0, 0.0), Vec3(-1.0, 1.0, 0.0)};
  if (spec.normals) quad.normals.assign(4, Vec3::UnitZ());
  quad.texcoords0 = {Vec2(0.0, 1.0), Vec2(1.0, 1.0), Vec2(1.0, 0.0), Vec2(0.0, 0.0)};
  quad.indices = {0, 1, 2, 0, 2, 3};
  quad.indexed = true;
  quad.material = 0;
  Material material;
  material.base_color_factor = Vec4(kQuadColour.x(), kQuadColour.y(), kQuadColour.z(), 1.0);
  material.double_sided = spec.double_sided;
  if (spec.textured) {
    // Texels: red, green / blue, white (top row first), NEAREST.
    Image image;
    image.width = 2;
    image.height = 2;
    image.rgba8 = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    scene.images.push_back(image);
    Texture texture;
    texture.image = 0;
    texture.sampler.mag_filter = Filter::Nearest;
    texture.sampler.min_filter = Filter::Nearest;
    scene.textures.push_back(texture);
    material.base_color_factor = Vec4::Ones();
    material.base_color_texture = 0;
  }
  scene.materials.push_back(material);

  Node mesh_node;
  mesh_node.mesh = 0;
  mesh_node.rest.scale = spec.scale;
  if (spec.skinned) {
    quad.influences_per_vertex = 4;
    quad.joints = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    quad.weights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    mesh_node.skin = 0;
    Skin skin;
    skin.joints = {1, 2};
    skin.inverse_bind = {Mat4::Identity(), Mat4::Identity()};
    scene.skins.push_back(skin);
    Node joint0, joint1;
    joint0.name = "left";
    joint1.name = "right";
    scene.nodes = {mesh_node, joint0, joint1};
    scene.roots = {0, 1, 2};
  } else {
    scene.nodes = {mesh_node};
    scene.roots = {0};
  }
  Mesh mesh;
  mesh.primitives.push_back(quad);
  scene.meshes.push_back(mesh);
  if (spec.animated_mirror) {
    Animation animation;
    animation.name = "mirror";
    AnimationSampler sampler;
    sampler.interpolation = Interpolation::Step;
    sampler.times = {0.0, 1.0};
    sampler.values = {1.0, 1.0, 1.0, -1.0, 1.0, 1.0};
    sampler.components = 3;
    animation.samplers.push_back(sampler);
    animation.channels.push_back({0, 0, ChannelPath::Scale});
    animation.end_time = 1.0;
    scene.animations.push_back(animation);
  }
  finalize_scene(scene);
  return scene;
}

RenderCamera quad_camera(bool from_behind = false) {
  return look_at_camera(Vec3(0.0, 0.0, from_behind ? -kEyeDistance : kEyeDistance), Vec3::Zero(), kFovDegrees, 1.0);
}

RenderResult render_quad(const Scene& scene, RenderView view, bool from_behind = false, int animation = -1,
                         double time = 0.0, int weights_joint = 0) {
  const EvaluatedPose pose = evaluate_pose(scene, animation, time);
  RenderOptions options;
  options.width = kSize;
  options.height = kSize;
  options.view = view;
  options.weights_joint = weights_joint;
  return render_scene(scene, pose, evaluate_vertices(scene, pose, {}), quad_camera(from_behind), options);
}

size_t covered_pixels(const RasterBuffers& buffers) {
  size_t count = 0;
  for (uint32_t id : buffers.triangle) count += id != RasterBuffers::kNoTriangle ? 1 : 0;
  return count;
}

// Pixels well inside the quad have `inside` (a function of the plane point), pixels well outside have the
// background, and every pixel is opaque.
template <class Expected>
void expect_quad_image(const RenderResult& result, Expected inside, bool from_behind = false, int byte_tolerance = 0) {
  ASSERT_EQ(result.image.width, kSize);
  ASSERT_EQ(result.image.height, kSize);
  const Rgb8 background = encode(kBackground);
  size_t checked_inside = 0;
  for (int row = 0; row < kSize; ++row) {
    for (int column = 0; column < kSize; ++column) {
      const Vec2 p = plane_point(column, row, from_behind);
      const Rgb8 actual = pixel(result.image, column, row);
      EXPECT_EQ(result.image.pixels[(size_t(row) * kSize + size_t(column)) * 4 + 3], 255);
      if (inside_quad(p, 0.05)) {
        const Rgb8 expected = inside(p);
        for (int c = 0; c < 3; ++c) {
          EXPECT_NEAR(actual[c], expected[c], byte_tolerance)
              << "pixel (" << column << ", " << row << ") channel " << c << " at " << p.transpose();
        }
        ++checked_inside;
      } else if (!inside_quad(p, -0.05)) {
        EXPECT_EQ(actual, background) << "pixel (" << column << ", " << row << ")";
      }
    }
  }
  EXPECT_GT(checked_inside, 300u);  // the quad covers about 28 x 28 pixels
}

Rgb8 lit_quad_colour(const Vec3& base, double n_dot_l) {
  return encode(base * (kAmbient + (1.0 - kAmbient) * std::max(0.0, n_dot_l)));
}

// n = +Z: n . L = 0.5 / |(0.3, 0.8, 0.5)|.
const double kQuadNdotL = 0.5 / std::sqrt(0.98);

// ---- the quad ----------------------------------------------------------------------------------------------

TEST(RenderQuad, ShadedFacingTheCamera) {
  const RenderResult result = render_quad(quad_scene({}), RenderView::Shaded);
  const Rgb8 lit = lit_quad_colour(kQuadColour, kQuadNdotL);
  expect_quad_image(result, [&](const Vec2&) { return lit; });
  // Every covered pixel is front-facing and lies on one of the two triangles.
  for (size_t p = 0; p < result.buffers.triangle.size(); ++p) {
    if (result.buffers.triangle[p] == RasterBuffers::kNoTriangle) continue;
    EXPECT_LT(result.buffers.triangle[p], 2u);
    EXPECT_EQ(result.buffers.front_facing[p], 1);
  }
}

TEST(RenderQuad, WithoutNormalsTheFaceNormalShadesTheSame) {
  QuadSpec spec;
  spec.normals = false;
  const RenderResult flat = render_quad(quad_scene(spec), RenderView::Shaded);
  const RenderResult smooth = render_quad(quad_scene({}), RenderView::Shaded);
  EXPECT_GT(covered_pixels(flat.buffers), 0u);
  EXPECT_EQ(flat.image.pixels, smooth.image.pixels);
}

TEST(RenderQuad, BackFacesAreCulledUnlessDoubleSided) {
  const RenderResult single = render_quad(quad_scene({}), RenderView::Shaded, /*from_behind=*/true);
  EXPECT_EQ(covered_pixels(single.buffers), 0u);
  const Rgb8 background = encode(kBackground);
  for (int p = 0; p < kSize * kSize; ++p) EXPECT_EQ(pixel(single.image, p % kSize, p / kSize), background);

  QuadSpec spec;
  spec.double_sided = true;
  // Seen from behind, the normal is negated: n = -Z faces away from the light, leaving the ambient share.
  const RenderResult both = render_quad(quad_scene(spec), RenderView::Shaded, true);
  const Rgb8 ambient = lit_quad_colour(kQuadColour, -kQuadNdotL);
  expect_quad_image(both, [&](const Vec2&) { return ambient; }, true);
  for (size_t p = 0; p < both.buffers.triangle.size(); ++p) {
    if (both.buffers.triangle[p] != RasterBuffers::kNoTriangle) {
      EXPECT_EQ(both.buffers.front_facing[p], 0);
    }
  }
  // And the front of the double-sided quad is lit as usual.
  expect_quad_image(render_quad(quad_scene(spec), RenderView::Shaded), [&](const Vec2&) {
    return lit_quad_colour(kQuadColour, kQuadNdotL);
  });
}

TEST(RenderQuad, MirroredRigidNodeFlipsTheWinding) {
  // Scale -1 in x maps the quad onto itself with its winding reversed; the flip keeps it front-facing, and
  // both the transformed normals and the face normal still point at +Z.
  for (bool normals : {true, false}) {
    SCOPED_TRACE(normals ? "normals" : "face normal");
    QuadSpec spec;
    spec.normals = normals;
    spec.scale = Vec3(-1.0, 1.0, 1.0);
    const RenderResult mirrored = render_quad(quad_scene(spec), RenderView::Shaded);
    const Rgb8 lit = lit_quad_colour(kQuadColour, kQuadNdotL);
    expect_quad_image(mirrored, [&](const Vec2&) { return lit; });
    // From behind it is a back face, culled.
    EXPECT_EQ(covered_pixels(render_quad(quad_scene(spec), RenderView::Shaded, true).buffers), 0u);
  }
}

TEST(RenderQuad, TheWindingComesFromThePose) {
  QuadSpec spec;
  spec.animated_mirror = true;
  const Scene scene = quad_scene(spec);
  // At 1 s the node is mirrored by its animation: drawn with the pose, whose determinant is negative.
  const RenderResult posed = render_quad(scene, RenderView::Shaded, false, 0, 1.0);
  const Rgb8 lit = lit_quad_colour(kQuadColour, kQuadNdotL);
  expect_quad_image(posed, [&](const Vec2&) { return lit; });
  // The overload without a pose takes the rest pose's (positive) determinant: the mirrored triangles then
  // count as back faces and are culled, as documented.
  const EvaluatedPose pose = evaluate_pose(scene, 0, 1.0);
  RenderOptions options;
  options.width = kSize;
  options.height = kSize;
  const RenderResult rest = render_scene(scene, evaluate_vertices(scene, pose, {}), quad_camera(), options);
  EXPECT_EQ(covered_pixels(rest.buffers), 0u);
}

TEST(RenderQuad, NormalsView) {
  // n = (0, 0, 1) -> colour (0.5, 0.5, 1).
  const Rgb8 expected{encode_srgb8(0.5), encode_srgb8(0.5), 255};
  expect_quad_image(render_quad(quad_scene({}), RenderView::Normals), [&](const Vec2&) { return expected; });
  QuadSpec spec;
  spec.double_sided = true;
  const Rgb8 behind{encode_srgb8(0.5), encode_srgb8(0.5), 0};  // negated on the back face
  expect_quad_image(render_quad(quad_scene(spec), RenderView::Normals, true), [&](const Vec2&) { return behind; },
                    true);
}

TEST(RenderQuad, DepthView) {
  // look_at_camera: znear = d / 8, zfar = 8 d. The quad lies at view depth d, so z / w = zfar / (zfar - znear)
  // * (1 - znear / d), stored as float32; the colour is 1 - depth.
  const double znear = kEyeDistance * kLookAtNearFraction, zfar = kEyeDistance * kLookAtFarFactor;
  const double depth = static_cast<float>(zfar / (zfar - znear) * (1.0 - znear / kEyeDistance));
  const Rgb8 expected = encode(Vec3::Constant(1.0 - depth));
  const RenderResult result = render_quad(quad_scene({}), RenderView::Depth);
  expect_quad_image(result, [&](const Vec2&) { return expected; }, false, tol::kSnappedAttributeBytes);
  for (size_t p = 0; p < result.buffers.depth.size(); ++p) {
    if (result.buffers.triangle[p] == RasterBuffers::kNoTriangle) {
      EXPECT_EQ(result.buffers.depth[p], 1.0f);
    } else {
      EXPECT_NEAR(result.buffers.depth[p], depth, tol::kRasterDepth);
    }
  }
}

TEST(RenderQuad, WeightsViewInterpolatesTheStoredWeights) {
  QuadSpec spec;
  spec.skinned = true;
  const Scene scene = quad_scene(spec);
  // Joint 1's weight runs linearly from 0 at x = -1 to 1 at x = +1: (x + 1) / 2; joint 0 has the rest.
  expect_quad_image(render_quad(scene, RenderView::Weights, false, -1, 0.0, 1),
                    [](const Vec2& p) { return encode(heat_color((p.x() + 1.0) / 2.0)); }, false,
                    tol::kSnappedAttributeBytes);
  expect_quad_image(render_quad(scene, RenderView::Weights, false, -1, 0.0, 0),
                    [](const Vec2& p) { return encode(heat_color((1.0 - p.x()) / 2.0)); }, false,
                    tol::kSnappedAttributeBytes);
  // A joint that influences nothing, and a rigid node: weight 0, blue.
  const Rgb8 blue{0, 0, 255};
  expect_quad_image(render_quad(scene, RenderView::Weights, false, -1, 0.0, 7), [&](const Vec2&) { return blue; });
  expect_quad_image(render_quad(quad_scene({}), RenderView::Weights), [&](const Vec2&) { return blue; });
}

TEST(RenderQuad, BaseColourTexture) {
  QuadSpec spec;
  spec.textured = true;
  // uv (0, 0) is the top-left corner: the quadrants show red, green (top), blue, white (bottom), lit.
  expect_quad_image(render_quad(quad_scene(spec), RenderView::Shaded), [](const Vec2& p) {
    const bool right = p.x() > 0.0, top = p.y() > 0.0;
    const Vec3 texel = top ? (right ? Vec3(0.0, 1.0, 0.0) : Vec3(1.0, 0.0, 0.0))
                           : (right ? Vec3(1.0, 1.0, 1.0) : Vec3(0.0, 0.0, 1.0));
    return lit_quad_colour(texel, kQuadNdotL);
  });
}

// The filter ranges (RenderOptions::filter_sub_texel_bits): the image is the same bytes with or without them;
// every channel lies within its range; the range is the pixel itself where nothing LINEAR is sampled (the
// background, and the whole quad under NEAREST); with LINEAR the 2x2 texture's blends across the quad open
// ranges, and the widest is what 8 bits allow: at most one step of 1/256 per weight along each axis, so
// never more than 2/256 of the full range in linear terms, which is under 12.92 * 2/256 * 255 + 1 < 27 bytes
// after the sRGB encoding's steepest slope (the bound, not a figure expected).
TEST(RenderQuad, FilterRangesHoldTheImageAndOpenOnlyUnderLinearFiltering) {
  QuadSpec spec;
  spec.textured = true;
  Scene scene = quad_scene(spec);
  const EvaluatedPose pose = evaluate_pose(scene, -1, 0.0);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, {});
  RenderOptions options;
  options.width = kSize;
  options.height = kSize;
  for (const Filter filter : {Filter::Nearest, Filter::Linear}) {
    SCOPED_TRACE(filter == Filter::Nearest ? "NEAREST" : "LINEAR");
    scene.textures[0].sampler.mag_filter = filter;
    const RenderResult plain = render_scene(scene, pose, vertices, quad_camera(), options);
    RenderOptions ranged_options = options;
    ranged_options.filter_sub_texel_bits = 8;
    const RenderResult ranged = render_scene(scene, pose, vertices, quad_camera(), ranged_options);
    EXPECT_TRUE(plain.image_low.pixels.empty() && plain.image_high.pixels.empty());
    ASSERT_EQ(ranged.image.pixels, plain.image.pixels);
    ASSERT_EQ(ranged.image_low.pixels.size(), plain.image.pixels.size());
    ASSERT_EQ(ranged.image_high.pixels.size(), plain.image.pixels.size());
    size_t opened = 0;
    int widest = 0;
    for (size_t i = 0; i < plain.image.pixels.size(); ++i) {
      const int low = ranged.image_low.pixels[i], value = plain.image.pixels[i], high = ranged.image_high.pixels[i];
      ASSERT_LE(low, value) << "byte " << i;
      ASSERT_LE(value, high) << "byte " << i;
      const bool background = plain.buffers.triangle[i / 4] == RasterBuffers::kNoTriangle;
      if (background || filter == Filter::Nearest || i % 4 == 3) {
        ASSERT_EQ(low, high) << "byte " << i;
      }
      opened += low < high ? 1 : 0;
      widest = std::max(widest, high - low);
    }
    if (filter == Filter::Linear) {
      EXPECT_GT(opened, 100u);
      EXPECT_LT(widest, 27);
    }
  }
}

// ---- builtin:twist in every view ---------------------------------------------------------------------------

struct TwistRender {
  RenderResult result;
  size_t covered = 0;
};

TwistRender render_twist(RenderView view, double time, int threads, int weights_joint = 1) {
  const Scene scene = make_builtin_scene("twist");
  const EvaluatedPose pose = evaluate_pose(scene, 0, time);
  RenderOptions options;
  options.width = kSize;
  options.height = kSize;
  options.view = view;
  options.threads = threads;
  options.weights_joint = weights_joint;
  TwistRender twist;
  twist.result = render_scene(scene, pose, evaluate_vertices(scene, pose, {}), auto_camera(scene, 0, {}, 1.0), options);
  twist.covered = covered_pixels(twist.result.buffers);
  return twist;
}

const RenderView kEveryView[] = {RenderView::Shaded, RenderView::Normals, RenderView::Weights, RenderView::Depth};

TEST(RenderTwist, EveryViewDrawsTheObjectOnTheBackground) {
  const Rgb8 background = encode(kBackground);
  for (RenderView view : kEveryView) {
    SCOPED_TRACE(static_cast<int>(view));
    const TwistRender twist = render_twist(view, 0.5, 1);
    const RenderResult& result = twist.result;
    ASSERT_EQ(result.image.pixels.size(), size_t(kSize) * kSize * 4);
    ASSERT_EQ(result.buffers.triangle.size(), size_t(kSize) * kSize);
    // The cylinder (length 2, radius 0.25, framed by its bounding sphere) covers a good share of the frame.
    EXPECT_GT(twist.covered, size_t(kSize) * kSize / 20);
    EXPECT_LT(twist.covered, size_t(kSize) * kSize / 2);
    const uint32_t triangle_count = 32 * 24 * 2;
    for (size_t p = 0; p < result.buffers.triangle.size(); ++p) {
      const Rgb8 actual = pixel(result.image, int(p % kSize), int(p / kSize));
      EXPECT_EQ(result.image.pixels[4 * p + 3], 255);
      if (result.buffers.triangle[p] == RasterBuffers::kNoTriangle) {
        EXPECT_EQ(actual, background) << "pixel " << p;
      } else {
        EXPECT_LT(result.buffers.triangle[p], triangle_count);
      }
    }
    EXPECT_EQ(result.primitive_first_triangle, std::vector<uint32_t>{0});
    ASSERT_EQ(result.primitives.size(), 1u);
  }
}

TEST(RenderTwist, ShadedColoursLieBetweenAmbientAndFullLight) {
  const TwistRender twist = render_twist(RenderView::Shaded, 0.5, 1);
  const Vec3 base = make_builtin_scene("twist").materials[0].base_color_factor.head<3>();
  const Rgb8 darkest = encode(kAmbient * base), brightest = encode(base);
  int lowest_red = 255, highest_red = 0;
  for (size_t p = 0; p < twist.result.buffers.triangle.size(); ++p) {
    if (twist.result.buffers.triangle[p] == RasterBuffers::kNoTriangle) continue;
    const Rgb8 actual = pixel(twist.result.image, int(p % kSize), int(p / kSize));
    for (int c = 0; c < 3; ++c) {
      EXPECT_GE(actual[c], darkest[c]);
      EXPECT_LE(actual[c], brightest[c]);
    }
    lowest_red = std::min(lowest_red, actual[0]);
    highest_red = std::max(highest_red, actual[0]);
  }
  // A cylinder lit from above shows both its lit top and its darker flank.
  EXPECT_GT(highest_red - lowest_red, 40);
}

TEST(RenderTwist, DepthViewNearestPixelIsBrightest) {
  const TwistRender twist = render_twist(RenderView::Depth, 0.5, 1);
  const RasterBuffers& buffers = twist.result.buffers;
  size_t nearest = 0, farthest = 0;
  float nearest_depth = 2.0f, farthest_depth = -1.0f;
  for (size_t p = 0; p < buffers.triangle.size(); ++p) {
    if (buffers.triangle[p] == RasterBuffers::kNoTriangle) continue;
    EXPECT_GE(buffers.depth[p], 0.0f);
    EXPECT_LT(buffers.depth[p], 1.0f);
    if (buffers.depth[p] < nearest_depth) nearest_depth = buffers.depth[p], nearest = p;
    if (buffers.depth[p] > farthest_depth) farthest_depth = buffers.depth[p], farthest = p;
  }
  ASSERT_LT(nearest_depth, farthest_depth);
  const Rgb8 near_colour = pixel(twist.result.image, int(nearest % kSize), int(nearest / kSize));
  const Rgb8 far_colour = pixel(twist.result.image, int(farthest % kSize), int(farthest / kSize));
  EXPECT_GT(near_colour[0], far_colour[0]);
  EXPECT_EQ(near_colour, encode(Vec3::Constant(1.0 - nearest_depth)));
}

TEST(RenderTwist, WeightsViewShowsBothJoints) {
  // Joint 1 holds the far half (red), joint 0 the near half (blue): both extremes appear.
  const TwistRender twist = render_twist(RenderView::Weights, 0.0, 1, 1);
  bool red = false, blue = false;
  for (size_t p = 0; p < twist.result.buffers.triangle.size(); ++p) {
    if (twist.result.buffers.triangle[p] == RasterBuffers::kNoTriangle) continue;
    const Rgb8 actual = pixel(twist.result.image, int(p % kSize), int(p / kSize));
    red = red || actual == Rgb8{255, 0, 0};
    blue = blue || actual == Rgb8{0, 0, 255};
  }
  EXPECT_TRUE(red);
  EXPECT_TRUE(blue);
}

TEST(RenderTwist, ThreadCountDoesNotChangeAByte) {
  for (RenderView view : kEveryView) {
    SCOPED_TRACE(static_cast<int>(view));
    const TwistRender one = render_twist(view, 0.7, 1);
    const TwistRender three = render_twist(view, 0.7, 3);
    const auto same = [](const auto& a, const auto& b) {
      return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
    };
    EXPECT_TRUE(same(one.result.image.pixels, three.result.image.pixels));
    EXPECT_TRUE(same(one.result.buffers.triangle, three.result.buffers.triangle));
    EXPECT_TRUE(same(one.result.buffers.depth, three.result.buffers.depth));
    EXPECT_TRUE(same(one.result.buffers.barycentric, three.result.buffers.barycentric));
  }
}

// ---- triangle ids, numbering, arguments --------------------------------------------------------------------

// Every built-in scene in every view, at the middle of its animation with the auto camera: the object is on
// screen, every other pixel is exactly the background, and 1 and 2 threads give the same bytes. (builtin:million
// not under the sanitizers: support/sanitizer_workload.h.)
class RenderBuiltin : public ::testing::TestWithParam<std::string> {};

TEST_P(RenderBuiltin, EveryViewDrawsDeterministically) {
  if (test::once_under_sanitizers(GetParam()))
    GTEST_SKIP() << "builtin:million goes through this rasterizer under the sanitizers once, in GpuRenderMillionTest's "
                    "reference image; here each view took 11 s of CPU at two thread counts";
  const Scene scene = make_builtin_scene(GetParam());
  const double time = scene.animations[0].end_time / 2.0;
  const EvaluatedPose pose = evaluate_pose(scene, 0, time);
  const std::vector<WorldPrimitive> vertices = evaluate_vertices(scene, pose, {});
  const RenderCamera camera = auto_camera(scene, 0, {}, 1.0);
  const Rgb8 background = encode(kBackground);
  for (RenderView view : kEveryView) {
    SCOPED_TRACE(static_cast<int>(view));
    RenderOptions options;
    options.width = kSize;
    options.height = kSize;
    options.view = view;
    options.weights_joint = 0;
    const RenderResult one = render_scene(scene, pose, vertices, camera, options);
    options.threads = 2;
    const RenderResult two = render_scene(scene, pose, vertices, camera, options);
    EXPECT_GT(covered_pixels(one.buffers), 0u);
    for (size_t p = 0; p < one.buffers.triangle.size(); ++p) {
      if (one.buffers.triangle[p] == RasterBuffers::kNoTriangle) {
        EXPECT_EQ(pixel(one.image, int(p % kSize), int(p / kSize)), background) << "pixel " << p;
      }
    }
    ASSERT_EQ(one.image.pixels.size(), two.image.pixels.size());
    EXPECT_EQ(std::memcmp(one.image.pixels.data(), two.image.pixels.data(), one.image.pixels.size()), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(All, RenderBuiltin, ::testing::ValuesIn(builtin_scene_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(TriangleIdImage, EncodesIdPlusOneIn24Bits) {
  RasterBuffers buffers;
  buffers.width = 4;
  buffers.height = 1;
  buffers.triangle = {RasterBuffers::kNoTriangle, 0, 0x123456, kMaxEncodableTriangleId};
  const RgbaImage image = triangle_id_image(buffers);
  ASSERT_EQ(image.width, 4);
  ASSERT_EQ(image.height, 1);
  const std::vector<uint8_t> expected{0, 0, 0, 255, 0, 0, 1, 255, 0x12, 0x34, 0x57, 255, 0xff, 0xff, 0xff, 255};
  EXPECT_EQ(image.pixels, expected);
  buffers.triangle[1] = kMaxEncodableTriangleId + 1;
  EXPECT_THROW(triangle_id_image(buffers), std::range_error);
}

TEST(TriangleIdImage, DecodesToTheRasterizersIds) {
  const TwistRender twist = render_twist(RenderView::Shaded, 0.3, 1);
  const RgbaImage ids = triangle_id_image(twist.result.buffers);
  for (size_t p = 0; p < twist.result.buffers.triangle.size(); ++p) {
    const uint32_t value = (uint32_t(ids.pixels[4 * p]) << 16) | (uint32_t(ids.pixels[4 * p + 1]) << 8) |
                           uint32_t(ids.pixels[4 * p + 2]);
    EXPECT_EQ(value == 0 ? RasterBuffers::kNoTriangle : value - 1, twist.result.buffers.triangle[p]);
  }
}

TEST(RenderScene, TrianglesAreNumberedAcrossPrimitives) {
  // Three primitives: the quad (2 triangles), a point list (none drawn), the quad again moved behind the
  // first (2 triangles): ids 0-1, then 2-3; only the front quad's ids show.
  Scene scene = quad_scene({});
  Primitive points;
  points.topology = Topology::Points;
  points.positions = {Vec3::Zero()};
  points.indices = {0};
  Primitive behind = scene.meshes[0].primitives[0];
  for (Vec3& p : behind.positions) p.z() -= 0.5;
  scene.meshes[0].primitives.push_back(points);
  scene.meshes[0].primitives.push_back(behind);
  finalize_scene(scene);
  const RenderResult result = render_quad(scene, RenderView::Shaded);
  EXPECT_EQ(result.primitive_first_triangle, (std::vector<uint32_t>{0, 2, 2}));
  size_t covered = 0;
  for (uint32_t id : result.buffers.triangle) {
    if (id == RasterBuffers::kNoTriangle) continue;
    EXPECT_LT(id, 2u);
    ++covered;
  }
  EXPECT_GT(covered, 0u);
}

TEST(RenderScene, RefusesBadOptionsAndMismatchedPrimitives) {
  const Scene scene = quad_scene({});
  const EvaluatedPose pose = evaluate_pose(scene, -1, 0.0);
  const std::vector<WorldPrimitive> primitives = evaluate_vertices(scene, pose, {});
  RenderOptions options;
  options.width = 0;
  EXPECT_THROW(render_scene(scene, pose, primitives, quad_camera(), options), std::invalid_argument);
  options = RenderOptions();
  options.threads = 0;
  EXPECT_THROW(render_scene(scene, pose, primitives, quad_camera(), options), std::invalid_argument);
  options = RenderOptions();
  options.view = RenderView::Weights;
  options.weights_joint = -1;
  EXPECT_THROW(render_scene(scene, pose, primitives, quad_camera(), options), std::invalid_argument);
  std::vector<WorldPrimitive> wrong = primitives;
  wrong[0].vertices.positions.pop_back();
  EXPECT_THROW(render_scene(scene, pose, wrong, quad_camera(), RenderOptions()), std::invalid_argument);
  wrong = primitives;
  wrong[0].mesh = 3;
  EXPECT_THROW(render_scene(scene, pose, wrong, quad_camera(), RenderOptions()), std::invalid_argument);
}

// ---- PNG ---------------------------------------------------------------------------------------------------

RgbaImage gradient_image(int width, int height) {
  RgbaImage image;
  image.width = width;
  image.height = height;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      image.pixels.insert(image.pixels.end(), {uint8_t(x * 37 + y), uint8_t(y * 53), uint8_t((x ^ y) * 11),
                                               uint8_t(255 - x * 7)});
    }
  }
  return image;
}

TEST(Png, WriteReadRoundTrip) {
  TempDir dir;
  const RgbaImage image = gradient_image(13, 7);
  const std::string path = dir.file("image.png");
  write_png(image, path);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"image.png"});
  EXPECT_EQ(read_bytes(path).substr(1, 3), "PNG");
  const RgbaImage back = read_png(path);
  EXPECT_EQ(back.width, 13);
  EXPECT_EQ(back.height, 7);
  EXPECT_EQ(back.pixels, image.pixels);
  // Deterministic: the same image gives the same file.
  write_png(image, dir.file("again.png"));
  EXPECT_EQ(read_bytes(dir.file("again.png")), read_bytes(path));
}

TEST(Png, FailedWritesLeaveNoFile) {
  TempDir dir;
  const std::string missing = dir.file("no-such-directory/image.png");
  try {
    write_png(gradient_image(4, 4), missing);
    ADD_FAILURE() << "writing into a missing directory succeeded";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(missing), std::string::npos) << error.what();
  }
  EXPECT_TRUE(dir.entries().empty());

  // An inconsistent image is refused before anything is written; an earlier file stays as it was.
  const std::string path = dir.file("image.png");
  write_png(gradient_image(4, 4), path);
  const std::string before = read_bytes(path);
  RgbaImage broken = gradient_image(4, 4);
  broken.pixels.pop_back();
  EXPECT_THROW(write_png(broken, path), std::runtime_error);
  RgbaImage empty;
  EXPECT_THROW(write_png(empty, dir.file("empty.png")), std::runtime_error);
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"image.png"});
}

TEST(Png, ReadRefusesMissingAndNonPngFiles) {
  TempDir dir;
  EXPECT_THROW(read_png(dir.file("absent.png")), InputError);
  write_bytes(dir.file("text.png"), "not an image at all");
  EXPECT_THROW(read_png(dir.file("text.png")), InputError);
  // A PNG signature followed by garbage: stb_image's reason is reported.
  write_bytes(dir.file("truncated.png"), std::string("\x89PNG\r\n\x1a\n", 8) + "garbage");
  try {
    read_png(dir.file("truncated.png"));
    ADD_FAILURE() << "a broken PNG decoded";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("truncated.png"), std::string::npos) << error.what();
  }
}

// A minimal PNG writer, independent of stb: chunks with CRC-32, the image data in one stored (uncompressed)
// deflate block inside zlib framing with its Adler-32 (PNG specification; RFC 1950, 1951).
uint32_t crc32(const std::string& bytes) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char byte : bytes) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::string big_endian(uint32_t value) {
  return {char(value >> 24), char((value >> 16) & 0xff), char((value >> 8) & 0xff), char(value & 0xff)};
}

std::string png_chunk(const std::string& type, const std::string& data) {
  return big_endian(uint32_t(data.size())) + type + data + big_endian(crc32(type + data));
}

std::string grey_png(uint32_t width, uint32_t height, const std::string& grey_rows) {
  std::string raw;
  for (uint32_t y = 0; y < height; ++y) raw += '\0' + grey_rows.substr(y * width, width);  // filter type 0
  uint32_t a = 1, b = 0;
  for (unsigned char byte : raw) {
    a = (a + byte) % 65521u;
    b = (b + a) % 65521u;
  }
  const uint16_t length = uint16_t(raw.size());
  std::string zlib = "\x78\x01";
  zlib += '\x01';  // final block, stored
  zlib += {char(length & 0xff), char(length >> 8), char(~length & 0xff), char((~length >> 8) & 0xff)};
  zlib += raw + big_endian((b << 16) | a);
  const std::string header = big_endian(width) + big_endian(height) + std::string("\x08\x00\x00\x00\x00", 5);
  return std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", header) + png_chunk("IDAT", zlib) +
         png_chunk("IEND", "");
}

TEST(Png, ReadConvertsGreyToRgba) {
  TempDir dir;
  write_bytes(dir.file("grey.png"), grey_png(2, 2, std::string("\x0a\xc8\x00\xff", 4)));
  const RgbaImage image = read_png(dir.file("grey.png"));
  ASSERT_EQ(image.width, 2);
  ASSERT_EQ(image.height, 2);
  const std::vector<uint8_t> expected{10, 10, 10, 255, 200, 200, 200, 255, 0, 0, 0, 255, 255, 255, 255, 255};
  EXPECT_EQ(image.pixels, expected);
}

}  // namespace
}  // namespace skinref

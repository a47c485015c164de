// Cameras (camera.h): the Vulkan-convention perspective projection (depth range, y flip, field of view,
// infinite far plane), look_at, the glTF camera of a small scene (placement, dropped scale, refusals), the
// --camera specification parser, and the automatic camera (deterministic, every vertex of the animation in
// the frame, for several aspect ratios).
#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "io/builtin_scenes.h"
#include "raster/camera.h"
#include "skin/evaluate_vertices.h"
#include "support/math_expect.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::expect_matrix_near;
using test::expect_vec3_near;

constexpr double kPi = std::numbers::pi;

Vec4 point(const Vec3& p) { return Vec4(p.x(), p.y(), p.z(), 1.0); }

// ---- perspective and look_at -------------------------------------------------------------------------------

TEST(Perspective, NearPlaneToZeroFarPlaneToW) {
  const double znear = 0.25, zfar = 40.0;
  const Mat4 projection = perspective(0.9, 1.5, znear, zfar);
  const Vec4 at_near = projection * point(Vec3(0.1, -0.2, -znear));
  EXPECT_NEAR(at_near.z(), 0.0, tol::kClosedForm);
  EXPECT_NEAR(at_near.w(), znear, tol::kClosedForm);
  const Vec4 at_far = projection * point(Vec3(3.0, 2.0, -zfar));
  EXPECT_NEAR(at_far.z() / at_far.w(), 1.0, tol::kClosedForm);
  EXPECT_NEAR(at_far.w(), zfar, tol::kClosedForm);
  // Depth grows monotonically between them.
  const Vec4 middle = projection * point(Vec3(0.0, 0.0, -1.0));
  EXPECT_GT(middle.z() / middle.w(), 0.0);
  EXPECT_LT(middle.z() / middle.w(), 1.0);
}

TEST(Perspective, YIsFlippedForVulkan) {
  const Mat4 projection = perspective(0.9, 1.0, 0.1, 10.0);
  const Vec4 above = projection * point(Vec3(0.0, 1.0, -3.0));
  EXPECT_LT(above.y(), 0.0);  // above the axis: towards the top row, clip y = -w
  const Vec4 right = projection * point(Vec3(1.0, 0.0, -3.0));
  EXPECT_GT(right.x(), 0.0);
  EXPECT_GT(right.w(), 0.0);
}

TEST(Perspective, FieldOfViewAndAspectReachTheEdges) {
  const double yfov = 0.8, aspect = 2.0, depth = 5.0;
  const Mat4 projection = perspective(yfov, aspect, 0.1, 100.0);
  const double half_height = depth * std::tan(0.5 * yfov);
  const Vec4 top = projection * point(Vec3(0.0, half_height, -depth));
  EXPECT_NEAR(top.y() / top.w(), -1.0, tol::kClosedForm);
  const Vec4 right = projection * point(Vec3(aspect * half_height, 0.0, -depth));
  EXPECT_NEAR(right.x() / right.w(), 1.0, tol::kClosedForm);
}

TEST(Perspective, InfiniteFarPlane) {
  const double znear = 0.5;
  const Mat4 projection = perspective(1.0, 1.0, znear, 0.0);
  const Vec4 at_near = projection * point(Vec3(0.0, 0.0, -znear));
  EXPECT_NEAR(at_near.z(), 0.0, tol::kClosedForm);
  // z / w = 1 - znear / d: below 1 at any finite distance, approaching it.
  for (double d : {1.0, 10.0, 1e6}) {
    const Vec4 p = projection * point(Vec3(0.0, 0.0, -d));
    EXPECT_NEAR(p.z() / p.w(), 1.0 - znear / d, tol::kClosedForm) << d;
    EXPECT_LT(p.z() / p.w(), 1.0);
  }
}

TEST(LookAt, EyeToOriginTargetOntoMinusZ) {
  const Vec3 eye(1.0, 2.0, 3.0), target(-2.0, 0.5, 1.0);
  const Mat4 view = look_at(eye, target, Vec3::UnitY());
  expect_vec3_near((view * point(eye)).head<3>(), Vec3::Zero(), tol::kClosedForm);
  const double distance = (target - eye).norm();
  expect_vec3_near((view * point(target)).head<3>(), Vec3(0.0, 0.0, -distance), tol::kClosedForm);
  // A rigid transform (rotation, det +1), and world up stays up on screen.
  const Mat3 r = view.topLeftCorner<3, 3>();
  test::expect_matrix3_near(r * r.transpose(), Mat3::Identity(), tol::kClosedForm);
  EXPECT_NEAR(r.determinant(), 1.0, tol::kClosedForm);
  EXPECT_GT((r * Vec3::UnitY()).y(), 0.0);
  EXPECT_EQ(view.row(3), Eigen::RowVector4d(0.0, 0.0, 0.0, 1.0));
}

TEST(LookAtCamera, NearAndFarFollowTheDistance) {
  const Vec3 eye(0.0, 1.0, 4.0), target(0.0, 1.0, 0.0);
  const RenderCamera camera = look_at_camera(eye, target, 60.0, 1.25);
  expect_matrix_near(camera.projection, perspective(kPi / 3.0, 1.25, 4.0 * kLookAtNearFraction, 4.0 * kLookAtFarFactor),
                     tol::kClosedForm);
  expect_matrix_near(camera.view, look_at(eye, target, Vec3::UnitY()), 0.0);
  expect_vec3_near(camera.eye, eye, 0.0);
}

TEST(LookAtCamera, RefusesDegenerateViews) {
  EXPECT_THROW(look_at_camera(Vec3(1.0, 2.0, 3.0), Vec3(1.0, 2.0, 3.0), 45.0, 1.0), InputError);
  EXPECT_THROW(look_at_camera(Vec3(0.0, 5.0, 0.0), Vec3::Zero(), 45.0, 1.0), InputError);
  EXPECT_THROW(look_at_camera(Vec3(0.0, -5.0, 0.0), Vec3::Zero(), 45.0, 1.0), InputError);
  EXPECT_THROW(look_at_camera(Vec3(0.0, 0.0, 5.0), Vec3::Zero(), 0.0, 1.0), InputError);
  EXPECT_THROW(look_at_camera(Vec3(0.0, 0.0, 5.0), Vec3::Zero(), 180.0, 1.0), InputError);
}

// ---- glTF cameras ------------------------------------------------------------------------------------------

// Node 0 (no camera), node 1 holding camera 0 at (1, 2, 3) turned 90 degrees about +Y (so it looks down
// world -X) with scale `scale`, node 2 holding the orthographic camera 1; camera 2 is referenced by nothing.
Scene camera_scene(double scale) {
  Scene scene;
  scene.source = "test:cameras";
  Camera perspective_camera;
  perspective_camera.yfov = 0.7;
  perspective_camera.aspect_ratio = 3.0;  // replaced by the image's
  perspective_camera.znear = 0.1;
  perspective_camera.zfar = 50.0;
  Camera orthographic;
  orthographic.perspective = false;
  orthographic.xmag = 1.0;
  orthographic.ymag = 1.0;
  orthographic.znear = 0.0;
  orthographic.zfar = 10.0;
  scene.cameras = {perspective_camera, orthographic, perspective_camera};
  Node empty, viewer, ortho_viewer;
  viewer.camera = 0;
  viewer.rest.translation = Vec3(1.0, 2.0, 3.0);
  viewer.rest.rotation = Quat(Eigen::AngleAxisd(kPi / 2.0, Vec3::UnitY()));
  viewer.rest.scale = Vec3::Constant(scale);
  ortho_viewer.camera = 1;
  scene.nodes = {empty, viewer, ortho_viewer};
  scene.roots = {0, 1, 2};
  finalize_scene(scene);
  return scene;
}

TEST(GltfCamera, PlacedByItsNodeAtThePose) {
  for (double scale : {1.0, 2.5}) {
    SCOPED_TRACE(scale);
    const Scene scene = camera_scene(scale);
    const EvaluatedPose pose = evaluate_pose(scene, -1, 0.0);
    const RenderCamera camera = gltf_camera(scene, pose, 0, 1.5);
    expect_vec3_near(camera.eye, Vec3(1.0, 2.0, 3.0), tol::kClosedForm);
    // Rotating -Z by 90 degrees about +Y gives -X: a point 5 units along world -X from the eye is 5 units
    // straight ahead, whatever the node's scale; +Y stays up.
    expect_vec3_near((camera.view * point(Vec3(-4.0, 2.0, 3.0))).head<3>(), Vec3(0.0, 0.0, -5.0), tol::kClosedForm);
    expect_vec3_near((camera.view * point(Vec3(1.0, 3.0, 3.0))).head<3>(), Vec3(0.0, 1.0, 0.0), tol::kClosedForm);
    // The file's aspect ratio gives way to the image's.
    expect_matrix_near(camera.projection, perspective(0.7, 1.5, 0.1, 50.0), 0.0);
  }
}

TEST(GltfCamera, RefusesOrthographicUnreferencedAndMissingCameras) {
  const Scene scene = camera_scene(1.0);
  const EvaluatedPose pose = evaluate_pose(scene, -1, 0.0);
  EXPECT_THROW(gltf_camera(scene, pose, 1, 1.0), InputError);   // orthographic
  EXPECT_THROW(gltf_camera(scene, pose, 2, 1.0), InputError);   // no node uses it
  EXPECT_THROW(gltf_camera(scene, pose, 3, 1.0), InputError);   // does not exist
  EXPECT_THROW(gltf_camera(scene, pose, -1, 1.0), InputError);
  try {
    gltf_camera(scene, pose, 1, 1.0);
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("/cameras/1"), std::string::npos) << error.what();
  }
}

// ---- --camera ----------------------------------------------------------------------------------------------

TEST(ParseCameraSpec, AcceptsTheThreeForms) {
  EXPECT_EQ(parse_camera_spec("auto").kind, CameraSpec::Kind::Auto);
  const CameraSpec gltf = parse_camera_spec("gltf:3");
  EXPECT_EQ(gltf.kind, CameraSpec::Kind::Gltf);
  EXPECT_EQ(gltf.gltf_index, 3);
  const CameraSpec look = parse_camera_spec("1.5,-2,3e1:0,0.25,-1:60");
  EXPECT_EQ(look.kind, CameraSpec::Kind::LookAt);
  expect_vec3_near(look.eye, Vec3(1.5, -2.0, 30.0), 0.0);
  expect_vec3_near(look.target, Vec3(0.0, 0.25, -1.0), 0.0);
  EXPECT_EQ(look.fov_degrees, 60.0);
}

TEST(ParseCameraSpec, RefusesMalformedValuesNamingThem) {
  const std::vector<std::string> bad{
      "",           "Auto",          "gltf:",           "gltf:-1",          "gltf:x",          "gltf:1.5",
      "gltf: 1",    "1,2:0,0,0:45",  "1,2,3:0,0,0",     "1,2,3:0,0,0:45:1", "1,2,3:0,0,:45",   "1,2,3:0,0,0:0",
      "1,2,3:0,0,0:180", "1,2,3:0,0,0:-30", "1,2,3:1,2,3:45", "0,5,0:0,0,0:45", "1,2,3:0,0,0:nan", "1,2,3:0,0,0:inf",
      " 1,2,3:0,0,0:45", "1,2,3:0,0,0:45x", "1,2,3,4:0,0,0:45"};
  for (const std::string& text : bad) {
    SCOPED_TRACE("\"" + text + "\"");
    try {
      parse_camera_spec(text);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("--camera"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("\"" + text + "\""), std::string::npos) << error.what();
    }
  }
}

// ---- the automatic camera ----------------------------------------------------------------------------------

// Every vertex of `scene`'s animation at `times` lies inside the view volume of `camera`.
void expect_in_frame(const Scene& scene, int animation, const std::vector<double>& times, const RenderCamera& camera,
                     const SkinningOptions& options = {}) {
  const Mat4 clip_from_world = camera.projection * camera.view;
  size_t checked = 0;
  for (double time : times) {
    for (const WorldPrimitive& primitive : evaluate_vertices(scene, evaluate_pose(scene, animation, time), options)) {
      for (const Vec3& p : primitive.vertices.positions) {
        const Vec4 clip = clip_from_world * point(p);
        ASSERT_GT(clip.w(), 0.0);
        EXPECT_LE(std::abs(clip.x()), clip.w()) << "t " << time << " at " << p.transpose();
        EXPECT_LE(std::abs(clip.y()), clip.w()) << "t " << time << " at " << p.transpose();
        EXPECT_GE(clip.z(), 0.0) << "t " << time << " at " << p.transpose();
        EXPECT_LE(clip.z(), clip.w()) << "t " << time << " at " << p.transpose();
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(AutoCamera, DeterministicAndLooksFromTheFixedDirection) {
  const Scene scene = make_builtin_scene("twist");
  const RenderCamera first = auto_camera(scene, 0, {}, 1.0);
  const RenderCamera second = auto_camera(scene, 0, {}, 1.0);
  EXPECT_EQ(first.view, second.view);
  EXPECT_EQ(first.projection, second.projection);
  EXPECT_EQ(first.eye, second.eye);
  // The eye lies on the line from the framed centre along kAutoCameraDirection: the view's -Z axis (third
  // row of the rotation, negated) is the direction from the eye back to the centre.
  const Vec3 back = first.view.block<1, 3>(2, 0).transpose();
  expect_vec3_near(back, kAutoCameraDirection, tol::kClosedForm);
  // builtin:twist spans x in [0, 2] about the X axis at every time: the centre is (1, 0, 0).
  const Vec3 centre = first.eye - back * (first.eye - Vec3(1.0, 0.0, 0.0)).norm();
  expect_vec3_near(centre, Vec3(1.0, 0.0, 0.0), tol::kFloatInput);
}

TEST(AutoCamera, EveryVertexOfTheAnimationIsInTheFrame) {
  for (const char* name : {"twist", "bend", "chain64", "eight-influences", "node-transforms"}) {
    const Scene scene = make_builtin_scene(name);
    const double end = scene.animations[0].end_time;
    // The sample times themselves, and for the twist (whose vertices never leave the cylinder's radius about
    // the axis) times in between as well.
    std::vector<double> times;
    for (int i = 0; i < kAutoCameraSamples; ++i) times.push_back(i * end / (kAutoCameraSamples - 1));
    if (std::string(name) == "twist") {
      for (int i = 0; i < 40; ++i) times.push_back((i + 0.5) * end / 40.0);
    }
    for (double aspect : {1.0, 16.0 / 9.0, 0.4}) {
      SCOPED_TRACE(std::string(name) + " aspect " + std::to_string(aspect));
      expect_in_frame(scene, 0, times, auto_camera(scene, 0, {}, aspect));
    }
  }
}

TEST(AutoCamera, RestPoseAndDqsFrameToo) {
  const Scene scene = make_builtin_scene("bend");
  expect_in_frame(scene, -1, {0.0}, auto_camera(scene, -1, {}, 1.0));
  SkinningOptions dqs;
  dqs.method = SkinningMethod::Dqs;
  std::vector<double> times;
  for (int i = 0; i < kAutoCameraSamples; ++i) times.push_back(i * 1.0 / (kAutoCameraSamples - 1));
  expect_in_frame(scene, 0, times, auto_camera(scene, 0, dqs, 1.0), dqs);
}

TEST(AutoCamera, EmptySceneGetsAUsableCamera) {
  Scene scene;
  scene.source = "test:empty";
  finalize_scene(scene);
  const RenderCamera camera = auto_camera(scene, -1, {}, 1.0);
  EXPECT_TRUE(camera.view.allFinite());
  EXPECT_TRUE(camera.projection.allFinite());
  // A unit sphere at the origin is framed.
  expect_vec3_near(camera.eye, kAutoCameraDirection / std::sin(0.5 * kAutoCameraFov), tol::kClosedForm);
}

}  // namespace
}  // namespace skinref

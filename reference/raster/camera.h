// Cameras for rendering: view and projection matrices in Vulkan's clip convention (see raster.h).
//
// Contract:
// - World space is glTF's (right-handed, +Y up); a camera looks down its local -Z with +Y up.
// - perspective(): a right-handed perspective projection with vertical field of view `yfov` (radians),
//   aspect = width / height, mapping view-space depth -znear -> z = 0 and -zfar -> z = w (zfar = 0: infinite,
//   z / w -> 1 at infinity), with clip y flipped (clip y = -w is the top of the image).
// - auto_camera(): frames the scene's bounds over the whole animation: the skinned world positions of every
//   drawn primitive at kAutoCameraSamples times evenly spread over [0, end_time] (the rest pose when
//   animation == -1), enclosed in a sphere (centre = bounding-box centre, radius = farthest vertex); the eye
//   looks at the centre from the fixed direction kAutoCameraDirection at the distance where the sphere fits
//   the vertical and horizontal fields of view, yfov = kAutoCameraFov; znear/zfar bracket the sphere
//   (distance -+ radius, each widened by kAutoCameraDepthMargin x radius). Nothing to frame (no vertex, or
//   a single point): radius 1.
//   Deterministic and the same for every frame of a clip, so frames can be compared.
// - auto_camera_of_pose(): the same framing around one given pose's skinned vertices (a pose no clip
//   samples, such as the bind pose).
// - gltf_camera(): camera `index` of the scene, placed by the first node (lowest index) that references it,
//   at the given pose; perspective cameras only (orthographic ones are refused with InputError); the image
//   aspect ratio replaces the file's; any scale in the node's global transform is dropped (its -Z and +Y axes
//   are orthonormalized), so znear/zfar stay in scene units.
// - look_at_camera(): eye, target, vertical fov in degrees, +Y up (refused when the view direction is
//   parallel to +Y or eye == target); znear = kLookAtNearFraction x |target - eye|, zfar = kLookAtFarFactor x
//   |target - eye|.
#pragma once

#include "core/pose.h"
#include "skin/options.h"

#include <string>

namespace skinref {

struct RenderCamera {
  Mat4 view = Mat4::Identity();        // world -> view
  Mat4 projection = Mat4::Identity();  // view -> clip
  Vec3 eye = Vec3::Zero();
};

inline constexpr int kAutoCameraSamples = 16;
inline constexpr double kAutoCameraFov = 0.7853981633974483;  // 45 degrees
inline const Vec3 kAutoCameraDirection = Vec3(0.6, 0.35, 1.0).normalized();  // from the centre to the eye
inline constexpr double kAutoCameraDepthMargin = 0.05;  // x radius, beyond the sphere on both sides
inline constexpr double kLookAtNearFraction = 0.125;
inline constexpr double kLookAtFarFactor = 8.0;

Mat4 perspective(double yfov, double aspect, double znear, double zfar);
Mat4 look_at(const Vec3& eye, const Vec3& target, const Vec3& up);

RenderCamera auto_camera(const Scene& scene, int animation, const SkinningOptions& options, double aspect);
RenderCamera auto_camera_of_pose(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options,
                                 double aspect);
RenderCamera gltf_camera(const Scene& scene, const EvaluatedPose& pose, int index, double aspect);
RenderCamera look_at_camera(const Vec3& eye, const Vec3& target, double yfov_degrees, double aspect);

// Parses the --camera value: "auto", "gltf:N" or "EX,EY,EZ:TX,TY,TZ:FOV"; throws InputError naming the value.
struct CameraSpec {
  enum class Kind { Auto, Gltf, LookAt } kind = Kind::Auto;
  int gltf_index = -1;
  Vec3 eye = Vec3::Zero(), target = Vec3::Zero();
  double fov_degrees = 45.0;
};
CameraSpec parse_camera_spec(const std::string& text);

}  // namespace skinref

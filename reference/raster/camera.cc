// Cameras for rendering (camera.h): Vulkan-convention perspective projections, look-at views, the automatic
// framing camera, glTF cameras and the --camera specification.
#include "raster/camera.h"

#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "skin/evaluate_vertices.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
namespace {

// The view matrix of a camera at `eye` whose orthonormal axes (right, up, back = -forward) are the columns
// of a rotation R: the inverse of [R | eye], i.e. [R^T | -R^T eye].
Mat4 view_from_axes(const Vec3& eye, const Vec3& right, const Vec3& up, const Vec3& back) {
  Mat4 view = Mat4::Identity();
  const Vec3 axes[3] = {right, up, back};
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) view(row, col) = axes[row][col];
    view(row, 3) = -((axes[row].x() * eye.x() + axes[row].y() * eye.y()) + axes[row].z() * eye.z());
  }
  return view;
}

[[noreturn]] void bad_camera_spec(const std::string& text, const std::string& why) {
  throw InputError("--camera", "",
                   "expected auto, gltf:N or EX,EY,EZ:TX,TY,TZ:FOV (FOV in degrees, 0 < FOV < 180), got \"" +
                       text + "\"" + (why.empty() ? std::string() : ": " + why));
}

// Splits on `separator`, keeping empty fields (so that "1,,2" is refused as a missing number).
std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> fields;
  size_t begin = 0;
  while (true) {
    const size_t end = text.find(separator, begin);
    fields.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return fields;
    begin = end + 1;
  }
}

// A finite double, the whole field consumed (std::from_chars: no locale, no leading space or '+').
bool parse_double(const std::string& field, double* value) {
  if (field.empty()) return false;
  const char* first = field.data();
  const char* last = first + field.size();
  const auto result = std::from_chars(first, last, *value);
  return result.ec == std::errc() && result.ptr == last && std::isfinite(*value);
}

bool parse_vec3(const std::string& field, Vec3* value) {
  const std::vector<std::string> parts = split(field, ',');
  if (parts.size() != 3) return false;
  for (int i = 0; i < 3; ++i) {
    if (!parse_double(parts[size_t(i)], &(*value)[i])) return false;
  }
  return true;
}

// Why look_at_camera() refuses eye/target/fov, or "" when they are usable.
std::string look_at_problem(const Vec3& eye, const Vec3& target, double yfov_degrees) {
  if (!(yfov_degrees > 0.0 && yfov_degrees < 180.0)) return "the field of view must lie strictly between 0 and 180";
  const Vec3 forward = target - eye;
  if (!forward.allFinite()) return "eye and target must be finite";
  if (forward.squaredNorm() == 0.0) return "eye and target coincide";
  // Parallel to +Y (either way): the up vector +Y gives no horizontal axis.
  if (forward.x() == 0.0 && forward.z() == 0.0) return "the view direction is parallel to +Y (the up vector)";
  return "";
}

}  // namespace

Mat4 perspective(double yfov, double aspect, double znear, double zfar) {
  const double f = 1.0 / std::tan(0.5 * yfov);
  Mat4 m = Mat4::Zero();
  m(0, 0) = f / aspect;
  m(1, 1) = -f;  // Vulkan's framebuffer y grows downwards: a point above the axis gets clip y < 0
  if (zfar == 0.0) {
    // The limit zfar -> infinity of the finite case below.
    m(2, 2) = -1.0;
    m(2, 3) = -znear;
  } else {
    // z_clip = A z + B with w = -z: z = -znear -> 0, z = -zfar -> w.
    m(2, 2) = zfar / (znear - zfar);
    m(2, 3) = znear * zfar / (znear - zfar);
  }
  m(3, 2) = -1.0;
  return m;
}

Mat4 look_at(const Vec3& eye, const Vec3& target, const Vec3& up) {
  const Vec3 forward = (target - eye).normalized();
  const Vec3 right = forward.cross(up).normalized();
  const Vec3 true_up = right.cross(forward);
  return view_from_axes(eye, right, true_up, -forward);
}

namespace {

// The camera of auto_camera()'s contract around the vertices `for_each_vertex(visit)` visits (twice: the
// bounding box, then the farthest vertex from its centre).
template <class ForEachVertex>
RenderCamera frame_vertices(const ForEachVertex& for_each_vertex, double aspect) {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 hi = -lo;
  for_each_vertex([&](const Vec3& p) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  });
  Vec3 centre = Vec3::Zero();
  double radius = 0.0;
  if (lo.x() <= hi.x()) {
    centre = 0.5 * (lo + hi);
    for_each_vertex([&](const Vec3& p) { radius = std::max(radius, (p - centre).norm()); });
  }
  // Nothing to frame (no vertices, or all in one point): a unit sphere keeps the camera usable.
  if (!(radius > 0.0)) radius = 1.0;

  // The sphere fits a cone of half-angle a at distance r / sin(a); the narrower field of view decides.
  const double half_vertical = 0.5 * kAutoCameraFov;
  const double half_horizontal = std::atan(aspect * std::tan(half_vertical));
  const double distance = radius / std::sin(std::min(half_vertical, half_horizontal));

  RenderCamera camera;
  camera.eye = centre + kAutoCameraDirection * distance;
  camera.view = look_at(camera.eye, centre, Vec3::UnitY());
  // Every vertex lies at a view depth in [distance - r, distance + r]; the margin keeps rounding away from the
  // clipping planes. distance >= r / sin(22.5 deg) > 2.6 r, so znear stays positive.
  const double margin = kAutoCameraDepthMargin * radius;
  camera.projection = perspective(kAutoCameraFov, aspect, distance - radius - margin, distance + radius + margin);
  return camera;
}

}  // namespace

RenderCamera auto_camera(const Scene& scene, int animation, const SkinningOptions& options, double aspect) {
  if (animation < -1 || animation >= int(scene.animations.size())) {
    throw std::invalid_argument("auto_camera: animation " + std::to_string(animation) + " out of range");
  }
  // Two passes over the sample times (the bounding box, then the farthest vertex from its centre) rather than
  // keeping every frame: 16 frames of builtin:million would hold hundreds of megabytes.
  const int samples = animation < 0 ? 1 : kAutoCameraSamples;
  const double end = animation < 0 ? 0.0 : scene.animations[size_t(animation)].end_time;
  auto for_each_vertex = [&](auto&& visit) {
    for (int i = 0; i < samples; ++i) {
      const double time = samples == 1 ? 0.0 : double(i) * end / double(samples - 1);
      for (const WorldPrimitive& primitive : evaluate_vertices(scene, evaluate_pose(scene, animation, time), options)) {
        for (const Vec3& p : primitive.vertices.positions) visit(p);
      }
    }
  };
  return frame_vertices(for_each_vertex, aspect);
}

RenderCamera auto_camera_of_pose(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options,
                                 double aspect) {
  const std::vector<WorldPrimitive> primitives = evaluate_vertices(scene, pose, options);
  auto for_each_vertex = [&](auto&& visit) {
    for (const WorldPrimitive& primitive : primitives)
      for (const Vec3& p : primitive.vertices.positions) visit(p);
  };
  return frame_vertices(for_each_vertex, aspect);
}

RenderCamera gltf_camera(const Scene& scene, const EvaluatedPose& pose, int index, double aspect) {
  const std::string path = "/cameras/" + std::to_string(index);
  if (index < 0 || index >= int(scene.cameras.size())) {
    throw InputError(scene.source, "", "camera " + std::to_string(index) + " does not exist; the file has " +
                                           std::to_string(scene.cameras.size()) + " camera(s)");
  }
  const Camera& source = scene.cameras[size_t(index)];
  if (!source.perspective) {
    throw InputError(scene.source, path, "a perspective camera; orthographic cameras are not supported for rendering");
  }
  int node = -1;
  for (size_t n = 0; n < scene.nodes.size() && node < 0; ++n) {
    if (scene.nodes[n].camera == index) node = int(n);
  }
  if (node < 0) throw InputError(scene.source, path, "a node that references this camera; none does");

  // The camera looks down the node's -Z with +Y up; scale in the node's global transform is dropped
  // (Gram-Schmidt on -Z then +Y), so that depths stay in metres for znear/zfar.
  const Mat4& global = pose.model.global[size_t(node)];
  const Vec3 eye = global.block<3, 1>(0, 3);
  const Vec3 back = global.block<3, 1>(0, 2).normalized();
  const Vec3 y_axis = global.block<3, 1>(0, 1);
  const Vec3 up = (y_axis - back * back.dot(y_axis)).normalized();
  const Vec3 right = up.cross(back);
  if (!back.allFinite() || !up.allFinite() || !(right.squaredNorm() > 0.0)) {
    throw InputError(scene.source, "/nodes/" + std::to_string(node),
                     "a camera node transform with non-degenerate Y and Z axes");
  }
  RenderCamera camera;
  camera.eye = eye;
  camera.view = view_from_axes(eye, right, up, back);
  camera.projection = perspective(source.yfov, aspect, source.znear, source.zfar);
  return camera;
}

RenderCamera look_at_camera(const Vec3& eye, const Vec3& target, double yfov_degrees, double aspect) {
  const std::string problem = look_at_problem(eye, target, yfov_degrees);
  if (!problem.empty()) throw InputError("--camera", "", problem);
  const double distance = (target - eye).norm();
  RenderCamera camera;
  camera.eye = eye;
  camera.view = look_at(eye, target, Vec3::UnitY());
  camera.projection = perspective(yfov_degrees * (std::numbers::pi / 180.0), aspect, distance * kLookAtNearFraction,
                                  distance * kLookAtFarFactor);
  return camera;
}

CameraSpec parse_camera_spec(const std::string& text) {
  CameraSpec spec;
  if (text == "auto") return spec;
  if (text.rfind("gltf:", 0) == 0) {
    const std::string digits = text.substr(5);
    int index = -1;
    const char* first = digits.data();
    const char* last = first + digits.size();
    const auto result = std::from_chars(first, last, index);
    if (digits.empty() || result.ec != std::errc() || result.ptr != last || index < 0) {
      bad_camera_spec(text, "N must be a camera index >= 0");
    }
    spec.kind = CameraSpec::Kind::Gltf;
    spec.gltf_index = index;
    return spec;
  }
  const std::vector<std::string> fields = split(text, ':');
  if (fields.size() != 3 || !parse_vec3(fields[0], &spec.eye) || !parse_vec3(fields[1], &spec.target) ||
      !parse_double(fields[2], &spec.fov_degrees)) {
    bad_camera_spec(text, "");
  }
  const std::string problem = look_at_problem(spec.eye, spec.target, spec.fov_degrees);
  if (!problem.empty()) bad_camera_spec(text, problem);
  spec.kind = CameraSpec::Kind::LookAt;
  return spec;
}

}  // namespace skinref

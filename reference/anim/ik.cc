// IK post-processing (ik.h): two-bone and aim solvers in world space, and the subtree update that keeps the
// ModelPose consistent with the edited LocalPose.
//
// World-space rotations are moved into a node's local rotation through the rotation part Rp of its parent's
// global matrix (columns normalized): a world delta Q becomes local' = (Rp^T Q Rp) * local, which turns the
// node's global linear part L into Q * L whenever the parent's linear part is a (possibly mirrored) rotation
// times a uniform scale. The conjugation Rp^T Q Rp is a proper rotation even for a mirrored parent.
#include "anim/ik.h"

#include "anim/sampling.h"
#include "core/input_error.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace skinref {
namespace {

[[noreturn]] void fail(const Scene& scene, const std::string& message) {
  throw InputError(scene.source, "", message);
}

std::string node_label(const Scene& scene, int node) {
  std::string label = "node " + std::to_string(node);
  if (node >= 0 && size_t(node) < scene.nodes.size() && !scene.nodes[size_t(node)].name.empty())
    label += " (\"" + scene.nodes[size_t(node)].name + "\")";
  return label;
}

std::string vec_text(const Vec3& v) {
  return "(" + std::to_string(v.x()) + ", " + std::to_string(v.y()) + ", " + std::to_string(v.z()) + ")";
}

void check_pose_sizes(const Scene& scene, const LocalPose& local, const ModelPose& model, const char* what) {
  if (local.local.size() != scene.nodes.size() || model.global.size() != scene.nodes.size())
    fail(scene, std::string(what) + ": a local and a model pose with one entry per node (" +
                    std::to_string(scene.nodes.size()) + "), got " + std::to_string(local.local.size()) + " and " +
                    std::to_string(model.global.size()));
}

// `role` is "root", "middle", ... or empty.
void check_node(const Scene& scene, int node, const char* what, const std::string& role) {
  if (node < 0 || size_t(node) >= scene.nodes.size())
    fail(scene, std::string(what) + ": a node index < " + std::to_string(scene.nodes.size()) +
                    (role.empty() ? "" : " as the " + role) + ", got " + std::to_string(node));
}

void check_weight(const Scene& scene, double weight, const char* what) {
  if (!(weight >= 0.0 && weight <= 1.0))  // also refuses NaN
    fail(scene, std::string(what) + ": weight in [0, 1], got " + std::to_string(weight));
}

void check_finite(const Scene& scene, const Vec3& v, const char* what, const char* role) {
  if (!v.allFinite()) fail(scene, std::string(what) + ": a finite " + role + ", got " + vec_text(v));
}

bool is_strict_descendant(const Scene& scene, int node, int ancestor) {
  for (int p = scene.nodes[size_t(node)].parent; p >= 0; p = scene.nodes[size_t(p)].parent)
    if (p == ancestor) return true;
  return false;
}

Vec3 position(const ModelPose& model, int node) { return model.global[size_t(node)].block<3, 1>(0, 3); }

// The rotation part of the parent's global matrix (identity for a root): its columns normalized.
Mat3 parent_rotation(const Scene& scene, const ModelPose& model, int node, const char* what) {
  const int parent = scene.nodes[size_t(node)].parent;
  if (parent < 0) return Mat3::Identity();
  Mat3 r = model.global[size_t(parent)].topLeftCorner<3, 3>();
  for (int c = 0; c < 3; ++c) {
    const double length = r.col(c).norm();
    if (!(length > 0.0) || !std::isfinite(length))
      fail(scene, std::string(what) + ": the parent of " + node_label(scene, node) +
                      " with a non-singular, finite global matrix");
    r.col(c) /= length;
  }
  return r;
}

// A unit vector perpendicular to the unit vector u: the coordinate axis least aligned with u, made orthogonal.
Vec3 any_perpendicular(const Vec3& u) {
  const Vec3 a = u.cwiseAbs();
  const Vec3 e = a.x() <= a.y() && a.x() <= a.z() ? Vec3::UnitX() : (a.y() <= a.z() ? Vec3::UnitY() : Vec3::UnitZ());
  return (e - e.dot(u) * u).normalized();
}

// The part of v perpendicular to the unit vector u, normalized; false when it is shorter than
// kIkParallel * |v| (v is zero or parallel to u).
bool perpendicular_part(const Vec3& v, const Vec3& u, Vec3* out) {
  const Vec3 p = v - v.dot(u) * u;
  const double length = p.norm();
  if (!(length > tol::kIkParallel * v.norm())) return false;
  *out = p / length;
  return true;
}

// The rotation by the angle between unit vectors u and v (at most 90 degrees apart) about u x v.
Mat3 small_arc(const Vec3& u, const Vec3& v) {
  const Vec3 axis = u.cross(v);
  const double s = axis.norm();
  if (s == 0.0) return Mat3::Identity();
  return Eigen::AngleAxisd(std::atan2(s, u.dot(v)), axis / s).toRotationMatrix();
}

// The shortest-arc rotation taking the direction of `from` to that of `to`. Beyond 90 degrees the axis u x v
// is ill-conditioned, so the arc is composed as a half turn about that axis (u -> -u) followed by the small
// arc -u -> v: the same rotation, but v is hit accurately even when u x v is pure rounding. For (nearly)
// opposite directions the half turn is about `fallback_axis` (made perpendicular to u), any axis being a
// shortest arc there.
Mat3 shortest_arc(const Vec3& from, const Vec3& to, const Vec3& fallback_axis) {
  const Vec3 u = from.normalized();
  const Vec3 v = to.normalized();
  if (u.dot(v) >= 0.0) return small_arc(u, v);
  // u x v re-orthogonalized against u: its own rounding, divided by a small |u x v|, would tilt the axis.
  const Vec3 cross = u.cross(v);
  Vec3 axis;
  if (!(cross.norm() > tol::kIkParallel) || !perpendicular_part(cross, u, &axis)) {
    if (!perpendicular_part(fallback_axis, u, &axis)) axis = any_perpendicular(u);
  }
  const Mat3 half_turn = 2.0 * axis * axis.transpose() - Mat3::Identity();
  // The small arc starts from where the half turn actually took u, so the composite lands on v.
  return small_arc((half_turn * u).normalized(), v) * half_turn;
}

Quat rotation_to_quat(const Mat3& r) { return Quat(r).normalized(); }

// local' = (Rp^T Q Rp) * local: the node's global linear part becomes Q times what it was.
Quat apply_world_delta(const Mat3& parent_rot, const Mat3& world_delta, const Quat& local) {
  const Quat delta = rotation_to_quat(parent_rot.transpose() * world_delta * parent_rot);
  return (delta * local.normalized()).normalized();
}

}  // namespace

void update_subtree(const Scene& scene, const LocalPose& local, int node, ModelPose& model) {
  check_pose_sizes(scene, local, model, "update_subtree");
  check_node(scene, node, "update_subtree", "");
  std::vector<char> in_subtree(scene.nodes.size(), 0);
  in_subtree[size_t(node)] = 1;
  // node_order is parents first, so a node's flag is known before its children are reached; the same
  // operations as local_to_model, hence the same bits.
  for (int n : scene.node_order) {
    const int parent = scene.nodes[size_t(n)].parent;
    if (n != node) {
      if (parent < 0 || !in_subtree[size_t(parent)]) continue;
      in_subtree[size_t(n)] = 1;
    }
    const Mat4 m = compose_trs(local.local[size_t(n)]);
    model.global[size_t(n)] = parent < 0 ? m : multiply_affine(model.global[size_t(parent)], m);
  }
}

void apply_two_bone_ik(const Scene& scene, const TwoBoneIk& ik, LocalPose& local, ModelPose& model) {
  const char* what = "two-bone IK";
  check_pose_sizes(scene, local, model, what);
  check_node(scene, ik.root, what, "root");
  check_node(scene, ik.middle, what, "middle");
  check_node(scene, ik.end, what, "end");
  if (!is_strict_descendant(scene, ik.middle, ik.root))
    fail(scene, std::string(what) + ": the middle " + node_label(scene, ik.middle) + " below the root " +
                    node_label(scene, ik.root));
  if (!is_strict_descendant(scene, ik.end, ik.middle))
    fail(scene, std::string(what) + ": the end " + node_label(scene, ik.end) + " below the middle " +
                    node_label(scene, ik.middle));
  check_weight(scene, ik.weight, what);
  if (!(ik.soft > 0.0 && ik.soft <= 1.0))
    fail(scene, std::string(what) + ": soft in (0, 1], got " + std::to_string(ik.soft));
  check_finite(scene, ik.target, what, "target");
  check_finite(scene, ik.pole, what, "pole");

  const Vec3 a = position(model, ik.root);
  const Vec3 b = position(model, ik.middle);
  const Vec3 c = position(model, ik.end);
  const double l1 = (b - a).norm();
  const double l2 = (c - b).norm();
  if (!(l1 > 0.0) || !(l2 > 0.0) || !std::isfinite(l1) || !std::isfinite(l2))
    fail(scene, std::string(what) + ": bones of non-zero, finite length, got |middle - root| = " +
                    std::to_string(l1) + ", |end - middle| = " + std::to_string(l2));
  if (ik.weight == 0.0) return;  // nothing changes, bit for bit

  // Direction and (clamped, softened) distance to the target. A target at the root keeps the current reach
  // direction.
  const Vec3 to_target = ik.target - a;
  const double raw = to_target.norm();
  Vec3 dir;
  if (raw > 0.0) {
    dir = to_target / raw;
  } else {
    const Vec3 reach = (c - a).norm() > 0.0 ? Vec3(c - a) : Vec3(b - a);
    dir = reach.normalized();
  }
  const double full = l1 + l2;
  double d = raw;
  const double soft_start = ik.soft * full;
  if (ik.soft < 1.0 && d > soft_start) {
    const double span = full - soft_start;
    d = soft_start + span * (1.0 - std::exp(-(d - soft_start) / span));
  }
  d = std::clamp(d, std::abs(l1 - l2), full);

  // Bend direction n: in the plane of root, target and pole, perpendicular to dir, towards the pole; else the
  // middle's current side; else any perpendicular (a straight chain along dir with a collinear pole).
  Vec3 n;
  if (!perpendicular_part(ik.pole - a, dir, &n) && !perpendicular_part(b - a, dir, &n)) n = any_perpendicular(dir);
  const Vec3 plane_normal = dir.cross(n);

  // Law of cosines: the middle's offset x along dir and h along n.
  const double x = d > 0.0 ? (l1 * l1 + d * d - l2 * l2) / (2.0 * d) : 0.0;
  const double h = std::sqrt(std::max(0.0, l1 * l1 - x * x));
  const Vec3 b_solved = a + x * dir + h * n;
  const Vec3 t_solved = a + d * dir;

  const Quat old_root = local.local[size_t(ik.root)].rotation;
  const Quat old_middle = local.local[size_t(ik.middle)].rotation;

  const Mat3 root_parent = parent_rotation(scene, model, ik.root, what);
  const Quat root_solved =
      apply_world_delta(root_parent, shortest_arc(b - a, b_solved - a, plane_normal), old_root);
  local.local[size_t(ik.root)].rotation = root_solved;
  update_subtree(scene, local, ik.root, model);

  // The middle as it now is (equal to b_solved up to rounding), and the end carried along with it.
  const Vec3 b_now = position(model, ik.middle);
  const Vec3 c_now = position(model, ik.end);
  const Mat3 middle_parent = parent_rotation(scene, model, ik.middle, what);
  const Quat middle_solved =
      apply_world_delta(middle_parent, shortest_arc(c_now - b_now, t_solved - b_now, plane_normal), old_middle);
  local.local[size_t(ik.middle)].rotation = middle_solved;

  if (ik.weight < 1.0) {
    local.local[size_t(ik.root)].rotation = slerp_short(old_root, root_solved, ik.weight);
    local.local[size_t(ik.middle)].rotation = slerp_short(old_middle, middle_solved, ik.weight);
    update_subtree(scene, local, ik.root, model);
  } else {
    update_subtree(scene, local, ik.middle, model);
  }
}

void apply_aim_ik(const Scene& scene, const AimIk& ik, LocalPose& local, ModelPose& model) {
  const char* what = "aim IK";
  check_pose_sizes(scene, local, model, what);
  check_node(scene, ik.joint, what, "joint");
  check_weight(scene, ik.weight, what);
  check_finite(scene, ik.forward, what, "forward axis");
  check_finite(scene, ik.up, what, "up axis");
  check_finite(scene, ik.target, what, "target");
  check_finite(scene, ik.pole, what, "pole");
  if (!(ik.forward.norm() > 0.0)) fail(scene, std::string(what) + ": a non-zero forward axis");
  const Vec3 f = ik.forward.normalized();
  Vec3 u;
  if (!perpendicular_part(ik.up, f, &u))
    fail(scene, std::string(what) + ": an up axis not parallel to the forward axis, got forward " +
                    vec_text(ik.forward) + ", up " + vec_text(ik.up));
  const Vec3 p = position(model, ik.joint);
  const Vec3 to_target = ik.target - p;
  if (!(to_target.norm() > 0.0))
    fail(scene, std::string(what) + ": a target away from " + node_label(scene, ik.joint) + ", which is at " +
                    vec_text(p));
  if (ik.weight == 0.0) return;  // nothing changes, bit for bit

  const Vec3 F = to_target.normalized();
  const Mat3 parent = parent_rotation(scene, model, ik.joint, what);
  const Quat old = local.local[size_t(ik.joint)].rotation;
  // World up: the pole's part perpendicular to F; for a pole along F, the joint's current up; for a current up
  // along F, any perpendicular.
  Vec3 U;
  if (!perpendicular_part(ik.pole, F, &U) &&
      !perpendicular_part(parent * rotation_matrix(old.normalized()) * u, F, &U))
    U = any_perpendicular(F);

  // Desired world frame: f -> F, u -> U. A mirrored parent mirrors the joint too, so its third axis maps to
  // det(Rp) F x U, which keeps the local rotation proper.
  const double mirror = parent.determinant() < 0.0 ? -1.0 : 1.0;
  Mat3 world, axes;
  world << F, U, mirror * F.cross(U);
  axes << f, u, f.cross(u);
  const Quat solved = rotation_to_quat(parent.transpose() * world * axes.transpose());
  local.local[size_t(ik.joint)].rotation = ik.weight < 1.0 ? slerp_short(old, solved, ik.weight) : solved;
  update_subtree(scene, local, ik.joint, model);
}

}  // namespace skinref

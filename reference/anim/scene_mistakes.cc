#include "anim/scene_mistakes.h"

namespace skinref {
namespace {

// One stored quaternion (x, y, z, w) as the mistaken reader takes it.
void misread(double* xyzw, const Mistakes& mistakes) {
  if (mistakes.quaternion_order == QuaternionOrder::Wxyz) {
    const double w = xyzw[0], x = xyzw[1], y = xyzw[2], z = xyzw[3];
    xyzw[0] = x, xyzw[1] = y, xyzw[2] = z, xyzw[3] = w;
  }
  if (mistakes.rotations == RotationSense::Conjugated)
    for (int c = 0; c < 3; ++c) xyzw[c] = -xyzw[c];
}

void misread_rotations(Scene& scene, const Mistakes& mistakes) {
  for (Node& node : scene.nodes) {
    double xyzw[4] = {node.rest.rotation.x(), node.rest.rotation.y(), node.rest.rotation.z(), node.rest.rotation.w()};
    misread(xyzw, mistakes);
    node.rest.rotation = quat_from_xyzw(xyzw[0], xyzw[1], xyzw[2], xyzw[3]).normalized();
  }
  for (Animation& animation : scene.animations)
    for (const AnimationChannel& channel : animation.channels) {
      if (channel.path != ChannelPath::Rotation) continue;
      AnimationSampler& sampler = animation.samplers[size_t(channel.sampler)];
      for (size_t at = 0; at + 4 <= sampler.values.size(); at += 4) misread(&sampler.values[at], mistakes);
    }
}

void negate_z(Vec3& v) { v.z() = -v.z(); }

void negate_mesh_z(Scene& scene) {
  for (Mesh& mesh : scene.meshes)
    for (Primitive& prim : mesh.primitives) {
      for (Vec3& p : prim.positions) negate_z(p);
      for (Vec3& n : prim.normals) negate_z(n);
      for (Vec4& t : prim.tangents) t.z() = -t.z();
      for (MorphTarget& target : prim.targets) {
        for (Vec3& d : target.position_deltas) negate_z(d);
        for (Vec3& d : target.normal_deltas) negate_z(d);
        for (Vec3& d : target.tangent_deltas) negate_z(d);
      }
    }
}

}  // namespace

void apply_scene_mistakes(Scene& scene, const Mistakes& mistakes) {
  const bool rotations = mistakes.quaternion_order != QuaternionOrder::Xyzw ||
                         mistakes.rotations != RotationSense::AsStored;
  if (rotations) misread_rotations(scene, mistakes);
  if (mistakes.handedness == Handedness::MeshZNegated) negate_mesh_z(scene);
  if (rotations) finalize_scene(scene);
}

}  // namespace skinref

// Deterministic synthetic scenes for the benchmarks (bench/*.cc), built in memory, never loaded.
//
// Contract:
// - make_animation_bench_scene(joints): `joints` >= 1 nodes forming a branching tree (node j's parent is
//   bench_joint_parent(j) < j: chains that branch every 6th joint), each 0.25 along its parent's y with a
//   small rest rotation, and two looping LINEAR clips: "sway" (4 keys over 1 s) and "twist" (5 keys over
//   1.6 s), each with a rotation channel on every joint and a translation channel on the root and on every
//   branch start, values from fixed formulas. No mesh.
// - make_skinning_bench_scene(vertices, influences): the same kind of skeleton with kSkinningBenchJoints
//   joints, one clip "bench" (keys at 0, 0.4, 1 s) with rotation and translation channels on every joint
//   whose values differ from the rest pose at every time, so that the pose at kSkinningBenchTime has a
//   non-trivial rotation and translation in every joint (DQS and LBS do real work); inverse bind matrices
//   are the inverse rest globals. One skinned node holds one primitive of exactly `vertices` vertices
//   (positions and normals, no tangents, no texture coordinates, no indices: it is skinned, never drawn)
//   with `influences` (1, 2, 4 or 8) influences per vertex: distinct joints, weights that are multiples of
//   1/256 (exact in float32 and double) summing to exactly 1. Positions are float32-representable, normals
//   unit length to double rounding. Vertex v depends only on v, so any vertex count gives the same first
//   vertices.
// - 1 and 2 influences are not whole glTF JOINTS_n sets, which finalize_scene() refuses; every skinning
//   backend's skinning accepts any count (SkinningInput, prepare_cpu_skinning, gpu_evaluate_vertices), so the vertex
//   arrays are attached after finalize_scene() has validated the rest, their joints in range by
//   construction. Such a scene cannot be exported as glTF.
// - Cost: linear in vertices x influences, about 150 bytes per vertex at 8 influences (16M x 8 in a few
//   seconds and 2.4 GB).
// - SkinningBenchFixture keeps at most one skinning scene alive: asking for another (vertices, influences)
//   frees the previous one first, so benchmarks registered size by size never hold two large scenes. It also
//   keeps, for the current scene, one backend's skinning job (Backend::prepare_skinning(), inputs converted
//   and uploaded once) for one method at a time.
// Invalid arguments (joints < 1, vertices < 1 or >= 2^32, influences not in {1, 2, 4, 8}) throw
// std::invalid_argument.
#pragma once

#include "backend/backend.h"
#include "core/pose.h"
#include "core/scene.h"

#include <cstddef>
#include <memory>

namespace skinref::bench {

inline constexpr int kSkinningBenchJoints = 64;
inline constexpr double kSkinningBenchTime = 0.5;

int bench_joint_parent(int joint);  // -1 for joint 0

Scene make_animation_bench_scene(int joints);
Scene make_skinning_bench_scene(size_t vertices, int influences);

// The skinning scene posed at kSkinningBenchTime, with where its one skinned primitive is.
struct SkinningBenchScene {
  size_t vertices = 0;
  int influences = 0;
  Scene scene;
  EvaluatedPose pose;
  const Primitive& primitive() const;
};

class SkinningBenchFixture {
 public:
  // The scene for (vertices, influences), built on first request; the previous scene (and its CPU inputs)
  // is freed before a different one is built.
  const SkinningBenchScene& scene(size_t vertices, int influences);
  // backend.prepare_skinning() of the scene for (vertices, influences) with `method` (default options
  // otherwise: one thread, as-stored weights), prepared on first request; a job of another backend or method
  // is freed first. `backend` must outlive the job (the next request, or the fixture).
  SkinningJob& job(Backend& backend, size_t vertices, int influences, SkinningMethod method);
  // Frees the job and the scene. main() calls it before the Vulkan context goes (release_vulkan_context()):
  // a Vulkan job's buffers belong to that context's device.
  void release();

 private:
  std::unique_ptr<SkinningBenchScene> scene_;
  std::unique_ptr<SkinningJob> job_;
  const Backend* job_backend_ = nullptr;
  SkinningMethod job_method_ = kDefaultSkinningMethod;
};

// The process's one fixture.
SkinningBenchFixture& skinning_bench_fixture();

}  // namespace skinref::bench

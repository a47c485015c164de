// The walk both vertex bound models share (vertex_error_bounds.cc: skinref's order; any_order_vertex_bounds.cc:
// any order): the checks of their inputs, each skin's palette entries made once, and per drawn primitive
// (evaluate_vertices() order) a PrimitiveWalk handed to the model's per-vertex bound, on options.threads
// threads (parallel_ranges.h), the result independent of the count.
//
// Contract:
// - make_entry(jm, normal, palette_error, normal_error, blend, source) -> Entry: one palette entry as the
//   model's engine holds it, with what the method's PaletteBlend (skin/method.h) needs; the error pointers are
//   null for the reference's palette rounded to float32. A rigid node's one entry is its global matrix, with no
//   normal bound (the engine derives its normal rows), for kRigidNodeMethod. `source` (PaletteEntrySource) says
//   what a skin's entry JM = G * IBM was made of, for a model that bounds it through its joint's global matrix
//   (any order: the lever arm); empty for a rigid node and for the reference's palette.
// - make_weight(value, error) -> Weight: a morph target's weight, `error` < 0 for the reference's weight
//   rounded to float32, else the engine's own weight within `error`; is_zero(weight): an exact zero, whose
//   target is skipped.
// - bound_vertex(const PrimitiveWalk&, size_t vertex, Scratch&) fills walk.out for that vertex; Scratch is
//   default-constructed once per thread range (no per-vertex allocation).
// - Inputs that do not belong together (pose, palette bounds, palettes, influences, joint indices) throw
//   std::invalid_argument prefixed with `who`.
#pragma once

#include "core/parallel_ranges.h"
#include "core/pose.h"
#include "core/scene.h"
#include "skin/options.h"
#include "verify/pose_error_bounds.h"
#include "verify/primitive_error_bounds.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref::detail {

// A skin's palette entry JM = G * IBM as the engine made it: its joint's global matrix (the reference's value
// and the engine's bound on it, column-major like Mat4::data()) and the inverse bind matrix the file stores.
struct PaletteEntrySource {
  const Mat4* global = nullptr;
  const std::array<double, 16>* global_error = nullptr;
  const Mat4* inverse_bind = nullptr;
};

// What a vertex's position needs of a palette entry's source (PaletteEntrySource): the joint's global matrix's
// entrywise error |G^ - G|, and the inverse bind matrix as the engine holds it, IBM^ (float32 of the stored
// value: its rows 0..2; row 3 is 0 0 0 1), with that rounding |IBM^ - IBM|.
struct JointLeverArm {
  bool known = false;  // a skin's entry of an engine's own palette
  double global_error[3][4] = {};
  double inverse_bind[3][4] = {};
  double inverse_bind_error[3][4] = {};
};

// Known only where the entry `jm` is G * IBM (to kLeverPaletteMatch of its magnitude): a convention that forms
// the palette otherwise (skeleton-ancestors=dropped, joint-cap=N) keeps the entry's own bound.
inline constexpr double kLeverPaletteMatch = 1e-12;

inline JointLeverArm joint_lever_arm(const PaletteEntrySource& source, const Mat4& jm) {
  JointLeverArm arm;
  if (!source.global || !source.global_error || !source.inverse_bind) return arm;
  const Mat4 product = (*source.global) * (*source.inverse_bind);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      if (!(std::abs(product(r, c) - jm(r, c)) <= kLeverPaletteMatch * (1.0 + std::abs(jm(r, c))))) return arm;
  arm.known = true;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      const double stored = (*source.inverse_bind)(r, c), rounded = double(static_cast<float>(stored));
      arm.global_error[r][c] = (*source.global_error)[size_t(c * 4 + r)];
      arm.inverse_bind[r][c] = stored;
      arm.inverse_bind_error[r][c] = std::abs(rounded - stored);
    }
  return arm;
}

// The global's error where it reaches a vertex: |(G^ - G) IBM^ p^| <= |G^ - G| |IBM^ p^| row by row, with
// IBM^ p^ the vertex in the joint's frame, known within |IBM^| e_p + |IBM^ - IBM| |p| of IBM p (p: the exact
// position, e_p: its error, p_float >= |p^| componentwise). `at_vertex[j]` is that bound; `magnitude[j]`,
// |G^ - G| (|IBM^| p_float, 1), what the error adds to the float operands of the sums it enters (their rounding).
inline void lever_at_vertex(const JointLeverArm& arm, const double p[3], const double p_error[3],
                            const double p_float[3], double at_vertex[3], double magnitude[3]) {
  double in_joint[3], in_joint_float[3];
  for (int k = 0; k < 3; ++k) {
    double exact = arm.inverse_bind[k][3], spread = arm.inverse_bind_error[k][3];
    double float_magnitude = std::abs(arm.inverse_bind[k][3]) + spread;
    for (int c = 0; c < 3; ++c) {
      const double ibm = std::abs(arm.inverse_bind[k][c]) + arm.inverse_bind_error[k][c];
      exact += arm.inverse_bind[k][c] * p[c];
      spread += ibm * p_error[c] + arm.inverse_bind_error[k][c] * std::abs(p[c]);
      float_magnitude += ibm * p_float[c];
    }
    in_joint[k] = std::abs(exact) + spread;
    in_joint_float[k] = float_magnitude;
  }
  for (int j = 0; j < 3; ++j) {
    at_vertex[j] = magnitude[j] = arm.global_error[j][3];
    for (int k = 0; k < 3; ++k) {
      at_vertex[j] += arm.global_error[j][k] * in_joint[k];
      magnitude[j] += arm.global_error[j][k] * in_joint_float[k];
    }
  }
}

template <class Weight>
struct ActiveTarget {
  const MorphTarget* target;
  Weight weight;
};

template <class Entry, class Weight>
struct PrimitiveWalk {
  const Primitive* prim = nullptr;
  const Entry* entries = nullptr;  // the skin's palette, or the rigid node's one entry
  bool rigid = false;
  SkinningMethod method = kRigidNodeMethod;  // rigid nodes: always kRigidNodeMethod
  bool renormalize = false;
  bool blend_normal_matrices = false;
  std::vector<ActiveTarget<Weight>> targets;
  PrimitiveErrorBounds* out = nullptr;
};

// The smallest number of vertices worth a thread of its own.
inline constexpr size_t kBoundVerticesPerThread = 4096;

template <class Entry, class Weight, class Scratch, class MakeEntry, class MakeWeight, class IsZero, class BoundVertex>
std::vector<PrimitiveErrorBounds> walk_vertex_bounds(const std::string& who, const Scene& scene,
                                                     const EvaluatedPose& reference_pose, const SkinningOptions& options,
                                                     const PoseErrorBounds* palette_bounds, MakeEntry make_entry,
                                                     MakeWeight make_weight, IsZero is_zero, BoundVertex bound_vertex) {
  auto fail = [&](const std::string& what) { throw std::invalid_argument(who + ": " + what); };
  if (reference_pose.palettes.size() != scene.skins.size() ||
      reference_pose.model.global.size() != scene.nodes.size() ||
      reference_pose.local.morph_weights.size() != scene.nodes.size())
    fail("the pose does not belong to the scene");
  if (palette_bounds && (palette_bounds->palettes.size() != scene.skins.size() ||
                         palette_bounds->global.size() != scene.nodes.size() ||
                         palette_bounds->morph_weights.size() != scene.nodes.size()))
    fail("the palette bounds do not belong to the scene");
  if (options.threads < 1) fail("threads must be >= 1");

  // Every skin's palette entries once (the polar decompositions of dual quaternion blends included).
  const PaletteBlend blend = skinning_method_descriptor(options.method).palette;
  std::vector<std::vector<Entry>> skin_entries(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const JointPalette& palette = reference_pose.palettes[s];
    if (palette.skinning.size() != scene.skins[s].joints.size() || palette.normal.size() != palette.skinning.size() ||
        (palette_bounds && (palette_bounds->palettes[s].skinning.size() != palette.skinning.size() ||
                            palette_bounds->palettes[s].normal.size() != palette.skinning.size())))
      fail("a palette does not match its skin");
    const Skin& skin = scene.skins[s];
    for (size_t j = 0; j < palette.skinning.size(); ++j) {
      PaletteEntrySource source;
      if (palette_bounds && j < skin.joints.size() && j < skin.inverse_bind.size()) {
        const size_t joint = size_t(skin.joints[j]);
        source = {&reference_pose.model.global[joint], &palette_bounds->global[joint], &skin.inverse_bind[j]};
      }
      skin_entries[s].push_back(make_entry(palette.skinning[j], palette.normal[j],
                                           palette_bounds ? &palette_bounds->palettes[s].skinning[j] : nullptr,
                                           palette_bounds ? &palette_bounds->palettes[s].normal[j] : nullptr,
                                           blend, source));
    }
  }

  std::vector<PrimitiveErrorBounds> result;
  for (int n : drawn_nodes(scene)) {
    const Node& node = scene.nodes[size_t(n)];
    const bool rigid = node.skin < 0;
    Entry rigid_entry{};
    if (rigid) {
      // One palette entry, the node's global matrix, with weight 1, for kRigidNodeMethod (as the reference).
      const Mat4& global = reference_pose.model.global[size_t(n)];
      rigid_entry = make_entry(global, normal_matrix(global.topLeftCorner<3, 3>()),
                               palette_bounds ? &palette_bounds->global[size_t(n)] : nullptr, nullptr,
                               skinning_method_descriptor(kRigidNodeMethod).palette, PaletteEntrySource{});
    }
    const std::vector<double>& morph_weights = reference_pose.local.morph_weights[size_t(n)];
    for (const Primitive& prim : scene.meshes[size_t(node.mesh)].primitives) {
      const size_t count = prim.vertex_count();
      PrimitiveWalk<Entry, Weight> walk;
      walk.prim = &prim;
      walk.rigid = rigid;
      walk.entries = rigid ? &rigid_entry : skin_entries[size_t(node.skin)].data();
      walk.method = rigid ? kRigidNodeMethod : options.method;
      walk.renormalize = options.weights == WeightPolicy::Renormalize;
      walk.blend_normal_matrices = options.normals == NormalMode::BlendedNormalMatrices;
      for (size_t t = 0; t < prim.targets.size() && t < morph_weights.size(); ++t) {
        double error = -1.0;
        if (palette_bounds) {
          const std::vector<double>& weight_errors = palette_bounds->morph_weights[size_t(n)];
          if (t >= weight_errors.size()) fail("missing morph weight bounds");
          error = weight_errors[t];  // the engine's weights are floats already
        }
        const Weight weight = make_weight(morph_weights[t], error);
        if (!is_zero(weight)) walk.targets.push_back({&prim.targets[t], weight});
      }
      if (!rigid) {
        const size_t k = size_t(prim.influences_per_vertex);
        if (k < 1 || prim.joints.size() != count * k || prim.weights.size() != count * k)
          fail("inconsistent influence sizes");
        for (uint32_t j : prim.joints)
          if (j >= skin_entries[size_t(node.skin)].size()) fail("joint index outside the palette");
      }
      PrimitiveErrorBounds bounds;
      bounds.position.resize(count);
      bounds.normal.resize(prim.normals.empty() ? 0 : count);
      bounds.tangent.resize(prim.tangents.empty() ? 0 : count);
      walk.out = &bounds;
      for_each_range(count, options.threads, kBoundVerticesPerThread, [&](size_t begin, size_t end) {
        Scratch scratch{};
        for (size_t v = begin; v < end; ++v) bound_vertex(walk, v, scratch);
      });
      result.push_back(std::move(bounds));
    }
  }
  return result;
}

}  // namespace skinref::detail

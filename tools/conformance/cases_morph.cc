// The cases of glTF 2.0 section 3.7.2.2 (Morph Targets) and the morph weights of 3.7.4 and 3.11: default
// weights, many targets, the order of morphing and skinning, and animated weights. Each morphs the skinned
// ribbon of case_kit.h by metres, so that a target left out or applied in the wrong place shows far above
// the bounds.
#include "conformance/case_kit.h"
#include "conformance/cases.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace skinref::conformance {
namespace {

constexpr double kMorphCaseSegment = 4.0;

// Target t of `count` moves vertex v by a displacement that depends on both, of up to 3 m, so that any two
// targets move the ribbon differently and every target moves every vertex.
std::vector<double> target_deltas(size_t vertex_count, int t, int count) {
  std::vector<double> deltas;
  for (size_t v = 0; v < vertex_count; ++v) {
    const double phase = 2.0 * kPi * double(t) / double(count) + 0.3 * double(v);
    deltas.insert(deltas.end(), {f32(1.5 * std::cos(phase)), f32(3.0 * std::sin(phase)), f32(0.5 * double(t % 3))});
  }
  return deltas;
}

// Target 0's POSITION as a sparse accessor without bufferView: zeros but for kSparseMoved vertices, each
// moved by kSparseDelta.
const std::vector<uint32_t> kSparseMoved = {1, 6, 11};
const std::vector<double> kSparseDelta = {2.0, -3.0, 1.0};

int sparse_target_positions(GltfBuilder& b, size_t vertex_count) {
  std::vector<double> values, dense(vertex_count * 3, 0.0);
  for (uint32_t v : kSparseMoved)
    for (int c = 0; c < 3; ++c) {
      values.push_back(kSparseDelta[size_t(c)]);
      dense[v * 3 + size_t(c)] = kSparseDelta[size_t(c)];
    }
  const int accessor = b.add_accessor("target 0 sparse", "VEC3", {}, {}, SparseValues{kSparseMoved, ComponentType::U8, values},
                                      vertex_count);
  // 3.6.2.5: a sparse accessor's min and max are those of the values after substitution.
  std::vector<double> low(3, 0.0), high(3, 0.0);
  for (size_t i = 0; i < dense.size(); ++i) {
    low[i % 3] = std::min(low[i % 3], dense[i]);
    high[i % 3] = std::max(high[i % 3], dense[i]);
  }
  b.json()["accessors"][size_t(accessor)]["min"] = f32_array(low);
  b.json()["accessors"][size_t(accessor)]["max"] = f32_array(high);
  return accessor;
}

// How target 0's POSITION deltas are stored.
enum class FirstTarget { Dense, SparseWithoutView, AtByteOffset, Strided };

int first_target_positions(GltfBuilder& b, size_t vertex_count, int count, FirstTarget storage) {
  AccessorLayout after_two_deltas;
  after_two_deltas.leading_padding = 24;
  AccessorLayout strided;
  strided.byte_stride = 20;  // 12 bytes of delta, 8 of other data
  switch (storage) {
    case FirstTarget::Dense: return b.add_positions("target 0", target_deltas(vertex_count, 0, count));
    case FirstTarget::SparseWithoutView: return sparse_target_positions(b, vertex_count);
    case FirstTarget::AtByteOffset:
      return b.add_positions("target 0", target_deltas(vertex_count, 0, count), after_two_deltas);
    case FirstTarget::Strided: return b.add_positions("target 0", target_deltas(vertex_count, 0, count), strided);
  }
  return -1;
}

// The skinned ribbon on a 3-joint chain with `count` morph targets (target_deltas; target 0 stored as `first`
// says), mesh.weights if given, and the root joint swinging 90 degrees over one second. Returns the ribbon node.
struct MorphRig {
  SkinnedChain rig;
  int mesh = -1;
};
MorphRig build_morphed_ribbon(GltfBuilder& b, int count, const std::vector<double>& mesh_weights,
                              FirstTarget first = FirstTarget::Dense) {
  MorphRig m;
  m.rig.chain = add_chain(b, "joint", 3, kMorphCaseSegment);
  const Ribbon ribbon = make_ribbon(3, kMorphCaseSegment, 2, 0.5, true);
  nlohmann::ordered_json primitive = skinned_ribbon_primitive(b, "ribbon", ribbon);
  nlohmann::ordered_json targets = nlohmann::ordered_json::array();
  for (int t = 0; t < count; ++t)
    targets.push_back({{"POSITION", t == 0 ? first_target_positions(b, ribbon.vertex_count(), count, first)
                                           : b.add_positions("target " + std::to_string(t),
                                                             target_deltas(ribbon.vertex_count(), t, count))}});
  primitive["targets"] = targets;
  nlohmann::ordered_json mesh = {{"name", "ribbon"}, {"primitives", {primitive}}};
  if (!mesh_weights.empty()) mesh["weights"] = f32_array(mesh_weights);
  m.mesh = b.add_mesh(mesh);
  m.rig.skin = add_skin(b, "chain", m.rig.chain.joints, chain_rest_globals(3, kMorphCaseSegment, Mat4::Identity()));
  m.rig.mesh_node = b.add_node({{"name", "ribbon"}, {"mesh", m.mesh}, {"skin", m.rig.skin}});
  b.set_scene_roots({m.rig.chain.joints[0], m.rig.mesh_node});
  return m;
}

ChannelSpec root_swing(const MorphRig& m) {
  return {m.rig.chain.joints[0], "rotation", "LINEAR", {0.0, 1.0},
          concat({axis_angle_xyzw(kAxisZ, 0.0), axis_angle_xyzw(kAxisZ, kPi / 2)})};
}

ConformanceCase mesh_default_weights() {
  ConformanceCase c;
  c.id = "morph-mesh-default-weights";
  c.title = "mesh.weights morph the ribbon when nothing animates the weights";
  c.section = "3.7.2.2 Morph Targets";
  c.rule = "A mesh with morph targets MAY also define an optional mesh.weights property that stores the default "
           "targets' weights. These weights MUST be used when node.weights is undefined.";
  c.targets = {{"G1", {"morph-defaults=ignored"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 2, {0.5, 0.75});
    add_animation(b, "swing", {root_swing(m)});
  };
  return c;
}

ConformanceCase node_weights_override() {
  ConformanceCase c;
  c.id = "morph-node-weights-override";
  c.title = "node.weights take the place of mesh.weights";
  c.section = "3.7.4 Instantiation";
  c.rule = "When an instantiated mesh has morph targets, it MUST use morph weights specified with the node.weights "
           "property. When the latter is undefined, mesh.weights property MUST be used instead.";
  c.targets = {{"G1", {"morph-defaults=ignored"}}, {"G1", {"morph-defaults=mesh"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 2, {0.25, 0.75});
    b.json()["nodes"][size_t(m.rig.mesh_node)]["weights"] = f32_array({1.0, -0.5});
    add_animation(b, "swing", {root_swing(m)});
  };
  return c;
}

ConformanceCase nine_targets() {
  ConformanceCase c;
  c.id = "morph-nine-targets";
  c.title = "Nine targets, all of them weighted at once";
  c.section = "3.7.2.2 Morph Targets";
  c.rule = "The number of morph targets is not limited. Client implementations SHOULD support at least eight "
           "morphed attributes.";
  c.targets = {{"G2", {"morph-targets=8"}}, {"G2", {"morph-targets=4"}}, {"G2", {"morph-targets=0"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 9, {});
    std::vector<double> weights;
    for (int key = 0; key < 2; ++key)
      for (int t = 0; t < 9; ++t) weights.push_back(f32(key == 0 ? 0.1 * (t + 1) : 0.9 - 0.08 * t));
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, weights}});
  };
  return c;
}

ConformanceCase morph_then_skin() {
  ConformanceCase c;
  c.id = "morph-before-skinning";
  c.title = "A morph along y under a joint turned 90 degrees: morphed first, then skinned";
  c.section = "3.7.2.2 Morph Targets";
  c.rule = "Displacements for POSITION, NORMAL, and TANGENT attributes MUST be applied before any transformation "
           "matrices affecting the mesh vertices such as skinning or node transforms.";
  c.targets = {{"G4", {"morph-order=after-skinning"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 1, {});
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, {0.0, 1.0}}});
  };
  return c;
}

ConformanceCase cubic_weights() {
  ConformanceCase c;
  c.id = "morph-weights-cubic-spline";
  c.title = "CUBICSPLINE weights of three targets: tangents and values grouped per key";
  c.section = "3.11 Animations";
  c.rule = "When used with CUBICSPLINE interpolation, tangents (a_k, b_k) and values (v_k) are grouped within "
           "keyframes: a_1,a_2,...a_n,v_1,v_2,...v_n,b_1,b_2,...b_n";
  c.targets = {{"S4", {"cubic=unscaled-tangents"}}, {"S5", {"cubic=linear"}}, {"S7", {"cubic-weights=per-target"}}};
  c.times = {0.0, 0.125, 0.25, 0.5, 1.0, 1.5, 2.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 3, {});
    // Keys at 0, 0.5 and 2 s; per key the three in-tangents, the three values, the three out-tangents.
    const std::vector<double> weights = {0, 0, 0, 0.0, 0.5, 1.0, 2.0, -1.0, 0.5,   //
                                         1.0, 0.5, -2.0, 1.0, 0.25, 0.0, -1.5, 1.0, 2.0,  //
                                         0.5, -0.5, 1.0, 0.25, 1.0, 0.5, 0, 0, 0};
    add_animation(b, "morph", {{m.rig.mesh_node, "weights", "CUBICSPLINE", {0.0, 0.5, 2.0}, weights}});
  };
  return c;
}

// `count` NORMAL deltas that turn (0, 0, 1) into (1, 0, 1) / |.|: the morphed normal tilted 45 degrees about y at
// weight 1 (glTF adds the deltas; the renormalized sum is the tilted unit vector).
std::vector<double> tilt_deltas(size_t count) {
  std::vector<double> deltas;
  for (size_t i = 0; i < count; ++i) deltas.insert(deltas.end(), {f32(std::sqrt(0.5)), 0.0, f32(std::sqrt(0.5) - 1.0)});
  return deltas;
}

// Target 0's NORMAL of the rig's primitive: the accessor `add` makes for the primitive's vertex count.
void set_target_normals(GltfBuilder& b, const MorphRig& m, const std::function<int(size_t)>& add) {
  nlohmann::ordered_json& primitive = b.json()["meshes"][size_t(m.mesh)]["primitives"][0];
  const size_t vertex_count = b.json()["accessors"][size_t(primitive["attributes"]["POSITION"])]["count"];
  primitive["targets"][0]["NORMAL"] = add(vertex_count);
}

ConformanceCase normal_deltas() {
  ConformanceCase c;
  c.id = "morph-normal-deltas";
  c.title = "A target that tilts the normals by 45 degrees as it moves the ribbon";
  c.section = "3.7.2.2 Morph Targets";
  c.rule = "Displacements for POSITION, NORMAL, and TANGENT attributes MUST be applied before any transformation "
           "matrices affecting the mesh vertices such as skinning or node transforms.";
  c.rule_covers_normals = true;  // the displacements of NORMAL are the rule; the ribbon only turns rigidly
  c.targets = {{"G3", {"morph-normals=ignored"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 1, {});
    set_target_normals(b, m, [&](size_t count) { return b.add_accessor("target 0 normals", "VEC3", tilt_deltas(count)); });
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, {0.0, 1.0}}});
  };
  return c;
}

// Target 0's NORMAL deltas without bufferView: zeros, but for kSparseMoved vertices, whose normals the sparse
// values tilt by 45 degrees about y at weight 1 (as in morph-normal-deltas).
ConformanceCase sparse_normal_deltas() {
  ConformanceCase c;
  c.id = "morph-sparse-normal-deltas";
  c.title = "A target's NORMAL deltas without bufferView: three vertices' normals tilted by sparse values";
  c.section = "3.6.2.3 Sparse Accessors";
  c.rule = "When accessor.bufferView is undefined, the sparse accessor is initialized as an array of zeros of size "
           "(size of the accessor element) * (accessor.count) bytes.";
  c.rule_covers_normals = true;  // the sparse values are NORMAL displacements
  // morph-normals=ignored (G3) gives the same normals here, and morph-normal-deltas targets it.
  c.targets = {{"L5", {"sparse=ignored"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 1, {});
    set_target_normals(b, m, [&](size_t count) {
      return b.add_accessor("target 0 sparse normals", "VEC3", {}, {},
                            SparseValues{kSparseMoved, ComponentType::U8, tilt_deltas(kSparseMoved.size())}, count);
    });
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, {0.0, 1.0}}});
  };
  return c;
}

// Two targets' weights keyed at 0, 0.5 and 1 s as normalized signed bytes (c / 127), one of them negative.
ConformanceCase normalized_weight_keys() {
  ConformanceCase c;
  c.id = "morph-weight-keys-normalized-signed-byte";
  c.title = "Animated morph weights stored as normalized signed bytes, one target pulled negative";
  c.section = "3.11 Animations";
  c.rule = "weights: \"SCALAR\": float, signed byte normalized, unsigned byte normalized, signed short normalized, "
           "unsigned short normalized";
  c.targets = {{"L1", {"key-decoding=raw"}}, {"L1", {"key-decoding=offset-signed"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 2, {});
    std::vector<double> keys;
    for (double integer : {0.0, 0.0, 127.0, -64.0, 32.0, 100.0}) keys.push_back(integer / 127.0);
    // The only channel: add_animation() stores every channel's keys in the one layout.
    add_animation(b, "morph", {{m.rig.mesh_node, "weights", "LINEAR", {0.0, 0.5, 1.0}, keys}},
                  AccessorLayout{ComponentType::I8, true});
  };
  return c;
}

ConformanceCase sparse_deltas() {
  ConformanceCase c;
  c.id = "morph-sparse-deltas-without-buffer-view";
  c.title = "A target's POSITION deltas without bufferView: zeros, and three vertices moved by sparse values";
  c.section = "3.6.2.3 Sparse Accessors";
  c.rule = "When accessor.bufferView is undefined, the sparse accessor is initialized as an array of zeros of size "
           "(size of the accessor element) * (accessor.count) bytes.";
  c.targets = {{"L5", {"sparse=ignored"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 1, {}, FirstTarget::SparseWithoutView);
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, {0.0, 1.0}}});
  };
  return c;
}

ConformanceCase deltas_at_byte_offset() {
  ConformanceCase c;
  c.id = "morph-deltas-at-byte-offset";
  c.title = "A target's POSITION deltas 24 bytes into their bufferView";
  c.section = "3.6.2.1 Accessors: Overview";
  c.rule = "The byteOffset property specifies the location of the first data element within the referenced buffer "
           "view.";
  c.targets = {{"L2", {"accessor-addressing=view-start"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 1, {}, FirstTarget::AtByteOffset);
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, {0.0, 1.0}}});
  };
  return c;
}

// Three targets' weights keyed at 0, 0.5 and 1 s, stored sparsely: the base holds zeros, the sparse values
// (indexed by unsigned shorts) the weights of keys 1 and 2.
ConformanceCase sparse_weight_keys() {
  ConformanceCase c;
  c.id = "morph-weight-keys-sparse";
  c.title = "Animated morph weights stored sparsely over a base of zeros";
  c.section = "3.6.2.3 Sparse Accessors";
  c.rule = "On top of that, a sparse accessor includes a sparse JSON object describing the elements that are "
           "different from their initialization values.";
  c.targets = {{"L5", {"sparse=ignored"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 3, {});
    const int input = b.add_times("weights times", {0.0, 0.5, 1.0});
    const SparseValues keys{{3, 4, 6, 8}, ComponentType::U16, {0.75, 0.5, 1.0, 0.25}};
    const int output = b.add_accessor("weights keys", "SCALAR", std::vector<double>(9, 0.0), {}, keys);
    b.add_animation({{"name", "morph"},
                     {"channels", {{{"sampler", 0}, {"target", {{"node", m.rig.mesh_node}, {"path", "weights"}}}}}},
                     {"samplers", {{{"input", input}, {"interpolation", "LINEAR"}, {"output", output}}}}});
  };
  return c;
}

// Weights keyed from 0.5 s on: before the first key they hold the first key's weights (0.8 and 0.3), not 0.
ConformanceCase weights_start_late() {
  ConformanceCase c;
  c.id = "morph-weights-start-after-zero";
  c.title = "Morph weights keyed from 0.5 s: before that the first key's weights hold";
  c.section = "3.11 Animations";
  c.rule = "The inputs of each sampler are relative to t = 0, defined as the beginning of the parent animations "
           "entry. Before and after the provided input range, output MUST be clamped to the nearest end of the "
           "input range.";
  c.targets = {{"T1", {"clip-start=first-key"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0, 1.5};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 2, {});
    add_animation(b, "late", {{m.rig.mesh_node, "weights", "LINEAR", {0.5, 1.5}, {0.8, 0.3, 0.0, 1.0}}});
  };
  return c;
}

// STEP weights of three targets: each key holds its weights until the next, and at a key's own time the
// key's weights apply.
ConformanceCase step_weights() {
  ConformanceCase c;
  c.id = "morph-weights-step";
  c.title = "STEP weights of three targets, keys at 0, 0.25 and 0.75 s";
  c.section = "5.8.2 animation.sampler.interpolation";
  c.rule = "The animated values remain constant to the output of the first keyframe, until the next keyframe.";
  c.targets = {{"S3", {"step-boundary=previous"}}, {"S3", {"step=linear"}}};
  c.times = {0.0, 0.125, 0.25, 0.5, 0.75, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 3, {});
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "STEP", {0.0, 0.25, 0.75},
                                               {0.0, 0.0, 0.0, 1.0, 0.0, 0.5, 0.25, 1.0, 0.0}}});
  };
  return c;
}

// Nine targets' CUBICSPLINE weights keyed at 0, 0.5 and 2 s: per key the nine in-tangents, the nine values and
// the nine out-tangents. Every target weighs at least 0.15 at every time between keys, so that an engine that
// keeps 8 (or 4) active targets drops one that moves the ribbon by decimetres.
std::vector<double> nine_cubic_weight_keys() {
  std::vector<double> keys;
  for (int key = 0; key < 3; ++key) {
    for (int t = 0; t < 9; ++t) keys.push_back(key == 0 ? 0.0 : f32(0.25 * ((t % 3) - 1)));   // in-tangents
    for (int t = 0; t < 9; ++t) keys.push_back(f32(0.3 + 0.05 * ((t + 2 * key) % 9)));         // values
    for (int t = 0; t < 9; ++t) keys.push_back(key == 2 ? 0.0 : f32(0.2 * (1 - (t % 3))));    // out-tangents
  }
  return keys;
}

ConformanceCase cubic_weights_nine_targets() {
  ConformanceCase c;
  c.id = "morph-weights-cubic-spline-nine-targets";
  c.title = "CUBICSPLINE weights of nine targets, all active at once, tangents that are not zero";
  c.section = "3.11 Animations";
  c.rule = "When used with CUBICSPLINE interpolation, tangents (a_k, b_k) and values (v_k) are grouped within "
           "keyframes: a_1,a_2,...a_n,v_1,v_2,...v_n,b_1,b_2,...b_n";
  c.targets = {{"S7", {"cubic-weights=per-target"}}, {"S4", {"cubic=unscaled-tangents"}}, {"S5", {"cubic=linear"}},
               {"G2", {"morph-targets=8"}}, {"G2", {"morph-targets=4"}}};
  c.times = {0.0, 0.125, 0.25, 0.5, 1.0, 1.5, 2.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 9, {});
    add_animation(b, "morph", {{m.rig.mesh_node, "weights", "CUBICSPLINE", {0.0, 0.5, 2.0}, nine_cubic_weight_keys()}});
  };
  return c;
}

// STEP weights of nine targets keyed at 0, 0.25 and 0.75 s; each key changes every weight by at least 0.2.
ConformanceCase step_weights_nine_targets() {
  ConformanceCase c;
  c.id = "morph-weights-step-nine-targets";
  c.title = "STEP weights of nine targets, all active, keys at 0, 0.25 and 0.75 s";
  c.section = "5.8.2 animation.sampler.interpolation";
  c.rule = "The animated values remain constant to the output of the first keyframe, until the next keyframe.";
  c.targets = {{"S3", {"step-boundary=previous"}}, {"S3", {"step=linear"}}, {"G2", {"morph-targets=8"}},
               {"G2", {"morph-targets=4"}}};
  c.times = {0.0, 0.125, 0.25, 0.5, 0.75, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 9, {});
    std::vector<double> weights;
    for (int key = 0; key < 3; ++key)
      for (int t = 0; t < 9; ++t) weights.push_back(f32(key == 1 ? 0.9 - 0.05 * t : 0.2 + 0.05 * ((t + 3 * key) % 9)));
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "STEP", {0.0, 0.25, 0.75}, weights}});
  };
  return c;
}

// Two targets' weights keyed at 0, 0.5 and 1 s as normalized unsigned bytes (c / 255).
ConformanceCase unsigned_byte_weight_keys() {
  ConformanceCase c;
  c.id = "morph-weight-keys-normalized-unsigned-byte";
  c.title = "Animated morph weights stored as normalized unsigned bytes";
  c.section = "3.11 Animations";
  c.rule = "weights: \"SCALAR\": float, signed byte normalized, unsigned byte normalized, signed short normalized, "
           "unsigned short normalized";
  c.targets = {{"L1", {"key-decoding=raw"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 2, {});
    std::vector<double> keys;
    for (double integer : {0.0, 51.0, 255.0, 102.0, 64.0, 204.0}) keys.push_back(integer / 255.0);
    add_animation(b, "morph", {{m.rig.mesh_node, "weights", "LINEAR", {0.0, 0.5, 1.0}, keys}},
                  AccessorLayout{ComponentType::U8, true});
  };
  return c;
}

// Nine targets, each with NORMAL deltas that tilt the normals (tilt_deltas() scaled by 1/3, so that three targets
// at weight 1 tilt them by about 45 degrees), all nine weighted at once.
ConformanceCase normal_deltas_nine_targets() {
  ConformanceCase c;
  c.id = "morph-normal-deltas-of-nine-targets";
  c.title = "Nine targets that move the ribbon and tilt its normals, all weighted at once";
  c.section = "3.7.2.2 Morph Targets";
  c.rule = "Client implementations SHOULD support at least eight morphed attributes. This means that they SHOULD "
           "support eight morph targets when each morph target has one attribute, four morph targets where each "
           "morph target has two attributes, or two morph targets where each morph target has three or four "
           "attributes.";
  c.rule_covers_normals = true;  // the attributes counted include NORMAL
  c.targets = {{"G3", {"morph-normals=ignored"}}, {"G2", {"morph-targets=8"}}, {"G2", {"morph-targets=4"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 9, {});
    nlohmann::ordered_json& primitive = b.json()["meshes"][size_t(m.mesh)]["primitives"][0];
    const size_t vertex_count = b.json()["accessors"][size_t(primitive["attributes"]["POSITION"])]["count"];
    for (size_t t = 0; t < 9; ++t) {
      std::vector<double> deltas = tilt_deltas(vertex_count);
      for (size_t i = 0; i < deltas.size(); ++i) deltas[i] = f32(deltas[i] * (1.0 + double(t % 3)) / 6.0);
      primitive["targets"][t]["NORMAL"] = b.add_accessor("target " + std::to_string(t) + " normals", "VEC3", deltas);
    }
    std::vector<double> weights;
    for (int key = 0; key < 2; ++key)
      for (int t = 0; t < 9; ++t) weights.push_back(f32(key == 0 ? 0.2 + 0.05 * t : 0.9 - 0.05 * t));
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, weights}});
  };
  return c;
}

ConformanceCase strided_deltas() {
  ConformanceCase c;
  c.id = "morph-deltas-with-byte-stride";
  c.title = "A target's POSITION deltas in a bufferView of stride 20, 8 bytes of other data after each";
  c.section = "3.6.2.1 Accessors: Overview";
  c.rule = kVertexAttributeStrideRule;
  c.targets = {{"L2", {"accessor-addressing=packed"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 1, {}, FirstTarget::Strided);
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, {0.0, 1.0}}});
  };
  return c;
}

}  // namespace

// Two targets whose animated weights go below 0: target 0 from 0 to -0.75, target 1 from 0.5 to -0.5, LINEAR.
// glTF puts no range on weights; an engine that clamps them at 0 (Assimp) holds the ribbon on the wrong side.
ConformanceCase negative_weights() {
  ConformanceCase c;
  c.id = "morph-weights-negative";
  c.title = "Animated morph weights of two targets that go below 0";
  c.section = "3.7.2.2 Morph Targets";
  c.rule = "renderedPrimitive[i].POSITION = primitives[i].attributes.POSITION + weights[0] * "
           "primitives[i].targets[0].POSITION + weights[1] * primitives[i].targets[1].POSITION + ...";
  c.targets = {{"G5", {"negative-morph-weights=clamped"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const MorphRig m = build_morphed_ribbon(b, 2, {});
    add_animation(b, "morph", {root_swing(m), {m.rig.mesh_node, "weights", "LINEAR", {0.0, 1.0}, {0.0, 0.5, -0.75, -0.5}}});
  };
  return c;
}

void add_morph_cases(std::vector<ConformanceCase>& cases) {
  for (ConformanceCase (*make)() :
       {mesh_default_weights, node_weights_override, nine_targets, morph_then_skin, cubic_weights,
        normal_deltas, sparse_deltas, step_weights, weights_start_late, deltas_at_byte_offset, sparse_weight_keys,
        sparse_normal_deltas, normalized_weight_keys, cubic_weights_nine_targets, step_weights_nine_targets,
        unsigned_byte_weight_keys, normal_deltas_nine_targets, strided_deltas, negative_weights})
    cases.push_back(make());
}

}  // namespace skinref::conformance

// The cases of glTF 2.0 section 3.6.2 (Accessors) as skins and animations use them: sparse storage and the
// addressing of elements (byteOffset, byteStride). Each stores one accessor of the usual skinned chain in the
// layout its rule is about, so that an engine that reads that layout wrongly (class L2 or L5) moves the ribbon
// by metres. Element bytes an engine must skip hold AccessorLayout::gap_byte (gltf_builder.h), 0x41 by default:
// a finite float32 of 12.08.
#include "conformance/case_kit.h"
#include "conformance/cases.h"

#include <algorithm>

namespace skinref::conformance {
namespace {

constexpr int kJoints = 3;
constexpr double kAccessorCaseSegment = 2.0;

const char* const kSection = "3.6.2.3 Sparse Accessors";
const char* const kSparseRule =
    "On top of that, a sparse accessor includes a sparse JSON object describing the elements that are different "
    "from their initialization values.";
const char* const kOffsetRule =
    "The byteOffset property specifies the location of the first data element within the referenced buffer view.";
const char* const kFitRule =
    "Each accessor MUST fit its bufferView, i.e., accessor.byteOffset + EFFECTIVE_BYTE_STRIDE * (accessor.count - 1) "
    "+ SIZE_OF_COMPONENT * NUMBER_OF_COMPONENTS MUST be less than or equal to bufferView.length.";
const char* const kStrideRule = kVertexAttributeStrideRule;

// The mesh of `primitive` on its own node, skinned to `chain` with the inverseBindMatrices accessor `ibm`.
// Callers make `ibm` first, in a statement of its own: the accessors' order is part of the file, and the order in
// which a call's arguments are evaluated is unspecified (g++ and clang++ differ).
void build_rig(GltfBuilder& b, const Chain& chain, const nlohmann::ordered_json& primitive, int ibm) {
  const int mesh = b.add_mesh({{"name", "ribbon"}, {"primitives", {primitive}}});
  const int skin = b.add_skin({{"name", "chain"}, {"inverseBindMatrices", ibm}, {"joints", chain.joints}});
  const int node = b.add_node({{"name", "ribbon"}, {"mesh", mesh}, {"skin", skin}});
  b.set_scene_roots({chain.joints[0], node});
}

std::vector<ChannelSpec> chain_swings(const Chain& chain) {
  return {swing(chain.joints[0], 0, 60), swing(chain.joints[1], 0, -90), swing(chain.joints[2], 0, 45)};
}

int rest_inverse_binds(GltfBuilder& b, const AccessorLayout& layout = {}) {
  return b.add_accessor("chain inverse bind matrices", "MAT4",
                        inverse_bind_values(chain_rest_globals(kJoints, kAccessorCaseSegment, Mat4::Identity())), layout);
}

// An animation of one LINEAR channel of `node`'s `path` over accessors the case laid out itself (add_animation()
// writes its own).
void add_keyed_channel(GltfBuilder& b, const std::string& name, int node, const std::string& path, int input,
                       int output) {
  b.add_animation({{"name", name},
                   {"channels", {{{"sampler", 0}, {"target", {{"node", node}, {"path", path}}}}}},
                   {"samplers", {{{"input", input}, {"interpolation", "LINEAR"}, {"output", output}}}}});
}

void add_turn(GltfBuilder& b, int node, int input, int output) { add_keyed_channel(b, "turn", node, "rotation", input, output); }

ConformanceCase accessor_case(const std::string& id, const std::string& title, const std::string& section,
                              const std::string& rule, const DepartureTarget& target,
                              std::function<void(GltfBuilder&)> build) {
  ConformanceCase c;
  c.id = id;
  c.title = title;
  c.section = section;
  c.rule = rule;
  c.targets = {target};
  c.times = {0.0, 0.5, 1.0};
  c.build = std::move(build);
  return c;
}

// A VEC4 attribute stored sparsely: every vertex's element in `base` is `base_element`, and the sparse values
// (indexed by unsigned shorts) are the elements of `dense` that differ from it.
SparseValues sparse_over_base(const std::vector<double>& dense, const std::vector<double>& base_element,
                              std::vector<double>& base) {
  SparseValues sparse{{}, ComponentType::U16, {}};
  for (size_t v = 0; v < dense.size() / 4; ++v) {
    base.insert(base.end(), base_element.begin(), base_element.end());
    const auto element = dense.begin() + std::ptrdiff_t(4 * v);
    if (std::equal(element, element + 4, base_element.begin())) continue;
    sparse.indices.push_back(uint32_t(v));
    sparse.values.insert(sparse.values.end(), element, element + 4);
  }
  return sparse;
}

// How a case stores the usual ribbon: changes to its influence set (the ribbon's own, float weights and
// unsigned-short joints, to start with), the layouts of POSITION and NORMAL, and that of the inverse binds.
struct RibbonStorage {
  std::function<void(const Ribbon&, InfluenceSet&)> influences = [](const Ribbon&, InfluenceSet&) {};
  AccessorLayout position, normal, inverse_binds;
};

// The usual rig stored as `storage` says: kJoints joints, the blended ribbon, rest inverse binds; no animation.
Chain build_stored_ribbon(GltfBuilder& b, const RibbonStorage& storage) {
  const Chain chain = add_chain(b, "joint", kJoints, kAccessorCaseSegment);
  const Ribbon ribbon = make_ribbon(kJoints, kAccessorCaseSegment, 2, 0.5, true);
  InfluenceSet set{ribbon.joints, ribbon.weights};
  storage.influences(ribbon, set);
  const int ibm = rest_inverse_binds(b, storage.inverse_binds);
  build_rig(b, chain, skinned_primitive(b, "ribbon", ribbon, {set}, storage.position, storage.normal), ibm);
  return chain;
}

// The same, swinging.
void build_stored_rig(GltfBuilder& b, const RibbonStorage& storage) {
  add_animation(b, "swings", chain_swings(build_stored_ribbon(b, storage)));
}

std::function<void(GltfBuilder&)> stored_rig(const RibbonStorage& storage) {
  return [storage](GltfBuilder& b) { build_stored_rig(b, storage); };
}

// The inverse bind matrices 64 bytes into their bufferView (accessor.byteOffset 64).
RibbonStorage offset_inverse_binds() {
  RibbonStorage storage;
  storage.inverse_binds.leading_padding = 64;
  return storage;
}

// WEIGHTS_0 16 bytes into its bufferView (one element's worth), tightly packed.
RibbonStorage offset_weights() {
  RibbonStorage storage;
  storage.influences = [](const Ribbon&, InfluenceSet& set) { set.weight_layout.leading_padding = 16; };
  return storage;
}

// WEIGHTS_0 in a bufferView of byteStride 32: each element's 16 bytes followed by 16 of other data; with
// `ends_at_last_element`, a view that ends with the last element's 16 bytes.
RibbonStorage strided_weights(bool ends_at_last_element) {
  RibbonStorage storage;
  storage.influences = [ends_at_last_element](const Ribbon&, InfluenceSet& set) {
    set.weight_layout.byte_stride = 32;
    set.weight_layout.view_ends_at_last_element = ends_at_last_element;
  };
  return storage;
}

// JOINTS_0 (unsigned shorts, 8 bytes a vertex) in a bufferView of byteStride 12, the gaps zero: read packed,
// vertex v takes joints from its neighbours' slots and from the gaps (joint 0), all within the skin.
RibbonStorage strided_joints() {
  RibbonStorage storage;
  storage.influences = [](const Ribbon&, InfluenceSet& set) {
    set.joint_layout.byte_stride = 12;
    set.joint_layout.gap_byte = 0;
  };
  return storage;
}

// POSITION in a bufferView of byteStride 16 (4 bytes of other data after each), or NORMAL of byteStride 20.
RibbonStorage strided_positions() {
  RibbonStorage storage;
  storage.position.byte_stride = 16;
  return storage;
}
RibbonStorage strided_normals() {
  RibbonStorage storage;
  storage.normal.byte_stride = 20;
  return storage;
}

// JOINTS_0 or WEIGHTS_0 stored sparsely over a base of one repeated element: for weights (1, 0, 0, 0), every vertex
// bound to its first joint alone, the sparse values giving the vertices between joints their blends; for joints
// (0, 0, 0, 0), the sparse values giving the vertices past the first segment their joints, so that an engine that
// drops them moves the whole ribbon with joint 0. The other attribute stays dense.
RibbonStorage sparse_influences(bool joints) {
  RibbonStorage storage;
  storage.influences = [joints](const Ribbon& ribbon, InfluenceSet& set) {
    std::vector<double>& base = joints ? set.joints : set.weights;
    base.clear();
    (joints ? set.joint_sparse : set.weight_sparse) =
        sparse_over_base(joints ? ribbon.joints : ribbon.weights, joints ? std::vector<double>{0, 0, 0, 0}
                                                                        : std::vector<double>{1, 0, 0, 0},
                         base);
  };
  return storage;
}

// Inverse bind matrices whose base holds identities; the sparse values give joints 1 and 2 theirs.
void sparse_inverse_binds(GltfBuilder& b) {
  const Chain chain = add_chain(b, "joint", kJoints, kAccessorCaseSegment);
  const Ribbon ribbon = make_ribbon(kJoints, kAccessorCaseSegment, 2, 0.5, true);
  const std::vector<double> stored = inverse_bind_values(chain_rest_globals(kJoints, kAccessorCaseSegment, Mat4::Identity()));
  std::vector<double> identities;
  for (int j = 0; j < kJoints; ++j) identities.insert(identities.end(), stored.begin(), stored.begin() + 16);
  const SparseValues sparse{{1, 2}, ComponentType::U16, std::vector<double>(stored.begin() + 16, stored.end())};
  const int ibm = b.add_accessor("chain inverse bind matrices", "MAT4", identities, {}, sparse);
  build_rig(b, chain, skinned_ribbon_primitive(b, "ribbon", ribbon), ibm);
  add_animation(b, "swings", chain_swings(chain));
}

// Joint 1 turns through keys at 0, 0.5 and 1 s whose base holds the identity; the sparse values (indexed by
// unsigned bytes) give keys 1 and 2 their turns of -60 and -120 degrees.
void sparse_rotation_keys(GltfBuilder& b) {
  const Chain chain = build_stored_ribbon(b, {});
  const std::vector<double> identity = axis_angle_xyzw(kAxisZ, 0.0);
  const SparseValues turns{{1, 2}, ComponentType::U8,
                           concat({axis_angle_xyzw(kAxisZ, degrees(-60)), axis_angle_xyzw(kAxisZ, degrees(-120))})};
  const int input = b.add_times("joint 1 rotation times", {0.0, 0.5, 1.0});
  const int output = b.add_accessor("joint 1 rotation keys", "VEC4", concat({identity, identity, identity}), {}, turns);
  add_turn(b, chain.joints[1], input, output);
}

// Joint 1's rotation keys start 16 bytes into their bufferView (one quaternion's worth).
void offset_rotation_keys(GltfBuilder& b) {
  const Chain chain = build_stored_ribbon(b, {});
  AccessorLayout after_a_key;
  after_a_key.leading_padding = 16;
  const int input = b.add_times("joint 1 rotation times", {0.0, 1.0});
  const int output = b.add_accessor(
      "joint 1 rotation keys", "VEC4",
      concat({axis_angle_xyzw(kAxisZ, degrees(30)), axis_angle_xyzw(kAxisZ, degrees(-90))}), after_a_key);
  add_turn(b, chain.joints[1], input, output);
}

// Joint 1's scale keys start 12 bytes into their bufferView (one key's worth).
void offset_scale_keys(GltfBuilder& b) {
  const Chain chain = build_stored_ribbon(b, {});
  AccessorLayout after_a_key;
  after_a_key.leading_padding = 12;
  const int input = b.add_times("joint 1 scale times", {0.0, 1.0});
  const int output = b.add_accessor("joint 1 scale keys", "VEC3", {1, 1, 1, 2.5, 0.5, 1}, after_a_key);
  add_keyed_channel(b, "stretch", chain.joints[1], "scale", input, output);
}

// Joint 1's translation keys at 0, 0.5 and 1 s in an accessor without bufferView: zeros (joint 1 folded onto
// joint 0), but for keys 1 and 2, which the sparse values set.
void sparse_translation_keys(GltfBuilder& b) {
  const Chain chain = build_stored_ribbon(b, {});
  // Indices as unsigned ints, the third index type (U8 and U16 are the other cases').
  const SparseValues moves{{1, 2}, ComponentType::U32, {2.0, 1.5, 0.0, 3.0, -1.0, 0.0}};
  const int input = b.add_times("joint 1 translation times", {0.0, 0.5, 1.0});
  const int output = b.add_accessor("joint 1 translation keys", "VEC3", {}, {}, moves, 3);
  add_keyed_channel(b, "slide", chain.joints[1], "translation", input, output);
}

}  // namespace

void add_accessor_cases(std::vector<ConformanceCase>& cases) {
  const DepartureTarget sparse_ignored{"L5", {"sparse=ignored"}};
  cases.push_back(accessor_case("sparse-inverse-bind-matrices",
                                "Inverse bind matrices stored sparsely over a base of identities", kSection,
                                kSparseRule, sparse_ignored, sparse_inverse_binds));
  cases.push_back(accessor_case("sparse-rotation-keys", "Rotation keys stored sparsely over a base of identities",
                                kSection, kSparseRule, sparse_ignored, sparse_rotation_keys));
  cases.push_back(accessor_case("sparse-translation-keys-without-buffer-view",
                                "Translation keys without bufferView: zeros, and two keys set by sparse values",
                                kSection,
                                "When accessor.bufferView is undefined, the sparse accessor is initialized as an array "
                                "of zeros of size (size of the accessor element) * (accessor.count) bytes.",
                                sparse_ignored, sparse_translation_keys));
  cases.push_back(accessor_case("sparse-skin-joints", "JOINTS_0 stored sparsely over a base that names joint 0 alone",
                                kSection, kSparseRule, sparse_ignored, stored_rig(sparse_influences(true))));
  cases.push_back(accessor_case("inverse-bind-matrices-at-byte-offset",
                                "Inverse bind matrices 64 bytes into their bufferView", "3.6.2.1 Accessors: Overview",
                                kOffsetRule, {"L2", {"accessor-addressing=view-start"}}, stored_rig(offset_inverse_binds())));
  cases.push_back(accessor_case("rotation-keys-at-byte-offset", "Rotation keys 16 bytes into their bufferView",
                                "3.6.2.1 Accessors: Overview", kOffsetRule,
                                {"L2", {"accessor-addressing=view-start"}}, offset_rotation_keys));
  cases.push_back(accessor_case("scale-keys-at-byte-offset", "Scale keys 12 bytes into their bufferView",
                                "3.6.2.1 Accessors: Overview", kOffsetRule,
                                {"L2", {"accessor-addressing=view-start"}}, offset_scale_keys));
  cases.push_back(accessor_case("weights-at-byte-offset", "WEIGHTS_0 16 bytes into its bufferView",
                                "3.6.2.1 Accessors: Overview", kOffsetRule,
                                {"L2", {"accessor-addressing=view-start"}}, stored_rig(offset_weights())));
  cases.push_back(accessor_case("sparse-skin-weights",
                                "WEIGHTS_0 stored sparsely: the blended vertices over a base bound to one joint",
                                kSection, kSparseRule, sparse_ignored, stored_rig(sparse_influences(false))));
  cases.push_back(accessor_case("positions-with-byte-stride", "POSITION in a bufferView of byteStride 16",
                                "3.6.2.1 Accessors: Overview", kStrideRule, {"L2", {"accessor-addressing=packed"}},
                                stored_rig(strided_positions())));
  cases.push_back(accessor_case("weights-with-byte-stride", "WEIGHTS_0 in a bufferView of byteStride 32",
                                "3.6.2.1 Accessors: Overview", kStrideRule, {"L2", {"accessor-addressing=packed"}},
                                stored_rig(strided_weights(false))));
  cases.push_back(accessor_case("joints-with-byte-stride", "JOINTS_0 as unsigned shorts in a bufferView of byteStride 12",
                                "3.6.2.1 Accessors: Overview", kStrideRule, {"L2", {"accessor-addressing=packed"}},
                                stored_rig(strided_joints())));
  cases.push_back(accessor_case("normals-with-byte-stride", "NORMAL in a bufferView of byteStride 20",
                                "3.6.2.1 Accessors: Overview", kStrideRule, {"L2", {"accessor-addressing=packed"}},
                                stored_rig(strided_normals())));
  cases.back().rule_covers_normals = true;  // the rule is how the NORMAL accessor's bytes are read
  // No convention plants it: an engine that sizes a strided view as count * byteStride reads past this one's
  // end (three.js 0.187: "RangeError: Invalid typed array length"), a crash rather than a departure.
  cases.push_back(accessor_case("byte-stride-view-ends-at-last-element",
                                "WEIGHTS_0 with byteStride 32 in a bufferView that ends with the last element",
                                "3.6.2.4 Data Alignment", kFitRule, {"L2", {}},
                                stored_rig(strided_weights(true))));
}

}  // namespace skinref::conformance

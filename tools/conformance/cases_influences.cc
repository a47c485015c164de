// The cases of glTF 2.0 section 3.7.3.3 (Skinned Mesh Attributes): more than one set of four influences, and
// the component types JOINTS_n and WEIGHTS_n may be stored in. Every vertex of a chain of 2 m joints is
// shared between many joints that each swing differently, so that a dropped or mis-read influence moves it
// by metres.
#include "conformance/case_kit.h"
#include "conformance/cases.h"

#include <cmath>

namespace skinref::conformance {
namespace {

constexpr double kInfluenceCaseSegment = 2.0;

// Each joint k turns about z by +-(15 + 5k) degrees over one second, alternating in sign.
std::vector<ChannelSpec> alternating_swings(const Chain& chain) {
  std::vector<ChannelSpec> channels;
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    const double angle = (k % 2 == 0 ? 1.0 : -1.0) * (15.0 + 5.0 * double(k)) * kPi / 180.0;
    channels.push_back({chain.joints[k], "rotation", "LINEAR", {0.0, 1.0},
                        concat({axis_angle_xyzw(kAxisZ, 0.0), axis_angle_xyzw(kAxisZ, angle)})});
  }
  return channels;
}

// Influence sets for `joint_count` joints: vertex v's slot i holds joint (v + i) mod joint_count with
// weight `weights[i]` (4 * sets weights; the sets are consecutive groups of four).
std::vector<InfluenceSet> rotating_influences(size_t vertex_count, int joint_count,
                                              const std::vector<double>& weights) {
  std::vector<InfluenceSet> sets(weights.size() / 4);
  for (size_t v = 0; v < vertex_count; ++v)
    for (size_t i = 0; i < weights.size(); ++i) {
      InfluenceSet& set = sets[i / 4];
      set.joints.push_back(weights[i] == 0.0 ? 0.0 : double((v + i) % size_t(joint_count)));
      set.weights.push_back(weights[i]);
    }
  return sets;
}

// A chain of `joint_count` joints with a ribbon along it whose every vertex has the influences `weights`
// (rotating_influences), stored as `layout_of` says, and every joint swinging.
void build_shared_ribbon(GltfBuilder& b, int joint_count, const std::vector<double>& weights,
                         const AccessorLayout& joint_layout, const AccessorLayout& weight_layout) {
  const Chain chain = add_chain(b, "joint", joint_count, kInfluenceCaseSegment);
  const Ribbon ribbon = make_ribbon(joint_count, kInfluenceCaseSegment, 1, 0.5, false);
  std::vector<InfluenceSet> sets = rotating_influences(ribbon.vertex_count(), joint_count, weights);
  for (InfluenceSet& set : sets) {
    set.joint_layout = joint_layout;
    set.weight_layout = weight_layout;
  }
  const int mesh = b.add_mesh({{"name", "ribbon"}, {"primitives", {skinned_primitive(b, "ribbon", ribbon, sets)}}});
  const int skin = add_skin(b, "chain", chain.joints, chain_rest_globals(joint_count, kInfluenceCaseSegment, Mat4::Identity()));
  const int node = b.add_node({{"name", "ribbon"}, {"mesh", mesh}, {"skin", skin}});
  b.set_scene_roots({chain.joints[0], node});
  add_animation(b, "swings", alternating_swings(chain));
}

const char* const kMoreSets =
    "When any of the vertices are influenced by more than four joints, the additional joint and weight "
    "information are stored in subsequent sets.";
const AccessorLayout kU16Joints{ComponentType::U16};
const AccessorLayout kFloatWeights{ComponentType::F32};

ConformanceCase influence_sets(const std::string& id, const std::string& title, int joint_count,
                               const std::vector<double>& weights, std::vector<DepartureTarget> targets) {
  ConformanceCase c;
  c.id = id;
  c.title = title;
  c.section = "3.7.3.3 Skinned Mesh Attributes";
  c.rule = kMoreSets;
  c.targets = std::move(targets);
  c.times = {0.0, 0.5, 1.0};
  c.build = [joint_count, weights](GltfBuilder& b) {
    build_shared_ribbon(b, joint_count, weights, kU16Joints, kFloatWeights);
  };
  return c;
}

// Weights whose float32 values sum to 1 within the validator's 2e-7 per weight.
const std::vector<double> kFive = {0.25, 0.125, 0.125, 0.125, 0.375, 0, 0, 0};
const std::vector<double> kEight = {0.0625, 0.0625, 0.0625, 0.0625, 0.25, 0.1875, 0.1875, 0.125};
const std::vector<double> kTwelve = {0.03125, 0.03125, 0.0625, 0.0625, 0.0625, 0.0625, 0.125, 0.125,
                                     0.125, 0.125, 0.09375, 0.09375};

const char* const kNormalizedSum =
    "When the weights are stored using normalized unsigned byte, or normalized unsigned short component types, "
    "their linear sum before normalization MUST be 255 or 65535 respectively.";

ConformanceCase stored_as(const std::string& id, const std::string& title, const std::string& rule,
                          const std::vector<double>& weights, const AccessorLayout& joints,
                          const AccessorLayout& stored_weights, std::vector<DepartureTarget> targets) {
  ConformanceCase c;
  c.id = id;
  c.title = title;
  c.section = "3.7.3.3 Skinned Mesh Attributes";
  c.rule = rule;
  c.targets = std::move(targets);
  c.times = {0.0, 0.5, 1.0};
  c.build = [weights, joints, stored_weights](GltfBuilder& b) {
    build_shared_ribbon(b, 3, weights, joints, stored_weights);
  };
  return c;
}

// Five joints whose every vertex has the influences `weights` in two sets, stored as unsigned-byte JOINTS and
// normalized unsigned-byte WEIGHTS.
ConformanceCase stored_as_sets(const std::string& id, const std::string& title, const std::string& rule,
                               const std::vector<double>& weights, std::vector<DepartureTarget> targets) {
  ConformanceCase c = stored_as(id, title, rule, weights, AccessorLayout{ComponentType::U8},
                                AccessorLayout{ComponentType::U8, true}, std::move(targets));
  c.build = [weights](GltfBuilder& b) {
    build_shared_ribbon(b, 5, weights, AccessorLayout{ComponentType::U8}, AccessorLayout{ComponentType::U8, true});
  };
  return c;
}

// Every other vertex has all its influences in the third set (JOINTS_2/WEIGHTS_2), the sets before it zero:
// an engine that reads the first set only leaves those vertices with no weight at all.
ConformanceCase third_set_only() {
  ConformanceCase c;
  c.id = "influences-in-third-set-only";
  c.title = "Every other vertex weighted in JOINTS_2/WEIGHTS_2 alone, its first two sets all zero";
  c.section = "3.7.3.3 Skinned Mesh Attributes";
  c.rule = kMoreSets;
  c.targets = {{"L3", {"influences=first-set"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    constexpr int kJoints = 4;
    const Chain chain = add_chain(b, "joint", kJoints, kInfluenceCaseSegment);
    const Ribbon ribbon = make_ribbon(kJoints, kInfluenceCaseSegment, 1, 0.5, false);
    std::vector<InfluenceSet> sets(3);
    for (size_t v = 0; v < ribbon.vertex_count(); ++v) {
      const double j0 = double(v % kJoints), j1 = double((v + 1) % kJoints), j2 = double((v + 2) % kJoints);
      const bool third = v % 2 == 1;
      for (size_t s = 0; s < 3; ++s) {
        const bool used = third ? s == 2 : s == 0;
        sets[s].joints.insert(sets[s].joints.end(), {used ? j0 : 0.0, used ? j1 : 0.0, used && third ? j2 : 0.0, 0.0});
        sets[s].weights.insert(sets[s].weights.end(), {used ? 0.5 : 0.0, used ? (third ? 0.25 : 0.5) : 0.0,
                                                       used && third ? 0.25 : 0.0, 0.0});
      }
    }
    const int mesh = b.add_mesh({{"name", "ribbon"}, {"primitives", {skinned_primitive(b, "ribbon", ribbon, sets)}}});
    const int skin = add_skin(b, "chain", chain.joints, chain_rest_globals(kJoints, kInfluenceCaseSegment, Mat4::Identity()));
    const int node = b.add_node({{"name", "ribbon"}, {"mesh", mesh}, {"skin", skin}});
    b.set_scene_roots({chain.joints[0], node});
    add_animation(b, "swings", alternating_swings(chain));
  };
  return c;
}

// Vertices shared half and half, a quarter and three quarters, between two joints turning apart: an engine
// that scales the weights to unit length (L2) instead of using them as stored moves them by metres.
ConformanceCase weights_as_stored() {
  ConformanceCase c;
  c.id = "weights-blend-linearly";
  c.title = "Blended weights used as stored: the joint matrices summed with weights that add up to one";
  c.section = "3.7.3.3 Skinned Mesh Attributes";
  c.rule = "To apply skinning, a transformation matrix is computed for each joint. Then, the per-vertex "
           "transformation matrices are computed as weighted linear sums of the joint transformation matrices.";
  c.targets = {{"K1", {"weights=l2"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kInfluenceCaseSegment, 4, true);
    add_animation(b, "swings", {swing(rig.chain.joints[1], 0, 70), swing(rig.chain.joints[2], 0, -80)});
  };
  return c;
}

}  // namespace

void add_influence_cases(std::vector<ConformanceCase>& cases) {
  cases.push_back(influence_sets("influences-five", "Five influences: the fifth, in JOINTS_1, weighs 0.375", 5, kFive,
                                 {{"L3", {"influences=first-set"}}, {"L3", {"influences=top4"}}}));
  cases.push_back(influence_sets("influences-eight", "Eight influences in two full sets, the second the heavier", 8,
                                 kEight, {{"L3", {"influences=first-set"}}, {"L3", {"influences=top4"}}}));
  cases.push_back(influence_sets("influences-twelve", "Twelve influences in three sets", 12, kTwelve,
                                 {{"L3", {"influences=first-set"}}, {"L3", {"influences=top4"}}}));
  // 128 + 64 + 63 = 255 and 32768 + 16384 + 16383 = 65535: weights that sum to exactly one once decoded.
  cases.push_back(stored_as("weights-normalized-unsigned-byte",
                            "WEIGHTS_0 as normalized unsigned bytes, decoded as c / 255", kNormalizedSum,
                            {128.0 / 255, 64.0 / 255, 63.0 / 255, 0}, kU16Joints,
                            AccessorLayout{ComponentType::U8, true},
                            {{"L1", {"weight-decoding=raw"}}}));
  cases.push_back(stored_as("weights-normalized-unsigned-short",
                            "WEIGHTS_0 as normalized unsigned shorts, decoded as c / 65535", kNormalizedSum,
                            {32768.0 / 65535, 16384.0 / 65535, 16383.0 / 65535, 0}, kU16Joints,
                            AccessorLayout{ComponentType::U16, true},
                            {{"L1", {"weight-decoding=raw"}}}));
  cases.push_back(stored_as("joints-unsigned-byte", "JOINTS_0 as unsigned bytes",
                            "The number of joints that influence one vertex is limited to 4 per set, so the "
                            "referenced accessors MUST have VEC4 type and following component types: JOINTS_n: "
                            "unsigned byte or unsigned short",
                            {0.5, 0.25, 0.25, 0}, AccessorLayout{ComponentType::U8}, kFloatWeights, {{"L2", {}}}));
  // 64 + 32 + 16 + 15 + 128 = 255 over both sets: normalized unsigned bytes whose sum across the sets is 255.
  cases.push_back(stored_as_sets("influences-two-sets-as-unsigned-bytes",
                                 "Five influences in two sets of unsigned-byte JOINTS and normalized unsigned-byte "
                                 "WEIGHTS, the fifth weighing 128 / 255",
                                 kNormalizedSum, {64.0 / 255, 32.0 / 255, 16.0 / 255, 15.0 / 255, 128.0 / 255, 0, 0, 0},
                                 {{"L1", {"weight-decoding=raw"}}, {"L3", {"influences=first-set"}},
                                  {"L3", {"influences=top4"}}}));
  cases.push_back(third_set_only());
  cases.push_back(weights_as_stored());
}

}  // namespace skinref::conformance

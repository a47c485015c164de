#include "core/conventions.h"

#include "core/enum_field.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace skinref {
namespace {

using convention_detail::enum_field;
using convention_detail::Spellings;

// `values` of a field are mistakes (core/mistakes.h), not candidates of the field.
void mark_mistakes(ConventionField& field, const std::vector<std::string>& values) {
  for (const std::string& value : values)
    field.candidates.erase(std::remove(field.candidates.begin(), field.candidates.end(), value), field.candidates.end());
  field.mistakes = values;
}

bool parse_positive_int(const std::string& text, int max_value, int& out) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1 || value > max_value) return false;
  out = value;
  return true;
}

std::string influences_text(const LoadConventions& load) {
  switch (load.influences) {
    case InfluenceLimit::All: return "all";
    case InfluenceLimit::FirstSet: return load.renormalize_limited ? "first-set-renormalized" : "first-set";
    case InfluenceLimit::FirstSets:
      return "first-" + std::to_string(load.influence_count / 4) + "-sets" +
             (load.renormalize_limited ? "-renormalized" : "");
    case InfluenceLimit::Largest:
      return "top" + std::to_string(load.influence_count) + (load.renormalize_limited ? "-renormalized" : "");
    case InfluenceLimit::FirstInfluence: return "first-influence";
  }
  return "?";
}

void set_influences(LoadConventions& load, const std::string& text) {
  static const std::string kSuffix = "-renormalized";
  const bool renormalized = text.size() > kSuffix.size() && text.ends_with(kSuffix);
  const std::string base = renormalized ? text.substr(0, text.size() - kSuffix.size()) : text;
  int count = 0;
  if (text == "all" || text == "first-influence") {
    load.influences = text == "all" ? InfluenceLimit::All : InfluenceLimit::FirstInfluence;
    load.renormalize_limited = false;
  } else if (base == "first-set") {
    load.influences = InfluenceLimit::FirstSet;
    load.renormalize_limited = renormalized;
  } else if (base.starts_with("first-") && base.ends_with("-sets") && base.size() > 11 &&
             parse_positive_int(base.substr(6, base.size() - 11), 7, count) && count >= 2) {
    load.influences = InfluenceLimit::FirstSets;
    load.influence_count = 4 * count;
    load.renormalize_limited = renormalized;
  } else if (base.starts_with("top") && parse_positive_int(base.substr(3), 16, count)) {
    load.influences = InfluenceLimit::Largest;
    load.influence_count = count;
    load.renormalize_limited = renormalized;
  } else {
    throw std::invalid_argument("convention influences: '" + text +
                                "' is not one of all|first-set|first-N-sets (N 2 to 7)|topK (K 1 to 16), optionally "
                                "followed by -renormalized, or first-influence");
  }
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// Read step: the fields the loader applies while it reads the file's accessors (io/gltf_load.h).
void add_reading_fields(std::vector<ConventionField>& fields) {
  fields.push_back(enum_field<JointSentinel>(
      "joint-sentinel", "load", "none|-1|255|65535",
      "a JOINTS value that means \"no joint\", accepted only with weight 0 (-1: the accessor type's all-ones value)",
      [](auto& c) -> auto& { return c.load.joint_sentinel; },
      {{JointSentinel::None, "none"}, {JointSentinel::AllOnes, "-1"}, {JointSentinel::U8Max, "255"},
       {JointSentinel::U16Max, "65535"}}));
  fields.back().candidates = {};  // a loading rule, not an effect: diagnose tries it only when loading fails
  fields.push_back(enum_field<AccessorAddressing>(
      "accessor-addressing", "load", "specified|packed|view-start",
      "where an accessor's element i starts: bufferView.byteOffset + byteOffset + i * byteStride (glTF), read "
      "tightly packed (byteStride ignored), or from the bufferView's start (the accessor's byteOffset ignored)",
      [](auto& c) -> auto& { return c.load.accessor_addressing; },
      {{AccessorAddressing::Specified, "specified"}, {AccessorAddressing::Packed, "packed"},
       {AccessorAddressing::ViewStart, "view-start"}}));
  fields.push_back(enum_field<SparseAccessors>(
      "sparse", "load", "applied|ignored",
      "sparse accessors: the sparse values substituted into the base (glTF), or the base alone (zeros without a "
      "bufferView)",
      [](auto& c) -> auto& { return c.load.sparse; },
      {{SparseAccessors::Applied, "applied"}, {SparseAccessors::Ignored, "ignored"}}));
}

// Load step: the fields read while loading the file (and the quaternion keys' rule, listed with them).
void add_load_fields(std::vector<ConventionField>& fields) {
  ConventionField influences{"influences", "load",
                             "all|first-set|first-N-sets|topK[-renormalized]|first-set-renormalized|first-influence",
                             "which influences a vertex keeps: every set, JOINTS_0/WEIGHTS_0 only, the first N sets, "
                             "or the K largest weights; -renormalized divides the kept weights by their sum; "
                             "first-influence (a mistake): the first slot alone, its weight as stored",
                             [](const Conventions& c) { return influences_text(c.load); },
                             [](Conventions& c, const std::string& text) { set_influences(c.load, text); },
                             {"first-set", "first-set-renormalized", "top4", "top4-renormalized", "top2",
                              "top2-renormalized", "top1", "top1-renormalized", "top3", "top3-renormalized", "top8",
                              "top8-renormalized", "top6", "top6-renormalized", "first-2-sets",
                              "first-2-sets-renormalized"},
                             {}};
  influences.mistakes = {"first-influence"};
  fields.push_back(std::move(influences));
  fields.push_back(enum_field<InverseBind>(
      "inverse-bind", "load", "as-stored|from-rest-pose",
      "inverse bind matrices as the file gives them, or recomputed as the inverse of each joint's rest global",
      [](auto& c) -> auto& { return c.load.inverse_bind; },
      {{InverseBind::AsStored, "as-stored"}, {InverseBind::FromRestPose, "from-rest-pose"}}));
  fields.push_back(enum_field<WeightDecoding>(
      "weight-decoding", "load", "normalized|raw",
      "normalized unsigned-byte/short WEIGHTS: c / 255 or c / 65535 (glTF), or the integer c itself",
      [](auto& c) -> auto& { return c.load.weight_decoding; },
      {{WeightDecoding::Normalized, "normalized"}, {WeightDecoding::Raw, "raw"}}));
  fields.push_back(enum_field<NodeMatrix>(
      "node-matrix", "load", "used|ignored|reflection-lost",
      "a node's `matrix`: used (glTF), ignored (the identity), or decomposed with the reflection lost (|scale|)",
      [](auto& c) -> auto& { return c.load.node_matrix; },
      {{NodeMatrix::Used, "used"}, {NodeMatrix::Ignored, "ignored"}, {NodeMatrix::ReflectionLost, "reflection-lost"}}));
  fields.push_back(enum_field<ChannelTarget>(
      "channel-target", "load", "index|first-named",
      "an animation channel's node: the one its index names (glTF), or the first node with that node's name",
      [](auto& c) -> auto& { return c.load.channel_target; },
      {{ChannelTarget::Index, "index"}, {ChannelTarget::FirstNamed, "first-named"}}));
  fields.push_back(enum_field<JointIndexSpace>(
      "joint-index", "load", "skin|node",
      "JOINTS values as indices into skin.joints (glTF) or as node indices (a node that is not a joint of the "
      "skin: joint 0)",
      [](auto& c) -> auto& { return c.load.joint_index; },
      {{JointIndexSpace::Skin, "skin"}, {JointIndexSpace::Node, "node"}}));
  fields.push_back(enum_field<MorphNormals>(
      "morph-normals", "load", "applied|ignored", "morph targets' NORMAL and TANGENT deltas: applied (glTF) or ignored",
      [](auto& c) -> auto& { return c.load.morph_normals; },
      {{MorphNormals::Applied, "applied"}, {MorphNormals::Ignored, "ignored"}}));
  fields.push_back(enum_field<QuaternionKeys>(
      "quaternion-keys", "sampling", "normalized|as-stored",
      "rotation keys normalized before use (skinref), or used as stored, the result not renormalized",
      [](auto& c) -> auto& { return c.sampling.quaternion_keys; },
      {{QuaternionKeys::Normalized, "normalized"}, {QuaternionKeys::AsStored, "as-stored"}}));
}

// Time step: the fields that map the playback time to the clip time.
void add_time_fields(std::vector<ConventionField>& fields) {
  fields.push_back(enum_field<PlaybackLoop>(
      "playback", "time", "clamp|loop", "past the clip's end: hold the last key, or loop",
      [](auto& c) -> auto& { return c.time.playback; },
      {{PlaybackLoop::Clamp, "clamp"}, {PlaybackLoop::Loop, "loop"}}));
  fields.push_back(enum_field<ClipStart>(
      "clip-start", "time", "zero|first-key", "the time a clip starts at: 0 (glTF) or its first key",
      [](auto& c) -> auto& { return c.time.clip_start; },
      {{ClipStart::Zero, "zero"}, {ClipStart::FirstKey, "first-key"}}));
  fields.push_back(enum_field<WrapPeriod>(
      "wrap-period", "time", "last-key|last-minus-first", "the loop period: the last key time, or last minus first",
      [](auto& c) -> auto& { return c.time.wrap_period; },
      {{WrapPeriod::LastKey, "last-key"}, {WrapPeriod::LastMinusFirst, "last-minus-first"}}));
  fields.push_back(enum_field<AtEnd>(
      "at-end", "time", "wrap|hold", "a looping playback at exactly a whole number of periods: restart or hold",
      [](auto& c) -> auto& { return c.time.at_end; }, {{AtEnd::Wrap, "wrap"}, {AtEnd::Hold, "hold"}}));
}

// The resample field: a rate in Hz or "off", not an enum.
ConventionField resample_field() {
  return ConventionField{"resample", "sampling", "off|HZ",
                         "every clip resampled at HZ keys per second from its first key, then played LINEAR "
                         "(Godot, raylib at 60, ozz-animation at 30)",
                         [](const Conventions& c) {
                           return c.sampling.resample_hz > 0.0 ? number_text(c.sampling.resample_hz)
                                                               : std::string("off");
                         },
                         [](Conventions& c, const std::string& text) {
                           if (text == "off") {
                             c.sampling.resample_hz = 0.0;
                             return;
                           }
                           double hz = 0.0;
                           const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), hz);
                           if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(hz) ||
                               hz < 1.0 || hz > 1000.0)
                             throw std::invalid_argument("convention resample: '" + text +
                                                         "' is not off or a rate of 1 to 1000 Hz");
                           c.sampling.resample_hz = hz;
                         },
                         {"30", "60", "24"},
                         {}};
}

// Sampling step: the fields that sample a channel's keys.
void add_sampling_fields(std::vector<ConventionField>& fields) {
  fields.push_back(enum_field<RotationInterpolation>(
      "rotation", "sampling", "slerp|nlerp|lerp",
      "LINEAR rotations: slerp (glTF), normalized lerp on the short path, or lerp without the hemisphere check",
      [](auto& c) -> auto& { return c.sampling.rotation; },
      {{RotationInterpolation::Slerp, "slerp"}, {RotationInterpolation::Nlerp, "nlerp"},
       {RotationInterpolation::Lerp, "lerp"}}));
  fields.push_back(enum_field<StepBoundary>(
      "step-boundary", "sampling", "key|previous", "STEP at exactly a key's time: that key (glTF) or the previous one",
      [](auto& c) -> auto& { return c.sampling.step_boundary; },
      {{StepBoundary::Key, "key"}, {StepBoundary::Previous, "previous"}}));
  fields.push_back(enum_field<StepMode>(
      "step", "sampling", "spec|linear", "STEP samplers: each key held until the next (glTF), or played as LINEAR",
      [](auto& c) -> auto& { return c.sampling.step; }, {{StepMode::Spec, "spec"}, {StepMode::Linear, "linear"}}));
  fields.push_back(enum_field<CubicVariant>(
      "cubic", "sampling", "spec|unscaled-tangents|linear|no-renormalize",
      "CUBICSPLINE: as specified, tangents not multiplied by the interval, played as LINEAR, or rotations not "
      "renormalized",
      [](auto& c) -> auto& { return c.sampling.cubic; },
      {{CubicVariant::Spec, "spec"}, {CubicVariant::UnscaledTangents, "unscaled-tangents"},
       {CubicVariant::Linear, "linear"}, {CubicVariant::NoRenormalize, "no-renormalize"}}));
  fields.push_back(resample_field());
  fields.push_back(enum_field<TranslationScaleKeys>(
      "key-translation-scale", "sampling", "f32|half",
      "translation and scale keys stored as float32 (glTF) or half floats", 
      [](auto& c) -> auto& { return c.sampling.translation_scale_keys; },
      {{TranslationScaleKeys::F32, "f32"}, {TranslationScaleKeys::Half, "half"}}));
  fields.push_back(enum_field<RotationKeys>(
      "key-rotation", "sampling", "f32|q15|q15-offset",
      "rotation keys as float32 (glTF), smallest-three in 16-bit signed integers (ozz-animation to 0.14), or "
      "ozz-animation's 15-bit smallest-three on its offset grid (from 0.15)",
      [](auto& c) -> auto& { return c.sampling.rotation_keys; },
      {{RotationKeys::F32, "f32"}, {RotationKeys::SmallestThree15, "q15"},
       {RotationKeys::OffsetSmallestThree15, "q15-offset"}}));
  fields.push_back(enum_field<KeyScope>(
      "key-scope", "sampling", "keys|every-joint",
      "what key quantization reaches: the clip's keys, or also every skin joint's rest values (a clip with a "
      "track per joint)",
      [](auto& c) -> auto& { return c.sampling.key_scope; },
      {{KeyScope::Keys, "keys"}, {KeyScope::EveryJoint, "every-joint"}}));
  fields.back().candidates = {};  // acts only with a quantization: diagnose_candidates() pairs it with each
  fields.push_back(enum_field<CubicWeightsLayout>(
      "cubic-weights", "sampling", "grouped|per-target",
      "CUBICSPLINE morph weights: per key the N in-tangents, N values, N out-tangents (glTF), or read as "
      "(in-tangent, value, out-tangent) per target",
      [](auto& c) -> auto& { return c.sampling.cubic_weights; },
      {{CubicWeightsLayout::Grouped, "grouped"}, {CubicWeightsLayout::PerTarget, "per-target"}}));
  fields.push_back(enum_field<KeyDecoding>(
      "key-decoding", "sampling", "normalized|raw|offset-signed",
      "normalized integer keys (rotations, morph weights): c / (2^(b-1) - 1) signed, c / (2^b - 1) unsigned "
      "(glTF), the integer c itself, or signed as (2c + 1) / (2^b - 1) (OpenGL ES 2.0)",
      [](auto& c) -> auto& { return c.sampling.key_decoding; },
      {{KeyDecoding::Normalized, "normalized"}, {KeyDecoding::Raw, "raw"},
       {KeyDecoding::OffsetSigned, "offset-signed"}}));
}

// The joint-cap field: a count or "none", not an enum.
ConventionField joint_cap_field() {
  return ConventionField{"joint-cap", "palette", "none|N",
                         "palette entries from the N-th joint of a skin on stay the identity, as in an engine whose "
                         "palette holds N matrices",
                         [](const Conventions& c) {
                           return c.palette.joint_cap > 0 ? std::to_string(c.palette.joint_cap) : std::string("none");
                         },
                         [](Conventions& c, const std::string& text) {
                           int count = 0;
                           if (text == "none") c.palette.joint_cap = 0;
                           else if (parse_positive_int(text, 65536, count)) c.palette.joint_cap = count;
                           else
                             throw std::invalid_argument("convention joint-cap: '" + text +
                                                         "' is not none or a count of 1 to 65536");
                         },
                         {"256", "128", "64"},
                         {}};
}

// Hierarchy and palette step: the fields that build the joint palette.
void add_palette_fields(std::vector<ConventionField>& fields) {
  fields.push_back(enum_field<SkeletonAncestors>(
      "skeleton-ancestors", "palette", "kept|dropped|doubled",
      "the transforms of the nodes above the skin's skeleton root: kept (glTF), dropped, or (a mistake) applied "
      "twice",
      [](auto& c) -> auto& { return c.palette.skeleton_ancestors; },
      {{SkeletonAncestors::Kept, "kept"}, {SkeletonAncestors::Dropped, "dropped"},
       {SkeletonAncestors::Doubled, "doubled"}}));
  mark_mistakes(fields.back(), {"doubled"});
  fields.push_back(enum_field<MeshNodeTransform>(
      "mesh-node", "palette", "ignored|applied|inverse|normals-by-normal-matrix-times-inverse|applied-twice",
      "the skinned mesh node's global transform M: ignored (glTF), applied on top of the palette, or its inverse; "
      "or normals alone by N(M) M^-1 (three.js); or (a mistake) applied twice",
      [](auto& c) -> auto& { return c.palette.mesh_node; },
      {{MeshNodeTransform::Ignored, "ignored"}, {MeshNodeTransform::Applied, "applied"},
       {MeshNodeTransform::Inverse, "inverse"},
       {MeshNodeTransform::NormalMatrixTimesInverse, "normals-by-normal-matrix-times-inverse"},
       {MeshNodeTransform::AppliedTwice, "applied-twice"}}));
  mark_mistakes(fields.back(), {"applied-twice"});
  fields.push_back(enum_field<RestValues>(
      "rest-values", "palette", "node|identity",
      "the translation, rotation or scale that the played clip does not animate on a node it animates: the "
      "node's own (glTF) or the identity's",
      [](auto& c) -> auto& { return c.palette.rest_values; },
      {{RestValues::Node, "node"}, {RestValues::Identity, "identity"}}));
  fields.push_back(enum_field<GlobalShear>(
      "shear", "palette", "kept|dropped",
      "global transforms as matrices (glTF), or stored as TRS at every node so that the shear a non-uniformly "
      "scaled parent gives a turned child is dropped",
      [](auto& c) -> auto& { return c.palette.shear; },
      {{GlobalShear::Kept, "kept"}, {GlobalShear::Dropped, "dropped"}}));
  fields.push_back(joint_cap_field());
  fields.push_back(enum_field<UnnamedJoints>(
      "unnamed-joints", "palette", "posed|bind-pose",
      "a joint whose node has no name: posed as its node (glTF), or left at its bind pose (bones bound to nodes "
      "by name, as Assimp's clients do: Assimp names such a bone bone_i and its node nodes[i])",
      [](auto& c) -> auto& { return c.palette.unnamed_joints; },
      {{UnnamedJoints::Posed, "posed"}, {UnnamedJoints::BindPose, "bind-pose"}}));
}

// The morph-targets field: a count or "all", not an enum.
ConventionField morph_targets_field() {
  return ConventionField{"morph-targets", "morph", "all|K",
                         "at most K active morph targets per node, those of largest |weight|; 0: morph targets "
                         "unsupported",
                         [](const Conventions& c) {
                           return c.morph.max_targets >= 0 ? std::to_string(c.morph.max_targets)
                                                           : std::string("all");
                         },
                         [](Conventions& c, const std::string& text) {
                           int count = 0;
                           if (text == "all") c.morph.max_targets = kEveryMorphTarget;
                           else if (text == "0") c.morph.max_targets = 0;
                           else if (parse_positive_int(text, 1024, count)) c.morph.max_targets = count;
                           else
                             throw std::invalid_argument("convention morph-targets: '" + text +
                                                         "' is not all or a count of 0 to 1024");
                         },
                         {"1", "2", "3", "4", "8", "0"},
                         {}};
}

// Morph step: the fields that weigh and apply morph targets.
void add_morph_fields(std::vector<ConventionField>& fields) {
  fields.push_back(enum_field<MorphDefaults>(
      "morph-defaults", "morph", "used|ignored|mesh",
      "node.weights, else mesh.weights, as the unanimated morph weights; zeros; or mesh.weights even where "
      "node.weights is given",
      [](auto& c) -> auto& { return c.morph.defaults; },
      {{MorphDefaults::Used, "used"}, {MorphDefaults::Ignored, "ignored"}, {MorphDefaults::MeshOnly, "mesh"}}));
  fields.push_back(morph_targets_field());
  fields.push_back(enum_field<MorphOrder>(
      "morph-order", "morph", "before-skinning|after-skinning",
      "morph deltas added to the bind-space vertex (glTF) or to the skinned one",
      [](auto& c) -> auto& { return c.morph.order; },
      {{MorphOrder::BeforeSkinning, "before-skinning"}, {MorphOrder::AfterSkinning, "after-skinning"}}));
  fields.push_back(enum_field<NegativeMorphWeights>(
      "negative-morph-weights", "morph", "kept|clamped",
      "morph weights below 0: kept (glTF allows them) or clamped to 0 (Assimp clamps its animated weights)",
      [](auto& c) -> auto& { return c.morph.negative_weights; },
      {{NegativeMorphWeights::Kept, "kept"}, {NegativeMorphWeights::Clamped, "clamped"}}));
}

// Skinning step: the fields that blend the palette and transform normals.
void add_skinning_fields(std::vector<ConventionField>& fields) {
  fields.push_back(enum_field<WeightNormalization>(
      "weights", "skinning", "as-stored|sum|l2|equal|ones|last-from-others",
      "skinning weights as stored (glTF), divided by their sum, or divided by their L2 norm; the mistakes: every "
      "slot 1/k, every slot 1 (weights ignored), the last slot 1 - the others' sum",
      [](auto& c) -> auto& { return c.skinning.weights; },
      {{WeightNormalization::AsStored, "as-stored"}, {WeightNormalization::Sum, "sum"},
       {WeightNormalization::L2, "l2"}, {WeightNormalization::Equal, "equal"}, {WeightNormalization::Ones, "ones"},
       {WeightNormalization::LastFromOthers, "last-from-others"}}));
  mark_mistakes(fields.back(), {"equal", "ones", "last-from-others"});
  fields.push_back(enum_field<ZeroWeights>(
      "zero-weights", "skinning", "bind-pose|joint0",
      "a vertex whose weights sum to 0: kept at its bind position (skinref) or given to the skin's joint 0",
      [](auto& c) -> auto& { return c.skinning.zero_weights; },
      {{ZeroWeights::BindPose, "bind-pose"}, {ZeroWeights::FirstJoint, "joint0"}}));
  fields.push_back(enum_field<NormalTransform>(
      "normals", "skinning",
      "inverse-transpose|blend-normal-matrices|blend-upper3x3|as-point|blend-inverse-transposes|unskinned",
      "normals and tangents: inverse transpose of the blended matrix, per-joint normal matrices (cofactors) "
      "blended, the blended matrix's upper 3x3 applied to (n, 0), the blended matrix applied to (n, 1) as to a "
      "point, or the joints' inverse transposes blended (ozz-animation); unskinned (a mistake): left in bind space",
      [](auto& c) -> auto& { return c.skinning.normals; },
      {{NormalTransform::InverseTranspose, "inverse-transpose"},
       {NormalTransform::BlendNormalMatrices, "blend-normal-matrices"},
       {NormalTransform::BlendUpper3x3, "blend-upper3x3"}, {NormalTransform::AsPoint, "as-point"},
       {NormalTransform::BlendInverseTransposes, "blend-inverse-transposes"},
       {NormalTransform::Unskinned, "unskinned"}}));
  mark_mistakes(fields.back(), {"unskinned"});
  fields.push_back(enum_field<bool>(
      "normalize", "skinning", "yes|no", "skinned normals and tangents normalized, or left at their transformed length",
      [](auto& c) -> auto& { return c.skinning.normalize; }, {{true, "yes"}, {false, "no"}}));
}

// Every field, in the order they are listed (grouped by pipeline stage).
std::vector<ConventionField> make_fields() {
  std::vector<ConventionField> fields;
  add_reading_fields(fields);
  add_load_fields(fields);
  add_time_fields(fields);
  add_sampling_fields(fields);
  add_palette_fields(fields);
  add_morph_fields(fields);
  add_skinning_fields(fields);
  for (ConventionField& field : mistake_fields()) fields.push_back(std::move(field));
  return fields;
}

}  // namespace

const std::vector<ConventionField>& convention_fields() {
  static const std::vector<ConventionField> fields = make_fields();
  return fields;
}

const ConventionField* find_convention_field(const std::string& name) {
  for (const ConventionField& field : convention_fields())
    if (name == field.name) return &field;
  return nullptr;
}

namespace {
std::string field_names() {
  std::string names;
  for (const ConventionField& field : convention_fields()) names += (names.empty() ? "" : ", ") + std::string(field.name);
  return names;
}
}  // namespace

void set_convention(Conventions& conventions, const std::string& assignment) {
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw std::invalid_argument("convention '" + assignment + "': expected NAME=VALUE");
  const std::string name = assignment.substr(0, equals);
  const ConventionField* field = find_convention_field(name);
  if (!field) throw std::invalid_argument("unknown convention '" + name + "'; known: " + field_names());
  field->set(conventions, assignment.substr(equals + 1));
}

bool is_mistake(const std::string& assignment) {
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos) return false;
  const ConventionField* field = find_convention_field(assignment.substr(0, equals));
  if (!field) return false;
  const std::string value = assignment.substr(equals + 1);
  return std::find(field->mistakes.begin(), field->mistakes.end(), value) != field->mistakes.end();
}

std::string join_assignments(const std::vector<std::string>& assignments) {
  std::string text;
  for (const std::string& a : assignments) text += (text.empty() ? "" : ", ") + a;
  return text;
}

std::vector<std::string> split_assignments(const std::string& joined) {
  std::vector<std::string> assignments;
  for (size_t start = 0; start <= joined.size();) {
    const size_t comma = joined.find(", ", start);
    assignments.push_back(joined.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  return assignments;
}

std::vector<std::string> convention_differences(const Conventions& conventions) {
  static const Conventions kSpecification;
  std::vector<std::string> differences;
  for (const ConventionField& field : convention_fields()) {
    const std::string value = field.get(conventions);
    if (value != field.get(kSpecification)) differences.push_back(std::string(field.name) + "=" + value);
  }
  return differences;
}

std::string describe_conventions(const Conventions& conventions) {
  std::string text = "glTF 2.0";
  const std::vector<std::string> differences = convention_differences(conventions);
  for (size_t i = 0; i < differences.size(); ++i) text += (i == 0 ? " with " : ", ") + differences[i];
  return text;
}

bool same_accessor_reading(const LoadConventions& a, const LoadConventions& b) {
  return a.joint_sentinel == b.joint_sentinel && a.accessor_addressing == b.accessor_addressing &&
         a.sparse == b.sparse;
}

bool same_conventions(const Conventions& a, const Conventions& b) {
  for (const ConventionField& field : convention_fields())
    if (field.get(a) != field.get(b)) return false;
  return true;
}

nlohmann::ordered_json conventions_to_json(const Conventions& conventions) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const ConventionField& field : convention_fields()) object[field.name] = field.get(conventions);
  return object;
}

Conventions conventions_from_json(const nlohmann::ordered_json& object) {
  if (!object.is_object()) throw std::invalid_argument("conventions: expected a JSON object {\"NAME\": \"VALUE\"}");
  Conventions conventions;
  for (const auto& [name, value] : object.items()) {
    const ConventionField* field = find_convention_field(name);
    if (!field) throw std::invalid_argument("unknown convention '" + name + "'; known: " + field_names());
    if (!value.is_string())
      throw std::invalid_argument("convention " + name + ": expected a string, one of " + field->values);
    field->set(conventions, value.get<std::string>());
  }
  return conventions;
}

}  // namespace skinref

// The mistakes' own fields (core/mistakes.h) as ConventionFields: every non-default value a mistake.
#include "core/conventions.h"
#include "core/enum_field.h"

namespace skinref {
namespace {

using convention_detail::enum_field;

// A field of mistakes: its non-default values are mistakes, none a convention candidate.
ConventionField mistakes_only(ConventionField field) {
  field.mistakes = std::move(field.candidates);
  field.candidates.clear();
  return field;
}

void add_load_mistakes(std::vector<ConventionField>& fields) {
  fields.push_back(mistakes_only(enum_field<QuaternionOrder>(
      "quaternion-order", "load", "xyzw|wxyz",
      "rotations (nodes' and keys') read as glTF stores them, (x, y, z, w), or as (w, x, y, z)",
      [](auto& c) -> auto& { return c.mistakes.quaternion_order; },
      {{QuaternionOrder::Xyzw, "xyzw"}, {QuaternionOrder::Wxyz, "wxyz"}})));
  fields.push_back(mistakes_only(enum_field<RotationSense>(
      "rotation-sense", "load", "as-stored|conjugated",
      "every rotation (nodes' and keys') as stored, or its conjugate (-x, -y, -z, w): the inverse rotation",
      [](auto& c) -> auto& { return c.mistakes.rotations; },
      {{RotationSense::AsStored, "as-stored"}, {RotationSense::Conjugated, "conjugated"}})));
  fields.push_back(mistakes_only(enum_field<Handedness>(
      "handedness", "load", "as-stored|mesh-z-negated",
      "a handedness conversion done halfway: the mesh's positions, normals, tangents and morph deltas with z "
      "negated, the skeleton as stored",
      [](auto& c) -> auto& { return c.mistakes.handedness; },
      {{Handedness::AsStored, "as-stored"}, {Handedness::MeshZNegated, "mesh-z-negated"}})));
}

void add_time_mistakes(std::vector<ConventionField>& fields) {
  fields.push_back(mistakes_only(enum_field<TimeUnit>(
      "time-unit", "time", "seconds|frames|milliseconds|seconds-as-frames|seconds-as-milliseconds",
      "the clip sampled at t (glTF's seconds), 30 t (frames at 30 fps given as seconds), 1000 t (milliseconds "
      "given as seconds), t / 30 (seconds taken as frames) or t / 1000 (seconds taken as milliseconds)",
      [](auto& c) -> auto& { return c.mistakes.time_unit; },
      {{TimeUnit::Seconds, "seconds"}, {TimeUnit::Frames, "frames"}, {TimeUnit::Milliseconds, "milliseconds"},
       {TimeUnit::SecondsAsFrames, "seconds-as-frames"},
       {TimeUnit::SecondsAsMilliseconds, "seconds-as-milliseconds"}})));
  fields.push_back(mistakes_only(enum_field<AnimationPlayback>(
      "animation", "time", "played|not-played", "the clip played, or not at all: the rest pose",
      [](auto& c) -> auto& { return c.mistakes.animation; },
      {{AnimationPlayback::Played, "played"}, {AnimationPlayback::NotPlayed, "not-played"}})));
}

void add_sampling_mistakes(std::vector<ConventionField>& fields) {
  const auto channel_field = [](const char* name, const char* summary, auto member) {
    return mistakes_only(enum_field<ChannelUse>(name, "sampling", "played|ignored", summary, member,
                                                {{ChannelUse::Played, "played"}, {ChannelUse::Ignored, "ignored"}}));
  };
  fields.push_back(channel_field("translation-channels", "translation channels played, or ignored (the rest value)",
                                 [](auto& c) -> auto& { return c.mistakes.translation_channels; }));
  fields.push_back(channel_field("rotation-channels", "rotation channels played, or ignored (the rest value)",
                                 [](auto& c) -> auto& { return c.mistakes.rotation_channels; }));
  fields.push_back(channel_field("scale-channels", "scale channels played, or ignored (the rest value)",
                                 [](auto& c) -> auto& { return c.mistakes.scale_channels; }));
  fields.push_back(mistakes_only(enum_field<InterpolationFactor>(
      "interpolation-factor", "sampling", "forward|reversed",
      "between keys k and k+1, the factor u = (t - t_k) / (t_k+1 - t_k), or 1 - u",
      [](auto& c) -> auto& { return c.mistakes.interpolation_factor; },
      {{InterpolationFactor::Forward, "forward"}, {InterpolationFactor::Reversed, "reversed"}})));
  fields.push_back(mistakes_only(enum_field<KeyPair>(
      "key-pair", "sampling", "bracketing|one-late|one-early",
      "the keys a time between keys k and k+1 interpolates: k and k+1, k+1 and k+2, or k-1 and k (clamped to the "
      "clip's first and last pair), at the same factor",
      [](auto& c) -> auto& { return c.mistakes.key_pair; },
      {{KeyPair::Bracketing, "bracketing"}, {KeyPair::OneLate, "one-late"}, {KeyPair::OneEarly, "one-early"}})));
}

void add_hierarchy_mistakes(std::vector<ConventionField>& fields) {
  fields.push_back(mistakes_only(enum_field<ParentChain>(
      "parent-chain", "hierarchy", "composed|ignored|reversed",
      "a node's global transform: G(parent) L (glTF), L alone (locals used as globals), or L G(parent)",
      [](auto& c) -> auto& { return c.mistakes.parent_chain; },
      {{ParentChain::Composed, "composed"}, {ParentChain::Ignored, "ignored"}, {ParentChain::Reversed, "reversed"}})));
  fields.push_back(mistakes_only(enum_field<TrsOrder>(
      "trs-order", "hierarchy", "t-r-s|s-r-t|r-s-t|t-s-r",
      "a node's local matrix: T R S (glTF), S R T, R S T or T S R",
      [](auto& c) -> auto& { return c.mistakes.trs_order; },
      {{TrsOrder::TRS, "t-r-s"}, {TrsOrder::SRT, "s-r-t"}, {TrsOrder::RST, "r-s-t"}, {TrsOrder::TSR, "t-s-r"}})));
}

void add_palette_mistakes(std::vector<ConventionField>& fields) {
  fields.push_back(mistakes_only(enum_field<PaletteMatrices>(
      "palette-matrices", "palette", "as-computed|transposed",
      "each joint matrix as computed, or read transposed (row- and column-major mixed up): the vertex gets the "
      "upper rows of JM^T, R^T p, the translation lost into w",
      [](auto& c) -> auto& { return c.mistakes.palette_matrices; },
      {{PaletteMatrices::AsComputed, "as-computed"}, {PaletteMatrices::Transposed, "transposed"}})));
  fields.push_back(mistakes_only(enum_field<PaletteProduct>(
      "palette-product", "palette", "global-times-inverse-bind|inverse-bind-times-global",
      "the joint matrix G IBM (glTF), or the product in the other order, IBM G",
      [](auto& c) -> auto& { return c.mistakes.palette_product; },
      {{PaletteProduct::GlobalTimesInverseBind, "global-times-inverse-bind"},
       {PaletteProduct::InverseBindTimesGlobal, "inverse-bind-times-global"}})));
  fields.push_back(mistakes_only(enum_field<InverseBindUse>(
      "inverse-bind-use", "palette", "once|missing|twice|transposed",
      "the inverse bind matrix in the joint matrix: once (glTF), missing (JM = G), twice (G IBM IBM), or "
      "transposed (the upper rows of G IBM^T)",
      [](auto& c) -> auto& { return c.mistakes.inverse_bind_use; },
      {{InverseBindUse::Once, "once"}, {InverseBindUse::Missing, "missing"}, {InverseBindUse::Twice, "twice"},
       {InverseBindUse::Transposed, "transposed"}})));
}

void add_skinning_mistakes(std::vector<ConventionField>& fields) {
  fields.push_back(mistakes_only(enum_field<MorphWeightTargets>(
      "morph-weights", "morph", "in-order|shifted|reversed",
      "morph weight k applied to target k (glTF), to target k+1 (cyclically), or to target N-1-k",
      [](auto& c) -> auto& { return c.mistakes.morph_weights; },
      {{MorphWeightTargets::InOrder, "in-order"}, {MorphWeightTargets::Shifted, "shifted"},
       {MorphWeightTargets::Reversed, "reversed"}})));
  fields.push_back(mistakes_only(enum_field<SkinningUse>(
      "skinning", "skinning", "applied|skipped",
      "skinning applied, or skipped: positions, normals and tangents left in bind space",
      [](auto& c) -> auto& { return c.mistakes.skinning; },
      {{SkinningUse::Applied, "applied"}, {SkinningUse::Skipped, "skipped"}})));
  fields.push_back(mistakes_only(enum_field<int>(
      "joint-offset", "skinning", "0|1",
      "joint index j read as j (glTF), or as j + 1 (a 1-based index, an extra root entry); past the skin's last "
      "joint, the identity",
      [](auto& c) -> auto& { return c.mistakes.joint_offset; }, {{0, "0"}, {1, "1"}})));
}

}  // namespace

std::vector<ConventionField> mistake_fields() {
  std::vector<ConventionField> fields;
  add_load_mistakes(fields);
  add_time_mistakes(fields);
  add_sampling_mistakes(fields);
  add_hierarchy_mistakes(fields);
  add_palette_mistakes(fields);
  add_skinning_mistakes(fields);
  return fields;
}

double time_unit_factor(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::Seconds: return 1.0;
    case TimeUnit::Frames: return 30.0;
    case TimeUnit::Milliseconds: return 1000.0;
    case TimeUnit::SecondsAsFrames: return 1.0 / 30.0;
    case TimeUnit::SecondsAsMilliseconds: return 1.0 / 1000.0;
  }
  return 1.0;
}

}  // namespace skinref

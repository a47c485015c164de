// Implementation mistakes: the bugs people make writing skinning code (a transposed palette, no parent chain,
// quaternions read as wxyz, skinning not applied), each as one value that the reference evaluates as it
// evaluates an engine convention, so that diagnose can name it from an engine's dumps (docs/mistakes.md lists
// each one's formula, symptom and a public report of it).
//
// Contract:
// - Mistakes{} is the absence of every mistake (glTF 2.0). Each field is a `NAME=VALUE` of convention_fields()
//   (core/conventions.h): the CLI's --convention, the conventions JSON, the dumps' record and the verdicts
//   spell it alike. A few mistakes are values of a convention's own field (mesh-node=applied-twice,
//   skeleton-ancestors=doubled, influences=first-influence, weights=equal|ones|last-from-others,
//   normals=unskinned): ConventionField::mistakes lists them; they are no candidates of their field.
// - is_mistake() says whether one assignment names a mistake rather than a design choice; diagnose tries the
//   mistakes only where glTF 2.0 itself leaves values over.
// - Each field names the stage that applies it, and that stage alone does: load (quaternion-order, rotation-sense,
//   handedness: the scene as read; anim/scene_mistakes.h), time (time-unit, animation: anim/time_mapping.h,
//   anim/evaluate_pose.h), sampling (the channels, interpolation-factor, key-pair: anim/sampling.h), hierarchy
//   (parent-chain, trs-order: anim/evaluate_pose.h), palette (palette-matrices, palette-product,
//   inverse-bind-use: anim/palette.h), morph (morph-weights: anim/evaluate_pose.h), skinning (skinning,
//   joint-offset: skin/evaluate_vertices.h).
#pragma once

#include <string>

namespace skinref {

// ---- load: how the file's values are read ----
enum class QuaternionOrder { Xyzw, Wxyz };       // glTF's (x, y, z, w), or the four read as (w, x, y, z)
enum class RotationSense { AsStored, Conjugated };  // every rotation q, or its conjugate (-x, -y, -z, w)
enum class Handedness { AsStored, MeshZNegated };  // MeshZNegated: the mesh's z negated, the skeleton's not

// ---- time ----
// The time the clip is sampled at: t (seconds), 30 t (frames at 30 fps given as seconds), 1000 t
// (milliseconds given as seconds), t / 30 (seconds taken as frames), t / 1000 (seconds taken as milliseconds).
enum class TimeUnit { Seconds, Frames, Milliseconds, SecondsAsFrames, SecondsAsMilliseconds };
enum class AnimationPlayback { Played, NotPlayed };  // NotPlayed: the rest pose

// ---- sampling ----
enum class ChannelUse { Played, Ignored };
enum class InterpolationFactor { Forward, Reversed };  // Reversed: 1 - u between the same two keys
enum class KeyPair { Bracketing, OneLate, OneEarly };  // keys (k, k+1), (k+1, k+2) or (k-1, k), clamped

// ---- hierarchy ----
enum class ParentChain { Composed, Ignored, Reversed };  // G = G(parent) L, G = L, or G = L G(parent)
enum class TrsOrder { TRS, SRT, RST, TSR };              // the local matrix's product order

// ---- palette ----
enum class PaletteMatrices { AsComputed, Transposed };
enum class PaletteProduct { GlobalTimesInverseBind, InverseBindTimesGlobal };
enum class InverseBindUse { Once, Missing, Twice, Transposed };

// ---- morph ----
enum class MorphWeightTargets { InOrder, Shifted, Reversed };

// ---- skinning ----
enum class SkinningUse { Applied, Skipped };

struct Mistakes {
  QuaternionOrder quaternion_order = QuaternionOrder::Xyzw;
  RotationSense rotations = RotationSense::AsStored;
  Handedness handedness = Handedness::AsStored;
  TimeUnit time_unit = TimeUnit::Seconds;
  AnimationPlayback animation = AnimationPlayback::Played;
  ChannelUse translation_channels = ChannelUse::Played;
  ChannelUse rotation_channels = ChannelUse::Played;
  ChannelUse scale_channels = ChannelUse::Played;
  InterpolationFactor interpolation_factor = InterpolationFactor::Forward;
  KeyPair key_pair = KeyPair::Bracketing;
  ParentChain parent_chain = ParentChain::Composed;
  TrsOrder trs_order = TrsOrder::TRS;
  PaletteMatrices palette_matrices = PaletteMatrices::AsComputed;
  PaletteProduct palette_product = PaletteProduct::GlobalTimesInverseBind;
  InverseBindUse inverse_bind_use = InverseBindUse::Once;
  MorphWeightTargets morph_weights = MorphWeightTargets::InOrder;
  SkinningUse skinning = SkinningUse::Applied;
  int joint_offset = 0;  // 0, or 1: joint j read as j + 1 (past the skin's last joint: the identity)
};

// The time mapping's part of a mistake: the factor the playback time is multiplied by (1 for seconds).
double time_unit_factor(TimeUnit unit);

}  // namespace skinref

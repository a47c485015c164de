// An engine's profile: the departures that hold across a whole run of dumps (compressed keys, the rotation
// interpolation, the normal rule, approximate arithmetic), found over several models before any one is judged,
// so that each model is then judged given them: it passes its rule given the profile, or departs in its own
// way (diagnose with the profile as what is known of the engine).
//
// Contract:
// - Inputs: one ProfileModel per model (its scene, clip, method, dumps and reload, as diagnose takes them) and
//   the bounds model. A model fails when a value of its dumps is over its bound under the profile so far.
// - Conventions, greedy: every candidate of the profile's fields (profile_candidates(): each key quantization
//   alone and with key-scope=every-joint, rotation interpolation, the normal rules, morph-targets=0,
//   resampling) is scored on every failing model. It helps a model when it removes at least kProfileHelp of
//   the squared distance there. The candidate that helps the most models joins the profile if it helps more
//   than kProfileQuorum of the failing models and at least kProfileMinimumModels (ties: the more squared
//   distance removed, summed over the models as shares, then the candidates' order); then again, until none
//   does. A departure that only some models show (one rule's failure) never joins: it is that model's own.
// - Allowances: each model still failing is diagnosed given the profile's conventions, so that its own
//   departures are named first (in full or in part); the allowances diagnose then fits on what they leave
//   (each kind alone that explains the model, else the three together) are the model's. Of the kinds that
//   explain alone more than kProfileQuorum of the failing models, and at least kProfileMinimumModels, the one
//   whose sizes spread the least (80th over 20th percentile) joins the profile, at the median of its sizes:
//   vertex dumps rarely tell the kinds apart on one model, but an engine's own error is one size across the
//   run, while a stand-in kind needs a size that follows each model's geometry. Else the three together, each
//   at the median of the joint fits, if those hold on as many. An engine whose failures are its own departures
//   has no allowance; the models a structural departure fails are not fitted within kLargestAllowance.
// - Fewer than kProfileMinimumModels failing models: the empty profile (nothing holds across the run).
// - Deterministic: the same models give the same profile.
// - profile_json() / profile_from_json(): {"format": "skinref-engine-profile", "version": 1, "conventions":
//   ["NAME=VALUE", ...], "allowances": {"rotation_rad": r, "translation_scale_relative": t,
//   "interpolation_relative": i}}; the reader refuses another format, an unknown convention, a negative or
//   non-finite size (InputError naming `file` and the JSON pointer).
#pragma once

#include "verify/diagnose.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <string>
#include <vector>

namespace skinref {

inline constexpr double kProfileHelp = 0.5;       // the share of a model's squared distance a candidate removes
inline constexpr double kProfileQuorum = 0.5;     // the share of the failing models it must help, exceeded
inline constexpr size_t kProfileMinimumModels = 3;

struct ProfileModel {
  std::string label;  // e.g. the case's id
  const Scene* scene = nullptr;
  int animation = -1;
  SkinningMethod method = kDefaultSkinningMethod;
  std::vector<DiagnoseObservation> observations;
  std::function<Scene(const LoadConventions& reading)> reload;
};

// One convention taken into the profile: how many of the failing models it helped, of how many.
struct ProfileStep {
  std::vector<std::string> settings;
  size_t helped = 0;
  size_t failing = 0;
};

struct EngineProfile {
  std::vector<std::string> settings;  // the conventions that hold across the run, in pipeline order
  EngineAllowances allowances;
  std::vector<ProfileStep> steps;
  size_t allowance_models = 0;  // the failing models the allowances were fitted on
  size_t models = 0, failing = 0;  // the models given, and those failing under glTF 2.0
  bool empty() const { return settings.empty() && !allowances.any(); }
};

std::vector<std::vector<std::string>> profile_candidates();
EngineProfile find_engine_profile(const std::vector<ProfileModel>& models, BoundsModel bounds);

// glTF 2.0 with the profile's conventions; the allowances go to DiagnoseSettings::allowances.
Conventions profile_conventions(const EngineProfile& profile);
// "keys compressed (key-translation-scale=half, key-rotation=q15-offset, key-scope=every-joint), rotation=nlerp;
// the bounds widened as for key rotations within 7.8e-05 rad", or "empty: nothing departs across the run".
std::string describe_engine_profile(const EngineProfile& profile);

nlohmann::ordered_json profile_json(const EngineProfile& profile);
EngineProfile profile_from_json(const nlohmann::json& json, const std::string& file);
// The profile file at `path` (strict JSON: core/strict_json.h); InputError when it cannot be read.
EngineProfile read_engine_profile(const std::string& path);

}  // namespace skinref

#include "profile/engine_profile.h"

#include "core/input_error.h"
#include "core/strict_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

namespace skinref {
namespace {

const std::set<std::string> kProfileFields{"key-translation-scale", "key-rotation", "key-scope", "rotation",
                                           "normals", "morph-targets", "resample"};

std::string field_of(const std::string& assignment) { return assignment.substr(0, assignment.find('=')); }

// `a` and `b` together, in pipeline order (the spelling of convention_differences()).
std::vector<std::string> combined(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  Conventions conventions;
  for (const std::string& assignment : a) set_convention(conventions, assignment);
  for (const std::string& assignment : b) set_convention(conventions, assignment);
  return convention_differences(conventions);
}

bool shares_a_field(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const std::string& x : a)
    for (const std::string& y : b)
      if (field_of(x) == field_of(y)) return true;
  return false;
}

// One model's evaluator and its score under the profile so far.
struct ModelState {
  std::unique_ptr<CandidateEvaluator> evaluator;
  CandidateScore current;
};

std::vector<ModelState> model_states(const std::vector<ProfileModel>& models, BoundsModel bounds) {
  std::vector<ModelState> states;
  for (const ProfileModel& model : models) {
    DiagnoseSettings settings;
    settings.animation = model.animation;
    settings.method = model.method;
    settings.bounds = bounds;
    settings.reload = model.reload;
    ModelState state;
    state.evaluator = std::make_unique<CandidateEvaluator>(*model.scene, model.observations, settings);
    state.current = state.evaluator->score({}, {});
    states.push_back(std::move(state));
  }
  return states;
}

std::vector<size_t> failing_models(const std::vector<ModelState>& states) {
  std::vector<size_t> failing;
  for (size_t m = 0; m < states.size(); ++m)
    if (states[m].current.failing() != 0) failing.push_back(m);
  return failing;
}

// Whether something true of `models` of the `failing` models holds across the run: more than kProfileQuorum of
// them, and at least kProfileMinimumModels.
bool holds_across_the_run(size_t models, size_t failing) {
  return double(models) > kProfileQuorum * double(failing) && models >= kProfileMinimumModels;
}

// The candidate that helps the most failing models, if it helps enough of them to hold across the run.
struct Choice {
  std::vector<std::string> settings;
  size_t helped = 0;
  double removed = 0.0;  // the shares of squared distance removed, summed over the models helped
};

Choice best_profile_step(std::vector<ModelState>& states, const std::vector<size_t>& failing,
                         const std::vector<std::string>& profile) {
  Choice best;
  for (const std::vector<std::string>& candidate : profile_candidates()) {
    if (shares_a_field(profile, candidate)) continue;
    const std::vector<std::string> settings = combined(profile, candidate);
    Choice choice{settings, 0, 0.0};
    for (size_t m : failing) {
      const double before = states[m].current.residual_squares;
      const double after = states[m].evaluator->score(settings, {}).residual_squares;
      if (before > 0.0 && after <= (1.0 - kProfileHelp) * before) {
        ++choice.helped;
        choice.removed += 1.0 - after / before;
      }
    }
    if (choice.helped > best.helped || (choice.helped == best.helped && choice.removed > best.removed))
      best = std::move(choice);
  }
  return holds_across_the_run(best.helped, failing.size()) ? best : Choice{};
}

double median_of(std::vector<double> sizes) {
  std::sort(sizes.begin(), sizes.end());
  return sizes[sizes.size() / 2];
}

// How far the sizes spread: the 80th percentile over the 20th.
double spread_of(std::vector<double> sizes) {
  std::sort(sizes.begin(), sizes.end());
  const double low = sizes[sizes.size() / 5], high = sizes[sizes.size() - 1 - sizes.size() / 5];
  return low > 0.0 ? high / low : std::numeric_limits<double>::infinity();
}

// The allowances of the run, fitted on the models still failing under the profile's conventions: the one kind
// that explains the most of them alone, at the median of its sizes; else, when none explains more than
// kProfileQuorum of them alone, the three together, each at the median of the joint fits.
void fit_profile_allowances(const std::vector<ModelState>& states, const std::vector<ProfileModel>& models,
                            BoundsModel bounds, EngineProfile& profile) {
  double EngineAllowances::*const kinds[] = {&EngineAllowances::rotation, &EngineAllowances::translation_scale,
                                             &EngineAllowances::interpolation};
  std::vector<std::vector<double>> alone(3);  // per kind, its sizes on the models it explains alone
  std::vector<EngineAllowances> joint;        // the models only the three together explain
  const std::vector<size_t> failing = failing_models(states);
  for (size_t m : failing) {
    // diagnose given the profile names the model's own departures first, then fits allowances on what is left.
    DiagnoseSettings settings;
    settings.animation = models[m].animation;
    settings.method = models[m].method;
    settings.bounds = bounds;
    settings.reload = models[m].reload;
    settings.base = profile_conventions(profile);
    const Diagnosis diagnosis = diagnose(*models[m].scene, models[m].observations, settings);
    if (diagnosis.explained || diagnosis.matches_specification) continue;
    for (const AllowanceFit& fit : diagnosis.allowance_fits) {
      size_t nonzero = 0, kind = 0;
      for (size_t k = 0; k < 3; ++k)
        if (fit.allowances.*kinds[k] > 0.0) ++nonzero, kind = k;
      if (nonzero == 1) alone[kind].push_back(fit.allowances.*kinds[kind]);
      else joint.push_back(fit.allowances);
    }
  }
  // Of the kinds that explain enough models alone, the one whose size holds best across them (the smallest
  // spread): an engine's own error is one size everywhere, while a stand-in kind needs a size that follows
  // each model's geometry.
  // An allowance describes the run: it must hold on more than kProfileQuorum of the failing models, and on at
  // least kProfileMinimumModels (an engine whose failures are its own departures has none).
  auto holds = [&](size_t models) { return holds_across_the_run(models, failing.size()); };
  std::optional<size_t> best;
  for (size_t k = 0; k < 3; ++k) {
    if (!holds(alone[k].size())) continue;
    if (!best || spread_of(alone[k]) < spread_of(alone[*best])) best = k;
  }
  if (best) {
    profile.allowances.*kinds[*best] = median_of(alone[*best]);
    profile.allowance_models = alone[*best].size();
    return;
  }
  if (!holds(joint.size())) return;
  for (double EngineAllowances::*kind : kinds) {
    std::vector<double> sizes;
    for (const EngineAllowances& a : joint) sizes.push_back(a.*kind);
    profile.allowances.*kind = median_of(sizes);
  }
  profile.allowance_models = joint.size();
}

}  // namespace

std::vector<std::vector<std::string>> profile_candidates() {
  std::vector<std::vector<std::string>> candidates;
  for (const std::vector<std::string>& candidate : diagnose_candidates()) {
    bool global = true;
    for (const std::string& assignment : candidate)
      global &= kProfileFields.count(field_of(assignment)) != 0 &&
                (field_of(assignment) != "morph-targets" || assignment == "morph-targets=0");
    if (global) candidates.push_back(candidate);
  }
  return candidates;
}

EngineProfile find_engine_profile(const std::vector<ProfileModel>& models, BoundsModel bounds) {
  EngineProfile profile;
  profile.models = models.size();
  std::vector<ModelState> states = model_states(models, bounds);
  profile.failing = failing_models(states).size();
  for (;;) {
    const std::vector<size_t> failing = failing_models(states);
    if (failing.size() < kProfileMinimumModels) return profile;
    const Choice step = best_profile_step(states, failing, profile.settings);
    if (step.settings.empty()) break;
    std::vector<std::string> added;
    for (const std::string& s : step.settings)
      if (std::find(profile.settings.begin(), profile.settings.end(), s) == profile.settings.end()) added.push_back(s);
    profile.steps.push_back({added, step.helped, failing.size()});
    profile.settings = step.settings;
    for (ModelState& state : states) state.current = state.evaluator->score(profile.settings, {});
  }
  fit_profile_allowances(states, models, bounds, profile);
  return profile;
}

Conventions profile_conventions(const EngineProfile& profile) {
  Conventions conventions;
  for (const std::string& assignment : profile.settings) set_convention(conventions, assignment);
  return conventions;
}

std::string describe_engine_profile(const EngineProfile& profile) {
  if (profile.empty()) return "empty: nothing departs across the run";
  std::string text;
  for (const ProfileStep& step : profile.steps) {
    text += (text.empty() ? "" : "; ") + join_assignments(step.settings) + " (helps " + std::to_string(step.helped) + " of " +
            std::to_string(step.failing) + " failing models)";
  }
  if (profile.allowances.any())
    text += (text.empty() ? "" : "; ") + std::string("the bounds widened as for ") +
            describe_engine_allowances(profile.allowances) + " (fitted on " + std::to_string(profile.allowance_models) +
            " models)";
  return text;
}

nlohmann::ordered_json profile_json(const EngineProfile& profile) {
  nlohmann::ordered_json json;
  json["format"] = "skinref-engine-profile";
  json["version"] = 1;
  json["conventions"] = profile.settings;
  json["allowances"] = {{"rotation_rad", profile.allowances.rotation},
                        {"translation_scale_relative", profile.allowances.translation_scale},
                        {"interpolation_relative", profile.allowances.interpolation}};
  return json;
}

EngineProfile profile_from_json(const nlohmann::json& json, const std::string& file) {
  if (!json.is_object() || json.value("format", "") != "skinref-engine-profile")
    throw InputError(file, "/format", "\"skinref-engine-profile\"");
  if (!json.contains("version") || json["version"] != 1) throw InputError(file, "/version", "1");
  EngineProfile profile;
  const auto conventions = json.find("conventions");
  if (conventions == json.end() || !conventions->is_array()) throw InputError(file, "/conventions", "an array of \"NAME=VALUE\"");
  for (size_t i = 0; i < conventions->size(); ++i) {
    const std::string pointer = "/conventions/" + std::to_string(i);
    if (!(*conventions)[i].is_string()) throw InputError(file, pointer, "a string \"NAME=VALUE\"");
    try {
      Conventions check;
      set_convention(check, (*conventions)[i].get<std::string>());
    } catch (const std::invalid_argument& e) {
      throw InputError(file, pointer, std::string("a known convention (") + e.what() + ")");
    }
    profile.settings.push_back((*conventions)[i].get<std::string>());
  }
  profile.settings = combined(profile.settings, {});
  const auto allowances = json.find("allowances");
  if (allowances == json.end() || !allowances->is_object()) throw InputError(file, "/allowances", "an object");
  auto size = [&](const char* name) {
    const auto found = allowances->find(name);
    if (found == allowances->end()) return 0.0;
    if (!found->is_number() || !std::isfinite(found->get<double>()) || found->get<double>() < 0.0)
      throw InputError(file, std::string("/allowances/") + name, "a finite size >= 0");
    return found->get<double>();
  };
  profile.allowances.rotation = size("rotation_rad");
  profile.allowances.translation_scale = size("translation_scale_relative");
  profile.allowances.interpolation = size("interpolation_relative");
  return profile;
}

EngineProfile read_engine_profile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable engine profile (the profile.json a conformance run writes)");
  std::ostringstream text;
  text << in.rdbuf();
  return profile_from_json(parse_strict_json(text.str(), path), path);
}

}  // namespace skinref

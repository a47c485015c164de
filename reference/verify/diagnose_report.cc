// The report of a diagnosis (verify/diagnose.h): the verdict and its figures for a terminal, and the same as
// JSON for --report.
#include "verify/diagnose.h"

#include "core/number_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace skinref {
namespace {

std::string settings_text(const std::vector<std::string>& settings) { return join_assignments(settings); }

std::string counts_text(const CandidateScore& s) {
  std::string text = std::to_string(s.over) + " of " + std::to_string(s.values) + " values over";
  if (s.unbounded) text += ", " + std::to_string(s.unbounded) + " unbounded";
  if (s.unnormalized) text += ", " + std::to_string(s.unnormalized) + " not unit length";
  return text;
}

std::string over_by_attribute(const CandidateScore& s) {
  return "positions " + std::to_string(s.over_positions) + ", normals " + std::to_string(s.over_normals) +
         ", tangents " + std::to_string(s.over_tangents);
}

// "partly explained by X": what the candidate removes, and what it leaves with where that first shows.
void print_partial(const Diagnosis& d, const std::string& base_name, std::ostream& out) {
  const PartialExplanation& p = *d.partial;
  out << "partly explained by " << settings_text(p.score.settings) << ": it leaves "
      << number_text(1.0 - p.removed_share) << " of the squared distance from " << base_name
      << "; worst error/bound " << number_text(d.base.max_ratio) << " -> " << number_text(p.score.max_ratio)
      << ", values failing " << d.base.failing() << " -> " << p.score.failing() << "\n";
  if (!p.equally.empty()) {
    out << "  equally explained in part by:";
    for (const std::string& other : p.equally) out << " [" << other << "]";
    out << "\n";
  }
  const StageDivergence& r = p.rest_stage;
  out << "  left unexplained: " << counts_text(p.score) << " (" << over_by_attribute(p.score)
      << "); under it the first stage over its bound is " << pipeline_stage_name(r.stage) << " (" << r.values_over
      << " values over, in " << p.rest_stage_label << "); worst: " << r.location << ": error "
      << number_text(r.error) << ", bound " << number_text(r.bound) << "\n";
}

// The mistakes among `settings` (core/mistakes.h), and the design choices.
std::vector<std::string> mistakes_in(const std::vector<std::string>& settings, bool mistakes) {
  std::vector<std::string> chosen;
  for (const std::string& s : settings)
    if (is_mistake(s) == mistakes) chosen.push_back(s);
  return chosen;
}

// "explained by a mistake in the code: X (with the conventions Y)": a bug, not an engine's design choice.
void print_mistake_verdict(const Diagnosis& d, const std::string& base_name, std::ostream& out) {
  const CandidateScore& best = d.best();
  const std::vector<std::string> conventions = mistakes_in(best.settings, false);
  out << "a mistake in the code, not a design choice: " << settings_text(mistakes_in(best.settings, true))
      << (conventions.empty() ? "" : " (on " + base_name + " with " + settings_text(conventions) + ")") << ": "
      << counts_text(best) << " (as specified: " << counts_text(d.base) << "; docs/mistakes.md)\n";
}

}  // namespace

void print_diagnosis(const Diagnosis& d, std::ostream& out) {
  const std::string base_name =
      d.base_settings.empty() ? std::string("glTF 2.0") : "glTF 2.0 with " + settings_text(d.base_settings);
  const CandidateScore& best = d.best();
  if (d.matches_specification) {
    out << "matches " << base_name << ": " << counts_text(d.base) << "\n";
    for (const CandidateScore& closer : d.closer_fits)
      out << "  but " << settings_text(closer.settings) << " fits " << number_text(d.base.residual / std::max(closer.residual, 1e-300))
          << " times closer (largest distance " << number_text(closer.residual) << " of the extent, against "
          << number_text(d.base.residual) << " for " << base_name << "): the bounds are too wide to tell, the dumps are not\n";
  } else if (d.explained && !mistakes_in(best.settings, true).empty()) {
    print_mistake_verdict(d, base_name, out);
    if (!d.equally.empty()) {
      out << "  equally explained by:";
      for (const std::string& other : d.equally) out << " [" << other << "]";
      out << "\n";
    }
  } else if (d.explained) {
    out << "matches " << base_name << " with " << settings_text(best.settings) << ": " << counts_text(best)
        << " (as specified: " << counts_text(d.base) << ")\n";
    if (!d.equally.empty()) {
      out << "  equally explained by:";
      for (const std::string& other : d.equally) out << " [" << other << "]";
      out << "\n";
    }
  } else {
    if (d.partial) print_partial(d, base_name, out);
    out << (d.partial ? "not explained whole: " : "no known convention or mistake explains it: ") << base_name << " has "
        << counts_text(d.base) << " (positions " << d.base.over_positions << ", normals " << d.base.over_normals
        << ", tangents " << d.base.over_tangents << ")\n";
    const StageDivergence& f = d.first_stage;
    out << "  first stage over its bound: " << pipeline_stage_name(f.stage) << " (" << f.values_over
        << " values over, in " << d.first_stage_label << "); worst: " << f.location << ": error " << number_text(f.error)
        << ", bound " << number_text(f.bound) << "\n";
    if (!d.ranked.empty())
      out << "  closest: " << settings_text(best.settings) << ": " << counts_text(best) << "\n";
    for (const TimeMismatch& m : d.time_mismatches)
      out << "  " << m.label << " matches t = " << number_text(m.fits) << ", not the t = " << number_text(m.given)
          << " given: the engine played another time (within the float32 bounds there)\n";
    for (size_t i = 0; i < d.allowance_fits.size(); ++i) {
      const AllowanceFit& a = d.allowance_fits[i];
      out << (i == 0 ? "  within allowances: " : "    or: ")
          << (a.settings.empty() ? base_name : base_name + " with " + settings_text(a.settings))
          << ", the bounds widened as for " << describe_engine_allowances(a.allowances) << ": " << counts_text(a.score)
          << (i == 0 ? " (the size the bounds need, not a measure of the engine's error; it names no rule)" : "")
          << "\n";
    }
  }
  for (const SettingEffect& effect : d.effects)
    out << "  " << effect.setting << ": moves positions by up to " << number_text(effect.effect)
        << " of the extent, normals by up to " << number_text(effect.normal_effect) << "\n";
  if (!d.effects.empty() || d.matches_specification)
    out << "  the engine's own error against it: up to " << number_text(d.engine_error) << " of the extent ("
        << number_text(d.extent) << " m), within the float32 bounds: " << (best.failing() == 0 ? "yes" : "no") << "\n";
  out << "  " << d.candidates_tried << " candidates evaluated; " << d.no_effect.size()
      << " change nothing on this model\n";
}

nlohmann::ordered_json diagnosis_json(const Diagnosis& d) {
  auto score_json = [](const CandidateScore& s) {
    nlohmann::ordered_json json;
    json["settings"] = s.settings;
    json["values"] = s.values;
    json["over"] = s.over;
    json["unbounded"] = s.unbounded;
    json["unnormalized"] = s.unnormalized;
    json["over_by_attribute"] = {{"positions", s.over_positions}, {"normals", s.over_normals},
                                 {"tangents", s.over_tangents}};
    json["max_ratio"] = std::isfinite(s.max_ratio) ? nlohmann::ordered_json(s.max_ratio) : nlohmann::ordered_json(nullptr);
    json["residual_extent"] = s.residual;
    return json;
  };
  nlohmann::ordered_json json;
  json["format"] = "skinref-diagnosis";
  json["version"] = 1;
  json["base_conventions"] = d.base_settings;
  json["matches_specification"] = d.matches_specification;
  json["explained"] = d.explained;
  json["verdict"] = d.best().settings;
  json["mistakes"] = d.explained ? mistakes_in(d.best().settings, true) : std::vector<std::string>{};
  json["equally"] = d.equally;
  nlohmann::ordered_json closer = nlohmann::ordered_json::array();
  for (const CandidateScore& c : d.closer_fits) closer.push_back({{"settings", c.settings}, {"residual_extent", c.residual}});
  json["closer_fits"] = closer;
  json["specification"] = score_json(d.base);
  nlohmann::ordered_json ranked = nlohmann::ordered_json::array();
  for (const CandidateScore& s : d.ranked) ranked.push_back(score_json(s));
  json["ranked"] = ranked;
  json["no_effect"] = d.no_effect;
  json["extent"] = d.extent;
  json["engine_error_extent"] = d.engine_error;
  nlohmann::ordered_json effects = nlohmann::ordered_json::array();
  for (const SettingEffect& e : d.effects)
    effects.push_back({{"setting", e.setting}, {"effect_extent", e.effect}, {"normal_effect", e.normal_effect}});
  json["effects"] = effects;
  json["candidates_tried"] = d.candidates_tried;
  if (!d.explained && !d.matches_specification) {
    json["first_stage"] = {{"stage", pipeline_stage_name(d.first_stage.stage)}, {"dump", d.first_stage_label},
                           {"values_over", d.first_stage.values_over}, {"location", d.first_stage.location},
                           {"error", d.first_stage.error}, {"bound", d.first_stage.bound}};
    nlohmann::ordered_json mismatches = nlohmann::ordered_json::array();
    for (const TimeMismatch& m : d.time_mismatches)
      mismatches.push_back({{"dump", m.label}, {"given", m.given}, {"fits", m.fits}});
    json["time_mismatches"] = mismatches;
    nlohmann::ordered_json fits = nlohmann::ordered_json::array();
    for (const AllowanceFit& a : d.allowance_fits) {
      nlohmann::ordered_json fit = score_json(a.score);
      fit["allowances"] = {{"rotation_rad", a.allowances.rotation},
                           {"translation_scale_relative", a.allowances.translation_scale},
                           {"interpolation_relative", a.allowances.interpolation}};
      fits.push_back(fit);
    }
    json["allowance_fits"] = fits;
    if (d.partial) {
      const PartialExplanation& p = *d.partial;
      nlohmann::ordered_json partial = score_json(p.score);
      partial["removed_share"] = p.removed_share;
      partial["equally"] = p.equally;
      partial["rest_first_stage"] = {{"stage", pipeline_stage_name(p.rest_stage.stage)}, {"dump", p.rest_stage_label},
                                     {"values_over", p.rest_stage.values_over}, {"location", p.rest_stage.location},
                                     {"error", p.rest_stage.error}, {"bound", p.rest_stage.bound}};
      json["partial"] = partial;
    }
  }
  return json;
}

}  // namespace skinref

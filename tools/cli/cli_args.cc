// Argument parsing and value checking for the skinref command line (see cli_args.h).
#include "cli/cli_args.h"

#include "anim/recipe.h"
#include "skin/method.h"
#include <map>
#include <nlohmann/json.hpp>
#include <fstream>
#include "core/input_error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace skinref::cli {
namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string to_lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

}  // namespace

bool ParsedArgs::has_flag(const std::string& name) const {
  return std::find(flags.begin(), flags.end(), name) != flags.end();
}

std::optional<std::string> ParsedArgs::value(const std::string& name) const {
  const auto found = values.find(name);
  if (found == values.end()) return std::nullopt;
  return found->second;
}

std::vector<std::string> ParsedArgs::values_of(const std::string& name) const {
  const auto found = repeated.find(name);
  if (found != repeated.end()) return found->second;
  const std::optional<std::string> single = value(name);
  return single ? std::vector<std::string>{*single} : std::vector<std::string>{};
}

void require_positionals(const ParsedArgs& parsed, size_t count, const std::string& what,
                         const std::string& command) {
  if (parsed.positionals.size() < count) throw UsageError(command + ": missing " + what);
  if (parsed.positionals.size() > count) {
    throw UsageError(command + ": unexpected argument " + quoted(parsed.positionals[count]) + " (expected " +
                     what + ")");
  }
}

std::string require_value(const ParsedArgs& parsed, const std::string& option, const std::string& command) {
  const std::optional<std::string> value = parsed.value(option);
  if (!value) throw UsageError(command + ": missing required option " + option);
  if (value->empty()) throw UsageError(command + ": option " + option + " needs a non-empty value");
  return *value;
}

double parse_finite_double(const std::string& text, const std::string& option) {
  // strtod would skip leading whitespace; a value with it is as malformed as one with trailing garbage.
  const bool starts_cleanly = !text.empty() && text[0] != ' ' && text[0] != '\t' && text[0] != '\n' &&
                              text[0] != '\r' && text[0] != '\f' && text[0] != '\v';
  char* end = nullptr;
  const double value = starts_cleanly ? std::strtod(text.c_str(), &end) : 0.0;
  if (!starts_cleanly || end != text.c_str() + text.size()) {
    throw UsageError("option " + option + ": " + quoted(text) + " is not a number");
  }
  if (!std::isfinite(value)) {
    throw UsageError("option " + option + ": " + quoted(text) + " is not a finite number");
  }
  return value;
}

long long parse_integer(const std::string& text, const std::string& option, long long min_value,
                        long long max_value) {
  long long value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto result = std::from_chars(first, last, value);
  if (text.empty() || result.ec == std::errc::invalid_argument || result.ptr != last) {
    throw UsageError("option " + option + ": " + quoted(text) + " is not an integer");
  }
  if (result.ec == std::errc::result_out_of_range || value < min_value || value > max_value) {
    throw UsageError("option " + option + ": " + quoted(text) + " is out of range; expected " +
                     std::to_string(min_value) + " to " + std::to_string(max_value));
  }
  return value;
}

size_t parse_choice(const std::string& text, const std::string& option, std::span<const std::string> choices) {
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == text) return i;
  }
  std::string list;
  for (const std::string& choice : choices) list += (list.empty() ? "" : ", ") + choice;
  throw UsageError("option " + option + ": " + quoted(text) + " is not one of " + list);
}

bool looks_like_integer(const std::string& text) {
  const size_t digits_start = (!text.empty() && text[0] == '-') ? 1 : 0;
  if (text.size() == digits_start) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(digits_start), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

int resolve_animation(const Scene& scene, const std::optional<std::string>& spec) {
  const size_t count = scene.animations.size();
  if (!spec) return count == 0 ? -1 : 0;
  if (count == 0) {
    throw UsageError("option --anim: " + quoted(*spec) + " given, but " + scene.source + " has no animations");
  }
  if (looks_like_integer(*spec)) {
    return static_cast<int>(parse_integer(*spec, "--anim", 0, static_cast<long long>(count) - 1));
  }
  for (size_t i = 0; i < count; ++i) {
    if (scene.animations[i].name == *spec) return static_cast<int>(i);
  }
  std::string available;
  for (size_t i = 0; i < count; ++i) {
    available += (i == 0 ? "" : ", ") + std::to_string(i) + " " + quoted(scene.animations[i].name);
  }
  throw UsageError("option --anim: no animation named " + quoted(*spec) + " in " + scene.source +
                   "; available: " + available);
}

void require_extension(const std::string& path, std::span<const std::string> extensions,
                       const std::string& option) {
  const std::string lower = to_lower(path);
  for (const std::string& extension : extensions) {
    if (lower.size() > extension.size() &&
        lower.compare(lower.size() - extension.size(), extension.size(), extension) == 0) {
      return;
    }
  }
  std::string list;
  for (const std::string& extension : extensions) list += (list.empty() ? "" : ", ") + extension;
  throw UsageError("option " + option + ": " + quoted(path) + " must end in " + list);
}

PoseSelection parse_pose_selection(const ParsedArgs& parsed, const std::string& command) {
  PoseSelection selection;
  if (const std::optional<std::string> text = parsed.value("--time")) {
    selection.time = parse_finite_double(*text, "--time");
  }
  selection.recipe = parsed.value("--recipe");
  selection.anim = parsed.value("--anim");
  if (selection.recipe && selection.anim) {
    throw UsageError(command + ": --recipe and --anim cannot be used together (the recipe names its animations)");
  }
  if (const std::optional<std::string> text = parsed.value("--pose")) {
    selection.still = choice_value(kStillPoses, *text, "--pose");
    if (selection.recipe || selection.anim)
      throw UsageError(command + ": --pose " + *text + " is a pose without animation: not with --" +
                       (selection.recipe ? "recipe" : "anim"));
  }
  return selection;
}

SkinningOptions parse_skinning_options(const ParsedArgs& parsed) {
  SkinningOptions options;
  if (const std::optional<std::string> text = parsed.value("--method")) {
    const std::optional<SkinningMethod> method = parse_skinning_method(*text);
    if (!method) throw UsageError("option --method: " + quoted(*text) + " is not one of " + skinning_method_choices(", "));
    options.method = *method;
  }
  return options;
}

ImportOptions parse_import_options(const ParsedArgs& parsed) {
  ImportOptions options;
  if (const std::optional<std::string> text = parsed.value("--import-scale")) {
    if (*text == "auto") {
      options.scale_mode = ImportOptions::Mode::Auto;
    } else if (*text == "none") {
      options.scale_mode = ImportOptions::Mode::None;
    } else {
      options.scale_mode = ImportOptions::Mode::Given;
      options.scale = parse_finite_double(*text, "--import-scale");
      if (!(options.scale > 0.0)) throw UsageError("option --import-scale: auto, none or a positive factor, got '" + *text + "'");
    }
  }
  if (const std::optional<std::string> text = parsed.value("--import-up")) {
    const ImportUp up = choice_value(kImportUps, *text, "--import-up");
    options.up_mode = up.mode;
    options.up = up.axis;
  }
  if (const std::optional<std::string> text = parsed.value("--import-limit-weights"))
    options.limit_weights = int(parse_integer(*text, "--import-limit-weights", 1, 16));
  return options;
}

ConventionSelection parse_conventions(const ParsedArgs& parsed, const std::string& command) {
  ConventionSelection selection;
  std::map<std::string, std::pair<std::string, std::string>> set_by;  // field -> (value, which option set it)
  auto apply = [&](const std::string& name, const std::string& value, const std::string& origin) {
    const ConventionField* field = find_convention_field(name);
    if (!field) {
      std::string known;
      for (const ConventionField& f : convention_fields()) known += (known.empty() ? "" : ", ") + std::string(f.name);
      throw UsageError(command + ": " + origin + ": unknown convention '" + name + "'; known: " + known);
    }
    try {
      field->set(selection.conventions, value);
    } catch (const std::invalid_argument& error) {
      throw UsageError(command + ": " + origin + ": " + error.what());
    }
    const std::string canonical = field->get(selection.conventions);
    const auto previous = set_by.find(name);
    if (previous != set_by.end() && previous->second.first != canonical)
      throw UsageError(command + ": " + origin + " sets " + name + "=" + canonical + ", but " +
                       previous->second.second + " set " + name + "=" + previous->second.first);
    set_by[name] = {canonical, origin};
    selection.given = true;
  };
  if (const std::optional<std::string> path = parsed.value("--conventions")) {
    nlohmann::ordered_json document;
    try {
      std::ifstream in(*path);
      if (!in) throw std::runtime_error("cannot be read");
      document = nlohmann::ordered_json::parse(in);
    } catch (const std::exception& error) {
      throw InputError(*path, "", std::string("a JSON object of conventions {\"NAME\": \"VALUE\"}: ") + error.what());
    }
    const nlohmann::ordered_json& object =
        document.is_object() && document.contains("conventions") ? document["conventions"] : document;
    if (!object.is_object())
      throw InputError(*path, "", "a JSON object of conventions {\"NAME\": \"VALUE\"}");
    for (const auto& [name, value] : object.items()) {
      if (!value.is_string()) throw InputError(*path, "/" + name, "a string value for convention " + name);
      apply(name, value.get<std::string>(), "--conventions " + *path);
    }
  }
  for (const std::string& assignment : parsed.values_of("--convention")) {
    const size_t equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0)
      throw UsageError(command + ": --convention '" + assignment + "': expected NAME=VALUE");
    apply(assignment.substr(0, equals), assignment.substr(equals + 1), "--convention " + assignment);
  }
  if (const std::optional<std::string> text = parsed.value("--weights"))
    apply("weights", choice_value(kWeightShorthands, *text, "--weights"), "--weights " + *text);
  if (const std::optional<std::string> text = parsed.value("--normals"))
    apply("normals", choice_value(kNormalShorthands, *text, "--normals"), "--normals " + *text);
  return selection;
}

PoseSource resolve_pose_source(const Scene& scene, const PoseSelection& selection) {
  PoseSource source;
  if (selection.recipe) {
    source.recipe = load_recipe(*selection.recipe, scene);
    source.recipe_path = *selection.recipe;
  } else if (selection.still) {
    source.bind = *selection.still == StillPose::Bind;
    source.animation = -1;
  } else {
    source.animation = resolve_animation(scene, selection.anim);
  }
  return source;
}

Shard parse_shard(const ParsedArgs& parsed, const std::string& command) {
  auto make = [&](const std::string& index_text, const std::string& count_text, const std::string& source) {
    Shard shard;
    shard.count = size_t(parse_integer(count_text, source, 1, 1000000));
    shard.index = size_t(parse_integer(index_text, source, 0, 999999));
    if (shard.index >= shard.count)
      throw UsageError(command + ": " + source + ": shard index " + index_text + " is not below the shard count " +
                       count_text);
    return shard;
  };
  if (const std::optional<std::string> text = parsed.value("--shard")) {
    const size_t slash = text->find('/');
    if (slash == std::string::npos)
      throw UsageError(command + ": option --shard: expected I/N (shard I of N, 0-based), got '" + *text + "'");
    return make(text->substr(0, slash), text->substr(slash + 1), "option --shard");
  }
  for (const auto& [index_name, count_name] : {std::pair{"GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS"},
                                               std::pair{"TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS"}}) {
    const std::optional<std::string> index = environment(index_name), count = environment(count_name);
    if (!index && !count) continue;
    if (!index || !count)
      throw UsageError(command + ": " + (index ? count_name : index_name) + " is not set beside " +
                       (index ? index_name : count_name));
    const Shard shard = make(*index, *count, std::string(index_name) + "/" + count_name);
    // Bazel asks a test runner that honours its sharding variables to say so by touching this file.
    if (const std::optional<std::string> status = environment("TEST_SHARD_STATUS_FILE")) std::ofstream touch(*status);
    return shard;
  }
  return Shard{};
}

}  // namespace skinref::cli

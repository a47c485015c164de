// Pose recipes (recipe.h): the reader (on strict_json.h) that names the JSON pointer of every problem, and the
// evaluation sample -> cross-fade -> blend -> additive -> local to model -> IK -> palettes.
#include "anim/recipe.h"

#include "anim/local_to_model.h"
#include "anim/palette.h"
#include "anim/sampling.h"
#include "core/input_error.h"
#include "core/stream_bytes.h"
#include "core/strict_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <utility>

namespace skinref {
namespace {

using nlohmann::json;

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// ---- checking the document ----------------------------------------------------------------------------------

class RecipeReader {
 public:
  RecipeReader(const std::string& file, const Scene& scene) : file_(file), scene_(scene) {}

  Recipe read(const json& root) {
    Recipe recipe;
    recipe.source = file_;
    if (!root.is_object()) fail("", "a JSON object {\"format\": \"skinref-recipe\", ...}, got " + describe_json_value(root));
    // Format and version first: they say whether this is a recipe at all.
    const json& format = require(root, "", "format");
    if (!format.is_string() || format.get<std::string>() != "skinref-recipe") {
      fail("/format", "\"skinref-recipe\", got " + describe_json_value(format));
    }
    const json& version = require(root, "", "version");
    if (!version.is_number_integer() || version.get<long long>() != 1) {
      fail("/version", "version 1 (the only one this reader knows), got " + describe_json_value(version));
    }
    check_keys(root, "", {"format", "version", "time", "rotation_blend", "layers", "additive", "ik"});

    if (const json* time = find(root, "time")) recipe.time = number(*time, "/time");
    if (const json* blend = find(root, "rotation_blend")) {
      recipe.rotation_blend =
          choice(*blend, "/rotation_blend", {"average", "slerp"}) == 0 ? BlendRotation::WeightedAverage
                                                                       : BlendRotation::Slerp;
    }
    if (const json* layers = find(root, "layers")) {
      for_each_element(*layers, "/layers", [&](const json& layer, const std::string& path) {
        recipe.layers.push_back(read_layer(layer, path));
      });
    }
    if (const json* additive = find(root, "additive")) {
      for_each_element(*additive, "/additive", [&](const json& entry, const std::string& path) {
        recipe.additive.push_back(read_additive(entry, path));
      });
    }
    if (const json* ik = find(root, "ik")) {
      for_each_element(*ik, "/ik", [&](const json& step, const std::string& path) {
        recipe.ik.push_back(read_ik(step, path));
      });
    }
    if (recipe.layers.empty() && recipe.additive.empty()) {
      fail("/layers", "at least one layer or additive entry (the recipe plays nothing)");
    }
    return recipe;
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
    throw InputError(file_, path, expected);
  }

  static const json* find(const json& object, const char* key) {
    const auto found = object.find(key);
    return found == object.end() ? nullptr : &*found;
  }

  const json& require(const json& object, const std::string& path, const char* key) const {
    const json* value = find(object, key);
    if (value == nullptr) fail(path + "/" + key, "a value; \"" + std::string(key) + "\" is required");
    return *value;
  }

  void require_object(const json& value, const std::string& path, const std::string& what) const {
    if (!value.is_object()) fail(path, what + ", got " + describe_json_value(value));
  }

  // Every key of `object` must be one of `allowed`.
  void check_keys(const json& object, const std::string& path, std::initializer_list<const char*> allowed) const {
    for (const auto& item : object.items()) {
      // A named reference, not a structured binding: clang before 16 cannot capture those in a lambda.
      const std::string& key = item.key();
      const bool known =
          std::any_of(allowed.begin(), allowed.end(), [&](const char* name) { return key == name; });
      if (known) continue;
      std::string list;
      for (const char* name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
      fail(path + "/" + json_pointer_token(key), "no such key here; expected one of " + list);
    }
  }

  template <typename Visit>
  void for_each_element(const json& array, const std::string& path, Visit visit) const {
    if (!array.is_array()) fail(path, "an array, got " + describe_json_value(array));
    for (size_t i = 0; i < array.size(); ++i) visit(array[i], path + "/" + std::to_string(i));
  }

  double number(const json& value, const std::string& path) const {
    if (!value.is_number()) fail(path, "a number, got " + describe_json_value(value));
    const double result = value.get<double>();
    if (!std::isfinite(result)) fail(path, "a finite number, got " + describe_json_value(value));
    return result;
  }

  double non_negative(const json& value, const std::string& path) const {
    const double result = number(value, path);
    if (!(result >= 0.0)) fail(path, "a number >= 0, got " + describe_json_value(value));
    return result;
  }

  double in_unit_interval(const json& value, const std::string& path) const {
    const double result = number(value, path);
    if (!(result >= 0.0 && result <= 1.0)) fail(path, "a number in [0, 1], got " + describe_json_value(value));
    return result;
  }

  long long integer(const json& value, const std::string& path, long long min_value, long long max_value,
                    const std::string& what = "an integer") const {
    const std::string range = what + " in [" + std::to_string(min_value) + ", " + std::to_string(max_value) + "]";
    if (!value.is_number_integer()) fail(path, range + ", got " + describe_json_value(value));
    if (value.is_number_unsigned() && value.get<unsigned long long>() > static_cast<unsigned long long>(max_value)) {
      fail(path, range + ", got " + describe_json_value(value));
    }
    const long long result = value.get<long long>();
    if (result < min_value || result > max_value) fail(path, range + ", got " + describe_json_value(value));
    return result;
  }

  bool boolean(const json& value, const std::string& path) const {
    if (!value.is_boolean()) fail(path, "true or false, got " + describe_json_value(value));
    return value.get<bool>();
  }

  size_t choice(const json& value, const std::string& path, std::initializer_list<const char*> choices) const {
    std::string list;
    for (const char* name : choices) list += (list.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    if (value.is_string()) {
      const std::string text = value.get<std::string>();
      for (size_t i = 0; i < choices.size(); ++i) {
        if (text == choices.begin()[i]) return i;
      }
    }
    fail(path, "one of " + list + ", got " + describe_json_value(value));
  }

  Vec3 vec3(const json& value, const std::string& path) const {
    if (!value.is_array() || value.size() != 3) fail(path, "an array of 3 numbers, got " + describe_json_value(value));
    Vec3 result;
    for (int i = 0; i < 3; ++i) result[i] = number(value[size_t(i)], path + "/" + std::to_string(i));
    return result;
  }

  int animation(const json& value, const std::string& path) const {
    const size_t count = scene_.animations.size();
    if (!value.is_string() && !value.is_number_integer()) {
      fail(path, "an animation name or index, got " + describe_json_value(value));
    }
    if (count == 0) fail(path, "an animation, but " + scene_.source + " has no animations");
    if (value.is_number_integer()) {
      return static_cast<int>(integer(value, path, 0, static_cast<long long>(count) - 1, "an animation index"));
    }
    const std::string name = value.get<std::string>();
    for (size_t i = 0; i < count; ++i) {
      if (scene_.animations[i].name == name) return static_cast<int>(i);
    }
    std::string available;
    for (size_t i = 0; i < count; ++i) {
      available += (i == 0 ? "" : ", ") + std::to_string(i) + " " + quoted(scene_.animations[i].name);
    }
    fail(path, "an animation of " + scene_.source + "; none is named " + quoted(name) + " (available: " + available +
                   ")");
  }

  int node(const json& value, const std::string& path) const {
    if (value.is_number_integer()) {
      if (scene_.nodes.empty()) fail(path, "a node, but " + scene_.source + " has no nodes");
      return static_cast<int>(integer(value, path, 0, static_cast<long long>(scene_.nodes.size()) - 1, "a node index"));
    }
    if (!value.is_string()) fail(path, "a node name or index, got " + describe_json_value(value));
    try {
      return find_node(scene_, value.get<std::string>());
    } catch (const InputError& error) {
      fail(path, error.expected());
    }
  }

  static bool is_descendant(const Scene& scene, int node, int ancestor) {
    for (int n = scene.nodes[size_t(node)].parent; n >= 0; n = scene.nodes[size_t(n)].parent) {
      if (n == ancestor) return true;
    }
    return false;
  }

  std::string node_text(int node) const {
    return "node " + std::to_string(node) + " " + quoted(scene_.nodes[size_t(node)].name);
  }

  Playback read_playback(const json& value, const std::string& path) const {
    require_object(value, path, "a playback object {\"animation\": NAME|INDEX, ...}");
    check_keys(value, path, {"animation", "start", "rate", "mode", "repetitions"});
    Playback playback;
    playback.animation = animation(require(value, path, "animation"), path + "/animation");
    if (const json* start = find(value, "start")) playback.start_time = number(*start, path + "/start");
    if (const json* rate = find(value, "rate")) playback.rate = number(*rate, path + "/rate");
    if (const json* mode = find(value, "mode")) {
      static const PlaybackMode kModes[] = {PlaybackMode::Once, PlaybackMode::Loop, PlaybackMode::PingPong};
      playback.mode = kModes[choice(*mode, path + "/mode", {"once", "loop", "pingpong"})];
    }
    if (const json* repetitions = find(value, "repetitions")) {
      playback.repetitions =
          static_cast<int>(integer(*repetitions, path + "/repetitions", 0, std::numeric_limits<int>::max()));
    }
    return playback;
  }

  std::vector<double> read_mask(const json& value, const std::string& path) const {
    const size_t count = scene_.nodes.size();
    if (value.is_array()) {
      if (value.size() != count) {
        fail(path, "one weight per node (" + std::to_string(count) + " for " + scene_.source + "), got " +
                       std::to_string(value.size()));
      }
      std::vector<double> mask(count);
      for (size_t i = 0; i < count; ++i) mask[i] = in_unit_interval(value[i], path + "/" + std::to_string(i));
      return mask;
    }
    require_object(value, path, "a mask: {\"joint\": NODE, \"subtree\": true} or an array of per-node weights");
    check_keys(value, path, {"joint", "subtree"});
    const int joint = node(require(value, path, "joint"), path + "/joint");
    bool subtree = true;
    if (const json* flag = find(value, "subtree")) subtree = boolean(*flag, path + "/subtree");
    if (subtree) return subtree_mask(scene_, joint);
    std::vector<double> mask(count, 0.0);
    mask[size_t(joint)] = 1.0;
    return mask;
  }

  RecipeLayer read_layer(const json& value, const std::string& path) const {
    require_object(value, path, "a layer object {\"clip\": ...} or {\"crossfade\": ...}");
    check_keys(value, path, {"clip", "crossfade", "weight", "mask"});
    RecipeLayer layer;
    const json* clip = find(value, "clip");
    const json* fade = find(value, "crossfade");
    if (clip != nullptr && fade != nullptr) fail(path + "/crossfade", "either \"clip\" or \"crossfade\", not both");
    if (clip == nullptr && fade == nullptr) {
      fail(path + "/clip", "a \"clip\" or a \"crossfade\"; the layer has neither");
    }
    if (clip != nullptr) {
      layer.source = read_playback(*clip, path + "/clip");
    } else {
      const std::string fpath = path + "/crossfade";
      require_object(*fade, fpath, "a cross-fade object {\"from\", \"to\", \"start\", \"duration\"}");
      check_keys(*fade, fpath, {"from", "to", "start", "duration", "sync"});
      RecipeCrossFade crossfade;
      crossfade.from = read_playback(require(*fade, fpath, "from"), fpath + "/from");
      crossfade.to = read_playback(require(*fade, fpath, "to"), fpath + "/to");
      crossfade.start = number(require(*fade, fpath, "start"), fpath + "/start");
      crossfade.duration = non_negative(require(*fade, fpath, "duration"), fpath + "/duration");
      if (const json* sync = find(*fade, "sync")) crossfade.sync = boolean(*sync, fpath + "/sync");
      layer.source = crossfade;
    }
    if (const json* weight = find(value, "weight")) layer.weight = non_negative(*weight, path + "/weight");
    if (const json* mask = find(value, "mask")) layer.mask = read_mask(*mask, path + "/mask");
    return layer;
  }

  RecipeAdditive read_additive(const json& value, const std::string& path) const {
    require_object(value, path, "an additive object {\"clip\": ..., \"reference\": ...}");
    check_keys(value, path, {"clip", "reference", "weight", "mask"});
    RecipeAdditive additive;
    additive.clip = read_playback(require(value, path, "clip"), path + "/clip");
    const json& reference = require(value, path, "reference");
    const std::string rpath = path + "/reference";
    if (reference.is_string()) {
      if (reference.get<std::string>() != "rest") {
        fail(rpath, "\"rest\" or {\"animation\": NAME|INDEX, \"time\": SECONDS}, got " + describe_json_value(reference));
      }
    } else {
      require_object(reference, rpath, "\"rest\" or {\"animation\": NAME|INDEX, \"time\": SECONDS}");
      check_keys(reference, rpath, {"animation", "time"});
      additive.reference_animation = animation(require(reference, rpath, "animation"), rpath + "/animation");
      if (const json* time = find(reference, "time")) additive.reference_time = number(*time, rpath + "/time");
    }
    if (const json* weight = find(value, "weight")) additive.weight = non_negative(*weight, path + "/weight");
    if (const json* mask = find(value, "mask")) additive.mask = read_mask(*mask, path + "/mask");
    return additive;
  }

  std::variant<TwoBoneIk, AimIk> read_ik(const json& value, const std::string& path) const {
    require_object(value, path, "an IK object {\"type\": \"two-bone\"|\"aim\", ...}");
    const size_t type = choice(require(value, path, "type"), path + "/type", {"two-bone", "aim"});
    if (type == 0) {
      check_keys(value, path, {"type", "root", "middle", "end", "target", "pole", "weight", "soft"});
      TwoBoneIk ik;
      ik.root = node(require(value, path, "root"), path + "/root");
      ik.middle = node(require(value, path, "middle"), path + "/middle");
      ik.end = node(require(value, path, "end"), path + "/end");
      if (!is_descendant(scene_, ik.middle, ik.root)) {
        fail(path + "/middle", "a descendant of the root, " + node_text(ik.root) + "; got " + node_text(ik.middle));
      }
      if (!is_descendant(scene_, ik.end, ik.middle)) {
        fail(path + "/end", "a descendant of the middle, " + node_text(ik.middle) + "; got " + node_text(ik.end));
      }
      ik.target = vec3(require(value, path, "target"), path + "/target");
      ik.pole = vec3(require(value, path, "pole"), path + "/pole");
      if (const json* weight = find(value, "weight")) ik.weight = in_unit_interval(*weight, path + "/weight");
      if (const json* soft = find(value, "soft")) {
        ik.soft = number(*soft, path + "/soft");
        if (!(ik.soft > 0.0 && ik.soft <= 1.0)) fail(path + "/soft", "a number in (0, 1], got " + describe_json_value(*soft));
      }
      return ik;
    }
    check_keys(value, path, {"type", "joint", "forward", "up", "target", "pole", "weight"});
    AimIk ik;
    ik.joint = node(require(value, path, "joint"), path + "/joint");
    ik.forward = vec3(require(value, path, "forward"), path + "/forward");
    ik.up = vec3(require(value, path, "up"), path + "/up");
    ik.target = vec3(require(value, path, "target"), path + "/target");
    ik.pole = vec3(require(value, path, "pole"), path + "/pole");
    if (const json* weight = find(value, "weight")) ik.weight = in_unit_interval(*weight, path + "/weight");
    // Exactly degenerate axes are refused here, where the path is known; the solver may refuse nearly
    // degenerate ones (evaluate_recipe then names the step).
    if (ik.forward == Vec3::Zero()) fail(path + "/forward", "a non-zero vector");
    if (ik.up == Vec3::Zero()) fail(path + "/up", "a non-zero vector");
    if (ik.forward.cross(ik.up) == Vec3::Zero()) fail(path + "/up", "a vector not parallel to \"forward\"");
    if (ik.pole == Vec3::Zero()) fail(path + "/pole", "a non-zero direction");
    return ik;
  }

  const std::string& file_;
  const Scene& scene_;
};

// ---- evaluation ---------------------------------------------------------------------------------------------

// A hand-built Recipe gets the checks the reader makes on indices and sizes (same JSON pointers).
void check_recipe(const Scene& scene, const Recipe& recipe) {
  auto fail = [&](const std::string& path, const std::string& expected) {
    throw InputError(recipe.source, path, expected);
  };
  const size_t animations = scene.animations.size();
  auto check_playback = [&](const Playback& playback, const std::string& path) {
    if (playback.animation < 0 || size_t(playback.animation) >= animations) {
      fail(path + "/animation", "an animation index in [0, " + std::to_string(animations) + "), got " +
                                    std::to_string(playback.animation));
    }
  };
  auto check_mask = [&](const std::vector<double>& mask, const std::string& path) {
    if (!mask.empty() && mask.size() != scene.nodes.size()) {
      fail(path + "/mask", "one weight per node (" + std::to_string(scene.nodes.size()) + "), got " +
                               std::to_string(mask.size()));
    }
  };
  for (size_t i = 0; i < recipe.layers.size(); ++i) {
    const RecipeLayer& layer = recipe.layers[i];
    const std::string path = "/layers/" + std::to_string(i);
    if (const auto* playback = std::get_if<Playback>(&layer.source)) {
      check_playback(*playback, path + "/clip");
    } else {
      const auto& fade = std::get<RecipeCrossFade>(layer.source);
      check_playback(fade.from, path + "/crossfade/from");
      check_playback(fade.to, path + "/crossfade/to");
    }
    check_mask(layer.mask, path);
  }
  for (size_t i = 0; i < recipe.additive.size(); ++i) {
    const RecipeAdditive& additive = recipe.additive[i];
    const std::string path = "/additive/" + std::to_string(i);
    check_playback(additive.clip, path + "/clip");
    if (additive.reference_animation < -1 || additive.reference_animation >= static_cast<long long>(animations)) {
      fail(path + "/reference/animation", "-1 (rest) or an animation index, got " +
                                              std::to_string(additive.reference_animation));
    }
    check_mask(additive.mask, path);
  }
}

double duration_of(const Scene& scene, int animation) { return scene.animations[size_t(animation)].end_time; }

LocalPose sampled(const Scene& scene, const LocalPose& rest, int animation, double local_time) {
  LocalPose pose = rest;
  sample_animation(scene, animation, local_time, pose);
  return pose;
}

RecipeSample sample_at(const Scene& scene, const LocalPose& rest, int animation, double clip_time) {
  return {sampled(scene, rest, animation, clip_time), animation, clip_time};
}

RecipeSample play_sample(const Scene& scene, const LocalPose& rest, const Playback& playback, double tau) {
  return sample_at(scene, rest, playback.animation, clip_local_time(playback, duration_of(scene, playback.animation), tau));
}

}  // namespace

Recipe parse_recipe(const std::string& json_text, const std::string& display_name, const Scene& scene) {
  return RecipeReader(display_name, scene).read(parse_strict_json(json_text, display_name));
}

Recipe load_recipe(const std::string& path, const Scene& scene) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    const int error_number = errno;
    throw InputError(path, "", std::string("a readable recipe file (") +
                                   (error_number != 0 ? std::strerror(error_number) : "cannot open") + ")");
  }
  const std::string text = read_stream_bytes(in);
  if (in.bad()) throw InputError(path, "", "a readable recipe file (reading failed)");
  return parse_recipe(text, path, scene);
}

RecipeSamples sample_recipe(const Scene& scene, const Recipe& recipe, double tau) {
  check_recipe(scene, recipe);
  const LocalPose rest = rest_pose(scene);
  RecipeSamples samples;
  samples.tau = tau;
  for (const RecipeLayer& layer : recipe.layers) {
    RecipeLayerSamples out;
    if (const auto* playback = std::get_if<Playback>(&layer.source)) {
      out.poses.push_back(play_sample(scene, rest, *playback, tau));
    } else {
      const auto& fade = std::get<RecipeCrossFade>(layer.source);
      out.incoming = crossfade_weight(fade.start, fade.duration, tau);
      // Outside the fade only one clip plays, and its pose is kept bit for bit.
      if (out.incoming <= 0.0) {
        out.poses.push_back(play_sample(scene, rest, fade.from, tau));
      } else {
        const double to_duration = duration_of(scene, fade.to.animation);
        const double to_time =
            fade.sync ? local_time_from_normalized(
                            normalized_time(fade.from, duration_of(scene, fade.from.animation), tau), to_duration)
                      : clip_local_time(fade.to, to_duration, tau);
        if (out.incoming < 1.0) out.poses.push_back(play_sample(scene, rest, fade.from, tau));
        out.poses.push_back(sample_at(scene, rest, fade.to.animation, to_time));
      }
    }
    samples.layers.push_back(std::move(out));
  }
  for (const RecipeAdditive& additive : recipe.additive) {
    samples.additive_clips.push_back(play_sample(scene, rest, additive.clip, tau));
    samples.additive_references.push_back(additive.reference_animation < 0
                                              ? RecipeSample{rest, -1, 0.0}
                                              : sample_at(scene, rest, additive.reference_animation,
                                                          additive.reference_time));
  }
  return samples;
}

LocalPose combine_recipe(const Scene& scene, const Recipe& recipe, const RecipeSamples& samples) {
  const LocalPose rest = rest_pose(scene);
  std::vector<LocalPose> poses;
  poses.reserve(recipe.layers.size());
  for (const RecipeLayerSamples& layer : samples.layers) {
    if (layer.poses.size() == 1) {
      poses.push_back(layer.poses.front().pose);
    } else {
      const BlendLayer fade[2] = {{&layer.poses[0].pose, 1.0 - layer.incoming, {}},
                                  {&layer.poses[1].pose, layer.incoming, {}}};
      poses.push_back(blend_poses(fade, rest, recipe.rotation_blend));
    }
  }
  // blend_poses copies a node's only contributing layer as it is, so a one-clip recipe gives exactly
  // evaluate_pose's result; nodes no layer reaches keep the rest pose.
  std::vector<BlendLayer> layers;
  layers.reserve(poses.size());
  for (size_t i = 0; i < poses.size(); ++i) layers.push_back({&poses[i], recipe.layers[i].weight, recipe.layers[i].mask});
  LocalPose local = blend_poses(layers, rest, recipe.rotation_blend);
  for (size_t i = 0; i < recipe.additive.size(); ++i) {
    const LocalPose delta = make_additive_delta(samples.additive_clips[i].pose, samples.additive_references[i].pose);
    apply_additive(local, delta, recipe.additive[i].weight, recipe.additive[i].mask);
  }
  return local;
}

void apply_recipe_ik(const Scene& scene, const Recipe& recipe, LocalPose& local, ModelPose& model) {
  for (size_t i = 0; i < recipe.ik.size(); ++i) {
    try {
      if (const auto* two_bone = std::get_if<TwoBoneIk>(&recipe.ik[i])) {
        apply_two_bone_ik(scene, *two_bone, local, model);
      } else {
        apply_aim_ik(scene, std::get<AimIk>(recipe.ik[i]), local, model);
      }
    } catch (const InputError& error) {
      // The solver names the scene; the user wrote the recipe step.
      throw InputError(recipe.source, "/ik/" + std::to_string(i), error.expected());
    }
  }
}

EvaluatedPose evaluate_recipe(const Scene& scene, const Recipe& recipe, std::optional<double> time) {
  const double tau = time.value_or(recipe.time);
  LocalPose local = combine_recipe(scene, recipe, sample_recipe(scene, recipe, tau));
  ModelPose model = local_to_model(scene, local);
  apply_recipe_ik(scene, recipe, local, model);

  EvaluatedPose pose;
  pose.animation = -1;
  pose.time = tau;
  pose.local = std::move(local);
  pose.model = std::move(model);
  pose.palettes.reserve(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) pose.palettes.push_back(compute_palette(scene, pose.model, int(s)));
  return pose;
}

}  // namespace skinref

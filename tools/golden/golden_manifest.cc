// Reading and validating golden/manifest.json (see golden_manifest.h and golden/README.md).
#include "golden/golden_manifest.h"

#include "core/input_error.h"
#include "core/strict_json.h"
#include "io/builtin_scenes.h"
#include "raster/camera.h"
#include "skin/method.h"
#include "verify/gpu_tolerances.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

namespace skinref::golden {
namespace {

using json = nlohmann::json;

constexpr int kMaxGoldenImageSide = 4096;  // goldens are committed: small images only

class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
    throw InputError(file_, path, expected);
  }

  const json& object(const json& value, const std::string& path, const std::set<std::string>& allowed) const {
    if (!value.is_object()) fail(path, "an object, got " + describe_json_value(value));
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (allowed.count(it.key()) == 0) {
        std::string list;
        for (const std::string& key : allowed) list += (list.empty() ? "" : ", ") + key;
        fail(path + "/" + json_pointer_token(it.key()), "no such key here; expected one of " + list);
      }
    }
    return value;
  }

  std::string string(const json& object, const std::string& path, const std::string& key) const {
    const json& value = object.at(key);
    if (!value.is_string()) fail(path + "/" + key, "a string, got " + describe_json_value(value));
    return value.get<std::string>();
  }

  void require(const json& object, const std::string& path, const std::string& key) const {
    if (!object.contains(key)) fail(path, "the key \"" + key + "\"");
  }

  double number(const json& value, const std::string& path) const {
    if (!value.is_number()) fail(path, "a number, got " + describe_json_value(value));
    const double x = value.get<double>();
    if (!std::isfinite(x)) fail(path, "a finite number");
    return x;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

bool valid_case_name(const std::string& name) {
  if (name.empty() || name.size() > 80) return false;
  if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= '0' && name[0] <= '9'))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

// A relative path that stays below its base folder: not absolute, no "..", no empty or "." component.
bool relative_below(const std::string& path) {
  if (path.empty() || path[0] == '/') return false;
  std::stringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return path.back() != '/';
}

void parse_model(const Checker& check, const std::string& path, const std::string& model) {
  const std::string builtin = "builtin:", corpus = "corpus:";
  if (model.rfind(builtin, 0) == 0) {
    const std::vector<std::string> names = builtin_scene_names();
    const std::string name = model.substr(builtin.size());
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      std::string list;
      for (const std::string& known : names) list += (list.empty() ? "" : ", ") + known;
      check.fail(path, "a built-in scene (" + list + "), got \"" + model + "\"");
    }
    return;
  }
  if (model.rfind(corpus, 0) == 0) {
    const std::string relative = model.substr(corpus.size());
    // A name before the extension: ".gltf" alone is no file.
    const auto named = [&relative](std::string_view extension) {
      return relative.size() > extension.size() && relative.ends_with(extension);
    };
    const bool known_format = named(".gltf") || named(".glb") || named(".fbx") || named(".dae");
    if (!relative_below(relative) || !known_format) {
      check.fail(path, "corpus:RELATIVE/PATH.gltf|.glb|.fbx|.dae below the corpus folder, got \"" + model + "\"");
    }
    return;
  }
  check.fail(path, "\"builtin:NAME\" or \"corpus:RELATIVE/PATH\", got \"" + model + "\"");
}

void parse_size(const Checker& check, const std::string& path, const std::string& text, GoldenCase& golden_case) {
  const std::string expected = "WxH with each side 1 to " + std::to_string(kMaxGoldenImageSide) + ", got \"" + text + "\"";
  const size_t x = text.find('x');
  if (x == std::string::npos) check.fail(path, expected);
  auto side = [&](const std::string& digits) {
    int value = 0;
    const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || result.ec != std::errc() || result.ptr != digits.data() + digits.size() || value < 1 ||
        value > kMaxGoldenImageSide) {
      check.fail(path, expected);
    }
    return value;
  };
  golden_case.width = side(text.substr(0, x));
  golden_case.height = side(text.substr(x + 1));
}

void parse_view(const Checker& check, const std::string& path, const std::string& text, GoldenCase& golden_case) {
  const std::string weights = "weights:";
  golden_case.view_text = text;
  if (text == "shaded") golden_case.view = RenderView::Shaded;
  else if (text == "normals") golden_case.view = RenderView::Normals;
  else if (text == "depth") golden_case.view = RenderView::Depth;
  else if (text.rfind(weights, 0) == 0 && text.size() > weights.size()) {
    golden_case.view = RenderView::Weights;
    golden_case.view_joint = text.substr(weights.size());
  } else {
    check.fail(path, "one of shaded, normals, depth, weights:JOINT, got \"" + text + "\"");
  }
}

void parse_tolerances(const Checker& check, const json& value, const std::string& path, GoldenCase& golden_case) {
  const json& tolerances = check.object(value, path, {"vulkan"});
  if (!tolerances.contains("vulkan")) check.fail(path, "the key \"vulkan\" (the backend whose defaults are overridden)");
  const std::string vulkan_path = path + "/vulkan";
  const json& vulkan = check.object(tolerances.at("vulkan"), vulkan_path, {"image_threshold", "image_max_fraction", "reason"});
  check.require(vulkan, vulkan_path, "reason");
  const std::string reason = check.string(vulkan, vulkan_path, "reason");
  if (reason.empty()) check.fail(vulkan_path + "/reason", "a non-empty reason for the override");
  golden_case.tolerances.vulkan_reason = reason;
  if (!vulkan.contains("image_threshold") && !vulkan.contains("image_max_fraction"))
    check.fail(vulkan_path, "at least one of \"image_threshold\", \"image_max_fraction\"");
  if (vulkan.contains("image_threshold")) {
    const json& threshold = vulkan.at("image_threshold");
    if (!threshold.is_number_integer() || threshold.get<long long>() < 0 || threshold.get<long long>() > 255) {
      check.fail(vulkan_path + "/image_threshold", "an integer 0 to 255, got " + describe_json_value(threshold));
    }
    golden_case.tolerances.vulkan_image_threshold = threshold.get<int>();
  }
  if (vulkan.contains("image_max_fraction")) {
    const double fraction = check.number(vulkan.at("image_max_fraction"), vulkan_path + "/image_max_fraction");
    if (fraction < 0 || fraction > 1) {
      check.fail(vulkan_path + "/image_max_fraction", "a fraction in [0, 1], got " + describe_json_value(vulkan.at("image_max_fraction")));
    }
    golden_case.tolerances.vulkan_image_max_fraction = fraction;
  }
}

GoldenCase parse_case(const Checker& check, const json& value, const std::string& path,
                      const std::filesystem::path& golden_dir) {
  const json& object = check.object(value, path,
                                    {"name", "description", "model", "animation", "recipe", "times", "method",
                                     "size", "camera", "view", "dumps", "dumps_reason", "tolerances"});
  GoldenCase golden_case;
  check.require(object, path, "name");
  golden_case.name = check.string(object, path, "name");
  if (!valid_case_name(golden_case.name)) {
    check.fail(path + "/name", "a name of [a-z0-9._-] starting with a letter or digit (at most 80), got \"" +
                                   golden_case.name + "\"");
  }
  if (object.contains("description")) golden_case.description = check.string(object, path, "description");
  check.require(object, path, "model");
  golden_case.model = check.string(object, path, "model");
  parse_model(check, path + "/model", golden_case.model);

  if (object.contains("animation") && object.contains("recipe")) {
    check.fail(path + "/recipe", "either \"animation\" or \"recipe\", not both (the recipe names its animations)");
  }
  if (object.contains("animation")) {
    const json& animation = object.at("animation");
    if (animation.is_number_integer() && animation.get<long long>() >= 0) {
      golden_case.animation = std::to_string(animation.get<long long>());
    } else if (animation.is_string() && !animation.get<std::string>().empty()) {
      golden_case.animation = animation.get<std::string>();
    } else {
      check.fail(path + "/animation", "an animation name or index >= 0, got " + describe_json_value(animation));
    }
  }
  if (object.contains("recipe")) {
    const std::string recipe = check.string(object, path, "recipe");
    if (!relative_below(recipe)) check.fail(path + "/recipe", "a path relative to the golden folder, got \"" + recipe + "\"");
    if (!std::filesystem::is_regular_file(golden_dir / recipe)) {
      check.fail(path + "/recipe", "an existing recipe file; " + (golden_dir / recipe).string() + " is not one");
    }
    golden_case.recipe = recipe;
  }

  check.require(object, path, "times");
  const json& times = object.at("times");
  if (!times.is_array() || times.empty()) check.fail(path + "/times", "a non-empty array of times, got " + describe_json_value(times));
  for (size_t i = 0; i < times.size(); ++i) {
    const std::string time_path = path + "/times/" + std::to_string(i);
    const double time = check.number(times[i], time_path);
    if (double(float(time)) != time) {
      check.fail(time_path, "a time exactly representable in float32 (the Vulkan path evaluates at the float32 "
                            "time), got " + describe_json_value(times[i]));
    }
    if (!golden_case.times.empty() && !(time > golden_case.times.back())) {
      check.fail(time_path, "times in strictly increasing order, got " + describe_json_value(times[i]) + " after " +
                                describe_json_value(times[i - 1]));
    }
    golden_case.times.push_back(time);
  }

  if (object.contains("method")) {
    const std::string method = check.string(object, path, "method");
    const std::optional<SkinningMethod> parsed = parse_skinning_method(method);
    if (!parsed) check.fail(path + "/method", "one of " + skinning_method_choices(", ") + ", got \"" + method + "\"");
    golden_case.method = *parsed;
  }
  if (object.contains("size")) parse_size(check, path + "/size", check.string(object, path, "size"), golden_case);
  if (object.contains("camera")) {
    golden_case.camera = check.string(object, path, "camera");
    try {
      parse_camera_spec(golden_case.camera);
    } catch (const InputError& error) {
      check.fail(path + "/camera", "a camera as --camera takes it (auto, gltf:N, EX,EY,EZ:TX,TY,TZ:FOV): " +
                                       std::string(error.what()));
    }
  }
  if (object.contains("view")) parse_view(check, path + "/view", check.string(object, path, "view"), golden_case);
  if (object.contains("dumps")) {
    const json& dumps = object.at("dumps");
    if (!dumps.is_boolean()) check.fail(path + "/dumps", "true or false, got " + describe_json_value(dumps));
    golden_case.dumps = dumps.get<bool>();
  }
  if (object.contains("dumps_reason")) {
    if (golden_case.dumps) check.fail(path + "/dumps_reason", "only with \"dumps\": false");
    golden_case.dumps_reason = check.string(object, path, "dumps_reason");
  }
  if (!golden_case.dumps && golden_case.dumps_reason.empty()) {
    check.fail(path + "/dumps_reason", "a non-empty reason why this case has no vertex and pose dumps");
  }
  if (object.contains("tolerances")) parse_tolerances(check, object.at("tolerances"), path + "/tolerances", golden_case);
  return golden_case;
}

}  // namespace

GoldenManifest load_golden_manifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable golden manifest (the file could not be opened)");
  std::ostringstream text;
  text << in.rdbuf();
  const json document = parse_strict_json(text.str(), path);

  const Checker check(path);
  const json& root = check.object(document, "", {"format", "version", "description", "cases"});
  check.require(root, "", "format");
  if (root.at("format") != "skinref-golden-manifest") {
    check.fail("/format", "\"skinref-golden-manifest\", got " + describe_json_value(root.at("format")));
  }
  check.require(root, "", "version");
  if (root.at("version") != 1) check.fail("/version", "1, got " + describe_json_value(root.at("version")));
  if (root.contains("description")) check.string(root, "", "description");
  check.require(root, "", "cases");
  const json& cases = root.at("cases");
  if (!cases.is_array() || cases.empty()) check.fail("/cases", "a non-empty array of cases, got " + describe_json_value(cases));

  GoldenManifest manifest;
  manifest.path = path;
  const std::filesystem::path golden_dir = std::filesystem::path(path).parent_path();
  std::set<std::string> names;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string case_path = "/cases/" + std::to_string(i);
    GoldenCase golden_case = parse_case(check, cases[i], case_path, golden_dir);
    if (!names.insert(golden_case.name).second) {
      check.fail(case_path + "/name", "a unique case name; \"" + golden_case.name + "\" is used twice");
    }
    manifest.cases.push_back(std::move(golden_case));
  }
  return manifest;
}

std::string golden_manifest_path(const std::string& golden_dir) {
  return (std::filesystem::path(golden_dir) / "manifest.json").string();
}

std::string golden_output_stem(double time) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, time);
  return "t" + std::string(text, result.ptr);
}

GoldenImageTolerance vulkan_image_tolerance(const GoldenCase& golden_case) {
  GoldenImageTolerance tolerance;
  tolerance.threshold = golden_case.tolerances.vulkan_image_threshold.value_or(tol::kGpuImageChannelBytes);
  tolerance.max_fraction =
      golden_case.tolerances.vulkan_image_max_fraction.value_or(1.0 - tol::kGpuImagePixelFraction);
  return tolerance;
}

}  // namespace skinref::golden

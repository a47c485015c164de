// Pose dump: local TRS, global matrices, morph weights and joint palettes of an evaluated pose as JSON text,
// every double printed with 17 significant digits so that it round-trips. Layout in pose_dump.h.
#include "io/pose_dump.h"

#include "core/atomic_file.h"
#include "core/input_error.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace skinref {
namespace {

void append_number(std::string& text, double value, const std::string& where) {
  if (!std::isfinite(value)) throw std::runtime_error("pose dump: non-finite value in " + where);
  std::array<char, 32> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::general, 17);
  if (result.ec != std::errc()) throw std::runtime_error("pose dump: formatting a double failed");
  text.append(buffer.data(), result.ptr);
}

// JSON string literal; bytes that are not valid UTF-8 (possible in file paths) become U+FFFD instead of
// making the document unreadable.
void append_string(std::string& text, const std::string& value) {
  text += nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <typename Values>
void append_array(std::string& text, const Values& values, size_t count, const std::string& where) {
  text.push_back('[');
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) text.push_back(',');
    append_number(text, values[i], where);
  }
  text.push_back(']');
}

// Eigen's storage is column-major, so data() walks the matrix in the documented order.
template <typename Matrix>
void append_matrix(std::string& text, const Matrix& matrix, const std::string& where) {
  append_array(text, matrix.data(), static_cast<size_t>(matrix.size()), where);
}

void check_sizes(const Scene& scene, const EvaluatedPose& pose) {
  const size_t nodes = scene.nodes.size();
  if (pose.local.local.size() != nodes || pose.model.global.size() != nodes) {
    throw std::runtime_error("pose dump: the pose has " + std::to_string(pose.local.local.size()) +
                             " local and " + std::to_string(pose.model.global.size()) +
                             " global transforms for " + std::to_string(nodes) + " nodes");
  }
  if (!pose.local.morph_weights.empty() && pose.local.morph_weights.size() != nodes) {
    throw std::runtime_error("pose dump: the pose has morph weights for " +
                             std::to_string(pose.local.morph_weights.size()) + " of " + std::to_string(nodes) +
                             " nodes");
  }
  if (pose.palettes.size() != scene.skins.size()) {
    throw std::runtime_error("pose dump: the pose has " + std::to_string(pose.palettes.size()) +
                             " palettes for " + std::to_string(scene.skins.size()) + " skins");
  }
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const size_t joints = scene.skins[s].joints.size();
    if (pose.palettes[s].skinning.size() != joints || pose.palettes[s].normal.size() != joints) {
      throw std::runtime_error("pose dump: the palette of skin " + std::to_string(s) + " does not have " +
                               std::to_string(joints) + " entries");
    }
  }
}

}  // namespace

void write_pose_json(const Scene& scene, const EvaluatedPose& pose, std::ostream& out, const Conventions* conventions,
                     const std::string& writer, const std::string& recipe) {
  check_sizes(scene, pose);
  std::string text = "{\"format\":\"skinref-pose\",\"version\":1,";
  if (!writer.empty()) {
    text += "\"writer\":";
    append_string(text, writer);
    text += ",";
  }
  text += "\"source\":";
  append_string(text, scene.source);
  text += ",\"animation\":";
  text += pose.animation < 0 ? std::string("null") : std::to_string(pose.animation);
  if (!recipe.empty()) {
    text += ",\"recipe\":";
    append_string(text, recipe);
  }
  text += ",\"time\":";
  append_number(text, pose.time, "the time");
  // The record of how the pose was made: the conventions and the clip time they mapped the time to.
  if (conventions) {
    text += ",\"conventions\":" + conventions_to_json(*conventions).dump();
    if (std::isfinite(pose.clip_time)) {
      text += ",\"clip_time\":";
      append_number(text, pose.clip_time, "the clip time");
    }
  }

  text += ",\n\"nodes\":[";
  for (size_t i = 0; i < scene.nodes.size(); ++i) {
    const Node& node = scene.nodes[i];
    const Transform& local = pose.local.local[i];
    const std::string where = "node " + std::to_string(i);
    text += i == 0 ? "\n" : ",\n";
    text += "{\"index\":" + std::to_string(i) + ",\"name\":";
    append_string(text, node.name);
    text += ",\"parent\":" + std::to_string(node.parent) + ",\"translation\":";
    append_array(text, local.translation.data(), 3, where);
    text += ",\"rotation\":";
    append_array(text, quat_to_xyzw(local.rotation), 4, where);
    text += ",\"scale\":";
    append_array(text, local.scale.data(), 3, where);
    text += ",\"global\":";
    append_matrix(text, pose.model.global[i], where);
    text += ",\"morph_weights\":";
    if (pose.local.morph_weights.empty()) {
      text += "[]";
    } else {
      const std::vector<double>& weights = pose.local.morph_weights[i];
      append_array(text, weights, weights.size(), where);
    }
    text += "}";
  }
  text += "\n],\n\"skins\":[";
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const Skin& skin = scene.skins[s];
    const JointPalette& palette = pose.palettes[s];
    const std::string where = "skin " + std::to_string(s);
    text += s == 0 ? "\n" : ",\n";
    text += "{\"index\":" + std::to_string(s) + ",\"name\":";
    append_string(text, skin.name);
    text += ",\"joints\":[";
    for (size_t j = 0; j < skin.joints.size(); ++j) {
      if (j != 0) text.push_back(',');
      text += std::to_string(skin.joints[j]);
    }
    text += "],\"palette\":[";
    for (size_t j = 0; j < palette.skinning.size(); ++j) {
      if (j != 0) text.push_back(',');
      append_matrix(text, palette.skinning[j], where);
    }
    text += "],\"normal_matrices\":[";
    for (size_t j = 0; j < palette.normal.size(); ++j) {
      if (j != 0) text.push_back(',');
      append_matrix(text, palette.normal[j], where);
    }
    text += "]}";
  }
  text += "\n]}\n";
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void write_pose_dump(const Scene& scene, const EvaluatedPose& pose, const std::string& path,
                     const Conventions* conventions, const std::string& writer, const std::string& recipe) {
  write_file_atomically(path, [&](std::ostream& out) { write_pose_json(scene, pose, out, conventions, writer, recipe); });
}

namespace {

// Checked access to a parsed pose dump: every failure names the file and the JSON path.
struct DumpReader {
  std::string file;

  [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
    throw InputError(file, path, expected);
  }
  const nlohmann::json& member(const nlohmann::json& object, const std::string& path, const char* key) const {
    if (!object.is_object()) fail(path, "an object");
    const auto found = object.find(key);
    if (found == object.end()) fail(path + "/" + key, "the member '" + std::string(key) + "'");
    return *found;
  }
  const nlohmann::json& array(const nlohmann::json& object, const std::string& path, const char* key,
                              size_t size) const {
    const nlohmann::json& value = member(object, path, key);
    if (!value.is_array() || value.size() != size)
      fail(path + "/" + key, "an array of " + std::to_string(size) + " elements");
    return value;
  }
  double number(const nlohmann::json& value, const std::string& path) const {
    if (!value.is_number()) fail(path, "a number");
    const double x = value.get<double>();
    if (!std::isfinite(x)) fail(path, "a finite number");
    return x;
  }
  template <typename Matrix>
  void matrix(const nlohmann::json& object, const std::string& path, const char* key, Matrix& out) const {
    const nlohmann::json& values = array(object, path, key, size_t(out.size()));
    for (size_t i = 0; i < values.size(); ++i)
      out.data()[i] = number(values[i], path + "/" + key + "/" + std::to_string(i));
  }
};

// The most significant digits any number of the JSON text was printed with: the writer's precision (a
// writer with %.9g prints at most 9, trimming trailing zeros; skinref prints 17). Strings are skipped.
int printed_significant_digits(const std::string& text) {
  int most = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (!(c == '-' || (c >= '0' && c <= '9'))) continue;
    // A number token: count the digits of its mantissa, leading zeros aside.
    int digits = 0;
    bool leading = true;
    size_t j = c == '-' ? i + 1 : i;
    for (; j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == '.'); ++j) {
      if (text[j] == '.') continue;
      if (leading && text[j] == '0') continue;
      leading = false;
      ++digits;
    }
    while (j < text.size() && (text[j] == 'e' || text[j] == 'E' || text[j] == '+' || text[j] == '-' ||
                               (text[j] >= '0' && text[j] <= '9')))
      ++j;  // the exponent
    most = std::max(most, digits);
    i = j - 1;
  }
  return most;
}

nlohmann::json parse_pose_dump(const DumpReader& reader, int* significant_digits = nullptr) {
  std::ifstream in(reader.file, std::ios::binary);
  if (!in) reader.fail("", "a readable pose dump (the file could not be opened)");
  std::ostringstream text;
  text << in.rdbuf();
  if (significant_digits) *significant_digits = printed_significant_digits(text.str());
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& error) {
    reader.fail("", std::string("JSON (") + error.what() + ")");
  }
  const nlohmann::json& format = reader.member(root, "", "format");
  if (format != "skinref-pose") reader.fail("/format", "\"skinref-pose\"");
  const nlohmann::json& version = reader.member(root, "", "version");
  if (version != 1) reader.fail("/version", "1");
  const nlohmann::json& source = reader.member(root, "", "source");
  if (!source.is_string()) reader.fail("/source", "a string");
  return root;
}

std::vector<std::string> scene_node_names(const Scene& scene) {
  std::vector<std::string> names;
  for (const Node& node : scene.nodes) names.push_back(node.name);
  return names;
}

// The index in `names` of each of `list`'s entries (strings), matched by name; every name must be known and
// appear once. Used for "joint_names".
std::vector<size_t> rows_by_name(const DumpReader& reader, const nlohmann::json& list, const std::string& path,
                                 const std::vector<std::string>& names) {
  std::vector<size_t> index(list.size());
  std::vector<bool> taken(names.size(), false);
  for (size_t e = 0; e < list.size(); ++e) {
    const std::string at = path + "/" + std::to_string(e);
    if (!list[e].is_string()) reader.fail(at, "a name");
    const std::string& name = list[e].get_ref<const std::string&>();
    const auto found = std::find(names.begin(), names.end(), name);
    if (found == names.end()) reader.fail(at, "the name of one of the model's joints, got '" + name + "'");
    const size_t i = size_t(found - names.begin());
    if (std::find(found + 1, names.end(), name) != names.end())
      reader.fail(at, "a name the model gives one joint only, but '" + name + "' names several");
    if (taken[i]) reader.fail(at, "each joint once, but '" + name + "' comes twice");
    taken[i] = true;
    index[e] = i;
  }
  return index;
}

// Node entries matched by their "name" when every entry has one and the model's names are unique; otherwise
// entry n is node n.
std::vector<size_t> entries_by_name(const DumpReader& reader, const nlohmann::json& entries, const std::string& path,
                                    const std::vector<std::string>& names) {
  std::vector<size_t> index(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) index[e] = e;
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  const bool unique = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  nlohmann::json listed = nlohmann::json::array();
  for (const nlohmann::json& entry : entries) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) return index;
    listed.push_back(entry["name"]);
  }
  if (!unique) return index;
  return rows_by_name(reader, listed, path, names);
}

}  // namespace

std::string read_pose_dump_source(const std::string& path) {
  const DumpReader reader{path};
  return parse_pose_dump(reader).at("source").get<std::string>();
}

namespace {

// An optional string field of a pose dump: "" when absent.
std::string optional_text(const std::string& path, const std::string& key, const std::string& expected) {
  const DumpReader reader{path};
  const nlohmann::json root = parse_pose_dump(reader);
  const auto field = root.find(key);
  if (field == root.end()) return "";
  if (!field->is_string()) reader.fail("/" + key, expected);
  return field->get<std::string>();
}

}  // namespace

std::string read_pose_dump_writer(const std::string& path) { return optional_text(path, "writer", "a string"); }

std::string read_pose_dump_recipe(const std::string& path) {
  return optional_text(path, "recipe", "a string (the recipe file)");
}

EvaluatedPose read_pose_dump(const std::string& path, const Scene& scene, std::string* source, int* significant_digits) {
  const DumpReader reader{path};
  const nlohmann::json root = parse_pose_dump(reader, significant_digits);
  if (source) *source = root.at("source").get<std::string>();
  EvaluatedPose pose;
  const nlohmann::json& animation = reader.member(root, "", "animation");
  if (animation.is_null()) {
    pose.animation = -1;
  } else if (animation.is_number_integer() && animation.get<long long>() >= 0 &&
             animation.get<long long>() < (long long)scene.animations.size()) {
    pose.animation = animation.get<int>();
  } else {
    reader.fail("/animation", "null or an animation index below " + std::to_string(scene.animations.size()));
  }
  pose.time = reader.number(reader.member(root, "", "time"), "/time");
  if (root.contains("clip_time")) pose.clip_time = reader.number(root["clip_time"], "/clip_time");

  // Matrices are column-major unless the dump declares "matrix_order": "row-major".
  bool row_major = false;
  if (const auto order = root.find("matrix_order"); order != root.end()) {
    if (*order == "row-major") row_major = true;
    else if (*order != "column-major") reader.fail("/matrix_order", "\"column-major\" or \"row-major\"");
  }
  auto read_matrix = [&](const nlohmann::json& object, const std::string& at, const char* key, auto& out) {
    reader.matrix(object, at, key, out);
    if (row_major) out.transposeInPlace();
  };

  const size_t node_count = scene.nodes.size();
  const nlohmann::json& nodes = reader.array(root, "", "nodes", node_count);
  // Entries name their node when every one has a "name" and the model's names are unique: an engine may list
  // its nodes in its own order. Otherwise entry n is node n.
  const std::vector<size_t> node_of = entries_by_name(reader, nodes, "/nodes", scene_node_names(scene));
  const LocalPose rest = rest_pose(scene);
  pose.local.local.resize(node_count);
  pose.local.morph_weights.resize(node_count);
  pose.model.global.resize(node_count);
  for (size_t e = 0; e < node_count; ++e) {
    const size_t n = node_of[e];
    const std::string at = "/nodes/" + std::to_string(e);
    const nlohmann::json& node = nodes[e];
    Vec3 translation, scale;
    Eigen::Vector4d xyzw;
    reader.matrix(node, at, "translation", translation);
    reader.matrix(node, at, "rotation", xyzw);
    reader.matrix(node, at, "scale", scale);
    pose.local.local[n].translation = translation;
    pose.local.local[n].rotation = quat_from_xyzw(xyzw[0], xyzw[1], xyzw[2], xyzw[3]);
    pose.local.local[n].scale = scale;
    read_matrix(node, at, "global", pose.model.global[n]);
    const nlohmann::json& weights = reader.array(node, at, "morph_weights", rest.morph_weights[n].size());
    for (size_t i = 0; i < weights.size(); ++i)
      pose.local.morph_weights[n].push_back(reader.number(weights[i], at + "/morph_weights/" + std::to_string(i)));
  }
  const nlohmann::json& skins = reader.array(root, "", "skins", scene.skins.size());
  pose.palettes.resize(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const std::string at = "/skins/" + std::to_string(s);
    const size_t joints = scene.skins[s].joints.size();
    const nlohmann::json& palette = reader.array(skins[s], at, "palette", joints);
    // "joint_names": the palette's rows by joint node name, in the engine's order.
    std::vector<size_t> joint_of(joints);
    for (size_t j = 0; j < joints; ++j) joint_of[j] = j;
    if (skins[s].contains("joint_names")) {
      std::vector<std::string> skin_names;
      for (int node : scene.skins[s].joints) skin_names.push_back(scene.nodes[size_t(node)].name);
      const nlohmann::json& names = reader.array(skins[s], at, "joint_names", joints);
      joint_of = rows_by_name(reader, names, at + "/joint_names", skin_names);
    }
    // Normal matrices may be left out: they are then derived from the dump's own palette.
    const bool has_normals = skins[s].contains("normal_matrices");
    const nlohmann::json* normals = has_normals ? &reader.array(skins[s], at, "normal_matrices", joints) : nullptr;
    pose.palettes[s].skinning.resize(joints);
    pose.palettes[s].normal.resize(joints);
    for (size_t e = 0; e < joints; ++e) {
      const size_t j = joint_of[e];
      const std::string entry = std::to_string(e);
      const nlohmann::json& jm = palette[e];
      if (!jm.is_array() || jm.size() != 16) reader.fail(at + "/palette/" + entry, "an array of 16 numbers");
      for (size_t i = 0; i < 16; ++i)
        pose.palettes[s].skinning[j].data()[i] = reader.number(jm[i], at + "/palette/" + entry + "/" + std::to_string(i));
      if (row_major) pose.palettes[s].skinning[j].transposeInPlace();
      if (!normals) {
        pose.palettes[s].normal[j] = normal_matrix(pose.palettes[s].skinning[j].topLeftCorner<3, 3>());
        continue;
      }
      const nlohmann::json& nm = (*normals)[e];
      if (!nm.is_array() || nm.size() != 9) reader.fail(at + "/normal_matrices/" + entry, "an array of 9 numbers");
      for (size_t i = 0; i < 9; ++i)
        pose.palettes[s].normal[j].data()[i] =
            reader.number(nm[i], at + "/normal_matrices/" + entry + "/" + std::to_string(i));
      if (row_major) pose.palettes[s].normal[j].transposeInPlace();
    }
  }
  return pose;
}

}  // namespace skinref

// Pose dump: local TRS, global matrices, morph weights and joint palettes of an evaluated pose as JSON text,
// every double printed with 17 significant digits so that it round-trips. Layout in pose_dump.h.
#include "pose_dump.h"

#include "atomic_file.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
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

void write_pose_json(const Scene& scene, const EvaluatedPose& pose, std::ostream& out) {
  check_sizes(scene, pose);
  std::string text = "{\"format\":\"skinref-pose\",\"version\":1,\"source\":";
  append_string(text, scene.source);
  text += ",\"animation\":";
  text += pose.animation < 0 ? std::string("null") : std::to_string(pose.animation);
  text += ",\"time\":";
  append_number(text, pose.time, "the time");

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

void write_pose_dump(const Scene& scene, const EvaluatedPose& pose, const std::string& path) {
  write_file_atomically(path, [&](std::ostream& out) { write_pose_json(scene, pose, out); });
}

}  // namespace skinref

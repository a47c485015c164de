// Vertex dumps as JSON (vertex_dump.h): every value with 17 significant digits, and the dump record as JSON
// (shared with the .skv format, whose record is this JSON).
#include "io/vertex_dump.h"

#include "io/vertex_dump_common.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace skinref {
namespace {

// The value as the dump stores it: f32 dumps hold the float-rounded value, printed exactly (as a double), so
// a JSON reader obtains the same doubles as read_vertices_skv does for the same dump.
void append_json_number(std::string& text, double value, DumpPrecision precision, const char* what,
                        size_t primitive_index) {
  const double stored = precision == DumpPrecision::F32 ? static_cast<double>(static_cast<float>(value)) : value;
  if (!std::isfinite(stored)) {
    throw std::runtime_error(primitive_label(primitive_index) + ": non-finite " + std::string(what) +
                             " value cannot be written as JSON");
  }
  std::array<char, 32> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), stored, std::chars_format::general, 17);
  if (result.ec != std::errc()) throw std::runtime_error("formatting a double for the vertex dump failed");
  text.append(buffer.data(), result.ptr);
}

template <typename Vector>
void append_json_array(std::string& text, const std::vector<Vector>& values, int components,
                       DumpPrecision precision, const char* what, size_t primitive_index) {
  text.push_back('[');
  bool first = true;
  for (const Vector& value : values) {
    for (int c = 0; c < components; ++c) {
      if (!first) text.push_back(',');
      first = false;
      append_json_number(text, value[c], precision, what, primitive_index);
    }
  }
  text.push_back(']');
}


}  // namespace

constexpr char kRecordLayout[] = "xyz-interleaved";

nlohmann::ordered_json dump_record_json(const DumpRecord& record) {
  nlohmann::ordered_json json;
  json["writer"] = record.writer;
  json["model"] = record.model;
  json["animation"] = record.animation;
  if (record.time) json["time"] = *record.time;
  json["method"] = record.method;
  json["palette"] = record.palette;
  if (record.conventions) json["conventions"] = conventions_to_json(*record.conventions);
  if (!record.model_hash.empty()) json["model_hash"] = record.model_hash;
  if (!record.ranges.empty()) {
    nlohmann::ordered_json ranges = nlohmann::ordered_json::array();
    for (const VertexRange& r : record.ranges)
      ranges.push_back({{"node", r.node}, {"mesh", r.mesh}, {"primitive", r.primitive}, {"first", r.first},
                        {"count", r.count}, {"skinned", r.skinned}});
    json["ranges"] = ranges;
  }
  if (!record.joint_names.empty()) json["joint_names"] = record.joint_names;
  json["layout"] = kRecordLayout;
  return json;
}

DumpRecord dump_record_from_json(const nlohmann::ordered_json& json) {
  if (!json.is_object()) throw std::invalid_argument("the record is not a JSON object");
  DumpRecord record;
  record.present = true;
  auto text = [&](const char* key, std::string& out) {
    if (!json.contains(key)) return;
    if (!json[key].is_string()) throw std::invalid_argument(std::string("\"") + key + "\" is not a string");
    out = json[key].get<std::string>();
  };
  text("writer", record.writer);
  text("model", record.model);
  text("animation", record.animation);
  text("method", record.method);
  text("palette", record.palette);
  if (json.contains("time")) {
    if (!json["time"].is_number()) throw std::invalid_argument("\"time\" is not a number");
    record.time = json["time"].get<double>();
    if (!std::isfinite(*record.time)) throw std::invalid_argument("\"time\" is not finite");
  }
  if (json.contains("conventions")) record.conventions = conventions_from_json(json["conventions"]);
  text("model_hash", record.model_hash);
  if (json.contains("ranges")) {
    const nlohmann::ordered_json& ranges = json["ranges"];
    if (!ranges.is_array() || ranges.empty()) throw std::invalid_argument("\"ranges\" is not a non-empty array");
    for (size_t i = 0; i < ranges.size(); ++i) {
      const nlohmann::ordered_json& r = ranges[i];
      const std::string at = "\"ranges\"[" + std::to_string(i) + "]";
      auto integer = [&](const char* key, long long low, long long high) {
        if (!r.is_object() || !r.contains(key) || !r[key].is_number_integer() || r[key].get<long long>() < low ||
            r[key].get<long long>() > high)
          throw std::invalid_argument(at + "." + key + " is not an integer from " + std::to_string(low) + " to " +
                                      std::to_string(high));
        return r[key].get<long long>();
      };
      VertexRange range;
      range.node = int(integer("node", 0, INT32_MAX));
      range.mesh = int(integer("mesh", 0, INT32_MAX));
      range.primitive = int(integer("primitive", 0, INT32_MAX));
      range.first = uint64_t(integer("first", 0, INT64_MAX));
      range.count = uint64_t(integer("count", 0, INT64_MAX));
      if (r.contains("skinned")) {
        if (!r["skinned"].is_boolean()) throw std::invalid_argument(at + ".skinned is not true or false");
        range.skinned = r["skinned"].get<bool>();
      }
      record.ranges.push_back(range);
    }
  }
  if (!record.palette.empty() && record.palette != "reference" && record.palette != "own")
    throw std::invalid_argument("\"palette\" is neither \"reference\" nor \"own\"");
  if (json.contains("joint_names")) {
    const nlohmann::ordered_json& names = json["joint_names"];
    if (!names.is_array()) throw std::invalid_argument("\"joint_names\" is not an array of names");
    for (size_t i = 0; i < names.size(); ++i) {
      if (!names[i].is_string())
        throw std::invalid_argument("\"joint_names\"[" + std::to_string(i) + "] is not a string");
      record.joint_names.push_back(names[i].get<std::string>());
    }
  }
  if (json.contains("layout") && json["layout"] != kRecordLayout)
    throw std::invalid_argument(std::string("\"layout\" is not \"") + kRecordLayout +
                                "\" (positions xyz, normals xyz, tangents xyzw, each interleaved per vertex)");
  if (json.contains("precision") && json["precision"] != "f32" && json["precision"] != "f64")
    throw std::invalid_argument("\"precision\" is neither \"f32\" nor \"f64\"");
  return record;
}

void write_vertices_json(const VertexDump& dump, std::ostream& out) {
  std::string text = "{\"format\":\"skinref-vertices\",\"version\":1,\"precision\":";
  text += dump.precision == DumpPrecision::F32 ? "\"f32\"" : "\"f64\"";
  if (dump.record.present) text += ",\"record\":" + dump_record_json(dump.record).dump();
  text += ",\"primitives\":[";
  for (size_t i = 0; i < dump.primitives.size(); ++i) {
    const WorldPrimitive& primitive = dump.primitives[i];
    check_attribute_sizes(primitive, i);
    text += i == 0 ? "\n" : ",\n";
    text += "{\"node\":" + std::to_string(primitive.node) + ",\"mesh\":" + std::to_string(primitive.mesh) +
            ",\"primitive\":" + std::to_string(primitive.primitive) +
            ",\"skinned\":" + (primitive.skinned ? "true" : "false") + ",\"positions\":";
    append_json_array(text, primitive.vertices.positions, 3, dump.precision, "position", i);
    // Absent attributes are omitted, as the .skv attribute bits omit them.
    if (!primitive.vertices.normals.empty()) {
      text += ",\"normals\":";
      append_json_array(text, primitive.vertices.normals, 3, dump.precision, "normal", i);
    }
    if (!primitive.vertices.tangents.empty()) {
      text += ",\"tangents\":";
      append_json_array(text, primitive.vertices.tangents, 4, dump.precision, "tangent", i);
    }
    text += "}";
  }
  text += "\n]}\n";
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace skinref

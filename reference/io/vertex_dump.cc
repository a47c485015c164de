// Vertex dumps: JSON (17-digit doubles), the binary .skv format (explicit little-endian bytes, read back
// with every header field and size checked) and a binary PLY for viewers. Layouts are in vertex_dump.h.
#include "io/vertex_dump.h"

#include "core/limits.h"

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/stream_bytes.h"

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
#include <string_view>

namespace skinref {
namespace {

constexpr std::string_view kSkvMagic = "SKINREFV";
constexpr uint32_t kSkvVersion = 1;         // without a record
constexpr uint32_t kSkvRecordVersion = 2;   // with a record (flags bit 0)
constexpr uint32_t kSkvFlagRecord = 1;
constexpr uint64_t kMaxRecordBytes = 1 << 20;
constexpr size_t kSkvHeaderBytes = 32;
constexpr size_t kSkvRecordBytes = 32;
constexpr uint32_t kAttributeSkinned = 1u << 0;
constexpr uint32_t kAttributeNormals = 1u << 1;
constexpr uint32_t kAttributeTangents = 1u << 2;
constexpr uint32_t kKnownAttributes = kAttributeSkinned | kAttributeNormals | kAttributeTangents;

// ---- little-endian encoding, byte by byte so that the host's layout never matters ----------------------

void put_u32(std::string& bytes, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<char>((value >> shift) & 0xffu));
}

void put_u64(std::string& bytes, uint64_t value) {
  for (int shift = 0; shift < 64; shift += 8) bytes.push_back(static_cast<char>((value >> shift) & 0xffu));
}

void put_i32(std::string& bytes, int32_t value) { put_u32(bytes, static_cast<uint32_t>(value)); }

void put_f32(std::string& bytes, float value) { put_u32(bytes, std::bit_cast<uint32_t>(value)); }

void put_f64(std::string& bytes, double value) { put_u64(bytes, std::bit_cast<uint64_t>(value)); }

uint32_t get_u32(std::string_view bytes, size_t offset) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

uint64_t get_u64(std::string_view bytes, size_t offset) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

int32_t get_i32(std::string_view bytes, size_t offset) { return std::bit_cast<int32_t>(get_u32(bytes, offset)); }

double get_value(std::string_view bytes, size_t offset, DumpPrecision precision) {
  if (precision == DumpPrecision::F32) return static_cast<double>(std::bit_cast<float>(get_u32(bytes, offset)));
  return std::bit_cast<double>(get_u64(bytes, offset));
}

// ---- shared checks -----------------------------------------------------------------------------------

std::string primitive_label(size_t index) { return "vertex dump primitive " + std::to_string(index); }

// The attribute arrays must be empty or vertex-count long; anything else is a caller bug, not bad input.
void check_attribute_sizes(const WorldPrimitive& primitive, size_t index) {
  const size_t n = primitive.vertices.positions.size();
  const size_t normals = primitive.vertices.normals.size();
  const size_t tangents = primitive.vertices.tangents.size();
  if ((normals != 0 && normals != n) || (tangents != 0 && tangents != n)) {
    throw std::runtime_error(primitive_label(index) + ": " + std::to_string(n) + " positions but " +
                             std::to_string(normals) + " normals and " + std::to_string(tangents) +
                             " tangents (each must be 0 or the vertex count)");
  }
}

uint32_t attribute_bits(const WorldPrimitive& primitive) {
  uint32_t bits = 0;
  if (primitive.skinned) bits |= kAttributeSkinned;
  if (!primitive.vertices.normals.empty()) bits |= kAttributeNormals;
  if (!primitive.vertices.tangents.empty()) bits |= kAttributeTangents;
  return bits;
}

// ---- JSON ----------------------------------------------------------------------------------------------

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

// ---- PLY -----------------------------------------------------------------------------------------------

const Primitive& scene_primitive_for(const Scene& scene, const WorldPrimitive& primitive, size_t index) {
  if (primitive.mesh < 0 || static_cast<size_t>(primitive.mesh) >= scene.meshes.size()) {
    throw std::runtime_error(primitive_label(index) + ": mesh " + std::to_string(primitive.mesh) +
                             " is not in the scene (" + std::to_string(scene.meshes.size()) + " meshes)");
  }
  const Mesh& mesh = scene.meshes[static_cast<size_t>(primitive.mesh)];
  if (primitive.primitive < 0 || static_cast<size_t>(primitive.primitive) >= mesh.primitives.size()) {
    throw std::runtime_error(primitive_label(index) + ": primitive " + std::to_string(primitive.primitive) +
                             " is not in mesh " + std::to_string(primitive.mesh) + " (" +
                             std::to_string(mesh.primitives.size()) + " primitives)");
  }
  return mesh.primitives[static_cast<size_t>(primitive.primitive)];
}

bool has_suffix(const std::string& text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    const char c = text[text.size() - suffix.size() + i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower != suffix[i]) return false;
  }
  return true;
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

void write_vertices_skv(const VertexDump& dump, std::ostream& out) {
  if (dump.primitives.size() > std::numeric_limits<uint32_t>::max()) {
    throw std::runtime_error("vertex dump: too many primitives for the .skv format");
  }
  const bool f32 = dump.precision == DumpPrecision::F32;
  std::string bytes;
  bytes.reserve(kSkvHeaderBytes);
  bytes.append(kSkvMagic);
  std::string record;
  if (dump.record.present) {
    nlohmann::ordered_json json = dump_record_json(dump.record);
    json["precision"] = f32 ? "f32" : "f64";
    record = json.dump();
  }
  put_u32(bytes, dump.record.present ? kSkvRecordVersion : kSkvVersion);
  put_u32(bytes, static_cast<uint32_t>(dump.precision));
  put_u32(bytes, static_cast<uint32_t>(dump.primitives.size()));
  put_u32(bytes, dump.record.present ? kSkvFlagRecord : 0);  // flags
  put_u64(bytes, record.size());  // the record's byte count (version 1: reserved, 0)
  bytes += record;
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

  for (size_t i = 0; i < dump.primitives.size(); ++i) {
    const WorldPrimitive& primitive = dump.primitives[i];
    check_attribute_sizes(primitive, i);
    const SkinnedVertices& vertices = primitive.vertices;
    bytes.clear();
    put_i32(bytes, primitive.node);
    put_i32(bytes, primitive.mesh);
    put_i32(bytes, primitive.primitive);
    put_u32(bytes, attribute_bits(primitive));
    put_u64(bytes, static_cast<uint64_t>(vertices.positions.size()));
    put_u64(bytes, 0);  // reserved
    auto put_value = [&](double value) {
      if (f32) {
        put_f32(bytes, static_cast<float>(value));
      } else {
        put_f64(bytes, value);
      }
    };
    for (const Vec3& p : vertices.positions) {
      for (int c = 0; c < 3; ++c) put_value(p[c]);
    }
    for (const Vec3& n : vertices.normals) {
      for (int c = 0; c < 3; ++c) put_value(n[c]);
    }
    for (const Vec4& t : vertices.tangents) {
      for (int c = 0; c < 4; ++c) put_value(t[c]);
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
}

void write_vertices_ply(const Scene& scene, const VertexDump& dump, std::ostream& out) {
  // Every primitive's vertices are listed; faces come from Triangles primitives, their indices offset by
  // the vertices listed before them. PLY's `int` indices bound the total vertex count.
  constexpr uint64_t kMaxPlyIndex = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
  uint64_t vertex_total = 0;
  uint64_t face_total = 0;
  for (size_t i = 0; i < dump.primitives.size(); ++i) {
    const WorldPrimitive& primitive = dump.primitives[i];
    check_attribute_sizes(primitive, i);
    const Primitive& source = scene_primitive_for(scene, primitive, i);
    const size_t n = primitive.vertices.positions.size();
    if (source.topology == Topology::Triangles) {
      if (source.indices.size() % 3 != 0) {
        throw std::runtime_error(primitive_label(i) + ": " + std::to_string(source.indices.size()) +
                                 " triangle indices, not a multiple of 3");
      }
      for (uint32_t index : source.indices) {
        if (index >= n) {
          throw std::runtime_error(primitive_label(i) + ": triangle index " + std::to_string(index) +
                                   " is not below the dumped vertex count " + std::to_string(n));
        }
      }
      face_total += source.indices.size() / 3;
    }
    vertex_total += n;
    if (vertex_total > kMaxPlyIndex + 1) {
      throw std::runtime_error("vertex dump: too many vertices for PLY int indices");
    }
  }

  std::string bytes =
      "ply\n"
      "format binary_little_endian 1.0\n"
      "element vertex " +
      std::to_string(vertex_total) +
      "\n"
      "property float x\n"
      "property float y\n"
      "property float z\n"
      "property float nx\n"
      "property float ny\n"
      "property float nz\n"
      "element face " +
      std::to_string(face_total) +
      "\n"
      "property list uchar int vertex_indices\n"
      "end_header\n";
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

  for (const WorldPrimitive& primitive : dump.primitives) {
    const SkinnedVertices& vertices = primitive.vertices;
    bytes.clear();
    for (size_t v = 0; v < vertices.positions.size(); ++v) {
      for (int c = 0; c < 3; ++c) put_f32(bytes, static_cast<float>(vertices.positions[v][c]));
      // Zero normals when the primitive has none: the vertex layout is the same for every primitive.
      for (int c = 0; c < 3; ++c) {
        put_f32(bytes, vertices.normals.empty() ? 0.0f : static_cast<float>(vertices.normals[v][c]));
      }
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  uint64_t offset = 0;
  for (size_t i = 0; i < dump.primitives.size(); ++i) {
    const WorldPrimitive& primitive = dump.primitives[i];
    const Primitive& source = scene_primitive_for(scene, primitive, i);
    if (source.topology == Topology::Triangles) {
      bytes.clear();
      for (size_t t = 0; t + 2 < source.indices.size(); t += 3) {
        bytes.push_back(static_cast<char>(3));
        for (size_t k = 0; k < 3; ++k) put_i32(bytes, static_cast<int32_t>(offset + source.indices[t + k]));
      }
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    offset += primitive.vertices.positions.size();
  }
}

void write_vertex_dump(const Scene& scene, const VertexDump& dump, const std::string& path) {
  if (has_suffix(path, ".json")) {
    write_file_atomically(path, [&](std::ostream& out) { write_vertices_json(dump, out); });
  } else if (has_suffix(path, ".skv")) {
    write_file_atomically(path, [&](std::ostream& out) { write_vertices_skv(dump, out); });
  } else if (has_suffix(path, ".ply")) {
    write_file_atomically(path, [&](std::ostream& out) { write_vertices_ply(scene, dump, out); });
  } else {
    throw InputError(path, "", "a vertex dump file name ending in .json, .skv or .ply");
  }
}

namespace {

// The primitives of a merged buffer (DumpRecord::ranges): each range's vertices, copied out of the one .skv
// primitive.
std::vector<WorldPrimitive> split_merged_buffer(const std::string& path, const VertexDump& dump) {
  if (dump.primitives.size() != 1)
    throw InputError(path, "", "one merged primitive under a record with \"ranges\", found " +
                                   std::to_string(dump.primitives.size()));
  const SkinnedVertices& merged = dump.primitives[0].vertices;
  const uint64_t total = merged.positions.size();
  std::vector<WorldPrimitive> split;
  for (size_t i = 0; i < dump.record.ranges.size(); ++i) {
    const VertexRange& r = dump.record.ranges[i];
    if (r.first > total || r.count > total - r.first)
      throw InputError(path, "", "range " + std::to_string(i) + " (first " + std::to_string(r.first) + ", count " +
                                     std::to_string(r.count) + ") within the merged buffer's " +
                                     std::to_string(total) + " vertices");
    WorldPrimitive& p = split.emplace_back();
    p.node = r.node;
    p.mesh = r.mesh;
    p.primitive = r.primitive;
    p.skinned = r.skinned;
    const auto first = std::ptrdiff_t(r.first), end = std::ptrdiff_t(r.first + r.count);
    p.vertices.positions.assign(merged.positions.begin() + first, merged.positions.begin() + end);
    if (!merged.normals.empty())
      p.vertices.normals.assign(merged.normals.begin() + first, merged.normals.begin() + end);
    if (!merged.tangents.empty())
      p.vertices.tangents.assign(merged.tangents.begin() + first, merged.tangents.begin() + end);
  }
  return split;
}

// A .skv reading error at a byte offset of the file at `path`.
struct SkvFail {
  const std::string& path;
  InputError operator()(size_t offset, const std::string& expected) const {
    return InputError(path, "", "at byte " + std::to_string(offset) + ": " + expected);
  }
};

// Read step: the whole file's bytes.
std::string read_skv_bytes(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) {
    const int error_number = errno;
    throw InputError(path, "", std::string("a readable .skv file (") +
                                   (error_number != 0 ? std::strerror(error_number) : "cannot open") + ")");
  }
  std::string contents = read_stream_bytes(in);
  if (in.bad()) throw InputError(path, "", "a readable .skv file (reading failed)");
  return contents;
}

// The fixed header's fields, checked.
struct SkvHeader {
  uint32_t version = 0;
  uint32_t precision_bytes = 0;  // 4 or 8
  uint32_t primitive_count = 0;
  uint32_t flags = 0;
  uint64_t record_bytes = 0;  // within the file and kMaxRecordBytes
};

// Header step: the magic, version, precision, flags and record size, each checked in file order.
SkvHeader read_skv_header(std::string_view bytes, const SkvFail& fail) {
  const size_t size = bytes.size();
  if (size < kSkvHeaderBytes) {
    throw fail(0, "a " + std::to_string(kSkvHeaderBytes) + "-byte .skv header, but the file has only " +
                      std::to_string(size) + " bytes");
  }
  if (bytes.substr(0, kSkvMagic.size()) != kSkvMagic) throw fail(0, "the magic \"SKINREFV\"");
  const uint32_t version = get_u32(bytes, 8);
  if (version != kSkvVersion && version != kSkvRecordVersion) {
    throw fail(8, "version 1 or 2, found " + std::to_string(version));
  }
  const uint32_t precision_bytes = get_u32(bytes, 12);
  if (precision_bytes != 4 && precision_bytes != 8) {
    throw fail(12, "precision 4 (f32) or 8 (f64), found " + std::to_string(precision_bytes));
  }
  const uint32_t primitive_count = get_u32(bytes, 16);
  const uint32_t flags = get_u32(bytes, 20);
  const uint32_t allowed_flags = version == kSkvRecordVersion ? kSkvFlagRecord : 0;
  if ((flags & ~allowed_flags) != 0)
    throw fail(20, "flags " + std::string(version == kSkvRecordVersion ? "0 or 1" : "0") + " for version " +
                       std::to_string(version) + ", found " + std::to_string(flags));
  const uint64_t record_bytes = get_u64(bytes, 24);
  if ((flags & kSkvFlagRecord) == 0 && record_bytes != 0)
    throw fail(24, "0 (reserved: no record), found " + std::to_string(record_bytes));
  if (record_bytes > kMaxRecordBytes || record_bytes > size - kSkvHeaderBytes)
    throw fail(24, "a record of at most " + std::to_string(kMaxRecordBytes) + " bytes within the file, found " +
                       std::to_string(record_bytes));
  return SkvHeader{version, precision_bytes, primitive_count, flags, record_bytes};
}

// Record step: the JSON record after the header (flags bit 0), or an empty one.
DumpRecord read_skv_record(std::string_view bytes, const SkvHeader& header, const SkvFail& fail) {
  const uint32_t precision_bytes = header.precision_bytes;
  const uint64_t record_bytes = header.record_bytes;
  DumpRecord record;
  if (header.flags & kSkvFlagRecord) {
    try {
      const nlohmann::ordered_json json = nlohmann::ordered_json::parse(bytes.substr(kSkvHeaderBytes, size_t(record_bytes)));
      record = dump_record_from_json(json);
      if (json.contains("precision") && json["precision"] != (precision_bytes == 4 ? "f32" : "f64"))
        throw std::invalid_argument(std::string("\"precision\" ") + json["precision"].dump() +
                                    " contradicts the header's precision (" + (precision_bytes == 4 ? "f32" : "f64") +
                                    ")");
    } catch (const std::exception& error) {
      throw fail(kSkvHeaderBytes, std::string("a JSON record (writer, model, animation, time, method, palette, "
                                              "conventions): ") + error.what());
    }
  }
  return record;
}

// Primitive step: primitive `i`'s 32-byte record at `offset`, then its vertices; advances `offset` past them.
void read_skv_primitive(std::string_view bytes, uint32_t i, uint32_t precision_bytes, DumpPrecision precision,
                        const SkvFail& fail, size_t& offset, WorldPrimitive& primitive) {
  const size_t size = bytes.size();
  const size_t record = offset;
  if (size - offset < kSkvRecordBytes) {
    throw fail(record, "the " + std::to_string(kSkvRecordBytes) + "-byte record of primitive " +
                           std::to_string(i) + ", but the file ends at byte " + std::to_string(size));
  }
  primitive.node = get_i32(bytes, record);
  primitive.mesh = get_i32(bytes, record + 4);
  primitive.primitive = get_i32(bytes, record + 8);
  const uint32_t attributes = get_u32(bytes, record + 12);
  if ((attributes & ~kKnownAttributes) != 0) {
    throw fail(record + 12, "attribute bits within 0x7 for primitive " + std::to_string(i) + ", found " +
                                std::to_string(attributes));
  }
  const uint64_t vertex_count = get_u64(bytes, record + 16);
  const uint64_t record_reserved = get_u64(bytes, record + 24);
  if (record_reserved != 0) {
    throw fail(record + 24, "reserved 0 for primitive " + std::to_string(i) + ", found " +
                                std::to_string(record_reserved));
  }
  offset += kSkvRecordBytes;

  const bool has_normals = (attributes & kAttributeNormals) != 0;
  const bool has_tangents = (attributes & kAttributeTangents) != 0;
  const uint64_t components = 3u + (has_normals ? 3u : 0u) + (has_tangents ? 4u : 0u);
  const uint64_t bytes_per_vertex = components * precision_bytes;
  if (vertex_count > limits::kMaxVerticesPerPrimitive)
    throw fail(record + 16, "a vertex count " + limits::limit_text(limits::kMaxVerticesPerPrimitive,
                                                                   "kMaxVerticesPerPrimitive") +
                                " for primitive " + std::to_string(i) + ", found " + std::to_string(vertex_count));
  // Compared by division so that a huge count cannot overflow the product.
  if (vertex_count > (size - offset) / bytes_per_vertex) {
    throw fail(record + 16, std::to_string(vertex_count) + " vertices of " + std::to_string(bytes_per_vertex) +
                                " bytes for primitive " + std::to_string(i) + ", but only " +
                                std::to_string(size - offset) + " bytes remain");
  }
  primitive.skinned = (attributes & kAttributeSkinned) != 0;
  const size_t n = static_cast<size_t>(vertex_count);
  // An engine's NaN or infinity is refused here, naming the first: compared, it would only read as "over its
  // bound" far from where it came from.
  auto next = [&](const char* attribute, size_t vertex, int component) {
    const double value = get_value(bytes, offset, precision);
    if (!std::isfinite(value))
      throw fail(offset, "finite values; primitive " + std::to_string(i) + " has " +
                             (std::isnan(value) ? "NaN" : "an infinity") + " in its " + attribute + " of vertex " +
                             std::to_string(vertex) + ", component " + std::to_string(component));
    offset += precision_bytes;
    return value;
  };
  SkinnedVertices& vertices = primitive.vertices;
  vertices.positions.resize(n);
  for (size_t v = 0; v < n; ++v)
    for (int c = 0; c < 3; ++c) vertices.positions[v][c] = next("position", v, c);
  if (has_normals) {
    vertices.normals.resize(n);
    for (size_t v = 0; v < n; ++v)
      for (int c = 0; c < 3; ++c) vertices.normals[v][c] = next("normal", v, c);
  }
  if (has_tangents) {
    vertices.tangents.resize(n);
    for (size_t v = 0; v < n; ++v)
      for (int c = 0; c < 4; ++c) vertices.tangents[v][c] = next("tangent", v, c);
  }
}

}  // namespace

VertexDump read_vertices_skv(const std::string& path) {
  const std::string contents = read_skv_bytes(path);
  const std::string_view bytes(contents);
  const size_t size = bytes.size();
  const SkvFail fail{path};

  const SkvHeader header = read_skv_header(bytes, fail);
  const uint32_t precision_bytes = header.precision_bytes;
  const uint32_t primitive_count = header.primitive_count;
  DumpRecord record = read_skv_record(bytes, header, fail);
  const size_t data_start = kSkvHeaderBytes + size_t(header.record_bytes);
  // Each primitive needs at least its record: bounds the count before anything is allocated.
  if (primitive_count > (size - data_start) / kSkvRecordBytes) {
    throw fail(16, std::to_string(primitive_count) + " primitive records of " + std::to_string(kSkvRecordBytes) +
                       " bytes, but only " + std::to_string(size - data_start) + " bytes follow the header");
  }

  VertexDump dump;
  dump.record = std::move(record);
  dump.precision = precision_bytes == 4 ? DumpPrecision::F32 : DumpPrecision::F64;
  dump.primitives.resize(primitive_count);
  size_t offset = data_start;
  for (uint32_t i = 0; i < primitive_count; ++i) {
    read_skv_primitive(bytes, i, precision_bytes, dump.precision, fail, offset, dump.primitives[i]);
  }
  if (offset != size) {
    throw fail(offset, "the end of the file after the last primitive, but " + std::to_string(size - offset) +
                           " more bytes follow");
  }
  if (!dump.record.ranges.empty()) dump.primitives = split_merged_buffer(path, dump);
  return dump;
}

namespace {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits

void fnv1a_update(uint64_t& hash, const char* bytes, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    hash ^= uint8_t(bytes[i]);
    hash *= 0x100000001b3ull;
  }
}

std::string fnv1a_text(uint64_t hash) {
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace

std::string content_hash_of_bytes(std::string_view bytes) {
  uint64_t hash = kFnvOffsetBasis;
  fnv1a_update(hash, bytes.data(), bytes.size());
  return fnv1a_text(hash);
}

uint64_t max_skv_bytes(const std::vector<WorldPrimitive>& primitives) {
  uint64_t bytes = kSkvHeaderBytes + kMaxRecordBytes;
  for (const WorldPrimitive& p : primitives)
    bytes += kSkvRecordBytes + uint64_t(p.vertices.positions.size()) * (3 + 3 + 4) * sizeof(double);
  return bytes;
}

std::string model_content_hash(const std::string& spec) {
  if (spec.rfind("builtin:", 0) == 0) return "";
  std::ifstream in(spec, std::ios::binary);
  if (!in) return "";
  uint64_t hash = kFnvOffsetBasis;
  char buffer[65536];
  while (in) {
    in.read(buffer, sizeof buffer);
    fnv1a_update(hash, buffer, size_t(in.gcount()));
  }
  if (in.bad()) return "";
  return fnv1a_text(hash);
}

}  // namespace skinref

// Vertex dumps in the binary .skv format (vertex_dump.h): explicit little-endian bytes, byte by byte so that
// the host's layout never matters, read back with every header field and size checked.
#include "io/vertex_dump.h"

#include "io/vertex_dump_common.h"

#include "core/input_error.h"
#include "core/limits.h"
#include "core/stream_bytes.h"

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

uint32_t attribute_bits(const WorldPrimitive& primitive) {
  uint32_t bits = 0;
  if (primitive.skinned) bits |= kAttributeSkinned;
  if (!primitive.vertices.normals.empty()) bits |= kAttributeNormals;
  if (!primitive.vertices.tangents.empty()) bits |= kAttributeTangents;
  return bits;
}

}  // namespace

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



uint64_t max_skv_bytes(const std::vector<WorldPrimitive>& primitives) {
  uint64_t bytes = kSkvHeaderBytes + kMaxRecordBytes;
  for (const WorldPrimitive& p : primitives)
    bytes += kSkvRecordBytes + uint64_t(p.vertices.positions.size()) * (3 + 3 + 4) * sizeof(double);
  return bytes;
}

}  // namespace skinref

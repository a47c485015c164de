// Vertex dumps and atomic writes: .skv round trips in f64 and f32, the documented header layout byte by byte,
// rejection of malformed .skv files, JSON contents (17-digit doubles read back exactly), the PLY header and
// size, and that a failing writer leaves no file behind.
#include "core/atomic_file.h"
#include "core/input_error.h"
#include "io/vertex_dump.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

namespace fs = std::filesystem;
using test::read_bytes;
using test::TempDir;
using test::write_bytes;

// Byte offsets and values of the .skv layout documented in vertex_dump.h.
constexpr size_t kHeaderBytes = 32;
constexpr size_t kRecordBytes = 32;
constexpr size_t kOffsetVersion = 8;
constexpr size_t kOffsetPrecision = 12;
constexpr size_t kOffsetPrimitiveCount = 16;
constexpr size_t kOffsetFlags = 20;
constexpr size_t kOffsetHeaderReserved = 24;
constexpr size_t kRecordNode = 0;
constexpr size_t kRecordMesh = 4;
constexpr size_t kRecordPrimitive = 8;
constexpr size_t kRecordAttributes = 12;
constexpr size_t kRecordVertexCount = 16;
constexpr size_t kRecordReserved = 24;
constexpr uint32_t kVersion = 1;
constexpr uint32_t kAttributeSkinned = 1;
constexpr uint32_t kAttributeNormals = 2;
constexpr uint32_t kAttributeTangents = 4;
// PLY record sizes: six float32 per vertex; a uchar count and three int32 indices per face.
constexpr size_t kPlyVertexBytes = 24;
constexpr size_t kPlyFaceBytes = 13;

uint32_t le_u32(const std::string& bytes, size_t offset) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) {
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes.at(offset + i))) << (8 * i);
  }
  return value;
}

uint64_t le_u64(const std::string& bytes, size_t offset) {
  uint64_t value = 0;
  for (size_t i = 0; i < 8; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes.at(offset + i))) << (8 * i);
  }
  return value;
}

void set_le_u32(std::string& bytes, size_t offset, uint32_t value) {
  for (size_t i = 0; i < 4; ++i) bytes.at(offset + i) = static_cast<char>((value >> (8 * i)) & 0xffu);
}

void set_le_u64(std::string& bytes, size_t offset, uint64_t value) {
  for (size_t i = 0; i < 8; ++i) bytes.at(offset + i) = static_cast<char>((value >> (8 * i)) & 0xffu);
}

double float_rounded(double value) { return static_cast<double>(static_cast<float>(value)); }

// Three primitives covering every attribute combination the writers branch on. Values are chosen so that
// most are not representable in float32 (0.1, 1/3, long mantissas) and f32 rounding is visible.
VertexDump sample_dump(DumpPrecision precision) {
  VertexDump dump;
  dump.precision = precision;

  WorldPrimitive positions_only;
  positions_only.node = 0;
  positions_only.mesh = 0;
  positions_only.primitive = 0;
  positions_only.skinned = false;
  positions_only.vertices.positions = {Vec3(0.1, -2.5, 1.0 / 3.0), Vec3(12345.678901234567, -1e-7, 3.0),
                                       Vec3(-0.7, 2.0 / 3.0, 1e10)};

  WorldPrimitive with_tangents;
  with_tangents.node = 2;
  with_tangents.mesh = 1;
  with_tangents.primitive = 0;
  with_tangents.skinned = true;
  with_tangents.vertices.positions = {Vec3(1.1, 2.2, 3.3), Vec3(-4.4, 5.5, -6.6), Vec3(7.7, -8.8, 9.9),
                                      Vec3(0.01, 0.02, 0.03)};
  const double s = std::sqrt(0.5);
  with_tangents.vertices.normals = {Vec3(0.0, 0.0, 1.0), Vec3(s, s, 0.0), Vec3(0.0, -s, s), Vec3(-1.0, 0.0, 0.0)};
  with_tangents.vertices.tangents = {Vec4(1.0, 0.0, 0.0, 1.0), Vec4(-s, s, 0.0, -1.0), Vec4(0.0, s, s, 1.0),
                                     Vec4(0.0, 0.0, -1.0, -1.0)};

  WorldPrimitive with_normals;
  with_normals.node = 3;
  with_normals.mesh = 2;
  with_normals.primitive = 0;
  with_normals.skinned = false;
  with_normals.vertices.positions = {Vec3(0.125, 0.25, 0.5), Vec3(-0.3, 0.6, -0.9)};
  with_normals.vertices.normals = {Vec3(0.6, 0.8, 0.0), Vec3(0.0, 0.6, -0.8)};

  dump.primitives = {positions_only, with_tangents, with_normals};
  return dump;
}

// The scene the PLY writer takes its faces from: one triangle, two triangles sharing an edge, and a line
// primitive that contributes vertices but no faces.
Scene sample_scene() {
  Scene scene;
  scene.source = "vertex-dump-test";
  scene.meshes.resize(3);
  Primitive one_triangle;
  one_triangle.topology = Topology::Triangles;
  one_triangle.indexed = true;
  one_triangle.indices = {0, 1, 2};
  scene.meshes[0].primitives.push_back(one_triangle);
  Primitive two_triangles;
  two_triangles.topology = Topology::Triangles;
  two_triangles.indexed = true;
  two_triangles.indices = {0, 1, 2, 2, 1, 3};
  scene.meshes[1].primitives.push_back(two_triangles);
  Primitive line;
  line.topology = Topology::Lines;
  line.indexed = true;
  line.indices = {0, 1};
  scene.meshes[2].primitives.push_back(line);
  return scene;
}

// Expected values of a dump as stored at `precision`.
double stored(double value, DumpPrecision precision) {
  return precision == DumpPrecision::F32 ? float_rounded(value) : value;
}

void expect_same_dump(const VertexDump& expected, const VertexDump& actual) {
  ASSERT_EQ(expected.precision, actual.precision);
  ASSERT_EQ(expected.primitives.size(), actual.primitives.size());
  for (size_t i = 0; i < expected.primitives.size(); ++i) {
    SCOPED_TRACE("primitive " + std::to_string(i));
    const WorldPrimitive& e = expected.primitives[i];
    const WorldPrimitive& a = actual.primitives[i];
    EXPECT_EQ(e.node, a.node);
    EXPECT_EQ(e.mesh, a.mesh);
    EXPECT_EQ(e.primitive, a.primitive);
    EXPECT_EQ(e.skinned, a.skinned);
    ASSERT_EQ(e.vertices.positions.size(), a.vertices.positions.size());
    ASSERT_EQ(e.vertices.normals.size(), a.vertices.normals.size());
    ASSERT_EQ(e.vertices.tangents.size(), a.vertices.tangents.size());
    for (size_t v = 0; v < e.vertices.positions.size(); ++v) {
      for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(stored(e.vertices.positions[v][c], expected.precision), a.vertices.positions[v][c]);
      }
    }
    for (size_t v = 0; v < e.vertices.normals.size(); ++v) {
      for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(stored(e.vertices.normals[v][c], expected.precision), a.vertices.normals[v][c]);
      }
    }
    for (size_t v = 0; v < e.vertices.tangents.size(); ++v) {
      for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(stored(e.vertices.tangents[v][c], expected.precision), a.vertices.tangents[v][c]);
      }
    }
  }
}

size_t expected_skv_size(const VertexDump& dump) {
  const size_t value_bytes = static_cast<size_t>(dump.precision);
  size_t size = kHeaderBytes;
  for (const WorldPrimitive& primitive : dump.primitives) {
    const size_t n = primitive.vertices.positions.size();
    size += kRecordBytes + value_bytes * (3 * n + 3 * primitive.vertices.normals.size() +
                                          4 * primitive.vertices.tangents.size());
  }
  return size;
}

TEST(VertexDumpSkv, F64RoundTripIsExact) {
  TempDir dir;
  const VertexDump dump = sample_dump(DumpPrecision::F64);
  const std::string path = dir.file("dump.skv");
  write_vertex_dump(sample_scene(), dump, path);
  expect_same_dump(dump, read_vertices_skv(path));
}

TEST(VertexDumpSkv, F32RoundTripGivesFloatRoundedValues) {
  TempDir dir;
  const VertexDump dump = sample_dump(DumpPrecision::F32);
  const std::string path = dir.file("dump.skv");
  write_vertex_dump(sample_scene(), dump, path);
  const VertexDump back = read_vertices_skv(path);
  expect_same_dump(dump, back);
  // The sample holds values that float32 cannot represent: the comparison above really saw rounding.
  EXPECT_NE(dump.primitives[0].vertices.positions[0][0], back.primitives[0].vertices.positions[0][0]);
}

TEST(VertexDumpSkv, HeaderAndRecordsFollowTheDocumentedLayout) {
  TempDir dir;
  for (const DumpPrecision precision : {DumpPrecision::F64, DumpPrecision::F32}) {
    SCOPED_TRACE(precision == DumpPrecision::F64 ? "f64" : "f32");
    const VertexDump dump = sample_dump(precision);
    const std::string path = dir.file(precision == DumpPrecision::F64 ? "f64.skv" : "f32.skv");
    write_vertex_dump(sample_scene(), dump, path);
    const std::string bytes = read_bytes(path);
    ASSERT_EQ(bytes.size(), expected_skv_size(dump));

    EXPECT_EQ(bytes.substr(0, 8), "SKINREFV");
    EXPECT_EQ(le_u32(bytes, kOffsetVersion), kVersion);
    EXPECT_EQ(le_u32(bytes, kOffsetPrecision), static_cast<uint32_t>(precision));
    EXPECT_EQ(le_u32(bytes, kOffsetPrimitiveCount), dump.primitives.size());
    EXPECT_EQ(le_u32(bytes, kOffsetFlags), 0u);
    EXPECT_EQ(le_u64(bytes, kOffsetHeaderReserved), 0u);

    const size_t value_bytes = static_cast<size_t>(precision);
    size_t record = kHeaderBytes;
    for (const WorldPrimitive& primitive : dump.primitives) {
      const size_t n = primitive.vertices.positions.size();
      uint32_t attributes = primitive.skinned ? kAttributeSkinned : 0;
      if (!primitive.vertices.normals.empty()) attributes |= kAttributeNormals;
      if (!primitive.vertices.tangents.empty()) attributes |= kAttributeTangents;
      EXPECT_EQ(static_cast<int32_t>(le_u32(bytes, record + kRecordNode)), primitive.node);
      EXPECT_EQ(static_cast<int32_t>(le_u32(bytes, record + kRecordMesh)), primitive.mesh);
      EXPECT_EQ(static_cast<int32_t>(le_u32(bytes, record + kRecordPrimitive)), primitive.primitive);
      EXPECT_EQ(le_u32(bytes, record + kRecordAttributes), attributes);
      EXPECT_EQ(le_u64(bytes, record + kRecordVertexCount), n);
      EXPECT_EQ(le_u64(bytes, record + kRecordReserved), 0u);

      // The first position's x, then the first normal's x right after all positions.
      const size_t positions = record + kRecordBytes;
      const double first_x = primitive.vertices.positions[0][0];
      if (precision == DumpPrecision::F64) {
        EXPECT_EQ(le_u64(bytes, positions), std::bit_cast<uint64_t>(first_x));
      } else {
        EXPECT_EQ(le_u32(bytes, positions), std::bit_cast<uint32_t>(static_cast<float>(first_x)));
      }
      if (!primitive.vertices.normals.empty()) {
        const size_t normals = positions + 3 * n * value_bytes;
        const double normal_x = primitive.vertices.normals[0][0];
        if (precision == DumpPrecision::F64) {
          EXPECT_EQ(le_u64(bytes, normals), std::bit_cast<uint64_t>(normal_x));
        } else {
          EXPECT_EQ(le_u32(bytes, normals), std::bit_cast<uint32_t>(static_cast<float>(normal_x)));
        }
      }
      record = positions + value_bytes * (3 * n + 3 * primitive.vertices.normals.size() +
                                          4 * primitive.vertices.tangents.size());
    }
    EXPECT_EQ(record, bytes.size());
  }
}

TEST(VertexDumpSkv, EmptyDumpIsJustTheHeader) {
  TempDir dir;
  VertexDump dump;
  const std::string path = dir.file("empty.skv");
  write_vertex_dump(Scene{}, dump, path);
  EXPECT_EQ(read_bytes(path).size(), kHeaderBytes);
  EXPECT_TRUE(read_vertices_skv(path).primitives.empty());
}

// Writes a valid f64 dump, lets `corrupt` damage it, and expects read_vertices_skv to refuse the result
// with an InputError naming the file.
void expect_rejected(const std::string& what, const std::function<void(std::string&)>& corrupt) {
  SCOPED_TRACE(what);
  TempDir dir;
  const std::string path = dir.file("bad.skv");
  write_vertex_dump(sample_scene(), sample_dump(DumpPrecision::F64), path);
  std::string bytes = read_bytes(path);
  corrupt(bytes);
  write_bytes(path, bytes);
  try {
    read_vertices_skv(path);
    ADD_FAILURE() << "read_vertices_skv accepted a file with " << what;
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), path);
    EXPECT_NE(std::string(error.what()).find("byte"), std::string::npos) << error.what();
  }
}

TEST(VertexDumpSkv, MalformedFilesAreRejected) {
  expect_rejected("the last byte cut off", [](std::string& bytes) { bytes.pop_back(); });
  expect_rejected("only part of the header", [](std::string& bytes) { bytes.resize(kHeaderBytes - 12); });
  expect_rejected("a trailing byte", [](std::string& bytes) { bytes.push_back('\0'); });
  expect_rejected("a wrong magic", [](std::string& bytes) { bytes[0] = 'X'; });
  expect_rejected("version 3", [](std::string& bytes) { set_le_u32(bytes, kOffsetVersion, kVersion + 2); });
  expect_rejected("precision 5", [](std::string& bytes) { set_le_u32(bytes, kOffsetPrecision, 5); });
  expect_rejected("non-zero flags", [](std::string& bytes) { set_le_u32(bytes, kOffsetFlags, 1); });
  expect_rejected("a non-zero header reserved field",
                  [](std::string& bytes) { set_le_u64(bytes, kOffsetHeaderReserved, 1); });
  expect_rejected("more primitives than records fit",
                  [](std::string& bytes) { set_le_u32(bytes, kOffsetPrimitiveCount, 0xffffffffu); });
  expect_rejected("an unknown attribute bit",
                  [](std::string& bytes) { set_le_u32(bytes, kHeaderBytes + kRecordAttributes, 8); });
  expect_rejected("a non-zero record reserved field",
                  [](std::string& bytes) { set_le_u64(bytes, kHeaderBytes + kRecordReserved, 1); });
  // A count the file cannot hold must be refused before any allocation, including one whose byte size
  // overflows 64 bits.
  expect_rejected("a vertex count too large for the file", [](std::string& bytes) {
    set_le_u64(bytes, kHeaderBytes + kRecordVertexCount, uint64_t{1} << 40);
  });
  expect_rejected("a vertex count whose byte size overflows", [](std::string& bytes) {
    set_le_u64(bytes, kHeaderBytes + kRecordVertexCount, std::numeric_limits<uint64_t>::max());
  });
}

// Version 2: the record states its precision and layout and round-trips its fields; a record that contradicts
// the header's precision, states another layout or holds a joint name that is not a string is refused.
TEST(VertexDumpSkv, Version2RecordsRoundTripAndAreChecked) {
  TempDir dir;
  VertexDump dump = sample_dump(DumpPrecision::F32);
  dump.record.present = true;
  dump.record.writer = "my engine 1.2";
  dump.record.model = "builtin:bend";
  dump.record.animation = "0";
  dump.record.time = 0.25;
  dump.record.method = "lbs";
  dump.record.joint_names = {"shoulder", "elbow"};
  const std::string path = dir.file("dump.skv");
  write_vertex_dump(sample_scene(), dump, path);
  const std::string bytes = read_bytes(path);
  EXPECT_EQ(le_u32(bytes, kOffsetVersion), 2u);
  const nlohmann::json record = nlohmann::json::parse(bytes.substr(kHeaderBytes, size_t(le_u64(bytes, 24))));
  EXPECT_EQ(record["precision"], "f32");
  EXPECT_EQ(record["layout"], "xyz-interleaved");
  const VertexDump back = read_vertices_skv(path);
  EXPECT_EQ(back.record.writer, "my engine 1.2");
  EXPECT_EQ(back.record.joint_names, dump.record.joint_names);
  EXPECT_EQ(back.record.time, 0.25);
  expect_same_dump(dump, back);

  // The same file with its record's text edited (same length, so the header stays right).
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = bytes;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    EXPECT_EQ(from.size(), to.size());
    text.replace(at, from.size(), to);
    const std::string edited_path = dir.file("edited.skv");
    write_bytes(edited_path, text);
    try {
      read_vertices_skv(edited_path);
      ADD_FAILURE() << "accepted a record with " << to;
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_NE(edited("\"precision\":\"f32\"", "\"precision\":\"f64\"").find("contradicts the header"), std::string::npos);
  EXPECT_NE(edited("xyz-interleaved", "xyzw-separate__").find("\"layout\""), std::string::npos);
  EXPECT_NE(edited("[\"shoulder\"", "[7         ").find("joint_names"), std::string::npos);
}

TEST(VertexDumpSkv, MissingFileIsAnInputError) {
  TempDir dir;
  const std::string path = dir.file("absent.skv");
  try {
    read_vertices_skv(path);
    ADD_FAILURE() << "read_vertices_skv accepted a missing file";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), path);
  }
}

void expect_json_values(const nlohmann::json& array, const std::vector<double>& expected) {
  ASSERT_TRUE(array.is_array());
  ASSERT_EQ(array.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(array[i].get<double>(), expected[i]) << "index " << i;
}

template <typename Vector>
std::vector<double> flattened(const std::vector<Vector>& values, DumpPrecision precision) {
  std::vector<double> flat;
  for (const Vector& value : values) {
    for (int c = 0; c < value.size(); ++c) flat.push_back(stored(value[c], precision));
  }
  return flat;
}

TEST(VertexDumpJson, ContentsMatchTheFormatAndRoundTrip) {
  for (const DumpPrecision precision : {DumpPrecision::F64, DumpPrecision::F32}) {
    SCOPED_TRACE(precision == DumpPrecision::F64 ? "f64" : "f32");
    const VertexDump dump = sample_dump(precision);
    std::ostringstream out;
    write_vertices_json(dump, out);
    const nlohmann::json json = nlohmann::json::parse(out.str());

    EXPECT_EQ(json.at("format"), "skinref-vertices");
    EXPECT_EQ(json.at("version"), 1);
    EXPECT_EQ(json.at("precision"), precision == DumpPrecision::F64 ? "f64" : "f32");
    const nlohmann::json& primitives = json.at("primitives");
    ASSERT_EQ(primitives.size(), dump.primitives.size());
    for (size_t i = 0; i < dump.primitives.size(); ++i) {
      SCOPED_TRACE("primitive " + std::to_string(i));
      const WorldPrimitive& expected = dump.primitives[i];
      const nlohmann::json& primitive = primitives[i];
      EXPECT_EQ(primitive.at("node"), expected.node);
      EXPECT_EQ(primitive.at("mesh"), expected.mesh);
      EXPECT_EQ(primitive.at("primitive"), expected.primitive);
      EXPECT_EQ(primitive.at("skinned"), expected.skinned);
      expect_json_values(primitive.at("positions"), flattened(expected.vertices.positions, precision));
      // Attributes a primitive lacks are omitted, like the .skv attribute bits.
      EXPECT_EQ(primitive.contains("normals"), !expected.vertices.normals.empty());
      EXPECT_EQ(primitive.contains("tangents"), !expected.vertices.tangents.empty());
      if (!expected.vertices.normals.empty()) {
        expect_json_values(primitive.at("normals"), flattened(expected.vertices.normals, precision));
      }
      if (!expected.vertices.tangents.empty()) {
        expect_json_values(primitive.at("tangents"), flattened(expected.vertices.tangents, precision));
      }
    }
  }
}

TEST(VertexDumpJson, F32ValuesAreTheFloat32Roundings) {
  // Expected values are the compiler's own float constants (0.1f, 0.2f, 1.0f / 3.0f widened at compile
  // time), not a (double)(float) conversion at run time, which GCC 12.2 can miscompile (CMakeLists.txt).
  VertexDump dump;
  dump.precision = DumpPrecision::F32;
  WorldPrimitive primitive;
  primitive.node = 0;
  primitive.mesh = 0;
  primitive.primitive = 0;
  primitive.vertices.positions = {Vec3(0.1, 0.2, 1.0 / 3.0)};
  dump.primitives.push_back(primitive);
  std::ostringstream out;
  write_vertices_json(dump, out);
  const nlohmann::json positions = nlohmann::json::parse(out.str()).at("primitives").at(0).at("positions");
  constexpr double kExpected[3] = {static_cast<double>(0.1f), static_cast<double>(0.2f), static_cast<double>(1.0f / 3.0f)};
  ASSERT_EQ(positions.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(positions[i].get<double>(), kExpected[i]) << "component " << i;
  EXPECT_NE(positions[0].get<double>(), 0.1);  // the rounding is visible
}

TEST(VertexDumpJson, NonFiniteValueThrowsAndLeavesNoFile) {
  TempDir dir;
  VertexDump dump = sample_dump(DumpPrecision::F64);
  dump.primitives[1].vertices.normals[2][1] = std::numeric_limits<double>::quiet_NaN();
  const std::string path = dir.file("nan.json");
  EXPECT_THROW(write_vertex_dump(sample_scene(), dump, path), std::runtime_error);
  EXPECT_TRUE(dir.entries().empty()) << "a failed write left " << dir.entries().front();

  // A finite double beyond float32's range becomes infinite once rounded: also refused in an f32 dump.
  VertexDump too_large = sample_dump(DumpPrecision::F32);
  too_large.primitives[0].vertices.positions[0][0] = std::numeric_limits<double>::max();
  std::ostringstream out;
  EXPECT_THROW(write_vertices_json(too_large, out), std::runtime_error);
}

TEST(VertexDumpPly, HeaderAndSizeFollowTheMergedPrimitives) {
  TempDir dir;
  const VertexDump dump = sample_dump(DumpPrecision::F64);
  const std::string path = dir.file("dump.ply");
  write_vertex_dump(sample_scene(), dump, path);
  const std::string bytes = read_bytes(path);

  // 3 + 4 + 2 vertices; faces: 1 from mesh 0, 2 from mesh 1, none from the line primitive.
  const size_t vertex_count = 9;
  const size_t face_count = 3;
  const std::string expected_header =
      "ply\n"
      "format binary_little_endian 1.0\n"
      "element vertex 9\n"
      "property float x\n"
      "property float y\n"
      "property float z\n"
      "property float nx\n"
      "property float ny\n"
      "property float nz\n"
      "element face 3\n"
      "property list uchar int vertex_indices\n"
      "end_header\n";
  ASSERT_GE(bytes.size(), expected_header.size());
  EXPECT_EQ(bytes.substr(0, expected_header.size()), expected_header);
  ASSERT_EQ(bytes.size(), expected_header.size() + kPlyVertexBytes * vertex_count + kPlyFaceBytes * face_count);

  auto vertex_float = [&](size_t vertex, size_t component) {
    return std::bit_cast<float>(le_u32(bytes, expected_header.size() + kPlyVertexBytes * vertex + 4 * component));
  };
  // Vertex 0 has no normal (zeros); vertex 3 is the first of the second primitive.
  const Vec3& p0 = dump.primitives[0].vertices.positions[0];
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(vertex_float(0, c), static_cast<float>(p0[static_cast<int>(c)]));
    EXPECT_EQ(vertex_float(0, 3 + c), 0.0f);
  }
  const Vec3& p3 = dump.primitives[1].vertices.positions[0];
  const Vec3& n3 = dump.primitives[1].vertices.normals[0];
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(vertex_float(3, c), static_cast<float>(p3[static_cast<int>(c)]));
    EXPECT_EQ(vertex_float(3, 3 + c), static_cast<float>(n3[static_cast<int>(c)]));
  }

  // Faces of the second primitive are offset by the first primitive's 3 vertices.
  const std::vector<std::vector<int32_t>> expected_faces{{0, 1, 2}, {3, 4, 5}, {5, 4, 6}};
  const size_t faces = expected_header.size() + kPlyVertexBytes * vertex_count;
  for (size_t f = 0; f < face_count; ++f) {
    SCOPED_TRACE("face " + std::to_string(f));
    const size_t face = faces + kPlyFaceBytes * f;
    EXPECT_EQ(static_cast<unsigned char>(bytes[face]), 3u);
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(static_cast<int32_t>(le_u32(bytes, face + 1 + 4 * k)), expected_faces[f][k]);
    }
  }
}

TEST(VertexDumpPly, DumpThatDoesNotMatchTheSceneIsRefused) {
  TempDir dir;
  VertexDump dump = sample_dump(DumpPrecision::F64);
  dump.primitives[0].mesh = 7;
  const std::string path = dir.file("mismatch.ply");
  EXPECT_THROW(write_vertex_dump(sample_scene(), dump, path), std::runtime_error);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(VertexDumpFile, UnknownExtensionIsAnInputError) {
  TempDir dir;
  const std::string path = dir.file("dump.txt");
  EXPECT_THROW(write_vertex_dump(sample_scene(), sample_dump(DumpPrecision::F64), path), InputError);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(AtomicFile, FailingWriterKeepsThePreviousContents) {
  TempDir dir;
  const std::string path = dir.file("target.txt");
  write_file_atomically(path, [](std::ostream& out) { out << "first"; });
  EXPECT_EQ(read_bytes(path), "first");

  EXPECT_THROW(write_file_atomically(path,
                                     [](std::ostream& out) {
                                       out << "partial";
                                       throw std::runtime_error("writer failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(read_bytes(path), "first");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"target.txt"});

  write_file_atomically(path, [](std::ostream& out) { out << "second"; });
  EXPECT_EQ(read_bytes(path), "second");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"target.txt"});
}

TEST(AtomicFile, MissingDirectoryThrowsNamingThePath) {
  TempDir dir;
  const std::string path = dir.file("no-such-directory/target.txt");
  try {
    write_file_atomically(path, [](std::ostream& out) { out << "data"; });
    ADD_FAILURE() << "writing into a missing directory succeeded";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(AtomicFile, TemporaryPathsAreDistinctAndBesideTheTarget) {
  const std::string path = "/some/dir/out.skv";
  const std::string first = temporary_path_for(path);
  const std::string second = temporary_path_for(path);
  EXPECT_NE(first, second);
  EXPECT_EQ(fs::path(first).parent_path(), fs::path(path).parent_path());
  EXPECT_EQ(first.rfind(path + ".tmp-", 0), 0u) << first;
}

}  // namespace
}  // namespace skinref

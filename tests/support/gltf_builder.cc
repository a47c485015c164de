// In-memory glTF 2.0 builder for the loader tests: typed appends to one buffer, views, accessors, sparse
// accessors, .gltf text with a base64 data: URI, .glb containers, and the minimal valid skinned model.
#include "support/gltf_builder.h"

#include <cmath>
#include <cstring>
#include <numbers>
#include <stdexcept>

namespace skinref::test {

inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

// Writes `value` little-endian, whatever the host order, so .glb headers match the specification.
void put_u32_le(std::string& out, uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>((value >> shift) & 0xFFu));
}

size_t component_bytes(int component_type) {
  switch (component_type) {
    case kComponentByte:
    case kComponentUnsignedByte:
      return 1;
    case kComponentShort:
    case kComponentUnsignedShort:
      return 2;
    case kComponentUnsignedInt:
    case kComponentFloat:
      return 4;
    default:
      throw std::invalid_argument("gltf_builder: unknown component type " + std::to_string(component_type));
  }
}

}  // namespace

std::string base64_encode(const std::vector<uint8_t>& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t triple = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | uint32_t{bytes[i + 2]};
    out.push_back(kAlphabet[(triple >> 18) & 63u]);
    out.push_back(kAlphabet[(triple >> 12) & 63u]);
    out.push_back(kAlphabet[(triple >> 6) & 63u]);
    out.push_back(kAlphabet[triple & 63u]);
  }
  const size_t rest = bytes.size() - i;
  if (rest == 1) {
    const uint32_t triple = uint32_t{bytes[i]} << 16;
    out.push_back(kAlphabet[(triple >> 18) & 63u]);
    out.push_back(kAlphabet[(triple >> 12) & 63u]);
    out += "==";
  } else if (rest == 2) {
    const uint32_t triple = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8);
    out.push_back(kAlphabet[(triple >> 18) & 63u]);
    out.push_back(kAlphabet[(triple >> 12) & 63u]);
    out.push_back(kAlphabet[(triple >> 6) & 63u]);
    out.push_back('=');
  }
  return out;
}

int components_of(const std::string& type) {
  if (type == "SCALAR") return 1;
  if (type == "VEC2") return 2;
  if (type == "VEC3") return 3;
  if (type == "VEC4") return 4;
  if (type == "MAT2") return 4;
  if (type == "MAT3") return 9;
  if (type == "MAT4") return 16;
  throw std::invalid_argument("gltf_builder: unknown accessor type " + type);
}

GltfBuilder::GltfBuilder() : json({{"asset", {{"version", "2.0"}}}}) {}

size_t GltfBuilder::append_bytes(const void* data, size_t size) {
  while (bin.size() % 4 != 0) bin.push_back(0);
  const size_t offset = bin.size();
  bin.resize(offset + size);
  if (size > 0) std::memcpy(bin.data() + offset, data, size);
  json["buffers"][0]["byteLength"] = bin.size();
  return offset;
}

// The test machines are little-endian (x86-64, aarch64), which is glTF's byte order, so a memcpy of the
// host representation is the file representation.
size_t GltfBuilder::append_floats(const std::vector<float>& values) {
  return append_bytes(values.data(), values.size() * sizeof(float));
}
size_t GltfBuilder::append_u8(const std::vector<uint8_t>& values) { return append_bytes(values.data(), values.size()); }
size_t GltfBuilder::append_i8(const std::vector<int8_t>& values) { return append_bytes(values.data(), values.size()); }
size_t GltfBuilder::append_u16(const std::vector<uint16_t>& values) {
  return append_bytes(values.data(), values.size() * sizeof(uint16_t));
}
size_t GltfBuilder::append_i16(const std::vector<int16_t>& values) {
  return append_bytes(values.data(), values.size() * sizeof(int16_t));
}
size_t GltfBuilder::append_u32(const std::vector<uint32_t>& values) {
  return append_bytes(values.data(), values.size() * sizeof(uint32_t));
}

int GltfBuilder::add_buffer_view(size_t byte_offset, size_t byte_length, size_t byte_stride) {
  nlohmann::json view = {{"buffer", 0}, {"byteOffset", byte_offset}, {"byteLength", byte_length}};
  if (byte_stride != 0) view["byteStride"] = byte_stride;
  return add("bufferViews", std::move(view));
}

int GltfBuilder::add_accessor(int buffer_view, size_t byte_offset, int component_type, size_t count,
                              const std::string& type, bool normalized) {
  nlohmann::json accessor = {{"componentType", component_type}, {"count", count}, {"type", type}};
  if (buffer_view >= 0) accessor["bufferView"] = buffer_view;
  if (byte_offset != 0) accessor["byteOffset"] = byte_offset;
  if (normalized) accessor["normalized"] = true;
  return add("accessors", std::move(accessor));
}

int GltfBuilder::add_packed_accessor(size_t offset, size_t byte_length, int component_type,
                                     size_t element_bytes_per_component, size_t value_count, const std::string& type,
                                     bool normalized) {
  if (component_bytes(component_type) != element_bytes_per_component) {
    throw std::invalid_argument("gltf_builder: component type does not match the appended values");
  }
  const size_t components = static_cast<size_t>(components_of(type));
  if (value_count % components != 0) {
    throw std::invalid_argument("gltf_builder: value count is not a multiple of the type's components");
  }
  const int view = add_buffer_view(offset, byte_length);
  return add_accessor(view, 0, component_type, value_count / components, type, normalized);
}

int GltfBuilder::add_float_accessor(const std::vector<float>& values, const std::string& type) {
  const size_t offset = append_floats(values);
  return add_packed_accessor(offset, values.size() * sizeof(float), kComponentFloat, sizeof(float), values.size(),
                             type, false);
}
int GltfBuilder::add_u8_accessor(const std::vector<uint8_t>& values, const std::string& type, bool normalized) {
  const size_t offset = append_u8(values);
  return add_packed_accessor(offset, values.size(), kComponentUnsignedByte, 1, values.size(), type, normalized);
}
int GltfBuilder::add_i8_accessor(const std::vector<int8_t>& values, const std::string& type, bool normalized) {
  const size_t offset = append_i8(values);
  return add_packed_accessor(offset, values.size(), kComponentByte, 1, values.size(), type, normalized);
}
int GltfBuilder::add_u16_accessor(const std::vector<uint16_t>& values, const std::string& type, bool normalized) {
  const size_t offset = append_u16(values);
  return add_packed_accessor(offset, values.size() * 2, kComponentUnsignedShort, 2, values.size(), type, normalized);
}
int GltfBuilder::add_i16_accessor(const std::vector<int16_t>& values, const std::string& type, bool normalized) {
  const size_t offset = append_i16(values);
  return add_packed_accessor(offset, values.size() * 2, kComponentShort, 2, values.size(), type, normalized);
}
int GltfBuilder::add_u32_accessor(const std::vector<uint32_t>& values, const std::string& type) {
  const size_t offset = append_u32(values);
  return add_packed_accessor(offset, values.size() * 4, kComponentUnsignedInt, 4, values.size(), type, false);
}

void GltfBuilder::make_sparse(int accessor, const std::vector<uint16_t>& indices, const std::vector<float>& values) {
  const size_t index_offset = append_u16(indices);
  const int index_view = add_buffer_view(index_offset, indices.size() * sizeof(uint16_t));
  const size_t value_offset = append_floats(values);
  const int value_view = add_buffer_view(value_offset, values.size() * sizeof(float));
  json["accessors"][accessor]["sparse"] = {
      {"count", indices.size()},
      {"indices", {{"bufferView", index_view}, {"componentType", kComponentUnsignedShort}}},
      {"values", {{"bufferView", value_view}}},
  };
}

int GltfBuilder::add(const std::string& array_name, nlohmann::json element) {
  nlohmann::json& array = json[array_name];
  if (array.is_null()) array = nlohmann::json::array();
  array.push_back(std::move(element));
  return static_cast<int>(array.size()) - 1;
}

int GltfBuilder::add_morph_target(int mesh, int primitive, nlohmann::json target) {
  nlohmann::json& targets = json.at("meshes").at(mesh).at("primitives").at(primitive)["targets"];
  if (targets.is_null()) targets = nlohmann::json::array();
  targets.push_back(std::move(target));
  return static_cast<int>(targets.size()) - 1;
}

size_t GltfBuilder::data_offset(int accessor) const {
  const nlohmann::json& a = json.at("accessors").at(accessor);
  const nlohmann::json& view = json.at("bufferViews").at(a.at("bufferView").get<int>());
  return view.value("byteOffset", size_t{0}) + a.value("byteOffset", size_t{0});
}

void GltfBuilder::overwrite_float(size_t byte_offset, float value) {
  if (byte_offset + sizeof(float) > bin.size()) throw std::out_of_range("gltf_builder: overwrite past the buffer");
  std::memcpy(bin.data() + byte_offset, &value, sizeof(float));
}

void GltfBuilder::overwrite_u16(size_t byte_offset, uint16_t value) {
  if (byte_offset + sizeof(uint16_t) > bin.size()) throw std::out_of_range("gltf_builder: overwrite past the buffer");
  std::memcpy(bin.data() + byte_offset, &value, sizeof(uint16_t));
}

std::string GltfBuilder::to_gltf_string() const {
  nlohmann::json document = json;
  if (document.contains("buffers") && !document["buffers"].empty()) {
    document["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64_encode(bin);
  }
  return document.dump();
}

std::string GltfBuilder::to_glb_bytes() const {
  std::string json_chunk = json.dump();
  while (json_chunk.size() % 4 != 0) json_chunk.push_back(' ');
  std::string bin_chunk(bin.begin(), bin.end());
  while (bin_chunk.size() % 4 != 0) bin_chunk.push_back('\0');

  const size_t total = 12 + 8 + json_chunk.size() + (bin_chunk.empty() ? 0 : 8 + bin_chunk.size());
  std::string out;
  out.reserve(total);
  put_u32_le(out, 0x46546C67u);  // "glTF"
  put_u32_le(out, 2u);
  put_u32_le(out, static_cast<uint32_t>(total));
  put_u32_le(out, static_cast<uint32_t>(json_chunk.size()));
  put_u32_le(out, 0x4E4F534Au);  // "JSON"
  out += json_chunk;
  if (!bin_chunk.empty()) {
    put_u32_le(out, static_cast<uint32_t>(bin_chunk.size()));
    put_u32_le(out, 0x004E4942u);  // "BIN\0"
    out += bin_chunk;
  }
  return out;
}

GltfBuilder make_skinned_model() {
  GltfBuilder model;
  using M = SkinnedModel;

  // Accessor i is created i-th, each with its own view, so accessor i uses bufferView i.
  const int positions = model.add_float_accessor(
      {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0, 1, 2, 0}, "VEC3");
  const int normals = model.add_float_accessor(
      {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  const int joints = model.add_u16_accessor(
      {0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, "VEC4");
  const int weights = model.add_float_accessor(
      {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, "VEC4");
  const int indices = model.add_u16_accessor({0, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5}, "SCALAR");
  // Column-major: identity for the root joint at the origin, translation (0, -1, 0) for the joint at y = 1.
  const int inverse_bind = model.add_float_accessor(
      {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
       1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1},
      "MAT4");
  const int key_times = model.add_float_accessor({0, 1, 2}, "SCALAR");
  // (x, y, z, w) of rotations about +z by 0, 45 and 90 degrees: (0, 0, sin(a/2), cos(a/2)).
  const float sin_22_5 = static_cast<float>(std::sin(std::numbers::pi / 8.0));
  const float cos_22_5 = static_cast<float>(std::cos(std::numbers::pi / 8.0));
  const float sin_45 = static_cast<float>(std::sin(std::numbers::pi / 4.0));
  const int key_rotations = model.add_float_accessor(
      {0, 0, 0, 1, 0, 0, sin_22_5, cos_22_5, 0, 0, sin_45, sin_45}, "VEC4");

  if (positions != M::kPositions || normals != M::kNormals || joints != M::kJoints || weights != M::kWeights ||
      indices != M::kIndices || inverse_bind != M::kInverseBind || key_times != M::kKeyTimes ||
      key_rotations != M::kKeyRotations) {
    throw std::logic_error("make_skinned_model: accessor layout differs from SkinnedModel");
  }

  model.json["accessors"][positions]["min"] = nlohmann::json::array({0.0, 0.0, 0.0});
  model.json["accessors"][positions]["max"] = nlohmann::json::array({1.0, 2.0, 0.0});

  using nlohmann::json;
  model.add_node({{"name", "root_joint"}, {"children", json::array({M::kChildJointNode})}});
  model.add_node({{"name", "child_joint"}, {"translation", json::array({0.0, 1.0, 0.0})}});
  model.add_node({{"name", "skinned_mesh"}, {"mesh", 0}, {"skin", 0}});

  json attributes = {{"POSITION", positions}, {"NORMAL", normals}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}};
  json primitive = {{"attributes", attributes}, {"indices", indices}, {"mode", kModeTriangles}};
  model.add_mesh({{"name", "strip"}, {"primitives", json::array({primitive})}});

  model.add_skin({{"name", "two_joints"},
                  {"joints", json::array({M::kRootJointNode, M::kChildJointNode})},
                  {"inverseBindMatrices", inverse_bind}});

  json sampler = {{"input", key_times}, {"output", key_rotations}, {"interpolation", "LINEAR"}};
  json channel = {{"sampler", 0}, {"target", {{"node", M::kChildJointNode}, {"path", "rotation"}}}};
  model.add_animation(
      {{"name", "bend"}, {"samplers", json::array({sampler})}, {"channels", json::array({channel})}});
  model.add_scene({{"nodes", json::array({M::kRootJointNode, M::kMeshNode})}});
  model.json["scene"] = 0;
  return model;
}

}  // namespace skinref::test

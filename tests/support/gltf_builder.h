// Test utility: builds glTF 2.0 documents in memory (nlohmann::json plus one binary buffer) and serializes
// them as .gltf text (buffer embedded as a base64 data: URI) or as a .glb container, so that loader tests can
// describe a model in a few lines and then break exactly one thing in it.
//
// Contract:
// - `json` is the whole document except the buffer's bytes; it is public so that a test can mutate any
//   property (model.json["accessors"][3]["count"] = 1000) before serializing.
// - `bin` is buffer 0. Every append first pads it with zeros to a multiple of 4 (so every view starts aligned
//   for any component type), writes little-endian values, and sets json["buffers"][0]["byteLength"] to the
//   new size. A test that edits that byteLength afterwards keeps its edit.
// - to_gltf_string() adds "uri": "data:application/octet-stream;base64,..." to buffer 0 of a copy of `json`;
//   to_glb_bytes() writes the 12-byte header, the JSON chunk padded with spaces and the BIN chunk padded with
//   zeros (omitted when `bin` is empty). Neither changes the builder.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace skinref::test {

// glTF 2.0 enumerations used by the tests (spelled out by the specification, not taken from tinygltf).
inline constexpr int kComponentByte = 5120;
inline constexpr int kComponentUnsignedByte = 5121;
inline constexpr int kComponentShort = 5122;
inline constexpr int kComponentUnsignedShort = 5123;
inline constexpr int kComponentUnsignedInt = 5125;
inline constexpr int kComponentFloat = 5126;

inline constexpr int kModeTriangles = 4;
inline constexpr int kModeTriangleStrip = 5;
inline constexpr int kModeTriangleFan = 6;

// Standard base64 (RFC 4648, with '=' padding).
std::string base64_encode(const std::vector<uint8_t>& bytes);

class GltfBuilder {
 public:
  GltfBuilder();  // {"asset": {"version": "2.0"}}

  nlohmann::json json;
  std::vector<uint8_t> bin;

  // Each returns the byte offset in `bin` where the values start (a multiple of 4).
  size_t append_floats(const std::vector<float>& values);
  size_t append_u8(const std::vector<uint8_t>& values);
  size_t append_i8(const std::vector<int8_t>& values);
  size_t append_u16(const std::vector<uint16_t>& values);
  size_t append_i16(const std::vector<int16_t>& values);
  size_t append_u32(const std::vector<uint32_t>& values);

  // Adds a bufferView on buffer 0; byte_stride 0 leaves "byteStride" out. Returns its index.
  int add_buffer_view(size_t byte_offset, size_t byte_length, size_t byte_stride = 0);

  // Adds an accessor; buffer_view < 0 leaves "bufferView" out (all zeros, or sparse only), byte_offset 0
  // leaves "byteOffset" out. Returns its index.
  int add_accessor(int buffer_view, size_t byte_offset, int component_type, size_t count, const std::string& type,
                   bool normalized = false);

  // Appends the values, a tightly packed bufferView of exactly their size and an accessor over all of them
  // (count = values.size() / components of `type`). Returns the accessor index.
  int add_float_accessor(const std::vector<float>& values, const std::string& type);
  int add_u8_accessor(const std::vector<uint8_t>& values, const std::string& type, bool normalized = false);
  int add_i8_accessor(const std::vector<int8_t>& values, const std::string& type, bool normalized = false);
  int add_u16_accessor(const std::vector<uint16_t>& values, const std::string& type, bool normalized = false);
  int add_i16_accessor(const std::vector<int16_t>& values, const std::string& type, bool normalized = false);
  int add_u32_accessor(const std::vector<uint32_t>& values, const std::string& type);

  // Makes accessor `accessor` sparse: `indices` (u16) and `values` (float) go into new bufferViews.
  void make_sparse(int accessor, const std::vector<uint16_t>& indices, const std::vector<float>& values);

  // Append `element` to the top-level array `array_name` ("nodes", "meshes", ...) and return its index.
  int add(const std::string& array_name, nlohmann::json element);
  int add_node(nlohmann::json node) { return add("nodes", std::move(node)); }
  int add_mesh(nlohmann::json mesh) { return add("meshes", std::move(mesh)); }
  int add_skin(nlohmann::json skin) { return add("skins", std::move(skin)); }
  int add_animation(nlohmann::json animation) { return add("animations", std::move(animation)); }
  int add_scene(nlohmann::json scene) { return add("scenes", std::move(scene)); }

  // Appends a morph target (e.g. {"POSITION": 9}) to primitive `primitive` of mesh `mesh`; returns its index.
  int add_morph_target(int mesh, int primitive, nlohmann::json target);

  // Where accessor `accessor`'s first element lies in `bin` (its view's byteOffset plus its own).
  size_t data_offset(int accessor) const;

  // Overwrite bytes already in `bin` (to plant a NaN, an out-of-range index, ...).
  void overwrite_float(size_t byte_offset, float value);
  void overwrite_u16(size_t byte_offset, uint16_t value);

  std::string to_gltf_string() const;
  std::string to_glb_bytes() const;

 private:
  size_t append_bytes(const void* data, size_t size);
  int add_packed_accessor(size_t offset, size_t byte_length, int component_type, size_t element_bytes_per_component,
                          size_t value_count, const std::string& type, bool normalized);
};

// Number of components of an accessor type ("SCALAR" 1 ... "MAT4" 16).
int components_of(const std::string& type);

// The minimal valid skinned model every invalid-input test mutates. Layout (fixed; tests refer to it):
//   nodes:     0 root joint (children [1]), 1 child joint at translation (0, 1, 0), 2 mesh node (mesh 0, skin 0)
//   scene 0:   nodes [0, 2]; "scene": 0
//   mesh 0:    one TRIANGLES primitive over a 1 x 2 strip of quads in the z = 0 plane, 6 vertices
//              (0,0,0) (1,0,0) (0,1,0) (1,1,0) (0,2,0) (1,2,0); 4 counter-clockwise triangles
//              (0,1,2) (2,1,3) (2,3,4) (4,3,5) as u16 indices
//   skin 0:    joints [0, 1], inverse bind matrices: identity, translation (0, -1, 0)
//   animation 0: sampler 0 LINEAR, times 0, 1, 2; rotations about +z by 0, 45, 90 degrees; channel 0 targets
//              node 1 "rotation"
// Accessor i uses bufferView i, tightly packed, for every accessor below.
struct SkinnedModel {
  static constexpr int kPositions = 0;    // VEC3 float
  static constexpr int kNormals = 1;      // VEC3 float, all (0, 0, 1)
  static constexpr int kJoints = 2;       // VEC4 u16, every vertex (0, 1, 0, 0)
  static constexpr int kWeights = 3;      // VEC4 float, rows y = 0, 1, 2: (1,0,0,0) (0.5,0.5,0,0) (0,1,0,0)
  static constexpr int kIndices = 4;      // SCALAR u16, 12 indices
  static constexpr int kInverseBind = 5;  // MAT4 float, 2
  static constexpr int kKeyTimes = 6;     // SCALAR float, 3
  static constexpr int kKeyRotations = 7; // VEC4 float, 3
  static constexpr int kAccessorCount = 8;

  static constexpr int kRootJointNode = 0;
  static constexpr int kChildJointNode = 1;
  static constexpr int kMeshNode = 2;
  static constexpr int kVertexCount = 6;
};

GltfBuilder make_skinned_model();

// Primitive 0 of mesh 0 (the skinned model's only primitive), for a test to mutate before serializing.
inline nlohmann::json& primitive0(GltfBuilder& model) { return model.json["meshes"][0]["primitives"][0]; }

}  // namespace skinref::test

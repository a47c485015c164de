// A glTF 2.0 writer for the conformance cases: every accessor layout the specification allows, spelled out
// by the case that needs it (component type, normalization, byteStride, byteOffset, sparse storage), and
// nodes given as TRS or as `matrix`. A Scene cannot say how its values were stored, so the cases build the
// file itself, and the reference then loads it as any engine would (io/gltf_load.h).
//
// Contract:
// - Values are given as doubles and stored as the accessor's component type: float32 rounded to nearest;
//   integers must be exact and in range; normalized integers are round(v * max) of v in [0, 1] (unsigned) or
//   [-1, 1] (signed), as glTF 2.0 section 3.11 decodes them. A value that does not fit throws
//   std::invalid_argument naming the accessor (a case that asks for it is a bug in the case).
// - Buffer views start at multiples of 4 bytes. A byteStride (vertex attributes only) is at least the element
//   size and a multiple of 4, and so is a byteOffset (3.6.2.4).
// - FLOAT accessors of POSITION get min and max (3.7.2.1 requires them); every accessor of animation input
//   gets them too (3.11: "MUST have its min and max properties defined").
// - write() gives `name`.gltf (JSON, two-space indent, keys in insertion order) and `name`.bin: the same
//   builder calls give the same bytes on every machine.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skinref::conformance {

enum class ComponentType { I8, U8, I16, U16, U32, F32 };

// How one accessor is laid out in the buffer.
struct AccessorLayout {
  ComponentType component = ComponentType::F32;
  bool normalized = false;
  int byte_stride = 0;         // 0: tightly packed (no byteStride written)
  int leading_padding = 0;     // bytes of other data before the first element: the accessor's byteOffset
  // A strided view holds count * byteStride bytes after the padding, as exporters write it; with this, it ends
  // with the last element, the least that 3.6.2.4 allows.
  bool view_ends_at_last_element = false;
  // The byte the gaps (padding, the rest of each stride) are filled with: 0x41 makes a float 12.1 and an integer
  // index far out of range, so that an engine that reads a gap shows it. JOINTS that an engine must be able to
  // mis-read without leaving the skin use 0.
  uint8_t gap_byte = 0x41;
};

// Sparse storage (3.6.2.3): the elements at `indices` replace those of the base (zeros when the accessor has
// no bufferView).
struct SparseValues {
  std::vector<uint32_t> indices;  // strictly increasing
  ComponentType index_component = ComponentType::U16;
  std::vector<double> values;     // indices.size() elements
};

class GltfBuilder {
 public:
  GltfBuilder();

  // An accessor of `type` ("SCALAR", "VEC3", "MAT4", ...) over `values` (count * components). With `sparse`,
  // `values` is the dense base; an empty base with sparse values gives an accessor without a bufferView.
  int add_accessor(const std::string& name, const std::string& type, const std::vector<double>& values,
                   const AccessorLayout& layout = {}, const std::optional<SparseValues>& sparse = std::nullopt,
                   size_t count_without_base = 0);
  // Position accessors (VEC3 float32, with min and max) and animation inputs (SCALAR float32, min and max).
  int add_positions(const std::string& name, const std::vector<double>& xyz, const AccessorLayout& layout = {});
  int add_times(const std::string& name, const std::vector<double>& times);
  int add_indices(const std::string& name, const std::vector<uint32_t>& indices);

  int add_node(nlohmann::ordered_json node);
  int add_mesh(nlohmann::ordered_json mesh);
  int add_skin(nlohmann::ordered_json skin);
  // One animation from its samplers and channels (the caller fills both arrays).
  int add_animation(nlohmann::ordered_json animation);
  // The default scene's root nodes.
  void set_scene_roots(const std::vector<int>& roots);

  nlohmann::ordered_json& json() { return json_; }
  const std::vector<uint8_t>& bin() const { return bin_; }

  // The .gltf text with buffers[0].uri = `bin_uri`: the .bin's file name, or embedded_uri().
  std::string gltf_text(const std::string& bin_uri) const;
  // The buffer as a data: URI, for loading a case without writing it (the reference loads it this way).
  std::string embedded_uri() const;

 private:
  int add_view(const std::vector<uint8_t>& bytes, int byte_stride);
  int append(const char* array, nlohmann::ordered_json value);

  nlohmann::ordered_json json_;
  std::vector<uint8_t> bin_;
};

const char* component_type_name(ComponentType component);
int component_type_code(ComponentType component);  // glTF's componentType: 5120 ... 5126
size_t component_size(ComponentType component);

// Floats written to JSON (TRS, weights, matrices) are rounded to float32 first, so that an engine reading the
// file in float32 and the reference reading it in double see the same number.
double f32(double value);
nlohmann::ordered_json f32_array(const std::vector<double>& values);

}  // namespace skinref::conformance

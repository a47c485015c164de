#include "conformance/gltf_builder.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace skinref::conformance {
namespace {

static_assert(std::endian::native == std::endian::little, "glTF buffers are little-endian; so is this writer");

// Bytes between elements that a reader honouring byteStride and byteOffset never reads. They decode to values
// far from any case's data (0x41414141 is 12.08 as float32, 65 as a u8), so that a reader that ignores the
// layout goes visibly wrong rather than by chance right.

size_t type_components(const std::string& type) {
  if (type == "SCALAR") return 1;
  if (type == "VEC2") return 2;
  if (type == "VEC3") return 3;
  if (type == "VEC4") return 4;
  if (type == "MAT2") return 4;
  if (type == "MAT3") return 9;
  if (type == "MAT4") return 16;
  throw std::invalid_argument("conformance: unknown accessor type " + type);
}

bool is_signed(ComponentType component) {
  switch (component) {
    case ComponentType::I8:
    case ComponentType::I16: return true;
    case ComponentType::U8:
    case ComponentType::U16:
    case ComponentType::U32:
    case ComponentType::F32: return false;
  }
  return false;
}

double integer_max(ComponentType component) {
  switch (component) {
    case ComponentType::I8: return 127.0;
    case ComponentType::U8: return 255.0;
    case ComponentType::I16: return 32767.0;
    case ComponentType::U16: return 65535.0;
    case ComponentType::U32: return 4294967295.0;
    case ComponentType::F32: break;
  }
  throw std::invalid_argument("conformance: float32 has no integer range");
}

// One value in the component type, little-endian, appended to `out`.
void encode(double value, ComponentType component, bool normalized, const std::string& what,
            std::vector<uint8_t>& out) {
  if (!std::isfinite(value)) throw std::invalid_argument("conformance: " + what + ": a non-finite value");
  if (component == ComponentType::F32) {
    const float f = static_cast<float>(value);
    uint8_t bytes[4];
    std::memcpy(bytes, &f, 4);
    out.insert(out.end(), bytes, bytes + 4);
    return;
  }
  const double max = integer_max(component);
  const double min = is_signed(component) ? -max - 1.0 : 0.0;
  double stored = value;
  if (normalized) {
    const double low = is_signed(component) ? -1.0 : 0.0;
    if (value < low || value > 1.0)
      throw std::invalid_argument("conformance: " + what + ": a normalized value outside its range");
    stored = std::round(value * max);
  } else if (stored != std::floor(stored) || stored < min || stored > max) {
    throw std::invalid_argument("conformance: " + what + ": " + std::to_string(value) +
                                " is not an integer of " + component_type_name(component));
  }
  const int64_t integer = static_cast<int64_t>(stored);
  const size_t size = component_size(component);
  for (size_t b = 0; b < size; ++b) out.push_back(static_cast<uint8_t>((uint64_t(integer) >> (8 * b)) & 0xFF));
}

}  // namespace

const char* component_type_name(ComponentType component) {
  switch (component) {
    case ComponentType::I8: return "BYTE";
    case ComponentType::U8: return "UNSIGNED_BYTE";
    case ComponentType::I16: return "SHORT";
    case ComponentType::U16: return "UNSIGNED_SHORT";
    case ComponentType::U32: return "UNSIGNED_INT";
    case ComponentType::F32: return "FLOAT";
  }
  return "?";
}

int component_type_code(ComponentType component) {
  switch (component) {
    case ComponentType::I8: return 5120;
    case ComponentType::U8: return 5121;
    case ComponentType::I16: return 5122;
    case ComponentType::U16: return 5123;
    case ComponentType::U32: return 5125;
    case ComponentType::F32: return 5126;
  }
  return 0;
}

size_t component_size(ComponentType component) {
  switch (component) {
    case ComponentType::I8:
    case ComponentType::U8: return 1;
    case ComponentType::I16:
    case ComponentType::U16: return 2;
    case ComponentType::U32:
    case ComponentType::F32: return 4;
  }
  return 0;
}

double f32(double value) {
  if (!std::isfinite(value)) throw std::invalid_argument("conformance: a non-finite value for the JSON");
  return static_cast<double>(static_cast<float>(value));
}

nlohmann::ordered_json f32_array(const std::vector<double>& values) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (double v : values) array.push_back(f32(v));
  return array;
}

GltfBuilder::GltfBuilder() {
  json_["asset"] = {{"version", "2.0"}, {"generator", "skinref conformance suite"}};
  json_["scene"] = 0;
  json_["scenes"] = nlohmann::ordered_json::array({{{"nodes", nlohmann::ordered_json::array()}}});
  for (const char* array : {"nodes", "meshes", "skins", "animations", "accessors", "bufferViews"})
    json_[array] = nlohmann::ordered_json::array();
}

int GltfBuilder::append(const char* array, nlohmann::ordered_json value) {
  json_[array].push_back(std::move(value));
  return static_cast<int>(json_[array].size()) - 1;
}

int GltfBuilder::add_view(const std::vector<uint8_t>& bytes, int byte_stride) {
  while (bin_.size() % 4 != 0) bin_.push_back(0);
  nlohmann::ordered_json view = {{"buffer", 0}, {"byteOffset", bin_.size()}, {"byteLength", bytes.size()}};
  if (byte_stride != 0) view["byteStride"] = byte_stride;
  bin_.insert(bin_.end(), bytes.begin(), bytes.end());
  return append("bufferViews", std::move(view));
}

int GltfBuilder::add_accessor(const std::string& name, const std::string& type, const std::vector<double>& values,
                              const AccessorLayout& layout, const std::optional<SparseValues>& sparse,
                              size_t count_without_base) {
  const size_t components = type_components(type);
  const size_t csize = component_size(layout.component);
  const size_t element = components * csize;
  if (values.size() % components != 0)
    throw std::invalid_argument("conformance: " + name + ": not a whole number of " + type + " elements");
  if (type.rfind("MAT", 0) == 0 && layout.component != ComponentType::F32)
    throw std::invalid_argument("conformance: " + name + ": matrices are written as FLOAT only");
  const size_t count = values.empty() ? count_without_base : values.size() / components;
  if (count == 0) throw std::invalid_argument("conformance: " + name + ": an accessor needs at least one element");
  nlohmann::ordered_json accessor = {{"name", name}};
  if (!values.empty()) {
    const size_t stride = layout.byte_stride == 0 ? element : size_t(layout.byte_stride);
    // A byteStride is for vertex attributes, whose elements start on 4-byte boundaries (3.6.2.4).
    const bool strided = layout.byte_stride != 0;
    if ((strided && (stride < element || stride % 4 != 0)) || layout.leading_padding % 4 != 0)
      throw std::invalid_argument("conformance: " + name + ": a stride or offset glTF does not allow");
    const size_t tail = strided && !layout.view_ends_at_last_element ? stride : element;
    std::vector<uint8_t> bytes(size_t(layout.leading_padding) + stride * (count - 1) + tail, layout.gap_byte);
    for (size_t i = 0; i < count; ++i) {
      std::vector<uint8_t> encoded;
      for (size_t c = 0; c < components; ++c)
        encode(values[i * components + c], layout.component, layout.normalized, name, encoded);
      std::memcpy(bytes.data() + layout.leading_padding + i * stride, encoded.data(), element);
    }
    accessor["bufferView"] = add_view(bytes, layout.byte_stride);
    if (layout.leading_padding != 0) accessor["byteOffset"] = layout.leading_padding;
  }
  accessor["componentType"] = component_type_code(layout.component);
  if (layout.normalized) accessor["normalized"] = true;
  accessor["count"] = count;
  accessor["type"] = type;
  if (sparse) {
    if (sparse->values.size() != sparse->indices.size() * components)
      throw std::invalid_argument("conformance: " + name + ": sparse values do not match their indices");
    std::vector<uint8_t> index_bytes, value_bytes;
    for (uint32_t index : sparse->indices) encode(index, sparse->index_component, false, name, index_bytes);
    for (double v : sparse->values) encode(v, layout.component, layout.normalized, name, value_bytes);
    accessor["sparse"] = {
        {"count", sparse->indices.size()},
        {"indices",
         {{"bufferView", add_view(index_bytes, 0)}, {"componentType", component_type_code(sparse->index_component)}}},
        {"values", {{"bufferView", add_view(value_bytes, 0)}}}};
  }
  return append("accessors", std::move(accessor));
}

namespace {

// Per-component min and max of float32-rounded values, as the file stores them.
std::pair<nlohmann::ordered_json, nlohmann::ordered_json> min_max(const std::vector<double>& values,
                                                                  size_t components) {
  std::vector<double> low(components, std::numeric_limits<double>::infinity());
  std::vector<double> high(components, -std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < values.size(); ++i) {
    low[i % components] = std::min(low[i % components], f32(values[i]));
    high[i % components] = std::max(high[i % components], f32(values[i]));
  }
  return {f32_array(low), f32_array(high)};
}

}  // namespace

int GltfBuilder::add_positions(const std::string& name, const std::vector<double>& xyz, const AccessorLayout& layout) {
  const int index = add_accessor(name, "VEC3", xyz, layout);
  auto [low, high] = min_max(xyz, 3);
  json_["accessors"][size_t(index)]["min"] = low;
  json_["accessors"][size_t(index)]["max"] = high;
  return index;
}

int GltfBuilder::add_times(const std::string& name, const std::vector<double>& times) {
  const int index = add_accessor(name, "SCALAR", times);
  auto [low, high] = min_max(times, 1);
  json_["accessors"][size_t(index)]["min"] = low;
  json_["accessors"][size_t(index)]["max"] = high;
  return index;
}

int GltfBuilder::add_indices(const std::string& name, const std::vector<uint32_t>& indices) {
  std::vector<double> values(indices.begin(), indices.end());
  return add_accessor(name, "SCALAR", values, AccessorLayout{ComponentType::U16});
}

int GltfBuilder::add_node(nlohmann::ordered_json node) { return append("nodes", std::move(node)); }
int GltfBuilder::add_mesh(nlohmann::ordered_json mesh) { return append("meshes", std::move(mesh)); }
int GltfBuilder::add_skin(nlohmann::ordered_json skin) { return append("skins", std::move(skin)); }
int GltfBuilder::add_animation(nlohmann::ordered_json animation) {
  return append("animations", std::move(animation));
}

void GltfBuilder::set_scene_roots(const std::vector<int>& roots) {
  json_["scenes"][0]["nodes"] = roots;
}

std::string GltfBuilder::embedded_uri() const {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string uri = "data:application/octet-stream;base64,";
  for (size_t i = 0; i < bin_.size(); i += 3) {
    const uint32_t b0 = bin_[i], b1 = i + 1 < bin_.size() ? bin_[i + 1] : 0, b2 = i + 2 < bin_.size() ? bin_[i + 2] : 0;
    const uint32_t triple = (b0 << 16) | (b1 << 8) | b2;
    uri += kAlphabet[(triple >> 18) & 63];
    uri += kAlphabet[(triple >> 12) & 63];
    uri += i + 1 < bin_.size() ? kAlphabet[(triple >> 6) & 63] : '=';
    uri += i + 2 < bin_.size() ? kAlphabet[triple & 63] : '=';
  }
  return uri;
}

std::string GltfBuilder::gltf_text(const std::string& bin_uri) const {
  nlohmann::ordered_json out = json_;
  // glTF's arrays have at least one element where present (minItems 1): empty ones are left out.
  for (const char* array : {"meshes", "skins", "animations", "accessors", "bufferViews"})
    if (out[array].empty()) out.erase(array);
  if (!bin_.empty()) out["buffers"] = {{{"uri", bin_uri}, {"byteLength", bin_.size()}}};
  return out.dump(2) + "\n";
}

}  // namespace skinref::conformance

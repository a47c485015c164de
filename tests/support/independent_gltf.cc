// The independent glTF 2.0 evaluator used by the corpus tests (see independent_gltf.h). Written from the
// glTF 2.0 specification without looking at, or linking to, anything in reference/: plain arrays instead of
// Eigen, recursive global transforms instead of a forward pass, per-influence transformed points instead of
// a blended matrix.
#include "support/independent_gltf.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace independent {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

static_assert(std::endian::native == std::endian::little, "glTF binary data is little-endian");

using Json = nlohmann::json;
using Matrix = std::array<double, 16>;   // column-major: element (row, col) at [col * 4 + row]
using Point = std::array<double, 3>;
using Quaternion = std::array<double, 4>;  // x, y, z, w as glTF stores it

// Below this angle between two keys, slerp and normalized lerp agree to far below a double rounding
// (their difference is of order angle^3), and sin(angle) would lose precision in the division.
constexpr double kSlerpSmallAngle = 1e-8;

constexpr uint32_t kGlbMagic = 0x46546C67;      // "glTF"
constexpr uint32_t kGlbChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kGlbChunkBin = 0x004E4942;   // "BIN\0"

Matrix identity() {
  Matrix m{};
  m[0] = m[5] = m[10] = m[15] = 1.0;
  return m;
}

// glTF requires the last row of node matrices and inverse bind matrices to be (0, 0, 0, 1); points are then
// transformed without a perspective divide.
bool is_affine(const Matrix& m) { return m[3] == 0.0 && m[7] == 0.0 && m[11] == 0.0 && m[15] == 1.0; }

Matrix multiply(const Matrix& a, const Matrix& b) {
  Matrix r{};
  for (int col = 0; col < 4; ++col) {
    for (int row = 0; row < 4; ++row) {
      double sum = 0.0;
      for (int k = 0; k < 4; ++k) sum += a[k * 4 + row] * b[col * 4 + k];
      r[col * 4 + row] = sum;
    }
  }
  return r;
}

Point transform_point(const Matrix& m, const Point& p) {
  Point r{};
  for (int row = 0; row < 3; ++row)
    r[row] = m[0 * 4 + row] * p[0] + m[1 * 4 + row] * p[1] + m[2 * 4 + row] * p[2] + m[3 * 4 + row];
  return r;
}

Quaternion normalized(const Quaternion& q) {
  const double length = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(length > 0.0)) throw std::runtime_error("rotation quaternion of zero length");
  return {q[0] / length, q[1] / length, q[2] / length, q[3] / length};
}

// T * R * S for a unit quaternion, using the homogeneous form of the rotation matrix (w^2 + x^2 - y^2 - z^2
// on the diagonal).
Matrix compose(const Point& t, const Quaternion& q, const Point& s) {
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  const double rot[3][3] = {
      {w * w + x * x - y * y - z * z, 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)},
      {2.0 * (x * y + w * z), w * w - x * x + y * y - z * z, 2.0 * (y * z - w * x)},
      {2.0 * (x * z - w * y), 2.0 * (y * z + w * x), w * w - x * x - y * y + z * z},
  };
  Matrix m{};
  for (int col = 0; col < 3; ++col)
    for (int row = 0; row < 3; ++row) m[col * 4 + row] = rot[row][col] * s[col];
  m[12] = t[0];
  m[13] = t[1];
  m[14] = t[2];
  m[15] = 1.0;
  return m;
}

std::vector<uint8_t> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

uint32_t read_u32(const std::vector<uint8_t>& bytes, size_t offset) {
  uint32_t v = 0;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

std::vector<uint8_t> base64_decode(const std::string& text) {
  std::vector<uint8_t> out;
  uint32_t accumulator = 0;
  int bits = 0;
  size_t padding = 0;
  for (char c : text) {
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) throw std::runtime_error("base64 data after '=' padding");
    const int v = base64_value(c);
    if (v < 0) throw std::runtime_error(std::string("invalid base64 character '") + c + "'");
    accumulator = (accumulator << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((accumulator >> bits) & 0xFFu));
    }
  }
  if (padding > 2) throw std::runtime_error("too much base64 padding");
  return out;
}

std::string percent_decode(const std::string& uri) {
  std::string out;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size()) {
      const std::string hex = uri.substr(i + 1, 2);
      if (std::isxdigit(static_cast<unsigned char>(hex[0])) && std::isxdigit(static_cast<unsigned char>(hex[1]))) {
        out.push_back(static_cast<char>(std::stoi(hex, nullptr, 16)));
        i += 2;
        continue;
      }
    }
    out.push_back(uri[i]);
  }
  return out;
}

enum class Path { Translation, Rotation, Scale, Weights };
enum class Interpolation { Step, Linear, CubicSpline };

struct NodeData {
  bool has_matrix = false;
  Matrix matrix = identity();
  Point translation{0.0, 0.0, 0.0};
  Quaternion rotation{0.0, 0.0, 0.0, 1.0};  // normalized at load
  Point scale{1.0, 1.0, 1.0};
  std::vector<int> children;
  int parent = -1;
  int mesh = -1;
  int skin = -1;
  std::vector<double> weights;
};

struct InfluenceSet {
  std::vector<double> joints;   // 4 per vertex
  std::vector<double> weights;  // 4 per vertex
};

struct PrimitiveData {
  std::vector<Point> positions;
  std::vector<InfluenceSet> influence_sets;
  std::vector<std::vector<Point>> target_positions;  // per target; empty when the target has no POSITION
};

struct MeshData {
  std::vector<PrimitiveData> primitives;
  std::vector<double> weights;
  size_t target_count = 0;
};

struct SkinData {
  std::vector<int> joints;
  std::vector<Matrix> inverse_bind;
};

struct SamplerData {
  Interpolation interpolation = Interpolation::Linear;
  std::vector<double> input;
  std::vector<double> output;  // flattened
};

struct ChannelData {
  int sampler = -1;
  int node = -1;
  Path path = Path::Translation;
};

struct AnimationData {
  std::vector<SamplerData> samplers;
  std::vector<ChannelData> channels;
};

// The animatable state of one node during an evaluation.
struct NodeState {
  Point translation;
  Quaternion rotation;
  Point scale;
  bool weights_animated = false;
  std::vector<double> weights;
};

size_t component_size(int component_type) {
  switch (component_type) {
    case 5120:
    case 5121:
      return 1;
    case 5122:
    case 5123:
      return 2;
    case 5125:
    case 5126:
      return 4;
    default:
      throw std::runtime_error("unknown componentType " + std::to_string(component_type));
  }
}

// Columns and rows of an accessor type; non-matrix types are one column.
std::pair<int, int> type_shape(const std::string& type) {
  if (type == "SCALAR") return {1, 1};
  if (type == "VEC2") return {1, 2};
  if (type == "VEC3") return {1, 3};
  if (type == "VEC4") return {1, 4};
  if (type == "MAT2") return {2, 2};
  if (type == "MAT3") return {3, 3};
  if (type == "MAT4") return {4, 4};
  throw std::runtime_error("unknown accessor type " + type);
}

double decode_component(const uint8_t* p, int component_type, bool normalized) {
  switch (component_type) {
    case 5120: {
      int8_t c;
      std::memcpy(&c, p, 1);
      return normalized ? std::max(static_cast<double>(c) / 127.0, -1.0) : static_cast<double>(c);
    }
    case 5121: {
      uint8_t c;
      std::memcpy(&c, p, 1);
      return normalized ? static_cast<double>(c) / 255.0 : static_cast<double>(c);
    }
    case 5122: {
      int16_t c;
      std::memcpy(&c, p, 2);
      return normalized ? std::max(static_cast<double>(c) / 32767.0, -1.0) : static_cast<double>(c);
    }
    case 5123: {
      uint16_t c;
      std::memcpy(&c, p, 2);
      return normalized ? static_cast<double>(c) / 65535.0 : static_cast<double>(c);
    }
    case 5125: {
      if (normalized) throw std::runtime_error("normalized UNSIGNED_INT is not allowed");
      uint32_t c;
      std::memcpy(&c, p, 4);
      return static_cast<double>(c);
    }
    case 5126: {
      if (normalized) throw std::runtime_error("normalized FLOAT is not allowed");
      float c;
      std::memcpy(&c, p, 4);
      return static_cast<double>(c);
    }
    default:
      throw std::runtime_error("unknown componentType " + std::to_string(component_type));
  }
}

const Json& at_index(const Json& array, size_t index, const std::string& what) {
  if (!array.is_array() || index >= array.size())
    throw std::runtime_error(what + " index " + std::to_string(index) + " out of range");
  return array[index];
}

size_t as_index(const Json& value, const std::string& what) {
  if (!value.is_number_integer() || value.get<int64_t>() < 0)
    throw std::runtime_error(what + ": expected a non-negative integer");
  return static_cast<size_t>(value.get<int64_t>());
}

std::vector<double> number_array(const Json& value, size_t expected_size, const std::string& what) {
  if (!value.is_array() || (expected_size != 0 && value.size() != expected_size))
    throw std::runtime_error(what + ": expected an array of " + std::to_string(expected_size) + " numbers");
  std::vector<double> out;
  for (const Json& v : value) {
    if (!v.is_number()) throw std::runtime_error(what + ": expected numbers");
    out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

struct GltfFile::Impl {
  std::string path;
  Json doc;
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<NodeData> nodes;
  std::vector<MeshData> meshes;
  std::vector<SkinData> skins;
  std::vector<AnimationData> animations;
  std::vector<int> roots;

  // Messages are located by JSON path here; the public entry points prefix the file name.
  [[noreturn]] static void fail(const std::string& what) { throw std::runtime_error(what); }

  // A top-level array of the document by reference (an empty one when absent).
  const Json& top_array(const char* key) const {
    static const Json empty = Json::array();
    const auto it = doc.find(key);
    if (it == doc.end()) return empty;
    if (!it->is_array()) fail(std::string("/") + key + ": expected an array");
    return *it;
  }

  void load() {
    const std::vector<uint8_t> bytes = read_whole_file(path);
    std::vector<uint8_t> glb_bin;
    bool has_glb_bin = false;
    if (bytes.size() >= 4 && read_u32(bytes, 0) == kGlbMagic) {
      if (bytes.size() < 20) fail("GLB shorter than its header");
      if (read_u32(bytes, 4) != 2) fail("GLB version is not 2");
      const size_t total = read_u32(bytes, 8);
      if (total > bytes.size()) fail("GLB length field exceeds the file");
      size_t offset = 12;
      bool first = true;
      while (offset + 8 <= total) {
        const size_t length = read_u32(bytes, offset);
        const uint32_t type = read_u32(bytes, offset + 4);
        if (offset + 8 + length > total) fail("GLB chunk exceeds the file");
        const auto begin = bytes.begin() + static_cast<std::ptrdiff_t>(offset + 8);
        const auto end = begin + static_cast<std::ptrdiff_t>(length);
        if (first) {
          if (type != kGlbChunkJson) fail("first GLB chunk is not JSON");
          doc = Json::parse(begin, end);
        } else if (type == kGlbChunkBin && !has_glb_bin) {
          glb_bin.assign(begin, end);
          has_glb_bin = true;
        }
        first = false;
        offset += 8 + length;
      }
      if (first) fail("GLB without a JSON chunk");
    } else {
      doc = Json::parse(bytes.begin(), bytes.end());
    }

    if (doc.contains("extensionsRequired")) {
      for (const Json& name : doc["extensionsRequired"]) {
        if (name.get<std::string>() != "KHR_mesh_quantization")
          fail("unsupported required extension " + name.get<std::string>());
      }
    }

    load_buffers(glb_bin, has_glb_bin);
    load_nodes();
    load_meshes();
    load_skins();
    load_animations();
    load_roots();
  }

  void load_buffers(const std::vector<uint8_t>& glb_bin, bool has_glb_bin) {
    if (!doc.contains("buffers")) return;
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    for (size_t i = 0; i < doc["buffers"].size(); ++i) {
      const Json& buffer = doc["buffers"][i];
      const size_t byte_length = as_index(buffer.at("byteLength"), "/buffers/" + std::to_string(i) + "/byteLength");
      std::vector<uint8_t> data;
      if (!buffer.contains("uri")) {
        if (i != 0 || !has_glb_bin) fail("buffer " + std::to_string(i) + " has no uri and no GLB BIN chunk");
        data = glb_bin;
      } else {
        const std::string uri = buffer["uri"].get<std::string>();
        if (uri.rfind("data:", 0) == 0) {
          const size_t comma = uri.find(',');
          if (comma == std::string::npos || uri.substr(0, comma).find(";base64") == std::string::npos)
            fail("buffer " + std::to_string(i) + ": only base64 data: URIs are supported");
          data = base64_decode(uri.substr(comma + 1));
        } else {
          data = read_whole_file((folder / percent_decode(uri)).string());
        }
      }
      if (data.size() < byte_length)
        fail("buffer " + std::to_string(i) + " holds " + std::to_string(data.size()) + " bytes, byteLength is " +
             std::to_string(byte_length));
      buffers.push_back(std::move(data));
    }
  }

  // Reads accessor `index` as doubles, `components` per element (matrices column by column).
  std::vector<double> read_accessor(size_t index, int* components_out, size_t* count_out) const {
    const std::string where = "/accessors/" + std::to_string(index);
    const Json& accessor = at_index(top_array("accessors"), index, "accessor");
    const int component_type = accessor.at("componentType").get<int>();
    const bool normalized = accessor.value("normalized", false);
    // Named copies, not a structured binding: lambdas below capture them (clang before 16 cannot capture a
    // binding).
    const auto shape = type_shape(accessor.at("type").get<std::string>());
    const int columns = shape.first, rows = shape.second;
    const size_t count = as_index(accessor.at("count"), where + "/count");
    if (count == 0) fail(where + ": count 0");
    const size_t csize = component_size(component_type);
    const int components = columns * rows;
    // Matrix columns start on 4-byte boundaries (glTF 2.0, "Data Alignment").
    const size_t column_bytes = columns > 1 ? (rows * csize + 3) / 4 * 4 : rows * csize;
    const size_t element_bytes = column_bytes * static_cast<size_t>(columns);

    std::vector<double> values(count * static_cast<size_t>(components), 0.0);

    auto decode_element = [&](const uint8_t* element, size_t out_index) {
      for (int col = 0; col < columns; ++col)
        for (int row = 0; row < rows; ++row)
          values[out_index * components + static_cast<size_t>(col * rows + row)] =
              decode_component(element + col * column_bytes + row * csize, component_type, normalized);
    };

    // Returns the bytes of a buffer view after checking its range within its buffer.
    auto view_bytes = [&](size_t view_index, size_t* view_length, size_t* view_stride) -> const uint8_t* {
      const Json& view = at_index(top_array("bufferViews"), view_index, "bufferView");
      const size_t buffer_index = as_index(view.at("buffer"), "bufferView.buffer");
      if (buffer_index >= buffers.size()) fail("bufferView " + std::to_string(view_index) + ": bad buffer");
      const size_t offset = view.contains("byteOffset") ? as_index(view["byteOffset"], "byteOffset") : 0;
      const size_t length = as_index(view.at("byteLength"), "byteLength");
      if (offset > buffers[buffer_index].size() || length > buffers[buffer_index].size() - offset)
        fail("bufferView " + std::to_string(view_index) + " exceeds its buffer");
      *view_length = length;
      *view_stride = view.contains("byteStride") ? as_index(view["byteStride"], "byteStride") : 0;
      return buffers[buffer_index].data() + offset;
    };

    if (accessor.contains("bufferView")) {
      size_t view_length = 0, stride = 0;
      const uint8_t* base = view_bytes(as_index(accessor["bufferView"], where + "/bufferView"), &view_length, &stride);
      if (stride == 0) stride = element_bytes;
      if (stride < element_bytes) fail(where + ": byteStride smaller than the element");
      const size_t offset = accessor.contains("byteOffset") ? as_index(accessor["byteOffset"], "byteOffset") : 0;
      // offset + stride * (count - 1) + element_bytes <= view_length, without overflow.
      if (offset > view_length || element_bytes > view_length - offset ||
          (count - 1) > (view_length - offset - element_bytes) / stride)
        fail(where + ": accessor range exceeds its bufferView");
      for (size_t e = 0; e < count; ++e) decode_element(base + offset + e * stride, e);
    }

    if (accessor.contains("sparse")) {
      const Json& sparse = accessor["sparse"];
      const size_t sparse_count = as_index(sparse.at("count"), where + "/sparse/count");
      if (sparse_count == 0 || sparse_count > count) fail(where + "/sparse/count out of range");
      const Json& indices = sparse.at("indices");
      const int index_type = indices.at("componentType").get<int>();
      if (index_type != 5121 && index_type != 5123 && index_type != 5125)
        fail(where + "/sparse/indices/componentType must be an unsigned integer type");
      const size_t index_size = component_size(index_type);
      size_t length = 0, unused_stride = 0;
      const uint8_t* index_base = view_bytes(as_index(indices.at("bufferView"), "sparse indices bufferView"), &length,
                                             &unused_stride);
      const size_t index_offset = indices.contains("byteOffset") ? as_index(indices["byteOffset"], "byteOffset") : 0;
      if (index_offset > length || sparse_count > (length - index_offset) / index_size)
        fail(where + "/sparse/indices exceed their bufferView");
      const Json& sparse_values = sparse.at("values");
      const uint8_t* value_base = view_bytes(as_index(sparse_values.at("bufferView"), "sparse values bufferView"),
                                             &length, &unused_stride);
      const size_t value_offset =
          sparse_values.contains("byteOffset") ? as_index(sparse_values["byteOffset"], "byteOffset") : 0;
      if (value_offset > length || sparse_count > (length - value_offset) / element_bytes)
        fail(where + "/sparse/values exceed their bufferView");
      for (size_t s = 0; s < sparse_count; ++s) {
        const double target = decode_component(index_base + index_offset + s * index_size, index_type, false);
        if (target >= static_cast<double>(count)) fail(where + "/sparse/indices: index out of range");
        decode_element(value_base + value_offset + s * element_bytes, static_cast<size_t>(target));
      }
    }

    *components_out = components;
    *count_out = count;
    return values;
  }

  // Reads an accessor that must have `expected_components` per element.
  std::vector<double> read_accessor_as(const Json& index_value, int expected_components, size_t* count_out,
                                       const std::string& what) const {
    int components = 0;
    const std::vector<double> values = read_accessor(as_index(index_value, what), &components, count_out);
    if (components != expected_components)
      fail(what + ": expected " + std::to_string(expected_components) + " components, found " +
           std::to_string(components));
    return values;
  }

  std::vector<Point> read_points(const Json& index_value, const std::string& what) const {
    size_t count = 0;
    const std::vector<double> values = read_accessor_as(index_value, 3, &count, what);
    std::vector<Point> points(count);
    for (size_t i = 0; i < count; ++i) points[i] = {values[3 * i], values[3 * i + 1], values[3 * i + 2]};
    return points;
  }

  void load_nodes() {
    const Json& nodes_json = top_array("nodes");
    nodes.resize(nodes_json.size());
    for (size_t i = 0; i < nodes_json.size(); ++i) {
      const Json& n = nodes_json[i];
      const std::string where = "/nodes/" + std::to_string(i);
      NodeData& node = nodes[i];
      if (n.contains("matrix")) {
        const std::vector<double> m = number_array(n["matrix"], 16, where + "/matrix");
        std::copy(m.begin(), m.end(), node.matrix.begin());
        if (!is_affine(node.matrix)) fail(where + "/matrix: last row must be (0, 0, 0, 1)");
        node.has_matrix = true;
      }
      if (n.contains("translation")) {
        const std::vector<double> t = number_array(n["translation"], 3, where + "/translation");
        node.translation = {t[0], t[1], t[2]};
      }
      if (n.contains("rotation")) {
        const std::vector<double> r = number_array(n["rotation"], 4, where + "/rotation");
        node.rotation = normalized({r[0], r[1], r[2], r[3]});
      }
      if (n.contains("scale")) {
        const std::vector<double> s = number_array(n["scale"], 3, where + "/scale");
        node.scale = {s[0], s[1], s[2]};
      }
      if (n.contains("mesh")) node.mesh = static_cast<int>(as_index(n["mesh"], where + "/mesh"));
      if (n.contains("skin")) node.skin = static_cast<int>(as_index(n["skin"], where + "/skin"));
      if (n.contains("weights")) node.weights = number_array(n["weights"], 0, where + "/weights");
      if (n.contains("children")) {
        for (const Json& c : n["children"]) {
          const size_t child = as_index(c, where + "/children");
          if (child >= nodes_json.size()) fail(where + "/children: index out of range");
          node.children.push_back(static_cast<int>(child));
        }
      }
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (int child : nodes[i].children) {
        if (nodes[child].parent != -1) fail("node " + std::to_string(child) + " has two parents");
        nodes[child].parent = static_cast<int>(i);
      }
    }
  }

  void load_meshes() {
    const Json& meshes_json = top_array("meshes");
    for (size_t m = 0; m < meshes_json.size(); ++m) {
      const Json& mesh_json = meshes_json[m];
      const std::string where = "/meshes/" + std::to_string(m);
      MeshData mesh;
      if (mesh_json.contains("weights")) mesh.weights = number_array(mesh_json["weights"], 0, where + "/weights");
      const Json& primitives = mesh_json.at("primitives");
      for (size_t p = 0; p < primitives.size(); ++p) {
        const Json& prim = primitives[p];
        const std::string pwhere = where + "/primitives/" + std::to_string(p);
        const Json& attributes = prim.at("attributes");
        if (!attributes.contains("POSITION")) fail(pwhere + ": no POSITION");
        PrimitiveData data;
        data.positions = read_points(attributes["POSITION"], pwhere + "/attributes/POSITION");
        const size_t vertex_count = data.positions.size();
        for (int set = 0;; ++set) {
          const std::string joints_name = "JOINTS_" + std::to_string(set);
          const std::string weights_name = "WEIGHTS_" + std::to_string(set);
          if (!attributes.contains(joints_name) && !attributes.contains(weights_name)) break;
          if (!attributes.contains(joints_name) || !attributes.contains(weights_name))
            fail(pwhere + ": " + joints_name + " and " + weights_name + " must come together");
          InfluenceSet influences;
          size_t joints_count = 0, weights_count = 0;
          influences.joints = read_accessor_as(attributes[joints_name], 4, &joints_count, pwhere + "/" + joints_name);
          influences.weights =
              read_accessor_as(attributes[weights_name], 4, &weights_count, pwhere + "/" + weights_name);
          if (joints_count != vertex_count || weights_count != vertex_count)
            fail(pwhere + ": influence count differs from the vertex count");
          data.influence_sets.push_back(std::move(influences));
        }
        if (prim.contains("targets")) {
          for (size_t t = 0; t < prim["targets"].size(); ++t) {
            const Json& target = prim["targets"][t];
            std::vector<Point> deltas;
            if (target.contains("POSITION")) {
              deltas = read_points(target["POSITION"], pwhere + "/targets/" + std::to_string(t) + "/POSITION");
              if (deltas.size() != vertex_count) fail(pwhere + ": target vertex count differs");
            }
            data.target_positions.push_back(std::move(deltas));
          }
        }
        if (p == 0) {
          mesh.target_count = data.target_positions.size();
        } else if (data.target_positions.size() != mesh.target_count) {
          fail(where + ": primitives disagree on the number of morph targets");
        }
        mesh.primitives.push_back(std::move(data));
      }
      if (!mesh.weights.empty() && mesh.weights.size() != mesh.target_count)
        fail(where + "/weights: one weight per morph target expected");
      meshes.push_back(std::move(mesh));
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeData& node = nodes[i];
      if (node.mesh >= static_cast<int>(meshes.size())) fail("/nodes/" + std::to_string(i) + "/mesh out of range");
      if (!node.weights.empty() && (node.mesh < 0 || node.weights.size() != meshes[node.mesh].target_count))
        fail("/nodes/" + std::to_string(i) + "/weights: one weight per morph target of its mesh expected");
    }
  }

  void load_skins() {
    const Json& skins_json = top_array("skins");
    for (size_t s = 0; s < skins_json.size(); ++s) {
      const Json& skin_json = skins_json[s];
      const std::string where = "/skins/" + std::to_string(s);
      SkinData skin;
      for (const Json& j : skin_json.at("joints")) {
        const size_t joint = as_index(j, where + "/joints");
        if (joint >= nodes.size()) fail(where + "/joints: index out of range");
        skin.joints.push_back(static_cast<int>(joint));
      }
      if (skin_json.contains("inverseBindMatrices")) {
        size_t count = 0;
        const std::vector<double> values =
            read_accessor_as(skin_json["inverseBindMatrices"], 16, &count, where + "/inverseBindMatrices");
        if (count < skin.joints.size()) fail(where + "/inverseBindMatrices: fewer matrices than joints");
        for (size_t j = 0; j < skin.joints.size(); ++j) {
          Matrix m{};
          std::copy(values.begin() + static_cast<std::ptrdiff_t>(16 * j),
                    values.begin() + static_cast<std::ptrdiff_t>(16 * j + 16), m.begin());
          if (!is_affine(m)) fail(where + "/inverseBindMatrices: matrix " + std::to_string(j) + " is not affine");
          skin.inverse_bind.push_back(m);
        }
      } else {
        skin.inverse_bind.assign(skin.joints.size(), identity());
      }
      skins.push_back(std::move(skin));
    }
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].skin >= static_cast<int>(skins.size()))
        fail("/nodes/" + std::to_string(i) + "/skin out of range");
  }

  void load_animations() {
    const Json& animations_json = top_array("animations");
    for (size_t a = 0; a < animations_json.size(); ++a) {
      const Json& anim = animations_json[a];
      const std::string where = "/animations/" + std::to_string(a);
      AnimationData data;
      const Json& samplers = anim.at("samplers");
      for (size_t s = 0; s < samplers.size(); ++s) {
        const Json& sampler = samplers[s];
        const std::string swhere = where + "/samplers/" + std::to_string(s);
        SamplerData out;
        const std::string interpolation = sampler.value("interpolation", std::string("LINEAR"));
        if (interpolation == "STEP") {
          out.interpolation = Interpolation::Step;
        } else if (interpolation == "LINEAR") {
          out.interpolation = Interpolation::Linear;
        } else if (interpolation == "CUBICSPLINE") {
          out.interpolation = Interpolation::CubicSpline;
        } else {
          fail(swhere + ": unknown interpolation " + interpolation);
        }
        size_t input_count = 0;
        out.input = read_accessor_as(sampler.at("input"), 1, &input_count, swhere + "/input");
        for (size_t k = 1; k < out.input.size(); ++k)
          if (!(out.input[k] > out.input[k - 1])) fail(swhere + "/input: key times must increase strictly");
        int components = 0;
        size_t output_count = 0;
        out.output = read_accessor(as_index(sampler.at("output"), swhere + "/output"), &components, &output_count);
        data.samplers.push_back(std::move(out));
      }
      for (size_t c = 0; c < anim.at("channels").size(); ++c) {
        const Json& channel = anim["channels"][c];
        const std::string cwhere = where + "/channels/" + std::to_string(c);
        const Json& target = channel.at("target");
        // A channel without target.node animates something an extension defines: nothing for us.
        if (!target.contains("node")) continue;
        ChannelData out;
        out.sampler = static_cast<int>(as_index(channel.at("sampler"), cwhere + "/sampler"));
        if (out.sampler >= static_cast<int>(data.samplers.size())) fail(cwhere + "/sampler out of range");
        out.node = static_cast<int>(as_index(target["node"], cwhere + "/target/node"));
        if (out.node >= static_cast<int>(nodes.size())) fail(cwhere + "/target/node out of range");
        if (nodes[out.node].has_matrix) fail(cwhere + ": animates a node that has a matrix");
        const std::string path_name = target.at("path").get<std::string>();
        if (path_name == "translation") {
          out.path = Path::Translation;
        } else if (path_name == "rotation") {
          out.path = Path::Rotation;
        } else if (path_name == "scale") {
          out.path = Path::Scale;
        } else if (path_name == "weights") {
          out.path = Path::Weights;
          if (nodes[out.node].mesh < 0) fail(cwhere + ": weights channel on a node without a mesh");
        } else {
          fail(cwhere + "/target/path: unsupported " + path_name);
        }
        const size_t keys = data.samplers[out.sampler].input.size();
        const size_t per_key = static_cast<size_t>(value_components(out));
        const size_t factor = data.samplers[out.sampler].interpolation == Interpolation::CubicSpline ? 3 : 1;
        if (data.samplers[out.sampler].output.size() != keys * per_key * factor)
          fail(cwhere + ": sampler output does not hold " + std::to_string(factor) + " x " + std::to_string(keys) +
               " keys of " + std::to_string(per_key) + " values");
        data.channels.push_back(out);
      }
      animations.push_back(std::move(data));
    }
  }

  int value_components(const ChannelData& channel) const {
    switch (channel.path) {
      case Path::Translation:
      case Path::Scale:
        return 3;
      case Path::Rotation:
        return 4;
      case Path::Weights:
        return static_cast<int>(meshes[nodes[channel.node].mesh].target_count);
    }
    return 0;
  }

  void load_roots() {
    const Json& scenes = top_array("scenes");
    if (!scenes.empty()) {
      const size_t active = doc.contains("scene") ? as_index(doc["scene"], "/scene") : 0;
      const Json& scene = at_index(scenes, active, "scene");
      for (const Json& r : scene.value("nodes", Json::array())) {
        const size_t root = as_index(r, "/scenes/nodes");
        if (root >= nodes.size()) fail("scene root out of range");
        roots.push_back(static_cast<int>(root));
      }
    } else {
      for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].parent < 0) roots.push_back(static_cast<int>(i));
    }
  }

  // --- evaluation ------------------------------------------------------------------------------------------

  static Quaternion quaternion_at(const std::vector<double>& values, size_t element) {
    return {values[4 * element], values[4 * element + 1], values[4 * element + 2], values[4 * element + 3]};
  }

  // Spherical interpolation of unit quaternions along the short path. The angle comes from atan2 of the
  // chord lengths, which stays accurate for nearly equal keys.
  static Quaternion slerp(const Quaternion& a, Quaternion b, double u) {
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0.0) {
      for (double& c : b) c = -c;
    }
    double difference = 0.0, sum = 0.0;
    for (int i = 0; i < 4; ++i) {
      difference += (a[i] - b[i]) * (a[i] - b[i]);
      sum += (a[i] + b[i]) * (a[i] + b[i]);
    }
    const double angle = 2.0 * std::atan2(std::sqrt(difference), std::sqrt(sum));
    Quaternion r{};
    if (angle < kSlerpSmallAngle) {
      for (int i = 0; i < 4; ++i) r[i] = (1.0 - u) * a[i] + u * b[i];
      return normalized(r);
    }
    const double sin_angle = std::sin(angle);
    const double wa = std::sin((1.0 - u) * angle) / sin_angle;
    const double wb = std::sin(u * angle) / sin_angle;
    for (int i = 0; i < 4; ++i) r[i] = wa * a[i] + wb * b[i];
    return r;
  }

  // Samples `sampler` at time t: `n` values, normalized as a quaternion when `rotation`.
  static std::vector<double> sample(const SamplerData& sampler, size_t n, bool rotation, double t) {
    const std::vector<double>& times = sampler.input;
    const std::vector<double>& out = sampler.output;
    const bool cubic = sampler.interpolation == Interpolation::CubicSpline;
    // The value (not a tangent) of key k.
    auto value = [&](size_t k) {
      const size_t element = cubic ? 3 * k + 1 : k;
      return std::vector<double>(out.begin() + static_cast<std::ptrdiff_t>(element * n),
                                 out.begin() + static_cast<std::ptrdiff_t>(element * n + n));
    };
    auto finish = [&](std::vector<double> v) {
      if (rotation) {
        const Quaternion q = normalized({v[0], v[1], v[2], v[3]});
        v.assign(q.begin(), q.end());
      }
      return v;
    };
    if (t <= times.front()) return finish(value(0));
    if (t >= times.back()) return finish(value(times.size() - 1));
    // The last key at or before t: at an exact key time that key's own value is used.
    const size_t k = static_cast<size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin()) - 1;
    const double interval = times[k + 1] - times[k];
    const double u = (t - times[k]) / interval;
    switch (sampler.interpolation) {
      case Interpolation::Step:
        return finish(value(k));
      case Interpolation::Linear: {
        if (rotation) {
          const Quaternion a = normalized(quaternion_at(out, k));
          const Quaternion b = normalized(quaternion_at(out, k + 1));
          const Quaternion q = normalized(slerp(a, b, u));
          return std::vector<double>(q.begin(), q.end());
        }
        const std::vector<double> a = value(k), b = value(k + 1);
        std::vector<double> r(n);
        for (size_t i = 0; i < n; ++i) r[i] = (1.0 - u) * a[i] + u * b[i];
        return r;
      }
      case Interpolation::CubicSpline: {
        const double u2 = u * u, u3 = u2 * u;
        const double h_value0 = 2.0 * u3 - 3.0 * u2 + 1.0;
        const double h_out0 = (u3 - 2.0 * u2 + u) * interval;
        const double h_value1 = -2.0 * u3 + 3.0 * u2;
        const double h_in1 = (u3 - u2) * interval;
        std::vector<double> r(n);
        for (size_t i = 0; i < n; ++i) {
          const double v0 = out[(3 * k + 1) * n + i];
          const double b0 = out[(3 * k + 2) * n + i];    // out-tangent of key k
          const double v1 = out[(3 * k + 4) * n + i];    // value of key k + 1
          const double a1 = out[(3 * k + 3) * n + i];    // in-tangent of key k + 1
          r[i] = h_value0 * v0 + h_out0 * b0 + h_value1 * v1 + h_in1 * a1;
        }
        return finish(std::move(r));
      }
    }
    return finish(value(k));
  }

  std::vector<NodeState> pose(int animation, double t) const {
    std::vector<NodeState> states(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      states[i].translation = nodes[i].translation;
      states[i].rotation = nodes[i].rotation;
      states[i].scale = nodes[i].scale;
    }
    if (animation < 0) return states;
    if (animation >= static_cast<int>(animations.size()))
      fail("animation " + std::to_string(animation) + " does not exist");
    const AnimationData& anim = animations[animation];
    for (const ChannelData& channel : anim.channels) {
      const size_t n = static_cast<size_t>(value_components(channel));
      const std::vector<double> v = sample(anim.samplers[channel.sampler], n, channel.path == Path::Rotation, t);
      NodeState& state = states[channel.node];
      switch (channel.path) {
        case Path::Translation:
          state.translation = {v[0], v[1], v[2]};
          break;
        case Path::Rotation:
          state.rotation = {v[0], v[1], v[2], v[3]};
          break;
        case Path::Scale:
          state.scale = {v[0], v[1], v[2]};
          break;
        case Path::Weights:
          state.weights = v;
          state.weights_animated = true;
          break;
      }
    }
    return states;
  }

  Matrix local_matrix(int node, const std::vector<NodeState>& states) const {
    if (nodes[node].has_matrix) return nodes[node].matrix;
    return compose(states[node].translation, states[node].rotation, states[node].scale);
  }

  // G(node) = G(parent) * L(node), evaluated by walking up the hierarchy (no caching, by design: this is the
  // method the reference deliberately avoids, so the two do not share a mistake).
  Matrix global_matrix(int node, const std::vector<NodeState>& states, size_t depth = 0) const {
    if (depth > nodes.size()) fail("node hierarchy has a cycle");
    const Matrix local = local_matrix(node, states);
    if (nodes[node].parent < 0) return local;
    return multiply(global_matrix(nodes[node].parent, states, depth + 1), local);
  }

  std::vector<double> morph_weights(int node, const std::vector<NodeState>& states) const {
    const MeshData& mesh = meshes[nodes[node].mesh];
    if (states[node].weights_animated) return states[node].weights;
    if (!nodes[node].weights.empty()) return nodes[node].weights;
    if (!mesh.weights.empty()) return mesh.weights;
    return std::vector<double>(mesh.target_count, 0.0);
  }

  std::vector<PrimitivePositions> evaluate(int animation, double t) const {
    const std::vector<NodeState> states = pose(animation, t);
    std::vector<PrimitivePositions> result;
    std::vector<std::pair<int, size_t>> stack;  // (node, depth), pre-order
    for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.emplace_back(*it, 0);
    while (!stack.empty()) {
      const auto [node, depth] = stack.back();
      stack.pop_back();
      if (depth > nodes.size()) fail("node hierarchy has a cycle");
      if (nodes[node].mesh >= 0) append_mesh(node, states, result);
      const std::vector<int>& children = nodes[node].children;
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.emplace_back(*it, depth + 1);
    }
    return result;
  }

  void append_mesh(int node, const std::vector<NodeState>& states, std::vector<PrimitivePositions>& result) const {
    const NodeData& node_data = nodes[node];
    const MeshData& mesh = meshes[node_data.mesh];
    const std::vector<double> weights = morph_weights(node, states);
    const bool skinned = node_data.skin >= 0;

    std::vector<Matrix> joint_matrices;
    if (skinned) {
      const SkinData& skin = skins[node_data.skin];
      for (size_t j = 0; j < skin.joints.size(); ++j)
        joint_matrices.push_back(multiply(global_matrix(skin.joints[j], states), skin.inverse_bind[j]));
    }
    const Matrix node_global = skinned ? identity() : global_matrix(node, states);

    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const PrimitiveData& prim = mesh.primitives[p];
      PrimitivePositions out;
      out.node = node;
      out.mesh = node_data.mesh;
      out.primitive = static_cast<int>(p);
      out.skinned = skinned;
      if (skinned && prim.influence_sets.empty())
        fail("node " + std::to_string(node) + " has a skin but primitive " + std::to_string(p) +
             " has no JOINTS_0/WEIGHTS_0");
      out.positions.reserve(prim.positions.size());
      for (size_t v = 0; v < prim.positions.size(); ++v) {
        Point position = prim.positions[v];
        for (size_t target = 0; target < prim.target_positions.size(); ++target) {
          if (prim.target_positions[target].empty()) continue;
          for (int c = 0; c < 3; ++c) position[c] += weights[target] * prim.target_positions[target][v][c];
        }
        if (!skinned) {
          out.positions.push_back(transform_point(node_global, position));
          continue;
        }
        Point blended{0.0, 0.0, 0.0};
        double weight_sum = 0.0;
        for (const InfluenceSet& set : prim.influence_sets) {
          for (size_t i = 0; i < 4; ++i) {
            const double w = set.weights[4 * v + i];
            if (w == 0.0) continue;
            const double joint = set.joints[4 * v + i];
            if (joint >= static_cast<double>(joint_matrices.size()))
              fail("vertex " + std::to_string(v) + " of node " + std::to_string(node) +
                   " names a joint outside its skin");
            const Point moved = transform_point(joint_matrices[static_cast<size_t>(joint)], position);
            for (int c = 0; c < 3; ++c) blended[c] += w * moved[c];
            weight_sum += w;
          }
        }
        // glTF leaves a vertex without influence undefined; refuse rather than guess.
        if (weight_sum == 0.0)
          fail("vertex " + std::to_string(v) + " of node " + std::to_string(node) + " has no non-zero weight");
        out.positions.push_back(blended);
      }
      result.push_back(std::move(out));
    }
  }
};

inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

// Runs `body`, prefixing the file name to any error it throws.
template <typename Body>
auto with_file_context(const std::string& path, Body&& body) {
  try {
    return body();
  } catch (const Json::exception& e) {
    throw std::runtime_error(path + ": JSON: " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace

GltfFile::GltfFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  with_file_context(path, [&] { impl_->load(); });
}

GltfFile::~GltfFile() = default;
GltfFile::GltfFile(GltfFile&&) noexcept = default;
GltfFile& GltfFile::operator=(GltfFile&&) noexcept = default;

Summary GltfFile::summary() const {
  Summary s;
  s.nodes = impl_->nodes.size();
  s.meshes = impl_->meshes.size();
  s.skins = impl_->skins.size();
  s.animations = impl_->animations.size();
  return s;
}

int GltfFile::animation_count() const { return static_cast<int>(impl_->animations.size()); }

std::vector<double> GltfFile::key_times(int animation) const {
  if (animation < 0 || animation >= animation_count())
    throw std::runtime_error(impl_->path + ": animation " + std::to_string(animation) + " does not exist");
  std::vector<double> times;
  for (const SamplerData& sampler : impl_->animations[animation].samplers)
    times.insert(times.end(), sampler.input.begin(), sampler.input.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

std::vector<PrimitivePositions> GltfFile::skinned_positions(int animation, double t) const {
  return with_file_context(impl_->path, [&] { return impl_->evaluate(animation, t); });
}

std::vector<PrimitivePositions> skinned_positions(const std::string& path, int animation, double t) {
  return GltfFile(path).skinned_positions(animation, t);
}

}  // namespace independent

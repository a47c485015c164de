// Scene -> glTF 2.0 (.gltf with the buffer embedded as a data: URI, or .glb), through tinygltf's model and
// serializer. Every array goes into one buffer as float32 (JOINTS_n as unsigned short, indices as unsigned
// int), one bufferView and accessor each, views 4-byte aligned.
//
// tinygltf writes the JSON; the container is ours. tinygltf 2.7 serializes a perspective camera's zfar
// even when it is 0 (infinite), which glTF forbids (zfar > 0 when present), and embedding a buffer of
// about 100 MB through its JSON library would copy it several times. So the model is serialized with an
// empty buffer, the JSON is patched (buffer length and URI, infinite zfar dropped) and written here: for
// .gltf the base64 of the buffer is streamed into the URI, for .glb the JSON and BIN chunks are framed as
// the specification's "Binary glTF Layout" says.
//
// Node TRS, camera parameters, material factors and morph weights are JSON numbers and keep their double
// values; accessor data are float32. Textures and images are not written (materials keep their factors).
#include "io/gltf_export.h"

#include "core/atomic_file.h"
#include "core/input_error.h"

#include <tiny_gltf.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
namespace {

static_assert(std::endian::native == std::endian::little, "glTF buffers are little-endian; so is this writer");

// Stands in for the buffer URI in the JSON text until the base64 is streamed in its place.
const char* const kUriPlaceholder = "skinref-export-buffer-uri-placeholder";

std::string lower_case_extension(const std::string& path) {
  const size_t slash = path.find_last_of("/\\");
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

int primitive_mode(Topology topology) {
  switch (topology) {
    case Topology::Points: return TINYGLTF_MODE_POINTS;
    case Topology::Lines: return TINYGLTF_MODE_LINE;
    case Topology::Triangles: return TINYGLTF_MODE_TRIANGLES;
  }
  return TINYGLTF_MODE_TRIANGLES;
}

// Whether `indices` is exactly 0, 1, ..., n - 1: what a non-indexed primitive draws.
bool is_identity_sequence(const std::vector<uint32_t>& indices, size_t n) {
  if (indices.size() != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (indices[i] != i) return false;
  return true;
}


// Builds the tinygltf::Model; the binary data collects in `bin` (the model's buffer stays empty).
class ModelBuilder {
 public:
  ModelBuilder(const Scene& scene, std::string file) : scene_(scene), file_(std::move(file)) {}

  tinygltf::Model build() {
    model_.asset.version = "2.0";
    model_.asset.generator = "skinref";
    write_materials();
    write_cameras();
    write_meshes();
    write_skins();
    write_nodes();
    write_animations();
    // glTF requires a scene to list at least one node; without roots the reader takes every parentless node.
    if (!scene_.roots.empty()) {
      tinygltf::Scene gltf_scene;
      gltf_scene.nodes = scene_.roots;
      model_.scenes.push_back(std::move(gltf_scene));
      model_.defaultScene = 0;
    }
    if (!bin_.empty()) model_.buffers.emplace_back();  // length and URI are patched into the JSON
    return std::move(model_);
  }

  const std::vector<unsigned char>& bin() const { return bin_; }

 private:
  // Appends raw bytes as a new bufferView starting on a 4-byte boundary.
  int add_view(const void* data, size_t bytes, int target) {
    while (bin_.size() % 4 != 0) bin_.push_back(0);
    tinygltf::BufferView view;
    view.buffer = 0;
    view.byteOffset = bin_.size();
    view.byteLength = bytes;
    view.target = target;
    const auto* first = static_cast<const unsigned char*>(data);
    bin_.insert(bin_.end(), first, first + bytes);
    model_.bufferViews.push_back(std::move(view));
    return static_cast<int>(model_.bufferViews.size()) - 1;
  }

  // A float32 accessor over `values` (count * components floats); min/max when the spec requires them.
  int add_float_accessor(const std::vector<float>& values, int type, int components, int target, bool min_max) {
    tinygltf::Accessor accessor;
    accessor.bufferView = add_view(values.data(), values.size() * sizeof(float), target);
    accessor.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
    accessor.type = type;
    accessor.count = values.size() / static_cast<size_t>(components);
    if (min_max && accessor.count > 0) {
      accessor.minValues.assign(components, std::numeric_limits<double>::infinity());
      accessor.maxValues.assign(components, -std::numeric_limits<double>::infinity());
      for (size_t i = 0; i < values.size(); ++i) {
        const size_t c = i % static_cast<size_t>(components);
        accessor.minValues[c] = std::min(accessor.minValues[c], static_cast<double>(values[i]));
        accessor.maxValues[c] = std::max(accessor.maxValues[c], static_cast<double>(values[i]));
      }
    }
    model_.accessors.push_back(std::move(accessor));
    return static_cast<int>(model_.accessors.size()) - 1;
  }

  int add_vec3(const std::vector<Vec3>& v, bool min_max) {
    std::vector<float> values;
    values.reserve(v.size() * 3);
    for (const Vec3& p : v)
      for (int c = 0; c < 3; ++c) values.push_back(static_cast<float>(p[c]));
    return add_float_accessor(values, TINYGLTF_TYPE_VEC3, 3, TINYGLTF_TARGET_ARRAY_BUFFER, min_max);
  }

  void write_materials() {
    for (const Material& src : scene_.materials) {
      tinygltf::Material material;
      material.name = src.name;
      material.pbrMetallicRoughness.baseColorFactor.assign(src.base_color_factor.data(),
                                                          src.base_color_factor.data() + 4);
      material.doubleSided = src.double_sided;
      model_.materials.push_back(std::move(material));
    }
  }

  void write_cameras() {
    for (const Camera& src : scene_.cameras) {
      tinygltf::Camera camera;
      camera.name = src.name;
      if (src.perspective) {
        camera.type = "perspective";
        camera.perspective.yfov = src.yfov;
        camera.perspective.aspectRatio = src.aspect_ratio;  // 0: not written
        camera.perspective.znear = src.znear;
        camera.perspective.zfar = src.zfar;  // 0 (infinite): removed from the JSON afterwards
      } else {
        camera.type = "orthographic";
        camera.orthographic.xmag = src.xmag;
        camera.orthographic.ymag = src.ymag;
        camera.orthographic.znear = src.znear;
        camera.orthographic.zfar = src.zfar;
      }
      model_.cameras.push_back(std::move(camera));
    }
  }

  tinygltf::Primitive write_primitive(const Primitive& src, const std::string& path) {
    tinygltf::Primitive prim;
    prim.mode = primitive_mode(src.topology);
    prim.material = src.material;
    const size_t n = src.vertex_count();
    prim.attributes["POSITION"] = add_vec3(src.positions, true);  // glTF requires POSITION min/max
    if (!src.normals.empty()) prim.attributes["NORMAL"] = add_vec3(src.normals, false);
    if (!src.tangents.empty()) {
      std::vector<float> values;
      values.reserve(n * 4);
      for (const Vec4& t : src.tangents)
        for (int c = 0; c < 4; ++c) values.push_back(static_cast<float>(t[c]));
      prim.attributes["TANGENT"] =
          add_float_accessor(values, TINYGLTF_TYPE_VEC4, 4, TINYGLTF_TARGET_ARRAY_BUFFER, false);
    }
    if (!src.texcoords0.empty()) {
      std::vector<float> values;
      values.reserve(n * 2);
      for (const Vec2& t : src.texcoords0)
        for (int c = 0; c < 2; ++c) values.push_back(static_cast<float>(t[c]));
      prim.attributes["TEXCOORD_0"] =
          add_float_accessor(values, TINYGLTF_TYPE_VEC2, 2, TINYGLTF_TARGET_ARRAY_BUFFER, false);
    }

    // Influence sets of 4; an influence count that is not a multiple of 4 is padded with weight-0 slots.
    const size_t ipv = static_cast<size_t>(std::max(src.influences_per_vertex, 0));
    const size_t sets = (ipv + 3) / 4;
    for (size_t s = 0; s < sets; ++s) {
      std::vector<uint16_t> joints(n * 4, 0);
      std::vector<float> weights(n * 4, 0.0f);
      for (size_t v = 0; v < n; ++v) {
        for (size_t c = 0; c < 4 && s * 4 + c < ipv; ++c) {
          const size_t at = v * ipv + s * 4 + c;
          if (src.joints[at] > std::numeric_limits<uint16_t>::max())
            throw InputError(file_, path + "/attributes/JOINTS_" + std::to_string(s),
                             "joint indices below 65536 (JOINTS_n is written as unsigned short); vertex " + std::to_string(v) +
                                 " has " + std::to_string(src.joints[at]));
          joints[v * 4 + c] = static_cast<uint16_t>(src.joints[at]);
          weights[v * 4 + c] = static_cast<float>(src.weights[at]);
        }
      }
      tinygltf::Accessor joint_accessor;
      joint_accessor.bufferView = add_view(joints.data(), joints.size() * sizeof(uint16_t), TINYGLTF_TARGET_ARRAY_BUFFER);
      joint_accessor.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
      joint_accessor.type = TINYGLTF_TYPE_VEC4;
      joint_accessor.count = n;
      model_.accessors.push_back(std::move(joint_accessor));
      prim.attributes["JOINTS_" + std::to_string(s)] = static_cast<int>(model_.accessors.size()) - 1;
      prim.attributes["WEIGHTS_" + std::to_string(s)] =
          add_float_accessor(weights, TINYGLTF_TYPE_VEC4, 4, TINYGLTF_TARGET_ARRAY_BUFFER, false);
    }

    // A non-indexed primitive draws 0..n-1; anything else (including expanded strips) needs its indices.
    if (src.indexed || !is_identity_sequence(src.indices, n)) {
      tinygltf::Accessor accessor;
      accessor.bufferView = add_view(src.indices.data(), src.indices.size() * sizeof(uint32_t),
                                     TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
      accessor.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
      accessor.type = TINYGLTF_TYPE_SCALAR;
      accessor.count = src.indices.size();
      model_.accessors.push_back(std::move(accessor));
      prim.indices = static_cast<int>(model_.accessors.size()) - 1;
    }

    for (const MorphTarget& target : src.targets) {
      std::map<std::string, int> attributes;
      if (!target.position_deltas.empty()) attributes["POSITION"] = add_vec3(target.position_deltas, true);
      if (!target.normal_deltas.empty()) attributes["NORMAL"] = add_vec3(target.normal_deltas, false);
      if (!target.tangent_deltas.empty()) attributes["TANGENT"] = add_vec3(target.tangent_deltas, false);
      prim.targets.push_back(std::move(attributes));
    }
    return prim;
  }

  void write_meshes() {
    for (size_t m = 0; m < scene_.meshes.size(); ++m) {
      const Mesh& src = scene_.meshes[m];
      tinygltf::Mesh mesh;
      mesh.name = src.name;
      mesh.weights = src.default_weights;
      for (size_t p = 0; p < src.primitives.size(); ++p)
        mesh.primitives.push_back(
            write_primitive(src.primitives[p], "/meshes/" + std::to_string(m) + "/primitives/" + std::to_string(p)));
      model_.meshes.push_back(std::move(mesh));
    }
  }

  void write_skins() {
    for (const Skin& src : scene_.skins) {
      tinygltf::Skin skin;
      skin.name = src.name;
      skin.joints = src.joints;
      skin.skeleton = src.skeleton;
      std::vector<float> values;
      values.reserve(src.inverse_bind.size() * 16);
      for (const Mat4& m : src.inverse_bind)
        for (int c = 0; c < 4; ++c)
          for (int r = 0; r < 4; ++r) values.push_back(static_cast<float>(m(r, c)));  // column-major
      if (!values.empty()) skin.inverseBindMatrices = add_float_accessor(values, TINYGLTF_TYPE_MAT4, 16, 0, false);
      model_.skins.push_back(std::move(skin));
    }
  }

  void write_nodes() {
    for (const Node& src : scene_.nodes) {
      tinygltf::Node node;
      node.name = src.name;
      node.children = src.children;
      node.mesh = src.mesh;
      node.skin = src.skin;
      node.camera = src.camera;
      node.weights = src.morph_weights;
      // Defaults are omitted; a node that came with `matrix` is written as the TRS it was decomposed into.
      const Transform& t = src.rest;
      if (t.translation != Vec3::Zero()) node.translation = {t.translation.x(), t.translation.y(), t.translation.z()};
      if (t.rotation.coeffs() != Quat::Identity().coeffs()) {
        const auto xyzw = quat_to_xyzw(t.rotation);
        node.rotation.assign(xyzw.begin(), xyzw.end());
      }
      if (t.scale != Vec3::Ones()) node.scale = {t.scale.x(), t.scale.y(), t.scale.z()};
      model_.nodes.push_back(std::move(node));
    }
  }

  void write_animations() {
    for (size_t a = 0; a < scene_.animations.size(); ++a) {
      const Animation& src = scene_.animations[a];
      // tinygltf silently drops an animation without channels, which would renumber the later ones.
      if (src.channels.empty())
        throw InputError(file_, "/animations/" + std::to_string(a) + "/channels",
                         "at least one channel (glTF cannot express an animation without channels)");
      tinygltf::Animation animation;
      animation.name = src.name;
      for (size_t s = 0; s < src.samplers.size(); ++s) {
        const AnimationSampler& sampler = src.samplers[s];
        // The output accessor type follows the channels that use the sampler (weights are SCALAR).
        bool drives_weights = false;
        for (const AnimationChannel& ch : src.channels)
          if (ch.sampler == static_cast<int>(s) && ch.path == ChannelPath::Weights) drives_weights = true;
        int type = TINYGLTF_TYPE_SCALAR;
        int components = 1;
        if (!drives_weights && (sampler.components == 3 || sampler.components == 4)) {
          type = sampler.components == 3 ? TINYGLTF_TYPE_VEC3 : TINYGLTF_TYPE_VEC4;
          components = sampler.components;
        }

        std::vector<float> times(sampler.times.begin(), sampler.times.end());
        std::vector<float> values(sampler.values.begin(), sampler.values.end());
        tinygltf::AnimationSampler gltf_sampler;
        gltf_sampler.input = add_float_accessor(times, TINYGLTF_TYPE_SCALAR, 1, 0, true);  // input min/max required
        gltf_sampler.output = add_float_accessor(values, type, components, 0, false);
        gltf_sampler.interpolation = interpolation_name(sampler.interpolation);
        animation.samplers.push_back(std::move(gltf_sampler));
      }
      for (const AnimationChannel& src_channel : src.channels) {
        tinygltf::AnimationChannel channel;
        channel.sampler = src_channel.sampler;
        channel.target_node = src_channel.node;
        channel.target_path = channel_path_name(src_channel.path);
        animation.channels.push_back(std::move(channel));
      }
      model_.animations.push_back(std::move(animation));
    }
  }

  const Scene& scene_;
  std::string file_;
  tinygltf::Model model_;
  std::vector<unsigned char> bin_;
};

// Standard base64 (RFC 4648, with padding), streamed in blocks so that no second copy of the buffer exists.
void write_base64(std::ostream& out, const std::vector<unsigned char>& data) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  constexpr size_t kBlockInputBytes = 3 * 16384;
  std::string block;
  block.reserve(kBlockInputBytes / 3 * 4);
  for (size_t start = 0; start < data.size(); start += kBlockInputBytes) {
    const size_t end = std::min(data.size(), start + kBlockInputBytes);
    block.clear();
    size_t i = start;
    for (; i + 3 <= end; i += 3) {
      const uint32_t triple = (uint32_t(data[i]) << 16) | (uint32_t(data[i + 1]) << 8) | uint32_t(data[i + 2]);
      block.push_back(kAlphabet[(triple >> 18) & 63]);
      block.push_back(kAlphabet[(triple >> 12) & 63]);
      block.push_back(kAlphabet[(triple >> 6) & 63]);
      block.push_back(kAlphabet[triple & 63]);
    }
    if (i < end) {  // only in the last block: 1 or 2 bytes left
      const uint32_t triple = (uint32_t(data[i]) << 16) | (i + 1 < end ? uint32_t(data[i + 1]) << 8 : 0u);
      block.push_back(kAlphabet[(triple >> 18) & 63]);
      block.push_back(kAlphabet[(triple >> 12) & 63]);
      block.push_back(i + 1 < end ? kAlphabet[(triple >> 6) & 63] : '=');
      block.push_back('=');
    }
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
}

void write_u32(std::ostream& out, uint32_t value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof(value));  // little-endian host (asserted above)
}

// glTF 2.0, "Binary glTF Layout": 12-byte header, a JSON chunk padded with spaces, a BIN chunk padded with
// zeros, every chunk 4-byte aligned.
void write_glb(std::ostream& out, const std::string& json, const std::vector<unsigned char>& bin,
               const std::string& path) {
  const size_t json_padded = (json.size() + 3) / 4 * 4;
  const size_t bin_padded = (bin.size() + 3) / 4 * 4;
  const size_t total = 12 + 8 + json_padded + (bin.empty() ? 0 : 8 + bin_padded);
  if (total > std::numeric_limits<uint32_t>::max())
    throw InputError(path, "", "a scene whose .glb fits in 4 GiB (write .gltf instead)");
  write_u32(out, 0x46546C67u);  // "glTF"
  write_u32(out, 2);
  write_u32(out, static_cast<uint32_t>(total));
  write_u32(out, static_cast<uint32_t>(json_padded));
  write_u32(out, 0x4E4F534Au);  // "JSON"
  out.write(json.data(), static_cast<std::streamsize>(json.size()));
  out.write("   ", static_cast<std::streamsize>(json_padded - json.size()));
  if (!bin.empty()) {
    write_u32(out, static_cast<uint32_t>(bin_padded));
    write_u32(out, 0x004E4942u);  // "BIN\0"
    out.write(reinterpret_cast<const char*>(bin.data()), static_cast<std::streamsize>(bin.size()));
    out.write("\0\0\0", static_cast<std::streamsize>(bin_padded - bin.size()));
  }
}

}  // namespace

namespace {

// The glTF JSON document and its binary buffer for `scene` (`binary`: the buffer is the GLB's BIN chunk).
std::pair<nlohmann::json, std::vector<unsigned char>> serialize(const Scene& scene, bool binary, const std::string& path) {
  ModelBuilder builder(scene, scene.source);
  const tinygltf::Model model = builder.build();
  std::vector<unsigned char> bin = builder.bin();

  std::ostringstream serialized;
  tinygltf::TinyGLTF writer;
  if (!writer.WriteGltfSceneToStream(&model, serialized, false, false))
    throw std::runtime_error("cannot write " + path + ": tinygltf could not serialize the model");
  nlohmann::json doc = nlohmann::json::parse(serialized.str());

  // tinygltf writes an object whose properties are all defaults (an unnamed leaf node with identity TRS)
  // as null; glTF wants an (empty) object there.
  for (auto& [key, value] : doc.items())
    if (value.is_array())
      for (nlohmann::json& element : value)
        if (element.is_null()) element = nlohmann::json::object();

  if (!bin.empty()) {
    nlohmann::json& buffer = doc.at("buffers").at(0);
    buffer["byteLength"] = bin.size();
    if (binary) buffer.erase("uri");
    else buffer["uri"] = kUriPlaceholder;
  }
  for (size_t c = 0; c < scene.cameras.size(); ++c)
    if (scene.cameras[c].perspective && scene.cameras[c].zfar == 0.0)
      doc.at("cameras").at(c).at("perspective").erase("zfar");  // absent zfar = infinite projection

  return {std::move(doc), std::move(bin)};
}

}  // namespace

void export_glb(const Scene& scene, std::ostream& out) {
  const auto [doc, bin] = serialize(scene, true, scene.source);
  write_glb(out, doc.dump(), bin, scene.source);
}

void export_gltf(const Scene& scene, const std::string& path) {
  const std::string ext = lower_case_extension(path);
  const bool binary = ext == ".glb";
  if (!binary && ext != ".gltf") throw InputError(path, "", "an output path ending in .gltf or .glb");
  // Named members, not a structured binding: clang before 16 cannot capture those in the lambdas below.
  const auto serialized = serialize(scene, binary, path);
  const auto& doc = serialized.first;
  const auto& bin = serialized.second;

  if (binary) {
    const std::string json = doc.dump();
    write_file_atomically(path, [&](std::ostream& out) { write_glb(out, json, bin, path); });
    return;
  }
  const std::string json = doc.dump(2);
  write_file_atomically(path, [&](std::ostream& out) {
    if (bin.empty()) {
      out << json << '\n';
      return;
    }
    const std::string needle = std::string("\"uri\": \"") + kUriPlaceholder + "\"";
    const size_t at = json.find(needle);
    if (at == std::string::npos)
      throw std::logic_error("gltf_export: the buffer URI placeholder is missing from the serialized JSON");
    out.write(json.data(), static_cast<std::streamsize>(at));
    out << "\"uri\": \"data:application/octet-stream;base64,";
    write_base64(out, bin);
    out << '"';
    out.write(json.data() + at + needle.size(), static_cast<std::streamsize>(json.size() - at - needle.size()));
    out << '\n';
  });
}

}  // namespace skinref

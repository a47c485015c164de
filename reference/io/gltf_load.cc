// glTF 2.0 -> Scene. tinygltf parses the JSON and the containers; every check of what the values mean is
// ours (tinygltf does not bound accessors). Indices of nodes, meshes, skins, animations and materials are
// kept as in the file, so the JSON paths of finalize_scene()'s errors point into the file too.
#include "io/gltf_load.h"

#include "core/input_error.h"
#include "core/limits.h"
#include "core/stream_bytes.h"
#include "io/accessor.h"

#include <nlohmann/json.hpp>
#include <stb_image.h>
#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

namespace skinref {
namespace {

using gltf_detail::AccessorData;
using gltf_detail::AccessorReading;
using gltf_detail::AccessorRules;
using gltf_detail::ComponentRule;
using gltf_detail::read_accessor;

constexpr int kFloat = TINYGLTF_COMPONENT_TYPE_FLOAT;
constexpr int kI8 = TINYGLTF_COMPONENT_TYPE_BYTE;
constexpr int kU8 = TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE;
constexpr int kI16 = TINYGLTF_COMPONENT_TYPE_SHORT;
constexpr int kU16 = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
constexpr int kU32 = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;

const char* const kQuantization = "KHR_mesh_quantization";


// Component storages allowed by the core specification and, with KHR_mesh_quantization, by the extension.
struct Storage {
  std::vector<ComponentRule> core;
  std::vector<ComponentRule> quantized;  // in addition to core
};

const std::vector<ComponentRule> kAnyInt = {{kI8, false}, {kI8, true},   {kU8, false}, {kU8, true},
                                            {kI16, false}, {kI16, true}, {kU16, false}, {kU16, true}};
const std::vector<ComponentRule> kSignedNormalized = {{kI8, true}, {kI16, true}};
const std::vector<ComponentRule> kNormalizedInts = {{kI8, true}, {kU8, true}, {kI16, true}, {kU16, true}};

class GltfReader {
 public:
  GltfReader(const tinygltf::Model& model, std::string file, const LoadConventions& reading)
      : m_(model),
        file_(std::move(file)),
        sentinel_(reading.joint_sentinel),
        reading_{reading.accessor_addressing == AccessorAddressing::Packed,
                 reading.accessor_addressing == AccessorAddressing::ViewStart,
                 reading.sparse == SparseAccessors::Ignored} {}

  Scene read() {
    check_extensions();
    scene_.source = file_;
    read_images();
    read_textures();
    read_materials();
    read_cameras();
    read_meshes();
    read_skins();
    read_nodes();
    read_animations();
    read_active_scene();
    finalize_scene(scene_);
    return std::move(scene_);
  }

 private:
  // The JOINTS value that means "no joint" under the convention, or -1 (no value matches).
  double sentinel_value(int component_type) const {
    switch (sentinel_) {
      case JointSentinel::None: return -1.0;
      case JointSentinel::AllOnes: return component_type == kU8 ? 255.0 : 65535.0;
      case JointSentinel::U8Max: return 255.0;
      case JointSentinel::U16Max: return 65535.0;
    }
    return -1.0;
  }

  [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
    throw InputError(file_, path, expected);
  }

  void check_index(int index, size_t size, const std::string& path, const char* what) const {
    if (index < 0 || size_t(index) >= size)
      fail(path, std::string("a ") + what + " index < " + std::to_string(size) + ", got " + std::to_string(index));
  }

  AccessorRules rules(const std::string& semantic, std::vector<int> types, const Storage& storage) const {
    AccessorRules r{semantic, std::move(types), storage.core};
    if (quantization_)
      r.storages.insert(r.storages.end(), storage.quantized.begin(), storage.quantized.end());
    return r;
  }

  AccessorData read(int accessor, const AccessorRules& r, const std::string& referrer) const {
    return read_accessor(m_, accessor, r, file_, referrer, reading_);
  }

  void check_extensions() {
    for (size_t i = 0; i < m_.extensionsRequired.size(); ++i) {
      if (!is_supported_required_extension(m_.extensionsRequired[i]))
        fail("/extensionsRequired/" + std::to_string(i),
             "only supported extensions in extensionsRequired (" + std::string(kQuantization) + "); \"" +
                 m_.extensionsRequired[i] + "\" is not supported");
    }
    auto used = [&](const std::vector<std::string>& list) {
      return std::find(list.begin(), list.end(), kQuantization) != list.end();
    };
    quantization_ = used(m_.extensionsUsed) || used(m_.extensionsRequired);
  }

  void read_images() {
    for (size_t i = 0; i < m_.images.size(); ++i) {
      const tinygltf::Image& src = m_.images[i];
      Image img;
      img.name = src.name;
      const std::string path = "/images/" + std::to_string(i);
      if (src.width <= 0 || src.height <= 0 || src.component < 1 || src.component > 4 ||
          (src.bits != 8 && src.bits != 16))
        fail(path, "a decodable 8- or 16-bit image with 1 to 4 channels");
      const size_t pixels = size_t(src.width) * size_t(src.height);
      const size_t bytes_per_channel = size_t(src.bits / 8);
      if (src.image.size() != pixels * size_t(src.component) * bytes_per_channel)
        fail(path, "decoded image data of width x height x channels bytes");
      img.width = src.width;
      img.height = src.height;
      img.rgba8.resize(pixels * 4);
      for (size_t p = 0; p < pixels; ++p) {
        uint8_t c[4] = {0, 0, 0, 255};
        for (int k = 0; k < src.component; ++k) {
          // 16-bit channels keep their high byte (PNG stores them big-endian; stb converts to native).
          const size_t at = (p * size_t(src.component) + size_t(k)) * bytes_per_channel;
          uint16_t wide = 0;
          if (bytes_per_channel == 2) std::memcpy(&wide, &src.image[at], 2);
          c[k] = bytes_per_channel == 1 ? src.image[at] : uint8_t(wide >> 8);
        }
        if (src.component <= 2) {  // grey (+ alpha)
          const uint8_t alpha = src.component == 2 ? c[1] : 255;
          c[1] = c[2] = c[0];
          c[3] = alpha;
        }
        std::copy(c, c + 4, img.rgba8.begin() + std::ptrdiff_t(p * 4));
      }
      scene_.images.push_back(std::move(img));
    }
  }

  static Filter filter(int gl) {
    return (gl == TINYGLTF_TEXTURE_FILTER_NEAREST || gl == TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_NEAREST ||
            gl == TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_LINEAR)
               ? Filter::Nearest
               : Filter::Linear;
  }

  WrapMode wrap(int gl, const std::string& path) const {
    switch (gl) {
      case TINYGLTF_TEXTURE_WRAP_REPEAT: return WrapMode::Repeat;
      case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE: return WrapMode::ClampToEdge;
      case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT: return WrapMode::MirroredRepeat;
      default: fail(path, "10497 (REPEAT), 33071 (CLAMP_TO_EDGE) or 33648 (MIRRORED_REPEAT), got " +
                              std::to_string(gl));
    }
  }

  void read_textures() {
    for (size_t t = 0; t < m_.textures.size(); ++t) {
      const tinygltf::Texture& src = m_.textures[t];
      const std::string path = "/textures/" + std::to_string(t);
      Texture tex;
      if (src.source != -1) check_index(src.source, m_.images.size(), path + "/source", "image");
      tex.image = src.source;
      if (src.sampler != -1) {
        check_index(src.sampler, m_.samplers.size(), path + "/sampler", "sampler");
        const tinygltf::Sampler& s = m_.samplers[src.sampler];
        const std::string spath = "/samplers/" + std::to_string(src.sampler);
        tex.sampler.mag_filter = s.magFilter == -1 ? Filter::Linear : filter(s.magFilter);
        tex.sampler.min_filter = s.minFilter == -1 ? Filter::Linear : filter(s.minFilter);
        tex.sampler.wrap_s = wrap(s.wrapS, spath + "/wrapS");
        tex.sampler.wrap_t = wrap(s.wrapT, spath + "/wrapT");
      }
      scene_.textures.push_back(tex);
    }
  }

  void read_materials() {
    for (size_t i = 0; i < m_.materials.size(); ++i) {
      const tinygltf::Material& src = m_.materials[i];
      const std::string path = "/materials/" + std::to_string(i);
      Material mat;
      mat.name = src.name;
      const auto& pbr = src.pbrMetallicRoughness;
      if (pbr.baseColorFactor.size() != 4)
        fail(path + "/pbrMetallicRoughness/baseColorFactor", "4 numbers");
      for (int c = 0; c < 4; ++c) {
        if (!std::isfinite(pbr.baseColorFactor[c]))
          fail(path + "/pbrMetallicRoughness/baseColorFactor", "finite numbers");
        mat.base_color_factor[c] = pbr.baseColorFactor[c];
      }
      if (pbr.baseColorTexture.index != -1) {
        check_index(pbr.baseColorTexture.index, m_.textures.size(),
                    path + "/pbrMetallicRoughness/baseColorTexture/index", "texture");
        if (pbr.baseColorTexture.texCoord < 0)
          fail(path + "/pbrMetallicRoughness/baseColorTexture/texCoord", "a texCoord set >= 0");
        mat.base_color_texture = pbr.baseColorTexture.index;
        mat.base_color_texcoord = pbr.baseColorTexture.texCoord;
      }
      mat.double_sided = src.doubleSided;
      scene_.materials.push_back(std::move(mat));
    }
  }

  void read_cameras() {
    for (size_t i = 0; i < m_.cameras.size(); ++i) {
      const tinygltf::Camera& src = m_.cameras[i];
      const std::string path = "/cameras/" + std::to_string(i);
      Camera cam;
      cam.name = src.name;
      if (src.type == "perspective") {
        const auto& p = src.perspective;
        if (!(p.yfov > 0.0) || !std::isfinite(p.yfov)) fail(path + "/perspective/yfov", "yfov > 0");
        if (!(p.znear > 0.0) || !std::isfinite(p.znear)) fail(path + "/perspective/znear", "znear > 0");
        if (p.zfar != 0.0 && !(p.zfar > p.znear)) fail(path + "/perspective/zfar", "zfar > znear");
        if (p.aspectRatio < 0.0 || !std::isfinite(p.aspectRatio))
          fail(path + "/perspective/aspectRatio", "aspectRatio > 0");
        cam.perspective = true;
        cam.yfov = p.yfov;
        cam.aspect_ratio = p.aspectRatio;
        cam.znear = p.znear;
        cam.zfar = p.zfar;
      } else if (src.type == "orthographic") {
        const auto& o = src.orthographic;
        if (o.xmag == 0.0 || !std::isfinite(o.xmag)) fail(path + "/orthographic/xmag", "a non-zero xmag");
        if (o.ymag == 0.0 || !std::isfinite(o.ymag)) fail(path + "/orthographic/ymag", "a non-zero ymag");
        if (!(o.znear >= 0.0)) fail(path + "/orthographic/znear", "znear >= 0");
        if (!(o.zfar > o.znear) || !std::isfinite(o.zfar)) fail(path + "/orthographic/zfar", "zfar > znear");
        cam.perspective = false;
        cam.xmag = o.xmag;
        cam.ymag = o.ymag;
        cam.znear = o.znear;
        cam.zfar = o.zfar;
      } else {
        fail(path + "/type", "\"perspective\" or \"orthographic\", got \"" + src.type + "\"");
      }
      scene_.cameras.push_back(cam);
    }
  }

  static std::vector<Vec3> to_vec3(const AccessorData& d) {
    std::vector<Vec3> v(d.count);
    for (size_t i = 0; i < d.count; ++i) v[i] = Vec3(d.values[i * 3], d.values[i * 3 + 1], d.values[i * 3 + 2]);
    return v;
  }

  void check_count(const AccessorData& d, size_t vertex_count, const std::string& path) const {
    if (d.count != vertex_count)
      fail(path, "count " + std::to_string(vertex_count) + " (POSITION's), got " + std::to_string(d.count));
  }

  // Parses "PREFIX_n" attribute names; returns -1 when `name` is not of that form.
  static int set_index(const std::string& name, const std::string& prefix) {
    if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return -1;
    int n = 0;
    for (size_t i = prefix.size(); i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9' || n > 1000) return -1;
      n = n * 10 + (name[i] - '0');
    }
    return n;
  }

  std::vector<uint32_t> expand_topology(const std::vector<uint32_t>& raw, int mode, Topology* topology,
                                        const std::string& path) const {
    std::vector<uint32_t> out;
    switch (mode) {
      case TINYGLTF_MODE_POINTS: *topology = Topology::Points; return raw;
      case TINYGLTF_MODE_LINE:
        if (raw.size() % 2 != 0) fail(path + "/indices", "an even number of indices for LINES");
        *topology = Topology::Lines;
        return raw;
      case TINYGLTF_MODE_LINE_STRIP:
      case TINYGLTF_MODE_LINE_LOOP:
        *topology = Topology::Lines;
        for (size_t i = 1; i < raw.size(); ++i) out.insert(out.end(), {raw[i - 1], raw[i]});
        if (mode == TINYGLTF_MODE_LINE_LOOP && raw.size() > 2) out.insert(out.end(), {raw.back(), raw.front()});
        return out;
      case TINYGLTF_MODE_TRIANGLES:
        if (raw.size() % 3 != 0) fail(path + "/indices", "a multiple of 3 indices for TRIANGLES, got " + std::to_string(raw.size()));
        *topology = Topology::Triangles;
        return raw;
      case TINYGLTF_MODE_TRIANGLE_STRIP:
        // Every other triangle swaps its first two vertices so that all keep the strip's winding.
        *topology = Topology::Triangles;
        for (size_t i = 2; i < raw.size(); ++i) {
          if (i % 2 == 0) out.insert(out.end(), {raw[i - 2], raw[i - 1], raw[i]});
          else out.insert(out.end(), {raw[i - 1], raw[i - 2], raw[i]});
        }
        return out;
      case TINYGLTF_MODE_TRIANGLE_FAN:
        *topology = Topology::Triangles;
        for (size_t i = 2; i < raw.size(); ++i) out.insert(out.end(), {raw[i - 1], raw[i], raw[0]});
        return out;
      default: fail(path + "/mode", "a primitive mode from 0 to 6, got " + std::to_string(mode));
    }
  }

  Primitive read_primitive(const tinygltf::Primitive& src, const std::string& path) const {
    Primitive prim;
    const auto& attrs = src.attributes;
    auto pos = attrs.find("POSITION");
    if (pos == attrs.end()) fail(path + "/attributes", "a POSITION attribute");
    const std::string apath = path + "/attributes/";
    // The vertex count, from the accessor before it is decoded.
    if (pos->second >= 0 && size_t(pos->second) < m_.accessors.size() &&
        m_.accessors[size_t(pos->second)].count > limits::kMaxVerticesPerPrimitive)
      fail(apath + "POSITION", "a vertex count " +
                                   limits::limit_text(limits::kMaxVerticesPerPrimitive, "kMaxVerticesPerPrimitive") +
                                   ", got " + std::to_string(m_.accessors[size_t(pos->second)].count) + " (accessor " +
                                   std::to_string(pos->second) + ")");
    const AccessorData positions =
        read(pos->second, rules("POSITION", {TINYGLTF_TYPE_VEC3}, {{{kFloat, false}}, kAnyInt}), apath + "POSITION");
    prim.positions = to_vec3(positions);
    const size_t n = prim.positions.size();

    if (auto it = attrs.find("NORMAL"); it != attrs.end()) {
      AccessorData d = read(it->second, rules("NORMAL", {TINYGLTF_TYPE_VEC3}, {{{kFloat, false}}, kSignedNormalized}),
                            apath + "NORMAL");
      check_count(d, n, apath + "NORMAL");
      prim.normals = to_vec3(d);
    }
    if (auto it = attrs.find("TANGENT"); it != attrs.end()) {
      AccessorData d = read(it->second, rules("TANGENT", {TINYGLTF_TYPE_VEC4}, {{{kFloat, false}}, kSignedNormalized}),
                            apath + "TANGENT");
      check_count(d, n, apath + "TANGENT");
      prim.tangents.resize(n);
      for (size_t i = 0; i < n; ++i)
        prim.tangents[i] = Vec4(d.values[i * 4], d.values[i * 4 + 1], d.values[i * 4 + 2], d.values[i * 4 + 3]);
    }
    if (auto it = attrs.find("TEXCOORD_0"); it != attrs.end()) {
      AccessorData d = read(it->second,
                            rules("TEXCOORD_0", {TINYGLTF_TYPE_VEC2},
                                  {{{kFloat, false}, {kU8, true}, {kU16, true}},
                                   {{kI8, true}, {kI8, false}, {kI16, true}, {kI16, false}, {kU8, false}, {kU16, false}}}),
                            apath + "TEXCOORD_0");
      check_count(d, n, apath + "TEXCOORD_0");
      prim.texcoords0.resize(n);
      for (size_t i = 0; i < n; ++i) prim.texcoords0[i] = Vec2(d.values[i * 2], d.values[i * 2 + 1]);
    }

    read_influences(attrs, n, apath, prim);
    read_indices(src, n, path, prim);
    read_targets(src, n, path, prim);
    if (src.material != -1) check_index(src.material, m_.materials.size(), path + "/material", "material");
    prim.material = src.material;
    read_other_attributes(src, n, apath, prim);
    return prim;
  }

  // Influence sets: JOINTS_n and WEIGHTS_n come in pairs, numbered 0..k-1 without gaps; weights non-negative,
  // and the no-joint sentinel only with weight 0.
  void read_influences(const std::map<std::string, int>& attrs, size_t n, const std::string& apath,
                       Primitive& prim) const {
    std::set<int> joint_sets, weight_sets;
    for (const auto& [name, index] : attrs) {
      if (int s = set_index(name, "JOINTS_"); s >= 0) joint_sets.insert(s);
      if (int s = set_index(name, "WEIGHTS_"); s >= 0) weight_sets.insert(s);
    }
    for (int s : joint_sets)
      if (!weight_sets.count(s)) fail(apath + "WEIGHTS_" + std::to_string(s), "WEIGHTS_" + std::to_string(s) + " alongside JOINTS_" + std::to_string(s));
    for (int s : weight_sets)
      if (!joint_sets.count(s)) fail(apath + "JOINTS_" + std::to_string(s), "JOINTS_" + std::to_string(s) + " alongside WEIGHTS_" + std::to_string(s));
    const int sets = int(joint_sets.size());
    for (int s : joint_sets)
      if (s >= sets) fail(apath + "JOINTS_" + std::to_string(s), "influence sets numbered 0.." + std::to_string(sets - 1) + " without gaps");
    prim.influences_per_vertex = 4 * sets;
    prim.joints.resize(n * size_t(prim.influences_per_vertex));
    prim.weights.resize(n * size_t(prim.influences_per_vertex));
    for (int s = 0; s < sets; ++s) {
      const std::string jname = "JOINTS_" + std::to_string(s), wname = "WEIGHTS_" + std::to_string(s);
      AccessorData j = read(attrs.at(jname), rules(jname, {TINYGLTF_TYPE_VEC4}, {{{kU8, false}, {kU16, false}}, {}}),
                            apath + jname);
      check_count(j, n, apath + jname);
      AccessorData w = read(attrs.at(wname),
                            rules(wname, {TINYGLTF_TYPE_VEC4}, {{{kFloat, false}, {kU8, true}, {kU16, true}}, {}}),
                            apath + wname);
      check_count(w, n, apath + wname);
      const int weight_type = m_.accessors[size_t(attrs.at(wname))].componentType;
      prim.weight_set_max.push_back(weight_type == kU8 ? 255u : weight_type == kU16 ? 65535u : 0u);
      const double sentinel = sentinel_value(m_.accessors[size_t(attrs.at(jname))].componentType);
      for (size_t v = 0; v < n; ++v) {
        for (int c = 0; c < 4; ++c) {
          const size_t at = v * size_t(prim.influences_per_vertex) + size_t(s * 4 + c);
          prim.joints[at] = uint32_t(j.values[v * 4 + c]);
          prim.weights[at] = w.values[v * 4 + c];
          if (prim.weights[at] < 0.0)
            fail(apath + wname, "non-negative weights; vertex " + std::to_string(v) + " has " + std::to_string(prim.weights[at]));
          // The convention joint-sentinel: "no joint" is joint 0 with weight 0, and only with weight 0.
          if (j.values[v * 4 + c] == sentinel) {
            if (prim.weights[at] != 0.0)
              fail(apath + wname, "weight 0 where JOINTS_" + std::to_string(s) + " holds the no-joint sentinel " +
                                      std::to_string(size_t(sentinel)) + "; vertex " + std::to_string(v) + " has " +
                                      std::to_string(prim.weights[at]));
            prim.joints[at] = 0;
          }
        }
      }
    }
  }

  // The indices (or 0..n-1 when there are none), each below the vertex count, expanded to the topology's list.
  void read_indices(const tinygltf::Primitive& src, size_t n, const std::string& path, Primitive& prim) const {
    std::vector<uint32_t> raw;
    if (src.indices != -1) {
      AccessorData d = read(src.indices,
                            rules("indices", {TINYGLTF_TYPE_SCALAR}, {{{kU8, false}, {kU16, false}, {kU32, false}}, {}}),
                            path + "/indices");
      raw.resize(d.count);
      for (size_t i = 0; i < d.count; ++i) {
        if (d.values[i] >= double(n))
          fail(path + "/indices", "vertex indices < the vertex count " + std::to_string(n) + "; index " + std::to_string(i) + " is " +
                                      std::to_string(size_t(d.values[i])));
        raw[i] = uint32_t(d.values[i]);
      }
      prim.indexed = true;
    } else {
      raw.resize(n);
      for (size_t i = 0; i < n; ++i) raw[i] = uint32_t(i);
    }
    prim.indices = expand_topology(raw, src.mode == -1 ? TINYGLTF_MODE_TRIANGLES : src.mode, &prim.topology, path);
  }

  // Morph targets' position, normal and tangent deltas, one per vertex.
  void read_targets(const tinygltf::Primitive& src, size_t n, const std::string& path, Primitive& prim) const {
    for (size_t t = 0; t < src.targets.size(); ++t) {
      MorphTarget target;
      const std::string tpath = path + "/targets/" + std::to_string(t) + "/";
      for (const auto& [name, index] : src.targets[t]) {
        Storage storage{{{kFloat, false}}, name == "POSITION" ? kAnyInt : kSignedNormalized};
        if (name == "POSITION" || name == "NORMAL" || name == "TANGENT") {
          AccessorData d = read(index, rules("morph target " + name, {TINYGLTF_TYPE_VEC3}, storage), tpath + name);
          check_count(d, n, tpath + name);
          (name == "POSITION" ? target.position_deltas : name == "NORMAL" ? target.normal_deltas : target.tangent_deltas) =
              to_vec3(d);
        }
      }
      prim.targets.push_back(std::move(target));
    }
  }

  // TEXCOORD_n (n >= 1), COLOR_n and application-specific _NAME attributes: nothing in skinning reads them, but a
  // user's vertex shader does (gpu/vertex_interface.h), so they are kept as read, as up to four doubles.
  void read_other_attributes(const tinygltf::Primitive& src, size_t n, const std::string& apath, Primitive& prim) const {
    const Storage colours{{{kFloat, false}, {kU8, true}, {kU16, true}}, {}};
    const Storage texcoords{{{kFloat, false}, {kU8, true}, {kU16, true}},
                            {{kI8, true}, {kI8, false}, {kI16, true}, {kI16, false}, {kU8, false}, {kU16, false}}};
    for (const auto& [name, index] : src.attributes) {
      std::optional<AccessorRules> r;
      if (set_index(name, "TEXCOORD_") >= 1)
        r = rules(name, {TINYGLTF_TYPE_VEC2}, texcoords);
      else if (set_index(name, "COLOR_") >= 0)
        r = rules(name, {TINYGLTF_TYPE_VEC3, TINYGLTF_TYPE_VEC4}, colours);
      else if (name.size() > 1 && name[0] == '_')
        r = rules(name, {TINYGLTF_TYPE_SCALAR, TINYGLTF_TYPE_VEC2, TINYGLTF_TYPE_VEC3, TINYGLTF_TYPE_VEC4},
                  {{{kFloat, false}, {kI8, false}, {kI8, true}, {kU8, false}, {kU8, true}, {kI16, false}, {kI16, true},
                    {kU16, false}, {kU16, true}}, {}});
      if (!r) continue;
      const AccessorData d = read(index, *r, apath + name);
      check_count(d, n, apath + name);
      std::vector<Vec4>& values = prim.other_attributes[name];
      values.assign(n, Vec4(0.0, 0.0, 0.0, 1.0));  // the components an attribute lacks, as a vertex input's
      for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < d.components && c < 4; ++c) values[i][c] = d.values[i * size_t(d.components) + size_t(c)];
    }
  }

  void read_meshes() {
    for (size_t m = 0; m < m_.meshes.size(); ++m) {
      const tinygltf::Mesh& src = m_.meshes[m];
      const std::string path = "/meshes/" + std::to_string(m);
      Mesh mesh;
      mesh.name = src.name;
      if (src.primitives.empty()) fail(path + "/primitives", "at least one primitive");
      for (size_t p = 0; p < src.primitives.size(); ++p)
        mesh.primitives.push_back(read_primitive(src.primitives[p], path + "/primitives/" + std::to_string(p)));
      mesh.default_weights = src.weights;
      scene_.meshes.push_back(std::move(mesh));
    }
  }

  void read_skins() {
    for (size_t s = 0; s < m_.skins.size(); ++s) {
      const tinygltf::Skin& src = m_.skins[s];
      const std::string path = "/skins/" + std::to_string(s);
      Skin skin;
      skin.name = src.name;
      skin.joints = src.joints;
      skin.skeleton = src.skeleton;
      if (src.inverseBindMatrices != -1) {
        AccessorData d = read(src.inverseBindMatrices,
                              rules("inverseBindMatrices", {TINYGLTF_TYPE_MAT4}, {{{kFloat, false}}, {}}),
                              path + "/inverseBindMatrices");
        if (d.count < src.joints.size())
          fail(path + "/inverseBindMatrices",
               "at least " + std::to_string(src.joints.size()) + " matrices (one per joint), got " + std::to_string(d.count));
        for (size_t j = 0; j < src.joints.size(); ++j)
          skin.inverse_bind.push_back(Eigen::Map<const Mat4>(&d.values[j * 16]));  // column-major, as glTF
      } else {
        skin.inverse_bind.assign(src.joints.size(), Mat4::Identity());
      }
      scene_.skins.push_back(std::move(skin));
    }
  }

  void read_nodes() {
    for (size_t i = 0; i < m_.nodes.size(); ++i) {
      const tinygltf::Node& src = m_.nodes[i];
      const std::string path = "/nodes/" + std::to_string(i);
      Node node;
      node.name = src.name;
      node.children = src.children;
      node.mesh = src.mesh;
      node.skin = src.skin;
      node.camera = src.camera;
      node.morph_weights = src.weights;
      auto finite = [&](const std::vector<double>& v) {
        return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
      };
      if (!src.matrix.empty()) {
        if (src.matrix.size() != 16 || !finite(src.matrix)) fail(path + "/matrix", "16 finite numbers");
        const Mat4 m = Eigen::Map<const Mat4>(src.matrix.data());
        if (!decompose_trs(m, &node.rest, tol::kMatrixShear))
          fail(path + "/matrix", "an affine matrix without shear that decomposes into translation, rotation and scale");
        node.had_matrix = true;
      }
      if (!src.translation.empty()) {
        if (src.translation.size() != 3 || !finite(src.translation)) fail(path + "/translation", "3 finite numbers");
        node.rest.translation = Vec3(src.translation[0], src.translation[1], src.translation[2]);
      }
      if (!src.rotation.empty()) {
        if (src.rotation.size() != 4 || !finite(src.rotation)) fail(path + "/rotation", "4 finite numbers");
        const Quat q = quat_from_xyzw(src.rotation[0], src.rotation[1], src.rotation[2], src.rotation[3]);
        if (!(q.norm() > 0.0)) fail(path + "/rotation", "a unit quaternion, got length 0");
        node.rest.rotation = q.normalized();
      }
      if (!src.scale.empty()) {
        if (src.scale.size() != 3 || !finite(src.scale)) fail(path + "/scale", "3 finite numbers");
        node.rest.scale = Vec3(src.scale[0], src.scale[1], src.scale[2]);
      }
      if (!finite(src.weights)) fail(path + "/weights", "finite numbers");
      scene_.nodes.push_back(std::move(node));
    }
  }

  static size_t target_count(const Scene& s, int node) {
    const int mesh = s.nodes[node].mesh;
    if (mesh < 0 || size_t(mesh) >= s.meshes.size() || s.meshes[mesh].primitives.empty()) return 0;
    return s.meshes[mesh].primitives[0].targets.size();
  }

  void read_animations() {
    for (size_t a = 0; a < m_.animations.size(); ++a) {
      const tinygltf::Animation& src = m_.animations[a];
      const std::string path = "/animations/" + std::to_string(a);
      Animation anim;
      anim.name = src.name;
      // A sampler's output layout depends on the channel that uses it; the first user decides.
      std::vector<int> first_user(src.samplers.size(), -1);
      for (size_t c = 0; c < src.channels.size(); ++c) {
        const tinygltf::AnimationChannel& ch = src.channels[c];
        const std::string cpath = path + "/channels/" + std::to_string(c);
        check_index(ch.sampler, src.samplers.size(), cpath + "/sampler", "sampler");
        if (ch.target_node == -1) continue;  // glTF: a channel without a target node is ignored
        check_index(ch.target_node, m_.nodes.size(), cpath + "/target/node", "node");
        AnimationChannel channel;
        channel.sampler = ch.sampler;
        channel.node = ch.target_node;
        if (ch.target_path == "translation") channel.path = ChannelPath::Translation;
        else if (ch.target_path == "rotation") channel.path = ChannelPath::Rotation;
        else if (ch.target_path == "scale") channel.path = ChannelPath::Scale;
        else if (ch.target_path == "weights") {
          channel.path = ChannelPath::Weights;
          if (target_count(scene_, ch.target_node) == 0)
            fail(cpath + "/target/path", "\"weights\" only on a node whose mesh has morph targets; node " +
                                             std::to_string(ch.target_node) + " has none");
        } else fail(cpath + "/target/path", "translation, rotation, scale or weights, got \"" + ch.target_path + "\"");
        if (first_user[ch.sampler] == -1) first_user[ch.sampler] = int(anim.channels.size());
        anim.channels.push_back(channel);
      }
      for (size_t s = 0; s < src.samplers.size(); ++s)
        anim.samplers.push_back(read_sampler(src.samplers[s], path + "/samplers/" + std::to_string(s),
                                             first_user[s] < 0 ? nullptr : &anim.channels[first_user[s]]));
      // Every channel must agree with its sampler's layout (a sampler may serve several channels).
      for (size_t c = 0; c < anim.channels.size(); ++c) {
        const AnimationChannel& ch = anim.channels[c];
        const AnimationSampler& s = anim.samplers[ch.sampler];
        const int want = ch.path == ChannelPath::Rotation ? 4
                         : ch.path == ChannelPath::Weights ? int(target_count(scene_, ch.node))
                                                           : 3;
        if (s.components != want)
          fail(path + "/samplers/" + std::to_string(ch.sampler) + "/output",
               std::to_string(size_t(want)) + " components per key for the channels that use it, got " + std::to_string(s.components));
      }
      bool any = false;
      for (const AnimationSampler& s : anim.samplers) {
        if (s.times.empty()) continue;
        anim.start_time = any ? std::min(anim.start_time, s.times.front()) : s.times.front();
        anim.end_time = any ? std::max(anim.end_time, s.times.back()) : s.times.back();
        any = true;
      }
      scene_.animations.push_back(std::move(anim));
    }
  }

  AnimationSampler read_sampler(const tinygltf::AnimationSampler& src, const std::string& path,
                                const AnimationChannel* user) const {
    AnimationSampler out;
    if (src.interpolation == "STEP") out.interpolation = Interpolation::Step;
    else if (src.interpolation == "LINEAR" || src.interpolation.empty()) out.interpolation = Interpolation::Linear;
    else if (src.interpolation == "CUBICSPLINE") out.interpolation = Interpolation::CubicSpline;
    else fail(path + "/interpolation", "STEP, LINEAR or CUBICSPLINE, got \"" + src.interpolation + "\"");

    // The key count, from the accessor before it is decoded.
    if (src.input >= 0 && size_t(src.input) < m_.accessors.size() &&
        m_.accessors[size_t(src.input)].count > limits::kMaxKeysPerSampler)
      fail(path + "/input", "a key count " + limits::limit_text(limits::kMaxKeysPerSampler, "kMaxKeysPerSampler") +
                                ", got " + std::to_string(m_.accessors[size_t(src.input)].count) + " (accessor " +
                                std::to_string(src.input) + ")");
    const AccessorData input =
        read(src.input, rules("animation input", {TINYGLTF_TYPE_SCALAR}, {{{kFloat, false}}, {}}), path + "/input");
    out.times = input.values;
    for (size_t k = 0; k < out.times.size(); ++k) {
      if (out.times[k] < 0.0) fail(path + "/input", "key times >= 0; key " + std::to_string(k) + " is " + std::to_string(out.times[k]));
      if (k > 0 && !(out.times[k] > out.times[k - 1]))
        fail(path + "/input", "strictly increasing key times; key " + std::to_string(k) + " (" + std::to_string(out.times[k]) +
                                  ") <= key " + std::to_string(k - 1) + " (" + std::to_string(out.times[k - 1]) + ")");
    }
    if (out.interpolation == Interpolation::CubicSpline && out.times.size() < 2)
      fail(path + "/input", "at least 2 keys for CUBICSPLINE");

    AccessorRules r;
    const ChannelPath p = user ? user->path : ChannelPath::Translation;
    switch (user ? p : ChannelPath::Translation) {
      case ChannelPath::Translation:
      case ChannelPath::Scale:
        r = rules("animation output", user ? std::vector<int>{TINYGLTF_TYPE_VEC3}
                                           : std::vector<int>{TINYGLTF_TYPE_SCALAR, TINYGLTF_TYPE_VEC3, TINYGLTF_TYPE_VEC4},
                  {{{kFloat, false}}, kAnyInt});
        break;
      case ChannelPath::Rotation:
        r = rules("rotation output", {TINYGLTF_TYPE_VEC4}, {{{kFloat, false}, {kI8, true}, {kU8, true}, {kI16, true}, {kU16, true}}, {}});
        break;
      case ChannelPath::Weights:
        r = rules("weights output", {TINYGLTF_TYPE_SCALAR}, {{{kFloat, false}, {kI8, true}, {kU8, true}, {kI16, true}, {kU16, true}}, kAnyInt});
        break;
    }
    const AccessorData output = read(src.output, r, path + "/output");
    const size_t per_key = out.interpolation == Interpolation::CubicSpline ? 3 : 1;
    size_t components = size_t(output.components);
    if (user && p == ChannelPath::Weights) components = target_count(scene_, user->node);
    const size_t expected = out.times.size() * per_key * components;
    if (output.count * size_t(output.components) != expected)
      fail(path + "/output",
           std::string("an output count of ") + std::to_string(out.times.size() * per_key * components / size_t(output.components)) +
               " (" + std::to_string(out.times.size()) + " keys" + (per_key == 3 ? " x 3 for CUBICSPLINE" : "") +
               (user && p == ChannelPath::Weights ? " x " + std::to_string(components) + " morph targets" : "") + "), got " +
               std::to_string(output.count));
    out.values = output.values;
    out.components = int(components);
    // The rules above allowed integer outputs only normalized; key-decoding (anim/clip_conventions.h) reads
    // the integers back.
    const int stored = m_.accessors[size_t(src.output)].normalized ? m_.accessors[size_t(src.output)].componentType : kFloat;
    if (stored == kI8) out.normalized_output = {127u, true};
    if (stored == kU8) out.normalized_output = {255u, false};
    if (stored == kI16) out.normalized_output = {32767u, true};
    if (stored == kU16) out.normalized_output = {65535u, false};
    return out;
  }

  void read_active_scene() {
    if (m_.scenes.empty()) {
      // No scenes: every parentless node is a root (finalize_scene checks the hierarchy itself).
      std::vector<bool> has_parent(m_.nodes.size(), false);
      for (const tinygltf::Node& n : m_.nodes)
        for (int c : n.children)
          if (c >= 0 && size_t(c) < has_parent.size()) has_parent[c] = true;
      for (size_t i = 0; i < m_.nodes.size(); ++i)
        if (!has_parent[i]) scene_.roots.push_back(int(i));
      scene_.active_scene = -1;
      return;
    }
    int active = m_.defaultScene;
    if (active == -1) active = 0;
    check_index(active, m_.scenes.size(), "/scene", "scene");
    const std::vector<int>& nodes = m_.scenes[active].nodes;
    for (size_t i = 0; i < nodes.size(); ++i)
      check_index(nodes[i], m_.nodes.size(), "/scenes/" + std::to_string(active) + "/nodes/" + std::to_string(i), "node");
    scene_.roots = nodes;
    scene_.active_scene = active;
  }

  const tinygltf::Model& m_;
  std::string file_;
  JointSentinel sentinel_ = JointSentinel::None;
  AccessorReading reading_;
  Scene scene_;
  bool quantization_ = false;
};

bool is_glb(const std::string& bytes) { return bytes.size() >= 4 && bytes.compare(0, 4, "glTF") == 0; }

// The stated limits (core/limits.h) on what the glTF JSON declares, checked on the raw JSON text before
// tinygltf parses it (tinygltf allocates as the file declares: buffers by byteLength, one object per array
// entry, and recurses into nested "extras"). A SAX pass over the text allocates nothing per entry and stops at
// the first entry over a limit, so a file with a million animations is refused after reading 64K of them.
class LimitScan final : public nlohmann::json::json_sax_t {
 public:
  explicit LimitScan(std::string file) : file_(std::move(file)) {}

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t v) override { return number(double(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(double(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(v); }
  bool string(string_t& v) override {
    begin_value();
    if (at({"accessors", "#", "type"})) accessor_components_ = components_of(v);
    return true;
  }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool key(string_t& k) override {
    frames_.back().token = k;
    // Attribute sets beyond the influence limit: JOINTS_n / WEIGHTS_n with n >= kMaxInfluenceSets.
    if (at_container({"meshes", "#", "primitives", "#", "attributes"}) ||
        at_container({"meshes", "#", "primitives", "#", "targets", "#"})) {
      for (const char* prefix : {"JOINTS_", "WEIGHTS_"}) {
        const size_t len = std::strlen(prefix);
        if (k.compare(0, len, prefix) == 0) {
          const std::string digits = k.substr(len);
          if (!digits.empty() && digits.size() < 6 && std::all_of(digits.begin(), digits.end(), ::isdigit) &&
              std::stoul(digits) >= limits::kMaxInfluenceSets)
            fail(pointer(), "influence sets " + std::string(prefix) + "0 to " + std::string(prefix) +
                                std::to_string(limits::kMaxInfluenceSets - 1) + " (" +
                                std::to_string(limits::kMaxInfluenceSets * 4) + " influences per vertex), set count " +
                                limits::limit_text(limits::kMaxInfluenceSets, "kMaxInfluenceSets") + ", got " + k);
        }
      }
    }
    return true;
  }
  bool end_object() override {
    if (at_container({"accessors", "#"})) {
      planned_ += accessor_count_ * accessor_components_ * 8 * 2;  // decoded doubles, and what is derived
      accessor_count_ = 0;
      accessor_components_ = 1;
    }
    return close();
  }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception&) override {
    syntax_error_ = true;  // tinygltf reports syntax errors in its own words
    return false;
  }

  bool syntax_error() const { return syntax_error_; }

  // After the scan: the memory the file plans, from its declared sizes.
  void check_plan() const {
    if (planned_ > double(limits::kMaxPlannedBytes))
      throw InputError(file_, "", "a planned memory use (buffers, plus 16 bytes per decoded accessor component) " +
                                      limits::limit_text(limits::kMaxPlannedBytes, "kMaxPlannedBytes") +
                                      " bytes, got " + std::to_string(uint64_t(planned_)));
  }

 private:
  struct Frame {
    bool array = false;
    size_t count = 0;   // entries begun (arrays)
    std::string token;  // the member being read, or the index of the entry being read
  };

  [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
    throw InputError(file_, path, expected);
  }

  std::string pointer() const {
    std::string p;
    for (const Frame& f : frames_) p += "/" + f.token;
    return p;
  }

  // Whether the innermost open container is the one at `pattern` ("#" matches any array index).
  bool at_container(std::initializer_list<const char*> pattern) const {
    if (frames_.size() != pattern.size() + 1) return false;
    size_t i = 0;
    for (const char* want : pattern) {
      if (std::strcmp(want, "#") == 0 ? !frames_[i].array : frames_[i].token != want) return false;
      ++i;
    }
    return true;
  }
  // Whether the value being read sits at `pattern` (the last token is its own key or index).
  bool at(std::initializer_list<const char*> pattern) const {
    if (frames_.size() != pattern.size()) return false;
    size_t i = 0;
    for (const char* want : pattern) {
      if (std::strcmp(want, "#") == 0 ? !frames_[i].array : frames_[i].token != want) return false;
      ++i;
    }
    return true;
  }

  // Called as a value begins: counts it in its array and checks that array's entry limit.
  void begin_value() {
    if (frames_.empty() || !frames_.back().array) return;
    Frame& top = frames_.back();
    top.token = std::to_string(top.count);
    ++top.count;
    size_t limit = 0;
    const char* name = "";
    const char* what = "";
    // The array's own path, without the entry: frames_[0..size-1] where the last frame's token is the index.
    auto array_at = [&](std::initializer_list<const char*> pattern) {
      if (frames_.size() != pattern.size()) return false;
      size_t i = 0;
      for (const char* want : pattern) {
        if (i + 1 == frames_.size()) return std::strcmp(want, "*") == 0;  // the entry's own slot
        if (std::strcmp(want, "#") == 0 ? !frames_[i].array : frames_[i].token != want) return false;
        ++i;
      }
      return true;
    };
    if (array_at({"nodes", "*"})) limit = limits::kMaxNodes, name = "kMaxNodes", what = "nodes";
    else if (array_at({"animations", "*"})) limit = limits::kMaxAnimations, name = "kMaxAnimations", what = "animations";
    else if (array_at({"animations", "#", "channels", "*"}) || array_at({"animations", "#", "samplers", "*"}))
      limit = limits::kMaxChannelsPerAnimation, name = "kMaxChannelsPerAnimation", what = "entries";
    else if (array_at({"skins", "#", "joints", "*"}))
      limit = limits::kMaxJointsPerSkin, name = "kMaxJointsPerSkin", what = "joints";
    else if (array_at({"nodes", "#", "children", "*"}) || array_at({"scenes", "#", "nodes", "*"}))
      limit = limits::kMaxNodes, name = "kMaxNodes", what = "nodes";
    else if (array_at({"meshes", "#", "primitives", "#", "targets", "*"}) || array_at({"meshes", "#", "weights", "*"}) ||
             array_at({"nodes", "#", "weights", "*"}))
      limit = limits::kMaxMorphTargets, name = "kMaxMorphTargets", what = "morph targets";
    else if (frames_.size() == 2 && frames_[0].token != "nodes" && frames_[0].token != "animations")
      limit = limits::kMaxArrayEntries, name = "kMaxArrayEntries", what = "entries";
    else if (frames_.size() >= 3 && frames_.size() <= 6 && (frames_[0].token == "meshes" || frames_[0].token == "scenes"))
      limit = limits::kMaxArrayEntries, name = "kMaxArrayEntries", what = "entries";
    if (limit != 0 && top.count > limit) {
      frames_.back().token.clear();
      std::string path;
      for (size_t i = 0; i + 1 < frames_.size(); ++i) path += "/" + frames_[i].token;
      fail(path, std::string("a count of ") + what + " " + limits::limit_text(limit, name) + ", got more");
    }
  }
  bool scalar() {
    begin_value();
    return true;
  }
  bool number(double v) {
    begin_value();
    if (at({"buffers", "#", "byteLength"})) {
      if (!(v <= double(limits::kMaxBufferBytes)))
        fail(pointer(), "a buffer byteLength " + limits::limit_text(limits::kMaxBufferBytes, "kMaxBufferBytes") +
                            ", got " + number_text(v));
      if (v > 0) planned_ += v;
    } else if (at({"accessors", "#", "count"})) {
      if (!(v <= double(limits::kMaxAccessorElements)))
        fail(pointer(), "an accessor count " + limits::limit_text(limits::kMaxAccessorElements, "kMaxAccessorElements") +
                            ", got " + number_text(v));
      if (v > 0) accessor_count_ = v;
    }
    return true;
  }
  bool open(bool array) {
    begin_value();
    if (frames_.size() >= limits::kMaxJsonDepth) {
      std::string start;  // the first few tokens locate it; the whole pointer would be 256 tokens long
      for (size_t i = 0; i < 4; ++i) start += "/" + frames_[i].token;
      fail(start + "/...", "JSON arrays and objects nested " +
                               limits::limit_text(limits::kMaxJsonDepth, "kMaxJsonDepth") + " levels deep, got more");
    }
    frames_.push_back(Frame{array, 0, ""});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  static std::string number_text(double v) {
    if (v == std::floor(v) && std::abs(v) < 1e18) return std::to_string(int64_t(v));
    return nlohmann::json(v).dump();
  }

  static double components_of(const std::string& type) {
    if (type == "VEC2") return 2;
    if (type == "VEC3") return 3;
    if (type == "VEC4" || type == "MAT2") return 4;
    if (type == "MAT3") return 9;
    if (type == "MAT4") return 16;
    return 1;
  }

  std::string file_;
  std::vector<Frame> frames_;
  double planned_ = 0;
  double accessor_count_ = 0;
  double accessor_components_ = 1;
  bool syntax_error_ = false;
};

// The JSON text of a .gltf, or of a .glb's first chunk (empty when the container is malformed: tinygltf
// then reports it).
std::string_view gltf_json_text(const std::string& bytes, bool glb) {
  if (!glb) return bytes;
  if (bytes.size() < 20) return {};
  uint32_t length = 0;
  std::memcpy(&length, bytes.data() + 12, 4);
  if (size_t(length) > bytes.size() - 20) return {};
  return std::string_view(bytes).substr(20, length);
}

// tinygltf's image loader, after checking the image's size from its header (stb_image reads only the header
// here) against the image limits: a PNG inside a glTF that declares 100000 x 100000 is refused undecoded.
struct ImageLimitContext {
  std::string file;
};

bool limited_image_loader(tinygltf::Image* image, const int index, std::string* err, std::string* warn, int req_width,
                          int req_height, const unsigned char* bytes, int size, void* user_data) {
  const auto* context = static_cast<const ImageLimitContext*>(user_data);
  int w = 0, h = 0, comp = 0;
  if (size > 0 && stbi_info_from_memory(bytes, size, &w, &h, &comp) != 0) {
    if (size_t(w) > limits::kMaxImageDimension || size_t(h) > limits::kMaxImageDimension ||
        size_t(w) * size_t(h) > limits::kMaxImagePixels)
      throw InputError(context->file, "/images/" + std::to_string(index),
                       "an image of width and height " +
                           limits::limit_text(limits::kMaxImageDimension, "kMaxImageDimension") + " and pixels " +
                           limits::limit_text(limits::kMaxImagePixels, "kMaxImagePixels") + ", got " +
                           std::to_string(w) + "x" + std::to_string(h));
  }
  return tinygltf::LoadImageData(image, index, err, warn, req_width, req_height, bytes, size, nullptr);
}


}  // namespace

bool is_supported_required_extension(const std::string& name) { return name == kQuantization; }

void check_gltf_limits(const std::string& bytes, const std::string& display_name) {
  const std::string_view text = gltf_json_text(bytes, is_glb(bytes));
  if (text.empty()) return;
  LimitScan scan(display_name);
  nlohmann::json::sax_parse(text.begin(), text.end(), &scan, nlohmann::json::input_format_t::json, false);
  if (!scan.syntax_error()) scan.check_plan();
}

Scene load_gltf_memory(const std::string& bytes, const std::string& display_name, const std::string& base_dir,
                       const LoadConventions& reading) {
  if (bytes.size() > std::numeric_limits<unsigned int>::max())
    throw InputError(display_name, "", "a glTF file smaller than 4 GiB");
  const bool glb = is_glb(bytes);
  check_gltf_limits(bytes, display_name);
  tinygltf::TinyGLTF parser;
  ImageLimitContext image_context{display_name};
  parser.SetImageLoader(limited_image_loader, &image_context);
  tinygltf::Model model;
  std::string err, warn;
  const bool ok = glb
                      ? parser.LoadBinaryFromMemory(&model, &err, &warn,
                                                    reinterpret_cast<const unsigned char*>(bytes.data()),
                                                    unsigned(bytes.size()), base_dir)
                      : parser.LoadASCIIFromString(&model, &err, &warn, bytes.data(), unsigned(bytes.size()), base_dir);
  if (!ok) {
    // tinygltf's messages can span lines; keep the error on one line.
    std::string msg = err.empty() ? "a glTF 2.0 file that tinygltf can parse" : "a valid glTF 2.0 file: " + err;
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    while (!msg.empty() && msg.back() == ' ') msg.pop_back();
    throw InputError(display_name, "", msg);
  }
  return GltfReader(model, display_name, reading).read();
}

Scene load_gltf_file(const std::string& path, const LoadConventions& reading) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable glTF (.gltf or .glb) file");
  std::string bytes = read_stream_bytes(in);
  if (in.bad()) throw InputError(path, "", "a readable glTF (.gltf or .glb) file");
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return load_gltf_memory(bytes, path, base_dir, reading);
}

}  // namespace skinref

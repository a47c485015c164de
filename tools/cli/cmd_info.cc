// `skinref info MODEL [--json]`: what a model contains (scene roots, nodes, meshes and primitives, skins,
// animations, materials, images), as human-readable text or as JSON.
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/option_groups.h"

#include "io/load_model.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <iostream>
#include <set>
#include <type_traits>

namespace skinref::cli {
namespace {

const char* topology_name(Topology topology) {
  switch (topology) {
    case Topology::Points: return "points";
    case Topology::Lines: return "lines";
    case Topology::Triangles: return "triangles";
  }
  return "unknown";
}

std::vector<std::string> attribute_names(const Primitive& primitive) {
  std::vector<std::string> names{"POSITION"};
  if (!primitive.normals.empty()) names.emplace_back("NORMAL");
  if (!primitive.tangents.empty()) names.emplace_back("TANGENT");
  if (!primitive.texcoords0.empty()) names.emplace_back("TEXCOORD_0");
  const int sets = primitive.influences_per_vertex / 4;
  for (int set = 0; set < sets; ++set) names.push_back("JOINTS_" + std::to_string(set));
  for (int set = 0; set < sets; ++set) names.push_back("WEIGHTS_" + std::to_string(set));
  return names;
}

// Interpolations and paths used by an animation, in enum order (sets of enums sort by value).
std::vector<std::string> interpolations_used(const Animation& animation) {
  std::set<Interpolation> used;
  for (const AnimationSampler& sampler : animation.samplers) used.insert(sampler.interpolation);
  std::vector<std::string> names;
  for (Interpolation interpolation : used) names.emplace_back(interpolation_name(interpolation));
  return names;
}

std::vector<std::string> paths_used(const Animation& animation) {
  std::set<ChannelPath> used;
  for (const AnimationChannel& channel : animation.channels) used.insert(channel.path);
  std::vector<std::string> names;
  for (ChannelPath path : used) names.emplace_back(channel_path_name(path));
  return names;
}

// ---- JSON ----------------------------------------------------------------------------------------------

// ordered_json keeps the keys in the order written here, which reads better than alphabetical.
using InfoJson = nlohmann::ordered_json;

InfoJson nodes_json(const Scene& scene) {
  InfoJson nodes = InfoJson::array();
  for (size_t i = 0; i < scene.nodes.size(); ++i) {
    const Node& node = scene.nodes[i];
    nodes.push_back({{"index", i},
                     {"name", node.name},
                     {"parent", node.parent},
                     {"children", node.children},
                     {"mesh", node.mesh},
                     {"skin", node.skin},
                     {"camera", node.camera},
                     {"had_matrix", node.had_matrix},
                     {"in_active_scene", node.in_active_scene}});
  }
  return nodes;
}

InfoJson meshes_json(const Scene& scene) {
  InfoJson meshes = InfoJson::array();
  for (size_t m = 0; m < scene.meshes.size(); ++m) {
    const Mesh& mesh = scene.meshes[m];
    InfoJson primitives = InfoJson::array();
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& primitive = mesh.primitives[p];
      primitives.push_back({{"index", p},
                            {"topology", topology_name(primitive.topology)},
                            {"vertex_count", primitive.vertex_count()},
                            {"indexed", primitive.indexed},
                            {"index_count", primitive.indices.size()},
                            {"attributes", attribute_names(primitive)},
                            {"influence_sets", primitive.influences_per_vertex / 4},
                            {"morph_target_count", primitive.targets.size()},
                            {"material", primitive.material}});
    }
    meshes.push_back({{"index", m},
                      {"name", mesh.name},
                      {"primitives", primitives},
                      {"default_weights", mesh.default_weights}});
  }
  return meshes;
}

InfoJson skins_json(const Scene& scene) {
  InfoJson skins = InfoJson::array();
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const Skin& skin = scene.skins[s];
    skins.push_back({{"index", s},
                     {"name", skin.name},
                     {"joint_count", skin.joints.size()},
                     {"joints", skin.joints},
                     {"skeleton", skin.skeleton}});
  }
  return skins;
}

InfoJson animations_json(const Scene& scene) {
  InfoJson animations = InfoJson::array();
  for (size_t a = 0; a < scene.animations.size(); ++a) {
    const Animation& animation = scene.animations[a];
    animations.push_back({{"index", a},
                          {"name", animation.name},
                          {"start_time", animation.start_time},
                          {"end_time", animation.end_time},
                          {"duration", animation.end_time},
                          {"channel_count", animation.channels.size()},
                          {"sampler_count", animation.samplers.size()},
                          {"interpolations", interpolations_used(animation)},
                          {"paths", paths_used(animation)}});
  }
  return animations;
}

InfoJson materials_json(const Scene& scene) {
  InfoJson materials = InfoJson::array();
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& material = scene.materials[i];
    const Vec4& factor = material.base_color_factor;
    materials.push_back({{"index", i},
                         {"name", material.name},
                         {"base_color_factor", {factor[0], factor[1], factor[2], factor[3]}},
                         {"base_color_texture", material.base_color_texture},
                         {"double_sided", material.double_sided}});
  }
  return materials;
}

InfoJson images_json(const Scene& scene) {
  InfoJson images = InfoJson::array();
  for (size_t i = 0; i < scene.images.size(); ++i) {
    const Image& image = scene.images[i];
    images.push_back({{"index", i}, {"name", image.name}, {"width", image.width}, {"height", image.height}});
  }
  return images;
}

InfoJson info_json(const Scene& scene) {
  InfoJson info;
  info["source"] = scene.source;
  if (!scene.import_facts.empty()) {
    InfoJson imported = InfoJson::object();
    for (const auto& [key, value] : scene.import_facts) imported[key] = value;
    info["import"] = imported;
  }
  info["roots"] = scene.roots;
  info["node_count"] = scene.nodes.size();
  info["nodes"] = nodes_json(scene);
  info["meshes"] = meshes_json(scene);
  info["skins"] = skins_json(scene);
  info["animations"] = animations_json(scene);
  info["materials"] = materials_json(scene);
  info["images"] = images_json(scene);
  info["texture_count"] = scene.textures.size();
  info["camera_count"] = scene.cameras.size();
  return info;
}

// ---- text ----------------------------------------------------------------------------------------------

// Shortest text that reads back as the same double.
std::string number_text(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

// Names go on one line between quotes: control characters would break the layout.
std::string name_text(const std::string& name) {
  std::string text = "\"";
  for (char c : name) text.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  return text + "\"";
}

template <typename Item>
std::string joined(const std::vector<Item>& items, const char* separator) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i != 0) text += separator;
    if constexpr (std::is_same_v<Item, std::string>) {
      text += items[i];
    } else {
      text += std::to_string(items[i]);
    }
  }
  return text;
}

void print_text(const Scene& scene, std::ostream& out) {
  out << "source: " << scene.source << "\n";
  for (const auto& [key, value] : scene.import_facts) out << "import: " << key << ": " << value << "\n";
  out << "active scene roots: [" << joined(scene.roots, ", ") << "]\n";

  out << "nodes: " << scene.nodes.size() << "\n";
  for (size_t i = 0; i < scene.nodes.size(); ++i) {
    const Node& node = scene.nodes[i];
    out << "  node " << i << " " << name_text(node.name) << ": parent " << node.parent;
    if (node.mesh >= 0) out << ", mesh " << node.mesh;
    if (node.skin >= 0) out << ", skin " << node.skin;
    if (node.camera >= 0) out << ", camera " << node.camera;
    if (!node.in_active_scene) out << ", not in the active scene";
    out << "\n";
  }

  out << "meshes: " << scene.meshes.size() << "\n";
  for (size_t m = 0; m < scene.meshes.size(); ++m) {
    const Mesh& mesh = scene.meshes[m];
    out << "  mesh " << m << " " << name_text(mesh.name) << ": " << mesh.primitives.size() << " primitives\n";
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& primitive = mesh.primitives[p];
      out << "    primitive " << p << ": " << topology_name(primitive.topology) << ", "
          << primitive.vertex_count() << " vertices, " << (primitive.indexed ? "indexed" : "not indexed") << " ("
          << primitive.indices.size() << " indices), attributes " << joined(attribute_names(primitive), " ")
          << ", " << primitive.influences_per_vertex / 4 << " influence sets, " << primitive.targets.size()
          << " morph targets, material " << primitive.material << "\n";
    }
  }

  out << "skins: " << scene.skins.size() << "\n";
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const Skin& skin = scene.skins[s];
    out << "  skin " << s << " " << name_text(skin.name) << ": " << skin.joints.size() << " joints ["
        << joined(skin.joints, ", ") << "], skeleton " << skin.skeleton << "\n";
  }

  out << "animations: " << scene.animations.size() << "\n";
  for (size_t a = 0; a < scene.animations.size(); ++a) {
    const Animation& animation = scene.animations[a];
    out << "  animation " << a << " " << name_text(animation.name) << ": keys from "
        << number_text(animation.start_time) << " s to " << number_text(animation.end_time)
        << " s (duration " << number_text(animation.end_time) << " s), " << animation.channels.size()
        << " channels, " << animation.samplers.size() << " samplers, interpolations "
        << joined(interpolations_used(animation), " ") << ", paths " << joined(paths_used(animation), " ")
        << "\n";
  }

  out << "materials: " << scene.materials.size() << "\n";
  for (size_t i = 0; i < scene.materials.size(); ++i) {
    const Material& material = scene.materials[i];
    const Vec4& factor = material.base_color_factor;
    out << "  material " << i << " " << name_text(material.name) << ": base color (" << number_text(factor[0])
        << ", " << number_text(factor[1]) << ", " << number_text(factor[2]) << ", " << number_text(factor[3])
        << "), texture " << material.base_color_texture << (material.double_sided ? ", double-sided" : "")
        << "\n";
  }

  out << "images: " << scene.images.size() << "\n";
  for (size_t i = 0; i < scene.images.size(); ++i) {
    const Image& image = scene.images[i];
    out << "  image " << i << " " << name_text(image.name) << ": " << image.width << " x " << image.height
        << "\n";
  }
  out << "textures: " << scene.textures.size() << "\n";
  out << "cameras: " << scene.cameras.size() << "\n";
}

int run_info(const ParsedArgs& parsed) {
  require_positionals(parsed, 1, "MODEL", "info");
  const Scene scene = load_model(parsed.positionals[0], {}, parse_import_options(parsed));
  if (parsed.has_flag("--json")) {
    std::cout << info_json(scene).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  } else {
    print_text(scene, std::cout);
  }
  std::cout.flush();
  if (!std::cout) throw std::runtime_error("info: writing to standard output failed");
  return kExitOk;
}

}  // namespace

CommandDecl info_command() {
  return {"info",
          "describe a model's scenes, nodes, meshes, skins and animations",
          {"MODEL [--json] [OPTIONS]"},
          "Describes MODEL (a .gltf/.glb path, an FBX, Collada or other file Assimp reads, or builtin:NAME): scene "
          "roots, nodes, meshes and primitives (vertex counts, attributes, influence sets, morph targets), skins, "
          "animations, materials, images; for a file that is not glTF, how it was imported (format, the file's unit "
          "and axes, the scale and axes applied).",
          joined({{"--json", "", "Print JSON instead of text."}}, {import_options()}),
          run_info};
}

}  // namespace skinref::cli

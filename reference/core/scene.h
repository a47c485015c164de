// The project's own scene representation: what the glTF loader and the built-in scene generators produce,
// and what every later stage reads. Plain data in double precision; no tinygltf types leak past the loader.
//
// Contract:
// - Indices (node, mesh, skin, material, texture, image, sampler) index the vectors of this Scene; -1 means
//   "none". Every index stored here was validated by whoever built the Scene (see validate_scene()).
// - `node_order` lists every node exactly once, each parent before its children (computed from the file,
//   whatever the node order there). Nodes outside the active scene are still ordered and posed; only those
//   with `in_active_scene` are drawn or dumped.
// - Units are glTF's: metres, radians, seconds. Vertex data are in the mesh's own space (bind space).
// - Skin influences are flattened: a primitive with k influence sets (JOINTS_0..k-1 / WEIGHTS_0..k-1) has
//   `influences_per_vertex == 4 * k`, and vertex v's i-th influence is joints[v * ipv + i] (an index into the
//   skin's `joints`, not a node index) with weight weights[v * ipv + i], exactly as stored (normalized
//   integers already converted to [0, 1]).
#pragma once

#include "core/math_types.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace skinref {

struct Node {
  std::string name;
  int parent = -1;
  std::vector<int> children;
  Transform rest;            // the node's own TRS (a glTF `matrix` is decomposed into it)
  bool had_matrix = false;   // the file gave `matrix` rather than TRS
  int mesh = -1;
  int skin = -1;
  int camera = -1;
  std::vector<double> morph_weights;  // node.weights; empty: the mesh's defaults apply
  bool in_active_scene = false;
};

enum class Topology { Points, Lines, Triangles };

struct MorphTarget {
  std::vector<Vec3> position_deltas;  // empty or vertex_count long
  std::vector<Vec3> normal_deltas;
  std::vector<Vec3> tangent_deltas;
};

struct Primitive {
  Topology topology = Topology::Triangles;
  bool indexed = false;            // the file had `indices` (otherwise `indices` is 0..n-1)
  std::vector<uint32_t> indices;   // triangle list for Triangles (strips and fans are expanded)
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;       // empty or vertex_count long
  std::vector<Vec4> tangents;      // xyz + handedness w; empty or vertex_count long
  std::vector<Vec2> texcoords0;    // empty or vertex_count long
  // TEXCOORD_n (n >= 1), COLOR_n and application-specific _NAME attributes as read (normalized integers as
  // their values in [0, 1] or [-1, 1]), each vertex_count long, the components an accessor lacks as (0, 0, 0,
  // 1); for user vertex shaders that read them (gpu/vertex_interface.h). Skinning ignores them.
  std::map<std::string, std::vector<Vec4>> other_attributes;
  int influences_per_vertex = 0;   // 4 x the number of JOINTS_n/WEIGHTS_n sets
  std::vector<uint32_t> joints;    // vertex_count * influences_per_vertex
  std::vector<double> weights;     // vertex_count * influences_per_vertex
  // How each influence set's WEIGHTS were stored: 0 for float, 255 or 65535 for normalized unsigned bytes or
  // shorts (the weights above are already c / max). Empty: float throughout (built-in and imported scenes).
  std::vector<uint32_t> weight_set_max;
  std::vector<MorphTarget> targets;
  int material = -1;

  size_t vertex_count() const { return positions.size(); }
};

struct Mesh {
  std::string name;
  std::vector<Primitive> primitives;
  std::vector<double> default_weights;  // mesh.weights; empty means zeros
};

struct Skin {
  std::string name;
  std::vector<int> joints;              // node indices
  std::vector<Mat4> inverse_bind;       // one per joint (identity when the file gave none)
  int skeleton = -1;
};

enum class Interpolation { Step, Linear, CubicSpline };
enum class ChannelPath { Translation, Rotation, Scale, Weights };

struct AnimationSampler {
  Interpolation interpolation = Interpolation::Linear;
  std::vector<double> times;     // strictly increasing, >= 0
  // Flattened outputs: times.size() keys (x3 for CUBICSPLINE: in-tangent, value, out-tangent), each of
  // `components` doubles. Rotations are (x, y, z, w).
  std::vector<double> values;
  int components = 0;
  // Where the outputs were stored as normalized integers (rotations, morph weights): the largest integer
  // (127, 255, 32767 or 65535) and whether it is signed; max 0 for float outputs.
  struct NormalizedOutput {
    uint32_t max = 0;
    bool is_signed = false;
  } normalized_output;

  // Derived by finalize_scene() for LINEAR samplers that rotation channels use, so that sampling does not
  // repeat per-interval work: the keys normalized (4 per key), and per interval k the sign (+1 or -1) that
  // puts key k+1 in key k's hemisphere, the angle theta_k between them, and sin and cos of theta_k.
  struct SlerpIntervals {
    std::vector<double> unit_keys;
    std::vector<double> sign, angle, sin_angle, cos_angle;
  } slerp;
};

struct AnimationChannel {
  int sampler = -1;
  int node = -1;
  ChannelPath path = ChannelPath::Translation;
};

struct Animation {
  std::string name;
  std::vector<AnimationSampler> samplers;
  std::vector<AnimationChannel> channels;
  double start_time = 0.0;  // earliest key time over all samplers
  double end_time = 0.0;    // latest key time over all samplers (the duration; the timeline starts at 0)
};

enum class WrapMode { Repeat, ClampToEdge, MirroredRepeat };
enum class Filter { Nearest, Linear };

struct Image {
  std::string name;
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgba8;  // width * height * 4, as stored (sRGB-encoded for base colour)
};

struct TextureSampler {
  Filter mag_filter = Filter::Linear;
  Filter min_filter = Filter::Linear;
  WrapMode wrap_s = WrapMode::Repeat;
  WrapMode wrap_t = WrapMode::Repeat;
};

struct Texture {
  int image = -1;
  TextureSampler sampler;
};

struct Material {
  std::string name;
  Vec4 base_color_factor = Vec4::Ones();
  int base_color_texture = -1;  // index into Scene::textures
  int base_color_texcoord = 0;
  bool double_sided = false;
};

struct Camera {
  std::string name;
  bool perspective = true;
  double yfov = 0.0;          // perspective
  double aspect_ratio = 0.0;  // 0: unspecified
  double xmag = 0.0, ymag = 0.0;  // orthographic
  double znear = 0.0;
  double zfar = 0.0;          // 0: infinite (perspective only)
};

struct Scene {
  std::string source;                 // file path or builtin:NAME, used in messages
  std::vector<Node> nodes;
  std::vector<int> node_order;        // parent before child, every node once
  std::vector<int> roots;             // roots of the active scene
  int active_scene = 0;               // its index in the file's `scenes` (-1: the file has none)
  std::vector<Mesh> meshes;
  std::vector<Skin> skins;
  std::vector<Animation> animations;
  std::vector<Material> materials;
  std::vector<Texture> textures;
  std::vector<Image> images;
  std::vector<Camera> cameras;
  // How a file that is not glTF was imported (io/assimp_import.h): ("format", "FBX"), ("unit", ...), ...,
  // in order, for `info`; empty for glTF and built-in scenes.
  std::vector<std::pair<std::string, std::string>> import_facts;
};

// glTF's spelling: "STEP", "LINEAR", "CUBICSPLINE"; "translation", "rotation", "scale", "weights".
const char* interpolation_name(Interpolation interpolation);
const char* channel_path_name(ChannelPath path);

// Recomputes parents, `node_order` and `in_active_scene` from children lists and `roots`, and checks
// every index and count of an in-memory Scene (built-ins and tests construct Scenes by hand). Throws
// InputError naming `scene.source` and the offending element (same paths as the glTF spelling).
void finalize_scene(Scene& scene);

// Nodes with a mesh in the active scene, in drawing order: a depth-first walk of the roots, children in file
// order. evaluate_vertices() and every backend list primitives in this order.
std::vector<int> drawn_nodes(const Scene& scene);

}  // namespace skinref

// finalize_scene(): the checks that relate one part of a Scene to another (hierarchy, skins, influences,
// morph counts, animation layouts), shared by the glTF loader and the hand-built scenes. Scene indices
// equal glTF indices, so the JSON paths here point into the file a Scene came from.
#include "core/input_error.h"
#include "core/limits.h"
#include "core/scene.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace skinref {
namespace {


class SceneChecker {
 public:
  explicit SceneChecker(Scene& scene) : s_(scene) {}

  void run() {
    check_node_references();
    build_hierarchy();
    check_meshes();
    check_skins();
    check_skinned_nodes();
    check_animations();
    derive_slerp_intervals();
    check_materials();
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
    throw InputError(s_.source, path, expected);
  }
  void check_index(int index, size_t size, const std::string& path, const char* what, bool optional) const {
    if (optional && index == -1) return;
    if (index < 0 || size_t(index) >= size)
      fail(path, std::string("a ") + what + " index < " + std::to_string(size) + ", got " + std::to_string(index));
  }
  // Where root r came from: the active scene's node list (or, without scenes, the parentless nodes).
  std::string roots_path(size_t r) const {
    return s_.active_scene < 0 ? "/nodes/" + std::to_string(s_.roots[r])
                               : "/scenes/" + std::to_string(s_.active_scene) + "/nodes/" + std::to_string(r);
  }
  size_t target_count(int mesh) const {
    return s_.meshes[mesh].primitives.empty() ? 0 : s_.meshes[mesh].primitives[0].targets.size();
  }

  void check_node_references() {
    for (size_t n = 0; n < s_.nodes.size(); ++n) {
      const Node& node = s_.nodes[n];
      const std::string path = "/nodes/" + std::to_string(n);
      check_index(node.mesh, s_.meshes.size(), path + "/mesh", "mesh", true);
      check_index(node.skin, s_.skins.size(), path + "/skin", "skin", true);
      check_index(node.camera, s_.cameras.size(), path + "/camera", "camera", true);
      if (node.skin != -1 && node.mesh == -1) fail(path + "/skin", "a skin only on a node with a mesh");
      if (node.mesh != -1 && !node.morph_weights.empty() && node.morph_weights.size() != target_count(node.mesh))
        fail(path + "/weights", std::to_string(target_count(node.mesh)) + " weights (the morph target count of mesh " +
                                    std::to_string(node.mesh) + "), got " + std::to_string(node.morph_weights.size()));
      for (size_t c = 0; c < node.children.size(); ++c)
        check_index(node.children[c], s_.nodes.size(), path + "/children/" + std::to_string(c), "node", false);
    }
    for (size_t r = 0; r < s_.roots.size(); ++r)
      check_index(s_.roots[r], s_.nodes.size(), roots_path(r), "node", false);
  }

  // Parents from children lists, then a parent-before-child order by an explicit-stack depth-first walk
  // from every parentless node (no recursion: chains may be thousands of nodes deep).
  void build_hierarchy() {
    const size_t count = s_.nodes.size();
    for (Node& node : s_.nodes) node.parent = -1;
    for (size_t n = 0; n < count; ++n) {
      const auto& children = s_.nodes[n].children;
      for (size_t c = 0; c < children.size(); ++c) {
        Node& child = s_.nodes[children[c]];
        if (child.parent != -1)
          fail("/nodes/" + std::to_string(n) + "/children/" + std::to_string(c),
               "a node with a single parent; node " + std::to_string(children[c]) + " is already a child of node " +
                   std::to_string(child.parent));
        child.parent = int(n);
      }
    }
    s_.node_order.clear();
    std::vector<char> visited(count, 0);
    std::vector<int> stack;
    for (size_t n = 0; n < count; ++n) {
      if (s_.nodes[n].parent != -1) continue;
      stack.push_back(int(n));
      while (!stack.empty()) {
        const int at = stack.back();
        stack.pop_back();
        visited[at] = 1;
        s_.node_order.push_back(at);
        const auto& children = s_.nodes[at].children;
        for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
      }
    }
    if (s_.node_order.size() != count) {
      // Unreached nodes hang off a cycle: follow parents from one until a node repeats; report the
      // smallest index on that cycle so the message does not depend on where the walk started.
      size_t start = 0;
      while (visited[start]) ++start;
      std::vector<char> seen(count, 0);
      int at = int(start);
      while (!seen[at]) {
        seen[at] = 1;
        at = s_.nodes[at].parent;
      }
      int smallest = at;
      for (int walk = s_.nodes[at].parent; walk != at; walk = s_.nodes[walk].parent) smallest = std::min(smallest, walk);
      fail("/nodes/" + std::to_string(smallest) + "/children",
           "an acyclic node hierarchy; node " + std::to_string(smallest) + " is its own ancestor");
    }
    // The hierarchy's depth (root = 1), parents first in node_order: every walk over it is iterative, and
    // the stated limit also bounds whatever walks it elsewhere (exporters, engines reading the dumps).
    std::vector<size_t> depth(count, 0);
    for (const int n : s_.node_order) {
      const int parent = s_.nodes[size_t(n)].parent;
      depth[size_t(n)] = parent < 0 ? 1 : depth[size_t(parent)] + 1;
      if (depth[size_t(n)] > limits::kMaxHierarchyDepth)
        fail("/nodes/" + std::to_string(parent) + "/children",
             "a node hierarchy depth " + limits::limit_text(limits::kMaxHierarchyDepth, "kMaxHierarchyDepth") +
                 "; node " + std::to_string(n) + " is at depth " + std::to_string(depth[size_t(n)]));
    }
    for (Node& node : s_.nodes) node.in_active_scene = false;
    for (size_t r = 0; r < s_.roots.size(); ++r) {
      const int root = s_.roots[r];
      if (s_.nodes[root].parent != -1)
        fail(roots_path(r), "root nodes only; node " + std::to_string(root) + " is a child of node " +
                                              std::to_string(s_.nodes[root].parent));
      stack.push_back(root);
      while (!stack.empty()) {
        const int at = stack.back();
        stack.pop_back();
        s_.nodes[at].in_active_scene = true;
        for (int c : s_.nodes[at].children) stack.push_back(c);
      }
    }
  }

  void check_meshes() {
    for (size_t m = 0; m < s_.meshes.size(); ++m) {
      const Mesh& mesh = s_.meshes[m];
      const std::string path = "/meshes/" + std::to_string(m);
      if (mesh.primitives.empty()) fail(path + "/primitives", "at least one primitive");
      const size_t targets = mesh.primitives[0].targets.size();
      if (!mesh.default_weights.empty() && mesh.default_weights.size() != targets)
        fail(path + "/weights", std::to_string(targets) + " weights (the morph target count), got " + std::to_string(mesh.default_weights.size()));
      for (size_t p = 0; p < mesh.primitives.size(); ++p) {
        const Primitive& prim = mesh.primitives[p];
        const std::string ppath = path + "/primitives/" + std::to_string(p);
        const size_t n = prim.positions.size();
        if (n == 0) fail(ppath + "/attributes", "a POSITION attribute with at least one vertex");
        if (prim.targets.size() != targets)
          fail(ppath + "/targets", std::to_string(targets) + " morph targets like primitive 0, got " + std::to_string(prim.targets.size()));
        auto sized = [&](size_t size, const char* name) {
          if (size != 0 && size != n) fail(ppath + "/attributes/" + name, "count " + std::to_string(n) + " (POSITION's), got " + std::to_string(size));
        };
        sized(prim.normals.size(), "NORMAL");
        sized(prim.tangents.size(), "TANGENT");
        sized(prim.texcoords0.size(), "TEXCOORD_0");
        if (prim.influences_per_vertex < 0 || prim.influences_per_vertex % 4 != 0)
          fail(ppath + "/attributes", "whole JOINTS_n/WEIGHTS_n sets of 4 influences");
        const size_t influences = n * size_t(prim.influences_per_vertex);
        if (prim.joints.size() != influences || prim.weights.size() != influences)
          fail(ppath + "/attributes/JOINTS_0", "vertex count x influences per vertex joints and weights");
        if (!prim.weight_set_max.empty() && prim.weight_set_max.size() * 4 != size_t(prim.influences_per_vertex))
          fail(ppath + "/attributes/WEIGHTS_0", "one stored weight type per influence set");
        for (uint32_t index : prim.indices)
          if (index >= n) fail(ppath + "/indices", "vertex indices < the vertex count " + std::to_string(n));
        if (prim.topology == Topology::Triangles && prim.indices.size() % 3 != 0)
          fail(ppath + "/indices", "a multiple of 3 indices for triangles");
        for (size_t t = 0; t < prim.targets.size(); ++t) {
          const MorphTarget& target = prim.targets[t];
          const std::string tpath = ppath + "/targets/" + std::to_string(t) + "/";
          if (target.position_deltas.size() > 0 && target.position_deltas.size() != n) fail(tpath + "POSITION", "count " + std::to_string(n));
          if (target.normal_deltas.size() > 0 && target.normal_deltas.size() != n) fail(tpath + "NORMAL", "count " + std::to_string(n));
          if (target.tangent_deltas.size() > 0 && target.tangent_deltas.size() != n) fail(tpath + "TANGENT", "count " + std::to_string(n));
        }
        check_index(prim.material, s_.materials.size(), ppath + "/material", "material", true);
      }
    }
  }

  void check_skins() {
    for (size_t s = 0; s < s_.skins.size(); ++s) {
      const Skin& skin = s_.skins[s];
      const std::string path = "/skins/" + std::to_string(s);
      if (skin.joints.empty()) fail(path + "/joints", "at least one joint");
      for (size_t j = 0; j < skin.joints.size(); ++j)
        check_index(skin.joints[j], s_.nodes.size(), path + "/joints/" + std::to_string(j), "node", false);
      if (skin.inverse_bind.size() < skin.joints.size())
        fail(path + "/inverseBindMatrices", "at least " + std::to_string(skin.joints.size()) + " matrices (one per joint), got " +
                                                std::to_string(skin.inverse_bind.size()));
      for (const Mat4& m : skin.inverse_bind)
        if (!m.allFinite()) fail(path + "/inverseBindMatrices", "finite matrices");
      check_index(skin.skeleton, s_.nodes.size(), path + "/skeleton", "node", true);
    }
  }

  void check_skinned_nodes() {
    for (size_t n = 0; n < s_.nodes.size(); ++n) {
      const Node& node = s_.nodes[n];
      if (node.skin == -1) continue;
      const size_t joint_count = s_.skins[node.skin].joints.size();
      const Mesh& mesh = s_.meshes[node.mesh];
      for (size_t p = 0; p < mesh.primitives.size(); ++p) {
        const Primitive& prim = mesh.primitives[p];
        const std::string ppath = "/meshes/" + std::to_string(node.mesh) + "/primitives/" + std::to_string(p);
        if (prim.influences_per_vertex == 0)
          fail(ppath + "/attributes", "JOINTS_0 and WEIGHTS_0, since node " + std::to_string(n) + " skins this mesh with skin " +
                                          std::to_string(node.skin));
        const size_t ipv = size_t(prim.influences_per_vertex);
        for (size_t i = 0; i < prim.joints.size(); ++i) {
          if (prim.joints[i] >= joint_count)
            fail(ppath + "/attributes/JOINTS_" + std::to_string((i % ipv) / 4),
                 "joint indices < " + std::to_string(joint_count) + " (the joint count of skin " + std::to_string(node.skin) +
                     " used by node " + std::to_string(n) + "); vertex " + std::to_string(i / ipv) + " has " + std::to_string(prim.joints[i]));
        }
      }
    }
  }

  void check_animations() {
    for (size_t a = 0; a < s_.animations.size(); ++a) {
      const Animation& anim = s_.animations[a];
      const std::string path = "/animations/" + std::to_string(a);
      for (size_t c = 0; c < anim.channels.size(); ++c) {
        const AnimationChannel& ch = anim.channels[c];
        const std::string cpath = path + "/channels/" + std::to_string(c);
        check_index(ch.sampler, anim.samplers.size(), cpath + "/sampler", "sampler", false);
        check_index(ch.node, s_.nodes.size(), cpath + "/target/node", "node", false);
        const int mesh = s_.nodes[ch.node].mesh;
        const int want = ch.path == ChannelPath::Rotation ? 4
                         : ch.path == ChannelPath::Weights ? (mesh < 0 ? 0 : int(target_count(mesh)))
                                                           : 3;
        if (want == 0) fail(cpath + "/target/path", "\"weights\" only on a node whose mesh has morph targets");
        if (anim.samplers[ch.sampler].components != want)
          fail(path + "/samplers/" + std::to_string(ch.sampler) + "/output",
               std::to_string(want) + " components per key for channel " + std::to_string(c));
      }
      for (size_t si = 0; si < anim.samplers.size(); ++si) {
        const AnimationSampler& s = anim.samplers[si];
        const std::string spath = path + "/samplers/" + std::to_string(si);
        if (s.times.empty()) fail(spath + "/input", "at least one key");
        for (size_t k = 0; k < s.times.size(); ++k)
          if (!(s.times[k] >= 0.0) || (k > 0 && !(s.times[k] > s.times[k - 1])))
            fail(spath + "/input", "strictly increasing key times >= 0");
        const size_t per_key = s.interpolation == Interpolation::CubicSpline ? 3 : 1;
        if (s.components <= 0 || s.values.size() != s.times.size() * per_key * size_t(s.components))
          fail(spath + "/output", "keys x components" + std::string(per_key == 3 ? " x 3" : "") + " values");
      }
    }
  }

  // The derived slerp tables (see AnimationSampler::SlerpIntervals), for LINEAR rotation samplers.
  void derive_slerp_intervals() {
    for (Animation& anim : s_.animations) {
      for (AnimationSampler& s : anim.samplers) s.slerp = {};
      for (const AnimationChannel& ch : anim.channels) {
        AnimationSampler& s = anim.samplers[size_t(ch.sampler)];
        if (ch.path != ChannelPath::Rotation || s.interpolation != Interpolation::Linear || !s.slerp.unit_keys.empty())
          continue;
        const size_t keys = s.times.size();
        s.slerp.unit_keys.resize(keys * 4);
        for (size_t k = 0; k < keys; ++k) {
          const Quat q = quat_from_xyzw(s.values[k * 4], s.values[k * 4 + 1], s.values[k * 4 + 2], s.values[k * 4 + 3]);
          const double length = q.norm();
          if (!(length > 0.0)) fail(sampler_path(anim, s) + "/output", "non-zero rotation keys");
          const auto unit = quat_to_xyzw(Quat(q.coeffs() / length));
          std::copy(unit.begin(), unit.end(), s.slerp.unit_keys.begin() + std::ptrdiff_t(k * 4));
        }
        for (size_t k = 0; k + 1 < keys; ++k) {
          const Eigen::Map<const Eigen::Vector4d> a(&s.slerp.unit_keys[k * 4]);
          const Eigen::Map<const Eigen::Vector4d> b_stored(&s.slerp.unit_keys[(k + 1) * 4]);
          const double sign = a.dot(b_stored) < 0.0 ? -1.0 : 1.0;
          const Eigen::Vector4d b = b_stored * sign;
          // For unit a, b at angle phi: |a - b| = 2 sin(phi/2), |a + b| = 2 cos(phi/2); atan2 of the two stays
          // accurate near 0 and pi (acos(dot) does not), and sin(phi) = |a - b| |a + b| / 2.
          const double chord_minus = (a - b).norm(), chord_plus = (a + b).norm();
          const double angle = 2.0 * std::atan2(chord_minus, chord_plus);
          s.slerp.sign.push_back(sign);
          s.slerp.angle.push_back(angle);
          s.slerp.sin_angle.push_back(0.5 * chord_minus * chord_plus);
          s.slerp.cos_angle.push_back(std::cos(angle));
        }
      }
    }
  }

  std::string sampler_path(const Animation& anim, const AnimationSampler& sampler) const {
    return "/animations/" + std::to_string(size_t(&anim - s_.animations.data())) + "/samplers/" +
           std::to_string(size_t(&sampler - anim.samplers.data()));
  }

  void check_materials() {
    for (size_t m = 0; m < s_.materials.size(); ++m)
      check_index(s_.materials[m].base_color_texture, s_.textures.size(),
                  "/materials/" + std::to_string(m) + "/pbrMetallicRoughness/baseColorTexture/index", "texture", true);
    for (size_t t = 0; t < s_.textures.size(); ++t)
      check_index(s_.textures[t].image, s_.images.size(), "/textures/" + std::to_string(t) + "/source", "image", true);
  }

  Scene& s_;
};

}  // namespace

void finalize_scene(Scene& scene) { SceneChecker(scene).run(); }

const char* interpolation_name(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::Step: return "STEP";
    case Interpolation::Linear: return "LINEAR";
    case Interpolation::CubicSpline: return "CUBICSPLINE";
  }
  return "LINEAR";
}

const char* channel_path_name(ChannelPath path) {
  switch (path) {
    case ChannelPath::Translation: return "translation";
    case ChannelPath::Rotation: return "rotation";
    case ChannelPath::Scale: return "scale";
    case ChannelPath::Weights: return "weights";
  }
  return "translation";
}

std::vector<int> drawn_nodes(const Scene& scene) {
  std::vector<int> nodes;
  std::vector<int> stack(scene.roots.rbegin(), scene.roots.rend());
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (scene.nodes[size_t(n)].mesh >= 0) nodes.push_back(n);
    const auto& children = scene.nodes[size_t(n)].children;
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return nodes;
}

}  // namespace skinref

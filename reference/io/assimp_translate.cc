// Assimp's scene translated into skinref's Scene (assimp_import.h, scene_from_assimp()): nodes, skins, morph
// targets, animations, units and axes, every count and value checked. Runs in load_assimp_file()'s child process
// (assimp_import.cc), and directly where a caller holds an aiScene.
#include "io/assimp_import.h"

#include "core/input_error.h"
#include "core/limits.h"
#include "io/gltf_load.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#ifdef SKINREF_HAVE_ASSIMP
#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif

namespace skinref {
#ifdef SKINREF_HAVE_ASSIMP
namespace {

Mat4 to_mat4(const aiMatrix4x4& m) {
  Mat4 out;
  out << m.a1, m.a2, m.a3, m.a4, m.b1, m.b2, m.b3, m.b4, m.c1, m.c2, m.c3, m.c4, m.d1, m.d2, m.d3, m.d4;
  return out;
}

std::string name_of(const aiString& name) { return std::string(name.C_Str(), name.length); }

// A metadata number of any of the types Assimp's importers store.
std::optional<double> metadata_number(const aiScene& scene, const char* key) {
  if (!scene.mMetaData) return std::nullopt;
  const aiMetadata& meta = *scene.mMetaData;
  for (unsigned i = 0; i < meta.mNumProperties; ++i) {
    if (name_of(meta.mKeys[i]) != key || !meta.mValues[i].mData) continue;
    const void* data = meta.mValues[i].mData;
    switch (meta.mValues[i].mType) {
      case AI_BOOL: return *static_cast<const bool*>(data) ? 1.0 : 0.0;
      case AI_INT32: return double(*static_cast<const int32_t*>(data));
      case AI_UINT64: return double(*static_cast<const uint64_t*>(data));
      case AI_FLOAT: return double(*static_cast<const float*>(data));
      case AI_DOUBLE: return *static_cast<const double*>(data);
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

class Translator {
 public:
  Translator(const aiScene& ai, const std::string& source, const ImportOptions& options)
      : ai_(ai), source_(source), options_(options) {}

  Scene run() {
    scene_.source = source_;
    if (!ai_.mRootNode) fail("", "a scene with a root node");
    if (ai_.mNumMeshes > 0 && !ai_.mMeshes) fail("/meshes", "the meshes Assimp counted");
    const int import_root = add_import_root();
    const int root = add_node(*ai_.mRootNode, import_root, "/nodes/" + name_of(ai_.mRootNode->mName));
    if (import_root < 0) scene_.roots.push_back(root);
    resolve_skins();
    if (ai_.mNumAnimations > limits::kMaxAnimations)
      fail("/animations", "a count of animations " + limits::limit_text(limits::kMaxAnimations, "kMaxAnimations") +
                              ", got " + std::to_string(ai_.mNumAnimations));
    for (unsigned a = 0; a < ai_.mNumAnimations; ++a) add_animation(*ai_.mAnimations[a], a);
    finalize_scene(scene_);
    return std::move(scene_);
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& expected) const {
    throw InputError(source_, where, expected);
  }

  // ---- units and axes --------------------------------------------------------------------------------------
  // The root node that brings the file to metres and +Y up, or -1 when nothing is to be applied.
  int add_import_root() {
    const std::string extension = lowercase_extension(source_);
    const std::string format = extension == ".fbx" ? "FBX" : extension == ".dae" ? "Collada" : extension.substr(1);
    facts_.push_back({"format", format});
    const bool fbx = format == "FBX";
    double scale = 1.0;
    const std::optional<double> unit = metadata_number(ai_, "UnitScaleFactor");
    if (fbx) facts_.push_back({"file unit", unit ? std::to_string(*unit) + " cm" : std::string("not stated (1 cm)")});
    else facts_.push_back({"file unit", "applied by Assimp (Collada <unit>) or metres"});
    switch (options_.scale_mode) {
      case ImportOptions::Mode::Auto: scale = fbx ? 0.01 * unit.value_or(1.0) : 1.0; break;
      case ImportOptions::Mode::None: scale = 1.0; break;
      case ImportOptions::Mode::Given: scale = options_.scale; break;
    }
    if (!(scale > 0.0) || !std::isfinite(scale)) fail("/UnitScaleFactor", "a positive unit scale, got " + std::to_string(scale));

    // Rows: where the file's axes go. glTF: +X right, +Y up, +Z front.
    Mat3 axes = Mat3::Identity();
    std::string axes_text = "as stored";
    // The axis is checked as the double it was read as: a value outside int's range, or NaN, must not reach the
    // conversion (the metadata may be of any type; assimp_scene fuzz target).
    auto axis_of = [&](const char* axis_key, int fallback_axis) {
      const double axis = metadata_number(ai_, axis_key).value_or(fallback_axis);
      if (axis != 0.0 && axis != 1.0 && axis != 2.0) {
        std::ostringstream got;
        got << axis;
        fail(std::string("/") + axis_key, "an axis 0, 1 or 2, got " + got.str());
      }
      return int(axis);
    };
    auto axis_row = [&](const char* axis_key, const char* sign_key, int fallback_axis) {
      const int axis = axis_of(axis_key, fallback_axis);
      const double sign = metadata_number(ai_, sign_key).value_or(1.0) < 0 ? -1.0 : 1.0;
      Vec3 row = Vec3::Zero();
      row[axis] = sign;
      return row;
    };
    if (options_.up_mode == ImportOptions::Mode::Auto && fbx) {
      axes.row(0) = axis_row("CoordAxis", "CoordAxisSign", 0).transpose();
      axes.row(1) = axis_row("UpAxis", "UpAxisSign", 1).transpose();
      axes.row(2) = axis_row("FrontAxis", "FrontAxisSign", 2).transpose();
      if (std::abs(std::abs(axes.determinant()) - 1.0) > 0.5)
        fail("/UpAxis", "three distinct axes in the FBX axis system (CoordAxis, UpAxis, FrontAxis)");
      facts_.push_back({"file axes", "up " + std::string(1, "XYZ"[axis_of("UpAxis", 1)]) +
                                         (metadata_number(ai_, "UpAxisSign").value_or(1.0) < 0 ? " (negative)" : "")});
      axes_text = axes.isIdentity() ? "as stored (already +Y up)" : "converted to +Y up";
    } else if (options_.up_mode == ImportOptions::Mode::Given && options_.up == 'z') {
      axes << 1, 0, 0, 0, 0, 1, 0, -1, 0;  // Z-up right-handed: (x, y, z) -> (x, z, -y)
      axes_text = "Z-up converted to +Y up (--import-up z)";
    } else if (options_.up_mode == ImportOptions::Mode::Auto) {
      axes_text = "applied by Assimp (Collada <up_axis>) or as stored";
    }
    std::ostringstream scale_text;
    scale_text << scale;
    facts_.push_back({"applied scale", scale_text.str()});
    facts_.push_back({"applied axes", axes_text});
    if (scale == 1.0 && axes.isIdentity()) return -1;

    // TRS of the root: a proper rotation and a scale whose sign carries a mirror.
    Node root;
    root.name = "skinref:import";
    Mat3 rotation = axes;
    Vec3 scales = Vec3::Constant(scale);
    if (axes.determinant() < 0) {
      rotation.col(0) = -rotation.col(0);
      scales.x() = -scale;
    }
    root.rest.rotation = Quat(rotation).normalized();
    root.rest.scale = scales;
    scene_.nodes.push_back(root);
    scene_.roots.push_back(int(scene_.nodes.size()) - 1);
    return int(scene_.nodes.size()) - 1;
  }

  // ---- nodes and meshes ------------------------------------------------------------------------------------
  int add_node(const aiNode& ai_node, int parent, const std::string& path) {
    // The stated limits (core/limits.h), before this level recurses into its children.
    if (scene_.nodes.size() >= limits::kMaxNodes)
      fail(path, "a count of nodes " + limits::limit_text(limits::kMaxNodes, "kMaxNodes") + ", got more");
    if (size_t(++depth_) > limits::kMaxHierarchyDepth)
      fail(path, "a node hierarchy depth " + limits::limit_text(limits::kMaxHierarchyDepth, "kMaxHierarchyDepth"));
    const int index = int(scene_.nodes.size());
    Node node;
    node.name = name_of(ai_node.mName);
    if (!decompose_trs(to_mat4(ai_node.mTransformation), &node.rest, tol::kMatrixShear))
      fail(path + "/mTransformation", "a transform without shear (translation, rotation, scale)");
    node.parent = parent;
    scene_.nodes.push_back(node);
    if (parent >= 0) scene_.nodes[size_t(parent)].children.push_back(index);
    if (!node.name.empty()) nodes_by_name_[node.name].push_back(index);
    if (ai_node.mNumMeshes > 0) add_meshes(ai_node, index, path);
    for (unsigned c = 0; c < ai_node.mNumChildren; ++c)
      add_node(*ai_node.mChildren[c], index, path + "/" + name_of(ai_node.mChildren[c]->mName));
    --depth_;
    return index;
  }

  void add_meshes(const aiNode& ai_node, int index, const std::string& path) {
    Mesh skinned, rigid;
    std::vector<const aiMesh*> skinned_sources;
    // Each primitive's default morph weights (its targets' mWeight), per group: a group's mesh takes its own
    // primitives' weights, not those of whichever mesh of the node was read last.
    std::vector<std::vector<double>> skinned_weights, rigid_weights;
    for (unsigned m = 0; m < ai_node.mNumMeshes; ++m) {
      const unsigned mesh_index = ai_node.mMeshes[m];
      if (mesh_index >= ai_.mNumMeshes) fail(path + "/mMeshes/" + std::to_string(m), "a mesh index below " + std::to_string(ai_.mNumMeshes));
      const aiMesh& mesh = *ai_.mMeshes[mesh_index];
      const std::string mesh_path = "/meshes/" + std::to_string(mesh_index);
      if (mesh.mNumBones > 0) {
        skinned.primitives.push_back(primitive_of(mesh, mesh_path));
        skinned_weights.push_back(target_weights_of(mesh));
        skinned_sources.push_back(&mesh);
      } else {
        rigid.primitives.push_back(primitive_of(mesh, mesh_path));
        rigid_weights.push_back(target_weights_of(mesh));
      }
    }
    Node& node = scene_.nodes[size_t(index)];
    if (!skinned.primitives.empty()) {
      skinned.name = node.name;
      fill_default_weights(skinned, skinned_weights);
      node.mesh = int(scene_.meshes.size());
      scene_.meshes.push_back(std::move(skinned));
      pending_skins_.push_back({index, skinned_sources, path});
    }
    if (!rigid.primitives.empty() && skinned_sources.empty()) {  // a rigid node: the meshes are its own
      rigid.name = node.name;
      fill_default_weights(rigid, rigid_weights);
      node.mesh = int(scene_.meshes.size());
      scene_.meshes.push_back(std::move(rigid));
    } else if (!rigid.primitives.empty()) {
      rigid.name = node.name + "$rigid";
      fill_default_weights(rigid, rigid_weights);
      Node holder;
      holder.name = node.name + "$rigid";
      holder.parent = index;
      holder.mesh = int(scene_.meshes.size());
      scene_.meshes.push_back(std::move(rigid));
      const int holder_index = int(scene_.nodes.size());
      scene_.nodes[size_t(index)].children.push_back(holder_index);
      scene_.nodes.push_back(holder);
    }
  }

  static std::vector<double> target_weights_of(const aiMesh& mesh) {
    std::vector<double> weights;
    for (unsigned t = 0; t < mesh.mNumAnimMeshes; ++t) weights.push_back(mesh.mAnimMeshes[t]->mWeight);
    return weights;
  }

  // Default morph weights of the mesh: its primitives' targets' mWeight (weights[p] for primitive p), which
  // glTF holds once per mesh, so every primitive must give the same.
  void fill_default_weights(Mesh& mesh, const std::vector<std::vector<double>>& weights) {
    size_t targets = 0;
    for (const Primitive& p : mesh.primitives) targets = std::max(targets, p.targets.size());
    if (targets == 0) return;
    for (const Primitive& p : mesh.primitives)
      if (p.targets.size() != targets)
        fail("/meshes", "the same number of morph targets in every mesh of a node (" + mesh.name + ")");
    for (const std::vector<double>& w : weights) {
      for (const double weight : w)
        if (!std::isfinite(weight)) fail("/meshes", "finite default morph weights (mWeight) (" + mesh.name + ")");
      if (w != weights.front())
        fail("/meshes", "the same default morph weights (mWeight) in every mesh of a node (" + mesh.name + ")");
    }
    mesh.default_weights = weights.front();
  }

  Primitive primitive_of(const aiMesh& mesh, const std::string& path) {
    Primitive prim;
    const unsigned n = mesh.mNumVertices;
    if (n == 0 || !mesh.mVertices) fail(path + "/mVertices", "vertices");
    if (n > limits::kMaxVerticesPerPrimitive)
      fail(path + "/mNumVertices", "a vertex count " +
                                       limits::limit_text(limits::kMaxVerticesPerPrimitive, "kMaxVerticesPerPrimitive") +
                                       ", got " + std::to_string(n));
    if (mesh.mNumAnimMeshes > limits::kMaxMorphTargets)
      fail(path + "/mNumAnimMeshes", "a count of morph targets " +
                                         limits::limit_text(limits::kMaxMorphTargets, "kMaxMorphTargets") + ", got " +
                                         std::to_string(mesh.mNumAnimMeshes));
    if (mesh.mNumBones > limits::kMaxJointsPerSkin)
      fail(path + "/mNumBones", "a count of joints " + limits::limit_text(limits::kMaxJointsPerSkin, "kMaxJointsPerSkin") +
                                    ", got " + std::to_string(mesh.mNumBones));
    prim.positions.reserve(n);
    for (unsigned v = 0; v < n; ++v) prim.positions.emplace_back(mesh.mVertices[v].x, mesh.mVertices[v].y, mesh.mVertices[v].z);
    if (mesh.mNormals)
      for (unsigned v = 0; v < n; ++v) prim.normals.emplace_back(mesh.mNormals[v].x, mesh.mNormals[v].y, mesh.mNormals[v].z);
    if (mesh.mTangents && mesh.mBitangents && mesh.mNormals)
      for (unsigned v = 0; v < n; ++v) {
        const Vec3 t(mesh.mTangents[v].x, mesh.mTangents[v].y, mesh.mTangents[v].z);
        const Vec3 b(mesh.mBitangents[v].x, mesh.mBitangents[v].y, mesh.mBitangents[v].z);
        const double w = prim.normals[v].cross(t).dot(b) < 0.0 ? -1.0 : 1.0;
        prim.tangents.emplace_back(t.x(), t.y(), t.z(), w);
      }
    if (mesh.mTextureCoords[0])
      for (unsigned v = 0; v < n; ++v) prim.texcoords0.emplace_back(mesh.mTextureCoords[0][v].x, mesh.mTextureCoords[0][v].y);

    // Faces: after Triangulate and SortByPType a mesh holds one kind of primitive.
    const unsigned kind = mesh.mPrimitiveTypes & (aiPrimitiveType_POINT | aiPrimitiveType_LINE | aiPrimitiveType_TRIANGLE | aiPrimitiveType_POLYGON);
    prim.topology = kind == aiPrimitiveType_POINT ? Topology::Points : kind == aiPrimitiveType_LINE ? Topology::Lines : Topology::Triangles;
    const unsigned corners = prim.topology == Topology::Points ? 1 : prim.topology == Topology::Lines ? 2 : 3;
    if (kind != aiPrimitiveType_POINT && kind != aiPrimitiveType_LINE && kind != aiPrimitiveType_TRIANGLE)
      fail(path + "/mPrimitiveTypes", "one kind of primitive per mesh (points, lines or triangles)");
    prim.indexed = true;
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != corners) fail(path + "/mFaces/" + std::to_string(f), std::to_string(corners) + " indices");
      for (unsigned k = 0; k < corners; ++k) {
        if (face.mIndices[k] >= n) fail(path + "/mFaces/" + std::to_string(f), "indices below " + std::to_string(n));
        prim.indices.push_back(face.mIndices[k]);
      }
    }

    // Morph targets: Assimp stores the target's attributes, glTF their differences from the base.
    for (unsigned t = 0; t < mesh.mNumAnimMeshes; ++t) {
      const aiAnimMesh& target = *mesh.mAnimMeshes[t];
      if (target.mNumVertices != n) fail(path + "/mAnimMeshes/" + std::to_string(t), std::to_string(n) + " vertices");
      MorphTarget morph;
      if (target.mVertices)
        for (unsigned v = 0; v < n; ++v)
          morph.position_deltas.emplace_back(double(target.mVertices[v].x) - prim.positions[v].x(),
                                             double(target.mVertices[v].y) - prim.positions[v].y(),
                                             double(target.mVertices[v].z) - prim.positions[v].z());
      if (target.mNormals && !prim.normals.empty())
        for (unsigned v = 0; v < n; ++v)
          morph.normal_deltas.emplace_back(double(target.mNormals[v].x) - prim.normals[v].x(),
                                           double(target.mNormals[v].y) - prim.normals[v].y(),
                                           double(target.mNormals[v].z) - prim.normals[v].z());
      prim.targets.push_back(std::move(morph));
    }

    // Influences from the bones' weight lists, in bone order; joint indices are the mesh's bone indices for
    // now and become skin joint indices in resolve_skins().
    if (mesh.mNumBones > 0) {
      std::vector<std::vector<std::pair<uint32_t, double>>> per_vertex(n);
      for (unsigned b = 0; b < mesh.mNumBones; ++b) {
        const aiBone& bone = *mesh.mBones[b];
        for (unsigned w = 0; w < bone.mNumWeights; ++w) {
          const aiVertexWeight& entry = bone.mWeights[w];
          if (entry.mVertexId >= n)
            fail(path + "/mBones/" + std::to_string(b) + "/mWeights/" + std::to_string(w), "a vertex below " + std::to_string(n));
          if (!std::isfinite(entry.mWeight))
            fail(path + "/mBones/" + std::to_string(b) + "/mWeights/" + std::to_string(w), "a finite weight");
          per_vertex[entry.mVertexId].push_back({b, entry.mWeight});
        }
      }
      size_t most = 1;
      for (const auto& list : per_vertex) most = std::max(most, list.size());
      if (most > 64) fail(path + "/mBones", "at most 64 influences per vertex, got " + std::to_string(most));
      prim.influences_per_vertex = int((most + 3) / 4 * 4);
      prim.joints.assign(size_t(n) * size_t(prim.influences_per_vertex), 0u);
      prim.weights.assign(size_t(n) * size_t(prim.influences_per_vertex), 0.0);
      for (unsigned v = 0; v < n; ++v)
        for (size_t i = 0; i < per_vertex[v].size(); ++i) {
          prim.joints[size_t(v) * size_t(prim.influences_per_vertex) + i] = per_vertex[v][i].first;
          prim.weights[size_t(v) * size_t(prim.influences_per_vertex) + i] = per_vertex[v][i].second;
        }
    }
    return prim;
  }

  int node_named(const std::string& name, const std::string& where) const {
    const auto found = nodes_by_name_.find(name);
    if (found == nodes_by_name_.end()) fail(where, "a node named '" + name + "'");
    if (found->second.size() > 1) fail(where, "one node named '" + name + "', found " + std::to_string(found->second.size()));
    return found->second.front();
  }

  // Skins, once every node exists: joints by bone name, inverse bind matrices from the offsets.
  void resolve_skins() {
    for (const PendingSkin& pending : pending_skins_) {
      Skin skin;
      skin.name = scene_.nodes[size_t(pending.node)].name;
      std::map<std::string, uint32_t> joint_of_bone;
      Mesh& mesh = scene_.meshes[size_t(scene_.nodes[size_t(pending.node)].mesh)];
      for (size_t m = 0; m < pending.meshes.size(); ++m) {
        const aiMesh& ai_mesh = *pending.meshes[m];
        std::vector<uint32_t> remap(ai_mesh.mNumBones);
        for (unsigned b = 0; b < ai_mesh.mNumBones; ++b) {
          const aiBone& bone = *ai_mesh.mBones[b];
          const std::string name = name_of(bone.mName);
          const std::string where = pending.path + "/bones/" + name;
          const Mat4 offset = to_mat4(bone.mOffsetMatrix);
          const auto [it, inserted] = joint_of_bone.emplace(name, uint32_t(skin.joints.size()));
          if (inserted) {
            skin.joints.push_back(node_named(name, where));
            skin.inverse_bind.push_back(offset);
          } else if (!skin.inverse_bind[it->second].isApprox(offset, 1e-6)) {
            fail(where, "one offset matrix per bone; the node's meshes give bone '" + name + "' two");
          }
          remap[b] = it->second;
        }
        for (uint32_t& joint : mesh.primitives[m].joints) joint = remap.empty() ? 0u : remap[joint];
      }
      scene_.nodes[size_t(pending.node)].skin = int(scene_.skins.size());
      scene_.skins.push_back(std::move(skin));
    }
  }

  // ---- animations ------------------------------------------------------------------------------------------
  void add_animation(const aiAnimation& ai_animation, unsigned index) {
    const std::string path = "/animations/" + std::to_string(index);
    if (ai_animation.mNumMorphMeshChannels > 0 || ai_animation.mNumMeshChannels > 0)
      fail(path, "node animation only: morph-target and mesh animation channels are not mapped");
    if (ai_animation.mNumChannels > limits::kMaxChannelsPerAnimation)
      fail(path + "/channels", "a count of channels " +
                                   limits::limit_text(limits::kMaxChannelsPerAnimation, "kMaxChannelsPerAnimation") +
                                   ", got " + std::to_string(ai_animation.mNumChannels));
    const double ticks = ai_animation.mTicksPerSecond > 0.0 ? ai_animation.mTicksPerSecond : 25.0;
    Animation animation;
    animation.name = name_of(ai_animation.mName);
    for (unsigned c = 0; c < ai_animation.mNumChannels; ++c) {
      const aiNodeAnim& channel = *ai_animation.mChannels[c];
      const std::string channel_path = path + "/channels/" + std::to_string(c);
      for (const aiAnimBehaviour state : {channel.mPreState, channel.mPostState})
        if (state == aiAnimBehaviour_LINEAR || state == aiAnimBehaviour_REPEAT)
          fail(channel_path, std::string("pre- and post-states DEFAULT or CONSTANT (clamped, as glTF plays); got ") +
                                 (state == aiAnimBehaviour_LINEAR ? "LINEAR (extrapolation)" : "REPEAT"));
      const int node = node_named(name_of(channel.mNodeName), channel_path + "/mNodeName");
      add_sampler(animation, node, ChannelPath::Translation, channel.mNumPositionKeys, ticks, channel_path + "/mPositionKeys",
                  [&](unsigned k, std::vector<double>& out) {
                    const aiVectorKey& key = channel.mPositionKeys[k];
                    out.insert(out.end(), {key.mValue.x, key.mValue.y, key.mValue.z});
                    return key.mTime;
                  });
      add_sampler(animation, node, ChannelPath::Rotation, channel.mNumRotationKeys, ticks, channel_path + "/mRotationKeys",
                  [&](unsigned k, std::vector<double>& out) {
                    const aiQuatKey& key = channel.mRotationKeys[k];
                    out.insert(out.end(), {key.mValue.x, key.mValue.y, key.mValue.z, key.mValue.w});
                    return key.mTime;
                  });
      add_sampler(animation, node, ChannelPath::Scale, channel.mNumScalingKeys, ticks, channel_path + "/mScalingKeys",
                  [&](unsigned k, std::vector<double>& out) {
                    const aiVectorKey& key = channel.mScalingKeys[k];
                    out.insert(out.end(), {key.mValue.x, key.mValue.y, key.mValue.z});
                    return key.mTime;
                  });
    }
    if (!animation.channels.empty()) scene_.animations.push_back(std::move(animation));
  }

  template <class KeyReader>
  void add_sampler(Animation& animation, int node, ChannelPath target, unsigned count, double ticks,
                   const std::string& path, KeyReader read_key) {
    if (count == 0) return;
    if (count > limits::kMaxKeysPerSampler)
      fail(path, "a key count " + limits::limit_text(limits::kMaxKeysPerSampler, "kMaxKeysPerSampler") + ", got " +
                     std::to_string(count));
    const int components = target == ChannelPath::Rotation ? 4 : 3;
    AnimationSampler sampler;
    sampler.interpolation = Interpolation::Linear;
    sampler.components = components;
    std::vector<double> value;
    for (unsigned k = 0; k < count; ++k) {
      value.clear();
      const double time = read_key(k, value) / ticks;
      if (!std::isfinite(time) || time < 0.0) fail(path + "/" + std::to_string(k), "a finite key time >= 0");
      for (double v : value)
        if (!std::isfinite(v)) fail(path + "/" + std::to_string(k), "finite key values");
      if (!sampler.times.empty() && float(time) <= float(sampler.times.back())) {
        const bool same = std::equal(value.begin(), value.end(), sampler.values.end() - components);
        if (float(time) == float(sampler.times.back()) && same) continue;  // a repeated key
        fail(path + "/" + std::to_string(k), "increasing key times (a jump at one time cannot be played as LINEAR)");
      }
      sampler.times.push_back(time);
      sampler.values.insert(sampler.values.end(), value.begin(), value.end());
    }
    animation.channels.push_back(AnimationChannel{int(animation.samplers.size()), node, target});
    animation.samplers.push_back(std::move(sampler));
  }

  struct PendingSkin {
    int node;
    std::vector<const aiMesh*> meshes;
    std::string path;
  };

 public:
  std::vector<std::pair<std::string, std::string>> facts_;

 private:
  const aiScene& ai_;
  std::string source_;
  const ImportOptions& options_;
  Scene scene_;
  std::map<std::string, std::vector<int>> nodes_by_name_;
  std::vector<PendingSkin> pending_skins_;
  int depth_ = 0;
};

}  // namespace

Scene scene_from_assimp(const aiScene& scene, const std::string& source, const ImportOptions& options) {
  Translator translator(scene, source, options);
  Scene result = translator.run();
  result.import_facts = translator.facts_;
  return result;
}

#else

Scene scene_from_assimp(const aiScene&, const std::string& source, const ImportOptions&) {
  throw InputError(source, "", "a build with Assimp (libassimp-dev) to read this format");
}

#endif

}  // namespace skinref

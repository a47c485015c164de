// Assimp under skinref's conformance suite: an adapter (docs/conformance.md, "The adapter contract";
// docs/engines.md), a small client of Assimp's importer as an application built on Assimp would be.
//
//   skinref_assimp_adapter MODEL ANIMATION TIME OUT.skv      (one query)
//   skinref_assimp_adapter QUERIES.json                      (a batch)
//   skinref_assimp_adapter --version                         (Assimp's version, as the library reports it)
//   skinref conformance run --engine-name Assimp --engine-version 5.2.5 --out out/assimp --jobs 2
//     --query "build/skinref_assimp_adapter {model} {animation} {time} {out}"
//
// The suite runs it a process per query: Assimp 5.2.5 crashes on some cases, and a crash then fails that
// case alone.
//
// For each query it imports the case with Assimp::Importer::ReadFile (no post-processing step, so vertices
// and primitives stay as the file has them) and evaluates what Assimp hands an application, in float32 as
// Assimp stores it:
// - animation: the aiAnimation's channels sampled as Assimp's own viewer does (keys clamped at both ends, lerp
//   for positions and scales, aiQuaternion::Interpolate for rotations; a path without keys is the identity,
//   the importer having filled missing paths with the node's own values), local = T * R * S, global = parent *
//   local; morph weights from aiMeshMorphAnim keys (lerp), else each aiAnimMesh's mWeight;
// - morph targets: base + sum(w_t * (aiAnimMesh_t - base)), the anim meshes holding absolute positions;
// - skinning: each aiBone's weights, its node found by name (aiNode::FindNode), matrix = global(node) *
//   mOffsetMatrix; positions sum(w * M p); normals by the inverse transpose of the blended 3x3, normalized;
// - a mesh without bones: its node's global matrix (normals by its inverse transpose).
// The client itself follows glTF wherever Assimp's data leaves it a choice, so that what the suite finds is
// Assimp's import. Primitives are written in skinref's order (depth first from the scene's roots) with skinref's
// (node, mesh, primitive) indices, found by walking the glTF scene and Assimp's node tree side by side; the dumps
// go through skinref/dump.h. A query that fails is reported on stderr and the others go on.
// Exit status: 0, 1 when a query failed, 2 for bad usage or a file that is not a queries file.
#define SKINREF_DUMP_IMPLEMENTATION
#include "skinref/dump.h"

#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <assimp/version.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Query {
  std::string case_name, model, out;
  unsigned animation = 0;
  double time = 0.0;
};

std::vector<Query> read_queries(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::invalid_argument(path + ": cannot be opened");
  const nlohmann::json document = nlohmann::json::parse(file, nullptr, false);
  if (document.is_discarded() || !document.is_object() || document.value("format", "") != "skinref-conformance-queries" ||
      document.value("version", 0) != 1 || !document.contains("queries") || !document["queries"].is_array())
    throw std::invalid_argument(path + ": not a skinref-conformance-queries file, version 1");
  std::vector<Query> queries;
  for (const nlohmann::json& entry : document["queries"]) {
    Query query;
    query.case_name = entry.at("case").get<std::string>();
    query.model = entry.at("model").get<std::string>();
    query.out = entry.at("out").get<std::string>();
    query.animation = entry.at("animation").get<unsigned>();
    query.time = entry.at("time").get<double>();
    queries.push_back(query);
  }
  return queries;
}

// skinref's node index of each aiNode: the glTF scene and Assimp's tree walked side by side (Assimp adds a
// "ROOT" above several scene roots). Nodes are named as Assimp's importer names them: the glTF name, else
// "nodes[i]".
struct NodeIndices {
  std::map<const aiNode*, int> of;
  std::vector<const aiNode*> depth_first;  // the glTF nodes in skinref's order
};

void match_node(const nlohmann::json& gltf, int index, const aiNode* node, NodeIndices& indices) {
  const nlohmann::json& definition = gltf.at("nodes").at(index);
  const std::string name = definition.value("name", "nodes[" + std::to_string(index) + "]");
  const nlohmann::json children = definition.value("children", nlohmann::json::array());
  if (name != node->mName.C_Str() || children.size() != node->mNumChildren)
    throw std::runtime_error("Assimp's node \"" + std::string(node->mName.C_Str()) + "\" is not glTF node " +
                             std::to_string(index) + " \"" + name + "\"");
  indices.of[node] = index;
  indices.depth_first.push_back(node);
  for (unsigned c = 0; c < node->mNumChildren; ++c) match_node(gltf, children[c].get<int>(), node->mChildren[c], indices);
}

NodeIndices match_nodes(const nlohmann::json& gltf, const aiScene& scene) {
  const nlohmann::json roots = gltf.at("scenes").at(gltf.value("scene", 0)).value("nodes", nlohmann::json::array());
  NodeIndices indices;
  if (roots.size() == 1) {
    match_node(gltf, roots[0].get<int>(), scene.mRootNode, indices);
    return indices;
  }
  if (roots.size() != scene.mRootNode->mNumChildren) throw std::runtime_error("Assimp's root has another number of children");
  for (unsigned r = 0; r < roots.size(); ++r) match_node(gltf, roots[r].get<int>(), scene.mRootNode->mChildren[r], indices);
  return indices;
}

// ---- animation, as Assimp's viewer samples it --------------------------------------------------------------

template <class Key, class Value, class Mix>
Value sample_keys(const Key* keys, unsigned count, double ticks, Mix mix) {
  if (count == 1 || ticks <= keys[0].mTime) return keys[0].mValue;
  if (ticks >= keys[count - 1].mTime) return keys[count - 1].mValue;
  unsigned k = 0;
  while (keys[k + 1].mTime <= ticks) ++k;
  const float u = float((ticks - keys[k].mTime) / (keys[k + 1].mTime - keys[k].mTime));
  return mix(keys[k].mValue, keys[k + 1].mValue, u);
}

aiMatrix4x4 animated_local(const aiNodeAnim& channel, double ticks) {
  auto lerp = [](const aiVector3D& a, const aiVector3D& b, float u) { return a + (b - a) * u; };
  auto slerp = [](const aiQuaternion& a, const aiQuaternion& b, float u) {
    aiQuaternion out;
    aiQuaternion::Interpolate(out, a, b, u);
    return out.Normalize();
  };
  aiVector3D translation(0, 0, 0), scaling(1, 1, 1);
  aiQuaternion rotation;
  if (channel.mNumPositionKeys > 0)
    translation = sample_keys<aiVectorKey, aiVector3D>(channel.mPositionKeys, channel.mNumPositionKeys, ticks, lerp);
  if (channel.mNumRotationKeys > 0)
    rotation = sample_keys<aiQuatKey, aiQuaternion>(channel.mRotationKeys, channel.mNumRotationKeys, ticks, slerp);
  if (channel.mNumScalingKeys > 0)
    scaling = sample_keys<aiVectorKey, aiVector3D>(channel.mScalingKeys, channel.mNumScalingKeys, ticks, lerp);
  // T * R * S by products: Assimp's aiMatrix4x4(scaling, rotation, position) constructor scales the rotation's
  // rows, which is S * R (include/assimp/matrix4x4.inl), not glTF's R * S under a non-uniform scale.
  aiMatrix4x4 t, s;
  return aiMatrix4x4::Translation(translation, t) * aiMatrix4x4(rotation.GetMatrix()) * aiMatrix4x4::Scaling(scaling, s);
}

struct Pose {
  std::map<const aiNode*, aiMatrix4x4> globals;
  std::map<std::string, std::vector<float>> morph_weights;  // by node name, from the clip's morph channels
};

void pose_node(const aiNode* node, const aiMatrix4x4& parent, const aiAnimation* clip, double ticks, Pose& pose) {
  aiMatrix4x4 local = node->mTransformation;
  for (unsigned c = 0; clip && c < clip->mNumChannels; ++c)
    if (clip->mChannels[c]->mNodeName == node->mName) local = animated_local(*clip->mChannels[c], ticks);
  const aiMatrix4x4 global = parent * local;
  pose.globals[node] = global;
  for (unsigned c = 0; c < node->mNumChildren; ++c) pose_node(node->mChildren[c], global, clip, ticks, pose);
}

std::vector<float> sample_morph_weights(const aiMeshMorphAnim& channel, double ticks) {
  const aiMeshMorphKey* keys = channel.mKeys;
  const unsigned count = channel.mNumKeys;
  unsigned a = 0, b = 0;
  float u = 0.0f;
  if (count > 1 && ticks > keys[0].mTime) {
    if (ticks >= keys[count - 1].mTime) {
      a = b = count - 1;
    } else {
      while (keys[a + 1].mTime <= ticks) ++a;
      b = a + 1;
      u = float((ticks - keys[a].mTime) / (keys[b].mTime - keys[a].mTime));
    }
  }
  std::vector<float> weights;
  for (unsigned j = 0; j < keys[a].mNumValuesAndWeights; ++j) {
    const unsigned target = keys[a].mValues[j];
    if (weights.size() <= target) weights.resize(target + 1, 0.0f);
    const float from = float(keys[a].mWeights[j]), to = float(keys[b].mWeights[j]);
    weights[target] = from + (to - from) * u;
  }
  return weights;
}

Pose evaluate_pose(const aiScene& scene, unsigned animation, double seconds) {
  const aiAnimation* clip = animation < scene.mNumAnimations ? scene.mAnimations[animation] : nullptr;
  const double ticks = clip ? seconds * (clip->mTicksPerSecond > 0.0 ? clip->mTicksPerSecond : 25.0) : 0.0;
  Pose pose;
  pose_node(scene.mRootNode, aiMatrix4x4(), clip, ticks, pose);
  for (unsigned c = 0; clip && c < clip->mNumMorphMeshChannels; ++c) {
    const aiMeshMorphAnim& channel = *clip->mMorphMeshChannels[c];
    if (channel.mNumKeys > 0) pose.morph_weights[channel.mName.C_Str()] = sample_morph_weights(channel, ticks);
  }
  return pose;
}

// ---- the drawn primitives ------------------------------------------------------------------------------------

struct DrawnPrimitive {
  int node = 0, mesh = 0, primitive = 0;
  bool skinned = false;
  std::vector<float> positions, normals;
};

// Positions and normals after the morph targets, in the mesh's own space.
void morph(const aiMesh& mesh, const std::vector<float>* animated, std::vector<aiVector3D>& positions,
           std::vector<aiVector3D>& normals) {
  positions.assign(mesh.mVertices, mesh.mVertices + mesh.mNumVertices);
  if (mesh.HasNormals()) normals.assign(mesh.mNormals, mesh.mNormals + mesh.mNumVertices);
  for (unsigned t = 0; t < mesh.mNumAnimMeshes; ++t) {
    const aiAnimMesh& target = *mesh.mAnimMeshes[t];
    const float weight = animated && t < animated->size() ? (*animated)[t] : target.mWeight;
    if (weight == 0.0f) continue;
    for (unsigned v = 0; target.HasPositions() && v < mesh.mNumVertices; ++v)
      positions[v] += (target.mVertices[v] - mesh.mVertices[v]) * weight;
    for (unsigned v = 0; target.HasNormals() && mesh.HasNormals() && v < mesh.mNumVertices; ++v)
      normals[v] += (target.mNormals[v] - mesh.mNormals[v]) * weight;
  }
}

aiMatrix3x3 normal_matrix(const aiMatrix4x4& matrix) {
  aiMatrix3x3 upper(matrix);
  return upper.Inverse().Transpose();
}

void append(std::vector<float>& values, const aiVector3D& v) { values.insert(values.end(), {v.x, v.y, v.z}); }

// Skinned: sum(w * global(bone node) * offset) per vertex, as a matrix, then applied.
void skin(const aiScene& scene, const aiMesh& mesh, const Pose& pose, const std::vector<aiVector3D>& positions,
          const std::vector<aiVector3D>& normals, DrawnPrimitive& drawn) {
  std::vector<aiMatrix4x4> blended(mesh.mNumVertices);
  for (aiMatrix4x4& m : blended) m = aiMatrix4x4(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  for (unsigned b = 0; b < mesh.mNumBones; ++b) {
    const aiBone& bone = *mesh.mBones[b];
    const aiNode* node = scene.mRootNode->FindNode(bone.mName);
    if (!node) throw std::runtime_error("bone \"" + std::string(bone.mName.C_Str()) + "\" names no node");
    const aiMatrix4x4 joint = pose.globals.at(node) * bone.mOffsetMatrix;
    for (unsigned w = 0; w < bone.mNumWeights; ++w) {
      const aiVertexWeight& weight = bone.mWeights[w];
      if (weight.mVertexId >= mesh.mNumVertices) throw std::runtime_error("a bone weight names no vertex");
      aiMatrix4x4& sum = blended[weight.mVertexId];
      for (unsigned e = 0; e < 16; ++e) sum[e / 4][e % 4] += weight.mWeight * joint[e / 4][e % 4];
    }
  }
  for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
    append(drawn.positions, blended[v] * positions[v]);
    if (!normals.empty()) append(drawn.normals, (normal_matrix(blended[v]) * normals[v]).Normalize());
  }
}

// Assimp 5.3 and later (PR 5003) keep only the vertices a primitive's indices use, renumbered in the order of
// their first use (glTF2Importer.cpp, ImportMeshes). The dump is in glTF's order: each Assimp vertex's glTF
// index is read off its faces beside the primitive's index accessor (the identity for Assimp 5.2.5).
std::vector<unsigned> read_indices(const nlohmann::json& gltf, const std::string& model, int accessor_index) {
  const nlohmann::json& accessor = gltf.at("accessors").at(accessor_index);
  if (accessor.contains("sparse") || !accessor.contains("bufferView")) throw std::runtime_error("indices not in a plain view");
  const nlohmann::json& view = gltf.at("bufferViews").at(accessor.at("bufferView").get<int>());
  const std::string uri = gltf.at("buffers").at(view.at("buffer").get<int>()).at("uri").get<std::string>();
  std::ifstream file(model.substr(0, model.find_last_of('/') + 1) + uri, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const int type = accessor.at("componentType").get<int>();
  const size_t size = type == 5121 ? 1 : type == 5123 ? 2 : 4;
  const size_t offset = view.value("byteOffset", size_t(0)) + accessor.value("byteOffset", size_t(0));
  const size_t count = accessor.at("count").get<size_t>();
  if (offset + count * size > bytes.size()) throw std::runtime_error("indices outside their buffer");
  std::vector<unsigned> indices(count);
  for (size_t i = 0; i < count; ++i) {
    unsigned value = 0;
    for (size_t b = 0; b < size; ++b) value |= unsigned(static_cast<unsigned char>(bytes[offset + i * size + b])) << (8 * b);
    indices[i] = value;
  }
  return indices;
}

void to_gltf_order(const nlohmann::json& gltf, const std::string& model, const aiMesh& mesh,
                   const nlohmann::json& primitive, DrawnPrimitive& drawn) {
  const size_t count = gltf.at("accessors").at(primitive.at("attributes").at("POSITION").get<int>()).at("count").get<size_t>();
  if (!primitive.contains("indices") || primitive.value("mode", 4) != 4) return;
  const std::vector<unsigned> indices = read_indices(gltf, model, primitive.at("indices").get<int>());
  std::vector<long> original(mesh.mNumVertices, -1);
  for (unsigned f = 0; f < mesh.mNumFaces; ++f)
    for (unsigned c = 0; c < mesh.mFaces[f].mNumIndices; ++c) {
      const unsigned vertex = mesh.mFaces[f].mIndices[c];
      if (3 * f + c >= indices.size() || (original[vertex] >= 0 && original[vertex] != long(indices[3 * f + c])))
        throw std::runtime_error("Assimp's faces do not follow the glTF indices");
      original[vertex] = indices[3 * f + c];
    }
  for (unsigned v = 0; v < mesh.mNumVertices; ++v)
    if (original[v] < 0) original[v] = v;  // a vertex no face uses: kept in place (Assimp 5.2.5)
  std::vector<float> positions(3 * count), normals(drawn.normals.empty() ? 0 : 3 * count);
  std::vector<bool> written(count, false);
  for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
    const size_t g = size_t(original[v]);
    if (g >= count) throw std::runtime_error("an Assimp vertex beyond the glTF primitive's");
    written[g] = true;
    for (int k = 0; k < 3; ++k) {
      positions[3 * g + k] = drawn.positions[3 * v + k];
      if (!normals.empty()) normals[3 * g + k] = drawn.normals[3 * v + k];
    }
  }
  for (size_t g = 0; g < count; ++g)
    if (!written[g]) throw std::runtime_error("Assimp dropped glTF vertex " + std::to_string(g) + ", which no index uses");
  drawn.positions.swap(positions), drawn.normals.swap(normals);
}

DrawnPrimitive draw(const aiScene& scene, const aiNode& node, int node_index, int mesh_index, unsigned primitive,
                    const Pose& pose) {
  const aiMesh& mesh = *scene.mMeshes[node.mMeshes[primitive]];
  const auto animated = pose.morph_weights.find(node.mName.C_Str());
  std::vector<aiVector3D> positions, normals;
  morph(mesh, animated == pose.morph_weights.end() ? nullptr : &animated->second, positions, normals);
  DrawnPrimitive drawn{node_index, mesh_index, int(primitive), mesh.HasBones(), {}, {}};
  if (mesh.HasBones()) {
    skin(scene, mesh, pose, positions, normals, drawn);
    return drawn;
  }
  const aiMatrix4x4& global = pose.globals.at(&node);
  const aiMatrix3x3 normal = normal_matrix(global);
  for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
    append(drawn.positions, global * positions[v]);
    if (!normals.empty()) append(drawn.normals, (normal * normals[v]).Normalize());
  }
  return drawn;
}

std::string assimp_version() {
  return std::to_string(aiGetVersionMajor()) + "." + std::to_string(aiGetVersionMinor()) + "." +
         std::to_string(aiGetVersionPatch());
}

void write_dump(const Query& query, const std::vector<DrawnPrimitive>& drawn) {
  std::vector<skinref_skv_primitive> primitives;
  for (const DrawnPrimitive& d : drawn) {
    skinref_skv_primitive p{};
    p.node = d.node, p.mesh = d.mesh, p.primitive = d.primitive, p.skinned = d.skinned;
    p.vertex_count = d.positions.size() / 3;
    p.positions = skinref_dump_f32(d.positions.data());
    if (!d.normals.empty()) p.normals = skinref_dump_f32(d.normals.data());
    primitives.push_back(p);
  }
  const std::string writer = "Assimp " + assimp_version(), animation = std::to_string(query.animation);
  const std::string model = query.model.substr(query.model.find_last_of('/') + 1);
  skinref_dump_record record{};
  record.writer = writer.c_str(), record.model = model.c_str(), record.animation = animation.c_str();
  record.has_time = 1, record.time = query.time, record.method = "lbs";
  skinref_dump_error error;
  if (skinref_skv_write(query.out.c_str(), SKINREF_DUMP_F32, &record, primitives.data(), primitives.size(), &error))
    throw std::runtime_error(error.message);
}

void play(const Query& query) {
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(query.model, 0);
  if (!scene || !scene->mRootNode) throw std::runtime_error("Assimp: " + std::string(importer.GetErrorString()));
  std::ifstream file(query.model, std::ios::binary);
  const nlohmann::json gltf = nlohmann::json::parse(file);
  const NodeIndices nodes = match_nodes(gltf, *scene);
  const Pose pose = evaluate_pose(*scene, query.animation, query.time);
  std::vector<DrawnPrimitive> drawn;
  for (const aiNode* node : nodes.depth_first) {
    const int index = nodes.of.at(node);
    for (unsigned p = 0; p < node->mNumMeshes; ++p) {
      const int mesh = gltf["nodes"][index].at("mesh").get<int>();
      drawn.push_back(draw(*scene, *node, index, mesh, p, pose));
      to_gltf_order(gltf, query.model, *scene->mMeshes[node->mMeshes[p]], gltf["meshes"][mesh]["primitives"][p], drawn.back());
    }
  }
  write_dump(query, drawn);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Query> queries;
  try {
    if (argc == 2 && std::string(argv[1]) == "--version") {
      std::printf("%s\n", assimp_version().c_str());  // the library's, at run time
      return 0;
    }
    if (argc == 5) {
      const std::string model = argv[1];
      const std::string name = model.substr(model.find_last_of('/') + 1);
      queries.push_back(Query{name, model, argv[4], unsigned(std::stoul(argv[2])), std::stod(argv[3])});
    } else if (argc == 2) {
      queries = read_queries(argv[1]);
    } else {
      std::fprintf(stderr, "usage: skinref_assimp_adapter MODEL ANIMATION TIME OUT.skv | QUERIES.json | --version\n");
      return 2;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
  int failed = 0;
  for (const Query& query : queries) {
    try {
      play(query);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "%s at t = %g: %s\n", query.case_name.c_str(), query.time, error.what());
      ++failed;
    }
  }
  return failed ? 1 : 0;
}

// libFuzzer target `assimp_scene`: skinref's side of an Assimp import, in process. The input is read as a
// recipe for an aiScene (the builder below), which goes through what the import child runs after Assimp
// (io/assimp_import.h scene_from_assimp(), then export_glb()) and what the parent runs on the result
// (load_gltf_memory() with the glTF loader's checks), then a pose and LBS skinning as in the `assimp` target.
//
// Why a second Assimp target: `assimp` runs the real path, a forked child per input, at about 50 executions/s
// on this project's 2-core machine (the fork and Assimp's own start-up, measured on inputs of a few bytes),
// and libFuzzer sees none of the child's coverage: the translation, skinref's code that reads every value
// Assimp hands over, was fuzzed only blindly. Here it runs in the fuzzer's process with its coverage seen, at
// thousands of executions per second, on scenes no importer of ours would make but a file could: names that
// repeat or match nothing, any float (NaN, infinities, denormals) in any transform, offset matrix, key or
// vertex, metadata of any type and value, key times out of order, morph targets of another size.
//
// Contract of the builder: the scene keeps the structural invariants Assimp's ValidateDataStructure step
// (which the import runs) guarantees for pointers: an array is allocated wherever its count is non-zero, and
// the node hierarchy is a tree. Everything else comes from the input, including indices out of range (a face
// index, a bone's vertex, a node's mesh), which the translation checks itself. Counts are small (at most 12
// nodes, 4 meshes of at most 24 vertices, 3 animations of at most 6 channels of at most 6 keys): the limits
// of core/limits.h are checked by the `assimp` and `gltf` targets and the tests. Reading past the end of the
// input gives zeros, and zeros give a default: a skinned triangle on two joints with one animation, so that an
// empty input already reaches every stage. Memory: allocated with new and new[] as Assimp's destructors free
// it (aiScene's destructor frees the whole scene).
// Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "anim/evaluate_pose.h"
#include "io/assimp_import.h"
#include "io/gltf_export.h"
#include "io/gltf_load.h"
#include "skin/evaluate_vertices.h"

#include <assimp/anim.h>
#include <assimp/mesh.h>
#include <assimp/metadata.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The input as a stream of bytes; past its end every read gives zeros.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  uint32_t u32() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = value << 8 | byte();
    return value;
  }
  uint64_t u64() { return uint64_t(u32()) << 32 | u32(); }
  // Any double, NaNs and infinities included: 8 bytes as its bits.
  double any_double() {
    const uint64_t bits = u64();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  // A count: `fallback` for a zero byte, else the byte modulo max + 1.
  unsigned count(unsigned fallback, unsigned max) {
    const uint8_t b = byte();
    return b == 0 ? fallback : b % (max + 1);
  }
  // A float: `fallback` for a zero selector, else a special value or any bit pattern.
  float number(float fallback) {
    const uint8_t selector = byte();
    switch (selector % 16) {
      case 0: return selector == 0 ? fallback : 0.0f;
      case 1: return 1.0f;
      case 2: return -1.0f;
      case 3: return 0.5f;
      case 4: return std::numeric_limits<float>::quiet_NaN();
      case 5: return std::numeric_limits<float>::infinity();
      case 6: return -std::numeric_limits<float>::infinity();
      case 7: return 1e30f;
      case 8: return std::numeric_limits<float>::denorm_min();
      case 9: return -0.0f;
      case 10: return std::numeric_limits<float>::max();
      case 11: return float(int8_t(byte())) / 4.0f;  // small values of either sign
      default: {
        const uint32_t bits = u32();
        float value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
      }
    }
  }
  std::string text(size_t max) {
    const size_t length = byte() % (max + 1);
    std::string out;
    for (size_t i = 0; i < length; ++i) out.push_back(char(byte()));
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

constexpr unsigned kMaxNodes = 12;
constexpr unsigned kMaxMeshes = 4;
constexpr unsigned kMaxVertices = 24;
constexpr unsigned kMaxBones = 6;
constexpr unsigned kMaxAnimations = 3;
constexpr unsigned kMaxChannels = 6;
constexpr unsigned kMaxKeys = 6;

class SceneBuilder {
 public:
  explicit SceneBuilder(ByteReader& in) : in_(in) {}

  std::unique_ptr<aiScene> build() {
    auto scene = std::make_unique<aiScene>();
    const unsigned node_count = 1 + in_.count(2, kMaxNodes - 1);
    const unsigned mesh_count = in_.count(1, kMaxMeshes);
    for (unsigned i = 0; i < node_count; ++i) node_names_.push_back(node_name(i, node_count));
    scene->mRootNode = build_nodes(node_count, mesh_count);
    scene->mNumMeshes = mesh_count;
    if (mesh_count > 0) {
      scene->mMeshes = new aiMesh*[mesh_count];
      for (unsigned m = 0; m < mesh_count; ++m) scene->mMeshes[m] = build_mesh();
    }
    scene->mNumAnimations = in_.count(1, kMaxAnimations);
    if (scene->mNumAnimations > 0) {
      scene->mAnimations = new aiAnimation*[scene->mNumAnimations];
      for (unsigned a = 0; a < scene->mNumAnimations; ++a) scene->mAnimations[a] = build_animation();
    }
    scene->mMetaData = build_metadata();
    return scene;
  }

 private:
  // Node i's name: by default "n<i>" (unique); else a repeat, an empty name or any bytes.
  std::string node_name(unsigned i, unsigned node_count) {
    const uint8_t selector = in_.byte();
    switch (selector % 4) {
      case 0: return selector == 0 ? "n" + std::to_string(i) : "n" + std::to_string(in_.byte() % node_count);
      case 1: return "";
      case 2: return in_.text(12);
      default: return "n" + std::to_string(i);
    }
  }

  // A name among the nodes' (by default node `fallback`'s), or one that names no node.
  std::string reference_name(unsigned fallback) {
    const uint8_t selector = in_.byte();
    if (selector == 0) return node_names_[fallback % node_names_.size()];
    if (selector % 8 == 7) return in_.text(12);
    return node_names_[selector % node_names_.size()];
  }

  aiVector3D vector(float fallback) {
    const float x = in_.number(fallback), y = in_.number(fallback), z = in_.number(fallback);
    return aiVector3D(x, y, z);
  }

  // By default the identity; else a unit quaternion made from four numbers, or the four numbers as they are.
  aiQuaternion rotation() {
    const uint8_t selector = in_.byte();
    if (selector == 0) return aiQuaternion();
    const float w = in_.number(1.0f), x = in_.number(0.0f), y = in_.number(0.0f), z = in_.number(0.0f);
    aiQuaternion q(w, x, y, z);
    if (selector % 2 == 1) q.Normalize();
    return q;
  }

  // By default a translation along y; else scale, rotation and translation composed, or 16 numbers.
  aiMatrix4x4 transform(float fallback_y) {
    const uint8_t selector = in_.byte();
    if (selector % 3 == 2) {
      aiMatrix4x4 m;
      for (unsigned r = 0; r < 4; ++r)
        for (unsigned c = 0; c < 4; ++c) m[r][c] = in_.number(r == c ? 1.0f : 0.0f);
      return m;
    }
    const aiVector3D scaling = selector == 0 ? aiVector3D(1, 1, 1) : vector(1.0f);
    const aiQuaternion q = selector == 0 ? aiQuaternion() : rotation();
    const aiVector3D position = selector == 0 ? aiVector3D(0, fallback_y, 0) : vector(0.0f);
    return aiMatrix4x4(scaling, q, position);
  }

  // A tree: node i > 0 hangs under an earlier node (by default node i - 1, a chain). Node 0 holds mesh 0 by
  // default; any node may hold up to two mesh indices, possibly one past the last mesh.
  aiNode* build_nodes(unsigned node_count, unsigned mesh_count) {
    std::vector<aiNode*> nodes(node_count);
    std::vector<unsigned> parent(node_count, 0);
    for (unsigned i = 0; i < node_count; ++i) {
      nodes[i] = new aiNode(node_names_[i]);
      nodes[i]->mTransformation = transform(i == 0 ? 0.0f : 1.0f);
      if (i > 0) {
        const uint8_t selector = in_.byte();
        parent[i] = selector == 0 ? i - 1 : selector % i;
      }
      const unsigned refs = in_.count(i == 0 ? 1 : 0, 2);
      if (refs > 0) {
        nodes[i]->mNumMeshes = refs;
        nodes[i]->mMeshes = new unsigned[refs];
        for (unsigned r = 0; r < refs; ++r) nodes[i]->mMeshes[r] = in_.byte() % (mesh_count + 1);
      }
    }
    std::vector<std::vector<aiNode*>> children(node_count);
    for (unsigned i = 1; i < node_count; ++i) children[parent[i]].push_back(nodes[i]);
    for (unsigned i = 0; i < node_count; ++i) {
      if (children[i].empty()) continue;
      nodes[i]->mNumChildren = unsigned(children[i].size());
      nodes[i]->mChildren = new aiNode*[children[i].size()];
      for (size_t c = 0; c < children[i].size(); ++c) {
        nodes[i]->mChildren[c] = children[i][c];
        children[i][c]->mParent = nodes[i];
      }
    }
    return nodes[0];
  }

  aiVector3D* vectors(unsigned n, float fallback) {
    auto* out = new aiVector3D[n];
    for (unsigned v = 0; v < n; ++v) out[v] = vector(fallback);
    return out;
  }

  // By default a triangle with normals, skinned to nodes n0 and n1 (weights 1/2 each).
  aiMesh* build_mesh() {
    auto* mesh = new aiMesh();
    const unsigned n = in_.count(3, kMaxVertices);
    mesh->mNumVertices = n;
    if (n > 0) {
      mesh->mVertices = new aiVector3D[n];
      for (unsigned v = 0; v < n; ++v) mesh->mVertices[v] = vector(float(v));
      const uint8_t attributes = in_.byte();
      if (attributes == 0 || attributes & 1) mesh->mNormals = vectors(n, 1.0f);
      if (attributes & 2) {
        mesh->mTangents = vectors(n, 1.0f);
        mesh->mBitangents = vectors(n, 1.0f);
      }
      if (attributes & 4) {
        mesh->mTextureCoords[0] = vectors(n, 0.5f);
        mesh->mNumUVComponents[0] = 2;
      }
    }
    // One kind of primitive by default (triangles); else any set of the kinds, with faces of any size.
    const uint8_t kinds = in_.byte();
    mesh->mPrimitiveTypes = kinds == 0 ? aiPrimitiveType_TRIANGLE : kinds % 16;
    const unsigned corners = mesh->mPrimitiveTypes == aiPrimitiveType_POINT  ? 1
                             : mesh->mPrimitiveTypes == aiPrimitiveType_LINE ? 2
                                                                            : 3;
    const unsigned faces = in_.count(n / corners, 8);
    if (faces > 0) {
      mesh->mNumFaces = faces;
      mesh->mFaces = new aiFace[faces];
      for (unsigned f = 0; f < faces; ++f) {
        aiFace& face = mesh->mFaces[f];
        const uint8_t size = in_.byte();
        face.mNumIndices = size == 0 ? corners : 1 + size % 4;
        face.mIndices = new unsigned[face.mNumIndices];
        for (unsigned k = 0; k < face.mNumIndices; ++k) {
          const uint8_t index = in_.byte();
          face.mIndices[k] = index == 0 ? (f * corners + k) % std::max(n, 1u) : index % (n + 1);
        }
      }
    }
    const unsigned bones = in_.count(2, kMaxBones);
    if (bones > 0) {
      mesh->mNumBones = bones;
      mesh->mBones = new aiBone*[bones];
      for (unsigned b = 0; b < bones; ++b) mesh->mBones[b] = build_bone(b, n);
    }
    const unsigned targets = in_.count(0, 3);
    if (targets > 0) {
      mesh->mNumAnimMeshes = targets;
      mesh->mAnimMeshes = new aiAnimMesh*[targets];
      for (unsigned t = 0; t < targets; ++t) {
        auto* target = new aiAnimMesh();
        const uint8_t size = in_.byte();
        target->mNumVertices = size == 0 ? n : size % (kMaxVertices + 1);
        const uint8_t attributes = in_.byte();
        if (target->mNumVertices > 0 && (attributes == 0 || attributes & 1))
          target->mVertices = vectors(target->mNumVertices, 0.25f);
        if (target->mNumVertices > 0 && attributes & 2) target->mNormals = vectors(target->mNumVertices, 1.0f);
        target->mWeight = in_.number(0.5f);
        mesh->mAnimMeshes[t] = target;
      }
    }
    return mesh;
  }

  // Bone b: by default node n<b>, offset the inverse of a translation along y, and a weight of 1/2 on every
  // vertex; else any name, offset and weight entries (vertex ids possibly one past the last vertex).
  aiBone* build_bone(unsigned b, unsigned n) {
    auto* bone = new aiBone();
    bone->mName.Set(reference_name(b));
    bone->mOffsetMatrix = transform(-float(b));
    const unsigned weights = in_.count(n, 12);
    if (weights > 0) {
      bone->mNumWeights = weights;
      bone->mWeights = new aiVertexWeight[weights];
      for (unsigned w = 0; w < weights; ++w) {
        const uint8_t vertex = in_.byte();
        bone->mWeights[w].mVertexId = vertex == 0 ? w % std::max(n, 1u) : vertex % (n + 1);
        bone->mWeights[w].mWeight = in_.number(0.5f);
      }
    }
    return bone;
  }

  // By default keys at 0, 1, 2 ... ticks; else any time (double), including out of order and not finite.
  double key_time(unsigned k) {
    const uint8_t selector = in_.byte();
    if (selector == 0) return double(k);
    if (selector % 4 == 1) return in_.any_double();
    return double(in_.number(float(k)));
  }

  aiAnimBehaviour behaviour() { return aiAnimBehaviour(in_.byte() % 4); }

  // By default one channel per node with two position, rotation and scale keys; else any counts and values.
  aiAnimation* build_animation() {
    auto* animation = new aiAnimation();
    animation->mName.Set(in_.text(8));
    const uint8_t ticks = in_.byte();
    animation->mTicksPerSecond = ticks == 0 ? 0.0 : ticks % 2 == 1 ? double(ticks) : double(in_.number(25.0f));
    animation->mDuration = double(in_.number(1.0f));
    const unsigned channels = in_.count(std::min(unsigned(node_names_.size()), kMaxChannels), kMaxChannels);
    if (channels > 0) {
      animation->mNumChannels = channels;
      animation->mChannels = new aiNodeAnim*[channels];
      for (unsigned c = 0; c < channels; ++c) {
        auto* channel = new aiNodeAnim();
        channel->mNodeName.Set(reference_name(c));
        channel->mPreState = behaviour();
        channel->mPostState = behaviour();
        channel->mNumPositionKeys = in_.count(2, kMaxKeys);
        if (channel->mNumPositionKeys > 0) channel->mPositionKeys = new aiVectorKey[channel->mNumPositionKeys];
        for (unsigned k = 0; k < channel->mNumPositionKeys; ++k) {
          channel->mPositionKeys[k].mTime = key_time(k);
          channel->mPositionKeys[k].mValue = vector(float(k));
        }
        channel->mNumRotationKeys = in_.count(2, kMaxKeys);
        if (channel->mNumRotationKeys > 0) channel->mRotationKeys = new aiQuatKey[channel->mNumRotationKeys];
        for (unsigned k = 0; k < channel->mNumRotationKeys; ++k) {
          channel->mRotationKeys[k].mTime = key_time(k);
          channel->mRotationKeys[k].mValue = rotation();
        }
        channel->mNumScalingKeys = in_.count(2, kMaxKeys);
        if (channel->mNumScalingKeys > 0) channel->mScalingKeys = new aiVectorKey[channel->mNumScalingKeys];
        for (unsigned k = 0; k < channel->mNumScalingKeys; ++k) {
          channel->mScalingKeys[k].mTime = key_time(k);
          channel->mScalingKeys[k].mValue = vector(1.0f);
        }
        animation->mChannels[c] = channel;
      }
    }
    // Rarely, a morph-target channel (refused by the translation): one with no keys.
    if (in_.byte() == 255) {
      animation->mNumMorphMeshChannels = 1;
      animation->mMorphMeshChannels = new aiMeshMorphAnim*[1];
      animation->mMorphMeshChannels[0] = new aiMeshMorphAnim();
    }
    return animation;
  }

  // FBX's axis and unit settings as Assimp's FBX importer stores them, of any metadata type and value; none by
  // default.
  aiMetadata* build_metadata() {
    static const char* const kKeys[] = {"UnitScaleFactor", "UpAxis",        "UpAxisSign",   "FrontAxis",
                                        "FrontAxisSign",   "CoordAxis",     "CoordAxisSign", "OriginalUnitScaleFactor"};
    const unsigned count = in_.count(0, 8);
    if (count == 0) return nullptr;
    aiMetadata* meta = aiMetadata::Alloc(count);
    for (unsigned i = 0; i < count; ++i) {
      const std::string key = kKeys[in_.byte() % 8];
      switch (in_.byte() % 6) {
        case 0: meta->Set(i, key, bool(in_.byte() & 1)); break;
        case 1: meta->Set(i, key, int32_t(in_.u32())); break;
        case 2: meta->Set(i, key, uint64_t(in_.u64())); break;
        case 3: meta->Set(i, key, in_.number(1.0f)); break;
        case 4: meta->Set(i, key, in_.any_double()); break;
        default: meta->Set(i, key, aiString(in_.text(8))); break;
      }
    }
    return meta;
  }

  ByteReader& in_;
  std::vector<std::string> node_names_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  ByteReader in(data, size);
  // The file the scene claims to come from (the translation reads FBX settings only for .fbx) and the options.
  static const char* const kSources[] = {"fuzz.fbx", "fuzz.dae", "fuzz.obj", "fuzz"};
  const std::string source = kSources[in.byte() % 4];
  ImportOptions options;
  const uint8_t modes = in.byte();
  options.scale_mode = ImportOptions::Mode(modes % 3);
  if (options.scale_mode == ImportOptions::Mode::Given) options.scale = double(in.number(2.0f));
  options.up_mode = ImportOptions::Mode(modes / 3 % 3);
  options.up = modes & 0x80 ? 'z' : 'y';
  const std::unique_ptr<aiScene> ai = SceneBuilder(in).build();
  fuzz::run_guarded([&] {
    const Scene translated = scene_from_assimp(*ai, source, options);
    std::ostringstream glb;
    export_glb(translated, glb);
    const Scene scene = load_gltf_memory(glb.str(), source + " (as imported)", "");
    const EvaluatedPose pose = evaluate_pose(scene, scene.animations.empty() ? -1 : 0, 0.5);
    evaluate_vertices(scene, pose, SkinningOptions{});
  });
  return 0;
}

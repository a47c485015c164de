// An independent engine built on Assimp's own data (Debian's libassimp-dev): its node hierarchy, its animation
// keys (sampled with Assimp's slerp), its bones' offset matrices and weights, all in float32 as Assimp stores
// them. Used by tests/verify/assimp_engine_test.cc (diagnose names what Assimp's importer did to a glTF
// file) and tests/io/assimp_import_test.cc (skinref's own Assimp loader against it on FBX and Collada).
#pragma once

#include "core/vertices.h"

#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <map>
#include <string>
#include <vector>

namespace skinref::test {

// The client: one clip sampled as Assimp's own viewer does (keys clamped at the ends, lerp for positions and
// scales, aiQuaternion::Interpolate for rotations), local = T * R * S (by products), global = parent * local, skinning
// matrix = global(bone node) * offset, LBS over the bone weights.
class AssimpEngine {
 public:
  // `extra_flags`: post-processing steps besides LimitBoneWeights (e.g. the ones skinref's loader runs).
  AssimpEngine(const std::string& path, int max_weights, unsigned extra_flags = 0) {
    unsigned flags = extra_flags;
    if (max_weights > 0) {
      importer_.SetPropertyInteger(AI_CONFIG_PP_LBW_MAX_WEIGHTS, max_weights);
      flags |= aiProcess_LimitBoneWeights;
    }
    scene_ = importer_.ReadFile(path, flags);
  }
  const aiScene* scene() const { return scene_; }
  std::string error() const { return importer_.GetErrorString(); }

  // World positions of every mesh at `seconds` into the first animation.
  std::vector<WorldPrimitive> skin(double seconds) const {
    std::map<const aiNode*, aiMatrix4x4> globals;
    pose(scene_->mRootNode, aiMatrix4x4(), seconds, globals);
    std::vector<WorldPrimitive> result;
    for (unsigned m = 0; m < scene_->mNumMeshes; ++m) {
      const aiMesh* mesh = scene_->mMeshes[m];
      std::vector<aiVector3D> positions(mesh->mNumVertices, aiVector3D(0, 0, 0));
      for (unsigned b = 0; b < mesh->mNumBones; ++b) {
        const aiBone* bone = mesh->mBones[b];
        const aiNode* node = scene_->mRootNode->FindNode(bone->mName);
        const aiMatrix4x4 joint = globals.at(node) * bone->mOffsetMatrix;
        for (unsigned w = 0; w < bone->mNumWeights; ++w) {
          const aiVertexWeight& weight = bone->mWeights[w];
          positions[weight.mVertexId] += weight.mWeight * (joint * mesh->mVertices[weight.mVertexId]);
        }
      }
      WorldPrimitive primitive;
      primitive.skinned = true;
      for (const aiVector3D& p : positions) primitive.vertices.positions.push_back(Vec3(p.x, p.y, p.z));
      result.push_back(std::move(primitive));
    }
    return result;
  }

 private:
  const aiNodeAnim* channel(const aiNode* node) const {
    const aiAnimation* animation = scene_->mAnimations[0];
    for (unsigned c = 0; c < animation->mNumChannels; ++c)
      if (animation->mChannels[c]->mNodeName == node->mName) return animation->mChannels[c];
    return nullptr;
  }

  template <class Key, class Value, class Mix>
  static Value sample(const Key* keys, unsigned count, double ticks, Mix mix) {
    if (count == 1 || ticks <= keys[0].mTime) return keys[0].mValue;
    if (ticks >= keys[count - 1].mTime) return keys[count - 1].mValue;
    unsigned k = 0;
    while (keys[k + 1].mTime <= ticks) ++k;
    const float u = float((ticks - keys[k].mTime) / (keys[k + 1].mTime - keys[k].mTime));
    return mix(keys[k].mValue, keys[k + 1].mValue, u);
  }

  void pose(const aiNode* node, const aiMatrix4x4& parent, double seconds,
            std::map<const aiNode*, aiMatrix4x4>& globals) const {
    aiMatrix4x4 local = node->mTransformation;
    if (const aiNodeAnim* anim = channel(node)) {
      const aiAnimation* animation = scene_->mAnimations[0];
      const double ticks = seconds * (animation->mTicksPerSecond > 0.0 ? animation->mTicksPerSecond : 25.0);
      aiVector3D scaling, position;
      aiQuaternion rotation;
      node->mTransformation.Decompose(scaling, rotation, position);
      auto lerp = [](const aiVector3D& a, const aiVector3D& b, float u) { return a + (b - a) * u; };
      auto slerp = [](const aiQuaternion& a, const aiQuaternion& b, float u) {
        aiQuaternion out;
        aiQuaternion::Interpolate(out, a, b, u);
        return out.Normalize();
      };
      if (anim->mNumPositionKeys > 0)
        position = sample<aiVectorKey, aiVector3D>(anim->mPositionKeys, anim->mNumPositionKeys, ticks, lerp);
      if (anim->mNumRotationKeys > 0)
        rotation = sample<aiQuatKey, aiQuaternion>(anim->mRotationKeys, anim->mNumRotationKeys, ticks, slerp);
      if (anim->mNumScalingKeys > 0)
        scaling = sample<aiVectorKey, aiVector3D>(anim->mScalingKeys, anim->mNumScalingKeys, ticks, lerp);
      // T * R * S by products: the aiMatrix4x4(scaling, rotation, position) constructor is S * R * ... (it
      // scales the rotation's rows), not R * S, under a non-uniform scale.
      aiMatrix4x4 t, s;
      local = aiMatrix4x4::Translation(position, t) * aiMatrix4x4(rotation.GetMatrix()) * aiMatrix4x4::Scaling(scaling, s);
    }
    const aiMatrix4x4 global = parent * local;
    globals[node] = global;
    for (unsigned c = 0; c < node->mNumChildren; ++c) pose(node->mChildren[c], global, seconds, globals);
  }

  Assimp::Importer importer_;
  const aiScene* scene_ = nullptr;
};

}  // namespace skinref::test

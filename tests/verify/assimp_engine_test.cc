// An independent engine in the suite: Assimp (Debian's libassimp-dev) imports a corpus model, optionally with
// its LimitBoneWeights post-process, and a small client here skins it from Assimp's own data: its node
// hierarchy, its animation keys (sampled with Assimp's slerp), its bones' offset matrices and weights, all in
// float32 as Assimp stores them. Its positions-only dumps go to diagnose, which must find glTF 2.0 when
// nothing is limited and name the limit (the K largest weights, renormalized) when it is.
#include "io/gltf_load.h"
#include "support/corpus_models.h"
#include "support/planted_engine.h"

#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <gtest/gtest.h>

#include <map>

namespace skinref {
namespace {

// The client: one clip sampled as Assimp's own viewer does (keys clamped at the ends, lerp for positions and
// scales, aiQuaternion::Interpolate for rotations), local = T * R * S, global = parent * local, skinning
// matrix = global(bone node) * offset, LBS over the bone weights.
class AssimpEngine {
 public:
  AssimpEngine(const std::string& path, int max_weights) {
    unsigned flags = 0;
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
      local = aiMatrix4x4(scaling, rotation, position);
    }
    const aiMatrix4x4 global = parent * local;
    globals[node] = global;
    for (unsigned c = 0; c < node->mNumChildren; ++c) pose(node->mChildren[c], global, seconds, globals);
  }

  Assimp::Importer importer_;
  const aiScene* scene_ = nullptr;
};

struct AssimpCase {
  const char* name;
  const char* path;  // in the corpus
  int max_weights;   // 0: no LimitBoneWeights
  std::vector<std::string> expected;  // diagnose's verdict (empty: glTF 2.0)
};

class AssimpEngineTest : public ::testing::TestWithParam<AssimpCase> {};

TEST_P(AssimpEngineTest, DiagnoseNamesWhatTheImporterDid) {
  if (!test::corpus_present()) GTEST_SKIP() << test::corpus_skip_reason();
  const AssimpCase& c = GetParam();
  const std::string path = test::corpus_dir() + "/" + c.path;
  const AssimpEngine engine(path, c.max_weights);
  ASSERT_NE(engine.scene(), nullptr) << engine.error();
  ASSERT_GT(engine.scene()->mNumAnimations, 0u);
  const Scene scene = load_model(path);
  const std::vector<int> drawn = drawn_nodes(scene);
  for (double time : {0.3, 0.75, 1.2}) {
    SCOPED_TRACE(time);
    std::vector<WorldPrimitive> dump = engine.skin(double(float(time)));
    // Assimp lists one mesh per glTF primitive; these models draw one primitive with one node.
    ASSERT_EQ(drawn.size(), 1u);
    ASSERT_EQ(dump.size(), 1u);
    ASSERT_EQ(dump[0].vertices.positions.size(), scene.meshes[size_t(scene.nodes[size_t(drawn[0])].mesh)].primitives[0].vertex_count());
    dump[0].node = drawn[0];
    dump[0].mesh = scene.nodes[size_t(drawn[0])].mesh;
    dump[0].primitive = 0;
    DiagnoseSettings settings;
    settings.animation = 0;
    // Assimp's float32 transforms, in its own order, are within skinref-order bounds on these models (as the
    // independent engine's are: independent_engine_test.cc), and those let the weight limits show.
    settings.bounds = test::kPlantedBounds;
    const Diagnosis d = diagnose(scene, {{"assimp", time, dump}}, settings);
    std::vector<std::string> named = d.matches_specification ? std::vector<std::string>{} : d.best().settings;
    EXPECT_EQ(named, c.expected) << "over as specified: " << d.base.over << "; best: " << test::joined(d.best().settings)
                                 << " with " << d.best().over << " over";
    EXPECT_TRUE(d.matches_specification || d.explained);
  }
}

const AssimpCase kCases[] = {
    {"CesiumMan", "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf", 0, {}},
    // Every corpus model has at most four influences per vertex: LimitBoneWeights(4) changes nothing ...
    {"CesiumManLimit4", "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf", 4, {}},
    // ... so fewer are kept to make the limit show.
    {"CesiumManLimit2", "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf", 2, {"influences=top2-renormalized"}},
    {"CesiumManLimit1", "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf", 1, {"influences=top1-renormalized"}},
    {"CesiumManLimit3", "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf", 3, {"influences=top3-renormalized"}},
    {"RiggedFigure", "glTF-Sample-Assets/RiggedFigure/glTF/RiggedFigure.gltf", 0, {}},
    {"RiggedFigureLimit2", "glTF-Sample-Assets/RiggedFigure/glTF/RiggedFigure.gltf", 2, {"influences=top2-renormalized"}},
};

INSTANTIATE_TEST_SUITE_P(Corpus, AssimpEngineTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<AssimpCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace skinref

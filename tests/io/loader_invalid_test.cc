// The glTF loader's refusals: one test per validation rule. Each test takes the minimal valid skinned model
// (gltf_builder.h, layout in SkinnedModel), breaks exactly one thing, and asserts that loading throws
// InputError naming the file and the exact JSON pointer of the offending value. Inputs that tinygltf's own
// parser already refuses are checked as wrapped tinygltf errors (empty JSON path, non-empty message).
#include "core/input_error.h"
#include "io/gltf_load.h"
#include "support/gltf_builder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using test::GltfBuilder;
using test::make_skinned_model;
using test::primitive0;
using M = test::SkinnedModel;
using nlohmann::json;

const std::string kFile = "test.gltf";

// Loads `bytes` and expects an InputError at `json_path`; returns it so a test can check the message further.
InputError expect_refused_bytes(const std::string& bytes, const std::string& json_path) {
  try {
    load_gltf_memory(bytes, kFile, "");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), kFile);
    EXPECT_EQ(e.json_path(), json_path) << e.what();
    EXPECT_NE(std::string(e.what()).find(json_path), std::string::npos) << e.what();
    EXPECT_FALSE(e.expected().empty());
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError at " << json_path << ", got another exception: " << e.what();
    return InputError(kFile, "", "");
  }
  ADD_FAILURE() << "loaded without error; expected a refusal at " << json_path;
  return InputError(kFile, "", "");
}

InputError expect_refused(const GltfBuilder& model, const std::string& json_path) {
  return expect_refused_bytes(model.to_gltf_string(), json_path);
}

// For inputs tinygltf itself refuses: the loader wraps its message with no JSON path.
void expect_refused_by_parser(const std::string& bytes) {
  try {
    load_gltf_memory(bytes, kFile, "");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), kFile);
    EXPECT_EQ(e.json_path(), "") << e.what();
    EXPECT_FALSE(e.expected().empty());
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InputError, got another exception: " << e.what();
    return;
  }
  ADD_FAILURE() << "loaded without error; expected tinygltf's refusal";
}

// ---- the base model itself is valid: every refusal below is caused by its one mutation ----------------------

TEST(LoaderInvalid, BaseModelLoads) {
  EXPECT_NO_THROW(load_gltf_memory(make_skinned_model().to_gltf_string(), kFile, ""));
}

// ---- accessor data ranges ------------------------------------------------------------------------------------

TEST(LoaderInvalid, AccessorCountBeyondView) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["count"] = 3;  // 3 x 64 bytes in a 128-byte view
  expect_refused(model, "/accessors/5/count");
}

TEST(LoaderInvalid, AccessorHugeCountOverflowsNaiveArithmetic) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["count"] = uint64_t{1} << 62;
  expect_refused(model, "/accessors/5/count");
}

TEST(LoaderInvalid, AccessorCountWhoseRangeWrapsToAFittingValue) {
  // 64 * (2^58 + 1 - 1) = 2^64 wraps to 0 in uint64, so naive arithmetic gives 0 + 0 + 64 <= 128.
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["count"] = (uint64_t{1} << 58) + 1;
  expect_refused(model, "/accessors/5/count");
}

TEST(LoaderInvalid, AccessorViewTooShortForItsData) {
  GltfBuilder model = make_skinned_model();
  model.json["bufferViews"][M::kPositions]["byteLength"] = 60;  // 6 x 12 bytes needed
  expect_refused(model, "/accessors/0/count");
}

TEST(LoaderInvalid, AccessorByteOffsetPushesDataPastView) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["byteOffset"] = 64;  // 64 + 2 x 64 > 128, offset itself inside
  expect_refused(model, "/accessors/5/count");
}

TEST(LoaderInvalid, AccessorRangeUsesTheViewStride) {
  GltfBuilder model = make_skinned_model();
  model.json["bufferViews"][M::kPositions]["byteStride"] = 16;  // 16 x 5 + 12 = 92 > 72
  expect_refused(model, "/accessors/0/count");
}

TEST(LoaderInvalid, AccessorByteOffsetAtViewEnd) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["byteOffset"] = 128;
  expect_refused(model, "/accessors/5/byteOffset");
}

TEST(LoaderInvalid, AccessorHugeByteOffset) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["byteOffset"] = uint64_t{1} << 63;
  expect_refused(model, "/accessors/5/byteOffset");
}

TEST(LoaderInvalid, AccessorBufferViewOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["bufferView"] = 99;
  expect_refused(model, "/accessors/5/bufferView");
}

// ---- buffer views ----------------------------------------------------------------------------------------------

TEST(LoaderInvalid, BufferViewPastBufferEnd) {
  GltfBuilder model = make_skinned_model();
  json& view = model.json["bufferViews"][M::kKeyRotations];  // the last view, ending at the buffer's end
  view["byteLength"] = view["byteLength"].get<uint64_t>() + 4;
  expect_refused(model, "/bufferViews/7/byteLength");
}

TEST(LoaderInvalid, BufferViewOffsetWhoseEndWrapsAround) {
  // byteOffset + byteLength = 2^64 - 16 + 48 wraps to 32, which a naive check finds inside the buffer.
  GltfBuilder model = make_skinned_model();
  model.json["bufferViews"][M::kKeyRotations]["byteOffset"] = std::numeric_limits<uint64_t>::max() - 15;
  expect_refused(model, "/bufferViews/7/byteLength");
}

TEST(LoaderInvalid, BufferViewBufferOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["bufferViews"][M::kKeyRotations]["buffer"] = 1;
  expect_refused(model, "/bufferViews/7/buffer");
}

TEST(LoaderInvalid, BufferViewStrideSmallerThanElement) {
  GltfBuilder model = make_skinned_model();
  model.json["bufferViews"][M::kPositions]["byteStride"] = 8;  // a VEC3 float is 12 bytes
  expect_refused(model, "/bufferViews/0/byteStride");
}

// tinygltf refuses a byteStride over 252 or not a multiple of 4 while parsing (ParseBufferView), so these
// never reach the loader's own stride check; since every multiple of 4 is a multiple of each component size,
// "not a multiple of the component size" is unreachable through tinygltf.
TEST(LoaderInvalid, BufferViewStrideOver252RefusedByParser) {
  GltfBuilder model = make_skinned_model();
  model.json["bufferViews"][M::kPositions]["byteStride"] = 256;
  expect_refused_by_parser(model.to_gltf_string());
}

TEST(LoaderInvalid, BufferViewStrideNotMultipleOf4RefusedByParser) {
  GltfBuilder model = make_skinned_model();
  model.json["bufferViews"][M::kPositions]["byteStride"] = 14;
  expect_refused_by_parser(model.to_gltf_string());
}

// ---- component types, types and normalization per semantic ----------------------------------------------------

TEST(LoaderInvalid, WeightsAsUnsignedInt) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kWeights]["componentType"] = test::kComponentUnsignedInt;  // same 16-byte element
  expect_refused(model, "/accessors/3/componentType");
}

TEST(LoaderInvalid, JointsAsFloat) {
  GltfBuilder model = make_skinned_model();
  const int joints = model.add_float_accessor(
      {0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, "VEC4");
  primitive0(model)["attributes"]["JOINTS_0"] = joints;
  expect_refused(model, "/accessors/" + std::to_string(joints) + "/componentType");
}

TEST(LoaderInvalid, PositionAsUnsignedInt) {
  GltfBuilder model = make_skinned_model();
  const int positions =
      model.add_u32_accessor({0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0, 1, 2, 0}, "VEC3");
  primitive0(model)["attributes"]["POSITION"] = positions;
  expect_refused(model, "/accessors/" + std::to_string(positions) + "/componentType");
}

TEST(LoaderInvalid, PositionAsShortWithoutMeshQuantization) {
  GltfBuilder model = make_skinned_model();
  // Stride 8 keeps each VEC3 i16 element 4-byte aligned, as glTF requires of vertex attributes.
  const size_t offset = model.append_i16({0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 2, 0, 0, 1, 2, 0, 0});
  const int view = model.add_buffer_view(offset, 48, 8);
  const int positions = model.add_accessor(view, 0, test::kComponentShort, M::kVertexCount, "VEC3");
  primitive0(model)["attributes"]["POSITION"] = positions;
  expect_refused(model, "/accessors/" + std::to_string(positions) + "/componentType");
}

TEST(LoaderInvalid, PositionAsVec2) {
  GltfBuilder model = make_skinned_model();
  const int positions = model.add_float_accessor({0, 0, 1, 0, 0, 1, 1, 1, 0, 2, 1, 2}, "VEC2");
  primitive0(model)["attributes"]["POSITION"] = positions;
  expect_refused(model, "/accessors/" + std::to_string(positions) + "/type");
}

TEST(LoaderInvalid, IndicesAsFloat) {
  GltfBuilder model = make_skinned_model();
  const int indices = model.add_float_accessor({0, 1, 2, 2, 1, 3, 2, 3, 4, 4, 3, 5}, "SCALAR");
  primitive0(model)["indices"] = indices;
  expect_refused(model, "/accessors/" + std::to_string(indices) + "/componentType");
}

TEST(LoaderInvalid, JointsNormalized) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kJoints]["normalized"] = true;
  expect_refused(model, "/accessors/2/normalized");
}

// ---- sparse accessors ------------------------------------------------------------------------------------------

// POSITION made sparse over its base data: indices (u16) in view 8, values (2 x VEC3 float) in view 9.
GltfBuilder make_sparse_position_model(const std::vector<uint16_t>& indices) {
  GltfBuilder model = make_skinned_model();
  model.make_sparse(M::kPositions, indices, {0.5f, 0.5f, 0, 0.5f, 1.5f, 0});
  return model;
}

TEST(LoaderInvalid, SparseBaseModelLoads) {
  EXPECT_NO_THROW(load_gltf_memory(make_sparse_position_model({1, 3}).to_gltf_string(), kFile, ""));
}

TEST(LoaderInvalid, SparseCountAboveAccessorCount) {
  GltfBuilder model = make_sparse_position_model({1, 3});
  model.json["accessors"][M::kPositions]["sparse"]["count"] = 7;
  expect_refused(model, "/accessors/0/sparse/count");
}

TEST(LoaderInvalid, SparseIndicesDecreasing) {
  expect_refused(make_sparse_position_model({3, 1}), "/accessors/0/sparse/indices");
}

TEST(LoaderInvalid, SparseIndicesRepeated) {
  expect_refused(make_sparse_position_model({1, 1}), "/accessors/0/sparse/indices");
}

TEST(LoaderInvalid, SparseIndexAtAccessorCount) {
  expect_refused(make_sparse_position_model({1, 6}), "/accessors/0/sparse/indices");
}

TEST(LoaderInvalid, SparseIndicesBufferViewOutOfRange) {
  GltfBuilder model = make_sparse_position_model({1, 3});
  model.json["accessors"][M::kPositions]["sparse"]["indices"]["bufferView"] = 99;
  expect_refused(model, "/accessors/0/sparse/indices/bufferView");
}

TEST(LoaderInvalid, SparseIndicesPastTheirView) {
  GltfBuilder model = make_sparse_position_model({1, 3});
  const int index_view = model.json["accessors"][M::kPositions]["sparse"]["indices"]["bufferView"].get<int>();
  model.json["bufferViews"][index_view]["byteLength"] = 2;  // 2 u16 indices need 4 bytes
  expect_refused(model, "/accessors/0/sparse/indices/bufferView");
}

TEST(LoaderInvalid, SparseValuesBufferViewOutOfRange) {
  GltfBuilder model = make_sparse_position_model({1, 3});
  model.json["accessors"][M::kPositions]["sparse"]["values"]["bufferView"] = 99;
  expect_refused(model, "/accessors/0/sparse/values/bufferView");
}

TEST(LoaderInvalid, SparseValuesPastTheirView) {
  GltfBuilder model = make_sparse_position_model({1, 3});
  model.json["accessors"][M::kPositions]["sparse"]["values"]["byteOffset"] = 4;  // 4 + 24 > 24
  expect_refused(model, "/accessors/0/sparse/values/bufferView");
}

// ---- non-finite float data that the scene uses -----------------------------------------------------------------

TEST(LoaderInvalid, NaNPosition) {
  GltfBuilder model = make_skinned_model();
  model.overwrite_float(model.data_offset(M::kPositions) + 4 * 4, std::numeric_limits<float>::quiet_NaN());
  expect_refused(model, "/accessors/0");
}

TEST(LoaderInvalid, InfiniteInverseBindMatrix) {
  GltfBuilder model = make_skinned_model();
  // Second matrix, column 3, row 1: its translation's y.
  model.overwrite_float(model.data_offset(M::kInverseBind) + 4 * (16 + 13), std::numeric_limits<float>::infinity());
  expect_refused(model, "/accessors/5");
}

TEST(LoaderInvalid, NaNKeyTime) {
  GltfBuilder model = make_skinned_model();
  model.overwrite_float(model.data_offset(M::kKeyTimes) + 4, std::numeric_limits<float>::quiet_NaN());
  expect_refused(model, "/accessors/6");
}

TEST(LoaderInvalid, InfiniteKeyValue) {
  GltfBuilder model = make_skinned_model();
  model.overwrite_float(model.data_offset(M::kKeyRotations) + 4 * 6, -std::numeric_limits<float>::infinity());
  expect_refused(model, "/accessors/7");
}

// ---- skins -------------------------------------------------------------------------------------------------------

TEST(LoaderInvalid, JointIndexBeyondSkinJoints) {
  GltfBuilder model = make_skinned_model();
  model.overwrite_u16(model.data_offset(M::kJoints), 2);  // vertex 0, influence 0 (weight 1); the skin has 2
  expect_refused(model, "/meshes/0/primitives/0/attributes/JOINTS_0");
}

TEST(LoaderInvalid, FewerInverseBindMatricesThanJoints) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["count"] = 1;
  expect_refused(model, "/skins/0/inverseBindMatrices");
}

TEST(LoaderInvalid, InverseBindMatricesAccessorOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["skins"][0]["inverseBindMatrices"] = 99;
  expect_refused(model, "/skins/0/inverseBindMatrices");
}

TEST(LoaderInvalid, SkinJointNotANode) {
  GltfBuilder model = make_skinned_model();
  model.json["skins"][0]["joints"][1] = 99;
  expect_refused(model, "/skins/0/joints/1");
}

TEST(LoaderInvalid, SkinSkeletonNotANode) {
  GltfBuilder model = make_skinned_model();
  model.json["skins"][0]["skeleton"] = 99;
  expect_refused(model, "/skins/0/skeleton");
}

// ---- node hierarchy ------------------------------------------------------------------------------------------------

TEST(LoaderInvalid, NodeIsItsOwnChild) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["children"] = json::array({M::kMeshNode});
  expect_refused(model, "/nodes/2/children");
}

TEST(LoaderInvalid, TwoNodeCycle) {
  GltfBuilder model = make_skinned_model();
  model.add_node({{"name", "a"}, {"children", json::array({4})}});  // node 3
  model.add_node({{"name", "b"}, {"children", json::array({3})}});  // node 4
  expect_refused(model, "/nodes/3/children");
}

TEST(LoaderInvalid, ThreeNodeCycleReportsItsLowestNode) {
  GltfBuilder model = make_skinned_model();
  model.add_node({{"name", "a"}, {"children", json::array({5})}});  // node 3 -> 5 -> 4 -> 3
  model.add_node({{"name", "b"}, {"children", json::array({3})}});  // node 4
  model.add_node({{"name", "c"}, {"children", json::array({4})}});  // node 5
  expect_refused(model, "/nodes/3/children");
}

TEST(LoaderInvalid, CycleIsReportedOnTheCycleNotOnItsDescendant) {
  // Node 3 hangs below the cycle 4 <-> 5; it is not its own ancestor, node 4 is.
  GltfBuilder model = make_skinned_model();
  model.add_node({{"name", "below_cycle"}});                               // node 3
  model.add_node({{"name", "a"}, {"children", json::array({3, 5})}});      // node 4
  model.add_node({{"name", "b"}, {"children", json::array({4})}});         // node 5
  expect_refused(model, "/nodes/4/children");
}

TEST(LoaderInvalid, NodeWithTwoParents) {
  GltfBuilder model = make_skinned_model();
  const int extra = model.add_node({{"name", "extra"}});
  // Node 1 is already node 0's child; node 2 is the second parent in index order, listing it at position 1.
  model.json["nodes"][M::kMeshNode]["children"] = json::array({extra, M::kChildJointNode});
  expect_refused(model, "/nodes/2/children/1");
}

TEST(LoaderInvalid, ChildIndexOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kRootJointNode]["children"] = json::array({M::kChildJointNode, 99});
  expect_refused(model, "/nodes/0/children/1");
}

// ---- node references and transforms ------------------------------------------------------------------------------

TEST(LoaderInvalid, NodeMeshOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["mesh"] = 5;
  expect_refused(model, "/nodes/2/mesh");
}

TEST(LoaderInvalid, NodeSkinOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["skin"] = 5;
  expect_refused(model, "/nodes/2/skin");
}

TEST(LoaderInvalid, NodeCameraOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["camera"] = 0;  // the model has no cameras
  expect_refused(model, "/nodes/2/camera");
}

TEST(LoaderInvalid, NodeSkinWithoutMesh) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kRootJointNode]["skin"] = 0;
  expect_refused(model, "/nodes/0/skin");
}

TEST(LoaderInvalid, NodeMatrixWithShear) {
  GltfBuilder model = make_skinned_model();
  // Column-major; column 1 is (0.5, 1, 0): x shears with y.
  model.json["nodes"][M::kMeshNode]["matrix"] = json::array({1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  expect_refused(model, "/nodes/2/matrix");
}

TEST(LoaderInvalid, NodeMatrixSingular) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["matrix"] = json::array({1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  expect_refused(model, "/nodes/2/matrix");
}

TEST(LoaderInvalid, NodeMatrixProjective) {
  GltfBuilder model = make_skinned_model();
  // Column-major element 3 is row 3, column 0: the bottom row becomes (0.5, 0, 0, 1), not affine.
  model.json["nodes"][M::kMeshNode]["matrix"] = json::array({1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  expect_refused(model, "/nodes/2/matrix");
}

TEST(LoaderInvalid, NodeMatrixWrongLength) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["matrix"] = json::array({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0});
  expect_refused(model, "/nodes/2/matrix");
}

// A non-finite rotation cannot be written in glTF JSON (nlohmann refuses 1e999; NaN would be null, which
// tinygltf drops), so only the zero-length case is reachable from a file.
TEST(LoaderInvalid, NodeRotationZeroLength) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["rotation"] = json::array({0, 0, 0, 0});
  expect_refused(model, "/nodes/2/rotation");
}

TEST(LoaderInvalid, NodeRotationWrongLength) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["rotation"] = json::array({0, 0, 1});
  expect_refused(model, "/nodes/2/rotation");
}

TEST(LoaderInvalid, NodeTranslationWrongLength) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["translation"] = json::array({1, 2});
  expect_refused(model, "/nodes/2/translation");
}

TEST(LoaderInvalid, NodeScaleWrongLength) {
  GltfBuilder model = make_skinned_model();
  model.json["nodes"][M::kMeshNode]["scale"] = json::array({1, 1, 1, 1});
  expect_refused(model, "/nodes/2/scale");
}

// ---- animations -------------------------------------------------------------------------------------------------

TEST(LoaderInvalid, KeyTimesDecreasing) {
  GltfBuilder model = make_skinned_model();
  model.overwrite_float(model.data_offset(M::kKeyTimes) + 4, 2.0f);  // times become 0, 2, 1
  model.overwrite_float(model.data_offset(M::kKeyTimes) + 8, 1.0f);
  expect_refused(model, "/animations/0/samplers/0/input");
}

TEST(LoaderInvalid, KeyTimesRepeated) {
  GltfBuilder model = make_skinned_model();
  model.overwrite_float(model.data_offset(M::kKeyTimes) + 8, 1.0f);  // 0, 1, 1
  expect_refused(model, "/animations/0/samplers/0/input");
}

TEST(LoaderInvalid, KeyTimeNegative) {
  GltfBuilder model = make_skinned_model();
  model.overwrite_float(model.data_offset(M::kKeyTimes), -1.0f);  // -1, 1, 2: increasing but negative
  expect_refused(model, "/animations/0/samplers/0/input");
}

TEST(LoaderInvalid, SamplerInputAccessorOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["samplers"][0]["input"] = 99;
  expect_refused(model, "/animations/0/samplers/0/input");
}

TEST(LoaderInvalid, SamplerOutputAccessorOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["samplers"][0]["output"] = 99;
  expect_refused(model, "/animations/0/samplers/0/output");
}

TEST(LoaderInvalid, SamplerOutputCountBelowKeyCount) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kKeyRotations]["count"] = 2;
  expect_refused(model, "/animations/0/samplers/0/output");
}

TEST(LoaderInvalid, CubicSplineOutputNotThreePerKey) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["samplers"][0]["interpolation"] = "CUBICSPLINE";  // needs 9 outputs, has 3
  expect_refused(model, "/animations/0/samplers/0/output");
}

TEST(LoaderInvalid, WeightsOutputNotTargetCountPerKey) {
  GltfBuilder model = make_skinned_model();
  const std::vector<float> zero_deltas(3 * M::kVertexCount, 0.0f);
  model.add_morph_target(0, 0, {{"POSITION", model.add_float_accessor(zero_deltas, "VEC3")}});
  model.add_morph_target(0, 0, {{"POSITION", model.add_float_accessor(zero_deltas, "VEC3")}});
  // 3 keys x 2 targets need 6 weights; 3 are given.
  const int weights = model.add_float_accessor({0, 0.5f, 1}, "SCALAR");
  model.json["animations"][0]["samplers"].push_back({{"input", M::kKeyTimes}, {"output", weights}});
  model.json["animations"][0]["channels"].push_back(
      {{"sampler", 1}, {"target", {{"node", M::kMeshNode}, {"path", "weights"}}}});
  expect_refused(model, "/animations/0/samplers/1/output");
}

// tinygltf keeps an unknown interpolation string as written (AnimationSampler::interpolation is a string).
TEST(LoaderInvalid, UnknownInterpolation) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["samplers"][0]["interpolation"] = "QUADRATIC";
  expect_refused(model, "/animations/0/samplers/0/interpolation");
}

TEST(LoaderInvalid, ChannelSamplerOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["channels"][0]["sampler"] = 5;
  expect_refused(model, "/animations/0/channels/0/sampler");
}

TEST(LoaderInvalid, ChannelTargetNodeOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["channels"][0]["target"]["node"] = 99;
  expect_refused(model, "/animations/0/channels/0/target/node");
}

TEST(LoaderInvalid, ChannelTargetPathUnknown) {
  GltfBuilder model = make_skinned_model();
  model.json["animations"][0]["channels"][0]["target"]["path"] = "color";
  expect_refused(model, "/animations/0/channels/0/target/path");
}

TEST(LoaderInvalid, WeightsChannelOnNodeWithoutMorphTargets) {
  GltfBuilder model = make_skinned_model();
  const int weights = model.add_float_accessor({0, 0.5f, 1}, "SCALAR");
  model.json["animations"][0]["samplers"].push_back({{"input", M::kKeyTimes}, {"output", weights}});
  model.json["animations"][0]["channels"].push_back(
      {{"sampler", 1}, {"target", {{"node", M::kChildJointNode}, {"path", "weights"}}}});
  expect_refused(model, "/animations/0/channels/1/target/path");
}

// ---- primitives ------------------------------------------------------------------------------------------------

TEST(LoaderInvalid, PrimitiveWithoutPosition) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["attributes"].erase("POSITION");
  expect_refused(model, "/meshes/0/primitives/0/attributes");
}

TEST(LoaderInvalid, AttributeAccessorOutOfRange) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["attributes"]["POSITION"] = 99;
  expect_refused(model, "/meshes/0/primitives/0/attributes/POSITION");
}

TEST(LoaderInvalid, AttributeCountDiffersFromPosition) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kNormals]["count"] = 5;
  expect_refused(model, "/meshes/0/primitives/0/attributes/NORMAL");
}

TEST(LoaderInvalid, JointsWithoutWeights) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["attributes"].erase("WEIGHTS_0");
  expect_refused(model, "/meshes/0/primitives/0/attributes/WEIGHTS_0");
}

TEST(LoaderInvalid, WeightsWithoutJoints) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["attributes"].erase("JOINTS_0");
  expect_refused(model, "/meshes/0/primitives/0/attributes/JOINTS_0");
}

TEST(LoaderInvalid, VertexIndexBeyondVertexCount) {
  GltfBuilder model = make_skinned_model();
  model.overwrite_u16(model.data_offset(M::kIndices) + 2 * 11, 6);  // the last index; 6 vertices
  expect_refused(model, "/meshes/0/primitives/0/indices");
}

TEST(LoaderInvalid, TriangleIndexCountNotMultipleOf3) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kIndices]["count"] = 11;
  expect_refused(model, "/meshes/0/primitives/0/indices");
}

// tinygltf checks the indices accessor index itself (LoadFromString: "primitive indices accessor out of
// bounds"), so this is a wrapped parser error.
TEST(LoaderInvalid, IndicesAccessorOutOfRangeRefusedByParser) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["indices"] = 99;
  expect_refused_by_parser(model.to_gltf_string());
}

TEST(LoaderInvalid, PrimitiveMaterialOutOfRange) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["material"] = 3;
  expect_refused(model, "/meshes/0/primitives/0/material");
}

// ---- morph targets -----------------------------------------------------------------------------------------------

// The base model with two POSITION morph targets (accessors 8 and 9) on mesh 0, primitive 0.
GltfBuilder make_morph_model() {
  GltfBuilder model = make_skinned_model();
  const std::vector<float> deltas(3 * M::kVertexCount, 0.25f);
  model.add_morph_target(0, 0, {{"POSITION", model.add_float_accessor(deltas, "VEC3")}});
  model.add_morph_target(0, 0, {{"POSITION", model.add_float_accessor(deltas, "VEC3")}});
  model.json["meshes"][0]["weights"] = json::array({0.5, 0.25});
  return model;
}

TEST(LoaderInvalid, MorphBaseModelLoads) {
  EXPECT_NO_THROW(load_gltf_memory(make_morph_model().to_gltf_string(), kFile, ""));
}

TEST(LoaderInvalid, MorphTargetCountDiffersFromPosition) {
  GltfBuilder model = make_morph_model();
  const int target1_positions = primitive0(model)["targets"][1]["POSITION"].get<int>();
  model.json["accessors"][target1_positions]["count"] = 5;
  expect_refused(model, "/meshes/0/primitives/0/targets/1/POSITION");
}

TEST(LoaderInvalid, NodeWeightsLengthNotTargetCount) {
  GltfBuilder model = make_morph_model();
  model.json["nodes"][M::kMeshNode]["weights"] = json::array({0.5});
  expect_refused(model, "/nodes/2/weights");
}

TEST(LoaderInvalid, MeshWeightsLengthNotTargetCount) {
  GltfBuilder model = make_morph_model();
  model.json["meshes"][0]["weights"] = json::array({0.5, 0.5, 0.5});
  expect_refused(model, "/meshes/0/weights");
}

// ---- extensions, scenes, textures, materials -----------------------------------------------------------------

TEST(LoaderInvalid, UnsupportedRequiredExtension) {
  GltfBuilder model = make_skinned_model();
  model.json["extensionsUsed"] = json::array({"KHR_mesh_quantization", "KHR_draco_mesh_compression"});
  model.json["extensionsRequired"] = json::array({"KHR_mesh_quantization", "KHR_draco_mesh_compression"});
  const InputError error = expect_refused(model, "/extensionsRequired/1");
  EXPECT_NE(std::string(error.what()).find("KHR_draco_mesh_compression"), std::string::npos) << error.what();
}

TEST(LoaderInvalid, DefaultSceneOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["scene"] = 5;
  expect_refused(model, "/scene");
}

TEST(LoaderInvalid, SceneNodeOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.json["scenes"][0]["nodes"] = json::array({M::kRootJointNode, 99});
  expect_refused(model, "/scenes/0/nodes/1");
}

TEST(LoaderInvalid, SceneNodeThatIsNotARootNamesTheActiveScene) {
  // A second scene, made the default, lists the child joint as a root: the path points into scenes[1].
  GltfBuilder model = make_skinned_model();
  model.add("scenes", {{"nodes", json::array({M::kMeshNode, M::kChildJointNode})}});
  model.json["scene"] = 1;
  const InputError error = expect_refused(model, "/scenes/1/nodes/1");
  EXPECT_NE(std::string(error.what()).find("root nodes only"), std::string::npos) << error.what();
}

TEST(LoaderInvalid, TextureSourceOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.add("textures", {{"source", 3}});  // the model has no images
  model.add("materials", {{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}});
  primitive0(model)["material"] = 0;
  expect_refused(model, "/textures/0/source");
}

TEST(LoaderInvalid, MaterialBaseColorTextureOutOfRange) {
  GltfBuilder model = make_skinned_model();
  model.add("materials", {{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 4}}}}}});  // no textures
  primitive0(model)["material"] = 0;
  expect_refused(model, "/materials/0/pbrMetallicRoughness/baseColorTexture/index");
}

// ---- the GLB route reports the same locations ----------------------------------------------------------------

TEST(LoaderInvalid, GlbAccessorCountBeyondView) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kInverseBind]["count"] = 3;
  expect_refused_bytes(model.to_glb_bytes(), "/accessors/5/count");
}

// ---- inputs tinygltf's parser refuses: wrapped with no JSON path -----------------------------------------------

TEST(LoaderInvalid, InvalidJsonRefusedByParser) {
  expect_refused_by_parser("{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [");
}

TEST(LoaderInvalid, TruncatedGlbRefusedByParser) {
  const std::string glb = make_skinned_model().to_glb_bytes();
  expect_refused_by_parser(glb.substr(0, glb.size() / 2));
}


// ---- stated resource limits (core/limits.h), checked on the JSON before tinygltf allocates --------------------

void expect_limit(const std::string& bytes, const std::string& json_path, const std::vector<std::string>& mentions) {
  const InputError e = expect_refused_bytes(bytes, json_path);
  for (const std::string& mention : mentions)
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
}

TEST(LoaderLimits, AccessorCountBeyondTheLimit) {
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kKeyTimes]["count"] = 4294967296.0;
  expect_limit(model.to_gltf_string(), "/accessors/6/count",
               {"an accessor count <= 268435456", "kMaxAccessorElements", "got 4294967296"});
}

TEST(LoaderLimits, VerticesAndKeysBeyondTheirLimitsAreRefusedBeforeDecoding) {
  // Counts within the accessor element limit but beyond the vertex and key limits (the views are too short
  // for them too: the limit is checked first, from the count alone).
  GltfBuilder model = make_skinned_model();
  model.json["accessors"][M::kPositions]["count"] = (1 << 26) + 1;
  expect_limit(model.to_gltf_string(), "/meshes/0/primitives/0/attributes/POSITION",
               {"a vertex count <= 67108864", "kMaxVerticesPerPrimitive", "got 67108865"});
  GltfBuilder keys = make_skinned_model();
  keys.json["accessors"][M::kKeyTimes]["count"] = (1 << 24) + 1;
  expect_limit(keys.to_gltf_string(), "/animations/0/samplers/0/input",
               {"a key count <= 16777216", "kMaxKeysPerSampler", "got 16777217"});
}

TEST(LoaderLimits, InfluenceSetsBeyondTheLimit) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["attributes"]["JOINTS_8"] = M::kJoints;
  expect_limit(model.to_gltf_string(), "/meshes/0/primitives/0/attributes/JOINTS_8",
               {"JOINTS_0 to JOINTS_7", "32 influences", "kMaxInfluenceSets"});
}

TEST(LoaderLimits, MorphTargetsBeyondTheLimit) {
  GltfBuilder model = make_skinned_model();
  primitive0(model)["targets"] = json::array();
  for (int i = 0; i < 1025; ++i) primitive0(model)["targets"].push_back({{"POSITION", M::kPositions}});
  expect_limit(model.to_gltf_string(), "/meshes/0/primitives/0/targets", {"<= 1024", "kMaxMorphTargets"});
}

TEST(LoaderLimits, JointsPerSkinBeyondTheLimit) {
  GltfBuilder model = make_skinned_model();
  model.json["skins"][0]["joints"] = std::vector<int>(65537, 0);
  expect_limit(model.to_gltf_string(), "/skins/0/joints", {"<= 65536", "kMaxJointsPerSkin"});
}

TEST(LoaderLimits, DeeplyNestedExtrasBeyondTheJsonDepthLimit) {
  // tinygltf converts "extras" recursively: 100,000 levels would overflow its stack.
  GltfBuilder model = make_skinned_model();
  model.json["extras"] = 0;
  std::string text = model.to_gltf_string();
  const size_t at = text.find("\"extras\":0");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 10, "\"extras\":" + std::string(100000, '[') + std::string(100000, ']'));
  expect_limit(text, "/extras/0/0/0/...", {"nested <= 256", "kMaxJsonDepth"});
}

TEST(LoaderLimits, PlannedMemoryBeyondTheLimit) {
  // Sixteen MAT4 accessors of 2^24 elements: each within the element limit, 64 GiB of decoded doubles together.
  GltfBuilder model = make_skinned_model();
  for (int i = 0; i < 16; ++i)
    model.json["accessors"].push_back({{"componentType", 5126}, {"count", 1 << 24}, {"type", "MAT4"}});
  expect_limit(model.to_gltf_string(), "", {"planned memory use", "<= 8589934592", "kMaxPlannedBytes"});
}

TEST(LoaderLimits, EmbeddedImageBeyondTheDimensionLimitIsNotDecoded) {
  // A PNG header of 16385 x 1 (stb_image's own limits allow it): refused from the header.
  auto be32 = [](uint32_t v) {
    std::vector<uint8_t> b(4);
    for (size_t i = 0; i < 4; ++i) b[i] = uint8_t(v >> (24 - 8 * i));
    return b;
  };
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  auto append = [&](const std::vector<uint8_t>& more) { png.insert(png.end(), more.begin(), more.end()); };
  append(be32(13));
  append({'I', 'H', 'D', 'R'});
  append(be32(16385));
  append(be32(1));
  append({8, 6, 0, 0, 0});
  append(be32(0));
  GltfBuilder model = make_skinned_model();
  model.json["images"] = json::array({{{"uri", "data:image/png;base64," + test::base64_encode(png)}}});
  expect_limit(model.to_gltf_string(), "/images/0", {"<= 16384", "kMaxImageDimension", "got 16385x1"});
}

TEST(LoaderLimits, DeepChainRefusedByTheDepthLimitAndTheLimitItselfLoads) {
  auto chain = [](size_t depth) {
    GltfBuilder model;
    json nodes = json::array();
    for (size_t i = 0; i < depth; ++i)
      nodes.push_back(i + 1 < depth ? json{{"children", {i + 1}}} : json::object());
    model.json["nodes"] = std::move(nodes);
    model.json["scenes"] = json::array({{{"nodes", {0}}}});
    return model.to_gltf_string();
  };
  expect_limit(chain(100000), "/nodes/9999/children",
               {"a node hierarchy depth <= 10000", "kMaxHierarchyDepth", "node 10000 is at depth 10001"});
  const Scene scene = load_gltf_memory(chain(10000), kFile, "");
  EXPECT_EQ(scene.nodes.size(), 10000u);
  EXPECT_EQ(scene.node_order.size(), 10000u);
}

}  // namespace
}  // namespace skinref

// The corpus of public glTF sample models (../shared/corpus, or SKINREF_CORPUS_DIR): where it is, the fixed
// list of its model files (what gtest_discover_tests sees; CorpusListTest keeps it equal to the folder), and
// the visible skip when it is absent. Shared by corpus_test.cc and corpus_render_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>

#ifndef SKINREF_CORPUS_DIR
#error "SKINREF_CORPUS_DIR must be defined by the build (see CMakeLists.txt)"
#endif

namespace skinref::test {

struct CorpusModel {
  const char* name;  // test name suffix
  const char* path;  // relative to the corpus folder
};

inline void PrintTo(const CorpusModel& model, std::ostream* os) { *os << model.path; }

// Every .gltf/.glb of the corpus; CorpusListTest keeps this in step with the folder. All are valid glTF 2.0
// and use no required extension other than KHR_mesh_quantization, so none may be refused.
inline const CorpusModel kCorpusModels[] = {
    {"Animation_Node_00", "glTF-Asset-Generator/Animation_Node/Animation_Node_00.gltf"},
    {"Animation_Node_01", "glTF-Asset-Generator/Animation_Node/Animation_Node_01.gltf"},
    {"Animation_Node_02", "glTF-Asset-Generator/Animation_Node/Animation_Node_02.gltf"},
    {"Animation_Node_03", "glTF-Asset-Generator/Animation_Node/Animation_Node_03.gltf"},
    {"Animation_Node_04", "glTF-Asset-Generator/Animation_Node/Animation_Node_04.gltf"},
    {"Animation_Node_05", "glTF-Asset-Generator/Animation_Node/Animation_Node_05.gltf"},
    {"Animation_Skin_00", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_00.gltf"},
    {"Animation_Skin_01", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_01.gltf"},
    {"Animation_Skin_02", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_02.gltf"},
    {"Animation_Skin_03", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_03.gltf"},
    {"Animation_Skin_04", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_04.gltf"},
    {"Animation_Skin_05", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_05.gltf"},
    {"Animation_Skin_06", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_06.gltf"},
    {"Animation_Skin_07", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_07.gltf"},
    {"Animation_Skin_08", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_08.gltf"},
    {"Animation_Skin_09", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_09.gltf"},
    {"Animation_Skin_10", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_10.gltf"},
    {"Animation_Skin_11", "glTF-Asset-Generator/Animation_Skin/Animation_Skin_11.gltf"},
    {"Animation_SkinType_00", "glTF-Asset-Generator/Animation_SkinType/Animation_SkinType_00.gltf"},
    {"Animation_SkinType_01", "glTF-Asset-Generator/Animation_SkinType/Animation_SkinType_01.gltf"},
    {"Animation_SkinType_02", "glTF-Asset-Generator/Animation_SkinType/Animation_SkinType_02.gltf"},
    {"Animation_SkinType_03", "glTF-Asset-Generator/Animation_SkinType/Animation_SkinType_03.gltf"},
    {"AnimatedMorphCube_Binary", "glTF-Sample-Assets/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb"},
    {"AnimatedMorphCube_Quantized", "glTF-Sample-Assets/AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf"},
    {"AnimatedMorphCube_Gltf", "glTF-Sample-Assets/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"},
    {"AnimatedTriangle_Embedded", "glTF-Sample-Assets/AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf"},
    {"AnimatedTriangle_Gltf", "glTF-Sample-Assets/AnimatedTriangle/glTF/AnimatedTriangle.gltf"},
    {"BoxAnimated_Binary", "glTF-Sample-Assets/BoxAnimated/glTF-Binary/BoxAnimated.glb"},
    {"BoxAnimated_Embedded", "glTF-Sample-Assets/BoxAnimated/glTF-Embedded/BoxAnimated.gltf"},
    {"BoxAnimated_Gltf", "glTF-Sample-Assets/BoxAnimated/glTF/BoxAnimated.gltf"},
    {"CesiumMan_Binary", "glTF-Sample-Assets/CesiumMan/glTF-Binary/CesiumMan.glb"},
    {"CesiumMan_Gltf", "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf"},
    {"CesiumMilkTruck_Gltf", "glTF-Sample-Assets/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf"},
    {"InterpolationTest_Binary", "glTF-Sample-Assets/InterpolationTest/glTF-Binary/InterpolationTest.glb"},
    {"InterpolationTest_Gltf", "glTF-Sample-Assets/InterpolationTest/glTF/InterpolationTest.gltf"},
    {"MorphPrimitivesTest_Binary", "glTF-Sample-Assets/MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb"},
    {"MorphPrimitivesTest_Gltf", "glTF-Sample-Assets/MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf"},
    {"RiggedFigure_Binary", "glTF-Sample-Assets/RiggedFigure/glTF-Binary/RiggedFigure.glb"},
    {"RiggedFigure_Embedded", "glTF-Sample-Assets/RiggedFigure/glTF-Embedded/RiggedFigure.gltf"},
    {"RiggedFigure_Gltf", "glTF-Sample-Assets/RiggedFigure/glTF/RiggedFigure.gltf"},
    {"RiggedSimple_Binary", "glTF-Sample-Assets/RiggedSimple/glTF-Binary/RiggedSimple.glb"},
    {"RiggedSimple_Embedded", "glTF-Sample-Assets/RiggedSimple/glTF-Embedded/RiggedSimple.gltf"},
    {"RiggedSimple_Gltf", "glTF-Sample-Assets/RiggedSimple/glTF/RiggedSimple.gltf"},
    {"SimpleMorph_Embedded", "glTF-Sample-Assets/SimpleMorph/glTF-Embedded/SimpleMorph.gltf"},
    {"SimpleMorph_Gltf", "glTF-Sample-Assets/SimpleMorph/glTF/SimpleMorph.gltf"},
    {"SimpleSkin_Embedded", "glTF-Sample-Assets/SimpleSkin/glTF-Embedded/SimpleSkin.gltf"},
    {"SimpleSkin_Gltf", "glTF-Sample-Assets/SimpleSkin/glTF/SimpleSkin.gltf"},
    {"SimpleSparseAccessor_Embedded", "glTF-Sample-Assets/SimpleSparseAccessor/glTF-Embedded/SimpleSparseAccessor.gltf"},
    {"SimpleSparseAccessor_Gltf", "glTF-Sample-Assets/SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf"},
};

inline std::string corpus_dir() {
  if (const char* env = std::getenv("SKINREF_CORPUS_DIR"); env != nullptr && *env != '\0') return env;
  return SKINREF_CORPUS_DIR;
}

inline bool corpus_present() { return std::filesystem::is_directory(corpus_dir()); }

inline std::string corpus_skip_reason() {
  return "corpus not found at " + corpus_dir() +
         ": set SKINREF_CORPUS_DIR (CMake cache or environment) to the folder holding glTF-Sample-Assets and "
         "glTF-Asset-Generator to run the corpus tests";
}

inline std::string model_test_name(const ::testing::TestParamInfo<CorpusModel>& info) { return info.param.name; }

}  // namespace skinref::test

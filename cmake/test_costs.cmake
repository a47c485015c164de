# The slowest tests' running times, in seconds, measured on the 2-core CI machine kind (./run test on a fresh
# clone; each tree's Testing/Temporary/CTestCostData.txt). ctest -j starts the costliest tests first, but a
# fresh tree has no times yet, and the slow tests ran last, one core idle beside them: half a minute per tree.
# These are their COST properties: the release tree's tests by name (set in CMakeLists.txt), the sanitizer
# tree's suites by their "Suite.*" name (set by cmake/gtest_suites.cmake). Scheduling only: a stale figure
# costs time, never a result.
set(SKINREF_TEST_COSTS
  # release tree (./run test's release checks)
  golden_reproducible=25 python_module=22 engines.babylon=15 engines.assimp=15 package_consumer=14 bench_smoke=9
  golden.vulkan.million-dqs=9 golden.vulkan.million-lbs=7
  # sanitizer tree, one ctest per suite
  GpuVertexBoundsTest.*=100 Blender/BlenderRoundTripTest.*=93 All/RenderBuiltin.*=89 DiagnoseTest.*=66
  All/BuiltinScene.*=65 ConformanceRunner.*=58 CliTest.*=46 CpuSkinningBounds.*=42 GpuRenderMillionTest.*=36
  Corpus/GpuVertexBoundsCorpusTest.*=31 Scenes/GpuSkinningBuiltinTest.*=31 CpuSkinningBits.*=30
  Corpus/GpuAnimationCorpusTest.*=29 GpuContext.*=27 Corpus/GpuRenderCorpusTest.*=25 UserShaderCliTest.*=15
  Corpus/IndependentEngineCorpus.*=13 Corpus/AssimpEngineTest.*=13 SkinDqs.*=12 GoldenCommandTest.*=11)

# skinref_test_cost(NAME OUT): NAME's cost from the table, or empty.
function(skinref_test_cost name out)
  set(cost "")
  foreach(entry IN LISTS SKINREF_TEST_COSTS)
    string(FIND "${entry}" "=" separator REVERSE)
    string(SUBSTRING "${entry}" 0 ${separator} entry_name)
    if(entry_name STREQUAL name)
      math(EXPR value_start "${separator} + 1")
      string(SUBSTRING "${entry}" ${value_start} -1 cost)
    endif()
  endforeach()
  set(${out} "${cost}" PARENT_SCOPE)
endfunction()

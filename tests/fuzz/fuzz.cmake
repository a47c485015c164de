# The fuzz targets of tests/fuzz/ (docs/fuzzing.md), included by the top CMakeLists.txt in two ways:
# - SKINREF_FUZZ=ON (clang, build-fuzz/): one libFuzzer program fuzz_TARGET per target, linked with
#   -fsanitize=fuzzer,address,undefined against the layers compiled with fuzzer-no-link; ctest (label fuzz)
#   replays tests/fuzz_regressions/TARGET/ and runs each target for a short fixed time from the committed
#   seeds tests/fuzz/seeds/TARGET/.
# - the normal builds with tests (g++: build/, build-asan/): fuzz_replay_TARGET, the same target source with
#   tests/fuzz/replay_main.cc, replaying the regressions and the seeds (label fuzz), under the ASan build's
#   sanitizers too.
set(SKINREF_FUZZ_TARGETS gltf skv pose_dump recipe manifest png assimp shader_interface profile conformance_files)
# assimp_scene builds aiScene objects itself, so it needs Assimp's headers and library (the others do not: without
# Assimp, load_assimp_file refuses every file, which the `assimp` target then checks).
if(assimp_FOUND)
  list(APPEND SKINREF_FUZZ_TARGETS assimp_scene)
endif()
set(SKINREF_FUZZ_DIR ${CMAKE_SOURCE_DIR}/tests/fuzz)
set(SKINREF_FUZZ_REGRESSIONS ${CMAKE_SOURCE_DIR}/tests/fuzz_regressions)
# libFuzzer's limit on one allocation (-malloc_limit_mb; -rss_limit_mb=2048 bounds the whole process) per
# target, the same in run_fuzz.sh: 256 MB where the reader's allocations are bounded by its input's size (skv:
# counts checked against the bytes that remain; pose dumps, recipes, manifests, profiles, run records and queries
# files: their JSON text; png: the image
# limits, the chunk and inflate checks of read_png, and the harness decodes images of at most 1M pixels), so
# that an input of a few KB allocating more is an amplification finding (a PNG chunk declaring 1 GiB made
# stb_image allocate 1 GiB, under the 2 GiB limit alone). gltf and assimp keep 2048: a glTF file may plan up to
# kMaxPlannedBytes from declared counts (a sparse accessor without a buffer view).
function(skinref_fuzz_malloc_limit target out)
  if(target STREQUAL "gltf" OR target STREQUAL "assimp")
    set(${out} 2048 PARENT_SCOPE)
  else()
    set(${out} 256 PARENT_SCOPE)
  endif()
endfunction()
# Seconds of fuzzing per target in ctest (11 targets, two at a time on 2 cores: well under 3 minutes).
set(SKINREF_FUZZ_CTEST_SECONDS 12 CACHE STRING "Seconds each fuzz target runs in ctest (label fuzz)")

# The g++ replay programs share one compiled replay_main.cc.
if(NOT SKINREF_FUZZ)
  add_library(skinref_fuzz_replay_main OBJECT ${SKINREF_FUZZ_DIR}/replay_main.cc)
  target_compile_options(skinref_fuzz_replay_main PRIVATE ${SKINREF_WARNINGS})
endif()
foreach(target ${SKINREF_FUZZ_TARGETS})
  if(SKINREF_FUZZ)
    set(program fuzz_${target})
    add_executable(${program} ${SKINREF_FUZZ_DIR}/${target}_fuzz.cc)
    target_link_options(${program} PRIVATE -fsanitize=fuzzer)
  else()
    set(program fuzz_replay_${target})
    add_executable(${program} ${SKINREF_FUZZ_DIR}/${target}_fuzz.cc)
    target_link_libraries(${program} PRIVATE skinref_fuzz_replay_main)
  endif()
  if(target STREQUAL "manifest")
    # The clang tree builds no golden layer (it needs the backends): the reader's one file is compiled in.
    if(SKINREF_FUZZ)
      target_sources(${program} PRIVATE ${CMAKE_SOURCE_DIR}/tools/golden/golden_manifest.cc)
    else()
      target_link_libraries(${program} PRIVATE skinref_golden)
    endif()
  endif()
  if(target STREQUAL "conformance_files")
    # The clang tree builds no conformance layer (it needs the backends' layers): the readers' files are compiled in.
    if(SKINREF_FUZZ)
      target_sources(${program} PRIVATE ${CMAKE_SOURCE_DIR}/tools/conformance/run_record.cc
                                        ${CMAKE_SOURCE_DIR}/tools/conformance/queries_file.cc)
    else()
      target_link_libraries(${program} PRIVATE skinref_conformance)
    endif()
  endif()
  if(target STREQUAL "assimp_scene")
    target_link_libraries(${program} PRIVATE assimp::assimp)
  endif()
  if(target STREQUAL "profile")
    target_link_libraries(${program} PRIVATE skinref_profile)
  endif()
  if(target STREQUAL "shader_interface")
    # The interface readers and the SPIR-V patch need no Vulkan: their files are compiled in (the clang tree has
    # no gpu layer, and a tree without Vulkan none either).
    target_sources(${program} PRIVATE ${CMAKE_SOURCE_DIR}/gpu/interface_json.cc ${CMAKE_SOURCE_DIR}/gpu/shader_interface.cc
                                      ${CMAKE_SOURCE_DIR}/gpu/vertex_format.cc ${CMAKE_SOURCE_DIR}/gpu/vertex_interface.cc
                                      ${CMAKE_SOURCE_DIR}/gpu/spirv_xfb.cc)
    set(gpu_root ${CMAKE_BINARY_DIR}/layers/fuzz_gpu)  # "gpu/..." includes, where no gpu layer is built
    file(MAKE_DIRECTORY ${gpu_root})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/gpu ${gpu_root}/gpu SYMBOLIC)
    target_include_directories(${program} PRIVATE ${gpu_root})
  endif()
  if(target STREQUAL "skv")
    target_include_directories(${program} PRIVATE ${CMAKE_SOURCE_DIR}/include)  # skinref/dump.h, the C reader
  endif()
  skinref_top_include_root(${program})
  skinref_use_pch(${program} base)
  target_include_directories(${program} PRIVATE ${SKINREF_FUZZ_DIR})
  target_compile_options(${program} PRIVATE ${SKINREF_WARNINGS})
  target_link_libraries(${program} PRIVATE skinref_verify)

  if(SKINREF_FUZZ)
    skinref_fuzz_malloc_limit(${target} malloc_limit)
    # (a) every kept input replays (-runs=0: execute the given files and stop).
    add_test(NAME fuzz_regressions_${target}
             COMMAND ${program} -runs=0 -rss_limit_mb=2048 -malloc_limit_mb=${malloc_limit} -timeout=10
                     ${SKINREF_FUZZ_REGRESSIONS}/${target})
    # (b) a short run from the committed seeds into a fresh scratch corpus.
    add_test(NAME fuzz_run_${target}
             COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}> -DTARGET=${target}
                     -DSECONDS=${SKINREF_FUZZ_CTEST_SECONDS} -DMALLOC_LIMIT=${malloc_limit}
                     -DSEEDS=${SKINREF_FUZZ_DIR}/seeds/${target}
                     -DDICT=${SKINREF_FUZZ_DIR}/${target}.dict -DWORK=${CMAKE_BINARY_DIR}/fuzz-ctest/${target}
                     -P ${SKINREF_FUZZ_DIR}/ctest_fuzz_run.cmake)
    set_tests_properties(fuzz_regressions_${target} PROPERTIES LABELS "fuzz" TIMEOUT 60)
    set_tests_properties(fuzz_run_${target} PROPERTIES LABELS "fuzz" TIMEOUT 90)
  else()
    add_test(NAME fuzz_replay_${target}
             COMMAND ${program} ${SKINREF_FUZZ_REGRESSIONS}/${target} ${SKINREF_FUZZ_DIR}/seeds/${target})
    set_tests_properties(fuzz_replay_${target} PROPERTIES LABELS "fuzz" TIMEOUT 120)
  endif()
endforeach()

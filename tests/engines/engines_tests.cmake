# Real engines over the conformance suite (label engines, the release tree's; docs/engines.md): three.js,
# Babylon.js, PlayCanvas and Assimp, each adapter
# in examples/engines/ over every case, held to that engine's committed expectations, the Node.js .skv
# writer's own tests, the Node.js engines on skinned models within the any-order bounds, and the committed table in
# docs/engines.md kept current. The npm packages are ./run's
# to install (examples/engines/package-lock.json); without them, or without Node.js, the tests say so and
# skip. The Assimp adapter is a C++ client of Debian's libassimp, built in the release tree only
# (skinref_release_checks).
set(skinref_engines_dir ${CMAKE_SOURCE_DIR}/examples/engines)
file(READ ${skinref_engines_dir}/package.json skinref_engines_package)
string(JSON skinref_three_version GET "${skinref_engines_package}" dependencies three)
string(JSON skinref_babylon_version GET "${skinref_engines_package}" dependencies @babylonjs/core)
string(JSON skinref_playcanvas_version GET "${skinref_engines_package}" dependencies playcanvas)
add_test(NAME engines.skv_writer COMMAND sh -c "command -v node >/dev/null || { echo 'skipped: no node on PATH'; exit 77; }; exec node --test \"$0\"" ${skinref_engines_dir}/skv.test.mjs)
add_test(NAME engines.three
         COMMAND ${CMAKE_SOURCE_DIR}/tests/engines/run_engine.sh $<TARGET_FILE:skinref> ${skinref_engines_dir}/three
                 three.js ${skinref_three_version} ${CMAKE_BINARY_DIR}/engines/three)
add_test(NAME engines.babylon
         COMMAND ${CMAKE_SOURCE_DIR}/tests/engines/run_engine.sh $<TARGET_FILE:skinref> ${skinref_engines_dir}/babylon
                 Babylon.js ${skinref_babylon_version} ${CMAKE_BINARY_DIR}/engines/babylon)
add_test(NAME engines.playcanvas
         COMMAND ${CMAKE_SOURCE_DIR}/tests/engines/run_engine.sh $<TARGET_FILE:skinref> ${skinref_engines_dir}/playcanvas
                 PlayCanvas ${skinref_playcanvas_version} ${CMAKE_BINARY_DIR}/engines/playcanvas)
# The same adapters on the skinned built-in scenes and the corpus's characters at 20 times each, held to the
# any-order bounds (tight bounds that a correct engine still passes).
foreach(engine three babylon playcanvas)
  add_test(NAME engines.${engine}_on_skinned_models
           COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/engines/engine_on_skinned_models.py $<TARGET_FILE:skinref>
                   ${skinref_engines_dir}/${engine} ${SKINREF_CORPUS_DIR} ${CMAKE_BINARY_DIR}/engines/${engine}_on_skinned_models)
endforeach()
set(skinref_engine_expectations ${skinref_engines_dir}/three/expected.json ${skinref_engines_dir}/babylon/expected.json
    ${skinref_engines_dir}/playcanvas/expected.json)
set(skinref_engine_tests engines.skv_writer engines.three engines.babylon engines.playcanvas
    engines.three_on_skinned_models engines.babylon_on_skinned_models engines.playcanvas_on_skinned_models)
if(assimp_FOUND)
  add_executable(skinref_assimp_adapter EXCLUDE_FROM_ALL ${skinref_engines_dir}/assimp/adapter.cc)
  target_compile_options(skinref_assimp_adapter PRIVATE ${SKINREF_WARNINGS})
  target_include_directories(skinref_assimp_adapter PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(skinref_assimp_adapter PRIVATE assimp::assimp nlohmann_json::nlohmann_json)
  # The version in the table is the release's: Debian's package version where dpkg knows it, since Assimp's
  # v5.2.5 release still reports 5.2.4 (its CMakeLists.txt), as does its CMake package.
  set(skinref_assimp_version ${assimp_VERSION})
  execute_process(COMMAND dpkg-query -W -f=\${Version} libassimp-dev OUTPUT_VARIABLE skinref_assimp_package
                  RESULT_VARIABLE skinref_dpkg_status ERROR_QUIET)
  if(skinref_dpkg_status EQUAL 0 AND skinref_assimp_package MATCHES "^([0-9]+\\.[0-9]+\\.[0-9]+)")
    set(skinref_assimp_version ${CMAKE_MATCH_1})
  endif()
  # A process per query: Assimp crashes on a case, which then fails that case alone. Assimp 5.2.5 reads
  # normalized integer weights and keys into uninitialized floats (docs/engines.md). glibc's MALLOC_PERTURB_
  # fills each new heap block with one byte, but a block reused from the thread cache keeps its old bytes, which
  # depend on the heap's layout and so on the length of the checkout's path: with the cache off, those six cases
  # give the same verdict on every run and in every folder.
  add_test(NAME engines.assimp
           COMMAND skinref conformance run --engine-name Assimp --engine-version ${skinref_assimp_version} --jobs 2
                   --query "$<TARGET_FILE:skinref_assimp_adapter> {model} {animation} {time} {out}"
                   --out ${CMAKE_BINARY_DIR}/engines/assimp --expect ${skinref_engines_dir}/assimp/expected.json)
  set_tests_properties(engines.assimp PROPERTIES ENVIRONMENT "MALLOC_PERTURB_=165;GLIBC_TUNABLES=glibc.malloc.tcache_count=0")
  list(APPEND skinref_engine_expectations ${skinref_engines_dir}/assimp/expected.json)
  list(APPEND skinref_engine_tests engines.assimp)
endif()
add_test(NAME engines.table_is_current
         COMMAND skinref conformance table ${skinref_engine_expectations} --check ${CMAKE_SOURCE_DIR}/docs/engines.md)
list(APPEND skinref_engine_tests engines.table_is_current)
set_tests_properties(${skinref_engine_tests} PROPERTIES LABELS "engines" SKIP_RETURN_CODE 77)

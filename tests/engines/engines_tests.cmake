# Real engines over the conformance suite (label engines, the release tree's; docs/engines.md): each adapter
# in examples/engines/ over every case, held to that engine's committed expectations, the Node.js .skv
# writer's own tests, and the committed table in docs/engines.md kept current. The npm packages are ./run's
# to install (examples/engines/package-lock.json); without them, or without Node.js, the tests say so and
# skip. The Assimp adapter is a C++ client of Debian's libassimp, built in the release tree only
# (skinref_release_checks).
set(skinref_engines_dir ${CMAKE_SOURCE_DIR}/examples/engines)
file(READ ${skinref_engines_dir}/package.json skinref_engines_package)
string(JSON skinref_three_version GET "${skinref_engines_package}" dependencies three)
string(JSON skinref_babylon_version GET "${skinref_engines_package}" dependencies @babylonjs/core)
add_test(NAME engines.skv_writer COMMAND sh -c "command -v node >/dev/null || { echo 'skipped: no node on PATH'; exit 77; }; exec node --test \"$0\"" ${skinref_engines_dir}/skv.test.mjs)
add_test(NAME engines.three
         COMMAND ${CMAKE_SOURCE_DIR}/tests/engines/run_engine.sh $<TARGET_FILE:skinref> ${skinref_engines_dir}/three
                 three.js ${skinref_three_version} ${CMAKE_BINARY_DIR}/engines/three)
add_test(NAME engines.babylon
         COMMAND ${CMAKE_SOURCE_DIR}/tests/engines/run_engine.sh $<TARGET_FILE:skinref> ${skinref_engines_dir}/babylon
                 Babylon.js ${skinref_babylon_version} ${CMAKE_BINARY_DIR}/engines/babylon)
set(skinref_engine_expectations ${skinref_engines_dir}/three/expected.json ${skinref_engines_dir}/babylon/expected.json)
set(skinref_engine_tests engines.skv_writer engines.three engines.babylon)
if(assimp_FOUND)
  add_executable(skinref_assimp_adapter EXCLUDE_FROM_ALL ${skinref_engines_dir}/assimp/adapter.cc)
  target_compile_options(skinref_assimp_adapter PRIVATE ${SKINREF_WARNINGS})
  target_include_directories(skinref_assimp_adapter PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(skinref_assimp_adapter PRIVATE assimp::assimp nlohmann_json::nlohmann_json)
  add_test(NAME engines.assimp
           COMMAND skinref conformance run --engine-name Assimp --engine-version ${assimp_VERSION}
                   --batch "$<TARGET_FILE:skinref_assimp_adapter> {queries}" --out ${CMAKE_BINARY_DIR}/engines/assimp
                   --expect ${skinref_engines_dir}/assimp/expected.json)
  list(APPEND skinref_engine_expectations ${skinref_engines_dir}/assimp/expected.json)
  list(APPEND skinref_engine_tests engines.assimp)
endif()
add_test(NAME engines.table_is_current
         COMMAND skinref conformance table ${skinref_engine_expectations} --check ${CMAKE_SOURCE_DIR}/docs/engines.md)
list(APPEND skinref_engine_tests engines.table_is_current)
set_tests_properties(${skinref_engine_tests} PROPERTIES LABELS "engines" SKIP_RETURN_CODE 77)

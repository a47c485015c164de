# blender_roundtrip_regenerated (labels assimp, blender): when Blender is installed, the round-trip files are
# made anew from this build's exports (make_roundtrip_files.sh, about 20 s) and the Blender round-trip tests
# run on them; the committed files in files/ serve every other run, so CI needs no Blender. Without Blender
# the test shows as skipped.
find_program(SKINREF_BLENDER blender)
if(SKINREF_BLENDER)
  add_test(NAME blender_roundtrip_regenerated
           COMMAND sh -c "out=$(mktemp -d) && trap 'rm -rf \"$out\"' EXIT && \
sh '${CMAKE_SOURCE_DIR}/tests/assimp/blender/make_roundtrip_files.sh' '$<TARGET_FILE:skinref>' \"$out\" >\"$out/make.log\" 2>&1 \
|| { cat \"$out/make.log\"; exit 1; }; \
SKINREF_BLENDER_FILES_DIR=\"$out\" '$<TARGET_FILE:assimp_import_tests>' --gtest_filter='Blender/*'")
  set_tests_properties(blender_roundtrip_regenerated PROPERTIES LABELS "assimp;blender" TIMEOUT 600
                       ENVIRONMENT "BLENDER=${SKINREF_BLENDER};SKINREF_CORPUS_DIR=${SKINREF_CORPUS_DIR}")
else()
  add_test(NAME blender_roundtrip_regenerated
           COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: Blender is not installed; the committed round-trip files are tested (assimp_import_tests)")
  set_tests_properties(blender_roundtrip_regenerated PROPERTIES LABELS "assimp;blender" SKIP_REGULAR_EXPRESSION "SKIPPED")
endif()

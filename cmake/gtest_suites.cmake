# One ctest per GoogleTest suite, instead of gtest_discover_tests' one per test (CMakeLists.txt,
# SKINREF_CTEST_PER_SUITE; the sanitizer tree's default). Run after the program links:
#   cmake -DEXE=PROGRAM -DOUT=FILE [-DFILTER=GTEST_FILTER] [-DLABELS=a,b] [-DGPU_ASAN_OPTIONS=...] -P gtest_suites.cmake
# It lists the program's tests (--gtest_list_tests) and writes FILE, which ctest includes: for each suite S an
# add_test named "S.*" that runs `PROGRAM --gtest_filter=S.*` (with FILTER's exclusions), labelled LABELS. A
# suite in which no test passed, all of them skipped (GTEST_SKIP, e.g. the corpus cases without the corpus),
# shows as skipped; one with some skipped shows as passed and names them in its output.
cmake_policy(SET CMP0057 NEW)  # if(... IN_LIST ...) in script mode
foreach(variable EXE OUT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "gtest_suites.cmake: -D${variable}=... is required")
  endif()
endforeach()
set(filter_arguments)
if(DEFINED FILTER AND NOT FILTER STREQUAL "")
  set(filter_arguments "--gtest_filter=${FILTER}")
endif()
execute_process(COMMAND "${EXE}" --gtest_list_tests ${filter_arguments} OUTPUT_VARIABLE listing
                RESULT_VARIABLE result ERROR_VARIABLE errors TIMEOUT 120)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "gtest_suites.cmake: ${EXE} --gtest_list_tests failed (${result}):\n${listing}\n${errors}")
endif()

# The listing: "Suite." (and "  # TypeParam = ..." for typed suites) at the start of a line, its tests indented.
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites)
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT suites)
  message(FATAL_ERROR "gtest_suites.cmake: ${EXE} lists no test suite")
endif()

string(REPLACE "," ";" LABELS "${LABELS}")

# FILTER's exclusions (after '-') apply within every suite's filter too.
set(exclusions "")
if(DEFINED FILTER AND FILTER MATCHES "-(.*)$")
  set(exclusions "-${CMAKE_MATCH_1}")
endif()
# Skipped: GoogleTest's summary says no test passed and lists only skipped ones up to the end of the output. ctest
# marks a test skipped on a match whatever its exit status, so a failed test (its "[  FAILED  ]" lines follow
# the skipped ones) or a sanitizer's report must not match. The regular expression spans lines: the newlines
# in it are real ones, inside a bracket argument of the file written.
set(nl "\n")
set(all_skipped "\\[  PASSED  \\] 0 tests\\.${nl}\\[  SKIPPED \\] [0-9]+ tests?, listed below:${nl}"
                "(\\[  SKIPPED \\] [^${nl}]+${nl}?)*$")
string(CONCAT all_skipped ${all_skipped})
set(content "# Written by cmake/gtest_suites.cmake from ${EXE} --gtest_list_tests; do not edit.\n")
include(${CMAKE_CURRENT_LIST_DIR}/test_costs.cmake)  # the slow suites' COST, so that ctest starts them first
# The sanitizer tree's gpu suites run without LeakSanitizer (SKINREF_GPU_ASAN_OPTIONS: CMakeLists.txt says why).
set(environment_property "")
if(DEFINED GPU_ASAN_OPTIONS AND NOT GPU_ASAN_OPTIONS STREQUAL "" AND "gpu" IN_LIST LABELS)
  set(environment_property " ENVIRONMENT [=[ASAN_OPTIONS=${GPU_ASAN_OPTIONS}]=]")
endif()
foreach(suite IN LISTS suites)
  set(name "${suite}.*")
  skinref_test_cost("${name}" cost)
  set(cost_property "")
  if(cost)
    set(cost_property " COST ${cost}")
  endif()
  string(APPEND content "add_test([=[${name}]=] [=[${EXE}]=] [=[--gtest_filter=${suite}.*${exclusions}]=])\n")
  string(APPEND content "set_tests_properties([=[${name}]=] PROPERTIES LABELS [=[${LABELS}]=]${cost_property}${environment_property}"
                        " SKIP_REGULAR_EXPRESSION [=[${all_skipped}]=])\n")
endforeach()
file(WRITE "${OUT}.tmp" "${content}")
file(RENAME "${OUT}.tmp" "${OUT}")

# ctest package_consumer: the CMake package as an engine's test suite uses it.
#   1. `cmake --install BUILD_DIR --prefix WORK/prefix`; the package's files are there (config, version,
#      targets, one library and the headers per reference layer) and nothing of the backends or programs;
#   2. configures tests/package/consumer against that prefix alone (find_package(skinref), skinref::reference)
#      with the build's compiler and generator, and builds it;
#   3. `skinref skin builtin:bend --time 0.25 --out WORK/ref.skv` with the build's program;
#   4. runs the consumer: it evaluates the same moment through the installed library, writes WORK/consumer.skv
#      and requires every value bit for bit equal to ref.skv's (consumer/main.cc);
#   5. `skinref compare WORK/ref.skv WORK/consumer.skv` must exit 0 with "PASS: 0 over, 0 unbounded".
# cmake -DSKINREF_CLI=skinref -DBUILD_DIR=build -DCONSUMER_DIR=tests/package/consumer -DWORK_DIR=DIR
#       -DCXX_COMPILER=c++ -DGENERATOR=... [-DMAKE_PROGRAM=...] [-DBUILD_TYPE=...] -P package_test.cmake
foreach(variable SKINREF_CLI BUILD_DIR CONSUMER_DIR WORK_DIR CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "package_test.cmake: -D${variable}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

# Runs a command; fails the test with its output unless it exits 0. The output is left in <name>_output.
function(run_step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE error)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "${name} failed (${result}): ${command}\n${output}\n${error}")
  endif()
  set(${name}_output "${output}" PARENT_SCOPE)
endfunction()

# 1. Install.
run_step(install "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
file(GLOB_RECURSE config_files LIST_DIRECTORIES false RELATIVE "${prefix}" "${prefix}/*/cmake/skinref/*.cmake")
foreach(expected skinrefConfig.cmake skinrefConfigVersion.cmake skinrefTargets.cmake)
  if(NOT config_files MATCHES "(^|;)[^;]*/cmake/skinref/${expected}(;|$)")
    message(FATAL_ERROR "the install has no lib*/cmake/skinref/${expected} (found: ${config_files})")
  endif()
endforeach()
foreach(layer core io anim skin raster verify)
  file(GLOB_RECURSE library LIST_DIRECTORIES false "${prefix}/lib*/libskinref_${layer}.a")
  file(GLOB headers LIST_DIRECTORIES false "${prefix}/include/skinref/${layer}/*.h")
  if(NOT library OR NOT headers)
    message(FATAL_ERROR "the install lacks libskinref_${layer}.a or include/skinref/${layer}/*.h")
  endif()
endforeach()
file(GLOB installed_layers LIST_DIRECTORIES true RELATIVE "${prefix}/include/skinref" "${prefix}/include/skinref/*")
list(SORT installed_layers)
if(NOT installed_layers STREQUAL "anim;core;io;profile;raster;skin;verify")
  message(FATAL_ERROR "include/skinref/ should hold the reference layers only, it holds: ${installed_layers}")
endif()
file(GLOB_RECURSE installed_files LIST_DIRECTORIES true "${prefix}/*")
foreach(path ${installed_files})
  if(IS_SYMLINK "${path}")
    message(FATAL_ERROR "the install holds a link (into the build or source tree?): ${path}")
  endif()
endforeach()

# 2. The consumer, against the prefix only.
set(consumer_build "${WORK_DIR}/consumer-build")
set(configure_arguments -S "${CONSUMER_DIR}" -B "${consumer_build}" -G "${GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_PREFIX_PATH=${prefix}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(MAKE_PROGRAM)
  list(APPEND configure_arguments "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(BUILD_TYPE)
  list(APPEND configure_arguments "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()
run_step(configure "${CMAKE_COMMAND}" ${configure_arguments})
file(STRINGS "${consumer_build}/CMakeCache.txt" skinref_dir_line REGEX "^skinref_DIR:")
file(GLOB_RECURSE installed_config LIST_DIRECTORIES false "${prefix}/*/skinrefConfig.cmake")
get_filename_component(installed_config_dir "${installed_config}" DIRECTORY)
if(NOT skinref_dir_line MATCHES "=(.*)$" OR NOT CMAKE_MATCH_1 STREQUAL installed_config_dir)
  message(FATAL_ERROR "the consumer found skinref elsewhere (${skinref_dir_line}), not in ${installed_config_dir}")
endif()
run_step(build "${CMAKE_COMMAND}" --build "${consumer_build}")
set(consumer "${consumer_build}/package_consumer")

# 3. The program's dump of the same moment.
set(reference_dump "${WORK_DIR}/ref.skv")
set(consumer_dump "${WORK_DIR}/consumer.skv")
run_step(skin "${SKINREF_CLI}" skin builtin:bend --time 0.25 --out "${reference_dump}")

# 4. The consumer: bit for bit, the pose moves the mesh, the verify layer's comparison.
run_step(consumer "${consumer}" "${reference_dump}" "${consumer_dump}")
message(STATUS "package_consumer:\n${consumer_output}")

# 5. skinref compare on the two dumps.
run_step(compare "${SKINREF_CLI}" compare "${reference_dump}" "${consumer_dump}")
if(NOT compare_output MATCHES "PASS: 0 over, 0 unbounded of [1-9][0-9]* values")
  message(FATAL_ERROR "skinref compare ${reference_dump} ${consumer_dump} did not pass with nothing over:\n"
                      "${compare_output}")
endif()
message(STATUS "skinref compare:\n${compare_output}")

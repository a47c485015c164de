# The CMake package (cmake/install.cmake), label package: package_test.cmake installs this build into a
# prefix under the build directory, builds tests/package/consumer against it and checks what the consumer
# computes against the skinref program's own dump. Included from CMakeLists.txt's tests.
#
# Skipped under SKINREF_SANITIZE: the installed libraries are then instrumented, and the consumer, a project
# of its own, would need the sanitizer flags too; the unsanitized build runs it.
if(SKINREF_SANITIZE)
  add_test(NAME package_consumer
           COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: the package test runs in the unsanitized build only")
  set_tests_properties(package_consumer PROPERTIES LABELS "package" SKIP_REGULAR_EXPRESSION "SKIPPED")
else()
  add_test(NAME package_consumer
           COMMAND ${CMAKE_COMMAND} -DSKINREF_CLI=$<TARGET_FILE:skinref> -DBUILD_DIR=${CMAKE_BINARY_DIR}
                   -DCONSUMER_DIR=${CMAKE_CURRENT_LIST_DIR}/consumer -DWORK_DIR=${CMAKE_BINARY_DIR}/package-test
                   -DCXX_COMPILER=${CMAKE_CXX_COMPILER} "-DGENERATOR=${CMAKE_GENERATOR}"
                   -DMAKE_PROGRAM=${CMAKE_MAKE_PROGRAM} -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
                   -P ${CMAKE_CURRENT_LIST_DIR}/package_test.cmake)
  # Building the consumer compiles one file with Eigen: well within this, even beside other tests.
  set_tests_properties(package_consumer PROPERTIES LABELS "package" TIMEOUT 600)
endif()

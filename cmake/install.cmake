# The CMake package: `cmake --install build --prefix P` installs the double-precision reference (the layers
# whose folder is under reference/: core, io, anim, skin, raster, verify, profile) for an engine's own test suite:
#
#   P/lib/libskinref_LAYER.a                     one static library per layer, as in the build
#   P/include/skinref/LAYER/*.h                  their headers; with P/include/skinref on the include path
#                                                they are included as in the build: #include "io/gltf_load.h"
#   P/lib/cmake/skinref/skinrefConfig.cmake      find_package(skinref), with skinrefConfigVersion.cmake and
#                                                skinrefTargets.cmake: skinref::LAYER for each layer and
#                                                skinref::reference, all of them
#
# The CPU and Vulkan backends, the Backend layer and the programs are not installed. Installed, every layer
# sees the one include/skinref/ root: the layering is checked in the build (the layering ctests), not in a
# consumer. The tests/package/ ctest installs the build and builds a consumer against it.
#
# (lib is CMAKE_INSTALL_LIBDIR: lib/<multiarch> with an installation prefix of /usr on Debian.)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The package's version is the command line's (skinref --version), read from its one definition.
file(STRINGS ${CMAKE_SOURCE_DIR}/tools/cli/main.cc skinref_version_line
     REGEX "^#define SKINREF_VERSION \"[0-9]+\\.[0-9]+\\.[0-9]+\"$")
if(NOT skinref_version_line MATCHES "\"([0-9]+\\.[0-9]+\\.[0-9]+)\"")
  message(FATAL_ERROR "cmake/install.cmake: no '#define SKINREF_VERSION \"X.Y.Z\"' in tools/cli/main.cc")
endif()
set(SKINREF_PACKAGE_VERSION ${CMAKE_MATCH_1})

set(skinref_installed_layers)
get_property(skinref_all_layers GLOBAL PROPERTY SKINREF_LAYERS)
foreach(skinref_layer_name ${skinref_all_layers})
  get_property(skinref_layer_folder GLOBAL PROPERTY SKINREF_LAYER_FOLDER_${skinref_layer_name})
  if(skinref_layer_folder MATCHES "^reference/" AND TARGET skinref_${skinref_layer_name})
    list(APPEND skinref_installed_layers ${skinref_layer_name})
  endif()
endforeach()

# skinref::reference: every installed layer (CMake orders the static libraries by their declared uses).
add_library(skinref_reference INTERFACE)
add_library(skinref::reference ALIAS skinref_reference)
set(skinref_installed_targets)
foreach(skinref_layer_name ${skinref_installed_layers})
  set_target_properties(skinref_${skinref_layer_name} PROPERTIES EXPORT_NAME ${skinref_layer_name})
  target_link_libraries(skinref_reference INTERFACE skinref_${skinref_layer_name})
  list(APPEND skinref_installed_targets skinref_${skinref_layer_name})
  get_property(skinref_layer_folder GLOBAL PROPERTY SKINREF_LAYER_FOLDER_${skinref_layer_name})
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${skinref_layer_folder}/ DESTINATION include/skinref/${skinref_layer_name}
          FILES_MATCHING PATTERN "*.h")
endforeach()
# io/accessor.h includes <tiny_gltf.h> (the io layer links TinyGLTF privately, which a static library exports
# as link-only).
target_link_libraries(skinref_reference INTERFACE TinyGLTF::TinyGLTF)
# The determinism flags (top of CMakeLists.txt) for the consumer's own files too: the headers' inline
# functions are compiled there, and the linker keeps one copy of each for the library and the consumer alike.
target_compile_options(skinref_reference INTERFACE ${SKINREF_FP_FLAGS})
set_target_properties(skinref_reference PROPERTIES EXPORT_NAME reference)

install(TARGETS ${skinref_installed_targets} skinref_reference EXPORT skinrefTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(SKINREF_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/skinref)
install(EXPORT skinrefTargets NAMESPACE skinref:: FILE skinrefTargets.cmake DESTINATION ${SKINREF_PACKAGE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/skinrefConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/skinrefConfig.cmake
                              INSTALL_DESTINATION ${SKINREF_PACKAGE_DIR})
# 0.x: a minor version may change the interface.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/skinrefConfigVersion.cmake
                                 VERSION ${SKINREF_PACKAGE_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/skinrefConfig.cmake ${CMAKE_BINARY_DIR}/package/skinrefConfigVersion.cmake
        DESTINATION ${SKINREF_PACKAGE_DIR})

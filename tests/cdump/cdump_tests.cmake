# The C dump headers (include/skinref/dump.h, the umbrella over dump_write.h and dump_read.h): its test program
# as C99 and as C++, the writer and the reader each included alone, the example engine (examples/engine_dump),
# and both against the skinref program. Included from CMakeLists.txt inside if(SKINREF_BUILD_TESTS); the global
# compile options (determinism, SKINREF_SANITIZE) apply to the C targets too.
enable_language(C)

add_executable(engine_dump examples/engine_dump/engine_dump.c)
add_executable(dump_h_test tests/cdump/dump_h_test.c)
add_executable(dump_h_test_cxx tests/cdump/dump_h_test_cxx.cc)
add_executable(dump_write_alone_test tests/cdump/dump_write_alone_test.c)
add_executable(dump_read_alone_test tests/cdump/dump_read_alone_test.c)
set_target_properties(engine_dump dump_h_test dump_write_alone_test dump_read_alone_test
                      PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
foreach(cdump_target engine_dump dump_h_test dump_h_test_cxx dump_write_alone_test dump_read_alone_test)
  target_include_directories(${cdump_target} PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(${cdump_target} PRIVATE -Wall -Wextra -pedantic -Werror)
endforeach()

set(SKINREF_CDUMP_DIR ${CMAKE_BINARY_DIR}/cdump-test)
file(MAKE_DIRECTORY ${SKINREF_CDUMP_DIR}/c ${SKINREF_CDUMP_DIR}/cxx ${SKINREF_CDUMP_DIR}/write_alone
     ${SKINREF_CDUMP_DIR}/read_alone)
add_test(NAME cdump.dump_h COMMAND dump_h_test ${SKINREF_CDUMP_DIR}/c)
add_test(NAME cdump.dump_h_cxx COMMAND dump_h_test_cxx ${SKINREF_CDUMP_DIR}/cxx)
# dump_write.h and dump_read.h each alone: exact bytes against docs/formats.md's layout, both ways.
add_test(NAME cdump.dump_write_alone COMMAND dump_write_alone_test ${SKINREF_CDUMP_DIR}/write_alone)
add_test(NAME cdump.dump_read_alone COMMAND dump_read_alone_test ${SKINREF_CDUMP_DIR}/read_alone)
# skinref skin/pose write the references, engine_dump its dumps; skinref compare and bisect must accept them.
add_test(NAME cdump.cli
         COMMAND ${CMAKE_COMMAND} -DSKINREF=$<TARGET_FILE:skinref> -DENGINE=$<TARGET_FILE:engine_dump>
                 -DWORK=${SKINREF_CDUMP_DIR}/cli -P ${CMAKE_SOURCE_DIR}/tests/cdump/cdump_cli.cmake)
set_tests_properties(cdump.dump_h cdump.dump_h_cxx cdump.dump_write_alone cdump.dump_read_alone cdump.cli
                     PROPERTIES LABELS "cdump" TIMEOUT 120)

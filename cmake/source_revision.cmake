# Script mode, run at every build of skinref_bench (CMakeLists.txt, target skinref_source_revision): writes
# OUT, a header defining SKINREF_SOURCE_REVISION as the commit the build's sources are at and whether tracked
# files differ from it, so that benchmark figures name the code they measured (the bench context's
# skinref_source; the table's "source" row). The file is rewritten only when the text changes, so that an
# unchanged revision rebuilds nothing.
# cmake -DSOURCE_DIR=DIR -DOUT=FILE -P source_revision.cmake
foreach(variable SOURCE_DIR OUT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "source_revision.cmake: -D${variable}=... is required")
  endif()
endforeach()
set(revision "unknown (not built from a git checkout, or git is missing)")
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                  RESULT_VARIABLE head_result OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(head_result EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    # Tracked files against HEAD, staged or not; --no-optional-locks: a build never writes the index.
    execute_process(COMMAND "${GIT_EXECUTABLE}" --no-optional-locks -C "${SOURCE_DIR}" diff --quiet HEAD --
                    RESULT_VARIABLE diff_result OUTPUT_QUIET ERROR_QUIET)
    if(diff_result EQUAL 0)
      set(revision "${head}")
    elseif(diff_result EQUAL 1)
      set(revision "${head}, with local changes to tracked files")
    else()
      set(revision "${head} (whether tracked files differ from it is unknown)")
    endif()
  endif()
endif()
set(text "// Written by cmake/source_revision.cmake at build time.\n#define SKINREF_SOURCE_REVISION \"${revision}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()

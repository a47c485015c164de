# The Python module python/skinref/ (pure Python 3 with NumPy): its unittest suite, tests/python/test_*.py,
# run as one ctest, python_module (label "python"), against this build's skinref and the golden folder.
# The interpreter must import numpy (Debian: python3-numpy). FindPython takes the first python3 on PATH, which
# may be a pyenv or virtualenv one without it while Debian's numpy is installed for /usr/bin/python3, so that
# one is tried next (-DPython3_EXECUTABLE=PATH names another). With neither, python_module_unavailable shows
# the suite as skipped, with the reason.
find_package(Python3 COMPONENTS Interpreter)
set(skinref_python_candidates)
if(Python3_Interpreter_FOUND)
  list(APPEND skinref_python_candidates "${Python3_EXECUTABLE}")
endif()
list(APPEND skinref_python_candidates /usr/bin/python3)
set(SKINREF_TEST_PYTHON "")
foreach(skinref_python ${skinref_python_candidates})
  if(NOT SKINREF_TEST_PYTHON AND EXISTS "${skinref_python}")
    execute_process(COMMAND "${skinref_python}" -c "import numpy" RESULT_VARIABLE skinref_python_numpy
                    OUTPUT_QUIET ERROR_QUIET)
    if(skinref_python_numpy EQUAL 0)
      set(SKINREF_TEST_PYTHON "${skinref_python}")
    endif()
  endif()
endforeach()

if(SKINREF_TEST_PYTHON)
  add_test(NAME python_module
           COMMAND "${SKINREF_TEST_PYTHON}" -m unittest discover -v -s ${CMAKE_SOURCE_DIR}/tests/python
                   -t ${CMAKE_SOURCE_DIR}/tests/python)
  # PYTHONDONTWRITEBYTECODE: no __pycache__ folders in the source tree.
  set(skinref_python_environment "SKINREF_EXE=$<TARGET_FILE:skinref>" "PYTHONPATH=${CMAKE_SOURCE_DIR}/python"
                                 "SKINREF_GOLDEN_DIR=${CMAKE_SOURCE_DIR}/golden" "PYTHONDONTWRITEBYTECODE=1")
  set_tests_properties(python_module PROPERTIES LABELS "python" TIMEOUT 600
                       ENVIRONMENT "${skinref_python_environment}")
else()
  add_test(NAME python_module_unavailable
           COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: no Python 3 interpreter that imports numpy"
                   "(tried: ${skinref_python_candidates}; Debian: python3-numpy)")
  set_tests_properties(python_module_unavailable PROPERTIES LABELS "python" SKIP_REGULAR_EXPRESSION "SKIPPED")
endif()

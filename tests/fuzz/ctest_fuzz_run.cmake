# ctest's short fuzz run of one target (tests/fuzz/fuzz.cmake): PROGRAM for SECONDS (one allocation at most
# MALLOC_LIMIT MB) from the seeds SEEDS into the fresh scratch corpus WORK/corpus, artifacts (crash-, timeout-,
# oom-, leak- files) into WORK/findings/.
# Fails when libFuzzer reports a finding (non-zero exit) or leaves an artifact.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/findings)
set(args -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=${MALLOC_LIMIT}
         -print_final_stats=1
         -artifact_prefix=${WORK}/findings/)
if(EXISTS ${DICT})
  list(APPEND args -dict=${DICT})
endif()
execute_process(COMMAND ${PROGRAM} ${args} ${WORK}/corpus ${SEEDS} RESULT_VARIABLE status
                OUTPUT_VARIABLE output ERROR_VARIABLE output)
file(GLOB findings ${WORK}/findings/*)
string(REGEX MATCHALL "stat::number_of_executed_units: [0-9]+" runs "${output}")
string(REGEX MATCHALL "cov: [0-9]+ ft: [0-9]+" coverage "${output}")
list(LENGTH coverage n)
if(n GREATER 0)
  math(EXPR last "${n} - 1")
  list(GET coverage ${last} coverage)
endif()
message("fuzz ${TARGET}: ${runs}, ${coverage}, ${SECONDS} s")
if(NOT status EQUAL 0 OR findings)
  message("${output}")
  message(FATAL_ERROR "fuzz ${TARGET}: finding(s) ${findings} (exit ${status}); keep the input under "
                      "tests/fuzz_regressions/${TARGET}/ once fixed")
endif()

# ctest bench_smoke: skinref_bench on a small filter (the copies, every 100k-vertex CPU-side skinning case,
# the 100k LBS 4-influence Vulkan cases, 64-joint animation, one clip and two) with a very short minimum time and two
# repetitions and the Vulkan validation layer on, then skinref_bench_table on its JSON; both must succeed and
# the table must hold a figure for every CPU-side case. Vulkan cells may read "skipped (...)" (no device)
# but must be there.
# cmake -DBENCH=skinref_bench -DTABLE=skinref_bench_table -DOUT=DIR -P bench_smoke.cmake
foreach(variable BENCH TABLE OUT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "bench_smoke.cmake: -D${variable}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

set(filter "^BM_Copy/cpu|^BM_Skin/(reference|cpu_1t|cpu_all)/(lbs|dqs)/vertices:100000/|^BM_Skin/vulkan_(device|e2e)/lbs/vertices:100000/influences:4/|^BM_Animation(Clip)?/joints:64$")
# With the validation layer on (SKINREF_BENCH_VALIDATE=1): any warning or error fails the run, and so does a
# Vulkan object still alive when the context goes (bench/bench_vulkan.h).
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env SKINREF_BENCH_VALIDATE=1
          "${BENCH}" "--benchmark_filter=${filter}" --benchmark_min_time=0.01 --benchmark_repetitions=2
          "--benchmark_out=${OUT}/bench.json" --benchmark_out_format=json
  RESULT_VARIABLE bench_result OUTPUT_VARIABLE bench_output ERROR_VARIABLE bench_error)
if(NOT bench_result EQUAL 0)
  message(FATAL_ERROR "skinref_bench failed (${bench_result}):\n${bench_output}\n${bench_error}")
endif()

execute_process(
  COMMAND "${TABLE}" "${OUT}/bench.json" --out "${OUT}/bench.md"
  RESULT_VARIABLE table_result OUTPUT_VARIABLE table_output ERROR_VARIABLE table_error)
if(NOT table_result EQUAL 0)
  message(FATAL_ERROR "skinref_bench_table failed (${table_result}):\n${table_output}\n${table_error}")
endif()
file(READ "${OUT}/bench.md" table)

# A figure: "M vertices/s (fraction)".
set(figure "[0-9][0-9.]* \\([0-9][0-9.]*\\)")
foreach(method LBS DQS)
  foreach(influences 1 2 4 8)
    if(NOT table MATCHES "\n\\| ${method} \\| 100k \\| ${influences} \\| ${figure} \\| ${figure} \\| ${figure} \\|")
      message(FATAL_ERROR "no figures for ${method} 100k x ${influences} in ${OUT}/bench.md:\n${table}")
    endif()
  endforeach()
endforeach()
if(NOT table MATCHES "\n\\| LBS \\| 100k \\| 4 \\| [^|]+ \\| [^|]+ \\| [^|]+ \\| (${figure}|skipped [^|]+) \\| (${figure}|skipped [^|]+) \\|")
  message(FATAL_ERROR "no Vulkan cells for LBS 100k x 4 in ${OUT}/bench.md:\n${table}")
endif()
# 64 joints: one clip (poses/s, time, limit, fraction), then two clips (poses/s, time).
set(number "[0-9][0-9.]*")
if(NOT table MATCHES "\n\\| 64 \\| ${number} \\| ${number} us \\| ${number} \\| ${number} \\| ${number} \\| ${number} us \\|")
  message(FATAL_ERROR "no animation figure for 64 joints in ${OUT}/bench.md:\n${table}")
endif()
# The commit the figures are of (cmake/source_revision.cmake): a hash, or "unknown (...)" outside a checkout.
if(NOT table MATCHES "\n\\| source \\| ([0-9a-f]+|unknown)[^|]* \\|")
  message(FATAL_ERROR "no source revision in ${OUT}/bench.md:\n${table}")
endif()
if(NOT table MATCHES "\n\\| CPU copy, 1 thread [^|]+ \\| [0-9][0-9.]* \\|")
  message(FATAL_ERROR "no copy bandwidth in ${OUT}/bench.md:\n${table}")
endif()
message(STATUS "bench_smoke: ${OUT}/bench.md\n${table}")

#!/usr/bin/env bash
# run_fuzz.sh SECONDS [TARGET...]: runs the libFuzzer targets of build-fuzz/ (docs/fuzzing.md), called by
# `./run fuzz [SECONDS]` once the builds are done. Every target (or the ones named) runs for SECONDS, two at a
# time (the machine has 2 cores), from its persisted corpus out/fuzz/corpus/TARGET/ and the seeds made now
# into out/fuzz/seeds/TARGET/ (tests/fuzz/make_seeds.sh, with build/skinref); findings (crash-, timeout-,
# oom-, leak- files) go to out/fuzz/findings/TARGET/, each run's log to out/fuzz/logs/TARGET.log. Limits per
# input: -timeout=10 (an input over 10 s is a finding), -rss_limit_mb=2048, -malloc_limit_mb per target (one
# allocation; malloc_limit_of below), -max_len per target (max_len_of below), ASan options (asan_options_of below).
# -report_slow_units=1: libFuzzer's slowest-unit figure counts inputs of 1 s and more (by default only those
# of 10 s and more, so its "0 s" said nothing below 10 s); it keeps each new slowest one as a slow-unit- file
# beside the findings (an input over 1 s is not a finding: the limits allow it).
# Then a table per target: this run's executions and executions/s, the executions over all runs
# (out/fuzz/totals.tsv), the edge coverage and features (libFuzzer's final cov: and ft:), the slowest input
# (whole seconds, the initial pass over the corpus included; "<1" when none took 1 s), the corpus size and
# the findings. Exits 1 when out/fuzz/findings/ holds any finding (move a fixed one to
# tests/fuzz_regressions/TARGET/ and delete it there), 2 on a usage or harness error.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
all=(gltf skv pose_dump recipe manifest png assimp assimp_scene shader_interface profile conformance_files)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
case "$seconds" in '' | *[!0-9]*) echo "run_fuzz: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
out=out/fuzz
mkdir -p "$out/logs"
for t in "${targets[@]}"; do
  [ -x "build-fuzz/fuzz_$t" ] || { echo "run_fuzz: build-fuzz/fuzz_$t is missing (./run fuzz builds it)" >&2; exit 2; }
  mkdir -p "$out/corpus/$t" "$out/findings/$t"
done

echo "== fuzz seeds (out/fuzz/seeds/)"
rm -rf "$out/seeds"
tests/fuzz/make_seeds.sh build/skinref "$out/seeds" | grep '^make_seeds' || true

count_findings() {  # count_findings TARGET
  find "$out/findings/$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \
    -o -name 'leak-*' \) | wc -l
}

# The largest input libFuzzer makes (and reads: longer corpus files are truncated): by default it takes the
# largest seed's length, 480 KB for gltf (a corpus model with its buffers), and mutating such inputs held gltf at
# about 440 inputs/s against 1,000 to 2,000 with 64 KB; 64 KB still holds every built-in scene's export and
# most corpus models' JSON. pose_dump: its largest seeds are 38 KB dumps of chain64. assimp: each input costs
# a fork of the ASan process (about 3 ms alone, in the kernel: page-table copy and copy-on-write faults) plus
# Assimp's import, and the corpus's 100 to 500 KB Collada and FBX files held it at 8 to 17 inputs/s; with 8 KB
# (the seeds skinned-triangle.dae and .fbx are whole at that size, and import with a skin and an animation)
# it ran at 157/s against 99/s with 16 KB, with about the parent's same edges (2,507 and 2,645 in 90 s).
max_len_of() {  # max_len_of TARGET
  case "$1" in
    gltf) echo 65536 ;;
    pose_dump) echo 16384 ;;
    assimp) echo 8192 ;;
    *) echo 0 ;;
  esac
}

# The largest single allocation, as in tests/fuzz/fuzz.cmake (skinref_fuzz_malloc_limit says why): 256 MB
# where the reader is bounded by its input's size, 2048 (the RSS limit) for gltf and assimp.
malloc_limit_of() {  # malloc_limit_of TARGET
  case "$1" in
    gltf | assimp) echo 2048 ;;
    *) echo 256 ;;
  esac
}

# ASan's quarantine of freed memory (256 MB by default) and 30-frame allocation stacks cost the page faults and
# stack-depot time that dominated the parsers' profiles; 16 MB and 5 frames find the same errors in a fresh
# allocation, with shorter allocation stacks in a report.
asan_options=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=16:malloc_context_size=5}
# assimp: no allocation stacks. Its forked child records one per allocation in ASan's stack depot, whose
# pages it shares copy-on-write with the parent, so each import copied and faulted them in: the same 500
# corpus inputs (one core of the Intel Xeon VM, run twice each way) took 13.5 and 13.6 s with 5 frames, 11.7
# and 11.9 s with none. A report still has the faulting stack; replaying a finding (build-fuzz/fuzz_assimp
# FILE, or ctest's fuzz_replay) with the default options gives the allocation's.
asan_options_of() {  # asan_options_of TARGET
  case "$1" in
    assimp) echo "${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=16:malloc_context_size=0}" ;;
    *) echo "$asan_options" ;;
  esac
}

run_one() {  # run_one TARGET
  local t=$1 dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict")
  ASAN_OPTIONS=$(asan_options_of "$t") UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "build-fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -report_slow_units=1 -rss_limit_mb=2048 \
    -print_final_stats=1 \
    -max_len="$(max_len_of "$t")" -malloc_limit_mb="$(malloc_limit_of "$t")" \
    -artifact_prefix="$out/findings/$t/" "${dict[@]}" "$out/corpus/$t" "$out/seeds/$t" \
    >"$out/logs/$t.log" 2>&1 || echo "libFuzzer exit status $?" >>"$out/logs/$t.log"
}

echo "== fuzzing ${targets[*]} for $seconds s each, two at a time (logs: $out/logs/)"
declare -A before
for t in "${targets[@]}"; do before[$t]=$(count_findings "$t"); done
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge 2 ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait || true

totals=$out/totals.tsv
[ -f "$totals" ] || printf 'target\texecutions\truns\tseconds\n' >"$totals"
total_findings=0
printf '\n%-12s %8s %10s %12s %14s %7s %8s %8s %7s %9s\n' target seconds exec/s executions "total execs" edges \
  features slowest corpus findings
for t in "${targets[@]}"; do
  log=$out/logs/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | awk '{print $2}')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | awk '{print $2}')
  slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -n 1)
  case "$slowest" in '') slowest='?' ;; 0) slowest='<1 s' ;; *) slowest="$slowest s" ;; esac
  execs=${execs:-0}
  previous=$(awk -F'\t' -v t="$t" '$1 == t { print $2 "\t" $3 "\t" $4 }' "$totals")
  p_execs=$(echo "$previous" | cut -f1); p_runs=$(echo "$previous" | cut -f2); p_secs=$(echo "$previous" | cut -f3)
  cumulative=$(( ${p_execs:-0} + execs ))
  awk -F'\t' -v t="$t" '$1 != t' "$totals" >"$totals.tmp"
  printf '%s\t%s\t%s\t%s\n' "$t" "$cumulative" $(( ${p_runs:-0} + 1 )) $(( ${p_secs:-0} + seconds )) >>"$totals.tmp"
  mv "$totals.tmp" "$totals"
  findings=$(count_findings "$t")
  new=$(( findings - before[$t] ))
  total_findings=$((total_findings + findings))
  corpus=$(find "$out/corpus/$t" -type f | wc -l)
  note=""
  [ "$new" -gt 0 ] && note=" ($new new)"
  printf '%-12s %8s %10s %12s %14s %7s %8s %8s %7s %9s\n' "$t" "$seconds" "${rate:-?}" "$execs" "$cumulative" \
    "${cov:-?}" "${ft:-?}" "$slowest" "$corpus" "$findings$note"
done
echo
echo "executions: this run; total execs: over every run (out/fuzz/totals.tsv); edges: libFuzzer's final cov:"
echo "(instrumented skinref code; Debian's tinygltf, stb, Assimp are not instrumented); features: its ft:;"
echo "slowest: libFuzzer's slowest input in whole seconds (kept as $out/findings/TARGET/slow-unit-*; not a finding)."
if [ "$total_findings" -gt 0 ]; then
  echo "run_fuzz: $total_findings finding(s) under $out/findings/ (reproduce: build-fuzz/fuzz_TARGET FILE;" \
       "once fixed, keep the input in tests/fuzz_regressions/TARGET/ and delete it there)" >&2
  exit 1
fi
echo "run_fuzz: no findings"

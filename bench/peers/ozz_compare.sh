#!/usr/bin/env bash
# ozz_compare.sh: skinref's one-thread CPU linear blend skinning beside ozz-animation's
# ozz::geometry::SkinningJob, on the same mesh, in alternating rounds.
#
# Usage:
#   bench/peers/ozz_compare.sh OZZ_SOURCE_DIR [--rounds N] [--vertices N] [--kernel avx2|avx512|scalar]
#                              [--skinref-bench PATH]
#
#   OZZ_SOURCE_DIR        an ozz-animation source tree (a checkout or an extracted archive; tested with 0.16.0):
#                         its include/ and src/geometry/runtime/skinning_job.cc are all that is compiled.
#   --rounds N            rounds, each one skinref run then one ozz run (default 5).
#   --vertices N          vertices, one of skinref_bench's BM_Skin sizes: 100000, 1000000 (default), 16000000.
#   --kernel K            skinref's kernel forced (BM_SkinKernel/K/per_vertex/lbs/normals, 1M vertices only) in
#                         place of the one it chooses (BM_Skin/cpu_1t); with avx2, ozz is built with
#                         -march=haswell, so that neither side uses AVX-512: an AVX2 machine's comparison on an
#                         AVX-512 one.
#   --skinref-bench PATH  the skinref_bench binary (default: build/skinref_bench or build/bench/skinref_bench
#                         under the repository). The script never builds it: build it first (./run bench, or
#                         cmake --build build --target skinref_bench).
#
# What it does:
# 1. Compiles bench/peers/ozz_skinning_bench.cc with ozz's skinning_job.cc (ozz's maths are header-only) by
#    ${CXX:-c++} -std=c++17 -O3 -march=native -DNDEBUG into a temporary folder under ${TMPDIR:-/tmp}, removed
#    at exit; nothing is written in the repository or the ozz tree. -ffp-contract is left to the compiler's
#    default (GCC: fast; ozz's maths use explicit FMA intrinsics under -march=native on an FMA CPU anyway).
#    skinref's own kernels are built by its CMake project (-ffp-contract=off, FMA by intrinsics).
# 2. Per round: skinref_bench --benchmark_filter='^BM_Skin/cpu_1t/lbs/vertices:N/influences:4(/|$)'
#    --benchmark_format=json, its vertices/s counter (Google Benchmark's manual time over about 0.5 s); then
#    ozz_skinning_bench --vertices N, the median of its 5 samples of 50 runs after 5 warm-up runs. Both: 4
#    influences, positions and normals, one thread, 64 joints, the mesh of bench/bench_scenes.cc.
# 3. Prints one line per round, the medians over the rounds, skinref / ozz, the CPU model and the kernel
#    skinref_bench reports (its JSON context's skinref_cpu_kernel and the case's label).
#
# Run it on a quiet machine, e.g. `nice -n 19 bench/peers/ozz_compare.sh /tmp/ozz-src` on a shared one.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/../.." && pwd)

[[ $# -ge 1 ]] || usage
case "$1" in -h | --help) usage ;; esac
ozz_dir=$1
shift
rounds=5
vertices=1000000
skinref_bench=""
forced_kernel=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
    --vertices) vertices=${2:?--vertices needs a value}; shift 2 ;;
    --skinref-bench) skinref_bench=${2:?--skinref-bench needs a value}; shift 2 ;;
    --kernel) forced_kernel=${2:?--kernel needs a value}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "ozz_compare.sh: unknown argument: $1" >&2; usage ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ozz_compare.sh: --rounds must be a positive integer" >&2; exit 2; }
case "$vertices" in
  100000 | 1000000 | 16000000) ;;
  *) echo "ozz_compare.sh: --vertices must be one of skinref_bench's sizes: 100000, 1000000, 16000000" >&2; exit 2 ;;
esac

case "$forced_kernel" in
  "" | avx512 | scalar) march=native ;;
  avx2) march=haswell ;;
  *) echo "ozz_compare.sh: --kernel must be avx2, avx512 or scalar" >&2; exit 2 ;;
esac
if [[ -n $forced_kernel && $vertices != 1000000 ]]; then
  echo "ozz_compare.sh: --kernel measures 1M vertices (BM_SkinKernel); leave --vertices at 1000000" >&2
  exit 2
fi

skinning_job="$ozz_dir/src/geometry/runtime/skinning_job.cc"
if [[ ! -f $skinning_job || ! -f $ozz_dir/include/ozz/geometry/runtime/skinning_job.h ]]; then
  echo "ozz_compare.sh: $ozz_dir is not an ozz-animation source tree (no $skinning_job)" >&2
  exit 2
fi

if [[ -z $skinref_bench ]]; then
  for candidate in "$repo/build/skinref_bench" "$repo/build/bench/skinref_bench"; do
    if [[ -x $candidate ]]; then skinref_bench=$candidate; break; fi
  done
fi
if [[ -z $skinref_bench || ! -x $skinref_bench ]]; then
  echo "ozz_compare.sh: no skinref_bench (looked in $repo/build and $repo/build/bench; --skinref-bench PATH)." >&2
  echo "Build it first: ./run bench, or cmake --build build --target skinref_bench" >&2
  exit 1
fi

if [[ -n $forced_kernel ]]; then
  case_name="BM_SkinKernel/$forced_kernel/per_vertex/lbs/normals"
  filter="^$case_name/manual_time\$"
else
  case_name="BM_Skin/cpu_1t/lbs/vertices:$vertices/influences:4"
  filter="^$case_name(/|\$)"
fi
listed=$("$skinref_bench" --benchmark_list_tests --benchmark_filter="$filter" 2>/dev/null || true)
if [[ -z $listed ]]; then
  echo "ozz_compare.sh: $skinref_bench has no case matching $filter" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ozz_compare.XXXXXX")
trap 'rm -rf "$work"' EXIT
cxx=${CXX:-c++}
echo "building ozz_skinning_bench: $cxx -std=c++17 -O3 -march=$march -DNDEBUG ($("$cxx" --version | head -n 1))"
"$cxx" -std=c++17 -O3 -march="$march" -DNDEBUG -I"$ozz_dir/include" \
  "$script_dir/ozz_skinning_bench.cc" "$skinning_job" -o "$work/ozz_skinning_bench"

# A field of the pretty-printed JSON Google Benchmark writes: "key": value, one per line.
json_field() {
  {
    sed -n "s/^ *\"$1\": *\"\(.*\)\",\{0,1\}$/\1/p" "$2"    # a string
    sed -n "s/^ *\"$1\": *\([^\",]*\),\{0,1\}$/\1/p" "$2"   # a number or a literal
  } | head -n 1
}

median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.6e\n", v[(NR + 1) / 2];
                                      else printf "%.6e\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cpu_family=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cpu_model_number=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

skinref_rates=()
ozz_rates=()
kernel=""
label=""
source_revision=""
ozz_header=""
for ((round = 1; round <= rounds; ++round)); do
  json="$work/skinref_$round.json"
  "$skinref_bench" --benchmark_filter="$filter" --benchmark_format=json >"$json" 2>"$work/skinref_$round.err" || {
    cat "$work/skinref_$round.err" >&2
    echo "ozz_compare.sh: skinref_bench failed" >&2
    exit 1
  }
  if grep -q '"error_occurred": true' "$json"; then
    echo "ozz_compare.sh: skinref_bench skipped the case: $(json_field error_message "$json")" >&2
    exit 1
  fi
  skinref_rate=$(json_field 'vertices\/s' "$json")
  [[ -n $skinref_rate ]] || { echo "ozz_compare.sh: no vertices/s in skinref_bench's output ($json)" >&2; exit 1; }
  kernel=${forced_kernel:-$(json_field skinref_cpu_kernel "$json")}
  label=$(json_field label "$json")
  source_revision=$(json_field skinref_source "$json")

  "$work/ozz_skinning_bench" --vertices "$vertices" >"$work/ozz_$round.txt"
  ozz_rate=$(sed -n 's/^vertices_per_second_median=//p' "$work/ozz_$round.txt")
  [[ -n $ozz_rate ]] || { echo "ozz_compare.sh: no result from ozz_skinning_bench" >&2; exit 1; }
  ozz_header=$(head -n 1 "$work/ozz_$round.txt")

  skinref_rates+=("$skinref_rate")
  ozz_rates+=("$ozz_rate")
  awk -v r="$round" -v s="$skinref_rate" -v o="$ozz_rate" \
    'BEGIN { printf "round %d: skinref %.1f M vertices/s, ozz %.1f M vertices/s, skinref/ozz %.2f\n", r, s / 1e6, o / 1e6, s / o }'
done

skinref_median=$(printf '%s\n' "${skinref_rates[@]}" | median)
ozz_median=$(printf '%s\n' "${ozz_rates[@]}" | median)
echo
echo "cpu: $cpu_model (family $cpu_family, model $cpu_model_number)"
echo "skinref: $skinref_bench (source ${source_revision:-unknown}), $case_name"
echo "skinref kernel: ${kernel:-unknown} ($label)"
echo "ozz: $ozz_dir, -march=$march; $ozz_header"
awk -v n="$rounds" -v s="$skinref_median" -v o="$ozz_median" 'BEGIN {
  printf "median of %d rounds: skinref %.1f M vertices/s, ozz %.1f M vertices/s\n", n, s / 1e6, o / 1e6
  printf "skinref/ozz: %.2f\n", s / o }'

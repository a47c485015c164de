#!/usr/bin/env bash
# Assimp built from source under skinref's conformance suite: the row of a newer Assimp than Debian's
# libassimp-dev (5.2.5), with the project's adapter (docs/engines.md, the Assimp sections).
#
#   examples/engines/assimp/newest.sh ASSIMP_SOURCE_DIR WORK_DIR
#
# ASSIMP_SOURCE_DIR is an Assimp source tree (a release tag's checkout or `git archive`; its test/ folder is not
# needed). The script configures a lean build of it in WORK_DIR/build (the glTF importer alone: no exporters,
# tools, samples or tests; shared; the system's zlib), builds it with 2 jobs, installs it in WORK_DIR/install,
# compiles the adapter against it into WORK_DIR/adapter and runs the suite with it as the engines.assimp test
# does (a process per query, the same heap settings), writing the report card in WORK_DIR/run/ and the run's
# verdicts in WORK_DIR/expected.json (--write-expectations). It downloads nothing.
# Not part of ./run test: it needs an Assimp source tree and build/skinref (./run builds it), and it takes a few
# minutes.
#
# Environment:
#   ADAPTER         the adapter source (default: examples/engines/assimp/adapter.cc)
#   ENGINE_VERSION  the version in the report (default: the PROJECT(Assimp VERSION ...) of the source tree's
#                   CMakeLists.txt; Assimp's v5.2.5 tag says 5.2.4 there)
#   EXPECT          an expectations file to hold the run to (--expect); the exit status then says whether it did
# Exit status: 0 when every case passes (or, with EXPECT, the run matched it), 1 otherwise, 2 for bad usage, else
# the failing step's.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 ASSIMP_SOURCE_DIR WORK_DIR" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
mkdir -p "$2"
work=$(cd "$2" && pwd)
repo=$(cd "$(dirname "$0")/../../.." && pwd)
adapter=${ADAPTER:-$repo/examples/engines/assimp/adapter.cc}
[ -f "$src/CMakeLists.txt" ] || { echo "$src: not an Assimp source tree (no CMakeLists.txt)" >&2; exit 2; }
[ -x "$repo/build/skinref" ] || { echo "$repo/build/skinref: missing (./run builds it)" >&2; exit 2; }
version=${ENGINE_VERSION:-$(sed -n 's/^PROJECT(Assimp VERSION \([0-9][0-9.]*\).*/\1/ip' "$src/CMakeLists.txt" | head -n 1)}
[ -n "$version" ] || { echo "$src/CMakeLists.txt: no PROJECT(Assimp VERSION ...); set ENGINE_VERSION" >&2; exit 2; }

echo "== Assimp $version from $src"
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DASSIMP_BUILD_ALL_IMPORTERS_BY_DEFAULT=OFF -DASSIMP_BUILD_GLTF_IMPORTER=ON -DASSIMP_NO_EXPORT=ON \
  -DASSIMP_BUILD_TESTS=OFF -DASSIMP_BUILD_ASSIMP_TOOLS=OFF -DASSIMP_BUILD_SAMPLES=OFF -DASSIMP_BUILD_DOCS=OFF \
  -DASSIMP_WARNINGS_AS_ERRORS=OFF -DASSIMP_BUILD_ZLIB=OFF -DASSIMP_BUILD_USE_CCACHE=OFF -DASSIMP_IGNORE_GIT_HASH=ON \
  -DCMAKE_INSTALL_PREFIX="$work/install" >"$work/configure.log"
cmake --build "$work/build" -j2 >"$work/build.log"
cmake --install "$work/build" >"$work/install.log"
lib=$(dirname "$(find "$work/install" -name 'libassimp.so' -print -quit)")

echo "== the adapter: $adapter"
g++ -std=c++20 -O2 -Wall -Wextra -I"$repo/include" -I"$work/install/include" "$adapter" -L"$lib" -lassimp \
  -Wl,-rpath,"$lib" -o "$work/adapter"
echo "the adapter reports Assimp $("$work/adapter" --version)"

echo "== the conformance suite"
expect=()
[ -z "${EXPECT:-}" ] || expect=(--expect "$(cd "$(dirname "$EXPECT")" && pwd)/$(basename "$EXPECT")")
cd "$repo"
# The heap settings of the engines.assimp test (tests/engines/engines_tests.cmake): Assimp reads some keys and
# weights into uninitialized floats, whose bytes these make the same on every run.
MALLOC_PERTURB_=165 GLIBC_TUNABLES=glibc.malloc.tcache_count=0 \
  build/skinref conformance run --engine-name Assimp --engine-version "$version" --jobs 2 \
  --query "$work/adapter {model} {animation} {time} {out}" --out "$work/run" \
  --write-expectations "$work/expected.json" "${expect[@]}"

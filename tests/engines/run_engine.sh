#!/bin/sh
# run_engine.sh SKINREF ENGINE_DIR NAME VERSION OUT: the ctest of one engine (label engines): its adapter
# (ENGINE_DIR/adapter.mjs, a batch adapter) over the whole conformance suite, held to ENGINE_DIR/expected.json.
# Exit 0 as expected, 1 not, 77 (skipped) without Node.js or the npm packages (./run installs both).
set -eu
skinref=$1 engine_dir=$2 name=$3 version=$4 out=$5
packages=$(dirname "$engine_dir")/node_modules
if ! command -v node >/dev/null; then
  echo "skipped: no node on PATH (./run installs the Debian package nodejs)"
  exit 77
fi
if [ ! -d "$packages" ]; then
  echo "skipped: the npm packages are not installed in $packages (./run installs them: npm ci)"
  exit 77
fi
exec "$skinref" conformance run --engine-name "$name" --engine-version "$version" \
  --batch "node $engine_dir/adapter.mjs {queries}" --out "$out" --expect "$engine_dir/expected.json"

#!/usr/bin/env bash
# history.sh SKINREF OUT: the engines' history (./run engines --history; docs/engines.md, "Over their releases").
# Plays the current conformance suite with older releases from npm: three.js's last 10 minor releases and the
# newest release of each of the last 3 majors of Babylon.js and PlayCanvas, up to the version package.json pins.
# Each release is installed into OUT/ENGINE@VERSION/node_modules beside a copy of its adapter (which imports its
# engine by package name), run with `skinref conformance run`, and judged into OUT/ENGINE@VERSION/expected.json.
# A release the adapter cannot drive (an API it lacks) is named and left out. Prints the expectations files, oldest
# first per engine, one per line, for `skinref conformance history`. Not part of ./run test: it downloads.
set -euo pipefail
skinref=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

# The releases to play: stable versions up to the pinned one; per minor (three.js, 0.MINOR.PATCH) or per
# major, the newest; the last COUNT of those groups.
releases() {  # PACKAGE PINNED GROUPING COUNT
  npm view "$1" versions --json | node -e '
    const [pinned, grouping, count] = process.argv.slice(1);
    const key = (v) => { const p = v.split(".").map(Number); return grouping === "minor" ? p[0] * 1e6 + p[1] : p[0]; };
    const order = (a, b) => { const x = a.split(".").map(Number), y = b.split(".").map(Number);
                              return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; };
    const all = JSON.parse(require("fs").readFileSync(0, "utf8")).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
    const kept = all.filter((v) => order(v, pinned) <= 0).sort(order);
    const newest = new Map();
    for (const v of kept) newest.set(key(v), v);
    console.log([...newest.values()].slice(-Number(count)).join("\n"));' "$2" "$3" "$4"
}

# play ENGINE NAME VERSION PACKAGES...: installs the release, runs the suite, prints its expectations file.
play() {
  local engine=$1 name=$2 version=$3; shift 3
  local dir="$out/$engine@$version"
  mkdir -p "$dir/$engine"
  cp "$here/batch.mjs" "$here/skv.mjs" "$dir/"
  cp "$here/$engine/adapter.mjs" "$dir/$engine/"
  [ -f "$dir/package.json" ] || echo '{"private": true, "type": "module"}' > "$dir/package.json"
  if [ ! -d "$dir/node_modules" ]; then
    npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "$@" >&2
  fi
  local status=0
  "$skinref" conformance run --engine-name "$name" --engine-version "$version" --out "$dir/run" \
    --batch "node $dir/$engine/adapter.mjs {queries}" --write-expectations "$dir/expected.json" >"$dir/run.log" 2>&1 ||
    status=$?
  if [ "$status" -gt 1 ] || ! grep -q '"pass"' "$dir/expected.json" 2>/dev/null; then
    echo "history: $name $version: the adapter could not drive it (exit $status; $dir/run.log)" >&2
    return 0
  fi
  echo "history: $(grep -m 1 "conformant to" "$dir/run.log")" >&2
  echo "$dir/expected.json"
}

pinned() { node -e 'console.log(require(process.argv[1]).dependencies[process.argv[2]])' "$here/package.json" "$1"; }

for v in $(releases three "$(pinned three)" minor 10); do play three three.js "$v" "three@$v"; done
for v in $(releases @babylonjs/core "$(pinned @babylonjs/core)" major 3); do
  play babylon Babylon.js "$v" "@babylonjs/core@$v" "@babylonjs/loaders@$v"
done
for v in $(releases playcanvas "$(pinned playcanvas)" major 3); do play playcanvas PlayCanvas "$v" "playcanvas@$v"; done

#!/usr/bin/env bash
# make_seeds.sh SKINREF OUT [CORPUS]: the seed inputs of every fuzz target, made with the skinref program
# SKINREF into OUT/TARGET/: the built-in scenes exported as .gltf and .glb, their .skv and pose dumps, renders
# (PNG), the golden manifest and recipes, the conformance cases, the committed seeds (tests/fuzz/seeds/), and, when CORPUS (the
# shared corpus, default ../shared/corpus) exists, its glTF/GLB files under 2 MB and its Assimp files
# (assimp/). A missing corpus is said on stderr; the seeds are then fewer.
set -euo pipefail
skinref=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=${3:-$root/../shared/corpus}
targets=(gltf skv pose_dump recipe manifest png assimp assimp_scene shader_interface profile conformance_files)
for t in "${targets[@]}"; do
  mkdir -p "$out/$t"
  cp -f "$here/seeds/$t/"* "$out/$t/" 2>/dev/null || true
done

# The built-in scenes except million (over 1,000,000 vertices: too slow per input).
for scene in twist bend chain64 eight-influences node-transforms; do
  "$skinref" export "builtin:$scene" --out "$out/gltf/$scene.glb"
  "$skinref" export "builtin:$scene" --out "$out/gltf/$scene.gltf"
  for t in 0 0.5; do
    "$skinref" skin "builtin:$scene" --time "$t" --out "$out/skv/$scene-$t.skv"
    "$skinref" skin "builtin:$scene" --time "$t" --precision f32 --out "$out/skv/$scene-$t-f32.skv"
    "$skinref" pose "builtin:$scene" --time "$t" --out "$out/pose_dump/$scene-$t.json"
  done
  "$skinref" render "builtin:$scene" --time 0.5 --size 32x32 --out "$out/png/$scene.png"
done
# The conformance cases (every accessor layout: sparse, byteOffset, byteStride, normalized integers), their
# buffer embedded as a data: URI, since the fuzz target resolves no external file.
for case_dir in "$root"/conformance/cases/*/; do
  id=$(basename "$case_dir")
  python3 -c '
import base64, json, sys
gltf = json.load(open(sys.argv[1]))
gltf["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(open(sys.argv[2], "rb").read()).decode()
json.dump(gltf, open(sys.argv[3], "w"))
' "$case_dir/$id.gltf" "$case_dir/$id.bin" "$out/gltf/conformance-$id.gltf"
done
"$skinref" render builtin:bend --size 16x8 --view depth --ids "$out/png/bend-ids.png" --out "$out/png/bend-depth.png"
for recipe in "$root"/golden/recipes/*.json; do
  cp -f "$recipe" "$out/recipe/"
  "$skinref" pose builtin:bend --recipe "$recipe" --out "$out/pose_dump/recipe-$(basename "$recipe")" 2>/dev/null || true
done
cp -f "$root/golden/manifest.json" "$out/manifest/"
# A few golden PNGs (the smallest).
find "$root/golden" -name '*.png' -size -64k 2>/dev/null | sort | head -n 8 | while read -r png; do
  cp -f "$png" "$out/png/$(echo "${png#$root/golden/}" | tr / _)"
done

if [ -d "$corpus" ]; then
  # Each file as it is, and as skinref exports it to one .glb (a .gltf with external buffers loads in the
  # fuzz target only that way: it resolves no URIs).
  find "$corpus" \( -iname '*.gltf' -o -iname '*.glb' \) -size -2M | sort | while read -r model; do
    name=$(echo "${model#$corpus/}" | tr / _)
    cp -f "$model" "$out/gltf/$name"
    "$skinref" export "$model" --out "$out/gltf/$name.export.glb" >/dev/null 2>&1 || true
  done
  if [ -d "$corpus/assimp" ]; then
    find "$corpus/assimp" -type f \( -iname '*.fbx' -o -iname '*.dae' \) -size -2M | while read -r model; do
      cp -f "$model" "$out/assimp/"
    done
  fi
else
  echo "make_seeds: no shared corpus at $corpus: seeds from the built-in scenes and the tests' files only" >&2
fi
for t in "${targets[@]}"; do
  echo "make_seeds: $t: $(find "$out/$t" -type f | wc -l) seeds"
done

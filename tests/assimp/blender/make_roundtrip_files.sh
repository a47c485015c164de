#!/bin/sh
# Make the Blender round-trip files: every input is first written as .glb by skinref (so that Blender reads
# skinref's own understanding of the model), then imported by Blender and exported as FBX and Collada by
# roundtrip.py (see its header for every option and why).
#
#   tests/assimp/blender/make_roundtrip_files.sh SKINREF_EXE OUT_DIR
#
# Needs Blender 3.4 (Debian: apt-get install --no-install-recommends blender); BLENDER overrides the command.
# The corpus is read from $SKINREF_CORPUS_DIR (default: ../shared/corpus beside the repository). When `assimp` (Debian's
# assimp-utils) is on PATH, OUT_DIR/assimp_info.txt gets `assimp info FILE` (Assimp's default post-processing for
# `info`, which joins identical vertices) for each produced file, timings left out, and a line with the counts of
# a raw import (`assimp info -r`).
# Not part of the build or of CI: the files it made are committed in tests/assimp/blender/files/.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 SKINREF_EXE OUT_DIR" >&2
    exit 2
fi
skinref=$1
out=$2
corpus=${SKINREF_CORPUS_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)/../shared/corpus}
blender=${BLENDER:-blender}
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

builtins="twist bend chain64 eight-influences node-transforms"   # not 'million': far too big for test data
models="CesiumMan RiggedSimple RiggedFigure SimpleSkin"

names=""
for n in $builtins; do
    "$skinref" export "builtin:$n" --out "$work/$n.glb" >/dev/null
    echo "builtin:$n" > "$work/$n.source"
    names="$names $n"
done
for m in $models; do
    src=""
    for cand in "glTF-Binary/$m.glb" "glTF/$m.gltf" "glTF-Embedded/$m.gltf"; do
        if [ -f "$corpus/glTF-Sample-Assets/$m/$cand" ]; then
            src="glTF-Sample-Assets/$m/$cand"
            break
        fi
    done
    if [ -z "$src" ]; then
        echo "$0: no glTF file for $m under $corpus/glTF-Sample-Assets/$m" >&2
        exit 2
    fi
    "$skinref" export "$corpus/$src" --out "$work/$m.glb" >/dev/null
    echo "corpus:$src" > "$work/$m.source"
    names="$names $m"
done

for n in $names; do
    echo "== $n"
    "$blender" -b --factory-startup -P "$here/roundtrip.py" -- "$work/$n.glb" "$out" --name "$n" \
        --source "skinref export $(cat "$work/$n.source") --out $n.glb" > "$work/$n.log" 2>&1 || {
        cat "$work/$n.log" >&2
        echo "$0: Blender failed on $n" >&2
        exit 1
    }
    grep -E "^(roundtrip.py|Error|ERROR|Traceback)" "$work/$n.log" || true
done

if command -v assimp >/dev/null 2>&1; then
    info="$out/assimp_info.txt"
    {
        echo "# assimp info FILE for each file here ($(assimp version 2>/dev/null | grep -i 'version' | head -n 1 | sed 's/^ *//'))"
        echo "# progress, timing and memory lines and material properties left out"
    } > "$info"
    for n in $names; do
        for ext in fbx dae; do
            f="$n.$ext"
            echo "" >> "$info"
            echo "=== $f" >> "$info"
            if (cd "$out" && assimp info "$f") > "$work/info.txt" 2>&1; then
                grep -v -E ' %$|^Launching|^Validating|^Importing|import took|^Memory consumption|^        [0-9]+ \(' \
                    "$work/info.txt" | sed '/^$/N;/^\n$/D' >> "$info"
                (cd "$out" && assimp info "$f" -r) 2>&1 | grep -E '^(Nodes|Meshes|Vertices|Faces|Bones|Animation Channels): *[0-9]' |
                    tr -s ' ' | paste -s -d ',' | sed 's/^/raw import (assimp info -r): /; s/,/, /g' >> "$info"
            else
                echo "FAILED to load:" >> "$info"
                tail -n 5 "$work/info.txt" >> "$info"
            fi
        done
    done
    echo "wrote $info"
fi

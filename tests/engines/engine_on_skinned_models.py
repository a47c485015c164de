#!/usr/bin/env python3
"""engine_on_skinned_models.py SKINREF ENGINE_DIR CORPUS_DIR OUT: a real engine on skinned models, held to skinref's
any-order bounds (the bounds are tight, and a correct engine still passes them).

The engine's batch adapter (ENGINE_DIR/adapter.mjs, the conformance protocol: docs/conformance.md) plays the five
skinned built-in scenes (exported to .gltf) and, where the corpus is present, CesiumMan, RiggedFigure and
RiggedSimple, at 20 float32 times each, evenly spread over the clip. Each dump is compared (`skinref compare`, its
default any-order bounds) with skinref's reference under the engine's documented conventions (docs/engines.md):
normals=blend-upper3x3 for every engine, and rotation=nlerp for PlayCanvas; three.js's and PlayCanvas's four
influences on eight-influences, and three.js's normals by the mesh node's normal matrix times its inverse on
node-transforms (mesh-node=normals-by-normal-matrix-times-inverse), whose mesh node is not a rotation times a
uniform scale. Prints each model's values over their bounds and largest error/bound. Exit 0 when every value held is
within its bound, 1 when one is not, 2 for a failed adapter or skinref run, 77 (skipped) without Node.js or the
npm packages; without the corpus its models are skipped, saying so.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

BUILTIN_MODELS = ["twist", "bend", "chain64", "eight-influences", "node-transforms"]
CORPUS_MODELS = {
    "CesiumMan": "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf",
    "RiggedFigure": "glTF-Sample-Assets/RiggedFigure/glTF/RiggedFigure.gltf",
    "RiggedSimple": "glTF-Sample-Assets/RiggedSimple/glTF/RiggedSimple.gltf",
}
TIMES_PER_MODEL = 20
# The engines' documented departures (docs/engines.md): without them every normal they write is compared with
# the inverse transpose's, PlayCanvas's nlerp with slerp, and a first set of four influences with all eight.
ENGINE_CONVENTIONS = {"three": ["normals=blend-upper3x3"], "babylon": ["normals=blend-upper3x3"],
                      "playcanvas": ["normals=blend-upper3x3", "rotation=nlerp"]}
MODEL_CONVENTIONS = {("three", "eight-influences"): ["influences=first-set-renormalized"],
                     ("three", "node-transforms"): ["mesh-node=normals-by-normal-matrix-times-inverse"],
                     ("playcanvas", "eight-influences"): ["influences=first-set-renormalized"]}


def float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def skip(reason):
    print("skipped: " + reason)
    sys.exit(77)


def run(command, what):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"{what} failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
        sys.exit(2)
    return result.stdout


def clip_range(skinref, model):
    """The first clip's key range, from `skinref info` ("keys from A s to B s")."""
    for line in run([skinref, "info", model], "skinref info").splitlines():
        if "keys from" in line:
            words = line.split("keys from ", 1)[1].split()
            return float(words[0]), float(words[3])
    print(f"{model}: no clip")
    sys.exit(2)


def models(skinref, corpus, out):
    """(name, model path) of every model to play: the built-in scenes exported, the corpus's where present."""
    found = []
    for name in BUILTIN_MODELS:
        path = os.path.join(out, name + ".gltf")
        run([skinref, "export", "builtin:" + name, "--out", path], "skinref export")
        found.append((name, path))
    if os.path.isdir(corpus):
        found += [(name, os.path.join(corpus, relative)) for name, relative in CORPUS_MODELS.items()]
    else:
        print(f"the corpus models skipped: no corpus at {corpus} (../shared/corpus)")
    return found


def write_queries(path, queries):
    with open(path, "w") as f:
        json.dump({"format": "skinref-conformance-queries", "version": 1, "queries": queries}, f)


def main():
    skinref, engine_dir, corpus, out = sys.argv[1:5]
    engine = os.path.basename(os.path.normpath(engine_dir))
    if shutil.which("node") is None:
        skip("no node on PATH (./run installs the Debian package nodejs)")
    if not os.path.isdir(os.path.join(os.path.dirname(engine_dir), "node_modules")):
        skip("the npm packages are not installed (./run installs them: npm ci)")
    os.makedirs(out, exist_ok=True)
    engine_queries, reference_batches = [], {}  # the reference's queries by their conventions
    for name, model in models(skinref, corpus, out):
        start, end = clip_range(skinref, model)
        conventions = tuple(ENGINE_CONVENTIONS[engine] + MODEL_CONVENTIONS.get((engine, name), []))
        for i in range(TIMES_PER_MODEL):
            time = float32(start + (i + 0.5) / TIMES_PER_MODEL * (end - start))
            query = {"case": name, "model": model, "animation": 0, "time": float(f"{time:.9g}")}
            engine_queries.append(dict(query, out=os.path.join(out, f"{name}-{i}.engine.skv")))
            reference_batches.setdefault(conventions, []).append(
                dict(query, out=os.path.join(out, f"{name}-{i}.reference.skv")))
    write_queries(os.path.join(out, "engine_queries.json"), engine_queries)
    run(["node", os.path.join(engine_dir, "adapter.mjs"), os.path.join(out, "engine_queries.json")], "the adapter")
    for b, (conventions, queries) in enumerate(reference_batches.items()):
        path = os.path.join(out, f"reference_queries_{b}.json")
        write_queries(path, queries)
        command = [skinref, "skin", "--queries", path]
        for convention in conventions:
            command += ["--convention", convention]
        run(command, "skinref skin --queries")
    failed = False
    report = os.path.join(out, "report")
    for name in dict.fromkeys(q["case"] for q in engine_queries):
        over = values = 0
        worst = 0.0
        for query in (q for q in engine_queries if q["case"] == name):
            reference = query["out"].replace(".engine.skv", ".reference.skv")
            result = subprocess.run([skinref, "compare", reference, query["out"], "--model", query["model"],
                                     "--report", report], capture_output=True, text=True)
            if result.returncode not in (0, 1):
                print(f"skinref compare failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
                sys.exit(2)
            with open(os.path.join(report, "vertices.json")) as f:
                comparison = json.load(f)
            over += comparison["over"] + comparison["unbounded"]
            values += comparison["values"]
            worst = max(worst, comparison["max_ratio"])
        print(f"{name}: {over} of {values} values over their any-order bounds at {TIMES_PER_MODEL} times, "
              f"largest error/bound {worst:.3g}")
        failed = failed or over > 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

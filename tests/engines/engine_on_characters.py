#!/usr/bin/env python3
"""engine_on_characters.py SKINREF ENGINE_DIR CORPUS_DIR OUT: a real engine on skinned characters, held to
skinref's any-order bounds (issue 42: the bounds are tight, and a correct engine still passes them).

The engine's batch adapter (ENGINE_DIR/adapter.mjs, the conformance protocol: docs/conformance.md) plays
CesiumMan, RiggedFigure and RiggedSimple from the corpus at 20 float32 times each, evenly spread over the clip;
each dump is compared (`skinref compare`, its default any-order bounds) with skinref's reference under
normals=blend-upper3x3, the normal convention three.js and Babylon.js both follow (docs/engines.md). Prints
each model's values over their bounds and largest error/bound. Exit 0 when every value is within its bound,
1 when one is not, 2 for a failed adapter or skinref run, 77 (skipped) without Node.js, the npm packages or
the corpus.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

MODELS = {
    "CesiumMan": "glTF-Sample-Assets/CesiumMan/glTF/CesiumMan.gltf",
    "RiggedFigure": "glTF-Sample-Assets/RiggedFigure/glTF/RiggedFigure.gltf",
    "RiggedSimple": "glTF-Sample-Assets/RiggedSimple/glTF/RiggedSimple.gltf",
}
TIMES_PER_MODEL = 20
# The engines' documented departure for normals: without it every normal they write is compared with the
# inverse transpose's (docs/engines.md).
ENGINE_NORMALS = "normals=blend-upper3x3"


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


def main():
    skinref, engine_dir, corpus, out = sys.argv[1:5]
    if shutil.which("node") is None:
        skip("no node on PATH (./run installs the Debian package nodejs)")
    if not os.path.isdir(os.path.join(os.path.dirname(engine_dir), "node_modules")):
        skip("the npm packages are not installed (./run installs them: npm ci)")
    if not os.path.isdir(corpus):
        skip(f"no corpus at {corpus} (../shared/corpus)")
    os.makedirs(out, exist_ok=True)
    engine_queries, reference_queries = [], []
    for name, relative in MODELS.items():
        model = os.path.join(corpus, relative)
        start, end = clip_range(skinref, model)
        for i in range(TIMES_PER_MODEL):
            time = float32(start + (i + 0.5) / TIMES_PER_MODEL * (end - start))
            query = {"case": name, "model": model, "animation": 0, "time": float(f"{time:.9g}")}
            engine_queries.append(dict(query, out=os.path.join(out, f"{name}-{i}.engine.skv")))
            reference_queries.append(dict(query, out=os.path.join(out, f"{name}-{i}.reference.skv")))
    for queries, path in ((engine_queries, "engine_queries.json"), (reference_queries, "reference_queries.json")):
        with open(os.path.join(out, path), "w") as f:
            json.dump({"format": "skinref-conformance-queries", "version": 1, "queries": queries}, f)
    run(["node", os.path.join(engine_dir, "adapter.mjs"), os.path.join(out, "engine_queries.json")], "the adapter")
    run([skinref, "skin", "--queries", os.path.join(out, "reference_queries.json"), "--convention", ENGINE_NORMALS],
        "skinref skin --queries")
    failed = False
    report = os.path.join(out, "report")
    for name in MODELS:
        over = values = 0
        worst = 0.0
        for engine, reference in zip(engine_queries, reference_queries):
            if engine["case"] != name:
                continue
            result = subprocess.run([skinref, "compare", reference["out"], engine["out"], "--model", engine["model"],
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

#!/usr/bin/env python3
"""An adapter for `skinref conformance run --batch` (docs/conformance.md, "The adapter contract").

The runner writes every query of the suite to one JSON file and runs this script once:

    skinref conformance run --engine-name myengine --out out/conformance \
        --batch 'python3 examples/conformance/batch_adapter.py {queries}'

For each query it plays the case's model at the query's time in the engine and writes the skinned world-space
vertices to query["out"] as a .skv dump. The engine here is skinref's own float32 CPU backend, run as a
command (`SKINREF` in the environment, else `skinref` on PATH), so that the script runs as it stands; replace
`play` with your engine's loading, sampling and skinning, and write its vertices with the Python module's
`skinref.write_skv(path, primitives)` (python/skinref), one primitive per drawn primitive in the order
`skinref info MODEL` lists them.

A query that fails should not stop the others: the runner judges each dump that exists, and reports the
missing ones as "no output". With a second argument, the script appends one character per query answered to
that file (the tests count the queries a resumed run asks again).
"""

import json
import os
import subprocess
import sys


def play(model, animation, time, out):
    """Skins `model` with animation `animation` at `time` seconds and writes `out` (.skv)."""
    skinref = os.environ.get("SKINREF", "skinref")
    subprocess.run([skinref, "skin", model, "--anim", str(animation), "--time", repr(time), "--backend", "cpu",
                    "--out", out], check=True, stdout=subprocess.DEVNULL)


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: batch_adapter.py QUERIES.json [COUNTER]\n")
        return 2
    with open(argv[1], encoding="utf-8") as stream:
        document = json.load(stream)
    if document.get("format") != "skinref-conformance-queries" or document.get("version") != 1:
        sys.stderr.write("%s: not a skinref-conformance-queries file, version 1\n" % argv[1])
        return 2
    failed = 0
    for query in document["queries"]:
        try:
            play(query["model"], query["animation"], query["time"], query["out"])
        except (OSError, subprocess.CalledProcessError) as error:
            sys.stderr.write("%s at t = %r: %s\n" % (query["case"], query["time"], error))
            failed += 1
        if len(argv) == 3:
            with open(argv[2], "a", encoding="utf-8") as counter:
                counter.write("x")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

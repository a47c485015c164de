#!/usr/bin/env python3
"""Check the Blender round-trip files against skinref, through Assimp, without building anything.

    python3 tests/assimp/blender/check_with_assimp.py SKINREF_EXE [FILES_DIR] [--corpus DIR] [--json OUT.json]

For each FILES_DIR/NAME.roundtrip.json and each of NAME.fbx and NAME.dae: `assimp dump` (Debian's assimp-utils;
no post-processing) writes the scene as XML; this script evaluates Assimp's scene itself (node animation
keys: positions and scalings lerped, rotations slerped, clamped at the ends; node matrices T*R*S; linear blend
skinning, world = global(bone node) * offset matrix * vertex) at every baked time, and compares the result with
`SKINREF_EXE skin MODEL --time T` for the model the file was made from (builtin:NAME or the corpus file), with
the default conventions (slerp) and with --convention rotation=nlerp (what Blender's baking evaluates).

Assimp vertices are paired with skinref's by nearest position at the first baked time that is a source key
time (where both conventions agree); the pairing distance is reported as well. The XML dump prints 6 decimals,
so errors of a few 1e-6 are the dump's rounding. Needs Python 3 with NumPy (Debian: /usr/bin/python3 with
python3-numpy) and the `assimp` command. Prints a table; --json writes the figures. Exit 1 when a file does not
load or its nlerp error is over 1e-4 of the model's extent.
"""

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import numpy as np


def parse_matrix(elem):
    return np.array([float(x) for x in elem.find("Matrix4").text.split()]).reshape(4, 4)


def parse_dump(path):
    root = ET.parse(path).getroot()
    scene = root.find("Scene")
    nodes = {}  # name -> (parent, matrix, mesh indices)

    def walk(n, parent):
        name = n.get("name")
        meshes = []
        mr = n.find("MeshRefs")
        if mr is not None:
            meshes = [int(x) for x in mr.text.split()]
        nodes[name] = (parent, parse_matrix(n), meshes)
        nl = n.find("NodeList")
        if nl is not None:
            for c in nl.findall("Node"):
                walk(c, name)

    walk(scene.find("Node"), None)
    anims = []
    al = scene.find("AnimationList")
    if al is not None:
        for a in al.findall("Animation"):
            chans = {}
            for na in a.find("NodeAnimList").findall("NodeAnim"):
                def keys(list_tag, key_tag):
                    kl = na.find(list_tag)
                    if kl is None:
                        return np.zeros(0), np.zeros((0, 0))
                    ks = kl.findall(key_tag)
                    t = np.array([float(k.get("time")) for k in ks])
                    v = np.array([[float(x) for x in k.text.split()] for k in ks])
                    return t, v
                chans[na.get("node")] = (keys("PositionKeyList", "PositionKey"),
                                         keys("RotationKeyList", "RotationKey"),   # x y z w
                                         keys("ScalingKeyList", "ScalingKey"))
            anims.append({"name": a.get("name"), "duration": float(a.get("duration")),
                          "tps": float(a.get("tick_cnt")), "channels": chans})
    meshes = []
    ml = scene.find("MeshList")
    if ml is not None:
        for m in ml.findall("Mesh"):
            pos = np.array([float(x) for x in m.find("Positions").text.split()]).reshape(-1, 3)
            bones = []
            bl = m.find("BoneList")
            if bl is not None:
                for b in bl.findall("Bone"):
                    wl = b.find("WeightList")
                    w = [] if wl is None else [(int(e.get("index")), float(e.text)) for e in wl.findall("Weight")]
                    bones.append((b.get("name"), parse_matrix(b), w))
            meshes.append({"positions": pos, "bones": bones})
    return nodes, anims, meshes


def quat_to_matrix(q):  # x y z w
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def slerp(a, b, t):
    d = float(np.dot(a, b))
    if d < 0:
        b, d = -b, -d
    if d > 0.9995:
        r = a + t * (b - a)
        return r / np.linalg.norm(r)
    th = np.arccos(d)
    return (np.sin((1 - t) * th) * a + np.sin(t * th) * b) / np.sin(th)


def sample(times, values, tick, rot=False):
    if len(times) == 0:
        return None
    if tick <= times[0]:
        return values[0]
    if tick >= times[-1]:
        return values[-1]
    j = int(np.searchsorted(times, tick, side="right")) - 1
    u = (tick - times[j]) / (times[j + 1] - times[j])
    if rot:
        return slerp(values[j], values[j + 1], u)
    return values[j] + u * (values[j + 1] - values[j])


def globals_at(nodes, anim, seconds):
    local = {}
    tick = seconds * anim["tps"] if anim else 0.0
    for name, (parent, m, _) in nodes.items():
        ch = anim["channels"].get(name) if anim else None
        if ch is None:
            local[name] = m
            continue
        (pt, pv), (rt, rv), (st, sv) = ch
        t = sample(pt, pv, tick)
        r = sample(rt, rv, tick, rot=True)
        s = sample(st, sv, tick)
        mm = np.eye(4)
        rs = quat_to_matrix(r) if r is not None else m[:3, :3] / np.linalg.norm(m[:3, :3], axis=0)
        scale = s if s is not None else np.linalg.norm(m[:3, :3], axis=0)
        mm[:3, :3] = rs * scale[None, :]
        mm[:3, 3] = t if t is not None else m[:3, 3]
        local[name] = mm
    out = {}

    def g(name):
        if name not in out:
            parent = nodes[name][0]
            out[name] = local[name] if parent is None else g(parent) @ local[name]
        return out[name]

    for name in nodes:
        g(name)
    return out


def skinned(nodes, anim, meshes, seconds):
    G = globals_at(nodes, anim, seconds)
    mesh_node = {}
    for name, (_, _, ms) in nodes.items():
        for i in ms:
            mesh_node[i] = name
    parts = []
    for i, m in enumerate(meshes):
        p = np.hstack([m["positions"], np.ones((len(m["positions"]), 1))])
        if not m["bones"]:
            parts.append((G[mesh_node[i]] @ p.T).T[:, :3])
            continue
        acc = np.zeros((len(p), 3))
        for bname, offset, weights in m["bones"]:
            if not weights:
                continue
            idx = np.array([w[0] for w in weights])
            wt = np.array([w[1] for w in weights])
            M = G[bname] @ offset
            acc[idx] += wt[:, None] * (M @ p[idx].T).T[:, :3]
        parts.append(acc)
    return np.vstack(parts)


def skinref_positions(exe, model, seconds, nlerp, tmp):
    out = os.path.join(tmp, "ref.json")
    cmd = [exe, "skin", model, "--time", repr(seconds), "--out", out]
    if nlerp:
        cmd[3:3] = ["--convention", "rotation=nlerp"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        d = json.load(f)
    return np.vstack([np.array(p["positions"], dtype=float).reshape(-1, 3) for p in d["primitives"]])


def nearest(a, b):
    idx = np.empty(len(a), dtype=int)
    dist = np.empty(len(a))
    for s in range(0, len(a), 512):
        d = ((a[s:s + 512, None, :] - b[None, :, :]) ** 2).sum(-1)
        idx[s:s + 512] = d.argmin(1)
        dist[s:s + 512] = np.sqrt(d.min(1))
    return idx, dist


def main():
    args = sys.argv[1:]
    corpus = os.environ.get("SKINREF_CORPUS_DIR", "/work/shared/corpus")
    json_out = None
    pos = []
    i = 0
    while i < len(args):
        if args[i] == "--corpus":
            corpus = args[i + 1]
            i += 2
        elif args[i] == "--json":
            json_out = args[i + 1]
            i += 2
        else:
            pos.append(args[i])
            i += 1
    if not pos:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    exe = os.path.abspath(pos[0])
    files = pos[1] if len(pos) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")
    results = []
    bad = False
    with tempfile.TemporaryDirectory() as tmp:
        for jf in sorted(f for f in os.listdir(files) if f.endswith(".roundtrip.json")):
            name = jf[: -len(".roundtrip.json")]
            with open(os.path.join(files, jf)) as f:
                rt = json.load(f)
            src = rt["input"]["source"].split()[2]  # 'skinref export WHAT --out X.glb'
            model = src if src.startswith("builtin:") else os.path.join(corpus, src.split(":", 1)[1])
            times = rt["scene"]["baked_times_s"]
            key_times = rt["input"]["first_animation_key_times_s"]
            on_key = [t for t in times if any(abs(t - k) < 1e-6 for k in key_times)]
            refs = {(t, n): skinref_positions(exe, model, t, n, tmp) for t in times for n in (False, True)}
            extent = float(np.linalg.norm(np.ptp(refs[(times[0], False)], axis=0)))
            for ext in ("fbx", "dae"):
                path = os.path.join(files, name + "." + ext)
                dump = os.path.join(tmp, "dump.xml")
                r = subprocess.run(["assimp", "dump", path, dump], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                row = {"file": name + "." + ext, "extent": extent}
                if r.returncode != 0 or not os.path.exists(dump):
                    row["error"] = "assimp dump failed: " + r.stdout.decode(errors="replace").strip()[-300:]
                    results.append(row)
                    bad = True
                    continue
                nodes, anims, meshes = parse_dump(dump)
                os.remove(dump)
                anim = anims[0] if anims else None
                t0 = on_key[0] if on_key else times[0]
                a0 = skinned(nodes, anim, meshes, t0)
                pair, dist = nearest(a0, refs[(t0, False)])
                _, back = nearest(refs[(t0, False)], a0)
                row.update(vertices=len(a0), reference_vertices=len(refs[(t0, False)]),
                           pairing_max=float(dist.max()), reference_unmatched_max=float(back.max()),
                           animation=anim["name"] if anim else None,
                           ticks_per_second=anim["tps"] if anim else None)
                err_n = err_s = err_s_key = 0.0
                for t in times:
                    a = skinned(nodes, anim, meshes, t)
                    en = float(np.linalg.norm(a - refs[(t, True)][pair], axis=1).max())
                    es = float(np.linalg.norm(a - refs[(t, False)][pair], axis=1).max())
                    err_n = max(err_n, en)
                    err_s = max(err_s, es)
                    if t in on_key:
                        err_s_key = max(err_s_key, es)
                row.update(max_err_vs_nlerp=err_n, max_err_vs_slerp=err_s, max_err_vs_slerp_at_source_keys=err_s_key,
                           times=len(times), source_key_times=len(on_key))
                if err_n > 1e-4 * extent or dist.max() > 1e-4 * extent:
                    bad = True
                results.append(row)
    hdr = "%-24s %6s %6s %9s %11s %11s %11s %11s" % ("file", "verts", "ref", "extent", "pairing",
                                                     "vs nlerp", "vs slerp", "slerp@keys")
    print(hdr)
    for r in results:
        if "error" in r:
            print("%-24s %s" % (r["file"], r["error"]))
            continue
        print("%-24s %6d %6d %9.4f %11.2e %11.2e %11.2e %11.2e" % (
            r["file"], r["vertices"], r["reference_vertices"], r["extent"], r["pairing_max"],
            r["max_err_vs_nlerp"], r["max_err_vs_slerp"], r["max_err_vs_slerp_at_source_keys"]))
    if json_out:
        with open(json_out, "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    sys.exit(1 if bad else 0)


main()

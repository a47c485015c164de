"""What the Python tests share: the skinref program under test (SKINREF_EXE), the golden folder
(SKINREF_GOLDEN_DIR), temporary folders, and a small glTF reader written for the tests (accessors of an
exported model with an embedded data: buffer), which gives bind positions and weights independently of skinref.
"""

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))


def skinref_exe():
    exe = os.environ.get("SKINREF_EXE")
    if not exe:
        raise AssertionError("SKINREF_EXE is not set: the path of the skinref program under test (ctest sets it)")
    if not os.access(exe, os.X_OK):
        raise AssertionError("SKINREF_EXE=%s is not an executable file" % exe)
    return exe


def golden_dir():
    return os.environ.get("SKINREF_GOLDEN_DIR") or os.path.join(REPO, "golden")


def run(*args, expect=None):
    """Runs skinref with `args`; returns the CompletedProcess. With `expect`, asserts that exit code."""
    result = subprocess.run([skinref_exe()] + [str(a) for a in args], capture_output=True, text=True,
                            errors="replace", timeout=300)
    if expect is not None and result.returncode != expect:
        raise AssertionError("skinref %s: exit %d, expected %d\nstdout: %s\nstderr: %s"
                             % (" ".join(map(str, args)), result.returncode, expect, result.stdout, result.stderr))
    return result


class TempDirTest(unittest.TestCase):
    """A fresh temporary folder per test, self.tmp; self.path(name) joins it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="skinref-python-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, name):
        return os.path.join(self.tmp, name)


def read_json(path):
    with open(path, "r", encoding="utf-8") as stream:
        return json.load(stream)


def json_vertices(path):
    """skinref's JSON vertex dump (skin --out X.json) as lists of (n, 3) / (n, 4) arrays, read with json."""
    document = read_json(path)
    primitives = []
    for p in document["primitives"]:
        entry = {key: p[key] for key in ("node", "mesh", "primitive", "skinned")}
        for key, width in (("positions", 3), ("normals", 3), ("tangents", 4)):
            entry[key] = np.array(p[key], dtype=np.float64).reshape(-1, width) if key in p else None
        primitives.append(entry)
    return document, primitives


# ---- a minimal glTF reader for the tests: embedded buffers, tightly packed or strided accessors -------------

_COMPONENTS = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def gltf_buffer(gltf, index=0):
    uri = gltf["buffers"][index]["uri"]
    prefix, _, payload = uri.partition(",")
    assert prefix.endswith(";base64"), prefix
    return base64.b64decode(payload)


def gltf_accessor(gltf, index):
    """The accessor's values as a float64 array (count, width); integers widened, no normalization."""
    accessor = gltf["accessors"][index]
    view = gltf["bufferViews"][accessor["bufferView"]]
    data = gltf_buffer(gltf, view["buffer"])
    dtype = np.dtype(_COMPONENTS[accessor["componentType"]]).newbyteorder("<")
    width = _WIDTHS[accessor["type"]]
    count = accessor["count"]
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    stride = view.get("byteStride", width * dtype.itemsize)
    rows = [np.frombuffer(data, dtype=dtype, count=width, offset=start + i * stride) for i in range(count)]
    return np.array(rows, dtype=np.float64).reshape(count, width)


def gltf_append_accessor(gltf, values, accessor_type):
    """Appends float32 `values` (count, width) to buffer 0 as a new bufferView and accessor; returns its index."""
    data = bytearray(gltf_buffer(gltf))
    while len(data) % 4:
        data.append(0)
    offset = len(data)
    block = np.asarray(values, dtype="<f4").tobytes()
    data += block
    gltf["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(bytes(data)).decode()
    gltf["buffers"][0]["byteLength"] = len(data)
    gltf["bufferViews"].append({"buffer": 0, "byteOffset": offset, "byteLength": len(block)})
    gltf["accessors"].append({"bufferView": len(gltf["bufferViews"]) - 1, "componentType": 5126,
                              "count": len(values), "type": accessor_type})
    return len(gltf["accessors"]) - 1


def exported_model(folder, builtin, name=None):
    """`skinref export builtin:NAME` as a .gltf in `folder`; returns (path, parsed glTF)."""
    path = os.path.join(folder, (name or builtin) + ".gltf")
    run("export", "builtin:" + builtin, "--out", path, expect=0)
    return path, read_json(path)


def two_primitive_model_with_tangents(folder):
    """builtin:bend exported, with a TANGENT attribute (unit vectors orthogonal to the normals, w alternating
    +1 and -1) and its one primitive listed twice in the mesh: a model of two skinned primitives with
    tangents, written to folder/bend2.gltf. Returns its path."""
    path, gltf = exported_model(folder, "bend")
    primitive = gltf["meshes"][0]["primitives"][0]
    normals = gltf_accessor(gltf, primitive["attributes"]["NORMAL"])
    helper = np.where(np.abs(normals[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    tangents = np.cross(normals, helper)
    tangents /= np.linalg.norm(tangents, axis=1, keepdims=True)
    w = np.where(np.arange(len(tangents)) % 2 == 0, 1.0, -1.0)[:, None]
    primitive["attributes"]["TANGENT"] = gltf_append_accessor(gltf, np.hstack([tangents, w]), "VEC4")
    gltf["meshes"][0]["primitives"].append(json.loads(json.dumps(primitive)))
    out = os.path.join(folder, "bend2.gltf")
    with open(out, "w", encoding="utf-8") as stream:
        json.dump(gltf, stream)
    return out

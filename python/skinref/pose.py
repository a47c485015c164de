"""Pose dumps: the JSON that `skinref pose` writes ("format": "skinref-pose", version 1; docs/formats.md
"Pose dumps (JSON)"; the C++ reader and writer: reference/io/pose_dump.cc).

A pose is a dict; matrices are NumPy arrays indexed [row, column] (a point p maps to M @ [x, y, z, 1]),
whatever order the file stored them in:
    {"format": "skinref-pose", "version": 1, "writer": str or None, "source": str (the model),
     "animation": int or None, "recipe": str or None, "time": float (seconds),
     "clip_time": float or None, "conventions": {NAME: VALUE} or None,
     "matrix_order": "column-major" | "row-major" (as the file declared it),
     "significant_digits": int (the most significant digits any number was printed with),
     "nodes": [{"index", "name", "parent" (None when absent), "translation": (3,), "rotation": (4,) x y z w,
                "scale": (3,), "global": (4, 4) model space, "morph_weights": (k,)}, ...],
     "skins": [{"index", "name", "joints": int array or None, "joint_names": [str] or None,
                "palette": (J, 4, 4) joint matrices G(joint) * IBM, "normal_matrices": (J, 3, 3),
                "normal_matrices_derived": bool}, ...]}

read_pose(path) checks what skinref's reader checks without the model (format, version, "source", "animation"
null or an index >= 0, a finite "time" and "clip_time", "matrix_order", each node's translation[3],
rotation[4], scale[3], global[16] and morph weights, each skin's palette entries of 16 numbers and
normal matrices of 9, "joint_names" as long as the palette and without repeats, every number finite), and
that the keys skinref writes have the type it writes; anything else raises FormatError
("FILE: /JSON/POINTER: EXPECTED"). A row-major dump is transposed on reading, as skinref does. Normal matrices
left out are derived from the palette as skinref derives them (the cofactor matrix of the upper 3x3, negated
for a negative determinant), with "normal_matrices_derived" True. Entries keep the file's order: matching an
engine's nodes or joints to the model by name (which skinref does with the model at hand) is left to the
caller, with "name" and "joint_names" kept for it. A file that cannot be opened raises OSError.

write_pose(path, pose) writes skinref's layout (column-major, every double with 17 significant digits, so it
round-trips; a dump read from skinref is written back byte for byte), atomically. Optional keys that are None
are left out; a non-finite number or a matrix of the wrong shape raises ValueError before anything is written.
"""

import json
import math
import os

import numpy as np

from . import _json
from ._files import write_atomically

FORMAT = "skinref-pose"


def significant_digits(text):
    """The most significant digits any number of the JSON text was printed with (strings skipped), as
    skinref's printed_significant_digits() counts them: leading zeros aside, exponent aside."""
    most = 0
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
            i += 1
            continue
        if c == '"':
            in_string = True
            i += 1
            continue
        if not (c == "-" or "0" <= c <= "9"):
            i += 1
            continue
        digits = 0
        leading = True
        j = i + 1 if c == "-" else i
        while j < n and ("0" <= text[j] <= "9" or text[j] == "."):
            if text[j] != "." and not (leading and text[j] == "0"):
                leading = False
                digits += 1
            j += 1
        while j < n and (text[j] in "eE+-" or "0" <= text[j] <= "9"):
            j += 1
        most = max(most, digits)
        i = j
    return most


def normal_matrix(linear):
    """skinref's normal_matrix(): the cofactor matrix of a 3x3 matrix (det times the inverse transpose),
    negated when the determinant is negative, computed term by term in skinref's order."""
    a = np.asarray(linear, dtype=np.float64)
    cof = np.empty((3, 3))
    cof[0, 0] = a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1]
    cof[0, 1] = a[1, 2] * a[2, 0] - a[1, 0] * a[2, 2]
    cof[0, 2] = a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0]
    cof[1, 0] = a[0, 2] * a[2, 1] - a[0, 1] * a[2, 2]
    cof[1, 1] = a[0, 0] * a[2, 2] - a[0, 2] * a[2, 0]
    cof[1, 2] = a[0, 1] * a[2, 0] - a[0, 0] * a[2, 1]
    cof[2, 0] = a[0, 1] * a[1, 2] - a[0, 2] * a[1, 1]
    cof[2, 1] = a[0, 2] * a[1, 0] - a[0, 0] * a[1, 2]
    cof[2, 2] = a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]
    det = a[0, 0] * cof[0, 0] + a[0, 1] * cof[0, 1] + a[0, 2] * cof[0, 2]
    return -cof if det < 0.0 else cof


def _optional(check, root, where, key, kind):
    """A key skinref writes with a fixed type: None when absent, else checked."""
    if key not in root:
        return None
    value = root[key]
    at = where + "/" + key
    if kind == "string":
        return check.string(value, at)
    if kind == "integer":
        return check.integer(value, at, -(2 ** 63), 2 ** 63 - 1)
    raise AssertionError(kind)


def _matrix(check, values, where, size, row_major):
    flat = check.numbers(values, where, size * size)
    # Column-major storage lists the columns one after another: reshaping by rows and transposing gives M.
    matrix = flat.reshape(size, size)
    return matrix.copy() if row_major else matrix.T.copy()


def read_pose(path):
    """Reads a skinref pose dump (or an engine's in the same format); see the module's docstring."""
    path = os.fspath(path)
    with open(path, "rb") as stream:
        data = stream.read()
    check = _json.Checker(path)
    root = _json.load_json(path, data)
    text = data.decode("utf-8-sig")  # load_json() has checked that it decodes
    fmt = check.member(root, "", "format")
    if fmt != FORMAT:
        check.fail("/format", '"%s"' % FORMAT)
    version = check.member(root, "", "version")
    if not _json.is_number(version) or version != 1:
        check.fail("/version", "1")
    source = check.member(root, "", "source")
    if not isinstance(source, str):
        check.fail("/source", "a string")
    pose = {"format": FORMAT, "version": 1, "writer": _optional(check, root, "", "writer", "string"),
            "source": source}
    animation = check.member(root, "", "animation")
    if animation is not None and not (_json.is_integer(animation) and animation >= 0):
        check.fail("/animation", "null or an animation index >= 0")
    pose["animation"] = animation
    pose["recipe"] = _optional(check, root, "", "recipe", "string")
    pose["time"] = check.number(check.member(root, "", "time"), "/time")
    pose["clip_time"] = check.number(root["clip_time"], "/clip_time") if "clip_time" in root else None
    conventions = root.get("conventions")
    if conventions is not None:
        check.object(conventions, "/conventions")
        for name, value in conventions.items():
            check.string(value, "/conventions/" + name)
    pose["conventions"] = conventions
    order = root.get("matrix_order", "column-major")
    if order not in ("column-major", "row-major"):
        check.fail("/matrix_order", '"column-major" or "row-major"')
    pose["matrix_order"] = order
    row_major = order == "row-major"
    pose["significant_digits"] = significant_digits(text)

    nodes = check.array(check.member(root, "", "nodes"), "/nodes")
    pose["nodes"] = []
    for e, node in enumerate(nodes):
        at = "/nodes/%d" % e
        check.object(node, at)
        entry = {"index": _optional(check, node, at, "index", "integer"),
                 "name": _optional(check, node, at, "name", "string"),
                 "parent": _optional(check, node, at, "parent", "integer")}
        entry["translation"] = check.numbers(check.member(node, at, "translation"), at + "/translation", 3)
        entry["rotation"] = check.numbers(check.member(node, at, "rotation"), at + "/rotation", 4)
        entry["scale"] = check.numbers(check.member(node, at, "scale"), at + "/scale", 3)
        entry["global"] = _matrix(check, check.member(node, at, "global"), at + "/global", 4, row_major)
        entry["morph_weights"] = check.numbers(check.member(node, at, "morph_weights"), at + "/morph_weights")
        pose["nodes"].append(entry)

    skins = check.array(check.member(root, "", "skins"), "/skins")
    pose["skins"] = []
    for s, skin in enumerate(skins):
        at = "/skins/%d" % s
        check.object(skin, at)
        entry = {"index": _optional(check, skin, at, "index", "integer"),
                 "name": _optional(check, skin, at, "name", "string"), "joints": None, "joint_names": None}
        if "joints" in skin:
            joints = check.array(skin["joints"], at + "/joints")
            for j, joint in enumerate(joints):
                check.integer(joint, "%s/joints/%d" % (at, j), 0, 2 ** 31 - 1)
            entry["joints"] = np.array(joints, dtype=np.int64)
        palette = check.array(check.member(skin, at, "palette"), at + "/palette")
        count = len(palette)
        if "joint_names" in skin:
            names = check.array(skin["joint_names"], at + "/joint_names", count)
            seen = set()
            for j, name in enumerate(names):
                check.string(name, "%s/joint_names/%d" % (at, j), "a name")
                if name in seen:
                    check.fail("%s/joint_names/%d" % (at, j), "each joint once, but '%s' comes twice" % name)
                seen.add(name)
            entry["joint_names"] = list(names)
        entry["palette"] = np.array([_matrix(check, jm, "%s/palette/%d" % (at, j), 4, row_major)
                                     for j, jm in enumerate(palette)]).reshape(count, 4, 4)
        if "normal_matrices" in skin:
            normals = check.array(skin["normal_matrices"], at + "/normal_matrices", count)
            entry["normal_matrices"] = np.array([_matrix(check, nm, "%s/normal_matrices/%d" % (at, j), 3, row_major)
                                                 for j, nm in enumerate(normals)]).reshape(count, 3, 3)
            entry["normal_matrices_derived"] = False
        else:
            entry["normal_matrices"] = np.array([normal_matrix(jm[:3, :3]) for jm in entry["palette"]]).reshape(
                count, 3, 3)
            entry["normal_matrices_derived"] = True
        pose["skins"].append(entry)
    return pose


# ---- writing ----------------------------------------------------------------------------------------------

def _number(value, what):
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("pose: non-finite value in " + what)
    return "%.17g" % value


def _numbers(values, what, shape=None):
    array = np.asarray(values, dtype=np.float64)
    if shape is not None and array.shape != shape:
        raise ValueError("pose: %s must have shape %s, got %s" % (what, shape, array.shape))
    return "[" + ",".join(_number(x, what) for x in array.reshape(-1)) + "]"


def _matrix_text(matrix, size, what):
    array = np.asarray(matrix, dtype=np.float64)
    if array.shape != (size, size):
        raise ValueError("pose: %s must have shape (%d, %d), got %s" % (what, size, size, array.shape))
    return _numbers(array.T, what)  # column-major: the columns one after another


def _string(value):
    return json.dumps(value, ensure_ascii=False)


def _integer(value, what):
    if not (_json.is_integer(value) or isinstance(value, np.integer)):
        raise TypeError("pose: %s must be an integer, got %r" % (what, value))
    return str(int(value))


def encode_pose(pose):
    """The text of a pose dump in skinref's layout (see write_pose)."""
    text = '{"format":"%s","version":1,' % FORMAT
    if pose.get("writer"):
        text += '"writer":' + _string(pose["writer"]) + ","
    text += '"source":' + _string(pose["source"])
    animation = pose.get("animation")
    text += ',"animation":' + ("null" if animation is None else _integer(animation, "animation"))
    if pose.get("recipe"):
        text += ',"recipe":' + _string(pose["recipe"])
    text += ',"time":' + _number(pose["time"], "the time")
    if pose.get("conventions") is not None:
        text += ',"conventions":' + json.dumps(pose["conventions"], ensure_ascii=False, separators=(",", ":"))
    if pose.get("clip_time") is not None:
        text += ',"clip_time":' + _number(pose["clip_time"], "the clip time")
    text += ',\n"nodes":['
    for i, node in enumerate(pose["nodes"]):
        where = "node %d" % i
        text += "\n" if i == 0 else ",\n"
        text += '{"index":' + _integer(i if node.get("index") is None else node["index"], where)
        if node.get("name") is not None:
            text += ',"name":' + _string(node["name"])
        if node.get("parent") is not None:
            text += ',"parent":' + _integer(node["parent"], where)
        text += ',"translation":' + _numbers(node["translation"], where + " translation", (3,))
        text += ',"rotation":' + _numbers(node["rotation"], where + " rotation", (4,))
        text += ',"scale":' + _numbers(node["scale"], where + " scale", (3,))
        text += ',"global":' + _matrix_text(node["global"], 4, where + " global")
        weights = node.get("morph_weights")
        text += ',"morph_weights":' + _numbers([] if weights is None else weights, where + " morph weights")
        text += "}"
    text += '\n],\n"skins":['
    for s, skin in enumerate(pose["skins"]):
        where = "skin %d" % s
        text += "\n" if s == 0 else ",\n"
        text += '{"index":' + _integer(s if skin.get("index") is None else skin["index"], where)
        if skin.get("name") is not None:
            text += ',"name":' + _string(skin["name"])
        if skin.get("joints") is not None:
            text += ',"joints":[' + ",".join(_integer(j, where + " joints") for j in skin["joints"]) + "]"
        palette = np.asarray(skin["palette"], dtype=np.float64)
        if palette.ndim != 3 or palette.shape[1:] != (4, 4):
            raise ValueError("pose: %s palette must have shape (J, 4, 4), got %s" % (where, palette.shape))
        if skin.get("joint_names") is not None:
            names = list(skin["joint_names"])
            if len(names) != len(palette) or not all(isinstance(n, str) for n in names):
                raise ValueError("pose: %s joint_names must be %d names, one per palette entry" % (where, len(palette)))
            text += ',"joint_names":[' + ",".join(_string(n) for n in names) + "]"
        text += ',"palette":[' + ",".join(_matrix_text(jm, 4, where + " palette") for jm in palette) + "]"
        if skin.get("normal_matrices") is not None:
            normals = np.asarray(skin["normal_matrices"], dtype=np.float64)
            if normals.shape != (len(palette), 3, 3):
                raise ValueError("pose: %s normal_matrices must have shape (%d, 3, 3), got %s"
                                 % (where, len(palette), normals.shape))
            text += ',"normal_matrices":[' + ",".join(_matrix_text(nm, 3, where + " normal matrix")
                                                      for nm in normals) + "]"
        text += "}"
    text += "\n]}\n"
    return text


def write_pose(path, pose):
    """Writes a pose dict as a skinref pose dump, atomically (see the module's docstring)."""
    write_atomically(path, encode_pose(pose).encode("utf-8"))

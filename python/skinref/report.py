"""The report of a vertex comparison: vertices.json, written by `skinref compare REF.skv TEST.skv --report DIR`
("format": "skinref-vertex-comparison", version 1; the C++ writer: write_vertex_comparison_json() in
reference/verify/vertex_compare.cc, completed by tools/cli/cmd_compare.cc).

read_vertex_report(path) returns a dict with the file's keys, typed for plotting:
    counts ("values", "over", "unbounded", "unnormalized", "primitives_without_test_normals",
    "primitives_without_test_tangents") as int; "over_by_attribute": {"positions", "normals", "tangents"};
    "largest_length_error" (|length - 1| of an unnormalized normal or tangent); "max_ratio" and
    "median_ratio" (error / bound, dimensionless) as float, math.inf where the file has null (JSON has no
    infinity: a handedness mismatch or a NaN in the test); "ratio_histogram": {"bins": [names],
    "counts": int64 array, "edges": float64 array of the 7 bin edges 0, 1e-4, ..., 1, inf};
    "worst": None when every value was equal, else {"primitive_index", "node", "mesh", "primitive", "vertex",
    "attribute" ("position" | "normal" | "tangent"), "error" and "bound" (model units; inf for null),
    "joint_nodes": int64 array, "weights": float64 array}; "pass": bool; and what compare adds: "model",
    "animation" (an index, -1 for the rest pose or a recipe), "recipe" (None when absent), "time" (seconds),
    "method", "palette", "bounds", "conventions".
Every key is checked for its type, the histogram for skinref's six bins; anything else raises FormatError
("FILE: /JSON/POINTER: EXPECTED"). A file that cannot be opened raises OSError.
"""

import math
import os

import numpy as np

from . import _json

FORMAT = "skinref-vertex-comparison"
BIN_NAMES = ("[0, 1e-4)", "[1e-4, 1e-3)", "[1e-3, 1e-2)", "[1e-2, 0.1)", "[0.1, 1]", "(1, inf)")
BIN_EDGES = np.array([0.0, 1e-4, 1e-3, 1e-2, 0.1, 1.0, math.inf])
_COUNTS = ("values", "over", "unbounded", "unnormalized", "primitives_without_test_normals",
           "primitives_without_test_tangents")
_TEXTS = ("model", "method", "palette", "bounds")
_INT64 = (-(2 ** 63), 2 ** 63 - 1)


def _count(check, root, where, key):
    return check.integer(check.member(root, where, key), where + "/" + key, 0, 2 ** 64 - 1)


def _ratio(check, root, where, key):
    """A finite number, or null for infinity."""
    value = check.member(root, where, key)
    return math.inf if value is None else check.number(value, where + "/" + key)


def read_vertex_report(path):
    """Reads compare's vertices.json; see the module's docstring."""
    path = os.fspath(path)
    with open(path, "rb") as stream:
        root = _json.load_json(path, stream.read())
    check = _json.Checker(path)
    check.object(root, "")
    if check.member(root, "", "format") != FORMAT:
        check.fail("/format", '"%s"' % FORMAT)
    version = check.member(root, "", "version")
    if not _json.is_number(version) or version != 1:
        check.fail("/version", "1")
    report = {"format": FORMAT, "version": 1}
    for key in _COUNTS:
        report[key] = _count(check, root, "", key)
    by_attribute = check.object(check.member(root, "", "over_by_attribute"), "/over_by_attribute")
    report["over_by_attribute"] = {key: _count(check, by_attribute, "/over_by_attribute", key)
                                   for key in ("positions", "normals", "tangents")}
    report["largest_length_error"] = check.number(check.member(root, "", "largest_length_error"),
                                                  "/largest_length_error")
    report["max_ratio"] = _ratio(check, root, "", "max_ratio")
    report["median_ratio"] = _ratio(check, root, "", "median_ratio")

    bins = check.array(check.member(root, "", "ratio_histogram"), "/ratio_histogram", len(BIN_NAMES))
    counts = []
    for b, entry in enumerate(bins):
        at = "/ratio_histogram/%d" % b
        if check.member(entry, at, "bin") != BIN_NAMES[b]:
            check.fail(at + "/bin", '"%s"' % BIN_NAMES[b])
        counts.append(_count(check, entry, at, "count"))
    report["ratio_histogram"] = {"bins": list(BIN_NAMES), "counts": np.array(counts, dtype=np.int64),
                                 "edges": BIN_EDGES.copy()}

    worst = check.member(root, "", "worst")
    if worst is not None:
        check.object(worst, "/worst")
        entry = {}
        for key in ("primitive_index", "vertex"):
            entry[key] = _count(check, worst, "/worst", key)
        for key in ("node", "mesh", "primitive"):
            entry[key] = check.integer(check.member(worst, "/worst", key), "/worst/" + key, -(2 ** 31), 2 ** 31 - 1)
        attribute = check.member(worst, "/worst", "attribute")
        if attribute not in ("position", "normal", "tangent"):
            check.fail("/worst/attribute", '"position", "normal" or "tangent", got ' + _json.describe(attribute))
        entry["attribute"] = attribute
        entry["error"] = _ratio(check, worst, "/worst", "error")
        entry["bound"] = _ratio(check, worst, "/worst", "bound")
        joints = check.array(check.member(worst, "/worst", "joint_nodes"), "/worst/joint_nodes")
        entry["joint_nodes"] = np.array([check.integer(j, "/worst/joint_nodes/%d" % i, *_INT64)
                                         for i, j in enumerate(joints)], dtype=np.int64)
        entry["weights"] = check.numbers(check.member(worst, "/worst", "weights"), "/worst/weights")
        worst = entry
    report["worst"] = worst
    passed = check.member(root, "", "pass")
    if not isinstance(passed, bool):
        check.fail("/pass", "true or false, got " + _json.describe(passed))
    report["pass"] = passed

    for key in _TEXTS:
        report[key] = check.string(check.member(root, "", key), "/" + key)
    report["animation"] = check.integer(check.member(root, "", "animation"), "/animation", -1, 2 ** 31 - 1)
    report["recipe"] = check.string(root["recipe"], "/recipe") if "recipe" in root else None
    report["time"] = check.number(check.member(root, "", "time"), "/time")
    conventions = check.object(check.member(root, "", "conventions"), "/conventions")
    for name, value in conventions.items():
        check.string(value, "/conventions/" + name)
    report["conventions"] = conventions
    return report

"""skinref.report against `skinref compare ... --report DIR`: the vertices.json it writes reads back to what
compare printed on stdout, to the vertex and error that were planted, and to the model's own joints and
weights (read from the exported glTF); malformed reports are refused with FormatError."""

import json
import math
import os
import re
import unittest

import numpy as np

from skinref_cli import TempDirTest, exported_model, gltf_accessor, read_json, run

import skinref
from skinref import FormatError


class ReadsCompareReports(TempDirTest):
    def setUp(self):
        super().setUp()
        self.model, self.gltf = exported_model(self.tmp, "bend")
        self.ref = self.path("ref.skv")
        run("skin", self.model, "--time", "0.25", "--out", self.ref, expect=0)
        self.primitives = skinref.read_skv(self.ref)["primitives"]

    def compare(self, primitives, expect):
        test = self.path("test.skv")
        skinref.write_skv(test, primitives)
        report_dir = self.path("report")
        result = run("compare", self.ref, test, "--report", report_dir, expect=expect)
        return result.stdout, skinref.read_vertex_report(os.path.join(report_dir, "vertices.json"))

    def moved(self, vertex, delta):
        primitives = [dict(p) for p in self.primitives]
        primitives[0]["positions"] = primitives[0]["positions"].copy()
        primitives[0]["positions"][vertex] += delta
        return primitives

    def test_a_failing_comparison(self):
        stdout, report = self.compare(self.moved(17, [3e-4, -4e-4, 0.0]), expect=1)
        over, unbounded, values = map(int, re.search(r"FAIL: (\d+) over, (\d+) unbounded of (\d+) values",
                                                     stdout).groups())
        self.assertEqual((report["over"], report["unbounded"], report["values"]), (over, unbounded, values))
        self.assertEqual((over, values), (1, 672))
        self.assertEqual(report["over_by_attribute"], {"positions": 1, "normals": 0, "tangents": 0})
        self.assertFalse(report["pass"])
        printed = re.search(r"histogram of error/bound: (.*)", stdout).group(1)
        counts = [int(c) for c in re.findall(r"[)\]] (\d+)", printed)]  # "[0, 1e-4) 283, ..., (1, inf) 0"
        np.testing.assert_array_equal(report["ratio_histogram"]["counts"], counts)
        self.assertEqual(report["ratio_histogram"]["counts"].sum(), values - unbounded)
        self.assertEqual(len(report["ratio_histogram"]["edges"]), 7)

        worst = report["worst"]
        self.assertEqual((worst["primitive_index"], worst["node"], worst["mesh"], worst["primitive"],
                          worst["vertex"], worst["attribute"]), (0, 3, 0, 0, 17, "position"))
        self.assertAlmostEqual(worst["error"], 5e-4, delta=1e-15)  # |(3e-4, -4e-4, 0)|
        # error / bound, the bound widened by 2^-40 of the reference value's magnitude (vertex_compare.h).
        allowed = worst["bound"] + 2.0 ** -40 * np.linalg.norm(self.primitives[0]["positions"][17])
        self.assertAlmostEqual(report["max_ratio"], worst["error"] / allowed, delta=1e-12 * report["max_ratio"])
        self.assertGreater(report["max_ratio"], 1.0)
        # The vertex's influences, from the model file itself: joint nodes and weights as stored.
        attributes = self.gltf["meshes"][0]["primitives"][0]["attributes"]
        joints = gltf_accessor(self.gltf, attributes["JOINTS_0"])[17].astype(int)
        weights = gltf_accessor(self.gltf, attributes["WEIGHTS_0"])[17]
        skin_joints = self.gltf["skins"][0]["joints"]
        np.testing.assert_array_equal(worst["joint_nodes"], [skin_joints[j] for j in joints])
        np.testing.assert_array_equal(worst["weights"], weights)

        self.assertEqual((report["model"], report["animation"], report["recipe"], report["time"], report["method"],
                          report["palette"], report["bounds"]),
                         (self.model, 0, None, 0.25, "lbs", "own", "any-order"))
        self.assertEqual(report["conventions"]["rotation"], "slerp")

    def test_a_passing_comparison(self):
        stdout, report = self.compare(self.primitives, expect=0)
        self.assertIn("PASS: 0 over", stdout)
        self.assertTrue(report["pass"])
        self.assertIsNone(report["worst"])
        self.assertEqual((report["over"], report["max_ratio"], report["median_ratio"]), (0, 0.0, 0.0))
        np.testing.assert_array_equal(report["ratio_histogram"]["counts"], [672, 0, 0, 0, 0, 0])

    def test_infinite_ratio_reads_as_infinity(self):
        # compare writes an infinite ratio as null (JSON has no infinity); a dump holding NaN, which would give
        # one, is refused before any comparison (exit 2, naming it), so the report is edited here.
        test = self.path("nan.skv")
        skinref.write_skv(test, self.moved(5, [math.nan, 0.0, 0.0]))
        refused = run("compare", self.ref, test, expect=2)
        self.assertIn("NaN in its position of vertex 5, component 0", refused.stderr)
        self.compare(self.moved(5, [1.0, 0.0, 0.0]), expect=1)
        path = os.path.join(self.path("report"), "vertices.json")
        with open(path, encoding="utf-8") as stream:
            edited = json.load(stream)
        edited["max_ratio"] = None
        with open(path, "w", encoding="utf-8") as stream:
            json.dump(edited, stream)
        report = skinref.read_vertex_report(path)
        self.assertEqual(report["max_ratio"], math.inf)
        self.assertEqual((report["worst"]["vertex"], report["worst"]["attribute"]), (5, "position"))


class RefusesMalformedReports(TempDirTest):
    def setUp(self):
        super().setUp()
        ref = self.path("ref.skv")
        run("skin", "builtin:bend", "--time", "0.5", "--out", ref, expect=0)
        primitives = skinref.read_skv(ref)["primitives"]
        primitives[0]["normals"][3] *= -1.0
        skinref.write_skv(self.path("test.skv"), primitives)
        run("compare", ref, self.path("test.skv"), "--model", "builtin:bend", "--time", "0.5", "--report",
            self.tmp, expect=1)
        self.good = read_json(os.path.join(self.tmp, "vertices.json"))
        self.assertEqual(skinref.read_vertex_report(os.path.join(self.tmp, "vertices.json"))["worst"]["attribute"],
                         "normal")

    def refused(self, change, pointer):
        document = json.loads(json.dumps(self.good))
        change(document)
        path = self.path("bad.json")
        with open(path, "w", encoding="utf-8") as stream:
            json.dump(document, stream)
        with self.assertRaises(FormatError) as caught:
            skinref.read_vertex_report(path)
        self.assertTrue(str(caught.exception).startswith(path + ": " + pointer), str(caught.exception))

    def test_refusals(self):
        self.refused(lambda d: d.update(format="skinref-golden-manifest"), "/format")
        self.refused(lambda d: d.update(version=2), "/version")
        self.refused(lambda d: d.update(over=-1), "/over")
        self.refused(lambda d: d.update(values=1.5), "/values")
        self.refused(lambda d: d.pop("pass"), "/pass")
        self.refused(lambda d: d.update({"pass": "no"}), "/pass")
        self.refused(lambda d: d["ratio_histogram"][2].update(bin="[1e-3, 1e-2]"), "/ratio_histogram/2/bin")
        self.refused(lambda d: d["ratio_histogram"].pop(), "/ratio_histogram")
        self.refused(lambda d: d["worst"].update(attribute="colour"), "/worst/attribute")
        self.refused(lambda d: d["worst"]["weights"].append("1"), "/worst/weights/4")
        self.refused(lambda d: d["over_by_attribute"].pop("normals"), "/over_by_attribute/normals")
        self.refused(lambda d: d.update(time=None), "/time")


if __name__ == "__main__":
    unittest.main()

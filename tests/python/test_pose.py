"""skinref.pose against the skinref program: a pose dump reads back to matrices that compose from the dump's
own TRS and that skin the model's bind positions to `skinref skin`'s output (independent paths), a dump is
written back byte for byte, Python-written poses are accepted by `skinref compare` (a perturbed one fails),
and malformed dumps are refused with FormatError, as skinref refuses them."""

import json
import os
import re
import unittest

import numpy as np

from skinref_cli import TempDirTest, exported_model, gltf_accessor, golden_dir, json_vertices, read_json, run

import skinref
from skinref import FormatError


def pose(out, model="builtin:bend", time="0.25", *options):
    run("pose", model, "--time", time, *options, "--out", out, expect=0)
    return out


def quaternion_matrix(x, y, z, w):
    """The rotation matrix of a unit quaternion (x, y, z, w), textbook form."""
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def write_json(path, document):
    with open(path, "w", encoding="utf-8") as stream:
        json.dump(document, stream)
    return path


class ReadsWhatSkinrefWrites(TempDirTest):
    def test_globals_compose_from_the_local_trs(self):
        dump = skinref.read_pose(pose(self.path("chain.json"), "builtin:chain64", "0.7"))
        self.assertEqual(len(dump["nodes"]), 65)  # 64 joints and the mesh node
        self.assertEqual((dump["source"], dump["animation"], dump["time"]), ("builtin:chain64", 0, 0.7))
        self.assertEqual((dump["matrix_order"], dump["significant_digits"]), ("column-major", 17))
        globals_ = {}
        for index, node in enumerate(dump["nodes"]):
            self.assertEqual(node["index"], index)
            local = np.eye(4)
            local[:3, :3] = quaternion_matrix(*node["rotation"]) * node["scale"]  # R S: columns scaled
            local[:3, 3] = node["translation"]
            parent = np.eye(4) if node["parent"] < 0 else globals_[node["parent"]]
            globals_[index] = parent @ local
            np.testing.assert_allclose(node["global"], globals_[index], rtol=0, atol=1e-11,
                                       err_msg="node %d" % index)
        # The wave really bends the chain (at rest it runs up +Y): the check above is not one of identities.
        self.assertGreater(abs(dump["nodes"][63]["global"][0, 3]), 0.5)

    def test_palette_skins_the_bind_positions_to_the_skin_output(self):
        model, gltf = exported_model(self.tmp, "bend")
        dump = skinref.read_pose(pose(self.path("p.json"), model))
        run("skin", model, "--time", "0.25", "--out", self.path("v.json"), expect=0)
        _, expected = json_vertices(self.path("v.json"))
        attributes = gltf["meshes"][0]["primitives"][0]["attributes"]
        positions = gltf_accessor(gltf, attributes["POSITION"])
        normals = gltf_accessor(gltf, attributes["NORMAL"])
        joints = gltf_accessor(gltf, attributes["JOINTS_0"]).astype(int)
        weights = gltf_accessor(gltf, attributes["WEIGHTS_0"])
        palette = dump["skins"][0]["palette"]
        self.assertEqual(palette.shape, (3, 4, 4))
        blended = np.einsum("vi,vijk->vjk", weights, palette[joints])  # B = sum w_i JM_i per vertex
        skinned = np.einsum("vjk,vk->vj", blended, np.hstack([positions, np.ones((len(positions), 1))]))[:, :3]
        np.testing.assert_allclose(skinned, expected[0]["positions"], rtol=0, atol=1e-12)
        # Normals: the inverse transpose of the blended matrix, normalized.
        skinned_normals = np.einsum("vjk,vk->vj", np.linalg.inv(blended[:, :3, :3]).transpose(0, 2, 1), normals)
        skinned_normals /= np.linalg.norm(skinned_normals, axis=1, keepdims=True)
        np.testing.assert_allclose(skinned_normals, expected[0]["normals"], rtol=0, atol=1e-12)
        # The elbow's joint matrix turns by 45 degrees at 0.25 s (0 -> 90 -> 0 over 1 s) about +Z.
        c = np.cos(np.pi / 4)
        np.testing.assert_allclose(palette[1][:3, :3], [[c, -c, 0], [c, c, 0], [0, 0, 1]], atol=1e-15)

    def test_normal_matrices_left_out_are_derived_as_skinref_derives_them(self):
        path = pose(self.path("p.json"), "builtin:twist", "0.375")
        document = read_json(path)
        del document["skins"][0]["normal_matrices"]
        stripped = write_json(self.path("stripped.json"), document)
        full, derived = skinref.read_pose(path), skinref.read_pose(stripped)
        self.assertFalse(full["skins"][0]["normal_matrices_derived"])
        self.assertTrue(derived["skins"][0]["normal_matrices_derived"])
        np.testing.assert_array_equal(derived["skins"][0]["normal_matrices"], full["skins"][0]["normal_matrices"])
        self.assertEqual(run("compare", path, stripped).returncode, 0)

    def test_row_major_dumps_read_to_the_same_matrices(self):
        path = pose(self.path("p.json"))
        document = read_json(path)
        document["matrix_order"] = "row-major"

        def transposed(values, size):
            return np.array(values).reshape(size, size).T.reshape(-1).tolist()

        for node in document["nodes"]:
            node["global"] = transposed(node["global"], 4)
        for skin in document["skins"]:
            skin["palette"] = [transposed(m, 4) for m in skin["palette"]]
            skin["normal_matrices"] = [transposed(m, 3) for m in skin["normal_matrices"]]
        row_major = write_json(self.path("row.json"), document)
        a, b = skinref.read_pose(path), skinref.read_pose(row_major)
        self.assertEqual(b["matrix_order"], "row-major")
        for node_a, node_b in zip(a["nodes"], b["nodes"]):
            np.testing.assert_array_equal(node_a["global"], node_b["global"])
        for key in ("palette", "normal_matrices"):
            np.testing.assert_array_equal(a["skins"][0][key], b["skins"][0][key])
        self.assertEqual(a["nodes"][2]["global"][0, 3], b["nodes"][2]["global"][0, 3])
        self.assertNotEqual(a["nodes"][2]["global"][0, 3], 0.0)  # the translation column, not the bottom row
        result = run("compare", path, row_major)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_engine_joint_order_keeps_its_names(self):
        path = pose(self.path("p.json"))
        document = read_json(path)
        skin = document["skins"][0]
        skin["joint_names"] = ["wrist", "elbow", "shoulder"]
        skin["palette"] = skin["palette"][::-1]
        skin["normal_matrices"] = skin["normal_matrices"][::-1]
        engine = write_json(self.path("engine.json"), document)
        original, reordered = skinref.read_pose(path)["skins"][0], skinref.read_pose(engine)["skins"][0]
        self.assertEqual(reordered["joint_names"], ["wrist", "elbow", "shoulder"])
        np.testing.assert_array_equal(reordered["palette"], original["palette"][::-1])
        self.assertEqual(run("compare", path, engine).returncode, 0)  # skinref matches the rows by name

    def test_significant_digits_of_a_short_printing_engine(self):
        path = pose(self.path("p.json"))
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        short = re.sub(r"-?\d+\.\d+(?:e[+-]\d+)?", lambda m: "%.9g" % float(m.group(0)), text)
        with open(self.path("short.json"), "w", encoding="utf-8") as stream:
            stream.write(short)
        self.assertEqual(skinref.read_pose(path)["significant_digits"], 17)
        self.assertEqual(skinref.read_pose(self.path("short.json"))["significant_digits"], 9)


class WritesWhatSkinrefReads(TempDirTest):
    def assert_written_back_byte_for_byte(self, path):
        with open(path, "rb") as stream:
            original = stream.read()
        out = self.path("again.json")
        skinref.write_pose(out, skinref.read_pose(path))
        with open(out, "rb") as stream:
            self.assertEqual(stream.read(), original, path)

    def test_write_back_is_byte_identical(self):
        self.assert_written_back_byte_for_byte(pose(self.path("bend.json")))
        self.assert_written_back_byte_for_byte(pose(self.path("chain.json"), "builtin:chain64", "1.125"))
        recipe = os.path.join(golden_dir(), "recipes", "additive.json")
        recipe_pose = pose(self.path("recipe.json"), "builtin:twist", "0.5", "--recipe", recipe)
        self.assertEqual(skinref.read_pose(recipe_pose)["recipe"], recipe)
        self.assertIsNone(skinref.read_pose(recipe_pose)["animation"])
        self.assert_written_back_byte_for_byte(recipe_pose)
        golden_pose = os.path.join(golden_dir(), "cases", "eight-influences-dqs", "t0.3125.pose.json")
        self.assertIsNone(skinref.read_pose(golden_pose)["writer"])
        self.assert_written_back_byte_for_byte(golden_pose)

    def test_compare_accepts_a_python_pose_and_fails_a_perturbed_one(self):
        ref = pose(self.path("ref.json"))
        engine = skinref.read_pose(ref)
        engine["writer"] = "python engine"
        skinref.write_pose(self.path("engine.json"), engine)
        result = run("compare", ref, self.path("engine.json"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        engine["nodes"][2]["global"][1, 3] += 1e-3
        skinref.write_pose(self.path("moved.json"), engine)
        result = run("compare", ref, self.path("moved.json"))
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("node 2", result.stdout)

    def test_bad_poses_are_not_written(self):
        good = skinref.read_pose(pose(self.path("ref.json")))
        out = self.path("out.json")
        for change in (lambda p: p["nodes"][0].update(translation=np.zeros(4)),
                       lambda p: p["nodes"][1]["global"].__setitem__((0, 0), np.inf),
                       lambda p: p["skins"][0].update(palette=np.zeros((3, 3, 3))),
                       lambda p: p["skins"][0].update(normal_matrices=np.zeros((2, 3, 3))),
                       lambda p: p["skins"][0].update(joint_names=["a"]),
                       lambda p: p.update(time=float("nan"))):
            broken = skinref.read_pose(self.path("ref.json"))
            change(broken)
            with self.assertRaises(ValueError):
                skinref.write_pose(out, broken)
            self.assertFalse(os.path.exists(out))
        skinref.write_pose(out, good)
        self.assertTrue(os.path.exists(out))


class RefusesMalformedDumps(TempDirTest):
    """Each malformed dump: FormatError naming the file and the JSON pointer, and skinref compare refuses the
    same file (exit 2) at the same pointer."""

    def setUp(self):
        super().setUp()
        self.good = pose(self.path("good.json"))
        self.document = read_json(self.good)

    def refused(self, change, pointer, words=(), text=None, skinref_names_the_file=True):
        document = json.loads(json.dumps(self.document))
        if change:
            change(document)
        path = self.path("bad.json")
        if text is None:
            write_json(path, document)
        else:
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(text)
        with self.assertRaises(FormatError) as caught:
            skinref.read_pose(path)
        message = str(caught.exception)
        self.assertTrue(message.startswith(path + ": " + pointer), message)
        for word in words:
            self.assertIn(word, message)
        result = run("compare", path, self.good)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        if skinref_names_the_file:
            self.assertIn(path + ": " + pointer, result.stderr)

    def test_header(self):
        self.refused(lambda d: d.update(format="skinref-vertices"), "/format", ['"skinref-pose"'])
        self.refused(lambda d: d.update(version=2), "/version")
        self.refused(lambda d: d.update(version=True), "/version")
        self.refused(lambda d: d.pop("source"), "/source", ["the member 'source'"])
        self.refused(lambda d: d.update(source=3), "/source", ["a string"])
        self.refused(lambda d: d.update(animation=-1), "/animation")
        self.refused(lambda d: d.update(animation="0"), "/animation")
        self.refused(lambda d: d.update(time="0.25"), "/time", ["a number"])
        self.refused(lambda d: d.update(matrix_order="diagonal"), "/matrix_order")

    def test_node_values(self):
        self.refused(lambda d: d["nodes"][1]["global"].pop(), "/nodes/1/global", ["an array of 16"])
        self.refused(lambda d: d["nodes"][2]["rotation"].__setitem__(3, "1"), "/nodes/2/rotation/3", ["a number"])
        self.refused(lambda d: d["nodes"][0].pop("scale"), "/nodes/0/scale", ["the member 'scale'"])
        self.refused(lambda d: d["nodes"][0].update(morph_weights=[True]), "/nodes/0/morph_weights")

    def test_skin_values(self):
        self.refused(lambda d: d["skins"][0]["palette"][1].pop(), "/skins/0/palette/1", ["16"])
        self.refused(lambda d: d["skins"][0]["normal_matrices"].pop(), "/skins/0/normal_matrices", ["3 elements"])
        self.refused(lambda d: d["skins"][0]["normal_matrices"][0].append(0), "/skins/0/normal_matrices/0", ["9"])
        self.refused(lambda d: d["skins"][0].update(joint_names=["elbow", "elbow", "wrist"]),
                     "/skins/0/joint_names/1", ["comes twice"])

    def test_not_json(self):
        with open(self.good, encoding="utf-8") as stream:
            text = stream.read()
        self.refused(None, "JSON", text=text[:-10])
        self.refused(None, "", ["finite"], text=text.replace('"time":0.25', '"time":NaN'))
        # skinref refuses it too, with nlohmann's "number overflow" message, which does not name the file.
        self.refused(None, "", ["finite"], text=text.replace('"time":0.25', '"time":1e999'),
                     skinref_names_the_file=False)


if __name__ == "__main__":
    unittest.main()

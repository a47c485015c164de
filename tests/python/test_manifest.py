"""skinref.manifest against the committed goldens and the skinref program: the manifest's cases name exactly
the files `skinref golden update` wrote, the stems are C++'s std::to_chars spellings (checked on files skinref
writes), and every malformed manifest is refused with the message `skinref golden check` prints for it."""

import json
import os
import shutil
import unittest

from skinref_cli import TempDirTest, golden_dir, read_json, run

import skinref
from skinref import FormatError


def committed_manifest():
    return os.path.join(golden_dir(), "manifest.json")


class ReadsTheCommittedManifest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cases = skinref.read_manifest(committed_manifest())
        cls.raw = read_json(committed_manifest())["cases"]

    def test_cases_name_exactly_the_golden_files(self):
        folder = os.path.join(golden_dir(), "cases")
        self.assertEqual(sorted(c["name"] for c in self.cases), sorted(os.listdir(folder)))
        for case in self.cases:
            expected = set()
            for output in case["outputs"]:
                expected |= {os.path.basename(output[k]) for k in ("png", "skv", "pose") if output[k]}
            self.assertEqual(sorted(os.listdir(os.path.join(folder, case["name"]))), sorted(expected), case["name"])

    def test_defaults_are_filled_in_where_a_key_is_absent(self):
        defaults = {"description": "", "animation": None, "recipe": None, "method": "lbs", "size": "256x256",
                    "camera": "auto", "view": "shaded", "dumps": True, "dumps_reason": "", "tolerances": None}
        for case, raw in zip(self.cases, self.raw):
            for key, default in defaults.items():
                want = raw.get(key, default)
                self.assertEqual(case[key], str(want) if key == "animation" and want is not None else want,
                                 "%s %s" % (case["name"], key))
            self.assertEqual(case["times"], raw["times"])
            self.assertEqual("%dx%d" % (case["width"], case["height"]), case["size"])
            if case["view"].startswith("weights:"):
                self.assertEqual(case["view_joint"], case["view"][len("weights:"):])
            else:
                self.assertIsNone(case["view_joint"])
        self.assertTrue(any(not c["dumps"] for c in self.cases))
        self.assertTrue(any(c["recipe"] for c in self.cases))
        self.assertTrue(any(c["view_joint"] for c in self.cases))

    def test_golden_dumps_are_of_their_case_and_time(self):
        checked = 0
        for case in self.cases:
            for output in case["outputs"]:
                if not case["dumps"]:
                    self.assertIsNone(output["skv"])
                    continue
                pose = skinref.read_pose(os.path.join(golden_dir(), output["pose"]))
                self.assertEqual((pose["source"], pose["time"]), (case["model"], output["time"]), output["pose"])
                if case["recipe"]:
                    self.assertIsNone(pose["animation"])
                dump = skinref.read_skv(os.path.join(golden_dir(), output["skv"]))
                self.assertEqual(dump["precision"], "f64")
                self.assertGreater(sum(len(p["positions"]) for p in dump["primitives"]), 0)
                checked += 1
        self.assertGreater(checked, 50)


class MethodsAreSkinrefs(unittest.TestCase):
    """skinref.manifest.METHODS is the program's list (reference/skin/method.h, kSkinningMethods), as its
    usage prints it: a method added there fails here until the Python module names it too."""

    def test_same_methods_as_the_program(self):
        import re

        usage = run("skin", "--help", expect=0).stdout
        match = re.search(r"^  --method ([a-z0-9|-]+) ", usage, re.MULTILINE)
        self.assertIsNotNone(match, "skinref skin --help has no --method line:\n" + usage)
        self.assertEqual(tuple(match.group(1).split("|")), skinref.manifest.METHODS)


class StemsAreSkinrefs(TempDirTest):
    def test_files_written_by_golden_update_have_python_stems(self):
        times = [0, 2.0 ** -20, 0.3125, 3, 1024, 2.0 ** 60]
        manifest = {"format": "skinref-golden-manifest", "version": 1,
                    "cases": [{"name": "stems", "model": "builtin:bend", "times": times, "size": "8x8"}]}
        with open(self.path("manifest.json"), "w", encoding="utf-8") as stream:
            json.dump(manifest, stream)
        run("golden", "update", "--golden-dir", self.tmp, expect=0)
        (case,) = skinref.read_manifest(self.path("manifest.json"))
        stems = [o["stem"] for o in case["outputs"]]
        self.assertEqual(stems, ["t0", "t9.5367431640625e-07", "t0.3125", "t3", "t1024", "t1152921504606846976"])
        written = sorted(os.listdir(os.path.join(self.tmp, "cases", "stems")))
        self.assertEqual(written, sorted(s + ext for s in stems for ext in (".png", ".skv", ".pose.json")))
        self.assertEqual(skinref.golden_output_stem(1e-5), "t1e-05")
        self.assertEqual(skinref.golden_output_stem(1.5e16), "t1.5e+16")


class RefusesMalformedManifests(TempDirTest):
    """Each change to a copy of the committed manifest: FormatError with the same one-line message that
    `skinref golden check` prints (exit 2), or at least the same JSON pointer."""

    def setUp(self):
        super().setUp()
        shutil.copytree(os.path.join(golden_dir(), "recipes"), self.path("recipes"))
        self.manifest = read_json(committed_manifest())
        self.recipe_case = next(i for i, c in enumerate(self.manifest["cases"]) if "recipe" in c)

    def write(self, document=None, text=None):
        path = self.path("manifest.json")
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text if text is not None else json.dumps(document))
        return path

    def refused(self, change, pointer, same_message=True, text=None):
        document = json.loads(json.dumps(self.manifest))
        if change:
            change(document)
        path = self.write(document, text)
        with self.assertRaises(FormatError) as caught:
            skinref.read_manifest(path)
        message = str(caught.exception)
        self.assertTrue(message.startswith(path + ": " + pointer), message)
        result = run("golden", "check", "--backend", "reference", "--golden-dir", self.tmp)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        if same_message:
            self.assertEqual(result.stderr.strip(), "skinref: " + message)
        else:
            self.assertIn(path + ": ", result.stderr)
        return message

    def case(self, index, **values):
        return lambda d: d["cases"][index].update(values)

    def test_root(self):
        self.refused(lambda d: d.update(format="skinref-pose"), "/format")
        self.refused(lambda d: d.update(version=2), "/version")
        self.refused(lambda d: d.update(extra=1), "/extra")
        self.refused(lambda d: d.update(cases=[]), "/cases")
        self.refused(lambda d: d.pop("cases"), "")

    def test_names(self):
        self.refused(self.case(0, name="Twist"), "/cases/0/name")
        self.refused(self.case(1, name=self.manifest["cases"][0]["name"]), "/cases/1/name")
        self.refused(self.case(0, colour="red"), "/cases/0/colour")
        self.refused(lambda d: d["cases"][0].pop("name"), "/cases/0")

    def test_models(self):
        self.refused(self.case(0, model="builtin:spiral"), "/cases/0/model")
        self.refused(self.case(0, model="corpus:../x.glb"), "/cases/0/model")
        self.refused(self.case(0, model="corpus:a/b.obj"), "/cases/0/model")
        self.refused(self.case(0, model="model.glb"), "/cases/0/model")

    def test_animation_and_recipe(self):
        self.refused(self.case(self.recipe_case, animation=0), "/cases/%d/recipe" % self.recipe_case)
        self.refused(self.case(self.recipe_case, recipe="recipes/missing.json"), "/cases/%d/recipe" % self.recipe_case)
        self.refused(self.case(self.recipe_case, recipe="../recipes/blend.json"), "/cases/%d/recipe" % self.recipe_case)
        self.refused(self.case(0, animation=-1), "/cases/0/animation")
        self.refused(self.case(0, animation=""), "/cases/0/animation")

    def test_times(self):
        self.refused(self.case(0, times=[0, 0.1]), "/cases/0/times/1")
        self.refused(self.case(0, times=[0.5, 0.375]), "/cases/0/times/1")
        self.refused(self.case(0, times=[]), "/cases/0/times")
        self.refused(self.case(0, times=[0.5, "1"]), "/cases/0/times/1")

    def test_rendering_options(self):
        self.refused(self.case(0, method="slerp"), "/cases/0/method")
        for size in ("0x8", "8x", "+8x8", "8x4097", "8 x 8"):
            self.refused(self.case(0, size=size), "/cases/0/size")
        for camera in ("gltf:-1", "gltf:", "1,2,3:1,2,3:40", "0,0,0:0,1,0:40", "1,0,0:0,0,0:180",
                       "1,0,0:0,0,0", "1,0,0:0,0,+0:40", "1,0,0:0,0,0:inf"):
            self.refused(self.case(0, camera=camera), "/cases/0/camera")
        for view in ("weights:", "colour"):
            self.refused(self.case(0, view=view), "/cases/0/view")

    def test_dumps_and_tolerances(self):
        self.refused(self.case(0, dumps="no"), "/cases/0/dumps")
        self.refused(self.case(0, dumps_reason="small"), "/cases/0/dumps_reason")
        self.refused(self.case(0, dumps=False), "/cases/0/dumps_reason")
        self.refused(self.case(0, tolerances={"cpu": {}}), "/cases/0/tolerances/cpu")
        self.refused(self.case(0, tolerances={}), "/cases/0/tolerances")
        self.refused(self.case(0, tolerances={"vulkan": {"image_threshold": 2}}), "/cases/0/tolerances/vulkan")
        self.refused(self.case(0, tolerances={"vulkan": {"reason": ""}}), "/cases/0/tolerances/vulkan/reason")
        self.refused(self.case(0, tolerances={"vulkan": {"reason": "x"}}), "/cases/0/tolerances/vulkan")
        self.refused(self.case(0, tolerances={"vulkan": {"reason": "x", "image_threshold": 300}}),
                     "/cases/0/tolerances/vulkan/image_threshold")
        self.refused(self.case(0, tolerances={"vulkan": {"reason": "x", "image_max_fraction": 2}}),
                     "/cases/0/tolerances/vulkan/image_max_fraction")

    def test_strict_json(self):
        text = json.dumps(self.manifest)
        # skinref names the pointer of a repeated key and of an overflowing number; Python names the key.
        repeated = self.refused(None, "", same_message=False,
                                text=text.replace('"name": "twist-lbs",', '"name": "twist-lbs", "name": "x",', 1))
        self.assertIn('"name" is repeated', repeated)
        self.refused(None, "", same_message=False, text=text.replace('"times": [0,', '"times": [1e999,', 1))
        self.refused(None, "", same_message=False, text=text.replace('"times": [0,', '"times": [NaN,', 1))


if __name__ == "__main__":
    unittest.main()

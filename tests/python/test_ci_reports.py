"""CI-native reports and scale (tools/cli/ci_reports.h), through the program: JUnit XML from golden check,
compare and diagnose, validated against tests/tools/junit.xsd by libxml2 (xmllint) and read back with a real
XML parser (ElementTree), its counts checked against the manifest and the verdicts; golden check's shards
(--shard, GTEST_*, Bazel's TEST_*) disjoint and covering; the progress line on a terminal only."""

import fnmatch
import os
import pty
import shutil
import subprocess
import unittest
import xml.etree.ElementTree as ElementTree

import skinref
from skinref_cli import REPO, TempDirTest, golden_dir, run, skinref_exe

SCHEMA = os.path.join(REPO, "tests", "tools", "junit.xsd")


def manifest_cases(pattern):
    """The golden cases matching `pattern`, from the manifest (read independently of skinref)."""
    return [case["name"] for case in skinref.read_manifest(os.path.join(golden_dir(), "manifest.json"))
            if fnmatch.fnmatchcase(case["name"], pattern)]


class JunitTest(TempDirTest):
    def validated(self, path):
        """Validates `path` against the schema and returns its parsed root, with the counts checked against the
        elements (what a dashboard shows must agree with what it lists)."""
        if shutil.which("xmllint") is None:
            self.fail("xmllint not found (Debian: libxml2-utils, which ./run installs)")
        check = subprocess.run(["xmllint", "--noout", "--schema", SCHEMA, path], capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)
        root = ElementTree.parse(path).getroot()
        self.assertEqual(root.tag, "testsuites")
        cases = root.findall("./testsuite/testcase")
        for element in [root] + root.findall("./testsuite"):
            self.assertEqual(int(element.get("tests")), len(cases))
            self.assertEqual(int(element.get("failures")), len(root.findall("./testsuite/testcase/failure")))
            self.assertEqual(int(element.get("errors")), len(root.findall("./testsuite/testcase/error")))
            self.assertEqual(int(element.get("skipped")), len(root.findall("./testsuite/testcase/skipped")))
        return root

    def test_golden_check_one_case_per_golden_case(self):
        report = self.path("golden.xml")
        run("golden", "check", "--backend", "reference", "--filter", "twist-*", "--junit", report, expect=0)
        root = self.validated(report)
        names = [case.get("name") for case in root.iter("testcase")]
        self.assertEqual(sorted(names), sorted(manifest_cases("twist-*")))
        self.assertTrue(all(case.get("classname") == "skinref.golden.reference" for case in root.iter("testcase")))
        self.assertEqual(root.findall(".//failure"), [])

    def test_golden_check_failure_names_the_output(self):
        # A copy of the golden folder with one image of bend-lbs replaced by twist-lbs's.
        copy = self.path("golden")
        shutil.copytree(golden_dir(), copy)
        case_dir = os.path.join(copy, "cases", "bend-lbs")
        images = sorted(name for name in os.listdir(case_dir) if name.endswith(".png"))
        other = os.path.join(copy, "cases", "twist-lbs", sorted(
            name for name in os.listdir(os.path.join(copy, "cases", "twist-lbs")) if name.endswith(".png"))[0])
        shutil.copyfile(other, os.path.join(case_dir, images[0]))
        report = self.path("golden.xml")
        run("golden", "check", "--backend", "reference", "--golden-dir", copy, "--filter", "[bt]*-lbs", "--junit",
            report, expect=1)
        root = self.validated(report)
        failed = {case.get("name"): case.find("failure") for case in root.iter("testcase")}
        self.assertEqual(sorted(failed), ["bend-lbs", "twist-lbs"])
        self.assertIsNotNone(failed["bend-lbs"])
        self.assertIn(images[0][:-len(".png")], failed["bend-lbs"].get("message"))
        self.assertIsNone(failed["twist-lbs"])

    def test_compare_pair_is_one_case(self):
        ref, test = self.path("ref.skv"), self.path("test.skv")
        run("skin", "builtin:bend", "--time", "0.25", "--out", ref, expect=0)
        dump = skinref.read_skv(ref)
        dump["primitives"][0]["positions"][7, 1] += 1e-3  # one vertex moved by a millimetre
        skinref.write_skv(test, dump["primitives"], record=dump["record"], precision="f64")
        passed, failed = self.path("pass.xml"), self.path("fail.xml")
        run("compare", ref, ref, "--junit", passed, expect=0)
        run("compare", ref, test, "--junit", failed, expect=1)
        self.assertEqual(self.validated(passed).findall(".//failure"), [])
        failure = self.validated(failed).find(".//failure")
        self.assertTrue(failure.get("message").startswith("FAIL"), failure.get("message"))
        self.assertIn("vertex 7", failure.text)
        # Bad input writes no report.
        bad = self.path("bad.xml")
        run("compare", ref, self.path("missing.skv"), "--junit", bad, expect=2)
        self.assertFalse(os.path.exists(bad))

    def test_diagnose_one_case_per_dump_with_the_verdict(self):
        dumps = []
        for time in ("0.25", "0.5"):
            dumps.append(self.path("engine-%s.skv" % time))
            run("skin", "builtin:node-transforms", "--time", time, "--convention", "mesh-node=applied", "--precision",
                "f32", "--out", dumps[-1], expect=0)
        report = self.path("diagnose.xml")
        run("diagnose", "builtin:node-transforms", *dumps, "--junit", report, expect=1)
        root = self.validated(report)
        cases = root.findall(".//testcase")
        self.assertEqual([case.get("name") for case in cases], dumps)
        for case in cases:
            self.assertIn("mesh-node=applied", case.find("failure").get("message"))


class ShardTest(TempDirTest):
    def checked(self, *args, env=None):
        """The case names a golden check over every bend-* case reports (reference backend)."""
        report = self.path("shard.xml")
        result = subprocess.run([skinref_exe(), "golden", "check", "--backend", "reference", "--filter", "bend-*",
                                 "--junit", report] + list(args), capture_output=True, text=True,
                                env=dict(os.environ, **(env or {})))
        self.assertEqual(result.returncode, 0, result.stderr)
        return [case.get("name") for case in ElementTree.parse(report).getroot().iter("testcase")]

    def test_shards_are_disjoint_and_cover_the_selection(self):
        everything = self.checked()
        self.assertEqual(sorted(everything), sorted(manifest_cases("bend-*")))
        shards = [self.checked("--shard", "%d/3" % i) for i in range(3)]
        self.assertEqual(sorted(sum(shards, [])), sorted(everything))
        for i in range(3):
            for j in range(i + 1, 3):
                self.assertEqual(set(shards[i]) & set(shards[j]), set())
        self.assertTrue(all(shards))

    def test_environment_variables_select_the_same_shard(self):
        by_option = self.checked("--shard", "1/2")
        self.assertEqual(self.checked(env={"GTEST_SHARD_INDEX": "1", "GTEST_TOTAL_SHARDS": "2"}), by_option)
        status = self.path("shard-status")
        self.assertEqual(self.checked(env={"TEST_SHARD_INDEX": "1", "TEST_TOTAL_SHARDS": "2",
                                           "TEST_SHARD_STATUS_FILE": status}), by_option)
        self.assertTrue(os.path.exists(status), "Bazel's TEST_SHARD_STATUS_FILE was not touched")

    def test_bad_shards_are_usage_errors(self):
        for args, env in ((["--shard", "2/2"], {}), (["--shard", "1"], {}), ([], {"GTEST_SHARD_INDEX": "0"})):
            result = subprocess.run([skinref_exe(), "golden", "check", "--backend", "reference"] + args,
                                    capture_output=True, text=True, env=dict(os.environ, **env))
            self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
            self.assertEqual(result.stderr.count("\n"), 1, result.stderr)


class ProgressTest(TempDirTest):
    def test_progress_on_a_terminal_only(self):
        args = [skinref_exe(), "golden", "check", "--backend", "reference", "--filter", "twist-*"]
        piped = subprocess.run(args, capture_output=True, text=True)
        self.assertEqual(piped.returncode, 0)
        self.assertEqual(piped.stderr, "")
        self.assertNotIn("\r", piped.stdout)
        # stderr on a pseudo-terminal: "[k/N] case" lines rewritten in place, then cleared.
        master, slave = pty.openpty()
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        self.assertEqual(process.wait(), 0)
        total = len(manifest_cases("twist-*"))
        self.assertIn(("[%d/%d] " % (total, total)).encode(), seen)
        self.assertTrue(seen.endswith(b"\r\x1b[K"), seen[-40:])


if __name__ == "__main__":
    unittest.main()

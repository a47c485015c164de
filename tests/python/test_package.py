"""The Python module as a package: `pip install` of python/ gives an importable skinref of the program's version
(python/pyproject.toml), and `import skinref` where NumPy is missing says what to install."""

import os
import re
import shutil
import subprocess
import sys
import unittest

from skinref_cli import REPO, TempDirTest


def program_version():
    with open(os.path.join(REPO, "tools", "cli", "main.cc"), encoding="utf-8") as source:
        match = re.search(r'^#define SKINREF_VERSION "([0-9.]+)"$', source.read(), re.M)
    assert match, "no SKINREF_VERSION in tools/cli/main.cc"
    return match.group(1)


class Package(TempDirTest):
    def test_version_is_the_programs(self):
        with open(os.path.join(REPO, "python", "pyproject.toml"), encoding="utf-8") as toml:
            match = re.search(r'^version = "([0-9.]+)"$', toml.read(), re.M)
        self.assertIsNotNone(match, "python/pyproject.toml has no version line")
        self.assertEqual(match.group(1), program_version())

    def test_pip_install_then_import(self):
        check = subprocess.run([sys.executable, "-c", "import setuptools, pip"], capture_output=True)
        if check.returncode != 0:
            self.skipTest("SKIPPED: %s has no pip or setuptools to install with" % sys.executable)
        # From a copy: setuptools writes build/ and *.egg-info/ beside the sources.
        source = os.path.join(self.tmp, "source")
        shutil.copytree(os.path.join(REPO, "python"), source, ignore=shutil.ignore_patterns("__pycache__"))
        target = os.path.join(self.tmp, "site")
        install = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index",
             "--no-cache-dir", "--disable-pip-version-check", "--target", target, source],
            capture_output=True, text=True)
        self.assertEqual(install.returncode, 0, install.stdout + install.stderr)
        probe = ("import skinref, importlib.metadata as m; "
                 "print(skinref.__file__); print(m.version('skinref'))")
        environment = dict(os.environ, PYTHONPATH=target, PYTHONDONTWRITEBYTECODE="1")
        run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=environment,
                             cwd=self.tmp)
        self.assertEqual(run.returncode, 0, run.stderr)
        module_file, version = run.stdout.split()
        self.assertTrue(module_file.startswith(target), module_file)
        self.assertEqual(version, program_version())

    def test_import_without_numpy_says_what_to_install(self):
        # sys.modules["numpy"] = None makes `import numpy` raise ImportError, as where it is not installed.
        probe = "import sys; sys.modules['numpy'] = None; import skinref"
        environment = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"), PYTHONDONTWRITEBYTECODE="1")
        run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=environment)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("needs NumPy", run.stderr)
        self.assertIn("python3-numpy", run.stderr)
        self.assertIn(sys.executable, run.stderr)


if __name__ == "__main__":
    unittest.main()

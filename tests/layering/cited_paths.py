#!/usr/bin/env python3
"""cited_paths.py --root DIR | --self-test: every repository path that a doc or a code comment cites exists.

Scans README.md and docs/*.md, and the comments of C, C++, GLSL, CMake, Python and shell files under the
project's source folders, for paths that start with one of the top-level folders (reference/, tools/, gpu/, ...)
and end in a file name with an extension or a slash. A path with a placeholder (upper-case words such as ID,
NAME or TARGET, braces, globs) or under a build or output folder is not checked. Prints each missing path with
where it is cited; exit 1 when one is missing, 0 otherwise.
"""
import argparse
import os
import re
import sys

TOP = ("reference", "tools", "gpu", "cpu", "tests", "bench", "golden", "examples", "docs", "include", "conformance",
       "cmake", "python", ".ci")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*[\w/])" % "|".join(re.escape(t) for t in TOP))
SOURCE_EXT = (".h", ".cc", ".c", ".hpp", ".glsl", ".vert", ".comp", ".frag", ".py", ".cmake", ".sh", ".mjs",
              ".inc")
COMMENT = {".py": ("#",), ".cmake": ("#",), ".sh": ("#",)}


# Where a header path is also looked up: the include roots (`#include "conformance/suite.h"` is under tools/).
INCLUDE_ROOTS = ("", "reference", "tools", "gpu", "cpu", "include", "bench", "tests")
# Paths of other projects that skinref's comments cite (their own trees, not this one).
FOREIGN = ("include/assimp/", "include/vulkan/")


def placeholder(path):
    """A pattern rather than a path (ID, NAME, {h,cc}, *), a prefix (tests/gpu_), a folder made at run time
    (a hidden one: golden/.cases-staging) or another project's file."""
    return (bool(re.search(r"[A-Z]{2,}|[{}*?<>]|\.\.\.|/\.", path)) or path.endswith("_") or
            path.startswith(FOREIGN))


def exists(root, path):
    """The path, or a source file's stem (reference/verify/bounds_model for its .h and .cc), under an include root."""
    if any(os.path.exists(os.path.join(root, base, path.rstrip("/") + ext))
           for base in INCLUDE_ROOTS for ext in ("", ".h", ".cc")):
        return True
    # The stem of a group of files, as in "seeds/assimp/skinned-triangle.*" (the ".*" is not taken).
    folder, stem = os.path.split(os.path.join(root, path))
    return os.path.isdir(folder) and any(name.startswith(stem + ".") for name in os.listdir(folder))


def cited(root):
    files = [os.path.join(root, "README.md")]
    files += [os.path.join(root, "docs", f) for f in sorted(os.listdir(os.path.join(root, "docs"))) if f.endswith(".md")]
    for top in TOP:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in ("node_modules",)]
            files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(SOURCE_EXT)]
    files += [os.path.join(root, "CMakeLists.txt"), os.path.join(root, "run")]
    for path in files:
        if not os.path.isfile(path):
            continue
        ext = os.path.splitext(path)[1]
        markers = COMMENT.get(ext, ("//", "#") if ext in (".cmake",) else ("//", "/*", " * ", "#"))
        with open(path, encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, 1):
                if line.lstrip().startswith("#include") or (
                        not path.endswith(".md") and not any(m in line for m in markers)):
                    continue
                for match in PATH.finditer(line):
                    yield os.path.relpath(path, root), number, match.group(1).rstrip(".")


def missing_citations(root):
    missing, count = [], 0
    for where, line, path in cited(root):
        if placeholder(path):
            continue
        count += 1
        if not exists(root, path):
            missing.append(f"{where}:{line}: {path}")
    return missing, count


def self_test():
    """A tree whose doc cites a file that exists, a stem, a pattern and a moved file: only the moved one is named."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        os.makedirs(os.path.join(root, "reference", "skin"))
        open(os.path.join(root, "reference", "skin", "lbs.cc"), "w").close()
        open(os.path.join(root, "README.md"), "w").close()
        with open(os.path.join(root, "docs", "page.md"), "w") as doc:
            ref = "reference" + "/"  # split, so that this file cites none of these itself
            doc.write(f"See {ref}skin/lbs.cc, {ref}skin/lbs, tools/NAME.cc and {ref}skinning_lbs.cc.\n")
        with open(os.path.join(root, "reference", "skin", "lbs.h"), "w") as header:
            header.write(f'#include "{ref}gone.h"\n// from {ref}morph.cc\n')
        missing, count = missing_citations(root)
        expected = ["docs/page.md:1: reference/skinning_lbs.cc", "reference/skin/lbs.h:2: reference/morph.cc"]
        if sorted(missing) != expected or count != 4:
            print(f"self-test failed: {count} citations, missing {missing}, expected {expected}")
            return 1
    print("cited_paths self-test: passed")
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root")
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    if arguments.self_test:
        return self_test()
    if not arguments.root:
        parser.error("--root or --self-test")
    root = arguments.root
    missing, count = missing_citations(root)
    for m in missing:
        print("missing: " + m)
    print(f"cited_paths: {count} citations of repository paths, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Include circles: no two source files, and no two folders, include each other, directly or around a longer loop.

The layers' include roots (CMakeLists.txt, skinref_layer) already refuse an include against the arrows between
layers. This check covers what they cannot see: two files of one layer that include each other (a .h and its .cc
count as one unit: `io/gltf_load` is one node), and folders whose files include each other both ways.

Usage: include_cycles.py --root SOURCE_DIR --layer NAME=FOLDER ... --scan FOLDER ...
       include_cycles.py --self-test   (plants a file circle and a folder circle and checks both are reported)
Exit: 0 no circle, 1 a circle (each printed with the include lines that close it), 2 usage.
"""
import argparse
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_SUFFIXES = (".h", ".cc", ".inc")


def scan_includes(root, layers, scan_folders):
    """{unit: {included unit: 'file:line'}} over every source file under the scanned folders."""
    edges = {}
    for folder in scan_folders:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root)
                unit = os.path.splitext(relative)[0]
                with open(path, encoding="utf-8", errors="replace") as source:
                    text = source.read()
                for match in INCLUDE.finditer(text):
                    target = resolve(root, layers, os.path.dirname(relative), match.group(1))
                    if target is None:
                        continue
                    target_unit = os.path.splitext(target)[0]
                    if target_unit == unit:
                        continue
                    line = text.count("\n", 0, match.start()) + 1
                    edges.setdefault(unit, {}).setdefault(target_unit, f"{relative}:{line}")
    return edges


def resolve(root, layers, directory, included):
    """The included file relative to root: a layer's folder for `layer/...`, else next to the includer."""
    first, _, rest = included.partition("/")
    candidates = []
    if rest and first in layers:
        candidates.append(os.path.join(layers[first], rest))
    candidates.append(os.path.normpath(os.path.join(directory, included)))
    for candidate in candidates:
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None  # a system or generated header


def circles(edges):
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for succ in edges.get(node, {}):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(set(edges) | {t for targets in edges.values() for t in targets}):
        if node not in index:
            visit(node)
    return found


def folder_edges(edges):
    result = {}
    for unit, targets in edges.items():
        for target, where in targets.items():
            a, b = os.path.dirname(unit), os.path.dirname(target)
            if a != b:
                result.setdefault(a, {}).setdefault(b, where)
    return result


def report(kind, components, edges):
    for component in components:
        members = set(component)
        print(f"include circle between {kind}: " + " <-> ".join(component))
        for node in component:
            for target, where in sorted(edges.get(node, {}).items()):
                if target in members:
                    print(f"  {where}: {node} includes {target}")
    return len(components)


def check(root, layers, scan_folders):
    edges = scan_includes(root, layers, scan_folders)
    count = report("files", circles(edges), edges)
    folders = folder_edges(edges)
    count += report("folders", circles(folders), folders)
    units = len(set(edges) | {t for targets in edges.values() for t in targets})
    print(f"include_cycles: {units} units in {len(scan_folders)} folders scanned, {count} circles")
    return 1 if count else 0


def write(root, relative, text):
    path = os.path.join(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


def self_test():
    """A clean tree passes; a planted file circle and a planted folder circle each fail, naming the files."""
    with tempfile.TemporaryDirectory() as root:
        layers = {"lib": "src/lib", "app": "src/app"}
        write(root, "src/lib/a.h", '#include "lib/b.h"\n')
        write(root, "src/lib/b.h", "#pragma once\n")
        write(root, "src/app/main.cc", '#include "lib/a.h"\n')
        assert check(root, layers, ["src"]) == 0, "a clean tree was reported"
        write(root, "src/lib/b.cc", '#include "lib/b.h"\n#include "lib/a.h"\n')  # b -> a -> b
        assert check(root, layers, ["src"]) == 1, "a circle between two files was missed"
        write(root, "src/lib/b.cc", '#include "lib/b.h"\n')
        write(root, "src/lib/c.cc", '#include "app/tool.h"\n')  # lib -> app -> lib
        write(root, "src/app/tool.h", "#pragma once\n")
        assert check(root, layers, ["src"]) == 1, "a circle between two folders was missed"
    print("include_cycles self-test: a planted file circle and a planted folder circle were both reported")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root")
    parser.add_argument("--layer", action="append", default=[], help="NAME=FOLDER, as in the layers' include roots")
    parser.add_argument("--scan", action="append", default=[], help="a folder (under --root) to scan")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.root or not args.scan:
        parser.print_usage(sys.stderr)
        return 2
    layers = {}
    for item in args.layer:
        name, sep, folder = item.partition("=")
        if not sep:
            print(f"include_cycles: --layer {item}: expected NAME=FOLDER", file=sys.stderr)
            return 2
        layers[name] = folder
    return check(args.root, layers, args.scan)


if __name__ == "__main__":
    sys.exit(main())

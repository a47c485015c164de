#!/usr/bin/env python3
"""Function length: no function defined at namespace level in the production sources is longer than the limit.

The house style (DEVELOPERS.md, "Style") keeps functions under 100 lines so that each reads as one step; a
longer one is split into named steps. A definition is found by the formatting every source here follows
(clang-format, Google style): a line at column 0 that opens a function body (a parameter list, then `{` at the
end of the line or of a continuation line), closed by the first `}` at column 0 after it. Class members defined
inside a class body are indented and counted as part of nothing: the classes here keep them short. The length
is the number of lines from the signature's first line to the closing brace.

Usage: function_length.py --root SOURCE_DIR --max N --scan FOLDER ... [--list-over M]
       function_length.py --self-test
Exit: 0 none over N, 1 some (listed, longest first), 2 usage.
"""
import argparse
import os
import re
import sys
import tempfile

SOURCE_SUFFIXES = (".cc", ".inc", ".h")
# A line at column 0 that starts a declaration (not a comment, preprocessor line, brace, label or namespace).
STARTS_DECLARATION = re.compile(r"^(?!namespace\b|using\b|typedef\b|struct\b|class\b|enum\b|union\b|extern\b|//|#|\}|\{|template\s*<[^>]*>\s*$)[A-Za-z_:~<\[]")


def functions(text):
    """[(name, first line, length)] of the namespace-level function definitions in a source text."""
    lines = text.split("\n")
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if STARTS_DECLARATION.match(line) and "(" in line:
            # The signature may continue over several lines; the body opens with '{' ending one of them.
            j = i
            while j < len(lines) and j < i + 12:
                stripped = lines[j].rstrip()
                if stripped.endswith(";") or (j > i and (lines[j].startswith("}") or not lines[j].strip())):
                    j = -1
                    break
                if stripped.endswith("{"):
                    break
                j += 1
            if j >= 0 and j < len(lines) and lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith("= {"):
                end = j + 1
                while end < len(lines) and not lines[end].startswith("}"):
                    end += 1
                if end < len(lines) and not lines[j].startswith("}"):
                    name = re.search(r"([A-Za-z_~][A-Za-z_0-9:<>~]*)\s*\(", line)
                    found.append((name.group(1) if name else line.strip(), i + 1, end - i + 1))
                    i = end + 1
                    continue
        i += 1
    return found


def scan(root, folders):
    result = []
    for folder in folders:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if name.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(directory, name)
                    with open(path, encoding="utf-8", errors="replace") as source:
                        for function, line, length in functions(source.read()):
                            result.append((length, os.path.relpath(path, root), line, function))
    return sorted(result, reverse=True)


def self_test():
    body = "\n".join("  x += %d;" % k for k in range(120))
    text = ("namespace a {\n\nint short_one(int x) {\n  return x;\n}\n\nint long_one(int x,\n             int y) {\n" + body +
            "\n  return x;\n}\n\n}  // namespace a\n")
    found = functions(text)
    assert [(name, length) for name, _, length in found] == [("short_one", 3), ("long_one", 124)], found
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src"))
        with open(os.path.join(root, "src", "f.cc"), "w") as out:
            out.write(text)
        assert check(root, ["src"], 100, 100) == 1, "a function of 124 lines passed a limit of 100"
        assert check(root, ["src"], 130, 130) == 0, "a function of 124 lines failed a limit of 130"
    print("function_length self-test: a planted 124-line function was measured and refused")
    return 0


def check(root, folders, limit, list_over):
    found = scan(root, folders)
    over = [item for item in found if item[0] > limit]
    for length, path, line, name in found:
        if length > list_over:
            print(f"{path}:{line}: {name}: {length} lines" + (" (over the limit)" if length > limit else ""))
    print(f"function_length: {len(found)} functions, the longest {found[0][0] if found else 0} lines; "
          f"{len(over)} over {limit}")
    return 1 if over else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root")
    parser.add_argument("--max", type=int, default=100)
    parser.add_argument("--list-over", type=int)
    parser.add_argument("--scan", action="append", default=[])
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.root or not args.scan:
        parser.print_usage(sys.stderr)
        return 2
    return check(args.root, args.scan, args.max, args.list_over if args.list_over is not None else args.max)


if __name__ == "__main__":
    sys.exit(main())

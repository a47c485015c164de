#!/usr/bin/env python3
"""Function length: no function in the scanned sources (C and C++, shaders, Python) is longer than the limit.

The house style (DEVELOPERS.md, "Style") keeps functions under 100 lines so that each reads as one step; a
longer one is split into named steps. Three languages are measured:

C and C++ (.cc .c .h .inc): a definition is found by the formatting every source here follows (clang-format,
Google style): a line at column 0 that opens a function body (a parameter list, then `{` at the end of the line
or of a deeper-indented continuation line), closed by the first `}` at column 0 after it. A member function
defined inside a class, struct or union body is found the same way one level in: its signature starts at the
body's member indentation (the class line's plus two spaces) and the first `}` at that indentation closes it.
Lambdas count as part of the function around them. The length is the number of lines from the signature's
first line (not a `template <...>` line above it) to the closing brace.

Shaders (GLSL .comp .vert .frag .glsl and the other stage suffixes, HLSL .hlsl): the same column-0 rule; an
interface block (`layout(...) buffer B {`, `uniform U {`, `cbuffer C : register(b0) {`) and an HLSL attribute
line (`[numthreads(64, 1, 1)]`) are not functions.

Python (.py): every `def`, methods and nested functions included, measured by the ast module as
end_lineno - lineno + 1 (the `def` line to the body's last line; decorators not counted).

Usage: function_length.py --root SOURCE_DIR --max N --scan [LANGUAGE:]FOLDER ... [--list-over M]
       function_length.py --self-test
  --scan FOLDER measures every language under FOLDER; --scan LANGUAGE:FOLDER only that one (cxx, shader,
  python), e.g. --scan python:tests for the test scripts without the C++ tests.
Exit: 0 none over N, 1 some (listed, longest first), a Python file that does not parse or a scanned folder
      that does not exist, 2 usage.
"""
import argparse
import ast
import os
import re
import sys
import tempfile

CXX_SUFFIXES = (".cc", ".c", ".inc", ".h")
SHADER_SUFFIXES = (".comp", ".vert", ".frag", ".geom", ".tesc", ".tese", ".glsl", ".mesh", ".task", ".rgen",
                   ".rint", ".rahit", ".rchit", ".rmiss", ".rcall", ".hlsl")
PYTHON_SUFFIXES = (".py",)
# Folders that hold other projects' files or generated ones, never the tree's own sources.
SKIPPED_FOLDERS = ("node_modules", "__pycache__")

# A line that starts a declaration (not a comment, preprocessor line, brace, label, namespace or type).
STARTS_DECLARATION = re.compile(
    r"^(?!(?:inline\s+)?namespace\b|using\b|typedef\b|struct\b|class\b|enum\b|union\b|extern\b|//|#|\}|\{|template\s*<[^>]*>\s*$)"
    r"[A-Za-z_:~<\[]")
# Shaders also open interface blocks with a parameter-like list (layout(...)) or a qualifier.
STARTS_SHADER_DECLARATION = re.compile(
    r"^(?!(?:layout|uniform|buffer|in|out|shared|cbuffer|tbuffer|precision)\b)" + STARTS_DECLARATION.pattern[1:])
# A line holding only an attribute ([numthreads(64, 1, 1)], [[nodiscard]]): the declaration follows it.
ATTRIBUTE_LINE = re.compile(r"^\s*\[.*\]\s*$")
# A class, struct or union whose body opens on this line or a continuation of it (not a forward declaration,
# not a one-line body, not `struct S* f(...)`).
CLASS_HEAD = re.compile(r"^(\s*)(?:typedef\s+)?(?:class|struct|union)\b[^;()]*$")
TRAILING_COMMENT = re.compile(r"\s*//[^\"]*$")


def code_of(line):
    """The line without a trailing // comment or trailing blanks."""
    return TRAILING_COMMENT.sub("", line).rstrip()


def body_opening(lines, start, stop, indent, starts):
    """The index of the line whose `{` opens the body of a function declared at lines[start], or None.

    The declaration starts at exactly `indent`; its continuation lines are indented deeper.
    """
    line = lines[start]
    if not line.startswith(indent) or "(" not in code_of(line) or ATTRIBUTE_LINE.match(line):
        return None
    if not starts.match(line[len(indent):]):
        return None
    for j in range(start, min(stop, start + 12)):
        code = code_of(lines[j])
        if j > start and (not code or not lines[j].startswith(indent + " ")):
            return None  # a blank line or the next declaration: this one had no body
        if code.endswith("{"):
            return None if code.endswith("= {") else j
        if code.endswith((";", "}")):
            return None  # a declaration, or a body on one line
    return None


def closing_line(lines, start, stop, indent):
    """The index of the first line in lines[start:stop] that starts with `indent` + '}', or None."""
    for end in range(start, stop):
        if lines[end].startswith(indent + "}"):
            return end
    return None


def braced_functions(lines, start, stop, indent, starts):
    """[(name, first line, length)] of the functions whose signature starts at `indent` within lines[start:stop]."""
    found = []
    i = start
    while i < stop:
        opening = body_opening(lines, i, stop, indent, starts)
        end = closing_line(lines, opening + 1, stop, indent) if opening is not None else None
        if end is None:
            i += 1
            continue
        name = re.search(r"([A-Za-z_~][A-Za-z_0-9:<>~]*)\s*\(", lines[i])
        found.append((name.group(1) if name else lines[i].strip(), i + 1, end - i + 1))
        i = end + 1
    return found


def class_bodies(lines):
    """[(first body line, closing line, member indentation)] of every class, struct and union body."""
    bodies = []
    for i, line in enumerate(lines):
        head = CLASS_HEAD.match(code_of(line))
        if not head:
            continue
        indent = head.group(1)
        for j in range(i, min(len(lines), i + 6)):
            code = code_of(lines[j])
            if j > i and not lines[j].startswith(indent + " "):
                break
            if code.endswith("{"):
                end = closing_line(lines, j + 1, len(lines), indent)
                if end is not None:
                    bodies.append((j + 1, end, indent + "  "))
                break
            if code.endswith((";", "}")) or "(" in code:
                break
    return bodies


def cxx_functions(text):
    """[(name, first line, length)] of the C/C++ function definitions: at namespace level and in class bodies."""
    lines = text.split("\n")
    found = braced_functions(lines, 0, len(lines), "", STARTS_DECLARATION)
    for start, stop, indent in class_bodies(lines):
        found += braced_functions(lines, start, stop, indent, STARTS_DECLARATION)
    return sorted(found, key=lambda item: item[1])


def shader_functions(text):
    """[(name, first line, length)] of the GLSL/HLSL function definitions (all at column 0)."""
    lines = text.split("\n")
    return braced_functions(lines, 0, len(lines), "", STARTS_SHADER_DECLARATION)


def python_functions(text, path="<text>"):
    """[(qualified name, def line, length)] of every def, methods and nested functions included.

    Raises SyntaxError for a file that does not parse.
    """
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(text, filename=path), "")
    return sorted(found, key=lambda item: item[1])


LANGUAGES = {
    "cxx": (CXX_SUFFIXES, lambda text, path: cxx_functions(text)),
    "shader": (SHADER_SUFFIXES, lambda text, path: shader_functions(text)),
    "python": (PYTHON_SUFFIXES, python_functions),
}


def parse_scan(argument):
    """'python:tests' -> ('tests', ['python']); 'gpu' -> ('gpu', every language)."""
    language, separator, folder = argument.partition(":")
    if separator and language in LANGUAGES:
        return folder, [language]
    return argument, list(LANGUAGES)


def source_files(root, folder, languages):
    """[(path, measure)] of the files under root/folder in the given languages, in a stable order."""
    result = []
    for directory, folders, names in os.walk(os.path.join(root, folder)):
        folders[:] = sorted(name for name in folders if name not in SKIPPED_FOLDERS and not name.startswith("."))
        for name in sorted(names):
            for language in languages:
                suffixes, measure = LANGUAGES[language]
                if name.endswith(suffixes):
                    result.append((os.path.join(directory, name), measure))
    return result


def scan(root, scans):
    """([(length, path, line, name)] longest first, [messages: files that do not parse, missing folders])."""
    result, errors, seen = [], [], set()
    for argument in scans:
        folder, languages = parse_scan(argument)
        if not os.path.isdir(os.path.join(root, folder)):
            errors.append(f"{argument}: no such folder under {root}")  # a misspelt --scan would measure nothing
            continue
        for path, measure in source_files(root, folder, languages):
            relative = os.path.relpath(path, root)
            if relative in seen:
                continue  # named by two --scan arguments
            seen.add(relative)
            with open(path, encoding="utf-8", errors="replace") as source:
                text = source.read()
            try:
                for function, line, length in measure(text, relative):
                    result.append((length, relative, line, function))
            except SyntaxError as error:
                errors.append(f"{relative}:{error.lineno}: does not parse: {error.msg}")
    return sorted(result, reverse=True), errors


def check(root, scans, limit, list_over):
    found, errors = scan(root, scans)
    over = [item for item in found if item[0] > limit]
    for length, path, line, name in found:
        if length > list_over:
            print(f"{path}:{line}: {name}: {length} lines" + (" (over the limit)" if length > limit else ""))
    for error in errors:
        print(error)
    print(f"function_length: {len(found)} functions, the longest {found[0][0] if found else 0} lines; "
          f"{len(over)} over {limit}" + (f"; {len(errors)} errors" if errors else ""))
    return 1 if over or errors else 0


def lines_of(template, count):
    """A body of `count` statement lines, each from template % k."""
    return "\n".join(template % k for k in range(count))


LONG_BODY = 99  # body lines of a planted function one line over the limit of 100 (with its signature and end)


def planted_sources():
    """{file name: text}: per language, functions of 101 lines (LONG_BODY body lines) and of 100; C++ at
    namespace level, as a member, and as a member of a nested struct."""
    long_body, short_body = LONG_BODY, LONG_BODY - 1
    return {
        "f.cc": ("namespace a {\n\nint short_one(int x) {\n  return x;\n}\n\nint long_one(int x,\n"
                 "             int y) {\n" + lines_of("  x += %d;", 120) + "\n  return x;\n}\n\n}  // namespace a\n"),
        "members.h": ("namespace a {\n\nclass Holder {  // keeps x (an int)\n public:\n"
                      "  int Getter() const { return x_; }\n"
                      "  int LongMember(int x) {\n" + lines_of("    x += %d;", long_body) + "\n  }\n"
                      "  int ShortMember(int x) {  // just under\n" + lines_of("    x += %d;", short_body) + "\n  }\n\n"
                      " private:\n  struct Inner {\n    void Nested() {\n" + lines_of("      y += %d;", long_body) +
                      "\n    }\n    int y = 0;\n  };\n  int x_ = 0;\n};\n\n}  // namespace a\n"),
        "skin.comp": ("#version 450\nlayout(local_size_x = 64) in;\nlayout(std430, binding = 0) buffer Out {\n"
                      + lines_of("  float v%d;", long_body) + "\n} o;\n\nvoid long_main() {\n" +
                      lines_of("  o.v%d = 1.0;", long_body) + "\n}\n\nfloat short_helper(float x) {\n" +
                      lines_of("  x = x + %d.0;", short_body - 1) + "\n  return x;\n}\n"),
        "shade.hlsl": ("[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n" +
                       lines_of("  uint a%d = id.x;", long_body) + "\n}\n"),
        "script.py": ("import os\n\n\ndef long_one():\n" + lines_of("    x%d = 1", long_body + 1) + "\n\n\n"
                      "class Holder:\n    def short_method(self):\n" + lines_of("        y%d = 1", short_body + 1) +
                      "\n\n    def long_method(self):\n        def nested():\n" +
                      lines_of("            z%d = 1", long_body + 1) + "\n        return nested\n"),
    }


def measure_planted(sources):
    """{file name: [(function, length)]} of the planted sources, each by its language's parser."""
    measured = {}
    for name, text in sources.items():
        language = next(key for key, (suffixes, _) in LANGUAGES.items() if name.endswith(suffixes))
        measured[name] = [(function, length) for function, _, length in LANGUAGES[language][1](text, name)]
    return measured


def self_test():
    sources = planted_sources()
    measured = measure_planted(sources)
    expected = {
        "f.cc": [("short_one", 3), ("long_one", 124)],
        "members.h": [("LongMember", 101), ("ShortMember", 100), ("Nested", 101)],
        "skin.comp": [("long_main", 101), ("short_helper", 100)],  # the interface block is not a function
        "shade.hlsl": [("main", 101)],  # measured from `void main`, not from its attribute line
        "script.py": [("long_one", 101), ("Holder.short_method", 100), ("Holder.long_method", 103),
                      ("Holder.long_method.nested", 101)],
    }
    for name, functions in expected.items():
        assert measured[name] == functions, (name, measured[name])
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "shaders"))
        for name, text in sources.items():
            folder = "shaders" if name.endswith(SHADER_SUFFIXES) else ""
            with open(os.path.join(root, "src", folder, name), "w") as out:
                out.write(text)
        assert check(root, ["src"], 100, 100) == 1, "functions of 101 lines passed a limit of 100"
        over = sorted(name for length, _, _, name in scan(root, ["src"])[0] if length > 100)
        assert over == ["Holder.long_method", "Holder.long_method.nested", "LongMember", "Nested", "long_main",
                        "long_one", "long_one", "main"], over  # every 101-line one, no 100-line one
        assert check(root, ["src"], 124, 124) == 0, "no function over 124 lines, yet the check failed"
        assert check(root, ["cxx:src"], 123, 123) == 1, "the 124-line C++ function passed a limit of 123"
        assert check(root, ["shader:src"], 100, 100) == 1 and check(root, ["shader:src"], 101, 101) == 0
        assert check(root, ["python:src"], 102, 102) == 1 and check(root, ["python:src"], 103, 103) == 0
        with open(os.path.join(root, "src", "broken.py"), "w") as out:
            out.write("def broken(:\n")
        assert check(root, ["python:src"], 200, 200) == 1, "a Python file that does not parse passed"
        assert check(root, ["shader:scr"], 200, 200) == 1, "a misspelt folder passed"
    print("function_length self-test: planted 101-line functions (C++ at namespace level and in class bodies, "
          "GLSL, HLSL, Python) were refused and 100-line ones passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root")
    parser.add_argument("--max", type=int, default=100)
    parser.add_argument("--list-over", type=int)
    parser.add_argument("--scan", action="append", default=[], help="[LANGUAGE:]FOLDER, LANGUAGE one of " +
                        ", ".join(LANGUAGES))
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

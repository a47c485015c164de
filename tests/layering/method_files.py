#!/usr/bin/env python3
"""method_files.py --root DIR | --self-test: a new skinning method touches only the files docs/architecture.md lists.

The list: the numbered table of docs/architecture.md's section "Adding a skinning method", one file per row
(`| 3 | `path` | what it adds |`), numbered 1, 2, ... in order, at most 8 rows, each an existing file, or a
placeholder with the upper-case word NAME standing for a method's name (`reference/skin/NAME.cc` is
reference/skin/lbs.cc and reference/skin/dqs.cc).

The methods: the enumerators of `enum class SkinningMethod` in reference/skin/method.h (Lbs, Dqs) and their
names, the `.name = "..."` of each descriptor there (lbs, dqs).

A file names a method when, outside its comments, it holds one of:
  - C and C++ (.h .hpp .c .cc .inc): the token SkinningMethod::ENUMERATOR (spaces allowed around ::), or
    `using enum SkinningMethod`;
  - GLSL (.comp .vert .frag .glsl): an identifier kMethodENUMERATOR (skin.comp's constants, kMethodDqs), or
    the specialization constant kMethod itself;
  - C, C++ and Python (.py): a string literal whose whole text is a method's name in any case ("dqs", 'LBS').
    A literal that only contains one ("--method lbs", "/lbs/vertices:") is text, not a name.
Scanned: every such file under reference/, cpu/, gpu/, tools/, bench/ and python/ (tests/ is not: a test may
name the method whose property it checks).

Fails (exit 1) when a scanned file outside the list names a method (each occurrence printed as file:line), when
the table has more than 8 rows, is misnumbered or lists a file that does not exist, or when skin.comp's constant
kMethodENUMERATOR differs from the `.shader_method` of that method's descriptor (each method must have both).
"""
import argparse
import ast
import bisect
import io
import os
import re
import sys
import tokenize

MAX_FILES = 8
SCAN = ("reference", "cpu", "gpu", "tools", "bench", "python")
CXX = (".h", ".hpp", ".c", ".cc", ".inc")
GLSL = (".comp", ".vert", ".frag", ".glsl")
METHOD_H = os.path.join("reference", "skin", "method.h")
SKIN_COMP = os.path.join("gpu", "shaders", "skin.comp")
DOC = os.path.join("docs", "architecture.md")
SECTION = "## Adding a skinning method"
ROW = re.compile(r"^\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|")


def methods(root):
    """(enumerators, names) of reference/skin/method.h."""
    with open(os.path.join(root, METHOD_H), encoding="utf-8") as f:
        text = strip_cxx(f.read())[0]
    enum = re.search(r"enum\s+class\s+SkinningMethod\s*\{([^}]*)\}", text)
    if not enum:
        raise SystemExit(f"{METHOD_H}: no enum class SkinningMethod")
    enumerators = [e.split("=")[0].strip() for e in enum.group(1).split(",") if e.strip()]
    names = re.findall(r'\.name\s*=\s*"([^"]+)"', text)
    return enumerators, names


def listed_files(root):
    """The table's paths in order, and the problems with the table."""
    with open(os.path.join(root, DOC), encoding="utf-8") as f:
        lines = f.read().split("\n")
    problems, paths = [], []
    try:
        start = lines.index(SECTION)
    except ValueError:
        return [], [f"{DOC}: no section '{SECTION}'"]
    rows = []
    for number, line in enumerate(lines[start + 1:], start + 2):
        if line.startswith("## "):
            break
        if line.startswith("|"):
            rows.append((number, line))
        elif rows:
            break  # the end of the first table
    for number, line in rows:
        cells = ROW.match(line)
        if not cells or cells.group(1) in ("#", "") or set(cells.group(1)) <= set("-: "):
            continue  # the header and its rule
        index, path = cells.group(1), cells.group(2)
        files = re.findall(r"`([^`]+)`", path)
        if not index.isdigit() or len(files) != 1:
            problems.append(f"{DOC}:{number}: one number and one `file` per row, got '{index}' and {path}")
            continue
        if int(index) != len(paths) + 1:
            problems.append(f"{DOC}:{number}: row {index} where {len(paths) + 1} was due")
        paths.append(files[0])
    if not paths:
        problems.append(f"{DOC}: no numbered file list under '{SECTION}'")
    if len(paths) > MAX_FILES:
        problems.append(f"{DOC}: {len(paths)} files for a new method, more than {MAX_FILES}")
    return paths, problems


def expand(paths, names, root):
    """The listed files with NAME replaced by each method's name; problems for listed files that do not exist."""
    allowed, problems = set(), []
    for path in paths:
        if "NAME" in path:
            allowed.update(os.path.normpath(path.replace("NAME", n)) for n in names)
        elif not os.path.exists(os.path.join(root, path)):
            problems.append(f"{DOC}: lists {path}, which does not exist")
        else:
            allowed.add(os.path.normpath(path))
    return allowed, problems


RAW_PREFIXES = ("R", "u8R", "uR", "UR", "LR")
PP_NUMBER = re.compile(r"\.?\d(?:[eEpP][+-]|[\w.'])*")  # 1'000'000, 0x1p-23: a quote in a number is no char
WORD = re.compile(r"\w+")


def strip_cxx(text):
    """C/C++ (or GLSL) text with comments blanked (newlines kept), and its string literals as (line, value)."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    line_of = lambda at: bisect.bisect_left(newlines, at) + 1  # noqa: E731
    out, literals, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c.isdigit() or (c == "." and text[i + 1:i + 2].isdigit()):
            m = PP_NUMBER.match(text, i)
            out.append(m.group(0))
            i = m.end()
        elif c.isalpha() or c == "_":
            m = WORD.match(text, i)
            out.append(m.group(0))
            i = m.end()
            if text.startswith('"', i) and m.group(0) in RAW_PREFIXES:  # R"delim(...)delim"
                open_at = text.index("(", i)
                delimiter = text[i + 1:open_at]
                close_at = text.index(")" + delimiter + '"', open_at)
                stop = close_at + len(delimiter) + 2
                literals.append((line_of(i), text[open_at + 1:close_at]))
                out.append(re.sub(r"[^\n]", " ", text[i:stop]))
                i = stop
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                literals.append((line_of(i), text[i + 1:j]))
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), literals


def python_literals(text):
    """(line, value) of each string literal of Python source (docstrings included); none when it does not parse."""
    literals = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING:
                try:
                    value = ast.literal_eval(token.string)
                except (ValueError, SyntaxError):
                    continue
                if isinstance(value, str):
                    literals.append((token.start[0], value))
    except (tokenize.TokenError, SyntaxError):
        pass
    return literals


def namings(path, text, enumerators, names):
    """(line, what) for each place where the file names a method."""
    found = []
    lowered = {n.lower() for n in names}
    ext = os.path.splitext(path)[1]
    if ext == ".py":
        literals = python_literals(text)
    else:
        code, literals = strip_cxx(text)
        if ext in CXX:
            tokens = [(r"\bSkinningMethod\s*::\s*(%s)\b" % "|".join(map(re.escape, enumerators)), "SkinningMethod::"),
                      (r"\busing\s+enum\s+SkinningMethod\b", "")]
        else:
            tokens = [(r"\bkMethod(?:%s)?\b" % "|".join(map(re.escape, enumerators)), "")]
        for pattern, prefix in tokens:
            for m in re.finditer(pattern, code):
                what = prefix + m.group(1) if prefix else m.group(0)
                found.append((code.count("\n", 0, m.start()) + 1, what))
        if ext in GLSL:
            literals = []
    found += [(line, f'"{value}"') for line, value in literals if value.lower() in lowered]
    return sorted(found)


def scanned_files(root):
    for top in SCAN:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in ("node_modules", "__pycache__"))
            for name in sorted(files):
                if name.endswith(CXX + GLSL + (".py",)):
                    path = os.path.join(folder, name)
                    yield os.path.relpath(path, root), path


def shader_constants(root, enumerators):
    """Problems where skin.comp's kMethodENUMERATOR differs from the descriptor's shader_method."""
    with open(os.path.join(root, METHOD_H), encoding="utf-8") as f:
        header = strip_cxx(f.read())[0]
    with open(os.path.join(root, SKIN_COMP), encoding="utf-8") as f:
        shader = strip_cxx(f.read())[0]
    problems = []
    for e in enumerators:
        # The method's case of skinning_method_descriptor(), up to the next case.
        case = re.search(r"case\s+SkinningMethod\s*::\s*%s\s*:(?:(?!\bcase\b).)*?\.shader_method\s*=\s*(\d+)" % e,
                         header, re.S)
        constant = re.search(r"\bconst\s+uint\s+kMethod%s\s*=\s*(\d+)u?\s*;" % e, shader)
        if not case or not constant:
            problems.append(f"{e}: its descriptor's .shader_method ({METHOD_H}) and kMethod{e} ({SKIN_COMP}) "
                            f"are both needed; found {'one' if case or constant else 'neither'}")
        elif int(case.group(1)) != int(constant.group(1)):
            problems.append(f"{e}: .shader_method = {case.group(1)} in {METHOD_H}, kMethod{e} = "
                            f"{constant.group(1)}u in {SKIN_COMP}")
    return problems


def check(root):
    """(problems, files scanned, listed files)."""
    enumerators, names = methods(root)
    paths, problems = listed_files(root)
    allowed, missing = expand(paths, names, root)
    problems += missing + shader_constants(root, enumerators)
    count = 0
    for relative, path in scanned_files(root):
        count += 1
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if os.path.normpath(relative) in allowed:
            continue
        for line, what in namings(relative, text, enumerators, names):
            problems.append(f"{relative}:{line}: names a method ({what}) but is not in {DOC}'s list")
    return problems, count, paths


SELF_TEST_FILES = {
    "reference/skin/method.h": "enum class SkinningMethod {\n  Lbs,  // one\n  Dqs,\n};\n"
                               "case SkinningMethod::Lbs: return {.name = \"lbs\", .shader_method = 0};\n"
                               "case SkinningMethod::Dqs: return {.name = \"dqs\", .shader_method = 1};\n",
    "reference/skin/dqs.cc": "int dqs() { return int(SkinningMethod::Dqs); }\n",
    "gpu/shaders/skin.comp": "const uint kMethodLbs = 0u;\nconst uint kMethodDqs = 2u;\n",
    "gpu/quiet.cc": "// SkinningMethod::Dqs in a comment, \"dqs\" too\nconst char* a = \"--method lbs\";\n"
                    "int n = 1'000'000; char q = '\"'; const char* r = R\"x(a \"dqs\" b)x\";\n"
                    "/* SkinningMethod::Lbs\n \"lbs\" */ double d = 0x1p-23;\n",
    "gpu/loud.cc": "int b = 1'0;\nauto m = SkinningMethod :: Lbs;\nconst char* c = \"DQS\";\n",
    "gpu/shaders/user.vert": "// kMethodDqs\nvoid main() { if (kMethod == 1u) {} }\n",
    "python/skinref/" "m.py": '"""A "lbs" docstring."""\nX = "lbs only"  # "dqs"\n',  # split: not a citation
    "tools/loud.py": "x = {'method': 'Dqs'}\n",
    "tests/skin/t.cc": "auto m = SkinningMethod::Dqs;\n",
}
SELF_TEST_EXPECTED = [
    "gpu/loud.cc:2: names a method (SkinningMethod::Lbs)",
    "gpu/loud.cc:3: names a method (\"DQS\")",
    "gpu/shaders/user.vert:2: names a method (kMethod)",
    "tools/loud.py:1: names a method (\"Dqs\")",
    "Dqs: .shader_method = 1 in reference/skin/method.h, kMethodDqs = 2u in gpu/shaders/skin.comp",
    "docs/architecture.md: lists reference/gone.cc, which does not exist",
    "docs/architecture.md: 9 files for a new method, more than 8",
]


def self_test():
    """A tree whose files name methods in every form, in comments and in text that is not a name: only the
    names outside the list are reported, with a wrong shader constant, a missing listed file and a long list."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for path, text in SELF_TEST_FILES.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        os.makedirs(os.path.join(root, "docs"))
        listed = ["reference/skin/method.h", "reference/skin/NAME.cc", "gpu/shaders/skin.comp",
                  "reference/gone.cc"] + [f"tests/skin/t{i}.cc" for i in range(5)]
        for i in range(5):
            open(os.path.join(root, "tests", "skin", f"t{i}.cc"), "w").close()
        rows = "".join(f"| {i} | `{p}` | what |\n" for i, p in enumerate(listed, 1))
        with open(os.path.join(root, DOC), "w", encoding="utf-8") as f:
            f.write(f"# A\n\n{SECTION}\n\nText.\n\n| # | file | what |\n|---|---|---|\n{rows}\nAfter.\n")
        problems, count, paths = check(root)
        got = sorted(p.split(" but is not in")[0] for p in problems)
        if got != sorted(SELF_TEST_EXPECTED) or count != 8 or len(paths) != 9:
            print(f"self-test failed: {count} files, {len(paths)} listed, problems:\n  " + "\n  ".join(problems))
            return 1
    print("method_files self-test: passed")
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
    problems, count, paths = check(arguments.root)
    for problem in problems:
        print(problem)
    print(f"method_files: {len(paths)} files listed for a new method, {count} files scanned, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

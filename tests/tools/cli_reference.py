#!/usr/bin/env python3
"""docs/cli.md is the page `skinref help --markdown` prints from the command line's declarations
(tools/cli/command_decl.h): fails, with a unified diff, when the committed page differs.

usage: cli_reference.py SKINREF DOC.md
"""
import difflib
import subprocess
import sys


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    skinref, doc = argv[1], argv[2]
    generated = subprocess.run([skinref, "help", "--markdown"], check=True, capture_output=True, text=True).stdout
    with open(doc, encoding="utf-8") as f:
        committed = f.read()
    if generated == committed:
        print(f"{doc} is current with the declarations ({generated.count(chr(10))} lines)")
        return 0
    sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), generated.splitlines(True), doc,
                                               "skinref help --markdown"))
    print(f"\n{doc} is stale: regenerate it with `build/skinref help --markdown > {doc}`")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""kernel_mca_test.py BUILD_DIR: bench/kernel_mca.py models the AVX2 kernel's two loops for every method.

Runs the tool on the build's own compile command (znver3, 4 influences, positions and normals) and checks
that, for each method of reference/skin/method.h, it printed both loops and their sum, that each loop traced
a real body (at least kMinInstructions instructions, where an empty or cut-short trace has a handful) with a
positive cycle count, and that the sum is the loops' sum. Exit 77 (skipped) where llvm-mca is not installed.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIN_INSTRUCTIONS = 60  # the smallest loop body, LBS's transforms, is about 108 instructions with GCC 12
LINE = re.compile(r"^znver3\s+avx2\s+(\w+)\s+(blends|transforms|both)\s+([\d.]+) cycles\s+(?:([\d.]+) instructions)?")


def main():
    if not any(shutil.which(n) for n in ["llvm-mca"] + [f"llvm-mca-{v}" for v in range(11, 21)]):
        print("[ skipped ] llvm-mca is not installed (Debian package llvm)")
        return 77
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import kernel_mca  # the method names as the tool reads them
    result = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "kernel_mca.py"), "--build", sys.argv[1],
                             "--mcpu", "znver3"], capture_output=True, text=True)
    print(result.stdout + result.stderr)
    if result.returncode != 0:
        print(f"FAIL: exit status {result.returncode}")
        return 1
    seen = {}
    for line in result.stdout.splitlines():
        match = LINE.match(line)
        if match:
            seen[(match.group(1), match.group(2))] = (float(match.group(3)), match.group(4))
    failures = []
    for method in kernel_mca.method_names():
        loops = [seen.get((method, loop)) for loop in ("blends", "transforms")]
        total = seen.get((method, "both"))
        if None in loops or total is None:
            failures.append(f"{method}: not every loop and the sum printed")
            continue
        for name, (cycles, instructions) in zip(("blends", "transforms"), loops):
            if cycles <= 0 or float(instructions) < MIN_INSTRUCTIONS:
                failures.append(f"{method} {name}: {instructions} instructions, {cycles} cycles")
        if abs(total[0] - (loops[0][0] + loops[1][0])) > 0.15:
            failures.append(f"{method}: the sum {total[0]} is not {loops[0][0]} + {loops[1][0]}")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

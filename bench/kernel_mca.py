#!/usr/bin/env python3
"""kernel_mca.py: the AVX2 skinning kernel's inner loops modelled by llvm-mca on a CPU you name.

    bench/kernel_mca.py [--build DIR] [--mcpu CPU ...] [--influences N] [--shape SHAPE] [--ghz F]

Where a machine is not at hand (or exposes no performance counters), llvm-mca's model of its cores says which
resource bounds each loop: `--mcpu znver3` for an AMD Zen 3, `icelake-server`, `sapphirerapids`, `znver4`, ...
(`llvm-mca -mcpu=help` lists them). The model is not a measurement: it knows the instructions' ports and
latencies, not caches, memory or the front end, and LLVM 14's tables are approximate. Use it to compare two
versions of a loop, or to say which resource a loop waits on; quote measured rates from skinref_bench.

What it does:
1. compiles cpu/cpu_kernel_avx2.cc to assembly with the build's own command line (DIR/compile_commands.json;
   the flags, -ffp-contract=off and all), plus -DSKINREF_MCA_MARKERS, which puts llvm-mca's region comments
   around the two loop bodies of cpu/cpu_kernel.inc's two_pass_blocks, "blends" and "transforms", each one
   block of 8 vertices. (The AVX-512 kernel's loops are not marked: a block branches to or calls its lanes,
   which one straight path through the assembly does not follow.)
2. keeps the regions of the instantiation asked for (the markers carry its influences, method and shape), naming
   each by the method's name from reference/skin/method.h and the shape's from cpu/cpu_kernel.inc;
3. runs llvm-mca on each region alone (--iterations 200) for each CPU and prints, per region, the cycles and
   instructions per iteration and the most loaded resources, then per method the two loops' sum per block and
   per vertex, and with --ghz the modelled vertices per second at that clock.

Exit status: 0, 2 for bad usage or a missing tool or build (the message says which).
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = (("avx2", "cpu_kernel_avx2.cc", 8),)  # (kernel, source under cpu/, vertices per block)
MCA_ITERATIONS = 200
TOP_RESOURCES = 3  # resources printed per region, most loaded first


def fail(message):
    print(f"kernel_mca.py: {message}", file=sys.stderr)
    sys.exit(2)


def enumerators(path, enum):
    """The enumerators of `enum class ENUM { ... }` in ROOT/path, in order (their values 0, 1, ...)."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = re.sub(r"//[^\n]*", "", f.read())
    match = re.search(r"enum\s+class\s+" + enum + r"\s*(?::\s*\w+\s*)?\{([^}]*)\}", text)
    if not match:
        fail(f"{path}: no enum class {enum}")
    return [e.split("=")[0].strip() for e in match.group(1).split(",") if e.strip()]


def method_names():
    """Each SkinningMethod value's name, as reference/skin/method.h's descriptors spell it (.name = "...")."""
    path = os.path.join("reference", "skin", "method.h")
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        names = re.findall(r'\.name\s*=\s*"([^"]+)"', f.read())
    values = enumerators(path, "SkinningMethod")
    if len(names) != len(values):
        fail(f"{path}: {len(values)} methods but {len(names)} descriptor names")
    return names


def shape_name(enumerator):
    """kPositionsNormals -> positions_normals."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", enumerator[1:]).lower()


def find_tool(name):
    for candidate in [name] + [f"{name}-{v}" for v in range(20, 10, -1)]:
        if shutil.which(candidate):
            return candidate
    fail(f"{name} not found (Debian package llvm)")


def compile_to_assembly(build, source, out_path):
    """The build's command for cpu/SOURCE, writing assembly with the region markers to out_path."""
    commands_path = os.path.join(build, "compile_commands.json")
    if not os.path.isfile(commands_path):
        fail(f"{commands_path}: not found (configure the build first: cmake -B {build})")
    with open(commands_path, encoding="utf-8") as f:
        entries = [e for e in json.load(f) if os.path.basename(e["file"]) == source]
    if not entries:
        fail(f"{commands_path}: no entry for cpu/{source}")
    args = shlex.split(entries[0]["command"])
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-o", "-c"):
            skip = arg == "-o"
        elif not arg.startswith("-g"):
            kept.append(arg)
    kept += ["-g0", "-S", "-DSKINREF_MCA_MARKERS", "-o", out_path]
    result = subprocess.run(kept, cwd=entries[0]["directory"], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"compiling cpu/{source} to assembly failed:\n{result.stderr}")


def regions(assembly_path):
    """[(region name, influences, method value, shape value, [instructions] or None)] of the file, in order.
    A loop body is not one run of lines (the compiler lays out its branches' blocks elsewhere), so each region
    is traced from its BEGIN marker to its END: every unconditional jump followed to its label, every
    conditional branch left to fall through (the way the compiler laid out straight, for the kernels' branches
    on prefetching, normals and streaming stores), the branches themselves kept. Directives, labels and
    comments are left out."""
    with open(assembly_path, encoding="utf-8") as f:
        lines = [normalized(raw) for raw in f]
    labels = {line[:-1]: i for i, line in enumerate(lines) if re.match(r"^\.?\w+:$", line)}
    found = []
    for i, line in enumerate(lines):
        begin = re.match(r"^#\s*LLVM-MCA-BEGIN\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)$", line)
        if begin:
            name, influences, method, shape = begin.groups()
            found.append((name, int(influences), int(method), int(shape), trace(lines, labels, i + 1)))
    return found


def normalized(raw):
    """A line of assembly without its trailing comment (clang's "# 8-byte Folded Reload"), markers kept whole."""
    line = raw.strip()
    if re.match(r"^#\s*LLVM-MCA-", line):
        return line
    return line.split("#", 1)[0].strip()


def trace(lines, labels, i):
    """The instructions from line i to the next END marker along the fall-through path (see regions()), or
    None where that path comes back to a line it passed: a loop inside the body (the general shape's morph
    targets), which one straight path cannot model."""
    body, visited = [], set()
    while i < len(lines) and i not in visited:
        visited.add(i)
        line = lines[i]
        if re.match(r"^#\s*LLVM-MCA-END", line):
            return body
        jump = re.match(r"^jmp\s+(\.?\w+)$", line)
        if jump and jump.group(1) in labels:
            i = labels[jump.group(1)]
            continue
        if line and not line.startswith(("#", ".")) and not line.endswith(":"):
            body.append(line)
        i += 1
    return None


def model(mca, cpu, lines):
    """(cycles per iteration, instructions per iteration, [(resource, pressure)] most loaded first), or None
    where the CPU lacks an instruction of the loop."""
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        result = subprocess.run([mca, f"-mcpu={cpu}", f"-iterations={MCA_ITERATIONS}", path],
                                capture_output=True, text=True)
    finally:
        os.unlink(path)
    if "is not a recognized processor" in result.stderr:
        fail(f"llvm-mca knows no CPU {cpu} (llvm-mca -mcpu=help lists them)")
    if "unsupported instruction" in result.stderr:
        return None  # the CPU lacks the instruction set
    if result.returncode != 0:
        fail(f"llvm-mca -mcpu={cpu} failed:\n{result.stderr.strip()}")
    text = result.stdout
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", text).group(1)) / MCA_ITERATIONS
    instructions = int(re.search(r"Instructions:\s+(\d+)", text).group(1)) / MCA_ITERATIONS
    names = re.findall(r"^\[([\d.]+)\]\s+-\s+(\S+)$", text, re.M)
    table = text.split("Resource pressure per iteration:")[1].splitlines()
    header, values = table[1].split(), table[2].split()
    pressure = [(dict(names).get(h.strip("[]"), h), float(v)) for h, v in zip(header, values) if v != "-"]
    pressure.sort(key=lambda p: -p[1])
    return cycles, instructions, pressure[:TOP_RESOURCES]


def model_kernel(mca, cpu, kernel, lanes, found, wanted, methods, shapes, ghz):
    """Prints each region of the wanted (influences, shape) instantiations modelled on cpu, then per method the
    regions' sum: two_pass_blocks' two loops, one block each."""
    blocks, partial = {}, set()  # method -> cycles per block; methods with a loop not modelled (no sum)
    for region, influences, method_value, shape_value, lines in found:
        if (influences, shapes[shape_value]) != wanted:
            continue
        method = methods[method_value]
        if lines is None:
            print(f"{cpu:16} {kernel:7} {method:4} {region:12} not modelled: the body holds a loop")
            partial.add(method)
            continue
        modelled = model(mca, cpu, lines)
        if modelled is None:
            print(f"{cpu:16} {kernel:7} not modelled: llvm-mca's {cpu} lacks its instructions")
            return
        cycles, instructions, pressure = modelled
        blocks[method] = blocks.get(method, 0.0) + cycles
        loads = ", ".join(f"{r} {p:.0f}" for r, p in pressure)
        print(f"{cpu:16} {kernel:7} {method:4} {region:12} {cycles:7.1f} cycles {instructions:6.0f} instructions "
              f"per {lanes} vertices; most loaded: {loads}")
    for method, cycles in blocks.items():
        if method in partial:
            continue
        rate = f", {ghz * 1e3 * lanes / cycles:.0f} M vertices/s at {ghz} GHz" if ghz else ""
        print(f"{cpu:16} {kernel:7} {method:4} {'both':12} {cycles:7.1f} cycles per {lanes} vertices "
              f"({cycles / lanes:.1f} per vertex){rate}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"), help="the configured build (default: build)")
    parser.add_argument("--mcpu", nargs="+", default=["znver3"], help="llvm-mca CPU names (default: znver3)")
    parser.add_argument("--influences", type=int, default=4, choices=(1, 2, 4, 8))
    parser.add_argument("--shape", default="positions_normals", help="positions_normals, positions or general")
    parser.add_argument("--ghz", type=float, help="a clock for the modelled vertices per second")
    args = parser.parse_args()
    mca = find_tool("llvm-mca")
    methods = method_names()
    shapes = [shape_name(e) for e in enumerators(os.path.join("cpu", "cpu_kernel.inc"), "Shape")]
    if args.shape not in shapes:
        fail(f"--shape must be one of {', '.join(shapes)}")
    with tempfile.TemporaryDirectory() as work:
        for kernel, source, lanes in KERNELS:
            assembly = os.path.join(work, kernel + ".s")
            compile_to_assembly(args.build, source, assembly)
            found = regions(assembly)
            if not found:
                fail(f"cpu/{source}: no marked loop in its assembly")
            for cpu in args.mcpu:
                model_kernel(mca, cpu, kernel, lanes, found, (args.influences, args.shape), methods, shapes, args.ghz)
    return 0


if __name__ == "__main__":
    sys.exit(main())

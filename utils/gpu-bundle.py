#!/usr/bin/python3
"""Builds the GPU bundle: what a machine with an NVIDIA GPU but without LLVM
needs to run the GPU tests and the cuBLAS comparison.

    utils/gpu-bundle.py [--build BUILD_DIR] [--out DIR] [--chip sm_90]

The kernels are compiled here, ahead of time (einsum-compile --target=cuda):
those of test/Integration/GPU/CUDA/run.test (read from its RUN lines) into
lib/libgpu-tests.so, and the gemm and contraction cases of bench/cases.json
into lib/libgpu-bench.so, each with a JSON manifest (name, equation, shapes,
element type). With them: lib/libEinsumRuntime.so (the CUDA driver shim;
no MLIR, no LLVM), run.py (the runner: every test kernel on the device
against numpy.einsum, then every benchmark kernel timed with CUDA events
against cuBLAS), bench/gpu.py (the cuBLAS side) and bench/cases.py.
test/Integration/GPU/run-on-gpu.sh --bundle DIR runs it. Prints the
bundle's size; fails above 64 MiB.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from cases import load_cases  # noqa: E402  (bench/cases.py)

LIMIT = 64 << 20


def test_kernels():
    """The kernels of run.test's RUN lines: (equation, [shape...], dtype) of
    equation lines, and (file, entry, equation, [shape...], dtype) of module
    lines (whose file holds one einsum: the reference's equation)."""
    directory = os.path.join(ROOT, "test", "Integration", "GPU", "CUDA")
    equations, modules = [], []
    with open(os.path.join(directory, "run.test")) as f:
        for line in f:
            match = re.match(r"// RUN: einsum-run (.*?) \|", line)
            if not match:
                continue
            equation, entry, source, shapes, dtype = None, None, None, [], None
            for arg in shlex.split(match.group(1)):
                if arg.startswith("--equation="):
                    equation = arg[len("--equation="):]
                elif arg.startswith("--entry="):
                    entry = arg[len("--entry="):]
                elif arg.startswith("--input="):
                    *sizes, dtype = arg[len("--input="):].split("x")
                    shapes.append([int(s) for s in sizes])
                elif arg.endswith(".mlir"):
                    source = os.path.normpath(
                        arg.replace("%S", directory))
            if source is None:
                equations.append((equation, shapes, dtype))
                continue
            with open(source) as m:
                found = re.findall(r'einsum\.contract "([^"]*)"', m.read())
            if len(found) == 1:
                modules.append((source, entry, found[0], shapes, dtype))
    return equations, modules


def bench_kernels():
    return [(c["name"], c["equation"], c["shapes"], c["dtype"])
            for c in load_cases() if c["class"] in ("gemm", "contraction")]


def compile_library(einsum_compile, kernels, target, library):
    """One einsum-compile of every (name, equation, shapes, dtype) into
    `library`; returns the manifest entries."""
    command = [einsum_compile, *target, "--runtime-rpath=$ORIGIN", "-o",
               library]
    manifest = []
    for name, equation, shapes, dtype in kernels:
        types = ",".join("x".join([str(s) for s in shape] + [dtype])
                         for shape in shapes)
        command += ["--equation=" + equation, "--input-types=" + types,
                    "--name=" + name]
        manifest.append({"name": name, "equation": equation,
                         "shapes": shapes, "dtype": dtype})
    subprocess.run(command, check=True)
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=None)
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--target", default="cuda", choices=("cuda", "cpu"),
                        help="cpu: the same kernels for the host, for "
                        "checking the bundle and its runner without a GPU")
    parser.add_argument("--no-build", action="store_true",
                        help="use the build as it is (the test suite's run)")
    args = parser.parse_args()
    out = args.out or os.path.join(args.build, "gpu-bundle")
    if not args.no_build:
        subprocess.run(["ninja", "-C", args.build, "einsum-compile",
                        "EinsumRuntimeShared"], check=True,
                       stdout=subprocess.DEVNULL)
    einsum_compile = os.path.join(args.build, "bin", "einsum-compile")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "lib"))
    os.makedirs(os.path.join(out, "bench"))

    target = (["--target=cuda", "--chip=" + args.chip]
              if args.target == "cuda" else ["--target=cpu"])
    equations, modules = test_kernels()
    tests = [("test_%d" % i, eq, shapes, dtype)
             for i, (eq, shapes, dtype) in enumerate(equations)]
    manifests = {
        "tests": compile_library(einsum_compile, tests, target,
                                 os.path.join(out, "lib",
                                              "libgpu-tests.so")),
        "bench": compile_library(einsum_compile, bench_kernels(), target,
                                 os.path.join(out, "lib",
                                              "libgpu-bench.so")),
    }
    # Module kernels: one library of each file's entries (dynamic sizes:
    # each run passes its own), run as tests too.
    for i, (source, entry, equation, shapes, dtype) in enumerate(modules):
        name = "module_%d" % i
        subprocess.run([einsum_compile, *target,
                        "--runtime-rpath=$ORIGIN", source, "--entry=" + entry,
                        "--name=" + name, "-o",
                        os.path.join(out, "lib", "libgpu-%s.so" % name)],
                       check=True)
        manifests["tests"].append({"name": name, "library": name,
                                   "equation": equation, "shapes": shapes,
                                   "dtype": dtype})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"target": args.target, "chip": args.chip, **manifests},
                  f, indent=1)
    shutil.copy(os.path.join(args.build, "lib", "libEinsumRuntime.so"),
                os.path.join(out, "lib"))
    shutil.copy(os.path.join(ROOT, "utils", "gpu-bundle-run.py"),
                os.path.join(out, "run.py"))
    for script in ("gpu.py", "cases.py", "cases.json"):
        shutil.copy(os.path.join(ROOT, "bench", script),
                    os.path.join(out, "bench"))

    size = sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(out) for f in files)
    print("gpu bundle (%s): %s, %d test kernels, %d benchmark kernels, "
          "%.1f MiB" % (args.target, out, len(manifests["tests"]),
                        len(manifests["bench"]), size / (1 << 20)))
    if size > LIMIT:
        print("gpu bundle: larger than 64 MiB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs a GPU bundle (utils/gpu-bundle.py) on a machine with an NVIDIA GPU:
no LLVM, no build; python3 with numpy, and cuBLAS for the comparison.

    python3 run.py [--tests-only] [--runs N] [--json FILE]

1. Every test kernel (those of test/Integration/GPU/CUDA/run.test) runs on
   the device on random inputs (floats uniform in [-1, 1), integers in
   [-8, 8]) and is compared with numpy.einsum in float64.
2. Every benchmark kernel (the gemm and contraction cases) is timed with
   CUDA events, inputs on the device, against cuBLAS on the GEMM of the
   same FLOPs (bench/gpu.py).

Exit status: 0 all passed; 1 a kernel failed or mismatched; 2 no CUDA
driver or device.
"""

import argparse
import ctypes
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "bench"))

NO_DEVICE = 4  # EINSUM_STATUS_NO_DEVICE
DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
          "bf16": np.uint16, "i32": np.int32, "i64": np.int64}
# Allowed error, relative to the largest reference magnitude (at least 1)
# and the length of the sums.
TOLERANCE = {"f32": 1e-5, "f64": 1e-12, "f16": 5e-4, "bf16": 4e-3,
             "i32": 0, "i64": 0}


def to_bf16(values):
    """float32 values rounded to bfloat16's bits (round to nearest even)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits.astype(np.uint16)


def from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


class Runtime:
    """libEinsumRuntime's CUDA shim (device memory) and the kernels. A
    bundle built with --target=cpu runs the same kernels on the host
    (`host`: buffers are numpy's), to check the bundle without a GPU."""

    def __init__(self, host=False):
        self.host = host
        lib = os.path.join(HERE, "lib")
        self.rt = ctypes.CDLL(os.path.join(lib, "libEinsumRuntime.so"),
                              mode=ctypes.RTLD_GLOBAL)
        self.rt.mgpuMemAlloc.restype = ctypes.c_void_p
        self.rt.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p,
                                         ctypes.c_bool]
        self.rt.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.rt.mgpuMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_size_t, ctypes.c_void_p]
        self.rt.einsumRuntimeLastError.restype = ctypes.c_char_p
        self.lib = lib
        self.libraries = {}

    def copy_back(self, out, pointer):
        if not self.host and out.nbytes:
            self.rt.mgpuMemcpy(out.ctypes.data, pointer, out.nbytes, None)

    def free(self, pointer):
        if not self.host:
            self.rt.mgpuMemFree(pointer, None)

    def error(self):
        return self.rt.einsumRuntimeLastError().decode()

    def to_device(self, array):
        if self.host:
            return array.ctypes.data
        pointer = self.rt.mgpuMemAlloc(max(array.nbytes, 1), None, False)
        if array.nbytes:
            self.rt.mgpuMemcpy(pointer, array.ctypes.data, array.nbytes, None)
        return pointer

    def call(self, library, name, pointers, shapes):
        """Calls kernel `name` of lib/libgpu-LIBRARY.so on device buffers of
        `shapes` (inputs, then the output), row-major."""
        if library not in self.libraries:
            self.libraries[library] = ctypes.CDLL(
                os.path.join(self.lib, "libgpu-%s.so" % library))
        function = getattr(self.libraries[library], name)
        function.restype = ctypes.c_int
        args = []
        for pointer, shape in zip(pointers, shapes):
            sizes = (ctypes.c_int64 * max(1, len(shape)))(*shape)
            args += [ctypes.c_void_p(pointer), sizes, None]
        return function(*args)


def output_shape(equation, shapes):
    """numpy's result shape (numpy.einsum on zero-filled stand-ins)."""
    return np.einsum(equation, *[np.zeros(s, np.float32) for s in shapes]
                     ).shape


def products_per_element(equation, shapes, outputs):
    """The products summed into each output element (its labels' sizes
    over the output's), the length that bounds the rounding error."""
    if "..." in equation:
        return max(1, max(int(np.prod(s)) for s in shapes) // max(1, outputs))
    sizes = {}
    for term, shape in zip(equation.split("->")[0].split(","), shapes):
        sizes.update(zip(term, shape))
    total = int(np.prod([max(size, 1) for size in sizes.values()]))
    return max(1, total // max(1, outputs))


def run_tests(runtime, kernels):
    rng = np.random.default_rng(0)
    failures = 0
    for kernel in kernels:
        dtype = kernel["dtype"]
        inputs, values = [], []
        for shape in kernel["shapes"]:
            if dtype.startswith("i"):
                data = rng.integers(-8, 9, shape).astype(DTYPES[dtype])
                value = data.astype(np.float64)
            elif dtype == "bf16":
                data = to_bf16(rng.uniform(-1, 1, shape))
                value = from_bf16(data).astype(np.float64)
            else:
                data = rng.uniform(-1, 1, shape).astype(DTYPES[dtype])
                value = data.astype(np.float64)
            inputs.append(np.ascontiguousarray(data))
            values.append(value)
        reference = np.einsum(kernel["equation"], *values)
        out = np.zeros(output_shape(kernel["equation"], kernel["shapes"]),
                       DTYPES[dtype])
        pointers = [runtime.to_device(a) for a in inputs]
        result = runtime.to_device(out)
        status = runtime.call(kernel.get("library", "tests"), kernel["name"],
                              pointers + [result],
                              kernel["shapes"] + [list(out.shape)])
        if status == NO_DEVICE:
            print("run.py: " + runtime.error())
            sys.exit(2)
        runtime.copy_back(out, result)
        for pointer in pointers + [result]:
            runtime.free(pointer)
        got = from_bf16(out) if dtype == "bf16" else out
        got = got.astype(np.float64)
        terms = products_per_element(kernel["equation"], kernel["shapes"],
                                     got.size)
        scale = max(1.0, float(np.abs(reference).max()) if reference.size
                    else 1.0)
        error = float(np.abs(got - reference).max()) if got.size else 0.0
        allowed = TOLERANCE[dtype] * scale * math.sqrt(terms) * 4
        ok = status == 0 and error <= allowed
        failures += not ok
        print("%-6s %-24s %-30s %s" % (
            "PASS" if ok else "FAIL", kernel["equation"],
            ",".join("x".join(map(str, s)) + dtype for s in kernel["shapes"]),
            "max abs error %.3g (allowed %.3g)" % (error, allowed)
            if status == 0 else "status %d: %s" % (status, runtime.error())))
    print("tests: %d passed, %d failed" % (len(kernels) - failures, failures))
    return failures


def run_bench(runtime, kernels, runs):
    from gpu import Cuda, label_groups  # bench/gpu.py
    cuda = Cuda()
    print("device: %s; cuBLAS: %s" % (
        cuda.name, "found" if cuda.cublas is not None else "not found"))
    print("%-14s %10s %10s %8s" % ("case", "ours", "cuBLAS", "xcuBLAS"))
    rows = []
    for kernel in kernels:
        dtype = kernel["dtype"]
        inputs = [np.ones(s, DTYPES[dtype]) for s in kernel["shapes"]]
        out = np.zeros(output_shape(kernel["equation"], kernel["shapes"]),
                       DTYPES[dtype])
        pointers = [runtime.to_device(a) for a in inputs + [out]]

        def call():
            status = runtime.call("bench", kernel["name"], pointers,
                                  kernel["shapes"] + [list(out.shape)])
            if status != 0:
                raise RuntimeError("status %d: %s" % (status, runtime.error()))

        ms = cuda.time_ms(call, runs)
        for pointer in pointers:
            runtime.rt.mgpuMemFree(pointer, None)
        batch, m, n, k = label_groups(kernel["equation"], kernel["shapes"])
        gflops = 2.0 * batch * m * n * k / (ms * 1e-3) / 1e9
        row = {"case": kernel["name"], "gflops": gflops}
        if cuda.cublas is not None and dtype in ("f32", "f64"):
            row["cublas_gflops"] = cuda.gemm_gflops(batch, m, n, k, dtype, runs)
            row["ratio"] = gflops / row["cublas_gflops"]
        rows.append(row)
        print("%-14s %10.1f %10s %8s" % (
            kernel["name"], gflops,
            "%.1f" % row["cublas_gflops"] if "cublas_gflops" in row else "-",
            "%.2f" % row["ratio"] if "ratio" in row else "-"))
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    if ratios:
        print("geometric mean %.2f of cuBLAS (%d cases)" % (
            math.exp(sum(map(math.log, ratios)) / len(ratios)), len(ratios)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tests-only", action="store_true")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    with open(os.path.join(HERE, "manifest.json")) as f:
        manifest = json.load(f)
    host = manifest.get("target") == "cpu"
    runtime = Runtime(host)
    failures = run_tests(runtime, manifest["tests"])
    # The benchmark compares GPU kernels with cuBLAS: not for a host bundle.
    rows = [] if args.tests_only or host else run_bench(
        runtime, manifest["bench"], args.runs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tests_failed": failures, "bench": rows}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

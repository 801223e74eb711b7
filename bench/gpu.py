#!/usr/bin/python3
"""The einsum-mlir GPU benchmark: the gemm and contraction cases of
bench/cases.json run with `einsum-run --target=cuda --benchmark`
(timed with CUDA events, inputs on the device), against cuBLAS measured in
this process on the same device.

    /usr/bin/python3 bench/gpu.py [--json out.json] [--only NAME] [--runs N]

For a gemm-class case cuBLAS runs the same product (cublasSgemm /
cublasDgemm, strided-batched for batched cases, transposes through its
operation flags); for a contraction it runs the GEMM the contraction amounts
to after grouping its labels into batch, M, N and K (the same FLOPs, with no
permutation cost), so the ratio says how far the generated kernel is from
the vendor's GEMM on that much work. GFLOP/s count 2 flops per
multiply-add. Needs a CUDA driver and device; cuBLAS (libcublas.so.*) is
looked up in the loader path, $CUDA_HOME/lib64 and /usr/local/cuda/lib64;
without it only our rates are printed. No test depends on these numbers.
"""

import argparse
import ctypes
import glob
import json
import math
import os
import re
import subprocess
import sys

from cases import load_cases  # bench/cases.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EINSUM_RUN = os.path.join(ROOT, "build", "bin", "einsum-run")



def label_groups(equation, shapes):
    """(batch, M, N, K) sizes of a two-operand equation without ellipses."""
    lhs, out = equation.split("->")
    a, b = lhs.split(",")
    sizes = {}
    for term, shape in zip((a, b), shapes):
        for label, size in zip(term, shape):
            sizes[label] = size
    groups = [1, 1, 1, 1]
    for label, size in sizes.items():
        in_a, in_b, in_out = label in a, label in b, label in out
        if in_a and in_b and in_out:
            groups[0] *= size
        elif in_a and in_out:
            groups[1] *= size
        elif in_b and in_out:
            groups[2] *= size
        elif in_a and in_b:
            groups[3] *= size
    return groups


class Cuda:
    """The driver (for memory and events) and cuBLAS, through ctypes."""

    def __init__(self):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.check(self.cuda.cuInit(0), "cuInit")
        device = ctypes.c_int()
        self.check(self.cuda.cuDeviceGet(ctypes.byref(device), 0),
                   "cuDeviceGet")
        name = ctypes.create_string_buffer(256)
        self.cuda.cuDeviceGetName(name, 255, device)
        self.name = name.value.decode()
        self.context = ctypes.c_void_p()
        self.check(self.cuda.cuDevicePrimaryCtxRetain(
            ctypes.byref(self.context), device), "cuDevicePrimaryCtxRetain")
        self.check(self.cuda.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        self.cublas = None
        self.handle = ctypes.c_void_p()
        candidates = ["libcublas.so", "libcublas.so.13", "libcublas.so.12",
                      "libcublas.so.11"]
        for base in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
            if base:
                candidates += sorted(glob.glob(
                    os.path.join(base, "lib64", "libcublas.so*")))
        for candidate in candidates:
            try:
                self.cublas = ctypes.CDLL(candidate)
                break
            except OSError:
                continue
        if self.cublas is not None:
            status = self.cublas.cublasCreate_v2(ctypes.byref(self.handle))
            if status != 0:
                self.cublas = None

    @staticmethod
    def check(result, what):
        if result != 0:
            raise RuntimeError("%s failed with CUDA error %d" % (what, result))

    def alloc(self, nbytes):
        pointer = ctypes.c_uint64()
        self.check(self.cuda.cuMemAlloc_v2(ctypes.byref(pointer),
                                           ctypes.c_size_t(nbytes)),
                   "cuMemAlloc")
        self.check(self.cuda.cuMemsetD8_v2(pointer, 0, ctypes.c_size_t(nbytes)),
                   "cuMemsetD8")
        return pointer

    def free(self, pointer):
        self.cuda.cuMemFree_v2(pointer)

    def time_ms(self, fn, runs):
        """Median milliseconds of fn() on the default stream (events)."""
        start, stop = ctypes.c_void_p(), ctypes.c_void_p()
        self.cuda.cuEventCreate(ctypes.byref(start), 0)
        self.cuda.cuEventCreate(ctypes.byref(stop), 0)
        fn()
        self.check(self.cuda.cuCtxSynchronize(), "cuCtxSynchronize")
        times = []
        for _ in range(runs):
            self.cuda.cuEventRecord(start, None)
            fn()
            self.cuda.cuEventRecord(stop, None)
            self.check(self.cuda.cuEventSynchronize(stop), "cuEventSynchronize")
            ms = ctypes.c_float()
            self.cuda.cuEventElapsedTime(ctypes.byref(ms), start, stop)
            times.append(ms.value)
        self.cuda.cuEventDestroy_v2(start)
        self.cuda.cuEventDestroy_v2(stop)
        times.sort()
        return times[len(times) // 2]

    def gemm_gflops(self, batch, m, n, k, dtype, runs):
        """cuBLAS on C[b] = A[b] (m x k) * B[b] (k x n), row-major."""
        width = 4 if dtype == "f32" else 8
        a = self.alloc(batch * m * k * width)
        b = self.alloc(batch * k * n * width)
        c = self.alloc(batch * m * n * width)
        scalar = ctypes.c_float if dtype == "f32" else ctypes.c_double
        alpha, beta = scalar(1.0), scalar(0.0)
        function = (self.cublas.cublasSgemmStridedBatched if dtype == "f32"
                    else self.cublas.cublasDgemmStridedBatched)

        def run():
            # Row-major C = A B is column-major C^T = B^T A^T.
            status = function(self.handle, 0, 0, n, m, k, ctypes.byref(alpha),
                              b, n, ctypes.c_longlong(k * n), a, k,
                              ctypes.c_longlong(m * k), ctypes.byref(beta), c,
                              n, ctypes.c_longlong(m * n), batch)
            if status != 0:
                raise RuntimeError("cuBLAS gemm failed: status %d" % status)

        try:
            ms = self.time_ms(run, runs)
        finally:
            for pointer in (a, b, c):
                self.free(pointer)
        return 2.0 * batch * m * n * k / (ms * 1e-3) / 1e9


def ours(case, runs):
    """GFLOP/s (median) and compile ms of einsum-run --target=cuda."""
    command = [EINSUM_RUN, "--target=cuda", "--equation=" + case["equation"],
               "--benchmark=%d" % runs]
    for shape in case["shapes"]:
        command.append("--input=%sx%s" % ("x".join(map(str, shape)),
                                          case["dtype"]))
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip())
    match = re.search(r"compile ([\d.]+) ms, median ([\d.]+) ms.*?"
                      r"([\d.]+) GFLOP/s \(median\)", result.stdout)
    return float(match.group(3)), float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", default=os.path.join(
        ROOT, "build", "bench-gpu-results.json"))
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    cases = load_cases()
    cases = [c for c in cases if c["class"] in ("gemm", "contraction")]
    if args.only:
        cases = [c for c in cases if c["name"] in args.only]
    try:
        cuda = Cuda()
    except (OSError, RuntimeError) as err:
        print("bench/gpu.py: no CUDA driver or device found (%s)" % err)
        return 2
    print("device: %s; cuBLAS: %s" % (
        cuda.name, "found" if cuda.cublas is not None else "not found"))
    print("%-14s %-11s %10s %10s %8s %9s" %
          ("case", "class", "ours", "cuBLAS", "xcuBLAS", "compile"))
    rows = []
    for case in cases:
        row = {"case": case["name"], "class": case["class"]}
        try:
            row["gflops"], row["compile_ms"] = ours(case, args.runs)
        except RuntimeError as err:
            print("%-14s %-11s error: %s" % (case["name"], case["class"], err))
            continue
        if cuda.cublas is not None and case["dtype"] in ("f32", "f64"):
            batch, m, n, k = label_groups(case["equation"], case["shapes"])
            row["cublas_gflops"] = cuda.gemm_gflops(batch, m, n, k,
                                                    case["dtype"], args.runs)
            row["ratio"] = row["gflops"] / row["cublas_gflops"]
        rows.append(row)
        print("%-14s %-11s %10.1f %10s %8s %7.0fms" % (
            case["name"], case["class"], row["gflops"],
            "%.1f" % row["cublas_gflops"] if "cublas_gflops" in row else "-",
            "%.2f" % row["ratio"] if "ratio" in row else "-",
            row["compile_ms"]))
    for cls in ("gemm", "contraction"):
        ratios = [r["ratio"] for r in rows if r["class"] == cls and "ratio" in r]
        if ratios:
            geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
            print("%s class: geometric mean %.2f of cuBLAS (%d cases)" %
                  (cls, geomean, len(ratios)))
    with open(args.json, "w") as f:
        json.dump({"device": cuda.name, "rows": rows}, f, indent=1)
    print("wrote %s" % args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

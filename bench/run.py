#!/usr/bin/python3
"""The einsum-mlir benchmark: every case of bench/cases.json (see
bench/cases.py), on 1 thread and on all cores, with the ratios
to OpenBLAS (gemm class), torch.einsum and numpy.einsum measured in this same
process.

    utils/setup.sh && /usr/bin/python3 bench/run.py [--json out.json] [--only NAME]

Reports GFLOP/s (2 flops per multiply-add of the chosen path) for the gemm,
contraction and multi classes and GB/s (operands read + result written) for
the memory class, the fraction of the machine's peak (fp32: measured per
core by bench/peak.c, FMA chains on the host's vectors, 117 GFLOP/s on a
Zen 4 EPYC whose AVX-512 runs as two 256-bit halves, 233 on an Intel Xeon
with two 512-bit FMA pipes; 222 with AVX-512 scaled
by the host's vector width where no compiler is found; fp64 half; memory:
the copy bandwidth
measured here, against the bytes of the distinct elements read and
written), and the compile time. numpy.einsum is skipped where its single
loop nest would exceed 2e10 FLOPs. OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE are unset for this process only, so that OpenBLAS runs its
best kernels, and its thread count is set to the row's, for the cblas
reference and for torch and numpy, which call the same library. Operands
and outputs are 64-byte aligned for every implementation (numpy's own
arrays are 16 bytes off a cache line, which halves memory-bound kernels). No test depends on these numbers.
"""

import argparse
import ctypes
import ctypes.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from quiet import BUILD, restart_quietly  # noqa: E402  (bench/quiet.py)

restart_quietly()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(BUILD, "python_packages"))
import einsum_mlir as em  # noqa: E402
from cases import load_cases  # noqa: E402  (bench/cases.py)

try:
    import torch  # noqa: E402
except ImportError:
    torch = None


def host_vector_bits():
    """The width of the host's vector registers, from /proc/cpuinfo's flags
    (512 with AVX-512F, 256 with AVX2, else 128)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags")), [])
    except OSError:
        flags = []
    return 512 if "avx512f" in flags else 256 if "avx2" in flags else 128


def estimated_peak():
    """The fp32 peak of one core where none can be measured: two FMA pipes
    at about 3.47 GHz, 222 GFLOP/s with 512-bit registers
    (../shared/PERF-NOTES.md), scaled by the host's lanes."""
    return 222.0 * host_vector_bits() / 512


def measured_peak():
    """The fp32 peak of one core, measured by bench/peak.c (FMA chains on the
    host's widest vectors that run fastest, compiled with -march=native), or
    None where no compiler is found. Read from the hardware rather than from
    the flags: AMD's Zen 4 has AVX-512 but splits each 512-bit FMA into two
    256-bit halves, so its peak is that of its 256-bit pipes."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "peak.c")
    compilers = [c for c in ("/usr/lib/llvm-22/bin/clang",
                             shutil.which("cc") or "") if c and
                 os.access(c, os.X_OK)]
    widths = {512: [32, 64], 256: [32]}.get(host_vector_bits(), [16])
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for width in widths:
            binary = os.path.join(tmp, "peak%d" % width)
            for compiler in compilers:
                # -march=native alone prefers 256-bit vectors on Intel's
                # AVX-512 cores (clang and gcc), splitting the 64-byte
                # vectors into two ymm FMAs: the Xeon of stop 42 then read
                # 127 GFLOP/s for its 233.
                if subprocess.run([compiler, "-O2", "-march=native",
                                   "-mprefer-vector-width=%d" % (8 * width),
                                   "-DVECTOR_BYTES=%d" % width, source,
                                   "-o", binary],
                                  capture_output=True).returncode == 0:
                    break
            else:
                return None
            result = subprocess.run([binary], capture_output=True, text=True)
            if result.returncode != 0:
                return None
            rate = float(result.stdout.split()[0])
            best = rate if best is None else max(best, rate)
    return best


# fp32 peak of one core, measured once per process (about a second).
_MEASURED_PEAK = measured_peak()
PEAK_F32_PER_CORE = _MEASURED_PEAK or estimated_peak()
PEAK_SOURCE = "measured" if _MEASURED_PEAK else "estimated"
NP_TYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
            "i32": np.int32, "i64": np.int64}


def timed(fn, budget=1.0, max_reps=20):
    """Median and minimum seconds of fn(), after one warm-up run."""
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    times = []
    if first > budget:
        return first, first
    while len(times) < max_reps and (len(times) < 3 or sum(times) < budget):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


class OpenBLAS:
    def __init__(self):
        path = ctypes.util.find_library("openblas") or "libopenblas.so.0"
        self.lib = ctypes.CDLL(path)
        self.lib.openblas_set_num_threads.argtypes = [ctypes.c_int]
        for name, ct in (("cblas_sgemm", ctypes.c_float),
                         ("cblas_dgemm", ctypes.c_double)):
            fn = getattr(self.lib, name)
            fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int,
                           ctypes.c_int, ctypes.c_int, ctypes.c_int, ct,
                           ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                           ctypes.c_int, ct, ctypes.c_void_p, ctypes.c_int]
            fn.restype = None

    def gemm_call(self, equation, ops, out):
        """A callable running the gemm-class equation with cblas, or None."""
        row_major, no_trans, trans = 101, 111, 112
        fn = {np.float32: self.lib.cblas_sgemm,
              np.float64: self.lib.cblas_dgemm}.get(ops[0].dtype.type)
        if fn is None:
            return None
        a, b = ops
        if equation == "ij,jk->ik":
            m, k = a.shape
            n = b.shape[1]
            args = (row_major, no_trans, no_trans, m, n, k, 1.0, a.ctypes.data,
                    k, b.ctypes.data, n, 0.0, out.ctypes.data, n)
            return lambda: fn(*args)
        if equation == "ji,jk->ik":
            k, m = a.shape
            n = b.shape[1]
            args = (row_major, trans, no_trans, m, n, k, 1.0, a.ctypes.data,
                    m, b.ctypes.data, n, 0.0, out.ctypes.data, n)
            return lambda: fn(*args)
        if equation == "ij,jk->ki":
            # C^T = B^T A^T: an (n x m) result.
            m, k = a.shape
            n = b.shape[1]
            args = (row_major, trans, trans, n, m, k, 1.0, b.ctypes.data, n,
                    a.ctypes.data, k, 0.0, out.ctypes.data, m)
            return lambda: fn(*args)
        if equation == "bij,bjk->bik":
            batch, m, k = a.shape
            n = b.shape[2]
            sa, sb, so = a[0].nbytes, b[0].nbytes, out[0].nbytes
            pa, pb, po = a.ctypes.data, b.ctypes.data, out.ctypes.data

            def run():
                for i in range(batch):
                    fn(row_major, no_trans, no_trans, m, n, k, 1.0,
                       pa + i * sa, k, pb + i * sb, n, 0.0, po + i * so, n)
            return run
        return None


def aligned_empty(shape, dtype, alignment=64):
    """An uninitialized array whose data starts on a 64-byte boundary.

    numpy aligns large arrays to 16 bytes only; a vector loop over operands
    16 bytes off a cache line splits every 64-byte load in two, which halves
    memory-bound kernels here (sum_i: 1.95 ms aligned, 4.0 ms 16 bytes off).
    Every implementation gets the same aligned arrays."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    raw = np.empty(count * dtype.itemsize + alignment, np.uint8)
    start = -raw.ctypes.data % alignment
    return raw[start:start + count * dtype.itemsize].view(dtype).reshape(shape)


def aligned_copy(array):
    copy = aligned_empty(array.shape, array.dtype)
    copy[...] = array
    return copy


def copy_bandwidth():
    """Single-thread copy bandwidth (GB/s) on warm buffers."""
    src = aligned_empty((64 * 1024 * 1024 // 4,), np.float32)
    src[...] = 1
    dst = aligned_empty(src.shape, np.float32)
    med, _ = timed(lambda: np.copyto(dst, src), budget=0.5)
    return 2 * src.nbytes / med / 1e9


def touched_bytes(equation, ops, out):
    """Bytes of the distinct elements an einsum reads and writes: a
    diagonal reads one element per index, not the whole operand."""
    terms = equation.replace(" ", "").split("->")[0].split(",")
    total = out.nbytes
    for term, op in zip(terms, ops):
        labels = term.replace("...", "")
        ell = op.ndim - len(labels)
        sizes = {}
        axes = (list(term[:term.index("...")]) + [None] * ell +
                list(term[term.index("...") + 3:])) if "..." in term \
            else list(term)
        count = 1
        for axis, (label, size) in enumerate(zip(axes, op.shape)):
            if label is None:
                count *= size
            elif label not in sizes:
                sizes[label] = size
                count *= size
        total += count * op.itemsize
    return total



def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", default=os.path.join(BUILD,
                                                       "bench-results.json"))
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--threads", type=int, nargs="*",
                        default=sorted({1, os.cpu_count() or 1}))
    parser.add_argument("--budget", type=float, default=1.0,
                        help="seconds to spend timing each measurement")
    args = parser.parse_args()

    cases = load_cases()
    if args.only:
        cases = [c for c in cases if c["name"] in args.only]
    blas = OpenBLAS()
    bandwidth = copy_bandwidth()
    print("copy bandwidth (1 thread): %.1f GB/s; fp32 peak: %.0f GFLOP/s "
          "per core (%s)" % (bandwidth, PEAK_F32_PER_CORE, PEAK_SOURCE))
    header = ("%-16s %-11s %3s %10s %7s %8s %8s %8s %10s" %
              ("case", "class", "thr", "rate", "peak", "xBLAS", "xtorch",
               "xnumpy", "compile"))
    print(header)
    rows = []
    rng = np.random.default_rng(0)
    for case in cases:
        dtype = NP_TYPES[case["dtype"]]
        ops = [aligned_copy(rng.uniform(-1, 1, size=s).astype(dtype))
               for s in case["shapes"]]
        memory = case["class"] == "memory"
        for threads in args.threads:
            # torch and numpy call this same OpenBLAS, whose threads
            # torch.set_num_threads does not govern: a "1 thread" torch
            # reference would otherwise run its products on all cores.
            blas.lib.openblas_set_num_threads(threads)
            kernel = em.compile(case["equation"], *ops, threads=threads)
            out = aligned_empty(kernel.output_shape, dtype)
            med, best = timed(lambda: kernel(*ops, out=out), args.budget)
            if memory:
                moved = touched_bytes(case["equation"], ops, out)
                rate = moved / med / 1e9
                peak = rate / (bandwidth * threads)
                unit = "GB/s"
            else:
                rate = kernel.flops / med / 1e9
                per_core = PEAK_F32_PER_CORE * (0.5 if dtype == np.float64
                                                else 1.0)
                peak = rate / (per_core * threads)
                unit = "GFLOP/s"
            row = {"case": case["name"], "class": case["class"],
                   "equation": case["equation"], "dtype": case["dtype"],
                   "threads": threads, "median_s": med, "min_s": best,
                   "rate": rate, "unit": unit, "fraction_of_peak": peak,
                   "compile_s": kernel.compile_seconds}
            if case["class"] == "gemm":
                ref = aligned_empty(kernel.output_shape, dtype)
                call = blas.gemm_call(case["equation"], ops, ref)
                if call is not None:
                    row["openblas_s"] = timed(call, args.budget)[0]
                    row["vs_openblas"] = row["openblas_s"] / med
            if torch is not None:
                torch.set_num_threads(threads)
                tops = [torch.from_numpy(o) for o in ops]
                row["torch_s"] = timed(
                    lambda: torch.einsum(case["equation"], *tops),
                    args.budget)[0]
                row["vs_torch"] = row["torch_s"] / med
            if threads == 1:
                # numpy.einsum runs on one thread; its c_einsum can take
                # minutes on the large contractions, so one run at most.
                naive = em.einsum_path(case["equation"], *ops)[1].naive_flops
                row["numpy_s"] = timed(
                    lambda: np.einsum(case["equation"], *ops),
                    budget=0.0)[0] if naive < 2e10 else None
                if row["numpy_s"]:
                    row["vs_numpy"] = row["numpy_s"] / med
            rows.append(row)

            def ratio(key):
                return "%8.2f" % row[key] if key in row else "%8s" % "-"
            print("%-16s %-11s %3d %10s %6.0f%% %s %s %s %8.1fms" % (
                case["name"], case["class"], threads,
                "%.1f %s" % (rate, "GB/s" if memory else "GF/s"), 100 * peak,
                ratio("vs_openblas"), ratio("vs_torch"), ratio("vs_numpy"),
                1e3 * kernel.compile_seconds), flush=True)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"copy_bandwidth_gbs": bandwidth,
                   "peak_f32_gflops_per_core": PEAK_F32_PER_CORE,
                   "rows": rows}, f, indent=1)
    print("ratios are speedups (reference time / our time); table written "
          "to %s" % args.json)


if __name__ == "__main__":
    main()

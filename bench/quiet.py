"""The process environment every benchmark measures in.

OpenBLAS reads OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE when it is loaded:
the benchmarks run without them. torch's OpenMP threads (libgomp) and
OpenBLAS's threads busy-wait after each call (OpenBLAS for 2^28 cycles,
about 0.1 s): they would compete with the next measurement's threads (our
2-thread kernels ran slower than 1-thread ones right after torch).
GOMP_SPINCOUNT=0 and OPENBLAS_THREAD_TIMEOUT=4 make them sleep at once. Both
libraries read these when they are loaded, so the process is restarted with
them before anything loads them.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The build whose package and tools are measured: build/, or EINSUM_BUILD_DIR.
BUILD = os.environ.get("EINSUM_BUILD_DIR", os.path.join(ROOT, "build"))
QUIET_THREADS = {"GOMP_SPINCOUNT": "0", "OPENBLAS_THREAD_TIMEOUT": "4"}
DROPPED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def restart_quietly():
    """Re-executes this script in the benchmark environment, unless it runs
    in it already."""
    if (any(v in os.environ for v in DROPPED)
            or any(os.environ.get(k) != v for k, v in QUIET_THREADS.items())):
        env = {k: v for k, v in os.environ.items() if k not in DROPPED}
        env.update(QUIET_THREADS)
        os.execve(sys.executable, [sys.executable] + sys.argv, env)

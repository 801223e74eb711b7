"""The on-disk kernel cache seen from Python: a new process runs a kernel a
previous one compiled without loading the compiler (libEinsumCAPI, libMLIR,
libLLVM), and falls back to compiling whenever the cached library is not
usable."""

import glob
import json
import os
import subprocess
import sys

import pytest

# Runs in a fresh interpreter: prints the result's digest, whether libMLIR
# got loaded, and the kernel's compile_seconds.
SCRIPT = r"""
import sys, json
import numpy as np
import einsum_mlir as em
equation, shapes, dtype, threads = json.loads(sys.argv[1])
rng = np.random.default_rng(0)
operands = [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]
if threads:
    result = em.einsum(equation, *operands, threads=threads)
else:
    result = em.einsum(equation, *operands)
reference = np.einsum(equation, *[o.astype(np.float64) for o in operands])
ok = np.allclose(result, reference, rtol=1e-4, atol=1e-4)
heavy = any("libMLIR" in line for line in open("/proc/self/maps"))
print(json.dumps({"ok": bool(ok), "compiler_loaded": heavy}))
"""


def run(cache, equation="bij,bjk->bik", shapes=((4, 8, 16), (4, 16, 8)),
        dtype="float32", threads=0, env=None):
    environment = dict(os.environ, EINSUM_MLIR_CACHE="1",
                       EINSUM_MLIR_CACHE_DIR=str(cache))
    environment.update(env or {})
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT,
         json.dumps([equation, [list(s) for s in shapes], dtype, threads])],
        env=environment, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def libraries(cache):
    return sorted(glob.glob(os.path.join(cache, "*.so")))


def test_second_process_runs_without_the_compiler(tmp_path):
    first = run(tmp_path)
    assert first == {"ok": True, "compiler_loaded": True}
    assert len(libraries(tmp_path)) == 1
    assert run(tmp_path) == {"ok": True, "compiler_loaded": False}


def test_other_arguments_are_other_kernels(tmp_path):
    run(tmp_path)
    assert run(tmp_path, threads=1)["compiler_loaded"]
    assert run(tmp_path, dtype="float64")["compiler_loaded"]
    assert run(tmp_path, shapes=((3, 8, 16), (3, 16, 8)))["compiler_loaded"]
    assert len(libraries(tmp_path)) == 4
    assert not run(tmp_path, threads=1)["compiler_loaded"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "descriptor",
                                    "missing"])
def test_damaged_library_is_compiled_again(tmp_path, damage):
    run(tmp_path)
    [library] = libraries(tmp_path)
    descriptor = library[:-3] + ".json"
    if damage == "flip":
        data = bytearray(open(library, "rb").read())
        data[len(data) // 2] ^= 0xFF
        open(library, "wb").write(data)
    elif damage == "truncate":
        data = open(library, "rb").read()
        open(library, "wb").write(data[:100])
    elif damage == "descriptor":
        open(descriptor, "w").write("{not json")
    else:
        os.remove(library)
    # The damaged library is not loaded: the kernel comes from the compiler
    # (its object from the disk cache), right, and the library is written
    # anew.
    assert run(tmp_path) == {"ok": True, "compiler_loaded": True}
    assert run(tmp_path) == {"ok": True, "compiler_loaded": False}


def test_cache_off(tmp_path):
    run(tmp_path)
    assert run(tmp_path, env={"EINSUM_MLIR_CACHE": "0"})["compiler_loaded"]


def test_threads_and_types(tmp_path):
    for dtype in ("float32", "float64"):
        for threads in (1, 2):
            run(tmp_path, equation="ij,jk->ki", shapes=((30, 20), (20, 10)),
                dtype=dtype, threads=threads)
            assert run(tmp_path, equation="ij,jk->ki",
                       shapes=((30, 20), (20, 10)), dtype=dtype,
                       threads=threads) == {"ok": True,
                                            "compiler_loaded": False}

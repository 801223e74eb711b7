#!/usr/bin/python3
"""Per-call overhead of a cached einsum_mlir.einsum call on tiny tensors,
against torch.einsum and numpy.einsum in the same process.

    PYTHONPATH=build/python_packages /usr/bin/python3 bench/python-overhead.py
"""

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "build",
                                "python_packages"))
import einsum_mlir as em  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

CASES = [("ij,jk->ik", [(4, 4), (4, 4)]), ("i,i->", [(8,), (8,)]),
         ("bij,bjk->bik", [(2, 3, 3), (2, 3, 3)]), ("ii->i", [(4, 4)])]


def per_call(fn, number=20000):
    fn()
    best = min(timeit.repeat(fn, number=number, repeat=5))
    return best / number * 1e6


def main():
    rng = np.random.default_rng(0)
    print("%-16s %10s %10s %10s %12s" % ("equation", "ours us", "torch us",
                                         "numpy us", "ours/torch"))
    for equation, shapes in CASES:
        ops = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        ours = per_call(lambda: em.einsum(equation, *ops))
        ref = per_call(lambda: np.einsum(equation, *ops))
        if torch is not None:
            tops = [torch.from_numpy(o) for o in ops]
            theirs = per_call(lambda: torch.einsum(equation, *tops))
            print("%-16s %10.2f %10.2f %10.2f %12.2f" % (
                equation, ours, theirs, ref, ours / theirs))
        else:
            print("%-16s %10.2f %10s %10.2f %12s" % (equation, ours, "-", ref,
                                                     "-"))


if __name__ == "__main__":
    main()

"""Inputs for, and numpy checks of, einsum-run --grid (grid.test).

  grid-numpy.py make DIR          write the .npy operands of the cases
  grid-numpy.py compare DIR EQ OUT A B ...
                                  compare OUT.npy with numpy.einsum(EQ, A, B)
  grid-numpy.py close X.npy Y.npy compare two results
  grid-numpy.py shards DIR EQ OUT A B ...
                                  put OUT.rankN.npy together by the blocks
                                  einsum-run printed (stdin) and compare
"""
import re
import sys

import numpy as np


def make(directory):
    rng = np.random.default_rng(7)
    arrays = {
        # odd sizes where no rank count divides them: computed whole
        "a": rng.standard_normal((12, 20)).astype(np.float32),
        "b": rng.standard_normal((20, 8)).astype(np.float32),
        "c": rng.standard_normal((8, 6)).astype(np.float32),
        "t": rng.standard_normal((4, 6, 8, 10)).astype(np.float64),
        "u": rng.standard_normal((8, 10, 6)).astype(np.float64),
        "odd": rng.standard_normal((7, 5)).astype(np.float32),
        "odd2": rng.standard_normal((5, 3)).astype(np.float32),
        "i": rng.integers(-8, 9, (16, 12)).astype(np.int32),
        "j": rng.integers(-8, 9, (12, 8)).astype(np.int32),
    }
    # A Fortran-order file: read whole, then sliced.
    arrays["f"] = np.asfortranarray(arrays["a"])
    for name, array in arrays.items():
        np.save(f"{directory}/{name}.npy", array)


def reference(directory, equation, names):
    operands = [np.load(f"{directory}/{n}.npy") for n in names]
    return np.einsum(equation, *operands)


def compare(result, expected):
    if result.shape != expected.shape or result.dtype != expected.dtype:
        sys.exit(f"mismatch: {result.dtype}{result.shape} vs "
                 f"{expected.dtype}{expected.shape}")
    tolerance = 1e-4 if result.dtype == np.float32 else 1e-10
    if not np.allclose(result, expected, rtol=tolerance, atol=tolerance):
        sys.exit(f"mismatch: max error {np.abs(result - expected).max()}")
    print(f"numpy: OK {result.dtype}{list(result.shape)}")


def main():
    command, directory = sys.argv[1], sys.argv[2]
    if command == "make":
        make(directory)
        return
    if command == "close":
        compare(np.load(sys.argv[2]), np.load(sys.argv[3]))
        return
    equation, output, names = sys.argv[3], sys.argv[4], sys.argv[5:]
    expected = reference(directory, equation, names)
    if command == "compare":
        compare(np.load(output), expected)
        return
    # shards: "output: PATH holds the block [0:4, 2:4] of the ..." lines.
    result = np.full(expected.shape, np.nan, dtype=expected.dtype)
    blocks = 0
    for line in sys.stdin:
        m = re.match(r"output: (\S+) holds the block \[(.*)\] of", line)
        if not m:
            continue
        index = tuple(slice(*map(int, r.split(":")))
                      for r in m.group(2).split(", ") if r)
        result[index] = np.load(m.group(1))
        blocks += 1
    print(f"blocks: {blocks}")
    compare(result, expected)


if __name__ == "__main__":
    main()

# RUN: %PYTHON %s --einsum-run=einsum-run --workdir=%t | FileCheck %s
# CHECK: 0 failed
# CHECK-NOT: FAIL

"""einsum-run against numpy.einsum on deterministic random einsums.

Diagonals, size-1 broadcasts, ellipses (broadcast, summed, empty), zero-size
dims, scalars, implicit outputs, 1 to 6 operands and all six element types.
Inputs are written as .npy, the result is read back and compared with
numpy.einsum in float64 (int64 for integers) within a rigorous rounding
bound. The cases depend only on the seed.
"""

import argparse
import concurrent.futures
import os
import random
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from einsum_oracle import (LETTERS, bf16_bits, bf16_from_bits,  # noqa: E402
                           numpy_equation, round_bf16, terms_per_element)

DTYPES = ["f32", "f64", "f16", "bf16", "i32", "i64"]
NUMPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
         "i32": np.int32, "i64": np.int64}
# Unit roundoff of the accumulation and of the final rounding.
ROUNDOFF = {"f64": (2.0 ** -53, 2.0 ** -53), "f32": (2.0 ** -24, 2.0 ** -24),
            "f16": (2.0 ** -24, 2.0 ** -11), "bf16": (2.0 ** -24, 2.0 ** -8)}
# Half the smallest subnormal of the result type: the absolute rounding
# error of a result in the subnormal range.
SUBNORMAL = {"f64": 2.0 ** -1074, "f32": 2.0 ** -150, "f16": 2.0 ** -25,
             "bf16": 2.0 ** -134}


def random_case(rng):
    """Returns (equation, shapes, dtype)."""
    n_ops = rng.choice([1, 1, 2, 2, 2, 3, 3, 4, 5, 6])
    n_labels = rng.randint(1, 5)
    labels = rng.sample(LETTERS, n_labels)
    sizes = {l: rng.choice([0, 1, 2, 2, 3, 3, 4]) if rng.random() < 0.1
             else rng.choice([1, 2, 3, 4]) for l in labels}
    use_ellipsis = rng.random() < 0.3
    ell_shape = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
    terms, shapes = [], []
    for _ in range(n_ops):
        k = rng.randint(0, min(4, n_labels + 1))
        term = [rng.choice(labels) for _ in range(k)]
        shape = []
        for l in term:
            # A label's dims inside one operand are equal (E5); across
            # operands size 1 broadcasts (E6).
            if term.count(l) == 1 and rng.random() < 0.15:
                shape.append(1)
            else:
                shape.append(sizes[l])
        text = "".join(term)
        if use_ellipsis and rng.random() < 0.8:
            r = rng.randint(0, len(ell_shape))
            dims = [d if rng.random() > 0.2 else 1
                    for d in ell_shape[len(ell_shape) - r:]]
            pos = rng.randint(0, len(term))
            text = text[:pos] + "..." + text[pos:]
            shape = shape[:pos] + dims + shape[pos:]
        terms.append(text)
        shapes.append(shape)
    lhs = ",".join(terms)
    if rng.random() < 0.3:
        equation = lhs
    else:
        present = sorted(set(c for t in terms for c in t if c != "."))
        out = rng.sample(present, rng.randint(0, len(present)))
        out = "".join(out)
        if "..." in lhs and rng.random() < 0.7:
            pos = rng.randint(0, len(out))
            out = out[:pos] + "..." + out[pos:]
        equation = lhs + "->" + out
    if rng.random() < 0.1:
        equation = " ".join(equation)  # Whitespace between elements (E2).
        equation = equation.replace(". . .", "...").replace("- >", "->")
    return equation, shapes, rng.choice(DTYPES)


def fix_diagonals(equation, shapes):
    """Makes repeated labels within an operand equal-sized (E5)."""
    lhs = equation.replace(" ", "").split("->")[0]
    fixed = []
    for term, shape in zip(lhs.split(","), shapes):
        shape = list(shape)
        if "..." in term:
            before, after = term.split("...")
            axes = list(before) + [None] * (len(shape) - len(before) -
                                            len(after)) + list(after)
        else:
            axes = list(term)
        first = {}
        for i, l in enumerate(axes):
            if l is None:
                continue
            if l in first:
                shape[i] = shape[first[l]]
            else:
                first[l] = i
        fixed.append(shape)
    return fixed


def consistent(equation, shapes):
    """True when the sizes broadcast (E6, E7); random cases that do not are
    skipped."""
    np_eq = numpy_equation(equation, shapes)
    lhs = np_eq.split("->")[0]
    sizes = {}
    for term, shape in zip(lhs.split(","), shapes):
        for label, size in zip(term, shape):
            seen = sizes.get(label, 1)
            if size != 1 and seen != 1 and size != seen:
                return False
            if size != 1:
                sizes[label] = size
    return True


def make_input(rng, shape, dtype):
    """Returns (array to save, float64/int64 values)."""
    if dtype in ("i32", "i64"):
        values = rng.integers(-5, 6, size=shape).astype(np.int64)
        return values.astype(NUMPY[dtype]), values
    values = rng.uniform(-1, 1, size=shape)
    if dtype == "bf16":
        return bf16_bits(values).view("V2"), round_bf16(values)
    stored = values.astype(NUMPY[dtype])
    return stored, stored.astype(np.float64)


def run_case(index, case, args):
    equation, shapes, dtype = case
    rng = np.random.default_rng(index)
    files, values = [], []
    for k, shape in enumerate(shapes):
        stored, exact = make_input(rng, shape, dtype)
        path = os.path.join(args.workdir, "c%d_in%d.npy" % (index, k))
        np.save(path, stored)
        files.append(path)
        values.append(exact)
    out = os.path.join(args.workdir, "c%d_out.npy" % index)
    cmd = [args.einsum_run, "--equation=" + equation, "--output=" + out]
    cmd += ["--input=@" + f for f in files]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return "FAIL %d %r %s %s: einsum-run: %s" % (
            index, equation, shapes, dtype, proc.stderr.strip())
    got = np.load(out)
    np_eq = numpy_equation(equation, shapes)
    if dtype in ("i32", "i64"):
        expected = np.einsum(np_eq, *values)
        if dtype == "i32":
            expected = np.asarray(expected).astype(np.int32)
        if got.shape != np.shape(expected) or not np.array_equal(got,
                                                                 expected):
            return "FAIL %d %r %s %s: got %s, expected %s" % (
                index, equation, shapes, dtype, got, expected)
        return None
    if dtype == "bf16":
        got = bf16_from_bits(got.view(np.uint16))
    got = got.astype(np.float64)
    expected = np.einsum(np_eq, *values)
    bound = np.einsum(np_eq, *[np.abs(v) for v in values])
    u_acc, u_out = ROUNDOFF[dtype]
    rtol = 2 * u_acc * (terms_per_element(np_eq, shapes) + len(shapes) + 2) \
        + u_out
    if got.shape != np.shape(expected):
        return "FAIL %d %r %s %s: shape %s, expected %s" % (
            index, equation, shapes, dtype, got.shape, np.shape(expected))
    if np.any(np.abs(got - expected) > rtol * bound + SUBNORMAL[dtype]):
        return "FAIL %d %r %s %s: max error %g" % (
            index, equation, shapes, dtype, np.max(np.abs(got - expected)))
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--einsum-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--cases", type=int, default=180)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)

    rng = random.Random(args.seed)
    cases = []
    while len(cases) < args.cases:
        equation, shapes, dtype = random_case(rng)
        shapes = fix_diagonals(equation, shapes)
        if consistent(equation, shapes):
            cases.append((equation, shapes, dtype))
    # Every element type and every operand count up to 6 occur.
    assert {c[2] for c in cases} == set(DTYPES)
    assert {len(c[1]) for c in cases} >= set(range(1, 7))

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda ic: run_case(ic[0], ic[1], args),
                                enumerate(cases)))
    failures = [r for r in results if r]
    for f in failures:
        print(f)
    stats = {
        "diagonal": sum(any(t.replace("...", "").count(c) > 1
                            for t in e.replace(" ", "").split("->")[0].split(",")
                            for c in t) for e, _, _ in cases),
        "ellipsis": sum("..." in e for e, _, _ in cases),
        "zero-size": sum(any(0 in s for s in sh) for _, sh, _ in cases),
        "scalar operand": sum(any(len(s) == 0 for s in sh)
                              for _, sh, _ in cases),
        "implicit output": sum("->" not in e for e, _, _ in cases),
    }
    print("cases: %d; %s" % (len(cases), ", ".join(
        "%s %d" % kv for kv in stats.items())))
    print("%d passed, %d failed" % (len(cases) - len(failures),
                                    len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

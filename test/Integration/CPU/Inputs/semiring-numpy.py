"""semiring.test: einsum-run --semiring against numpy in float64 (brute
force over the broadcast products, independent of the project's reference
evaluator), on random equations of every class, and log-space inputs in
-1e4..0 with -inf entries.

Usage: semiring-numpy.py EINSUM_RUN WORKDIR
"""
import os
import random
import subprocess
import sys

import numpy as np

einsum_run, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def brute(semiring, equation, operands):
    """The semiring einsum from numpy: every term on the full iteration
    space (an outer einsum), then ⊕ over the summed labels."""
    inputs, output = equation.split("->")
    terms = inputs.split(",")
    labels = sorted(set("".join(terms)))
    full = "".join(labels)
    sizes = {}
    for term, op in zip(terms, operands):
        sizes.update(zip(term, op.shape))
    shape = [sizes[l] for l in labels]
    expanded = []
    for term, op in zip(terms, operands):
        # Diagonals, then broadcast to the full space.
        view = np.einsum(term + "->" + "".join(sorted(set(term),
                                                      key=term.index)), op)
        order = sorted(set(term), key=term.index)
        view = np.einsum("".join(order) + "->" + "".join(
            l for l in labels if l in order), view)
        index = tuple(slice(None) if l in order else None for l in labels)
        expanded.append(np.broadcast_to(view[index], shape))
    if semiring in ("max_times", "bool"):
        term = np.ones(shape, np.float64)
        for e in expanded:
            term = term * (e != 0) if semiring == "bool" else term * e
    else:
        with np.errstate(invalid="ignore"):
            term = sum(expanded)
    summed = tuple(i for i, l in enumerate(labels) if l not in output)
    if semiring in ("max", "max_times"):
        result = term.max(axis=summed, initial=-np.inf)
    elif semiring == "min":
        result = term.min(axis=summed, initial=np.inf)
    elif semiring == "bool":
        result = (term.sum(axis=summed) > 0).astype(np.float64)
    else:  # log
        m = term.max(axis=summed, initial=-np.inf, keepdims=True)
        safe = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):
            result = np.squeeze(safe + np.log(np.exp(term - safe).sum(
                axis=summed, keepdims=True)), axis=summed)
        result = np.where(np.isneginf(np.squeeze(m, axis=summed)), -np.inf,
                          result)
    kept = [l for l in labels if l in output]
    return np.einsum("".join(kept) + "->" + output, result)


def run(semiring, equation, operands, dtype):
    paths = []
    for i, op in enumerate(operands):
        path = os.path.join(work, "in%d.npy" % i)
        np.save(path, op.astype(dtype))
        paths.append(path)
    out = os.path.join(work, "out.npy")
    if os.path.exists(out):
        os.remove(out)
    subprocess.run([einsum_run, "--threads=2", "--semiring=" + semiring,
                    "--equation=" + equation, *["--input=@" + p for p in paths],
                    "--output=@" + out], check=True)
    return np.load(out).astype(np.float64)


def compare(name, got, want, tolerance):
    both_inf = (np.isinf(got) & np.isinf(want) & (np.sign(got) ==
                                                  np.sign(want)))
    both_nan = np.isnan(got) & np.isnan(want)
    with np.errstate(invalid="ignore"):
        error = np.where(both_inf | both_nan, 0, np.abs(got - want))
    error = np.where(np.isnan(error), np.inf, error)
    worst = float(error.max()) if error.size else 0.0
    ok = worst <= tolerance
    print("%s %s (max abs error %.3g)" % ("PASS" if ok else "FAIL", name,
                                         worst))
    return ok


EQUATIONS = ["ij,jk->ik", "bij,bjk->bik", "ij->i", "ij,ij->ij", "i,j->ij",
             "abcd,dbef->aecf", "ii->i", "ij,jk,kl->il", "bi,ij->bj",
             "ijk,k->ij", "ij,jk->ki"]
rng = np.random.default_rng(0)
chooser = random.Random(0)
failures = 0
for semiring in ("max", "min", "max_times", "log", "bool"):
    for equation in EQUATIONS:
        sizes = {l: chooser.choice([1, 2, 3, 5]) for l in "abcdefijkl"}
        terms = equation.split("->")[0].split(",")
        shapes = [tuple(sizes[l] for l in t) for t in terms]
        if semiring == "bool":
            ops = [rng.integers(0, 2, s) for s in shapes]
            dtype = np.int32
        else:
            ops = [rng.uniform(-1, 1, s) for s in shapes]
            dtype = np.float64
        got = run(semiring, equation, ops, dtype)
        want = brute(semiring, equation, [o.astype(dtype) for o in ops])
        failures += not compare(semiring + " " + equation, got, want, 1e-9)

# Log space as HMMs and CRFs use it: values in -1e4..0, -inf entries (a row
# of them: an output of -inf), float32.
a = rng.uniform(-1e4, 0, (6, 50))
b = rng.uniform(-1e4, 0, (50, 7))
a[0, :] = -np.inf
a[2, 5] = -np.inf
b[:, 3] = -np.inf
got = run("log", "ij,jk->ik", [a, b], np.float32)
want = brute("log", "ij,jk->ik", [a.astype(np.float32).astype(np.float64),
                                  b.astype(np.float32).astype(np.float64)])
failures += not compare("log -1e4..0 with -inf, f32", got, want, 2e-3)
failures += not compare("log all -inf row", got[0], want[0], 0)

# Products large enough for the fast forms (at least 8 terms per operand
# element): log as a GEMM of exp(a - max) and exp(b - max), max/min with
# NaN-free vmaxps after a scan of the operands. Each case is run where the
# fast form applies and where the run-time check sends it to the definition.
def logspace(shape, low):
    return rng.uniform(low, 0, shape)


def check(name, semiring, equation, ops, dtype, tolerance):
    global failures
    got = run(semiring, equation, ops, dtype)
    want = brute(semiring, equation,
                 [o.astype(dtype).astype(np.float64) for o in ops])
    failures += not compare(name, got, want, tolerance)


check("log scaled f32", "log", "ij,jk->ik",
      [logspace((40, 60), -20), logspace((60, 50), -20)], np.float32, 1e-4)
check("log scaled f64", "log", "bij,bjk->bik",
      [logspace((3, 20, 70), -30), logspace((3, 70, 24), -30)], np.float64,
      1e-9)
check("log scaled transposed output", "log", "kj,ik->ji",
      [logspace((64, 30), -5), logspace((20, 64), -5)], np.float32, 1e-4)
# -1e4..0 with -inf entries, a -inf row and a -inf column: the scaled sums
# underflow, the definition runs.
a, b = logspace((40, 60), -1e4), logspace((60, 50), -1e4)
a[0, :] = -np.inf
a[2, 5] = -np.inf
b[:, 3] = -np.inf
check("log scaled -1e4..0 with -inf, f32", "log", "ij,jk->ik", [a, b],
      np.float32, 2e-3)
check("log scaled -1e4..0 with -inf, f64", "log", "ij,jk->ik", [a, b],
      np.float64, 1e-8)
# One row spread over 1e4 among moderate ones: the whole result by the
# definition.
a, b = logspace((40, 60), -10), logspace((60, 50), -10)
a[7, :30] = -1e4
a[7, 30:] = -2e4
check("log one wide row", "log", "ij,jk->ik", [a, b], np.float32, 1e-3)
a, b = logspace((40, 60), -10), logspace((60, 50), -10)
a[3, 4] = np.inf
check("log +inf entry", "log", "ij,jk->ik", [a, b], np.float32, 1e-4)
a[3, 4] = np.nan
check("log NaN entry", "log", "ij,jk->ik", [a, b], np.float32, 1e-4)

for semiring in ("max", "min", "max_times"):
    a, b = rng.uniform(-1, 1, (40, 60)), rng.uniform(-1, 1, (60, 50))
    check(semiring + " checked", semiring, "ij,jk->ik", [a, b], np.float32,
          1e-6)
    a[1, 2], b[4, 5] = -np.inf, -np.inf
    check(semiring + " checked -inf", semiring, "ij,jk->ik", [a, b],
          np.float32, 1e-6)
    a[3, 4], b[2, 9] = np.inf, -np.inf
    check(semiring + " +inf and -inf", semiring, "ij,jk->ik", [a, b],
          np.float32, 1e-6)
    a[5, 6] = np.nan
    check(semiring + " NaN", semiring, "ij,jk->ik", [a, b], np.float64, 1e-12)
# bool as reachability: the walks of length 1..L of a random digraph by
# repeated bool products (einsum-run), against breadth-first search.
nodes, length = 24, 4
adjacency = (rng.uniform(0, 1, (nodes, nodes)) < 0.08).astype(np.int32)
reach = adjacency.copy()
within = adjacency.copy()
for _ in range(length - 1):
    reach = run("bool", "ij,jk->ik", [reach, adjacency], np.int32).astype(
        np.int32)
    within = np.maximum(within, reach)
expected = np.zeros((nodes, nodes), np.int32)
for source in range(nodes):
    frontier = {source}
    for _ in range(length):
        frontier = {t for f in frontier for t in np.nonzero(adjacency[f])[0]}
        for t in frontier:
            expected[source, t] = 1
failures += not compare("bool reachability within %d steps" % length,
                        within.astype(np.float64),
                        expected.astype(np.float64), 0)
print("%d failed" % failures)
sys.exit(1 if failures else 0)

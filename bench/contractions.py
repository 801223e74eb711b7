#!/usr/bin/python3
"""The tensor contraction suite: binary contractions generated systematically,
measured against our own GEMM, the roofline and torch.einsum in one run.

    /usr/bin/python3 bench/contractions.py [--list] [--only NAME] [--threads 1 2]

The cases are not picked: for every placement of the stride-1 labels
(the output's stride-1 label from A or from B; the contracted stride-1 label
in neither operand, A only, B only or both) and every contracted extent (8,
16, 24, 48, 64), one contraction is generated with a fixed seed: operand
ranks 2-4, output ranks 3-6, batch labels or not, one or two contracted
labels, the other labels in random order, extents chosen so that each operand
holds 0.5-8 MB. That is 2 x 4 x 5 = 40 cases. With --power-of-two, the same
40 cases with every uncontracted extent rounded to the nearest power of two
(names end in _p2): real tensors often have such extents, whose strides are
multiples of the caches' set spans.

Per case and thread count it prints GFLOP/s, the fraction of our GEMM rate
measured in the same run (1024^3 f32), the roofline bound min(peak,
intensity x copy bandwidth) and our fraction of it, and the speedup over
torch.einsum; then the geomeans. OpenBLAS (which torch calls) gets the row's
thread count, as in bench/run.py. No test depends on these numbers.
"""

import argparse
import math
import os
import random
import sys

from quiet import BUILD, restart_quietly  # noqa: E402  (bench/quiet.py)

restart_quietly()

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(BUILD, "python_packages"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import einsum_mlir as em  # noqa: E402
from run import (OpenBLAS, PEAK_F32_PER_CORE, aligned_copy,  # noqa: E402
                 aligned_empty, timed)

try:
    import torch  # noqa: E402
except ImportError:
    torch = None

EXTENTS = [8, 16, 24, 48, 64]
# A contracted extent split over two labels.
SPLITS = {8: (2, 4), 16: (4, 4), 24: (4, 6), 48: (6, 8), 64: (8, 8)}
OUT_FROM = ["A", "B"]
K_STRIDE1 = ["neither", "A", "B", "both"]


def generate(power_of_two=False):
    """The 40 cases, the same on every run; with `power_of_two`, their
    uncontracted extents rounded to the nearest power of two."""
    rng = random.Random(13)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    cases = []
    for out_from in OUT_FROM:
        for k_place in K_STRIDE1:
            for extent in EXTENTS:
                case = make_case(rng, letters, out_from, k_place, extent)
                cases.append(round_to_powers_of_two(case) if power_of_two
                             else case)
    return cases


def round_to_powers_of_two(case):
    inputs, out = case["equation"].split("->")
    shapes = []
    for term, shape in zip(inputs.split(","), case["shapes"]):
        shapes.append([2 ** round(math.log2(size)) if label in out else size
                       for label, size in zip(term, shape)])
    return dict(case, name=case["name"] + "_p2", shapes=shapes)


def make_case(rng, letters, out_from, k_place, k_extent):
    # Sizes first: operands of a, b bytes (0.5-8 MB each) hold x = bat * M
    # and y = bat * N elements per contracted point; the output holds
    # x * y / bat elements, at most 64 MB: short contractions need batch
    # labels (K = 8: x, y >= 16384, so bat >= 16).
    a_bytes = rng.uniform(0.5, 8) * 2**20
    b_bytes = rng.uniform(0.5, 8) * 2**20
    x = a_bytes / 4 / k_extent
    y = b_bytes / 4 / k_extent
    out_max = 64 * 2**20 / 4
    need_batch = x * y / out_max
    while True:
        n_batch = rng.choice([1, 2]) if need_batch > 1 else rng.choice(
            [0, 0, 1])
        n_k = rng.choice([1, 2])
        n_m = rng.randint(1, 3)
        n_n = rng.randint(1, 3)
        rank_a = n_batch + n_m + n_k
        rank_b = n_batch + n_n + n_k
        rank_out = n_batch + n_m + n_n
        if 2 <= rank_a <= 4 and 2 <= rank_b <= 4 and 3 <= rank_out <= 6:
            break
    names = rng.sample(letters, n_batch + n_m + n_n + n_k)
    batch = names[:n_batch]
    m = names[n_batch:n_batch + n_m]
    n = names[n_batch + n_m:n_batch + n_m + n_n]
    k = names[n_batch + n_m + n_n:]
    sizes = {}
    for label, size in zip(k, SPLITS[k_extent] if n_k == 2 else [k_extent]):
        sizes[label] = size
    bat = 1
    if batch:
        bat = max(need_batch * rng.uniform(1.2, 2), rng.uniform(2, 8))
        per = max(2, int(round(bat ** (1 / len(batch)))))
        for label in batch:
            sizes[label] = per
        bat = math.prod(sizes[l] for l in batch)

    def spread(group, total):
        per = max(2.0, (total / bat) ** (1 / len(group)))
        for label in group:
            sizes[label] = max(2, int(per * rng.uniform(0.8, 1.25)))
    spread(m, x)
    spread(n, y)

    def order(free, contracted, contracted_last, required_last):
        labels = batch + free + contracted
        rng.shuffle(labels)
        last = required_last if required_last else (
            rng.choice(contracted) if contracted_last else
            rng.choice(free))
        labels.remove(last)
        return labels + [last]

    out_last = rng.choice(m if out_from == "A" else n)
    a_k_last = k_place in ("A", "both")
    b_k_last = k_place in ("B", "both")
    # The output's stride-1 label is the stride-1 label of its operand only
    # where that operand's stride-1 label is not contracted.
    term_a = order(m, k, a_k_last,
                   None if a_k_last or out_from != "A" else out_last)
    term_b = order(n, k, b_k_last,
                   None if b_k_last or out_from != "B" else out_last)
    rest = batch + [l for l in m + n if l != out_last]
    rng.shuffle(rest)
    term_out = rest + [out_last]
    equation = "%s,%s->%s" % ("".join(term_a), "".join(term_b),
                              "".join(term_out))
    name = "tc_%s%s_k%d" % ("a" if out_from == "A" else "b",
                            {"neither": "n", "A": "A", "B": "B",
                             "both": "2"}[k_place], k_extent)
    return {"name": name, "equation": equation,
            "shapes": [[sizes[l] for l in term_a], [sizes[l] for l in term_b]],
            "out_from": out_from, "k_stride1": k_place, "k_extent": k_extent}


def copy_bandwidth(threads):
    """Copy bandwidth (GB/s) with `threads` threads (numpy's copy is one
    thread; two copies of halves run on two threads)."""
    import threading
    src = aligned_empty((64 * 1024 * 1024 // 4,), np.float32)
    src[...] = 1
    dst = aligned_empty(src.shape, np.float32)
    parts = np.array_split(np.arange(src.size), threads)

    def copy():
        workers = [threading.Thread(
            target=lambda p=p: np.copyto(dst[p[0]:p[-1] + 1],
                                         src[p[0]:p[-1] + 1]))
            for p in parts]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    med, _ = timed(copy, budget=0.5)
    return 2 * src.nbytes / med / 1e9


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else 0


def suite_arguments(description, budget):
    """The command line of a generated suite (this one, transposes.py):
    --list, --only NAME or EQUATION (repeatable), --threads, --budget."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--threads", type=int, nargs="*",
                        default=sorted({1, os.cpu_count() or 1}))
    parser.add_argument("--budget", type=float, default=budget)
    return parser


def selected(cases, only):
    """The cases --only names (by name or equation); all without it."""
    return [c for c in cases
            if not only or c["name"] in only or c["equation"] in only]


def main():
    parser = suite_arguments(__doc__.split("\n")[0], budget=0.5)
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--power-of-two", action="store_true")
    args = parser.parse_args()
    cases = selected(generate(args.power_of_two), args.only)
    if args.list:
        for c in cases:
            print("%-12s %-28s %s" % (c["name"], c["equation"],
                                      " ".join("x".join(map(str, s))
                                               for s in c["shapes"])))
        return
    blas = OpenBLAS()
    rng = np.random.default_rng(0)
    summary = {}
    for threads in args.threads:
        blas.lib.openblas_set_num_threads(threads)
        if torch is not None:
            torch.set_num_threads(threads)
        bandwidth = copy_bandwidth(threads)
        a = aligned_copy(rng.uniform(-1, 1, (1024, 1024)).astype(np.float32))
        gemm = em.compile("ij,jk->ik", a, a, threads=threads)
        gout = aligned_empty((1024, 1024), np.float32)
        gemm_rate = gemm.flops / timed(lambda: gemm(a, a, out=gout),
                                       args.budget)[0] / 1e9
        peak = PEAK_F32_PER_CORE * threads
        print("threads %d: our GEMM 1024^3 %.1f GFLOP/s, copy %.1f GB/s, "
              "peak %.0f GFLOP/s" % (threads, gemm_rate, bandwidth, peak))
        print("%-12s %-26s %9s %6s %9s %6s %8s" % (
            "case", "equation", "GFLOP/s", "xGEMM", "roofline", "xroof",
            "xtorch"))
        rows = []
        for case in cases:
            ops = [aligned_copy(rng.uniform(-1, 1, s).astype(np.float32))
                   for s in case["shapes"]]
            kernel = em.compile(case["equation"], *ops, threads=threads)
            out = aligned_empty(kernel.output_shape, np.float32)
            med, _ = timed(lambda: kernel(*ops, out=out), args.budget)
            rate = kernel.flops / med / 1e9
            moved = sum(o.nbytes for o in ops) + out.nbytes
            roof = min(peak, kernel.flops / moved * bandwidth)
            row = {"rate": rate, "xgemm": rate / gemm_rate,
                   "roof": roof, "xroof": rate / roof}
            if torch is not None and not args.no_torch:
                tops = [torch.from_numpy(o) for o in ops]
                row["xtorch"] = timed(
                    lambda: torch.einsum(case["equation"], *tops),
                    args.budget)[0] / med
            rows.append(row)
            print("%-12s %-26s %9.1f %6.2f %9.1f %6.2f %8s" % (
                case["name"], case["equation"], rate, row["xgemm"], roof,
                row["xroof"], "%.2f" % row["xtorch"] if "xtorch" in row
                else "-"), flush=True)
        summary[threads] = rows
        print("geomean: %.1f GFLOP/s, %.2f of GEMM, %.2f of roofline, %s "
              "torch; min %.2f of GEMM, %.2f of roofline" % (
                  geomean(r["rate"] for r in rows),
                  geomean(r["xgemm"] for r in rows),
                  geomean(r["xroof"] for r in rows),
                  "%.2fx" % geomean(r.get("xtorch") for r in rows)
                  if torch is not None and not args.no_torch else "-",
                  min(r["xgemm"] for r in rows),
                  min(r["xroof"] for r in rows)))
    if len(summary) == 2:
        one, two = (summary[t] for t in sorted(summary))
        speedups = [b["rate"] / a["rate"] for a, b in zip(one, two)]
        print("threads %d vs %d: geomean %.2fx, min %.2fx" % (
            sorted(summary)[1], sorted(summary)[0], geomean(speedups),
            min(speedups)))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The transpose suite: einsums that only permute their operand's dims,
generated systematically, measured against the copy bandwidth, numpy and
torch in one run.

    /usr/bin/python3 bench/transposes.py [--list] [--only NAME] [--threads 1 2]

The cases are not picked: for operand ranks 3, 4 and 5, every kind of
placement of the two contiguous dims is generated with a fixed seed (the
output's last dim is the input's first, a middle one, the input's last
again with the others moved, or all dims reversed), with the contiguous
dims of both sides long, or one of them short (6 to 16 elements: rows of
24 to 64 bytes, the transposes that packing a short contraction makes),
the other extents random, 4-16 MB per operand; and the matrix transpose,
long and short: 3 ranks x 4 kinds x 2 + 2 = 26 cases.

Per case and thread count it prints the time, the fraction of the copy
bandwidth reached (2 x bytes / time against a copy of 64 MB measured in
the same run), and the speedup over numpy (np.einsum's view copied into a
contiguous array) and torch (permute().contiguous()); then the geomeans.
No test depends on these numbers.
"""

import itertools
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
# (torch as contractions.py imports it: None where it is not installed.)
from contractions import (copy_bandwidth, geomean, selected,  # noqa: E402
                          suite_arguments, torch)
from run import aligned_copy, aligned_empty, timed  # noqa: E402

SHORT = [6, 8, 12, 16]
LETTERS = "ijklm"


def permutations(rank, kind):
    """The permutations (output dim d reads input dim perm[d]) of `kind`:
    `first`: the output's last dim is the input's first; `middle`: one of
    the others but the last; `outer`: the last dim stays, the others move
    (a copy of rows, not a transpose); `reverse`: all dims reversed."""
    perms = [p for p in itertools.permutations(range(rank))
             if list(p) != list(range(rank))]
    if kind == "first":
        return [p for p in perms if p[-1] == 0]
    if kind == "middle":
        return [p for p in perms if 0 < p[-1] < rank - 1] or [
            p for p in perms if p[-1] == 0]
    if kind == "outer":
        return [p for p in perms if p[-1] == rank - 1] or [
            p for p in perms if p[-1] == 0]
    return [tuple(reversed(range(rank)))]


def generate():
    """The 26 cases, the same on every run."""
    rng = random.Random(17)
    cases = []
    kinds = {2: ("reverse",), 3: ("first", "middle", "outer", "reverse"),
             4: ("first", "middle", "outer", "reverse"),
             5: ("first", "middle", "outer", "reverse")}
    for rank in (2, 3, 4, 5):
        for kind in kinds[rank]:
            for short in (False, True):
                perm = rng.choice(permutations(rank, kind))
                elements = rng.uniform(1, 4) * 2**20
                shape = [0] * rank
                # Short rows: the input's or the output's contiguous dim.
                fixed = {}
                if short:
                    fixed[rng.choice([rank - 1, perm[-1]])] = rng.choice(
                        SHORT)
                free = [d for d in range(rank) if d not in fixed]
                rest = elements / math.prod(fixed.values() or [1])
                per = rest ** (1 / len(free))
                for d in range(rank):
                    shape[d] = fixed.get(d) or max(
                        2, int(per * rng.uniform(0.7, 1.4)))
                term = LETTERS[:rank]
                equation = "%s->%s" % (term, "".join(term[p] for p in perm))
                name = "tp%d_%s%s" % (rank, kind, "_short" if short else "")
                cases.append({"name": name, "equation": equation,
                              "shape": shape})
    return cases


def main():
    args = suite_arguments(__doc__.split("\n")[0], budget=0.3).parse_args()
    cases = selected(generate(), args.only)
    if args.list:
        for c in cases:
            print("%-18s %-12s %s" % (c["name"], c["equation"],
                                      "x".join(map(str, c["shape"]))))
        return
    rng = np.random.default_rng(0)
    for threads in args.threads:
        if torch is not None:
            torch.set_num_threads(threads)
        bandwidth = copy_bandwidth(threads)
        print("threads %d: copy %.1f GB/s" % (threads, bandwidth))
        print("%-18s %-12s %-16s %8s %6s %7s %7s" % (
            "case", "equation", "shape", "ms", "xcopy", "xnumpy", "xtorch"))
        rows = []
        for case in cases:
            a = aligned_copy(rng.uniform(-1, 1, case["shape"])
                             .astype(np.float32))
            kernel = em.compile(case["equation"], a, threads=threads)
            out = aligned_empty(kernel.output_shape, np.float32)
            med, _ = timed(lambda: kernel(a, out=out), args.budget)
            view = np.einsum(case["equation"], a)
            if not np.array_equal(out, view):
                sys.exit("%s: wrong result" % case["name"])
            row = {"xcopy": 2 * a.nbytes / med / 1e9 / bandwidth}
            ref = aligned_empty(view.shape, np.float32)
            row["xnumpy"] = timed(lambda: np.copyto(ref, view),
                                  args.budget)[0] / med
            if torch is not None:
                t = torch.from_numpy(a)
                perm = [case["equation"].split("->")[0].index(c)
                        for c in case["equation"].split("->")[1]]
                row["xtorch"] = timed(lambda: t.permute(perm).contiguous(),
                                      args.budget)[0] / med
            rows.append(row)
            xtorch = row.get("xtorch")
            print("%-18s %-12s %-16s %8.2f %6.2f %7.2f %7s" % (
                case["name"], case["equation"],
                "x".join(map(str, case["shape"])), med * 1e3, row["xcopy"],
                row["xnumpy"], "-" if xtorch is None else "%.2f" % xtorch),
                flush=True)
        copies = [r["xcopy"] for r in rows]
        torch_ratios = [r["xtorch"] for r in rows if "xtorch" in r]
        print("geomean: %.2f of copy bandwidth (min %.2f), %.2fx numpy, "
              "%s torch" % (geomean(copies), min(copies),
                            geomean(r["xnumpy"] for r in rows),
                            "%.2fx" % geomean(torch_ratios) if torch_ratios
                            else "-"))

if __name__ == "__main__":
    main()

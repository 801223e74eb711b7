"""Contraction paths in numpy's and opt_einsum's conventions.

The compiler reports a path as steps over tensor ids (0..N-1 the operands,
N+k the result of step k). numpy and opt_einsum name each step by positions
in the current list of tensors, from which the step's tensors are removed
and to whose end its result is appended: [(1, 2), (0, 1)] for
ij,jk,kl->il contracted as jk,kl first.
"""

import math


def to_positions(steps, num_operands):
    """numpy's convention for the steps' tensor ids."""
    current = list(range(num_operands))
    path = []
    for k, step in enumerate(steps):
        positions = sorted(current.index(t) for t in step["inputs"])
        for position in reversed(positions):
            del current[position]
        current.append(num_operands + k)
        path.append(tuple(positions))
    return path


def from_optimize(optimize):
    """The compiler's path option for numpy's / opt_einsum's `optimize`:
    False (no search: left to right), True or 'greedy', 'optimal', 'dp',
    'auto', 'left-to-right', or an explicit path, [(1, 2), (0, 1)] or
    numpy's ['einsum_path', (1, 2), (0, 1)]. None if `optimize` is None."""
    if optimize is None:
        return None
    if optimize is False:
        return "left-to-right"
    if optimize is True:
        return "greedy"
    if isinstance(optimize, str):
        if optimize in ("greedy", "optimal", "dp", "auto", "left-to-right"):
            return optimize
        if optimize in ("branch-all", "branch-2", "branch-1", "random-greedy",
                        "auto-hq", "eager"):
            # opt_einsum's other searches: ours are exhaustive up to their
            # work limits.
            return "optimal" if optimize in ("branch-all", "auto-hq") else \
                "greedy"
        raise ValueError("einsum: unknown optimize=%r (expected False, True, "
                         "'greedy', 'optimal', 'dp', 'auto' or a path)"
                         % optimize)
    if isinstance(optimize, (list, tuple)):
        steps = list(optimize)
        if steps and steps[0] == "einsum_path":
            steps = steps[1:]
        text = []
        for k, step in enumerate(steps):
            if (not isinstance(step, (list, tuple)) or not step or
                    not all(isinstance(p, int) and not isinstance(p, bool)
                            and p >= 0 for p in step)):
                raise ValueError("einsum: optimize path step %d is %r; steps "
                                 "are tuples of tensor positions, e.g. "
                                 "[(1, 2), (0, 1)]" % (k, step))
            text.append(",".join(str(p) for p in step))
        return "explicit:" + ";".join(text)
    raise TypeError("einsum: optimize must be a bool, a string or a path, "
                    "not %s" % type(optimize).__name__)


class PathInfo:
    """The contraction path of an einsum, with numpy's and opt_einsum's
    fields: `path` (numpy's positions), `contraction_list`, `naive_cost`,
    `opt_cost`, `speedup`, `size_list`, `largest_intermediate`, `eq`,
    `input_subscripts`, `output_subscript`, `size_dict`, `shapes`; and the
    compiler's own: `steps`, `strategy`, `naive_flops`, `optimized_flops`,
    `largest_intermediate_bytes`, `search_note`. str() prints a report in
    numpy's and opt_einsum's layout."""

    def __init__(self, report, data, equation, shapes, element_bytes):
        self.report = report
        self.data = data
        self.steps = data["steps"]
        self.strategy = data["strategy"]
        self.search_note = data.get("search_note", "")
        self.naive_flops = data["naive_flops"]
        self.optimized_flops = data["optimized_flops"]
        self.speedup = data["speedup"]
        self.largest_intermediate_bytes = data["largest_intermediate_bytes"]
        self.eq = equation
        inputs, self.output_subscript = equation.split("->")
        self.input_subscripts = inputs
        self.shapes = [tuple(s) for s in shapes]
        self.path = to_positions(self.steps, len(shapes))
        self.naive_cost = self.naive_flops
        self.opt_cost = self.optimized_flops
        self.size_list = [math.prod(d for d in s["shape"] if d is not None)
                          for s in self.steps]
        self.largest_intermediate = (self.largest_intermediate_bytes //
                                     max(element_bytes, 1))
        self.size_dict = {}
        for term, shape in zip(inputs.split(","), self.shapes):
            labels = term.replace("...", "")
            if "..." in term:
                continue
            for label, size in zip(labels, shape):
                if size != 1:
                    self.size_dict[label] = size
                else:
                    self.size_dict.setdefault(label, size)
        self.contraction_list = []
        remaining = inputs.split(",")
        for position, step in zip(self.path, self.steps):
            step_inputs, result = step["equation"].split("->")
            for p in reversed(position):
                del remaining[p]
            remaining.append(result)
            self.contraction_list.append(
                (position, step_inputs, step["equation"],
                 ",".join(remaining) + "->" + self.output_subscript,
                 len(step["shape"])))

    def __str__(self):
        scaling = [len(set(s["equation"].replace(",", "").replace("->", "")))
                   for s in self.steps]
        lines = [
            "  Complete contraction:  %s" % self.eq,
            "         Naive scaling:  %d" % len(self.size_dict),
            "     Optimized scaling:  %d" % (max(scaling) if scaling else 0),
            "      Naive FLOP count:  %.3e" % self.naive_cost,
            "  Optimized FLOP count:  %.3e" % self.opt_cost,
            "   Theoretical speedup:  %.3f" % self.speedup,
            "  Largest intermediate:  %.3e elements" % self.largest_intermediate,
            "     Search (compiler):  %s%s" % (
                self.strategy,
                " (%s)" % self.search_note if self.search_note else ""),
            "-" * 80,
            "%-8s %-12s %-26s %s" % ("scaling", "positions", "current",
                                     "remaining"),
            "-" * 80,
        ]
        for (position, _, step, remaining, _), scale in zip(
                self.contraction_list, scaling):
            lines.append("%-8d %-12s %-26s %s" % (
                scale, ",".join(map(str, position)), step, remaining))
        return "\n".join(lines)

    __repr__ = __str__

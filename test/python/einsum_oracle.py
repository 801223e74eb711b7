"""torch.einsum semantics on top of numpy.einsum, for the tests.

numpy refuses a summed ellipsis (torch sums it, DESIGN.md E9) and orders an
implicit output its own way; this rewrites any torch equation into an
explicit numpy equation with the ellipsis spelled out as fresh labels.
"""

import numpy as np

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def numpy_equation(equation, shapes):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    fresh = [c for c in LETTERS if c not in eq]
    ranks = [len(s) - len(t.replace("...", "")) if "..." in t else 0
             for t, s in zip(terms, shapes)]
    ell = fresh[:max(ranks + [0])]
    new_terms = [t.replace("...", "".join(ell[len(ell) - r:]))
                 for t, r in zip(terms, ranks)]
    if arrow:
        out = rhs.replace("...", "".join(ell))
    else:
        counts = {}
        for t in terms:
            for c in t.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        once = sorted(c for c, n in counts.items() if n == 1)
        prefix = "".join(ell) if any("..." in t for t in terms) else ""
        out = prefix + "".join(once)
    return ",".join(new_terms) + "->" + out


def terms_per_element(np_equation, shapes):
    """How many products each output element sums."""
    lhs, out = np_equation.split("->")
    sizes = {}
    for term, shape in zip(lhs.split(","), shapes):
        for label, size in zip(term, shape):
            sizes[label] = max(sizes.get(label, 1), size)
    n = 1
    for label, size in sizes.items():
        if label not in out:
            n *= size
    return n


def round_bf16(x):
    """float64 -> nearest-even bfloat16, as float64 (any shape, 0-d too)."""
    shape = np.shape(x)
    b = np.atleast_1d(np.asarray(x, dtype=np.float32)).view(np.uint32)
    b = b.astype(np.uint64)
    b = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) \
        >> np.uint64(16) << np.uint64(16)
    return b.astype(np.uint32).view(np.float32).astype(np.float64) \
        .reshape(shape)


def bf16_bits(x):
    """float64 -> bfloat16 bits (uint16)."""
    shape = np.shape(x)
    b = np.atleast_1d(np.asarray(round_bf16(x), dtype=np.float32))
    return (b.view(np.uint32) >> np.uint32(16)).astype(np.uint16) \
        .reshape(shape)


def bf16_from_bits(bits):
    """bfloat16 bits (uint16) -> float64."""
    shape = np.shape(bits)
    wide = np.atleast_1d(bits).astype(np.uint32) << np.uint32(16)
    return wide.view(np.float32).astype(np.float64).reshape(shape)

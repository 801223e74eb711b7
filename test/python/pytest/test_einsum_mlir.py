"""Tests of the einsum_mlir package against numpy.einsum (and torch's rules)."""

import os
import random
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import einsum_mlir as em  # noqa: E402
from einsum_oracle import (LETTERS, bf16_bits, bf16_from_bits,  # noqa: E402
                           numpy_equation, round_bf16)

DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64]
TOL = {np.float32: 1e-4, np.float64: 1e-10, np.float16: 2e-2}


def data(shape, dtype, rng):
    if np.dtype(dtype).kind == "i":
        return rng.integers(-4, 5, size=shape).astype(dtype)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def expected(equation, operands):
    shapes = [o.shape for o in operands]
    wide = [o.astype(np.float64) if o.dtype.kind == "f" else
            o.astype(np.int64) for o in operands]
    return np.einsum(numpy_equation(equation, shapes), *wide)


def assert_close(got, want, dtype):
    assert got.dtype == np.dtype(dtype)
    assert got.shape == np.shape(want)
    if np.dtype(dtype).kind == "i":
        np.testing.assert_array_equal(got, np.asarray(want).astype(dtype))
    else:
        scale = max(1.0, float(np.max(np.abs(want))) if np.size(want) else 1)
        np.testing.assert_allclose(got.astype(np.float64), want,
                                   atol=TOL[dtype] * scale, rtol=TOL[dtype])


# (equation, shapes): diagonals, broadcasts, ellipses, summed ellipses,
# zero-size dims, scalars, implicit outputs, several operands.
FIXED = [
    ("ii", [(4, 4)]), ("ii->i", [(4, 4)]), ("i,j->ij", [(5,), (4,)]),
    ("bij,bjk->bik", [(3, 2, 5), (3, 5, 4)]), ("...ij->...ji", [(2, 3, 4, 5)]),
    ("bn,anm,bm->ba", [(2, 5), (3, 5, 4), (2, 4)]), ("aB", [(2, 3)]),
    ("ij,jk", [(2, 3), (3, 4)]), ("...ij->ij", [(5, 2, 3)]),
    ("ij,ij->ij", [(1, 3), (2, 1)]), ("ij,jk->ik", [(2, 0), (0, 3)]),
    ("", [()]), (",->", [(), ()]), (",i->i", [(), (3,)]),
    ("iij,jk->ki", [(3, 3, 2), (2, 4)]), ("...i,...i", [(2, 1, 4), (3, 4)]),
    ("i...j,j...->...i", [(2, 3, 4), (4, 3)]), (" i j , j k -> i k ",
                                                 [(2, 3), (3, 2)]),
    ("ij,jk,kl,lm->im", [(4, 3), (3, 5), (5, 2), (2, 6)]),
    ("a,b,c,d,e,f->fedcba", [(1,), (2,), (3,), (1,), (2,), (1,)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("equation,shapes", FIXED)
def test_fixed(equation, shapes, dtype):
    rng = np.random.default_rng(abs(hash((equation, str(dtype)))) % 2**32)
    ops = [data(s, dtype, rng) for s in shapes]
    assert_close(em.einsum(equation, *ops), expected(equation, ops), dtype)


def random_case(rng):
    n = rng.choice([1, 2, 2, 3, 4])
    labels = rng.sample(LETTERS[:10] + LETTERS[26:36], rng.randint(1, 5))
    sizes = {l: rng.choice([0, 1, 2, 3, 4]) if rng.random() < 0.1 else
             rng.choice([1, 2, 3]) for l in labels}
    terms, shapes = [], []
    for _ in range(n):
        term = [rng.choice(labels) for _ in range(rng.randint(0, 3))]
        terms.append("".join(term))
        shapes.append(tuple(sizes[l] for l in term))
    eq = ",".join(terms)
    if rng.random() < 0.6:
        present = sorted(set("".join(terms)))
        eq += "->" + "".join(rng.sample(present, rng.randint(0, len(present))))
    return eq, shapes


RANDOM = [random_case(random.Random(seed)) for seed in range(140)]


@pytest.mark.parametrize("case", range(len(RANDOM)))
def test_random(case):
    equation, shapes = RANDOM[case]
    dtype = DTYPES[case % len(DTYPES)]
    rng = np.random.default_rng(case)
    ops = [data(s, dtype, rng) for s in shapes]
    assert_close(em.einsum(equation, *ops), expected(equation, ops), dtype)


def test_sublist_forms():
    rng = np.random.default_rng(0)
    a = data((3, 2, 5), np.float64, rng)
    b = data((3, 5, 4), np.float64, rng)
    want = np.einsum("bij,bjk->bik", a, b)
    np.testing.assert_allclose(
        em.einsum(a, [Ellipsis, 0, 1], b, [Ellipsis, 1, 2], [Ellipsis, 0, 2]),
        want)
    np.testing.assert_allclose(em.einsum(a, [27, 0, 1], b, [27, 1, 2],
                                         [27, 0, 2]), want)
    # Implicit output: sublist labels 0-25 are 'A'-'Z', 26-51 'a'-'z'.
    m = data((2, 3), np.float32, rng)
    assert em.einsum(m, [26, 1]).shape == (3, 2)  # 'aB' -> 'Ba'


def test_array_likes_and_strides():
    class Wrapped:
        def __init__(self, a):
            self.a = a

        def __array__(self, dtype=None):
            return self.a

    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(em.einsum("ij->ji", Wrapped(a)), a.T)
    np.testing.assert_array_equal(em.einsum("ij->ij", a[:, ::2]), a[:, ::2])
    np.testing.assert_array_equal(em.einsum("ij->j", a.T), a.sum(axis=1))
    assert em.einsum("i,i", [1, 2, 3], [4, 5, 6]) == 32


def test_scalar_result_is_0d():
    r = em.einsum("i->", np.ones(3, dtype=np.int32))
    assert isinstance(r, np.ndarray) and r.shape == () and r == 3


def test_errors_have_compiler_text():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"^einsum: operand 1: label 'j' has "
                       r"size 2, but size 3 was seen before in operand 0 "
                       r"\(column 4\)$"):
        em.einsum("ij,jk->ik", a, a)
    with pytest.raises(ValueError, match=r"invalid character '#' \(column 3\)"):
        em.einsum("ij#", a)
    with pytest.raises(ValueError, match="the equation has 2 operand terms, "
                       "but 1 operand was given"):
        em.einsum("ij,jk", a)
    with pytest.raises(ValueError, match="operand 1 has element type f64, but "
                       "operand 0 has f32"):
        em.einsum("ij,ij", a, a.astype(np.float64))
    with pytest.raises(ValueError, match="element type int8 is not supported"):
        em.einsum("i", np.zeros(3, np.int8))
    with pytest.raises(ValueError, match="52 is not a subscript"):
        em.einsum(a, [0, 52])
    with pytest.raises(ValueError, match="memory limit of 10 bytes"):
        em.einsum("ij,jk,kl->il", a, a.T, a, memory_limit=10)
    with pytest.raises(ValueError, match="unknown path strategy 'best'"):
        em.einsum("ij,jk,kl->il", a, a.T, a, path="best")


def test_compile_and_cache_reuse():
    k = em.compile("ij,jk->ik", (4, 3), (3, 5), dtype="float64")
    assert k.output_shape == (4, 5) and k.flops == 2 * 4 * 3 * 5
    a, b = np.ones((4, 3)), np.ones((3, 5))
    np.testing.assert_array_equal(k(a, b), np.full((4, 5), 3.0))
    out = np.empty((4, 5))
    assert k(a, b, out=out) is out
    assert em.compile("ij,jk->ik", (4, 3), (3, 5), dtype="float64") is k
    # Kernels compiled so far: those cached plus those dropped.
    compiled = sum(em.cache_info()[::2])
    for _ in range(3):
        em.einsum("ij,jk->ik", a, b)
    em.einsum("ij,jk->ik", np.ones((4, 3), np.float32),
              np.ones((3, 5), np.float32))
    assert sum(em.cache_info()[::2]) == compiled + 1  # only float32 is new
    with pytest.raises(ValueError, match="operand 0 has type 4x4xf64, but the "
                       "kernel expects 4x3xf64"):
        k(np.ones((4, 4)), b)
    assert "linalg.generic" in k.ir("linalg")


def test_threads_and_paths():
    rng = np.random.default_rng(5)
    ops = [data(s, np.float64, rng) for s in [(30, 8), (8, 30), (30, 8)]]
    want = np.einsum("ij,jk,kl->il", *ops)
    for threads in (1, 2):
        for path in ("optimal", "dp", "greedy", "left-to-right"):
            np.testing.assert_allclose(
                em.einsum("ij,jk,kl->il", *ops, threads=threads, path=path),
                want)


def test_path_info():
    path, info = em.einsum_path("ij,jk,kl,lm->im", (256, 8), (8, 256),
                                (256, 8), (8, 256))
    assert info.optimized_flops < info.naive_flops
    assert info.largest_intermediate_bytes == 8 * 256 * 4
    assert [s["equation"] for s in info.steps][0] == "jk,kl->jl"
    # numpy's convention: positions in the list of remaining tensors.
    assert path == ["einsum_path", (1, 2), (1, 2), (0, 1)]
    assert info.path == [(1, 2), (1, 2), (0, 1)]
    assert "Naive FLOP count" in str(info)
    assert "naive flops" in info.report  # the compiler's own report


@pytest.mark.parametrize("equation,shapes", FIXED)
def test_bfloat16_bits(equation, shapes):
    # numpy has no bfloat16: uint16 arrays carry the bit patterns.
    rng = np.random.default_rng(abs(hash(equation)) % 2**32)
    values = [round_bf16(rng.uniform(-1, 1, size=s)) for s in shapes]
    bits = [bf16_bits(v) for v in values]
    got = em.einsum(equation, *bits, dtype="bfloat16")
    assert got.dtype == np.uint16
    want = np.einsum(numpy_equation(equation, shapes), *values)
    scale = max(1.0, float(np.max(np.abs(want))) if np.size(want) else 1)
    np.testing.assert_allclose(bf16_from_bits(got), want, atol=2e-2 * scale)
    k = em.compile(equation, *[tuple(s) for s in shapes], dtype="bfloat16")
    np.testing.assert_array_equal(k(*bits), got)


#===----------------------------------------------------------------------===#
# Hardening: layouts that must be converted or refused, never misread
#===----------------------------------------------------------------------===#


def test_big_endian_operands_are_converted():
    a = np.arange(6, dtype=">i4")
    assert em.einsum("i->", a) == 15
    b = np.arange(12, dtype=">f8").reshape(3, 4)
    np.testing.assert_array_equal(em.einsum("ij->ji", b), b.T)
    k = em.compile("ij->ji", (3, 4), dtype="float64")
    np.testing.assert_array_equal(k(b), b.T)


def test_strides_that_are_not_whole_elements():
    # A structured field's view: 6-byte strides of 4-byte floats.
    s = np.zeros(4, dtype=[("a", "<i2"), ("b", "<f4")])
    s["b"] = [1, 2, 3, 4]
    assert s["b"].strides == (6,)
    assert em.einsum("i->", s["b"]) == 10
    assert em.einsum("i,i->", s["b"], s["b"]) == 30
    # Negative strides (reversed views) are read as they are.
    r = np.arange(12, dtype=np.float32).reshape(3, 4)[::-1, ::-2]
    np.testing.assert_array_equal(em.einsum("ij->ij", r), r)


def test_out_that_aliases_an_input():
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    y = np.arange(9, dtype=np.float32).reshape(3, 3) + 1
    want = x @ y
    k = em.compile("ij,jk->ik", x, y)
    assert k(x, y, out=x) is x
    np.testing.assert_array_equal(x, want)
    # A view of an input as out.
    z = np.arange(18, dtype=np.float32).reshape(2, 3, 3)
    want = z[0] @ z[1]
    k(z[0], z[1], out=z[1])
    np.testing.assert_array_equal(z[1], want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_streamed_output_at_any_alignment(dtype):
    # 8 reduction steps into an output of 8 MiB or more (34 MB here, with
    # the operands over 32 MiB): each block of the output is computed on the
    # stack and streamed to `out` in whole 64-byte lines. An `out` that does
    # not start on a line (numpy's own arrays are 16-byte aligned) takes its
    # first elements one at a time.
    rng = np.random.default_rng(5)
    item = np.dtype(dtype).itemsize
    h = 10800 // item
    a = data((h, 7, 8, 8), dtype, rng)
    b = data((7, h, 8, 8), dtype, rng)
    want = expected("hsaw,lhnw->hnasl", [a, b])
    k = em.compile("hsaw,lhnw->hnasl", a, b)
    assert "nontemporal" in k.ir("llvm-ir")
    for shift in (0, 1, 3, 64 // item - 1):
        raw = np.empty(want.size + 2 * 64 // item, dtype=dtype)
        start = (-raw.ctypes.data % 64) // item + shift
        out = raw[start:start + want.size].reshape(want.shape)
        assert out.ctypes.data % 64 == shift * item
        assert k(a, b, out=out) is out
        if np.dtype(dtype).kind == "f":
            np.testing.assert_allclose(out, want, rtol=TOL[dtype],
                                       atol=TOL[dtype])
        else:
            np.testing.assert_array_equal(out, want.astype(dtype))


def test_out_that_cannot_be_written():
    k = em.compile("ij->ji", (2, 3), dtype="float32")
    x = np.ones((2, 3), np.float32)
    ro = np.zeros((3, 2), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        k(x, out=ro)
    assert not ro.any()
    with pytest.raises(TypeError, match="out must be a numpy array or a "
                                        "torch tensor, not list"):
        k(x, out=[0] * 6)
    with pytest.raises(ValueError, match="out must be a C-contiguous 3x2xf32"):
        k(x, out=np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("sublist", [[-1], [52], [2**64 + 1], [1.0], ["i"],
                                     [True]])
def test_sublist_entries_outside_the_labels(sublist):
    with pytest.raises(ValueError, match="is not a subscript"):
        em.einsum(np.ones(3), sublist)


def test_whitespace_other_than_space_is_refused():
    for equation in ["i\tj", "ij\n->j", "i\rj"]:
        with pytest.raises(ValueError, match="invalid character"):
            em.einsum(equation, np.ones((2, 2)))


@pytest.mark.parametrize("kwargs,error", [
    (dict(threads=-1), ValueError), (dict(threads=2**40), ValueError),
    (dict(threads=1.5), TypeError), (dict(memory_limit=-1), ValueError),
    (dict(memory_limit=2**64), ValueError), (dict(path=3), TypeError),
])
def test_options_out_of_range_are_refused(kwargs, error):
    with pytest.raises(error, match="einsum: "):
        em.einsum("ij->j", np.ones((2, 2)), **kwargs)


def test_none_options_are_the_defaults():
    x = np.ones((2, 2))
    np.testing.assert_array_equal(
        em.einsum("ij->j", x, path=None, target=None, threads=None,
                  memory_limit=None, minimize=None), [2, 2])


@pytest.mark.parametrize("shape", [(2**64 + 3, 2), (-2**63, 2), (-1, 2)])
def test_shapes_out_of_range_are_refused(shape):
    with pytest.raises(ValueError, match="is not a dimension size"):
        em.compile("ij->ji", shape, dtype="float32")


def test_results_that_cannot_be_allocated():
    big = 2**40
    a = np.empty((big, 0), np.float32)
    with pytest.raises(ValueError, match="cannot be allocated"):
        em.einsum("ij,jk->ik", a, a.T)


def test_empty_iteration_space_needs_no_intermediate():
    # A path would sum k out of ijk first: a 160 GB intermediate.
    n = 200000
    got = em.einsum("i,j,ijk->", np.ones(n, np.float32),
                    np.ones(n, np.float32), np.empty((n, n, 0), np.float32))
    assert got == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16,
                                   np.int32])
@pytest.mark.parametrize("equation,shape", [
    ("ij->ji", (37, 21)), ("abcd->dbca", (3, 5, 7, 9)),
    ("ijk->kji", (8, 33, 19)), ("ii->i", (6, 6)), ("ij->ij", (4, 5))])
def test_copies_are_exact(equation, shape, dtype):
    # Without a summed label every element is one term, copied as it is
    # (torch returns a view): negative zeros stay negative, infinities and
    # every bit of the values are kept (no 0 + x).
    rng = np.random.default_rng(5)
    a = data(shape, dtype, rng)
    if np.dtype(dtype).kind == "f":
        flat = a.reshape(-1)
        flat[::3] = -0.0
        flat[1::7] = np.inf
        flat[2::11] = -np.inf
    for threads in (1, 2):
        got = em.einsum(equation, a, threads=threads)
        want = np.einsum(equation, a)
        assert got.tobytes() == np.ascontiguousarray(want).tobytes()


def test_kernel_cache_is_bounded():
    em.set_cache_capacity(4)
    try:
        before = em.cache_info().evictions
        for n in range(1, 11):
            em.einsum("ij->ji", np.ones((n, 7), np.float32))
        info = em.cache_info()
        assert info.kernels <= 4 and info.capacity == 4
        assert info.evictions >= before + 6
        # An evicted shape compiles again and still computes.
        np.testing.assert_array_equal(
            em.einsum("ij->ji", np.ones((1, 7), np.float32)), np.ones((7, 1)))
    finally:
        em.set_cache_capacity(128)


def _log_semiring(equation, a, b):
    """log-sum-exp of sums over the summed label, numpy in float64."""
    terms = a[:, :, None].astype(np.float64) + b[None, :, :]
    m = terms.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(terms - m).sum(axis=1, keepdims=True)))[:, 0]


@pytest.mark.parametrize("semiring", ["log", "max", "min", "max_times",
                                      "bool"])
def test_semiring(semiring):
    rng = np.random.default_rng(7)
    if semiring == "bool":
        a = rng.integers(0, 2, (5, 6)).astype(np.int32)
        b = rng.integers(0, 2, (6, 4)).astype(np.int32)
    else:
        a = rng.uniform(-3, 0, (5, 6)).astype(np.float32)
        b = rng.uniform(-3, 0, (6, 4)).astype(np.float32)
    got = em.einsum("ij,jk->ik", a, b, semiring=semiring)
    wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
    want = {
        "log": lambda: _log_semiring("ij,jk->ik", wide_a, wide_b),
        "max": lambda: (wide_a[:, :, None] + wide_b[None]).max(axis=1),
        "min": lambda: (wide_a[:, :, None] + wide_b[None]).min(axis=1),
        "max_times": lambda: (wide_a[:, :, None] * wide_b[None]).max(axis=1),
        "bool": lambda: ((wide_a @ wide_b) > 0).astype(np.float64),
    }[semiring]()
    assert got.dtype == a.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_semiring_errors():
    a = np.ones((2, 3), np.int32)
    with pytest.raises(ValueError, match="the log semiring needs "
                       "floating-point operands, not i32"):
        em.einsum("ij->i", a, semiring="log")
    with pytest.raises(ValueError, match="unknown semiring 'tropical'"):
        em.einsum("ij->i", a.astype(np.float32), semiring="tropical")

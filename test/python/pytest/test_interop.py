"""The Python surface against numpy.einsum, numpy.einsum_path, opt_einsum's
API and torch.einsum: call forms, out=, optimize=, paths, DLPack, torch in
and out, errors."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import einsum_mlir as em  # noqa: E402

RNG = np.random.default_rng(17)


def rand(*shape, dtype=np.float64):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


CHAIN = ("ij,jk,kl->il", [(4, 5), (5, 6), (6, 3)])
EQUATIONS = [
    ("ij,jk->ik", [(4, 5), (5, 6)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("...ij->...ji", [(2, 3, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    CHAIN,
    ("ab,bc,cd,de->ae", [(3, 4), (4, 2), (2, 5), (5, 3)]),
]


def test_version():
    major, minor, patch = em.__version__.split(".")
    assert int(major) >= 0 and int(minor) >= 0 and int(patch) >= 0


#===----------------------------------------------------------------------===#
# numpy: out=, optimize=, einsum_path
#===----------------------------------------------------------------------===#


@pytest.mark.parametrize("equation,shapes", EQUATIONS)
def test_out(equation, shapes):
    ops = [rand(*s) for s in shapes]
    want = np.einsum(equation, *ops)
    out = np.empty(np.shape(want))
    assert em.einsum(equation, *ops, out=out) is out
    np.testing.assert_allclose(out, want, atol=1e-12)


def test_out_aliasing_an_input_as_numpy_does():
    x = rand(5, 5)
    want = np.einsum("ij,jk->ik", x, x)
    em.einsum("ij,jk->ik", x, x, out=x)
    np.testing.assert_allclose(x, want, atol=1e-12)


def test_out_that_is_a_strided_view():
    big = np.zeros((6, 10))
    a, b = rand(6, 4), rand(4, 5)
    em.einsum("ij,jk->ik", a, b, out=big[:, ::2])
    np.testing.assert_allclose(big[:, ::2], a @ b, atol=1e-12)
    assert not big[:, 1::2].any()


@pytest.mark.parametrize("bad,error", [
    (np.empty((4, 7)), ValueError), (np.empty((4, 6), np.float32), ValueError),
    ([[0.0] * 6] * 4, TypeError)])
def test_out_refused(bad, error):
    with pytest.raises(error, match="einsum: out"):
        em.einsum("ij,jk->ik", rand(4, 5), rand(5, 6), out=bad)


@pytest.mark.parametrize("optimize", [False, True, "greedy", "optimal",
                                      [(1, 2), (0, 1)],
                                      ["einsum_path", (0, 1), (0, 1)],
                                      [(0, 1, 2)]])
def test_optimize(optimize):
    equation, shapes = CHAIN
    ops = [rand(*s) for s in shapes]
    np.testing.assert_allclose(em.einsum(equation, *ops, optimize=optimize),
                               np.einsum(equation, *ops), atol=1e-12)


@pytest.mark.parametrize("optimize,match", [
    ([(0, 5)], "step 0 names tensor 5, but there are 3"),
    ([(0, 1)], "leaves 2 tensors"), ([(0, 0), (0, 1)], "twice"),
    ("fastest", "unknown optimize"), ([("a", 1)], "step 0 is")])
def test_optimize_refused(optimize, match):
    equation, shapes = CHAIN
    with pytest.raises(ValueError, match=match):
        em.einsum(equation, *[rand(*s) for s in shapes], optimize=optimize)


def test_path_and_optimize_together_refused():
    with pytest.raises(TypeError, match="not both"):
        em.einsum("ij->j", rand(2, 2), path="greedy", optimize=True)


@pytest.mark.parametrize("equation,shapes", EQUATIONS)
def test_einsum_path_is_numpys_form(equation, shapes):
    ops = [rand(*s) for s in shapes]
    path, info = em.einsum_path(equation, *ops)
    assert path[0] == "einsum_path"
    # numpy takes the path as it is, and computes the same result.
    np.testing.assert_allclose(np.einsum(equation, *ops, optimize=path),
                               np.einsum(equation, *ops), atol=1e-12)
    assert "Complete contraction" in str(info)
    assert info.opt_cost <= info.naive_cost


def test_einsum_path_matches_numpys_optimal_path():
    equation, shapes = CHAIN
    ops = [rand(*s) for s in shapes]
    path, _ = em.einsum_path(equation, *ops)
    assert path == np.einsum_path(equation, *ops, optimize="optimal")[0]
    assert path == ["einsum_path", (1, 2), (0, 1)]


def test_einsum_path_of_shapes():
    path, info = em.einsum_path("ij,jk,kl,lm->im", (256, 8), (8, 256),
                                (256, 8), (8, 256))
    assert path == ["einsum_path", (1, 2), (1, 2), (0, 1)]
    assert info.largest_intermediate_bytes == 8 * 256 * 4
    assert info.steps[0]["equation"] == "jk,kl->jl"


#===----------------------------------------------------------------------===#
# opt_einsum: contract, contract_path, contract_expression, PathInfo
#===----------------------------------------------------------------------===#


def test_contract_and_contract_path():
    equation, shapes = CHAIN
    ops = [rand(*s) for s in shapes]
    np.testing.assert_allclose(em.contract(equation, *ops),
                               np.einsum(equation, *ops), atol=1e-12)
    path, info = em.contract_path(equation, *ops)
    assert path == [(1, 2), (0, 1)]
    assert info.eq == "ij,jk,kl->il"
    assert info.input_subscripts == "ij,jk,kl"
    assert info.output_subscript == "il"
    assert info.size_list == [5 * 3, 4 * 3]
    assert info.largest_intermediate == 15
    assert info.size_dict == {"i": 4, "j": 5, "k": 6, "l": 3}
    assert [c[2] for c in info.contraction_list] == ["jk,kl->jl",
                                                     "ij,jl->il"]
    assert info.opt_cost == 2 * (5 * 6 * 3 + 4 * 5 * 3)
    shapes_path, _ = em.contract_path(equation, *shapes, shapes=True)
    assert shapes_path == path


def test_contract_memory_limit_in_elements():
    a, b, c = rand(30, 2), rand(2, 30), rand(30, 2)
    # 'max_input' (60 elements) keeps 30 x 30 intermediates out.
    path, info = em.contract_path("ij,jk,kl->il", a, b, c,
                                  memory_limit="max_input")
    assert info.largest_intermediate <= 60
    np.testing.assert_allclose(
        em.contract("ij,jk,kl->il", a, b, c, memory_limit="max_input"),
        a @ b @ c, atol=1e-12)
    with pytest.raises(ValueError, match="memory limit"):
        em.contract("ij,jk,kl->il", a, b, c, memory_limit=1)
    with pytest.raises(ValueError, match="memory_limit='most'"):
        em.contract("ij,jk,kl->il", a, b, c, memory_limit="most")


def test_contract_expression():
    expr = em.contract_expression("ij,jk->ik", (None, 5), (5, 6),
                                  dtype="float64")
    b = rand(5, 6)
    for rows in (1, 4, 9):
        a = rand(rows, 5)
        np.testing.assert_allclose(expr(a, b), a @ b, atol=1e-12)
    out = np.empty((4, 6))
    a = rand(4, 5)
    assert expr(a, b, out=out) is out
    with pytest.raises(ValueError, match="operand 1 has shape"):
        expr(a, rand(4, 6))
    with pytest.raises(ValueError, match="takes 2 operands"):
        expr(a)


def test_unknown_keywords_name_themselves():
    for function in (em.einsum, em.contract):
        with pytest.raises(TypeError, match="unexpected keyword argument "
                                            "'casting'"):
            function("ij->j", rand(2, 2), casting="safe")
    with pytest.raises(TypeError, match="'order'"):
        em.einsum_path("ij->j", rand(2, 2), order="C")


#===----------------------------------------------------------------------===#
# torch and DLPack
#===----------------------------------------------------------------------===#


class DLPackOnly:
    """An object that only speaks DLPack."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_operands():
    a, b = rand(3, 4), rand(4, 2)
    got = em.einsum("ij,jk->ik", DLPackOnly(a), DLPackOnly(b))
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, a @ b, atol=1e-12)
    # The result round trips through DLPack without a copy.
    back = np.from_dlpack(got)
    assert np.shares_memory(back, got)


torch = pytest.importorskip("torch")

TORCH_TYPES = [torch.float32, torch.float64, torch.int32, torch.int64,
               torch.float16, torch.bfloat16]


def torch_data(shape, dtype):
    if dtype in (torch.int32, torch.int64):
        return torch.randint(-4, 5, shape, dtype=dtype)
    return torch.rand(shape, dtype=torch.float64).mul(2).sub(1).to(dtype)


@pytest.mark.parametrize("dtype", TORCH_TYPES)
@pytest.mark.parametrize("equation,shapes", EQUATIONS)
def test_torch_in_torch_out(equation, shapes, dtype):
    ops = [torch_data(s, dtype) for s in shapes]
    got = em.einsum(equation, *ops)
    assert isinstance(got, torch.Tensor) and got.dtype == dtype
    want = torch.einsum(equation, *[o.double() for o in ops])
    tol = {torch.float16: 3e-2, torch.bfloat16: 8e-2}.get(dtype, 1e-5)
    scale = max(1.0, float(want.abs().max()) if want.numel() else 1.0)
    assert got.shape == want.shape
    assert torch.allclose(got.double(), want, atol=tol * scale, rtol=tol)


def test_torch_results_share_memory_and_views_read_in_place():
    a = torch.rand(6, 8)
    view = a[:, ::2]  # strided, read without a copy through DLPack
    got = em.einsum("ij->ji", view)
    assert torch.equal(got, view.t())
    # The result is torch.from_numpy of the kernel's output: one buffer.
    assert got.is_contiguous()


def test_torch_out_and_aliasing():
    a, b = torch.rand(4, 5), torch.rand(5, 6)
    out = torch.empty(4, 6)
    assert em.einsum("ij,jk->ik", a, b, out=out) is out
    assert torch.allclose(out, a @ b, atol=1e-6)
    x = torch.rand(5, 5)
    want = x @ x
    em.einsum("ij,jk->ik", x, x, out=x)
    assert torch.allclose(x, want, atol=1e-6)


def test_torch_requires_grad_is_a_clear_error():
    a = torch.rand(2, 3, requires_grad=True)
    with pytest.raises(ValueError, match="operand 0 requires grad"):
        em.einsum("ij->j", a)
    assert torch.allclose(em.einsum("ij->j", a.detach()), a.detach().sum(0))


def test_torch_kernels_and_expressions():
    a, b = torch.rand(3, 4), torch.rand(4, 5)
    k = em.compile("ij,jk->ik", a, b)
    assert isinstance(k(a, b), torch.Tensor)
    expr = em.contract_expression("ij,jk->ik", (None, 4), (4, 5))
    assert torch.allclose(expr(a, b), a @ b, atol=1e-6)

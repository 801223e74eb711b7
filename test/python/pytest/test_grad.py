"""einsum_mlir.grad against torch.autograd (python3-torch)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import einsum_mlir as em  # noqa: E402

torch = pytest.importorskip("torch")


def torch_grads(equation, operands, grad_output, wrt):
    tensors = [torch.from_numpy(o.copy()).requires_grad_() for o in operands]
    result = torch.einsum(equation, *tensors)
    g = (torch.ones_like(result) if grad_output is None
         else torch.from_numpy(grad_output))
    result.backward(g)
    return [tensors[i].grad.numpy() for i in wrt]


@pytest.mark.parametrize("equation,shapes", [
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("iij,jk->k", [(3, 3, 2), (1, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (3, 4, 2)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ij,jk->ik", [(0, 3), (3, 2)]),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad_matches_autograd(equation, shapes, dtype):
    rng = np.random.default_rng(1)
    ops = [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]
    wrt = tuple(range(len(ops)))
    result_shape = torch.einsum(equation,
                                *[torch.from_numpy(o) for o in ops]).shape
    g = rng.uniform(-1, 1, tuple(result_shape)).astype(dtype)
    got = em.grad(equation, *ops, wrt=wrt, grad_output=g)
    want = torch_grads(equation, ops, g, wrt)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_default_grad_output_is_ones_and_single_wrt():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    b = np.arange(12, dtype=np.float64).reshape(3, 4)
    got = em.grad("ij,jk->ik", a, b, wrt=1)
    np.testing.assert_allclose(got, torch_grads("ij,jk->ik", [a, b], None,
                                                [1])[0])


def test_torch_in_torch_out_and_sublists():
    a = torch.rand(3, 4, dtype=torch.float64)
    b = torch.rand(4, 2, dtype=torch.float64)
    ga = em.grad(a, [0, 1], b, [1, 2], [0, 2], wrt=0)
    assert isinstance(ga, torch.Tensor)
    np.testing.assert_allclose(ga.numpy(), torch_grads(
        "ij,jk->ik", [a.numpy(), b.numpy()], None, [0])[0])


def test_log_semiring_gradient_is_softmax_marginals():
    rng = np.random.default_rng(2)
    a = rng.uniform(-3, 0, (5, 6))
    b = rng.uniform(-3, 0, (6, 4))
    g = rng.uniform(-1, 1, (5, 4))
    ga = em.grad("ij,jk->ik", a, b, wrt=0, grad_output=g, semiring="log")
    ta = torch.from_numpy(a).requires_grad_()
    tb = torch.from_numpy(b)
    (ta[:, :, None] + tb[None]).logsumexp(1).backward(torch.from_numpy(g))
    np.testing.assert_allclose(ga, ta.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_grad_errors():
    a = np.ones((2, 3), np.float32)
    b = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="wrt=2: the einsum has 2 operands"):
        em.grad("ij,jk->ik", a, b, wrt=2)
    with pytest.raises(ValueError, match="grad_output is a 3x3xf32 array, "
                                         "but the einsum's result is "
                                         "2x4xf32"):
        em.grad("ij,jk->ik", a, b, grad_output=np.ones((3, 3), np.float32))
    with pytest.raises(ValueError, match="gradients need floating-point "
                                         "operands, not i32"):
        em.grad("ij->i", np.ones((2, 3), np.int32))
    with pytest.raises(TypeError, match="unexpected keyword argument 'wrtt'"):
        em.grad("ij->i", a, wrtt=0)

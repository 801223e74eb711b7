"""Operands from numpy, torch and DLPack, and results back in kind.

numpy arrays (and anything numpy.asarray takes) come in as they are; torch
tensors and other objects with __dlpack__ come in without a copy through
DLPack (numpy.from_dlpack). When any operand is a torch tensor, the result
is a torch tensor too (torch.from_numpy: no copy), as torch.einsum returns.
torch is only imported when a torch tensor is seen.
"""

import numpy as np

# numpy has no bfloat16: torch bfloat16 tensors travel as their uint16 bits.
BF16 = "bfloat16"


def _is_torch(obj):
    return type(obj).__module__.split(".")[0] == "torch"


class Operands:
    """The numpy views of a call's operands, and how to return its result."""

    def __init__(self, operands):
        self.torch = None
        self.bf16 = False
        self.arrays = []
        for i, op in enumerate(operands):
            self.arrays.append(self._array(op, i))

    def _array(self, op, index):
        if type(op) is np.ndarray:
            return op
        if _is_torch(op):
            import torch
            self.torch = torch
            if op.requires_grad:
                raise ValueError(
                    "einsum: operand %d requires grad: einsum_mlir does not "
                    "compute gradients through torch.autograd; pass "
                    "tensor.detach(), and einsum_mlir.grad(...) for the "
                    "gradients" % index)
            if op.device.type != "cpu":
                raise ValueError("einsum: operand %d is on %s; einsum_mlir "
                                 "runs on CPU tensors (target='cpu')"
                                 % (index, op.device))
            if op.dtype == torch.bfloat16:
                self.bf16 = True
                op = op.view(torch.int16)
                return np.from_dlpack(op).view(np.uint16)
            if op.is_conj() or op.is_neg():
                op = op.resolve_conj().resolve_neg()
            return np.from_dlpack(op)
        if hasattr(op, "__dlpack__") and not isinstance(op, np.generic):
            try:
                return np.from_dlpack(op)
            except (TypeError, BufferError, RuntimeError) as e:
                raise ValueError("einsum: operand %d: its DLPack capsule "
                                 "cannot be read (%s)" % (index, e)) from None
        try:
            return np.asarray(op)
        except Exception as e:
            raise TypeError("einsum: operand %d: %s is not an array (%s)"
                            % (index, type(op).__name__, e)) from None

    def result(self, array):
        """`array` as the caller expects it: a torch tensor when an operand
        was one (bfloat16 bits become a bfloat16 tensor again)."""
        if self.torch is None:
            return array
        torch = self.torch
        # (ascontiguousarray would make a 0-d result 1-d.)
        if not array.flags.c_contiguous:
            array = array.copy()
        if self.bf16:
            # torch has no uint16: the bits travel as int16.
            return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(array)

    def out_array(self, out):
        """The numpy view of an `out=` argument (numpy or torch)."""
        if out is None or type(out) is np.ndarray:
            return out
        if _is_torch(out):
            import torch
            if out.requires_grad:
                raise ValueError("einsum: out requires grad")
            # Tensor.numpy() is writable (numpy.from_dlpack's views are
            # not), and shares the tensor's memory as well.
            if out.device.type != "cpu":
                raise ValueError("einsum: out is on %s; einsum_mlir writes "
                                 "CPU tensors" % out.device)
            if out.dtype == torch.bfloat16:
                return out.view(torch.int16).numpy().view(np.uint16)
            return out.numpy()
        raise TypeError("einsum: out must be a numpy array or a torch "
                        "tensor, not %s" % type(out).__name__)

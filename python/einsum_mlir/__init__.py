"""einsum-mlir: torch.einsum compiled with MLIR, for numpy arrays and torch
tensors, with numpy's and opt_einsum's calling conventions.

    import numpy as np, einsum_mlir
    a, b = np.ones((8, 4)), np.ones((4, 3))
    c = einsum_mlir.einsum("ij,jk->ik", a, b)            # like torch.einsum
    c = einsum_mlir.einsum(a, [0, 1], b, [1, 2], [0, 2])  # sublist form
    k = einsum_mlir.compile("ij,jk->ik", (8, 4), (4, 3), dtype="float64")
    c = k(a, b)                                           # reusable kernel
    path, info = einsum_mlir.einsum_path("ij,jk->ik", a, b)  # numpy's form
    c = einsum_mlir.contract("ij,jk->ik", a, b)           # opt_einsum's form

Kernels are compiled once per (equation, shapes, dtype, options) and kept in
a process-wide cache of bounded size. Errors raise ValueError (or TypeError
for arguments of the wrong kind) with the compiler's diagnostic.
"""

import collections
import ctypes
import json as _json
import os
import threading
import time

import numpy as np

from . import _capi, _light
from ._interop import Operands
from ._paths import PathInfo, from_optimize

__all__ = ["einsum", "grad", "compile", "einsum_path", "contract", "contract_path",
           "contract_expression", "ContractExpression", "Kernel", "PathInfo",
           "cache_info", "set_cache_capacity", "CacheInfo", "__version__"]

# libEinsumRuntime's version (the C API's, loaded on first compile, is the
# same build's).
__version__ = _light.runtime().einsumRuntimeVersion().decode()

_TYPES = {"float32": 0, "float64": 1, "float16": 2, "bfloat16": 3,
          "int32": 4, "int64": 5}
_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16",
          "bfloat16": "bf16", "int32": "i32", "int64": "i64"}
_ELLIPSIS = -1
_lock = threading.Lock()
_engine = None
_kernels = {}


def _get_engine():
    global _engine
    if _engine is None:
        with _lock:
            if _engine is None:
                handle = ctypes.c_void_p()
                error = ctypes.c_void_p()
                _capi.check(_capi.lib.einsumEngineCreate(
                    ctypes.byref(handle), ctypes.byref(error)), error)
                # Kernels it compiles are kept on disk as shared libraries
                # too, for _light in later processes.
                _capi.lib.einsumEngineKeepSharedObjects(handle, 1)
                _engine = handle
    return _engine


def _storage_dtype(name):
    """The numpy dtype that holds elements of `name`. numpy has no bfloat16:
    without a dtype of that name (ml_dtypes), bf16 arrays are uint16 arrays
    of bfloat16 bit patterns."""
    if name == "bfloat16":
        try:
            return np.dtype("bfloat16")
        except TypeError:
            return np.dtype(np.uint16)
    return np.dtype(name)


def _dtype_name(dtype):
    if isinstance(dtype, str) and dtype == "bfloat16":
        return dtype
    name = np.dtype(dtype).name
    if name not in _TYPES:
        raise ValueError(
            "einsum: element type %s is not supported (supported: float32, "
            "float64, float16, bfloat16, int32, int64)" % name)
    return name


def _sublists_to_equation(sublists, output):
    lengths = (ctypes.c_int * len(sublists))(*[len(s) for s in sublists])
    arrays = [(ctypes.c_int64 * max(len(s), 1))(
        *[_sublist_value(v, i, k) for k, v in enumerate(s)])
        for i, s in enumerate(sublists)]
    pointers = (_capi._I64P * len(sublists))(
        *[ctypes.cast(a, _capi._I64P) for a in arrays])
    if output is None:
        out_len, out_arr = -1, None
    else:
        out_len = len(output)
        out_arr = ctypes.cast((ctypes.c_int64 * max(out_len, 1))(
            *[_sublist_value(v, -1, k) for k, v in enumerate(output)]),
            _capi._I64P)
    equation = ctypes.c_void_p()
    error = ctypes.c_void_p()
    _capi.check(_capi.lib.einsumSublistsToEquation(
        len(sublists), lengths, pointers, out_len, out_arr,
        ctypes.byref(equation), ctypes.byref(error)), error)
    return _capi.take_string(equation.value)


def _sublist_value(v, operand, position):
    if v is Ellipsis or (isinstance(v, str) and v == "..."):
        return _ELLIPSIS
    # E1: integers in [0, 52) only; -1 is not the ellipsis, and an integer
    # that does not fit 64 bits is not wrapped.
    if (isinstance(v, (bool, np.bool_)) or
            not isinstance(v, (int, np.integer)) or not 0 <= int(v) < 52):
        where = ("the output sublist" if operand < 0 else
                 "the sublist of operand %d" % operand)
        raise ValueError("einsum: %s: %r is not a subscript (position %d); "
                         "subscripts are integers in [0, 52) or Ellipsis"
                         % (where, v, position))
    return int(v)


def _split_args(args):
    """torch.einsum's two call forms -> (equation, operands)."""
    if not args:
        raise ValueError("einsum(): must provide an equation or operands")
    if isinstance(args[0], str):
        return args[0], list(args[1:])
    operands, sublists = [], []
    rest = list(args)
    while len(rest) >= 2:
        operands.append(rest.pop(0))
        sublists.append(list(rest.pop(0)))
    output = list(rest.pop(0)) if rest else None
    return _sublists_to_equation(sublists, output), operands


_UINT64_MAX = (1 << 64) - 1


def _option_int(name, value, low, high):
    """An integer option in [low, high]: None is 0; anything else (a bool,
    a float, a number out of range) is refused rather than wrapped."""
    if value is None:
        return 0
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, np.integer)):
        raise TypeError("einsum: %s must be an integer, not %s"
                        % (name, type(value).__name__))
    if not low <= int(value) <= high:
        raise ValueError("einsum: %s=%d is out of range [%d, %d]"
                         % (name, value, low, high))
    return int(value)


def _option_str(name, value, default):
    if value is None:
        return default
    if not isinstance(value, str):
        raise TypeError("einsum: %s must be a string, not %s"
                        % (name, type(value).__name__))
    return value


class _Options:
    __slots__ = ("target", "threads", "path", "memory_limit", "minimize",
                 "semiring", "key", "struct")

    def __init__(self, target="cpu", threads=None, path="auto",
                 memory_limit=0, minimize="flops", semiring="plus_times"):
        self.target = _option_str("target", target, "cpu")
        self.threads = _option_int("threads", threads, 0, _max_threads())
        if isinstance(path, (list, tuple)):
            path = from_optimize(path)
        self.path = _option_str("path", path, "auto")
        self.memory_limit = _option_int("memory_limit", memory_limit, 0,
                                        _UINT64_MAX)
        self.minimize = _option_str("minimize", minimize, "flops")
        self.semiring = _option_str("semiring", semiring, "plus_times")
        self.key = (self.target, self.threads, self.path, self.memory_limit,
                    self.minimize, self.semiring)
        s = _capi.Options()
        s.target = self.target.encode()
        s.threads = self.threads
        s.pathStrategy = self.path.encode()
        s.memoryLimit = self.memory_limit
        s.minimize = self.minimize.encode()
        s.semiring = self.semiring.encode()
        self.struct = s


def _max_threads():
    return max(256, os.cpu_count() or 1)


_INT64_MAX = (1 << 63) - 1


def _check_shape(shape, operand):
    """A shape tuple of sizes in [0, 2^63): refused, not wrapped."""
    for d in shape:
        if (isinstance(d, (bool, np.bool_)) or
                not isinstance(d, (int, np.integer)) or
                not 0 <= int(d) <= _INT64_MAX):
            raise ValueError("einsum: operand %d: %r is not a dimension size "
                             "(sizes are integers in [0, 2^63))"
                             % (operand, d))
    return tuple(int(d) for d in shape)


def _shape_args(shapes):
    n = len(shapes)
    ranks = (ctypes.c_int * max(n, 1))(*[len(s) for s in shapes])
    arrays = [(ctypes.c_int64 * max(len(s), 1))(*s) for s in shapes]
    pointers = (_capi._I64P * max(n, 1))(
        *[ctypes.cast(a, _capi._I64P) for a in arrays])
    return ranks, pointers, arrays


class Kernel:
    """A compiled einsum for fixed shapes and dtype; call it on arrays."""

    def __init__(self, equation, shapes, dtype, options, wrt=None):
        self.equation = equation
        self.input_shapes = tuple(tuple(s) for s in shapes)
        if wrt is not None:
            self._init_gradient(shapes, dtype, options, wrt)
            return
        self.dtype = _storage_dtype(dtype)
        self._options = options
        self._type = _TYPES[dtype]
        n = len(shapes)
        self._n = n
        self._ptrs = ctypes.c_void_p * max(n, 1)
        self._strides = _capi._I64P * max(n, 1)
        self._handle = None
        # The kernel from the disk cache, without loading the compiler
        # (libMLIR, libLLVM) where it is there.
        self._cached = None
        start = time.perf_counter()
        self._cached = _light.lookup(equation, _SHORT[dtype], options,
                                     self.input_shapes, _capi.library_path())
        if self._cached is not None:
            self.output_shape = self._cached.output_shape
            self.flops = self._cached.flops
            self.compile_seconds = time.perf_counter() - start
            return
        ranks, pointers, _keep = _shape_args(self.input_shapes)
        handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        _capi.check(_capi.lib.einsumCompile(
            _get_engine(), equation.encode(), len(shapes), ranks, pointers,
            self._type, ctypes.byref(options.struct), ctypes.byref(handle),
            ctypes.byref(error)), error)
        self._handle = handle
        rank = _capi.lib.einsumKernelOutputRank(handle)
        shape = _capi.lib.einsumKernelOutputShape(handle)
        self.output_shape = tuple(shape[i] for i in range(rank))
        self.flops = _capi.lib.einsumKernelFlops(handle)
        self.compile_seconds = _capi.lib.einsumKernelCompileSeconds(handle)

    def _init_gradient(self, shapes, dtype, options, wrt):
        """The gradient kernel of operand `wrt` (einsumCompileGrad): the
        operands and the output gradient in, the gradient out."""
        self.dtype = _storage_dtype(dtype)
        self._options = options
        self._type = _TYPES[dtype]
        self._cached = None
        ranks, pointers, _keep = _shape_args(self.input_shapes)
        handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        _capi.check(_capi.lib.einsumCompileGrad(
            _get_engine(), self.equation.encode(), len(shapes), ranks,
            pointers, self._type, ctypes.byref(options.struct), wrt,
            ctypes.byref(handle), ctypes.byref(error)), error)
        self._handle = handle
        n = _capi.lib.einsumKernelNumOperands(handle)

        def shape_of(i):
            rank = _capi.lib.einsumKernelOperandRank(handle, i)
            data = _capi.lib.einsumKernelOperandShape(handle, i)
            return tuple(data[j] for j in range(rank))
        self.input_shapes = tuple(shape_of(i) for i in range(n))
        self._n = n
        self._ptrs = ctypes.c_void_p * n
        self._strides = _capi._I64P * n
        rank = _capi.lib.einsumKernelOutputRank(handle)
        shape = _capi.lib.einsumKernelOutputShape(handle)
        self.output_shape = tuple(shape[i] for i in range(rank))
        self.flops = _capi.lib.einsumKernelFlops(handle)
        self.compile_seconds = _capi.lib.einsumKernelCompileSeconds(handle)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _capi is not None and _capi.loaded():
            _capi.lib.einsumKernelDestroy(handle)

    def __call__(self, *operands, out=None):
        if len(operands) != self._n:
            raise ValueError("einsum: the kernel takes %d operands, but %d "
                             "were given" % (self._n, len(operands)))
        converted = Operands(operands)
        arrays = converted.arrays
        for i, a in enumerate(arrays):
            if (a.dtype.newbyteorder("=") != self.dtype or
                    a.shape != self.input_shapes[i]):
                raise ValueError(
                    "einsum: operand %d has type %s, but the kernel expects "
                    "%s" % (i, _type_string(a.shape, a.dtype),
                            _type_string(self.input_shapes[i], self.dtype)))
        if out is not None:
            target = converted.out_array(out)
            _check_out(target, self.output_shape, self.dtype)
            self._run(arrays, target)
            return out
        return converted.result(self._run(arrays))

    def _new_output(self):
        try:
            return np.empty(self.output_shape, dtype=self.dtype)
        except (MemoryError, ValueError):
            raise ValueError("einsum: the result: a %s array cannot be "
                             "allocated" % _type_string(self.output_shape,
                                                        self.dtype)) from None

    def _run(self, arrays, out=None):
        """Runs on arrays of the kernel's shapes and element type (in any
        byte order and strides)."""
        arrays = [_readable(a) for a in arrays]
        if out is None:
            out = self._new_output()
        elif any(np.may_share_memory(out, a) for a in arrays):
            # The kernel reads its operands while it writes: an output that
            # overlaps one is computed apart and copied, as numpy does.
            out[...] = self._run(arrays)
            return out
        if self._cached is not None:
            # Row-major operands (the runtime refuses negative strides).
            arrays = [np.ascontiguousarray(a) for a in arrays]
            self._cached.run([a.ctypes.data or _DUMMY for a in arrays] +
                             [out.ctypes.data or _DUMMY])
            return out
        data = self._ptrs(*[a.ctypes.data or _DUMMY for a in arrays])
        strides = None
        if not all(a.flags.c_contiguous for a in arrays):
            keep = [None if a.flags.c_contiguous else
                    (ctypes.c_int64 * max(a.ndim, 1))(
                        *[s // a.itemsize for s in a.strides])
                    for a in arrays]
            strides = self._strides(*[
                ctypes.cast(k, _capi._I64P) if k is not None else None
                for k in keep])
        error = ctypes.c_void_p()
        _capi.check(_capi.lib.einsumKernelRun(
            self._handle, self._n, data, strides,
            out.ctypes.data or _DUMMY, ctypes.byref(error)), error)
        return out

    def ir(self, stage="linalg"):
        """The IR after `stage`: einsum, linalg, llvm-dialect or llvm-ir."""
        ranks, pointers, _keep = _shape_args(self.input_shapes)
        text = ctypes.c_void_p()
        error = ctypes.c_void_p()
        _capi.check(_capi.lib.einsumEmitIR(
            _get_engine(), self.equation.encode(), self._n, ranks, pointers,
            self._type, ctypes.byref(self._options.struct), stage.encode(),
            ctypes.byref(text), ctypes.byref(error)), error)
        return _capi.take_string(text.value)

    def path_info(self):
        return _explain(self.equation, self.input_shapes, self._type,
                        self._options)


def _readable(a):
    """`a` in a layout the kernels read: native byte order (a big-endian
    array is converted, never read as little-endian bytes) and strides that
    are whole elements (a structured field's view is copied)."""
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if not a.flags.c_contiguous and any(s % a.itemsize for s in a.strides):
        a = np.ascontiguousarray(a)
    return a


def _check_out(out, shape, dtype):
    """Refuses an `out` (a numpy array: Operands.out_array refuses other
    kinds) that a Kernel cannot write its result into in place."""
    if not out.flags.writeable:
        raise ValueError("einsum: out is read-only")
    if (out.shape != tuple(shape) or out.dtype != dtype or
            not out.flags.c_contiguous):
        raise ValueError("einsum: out must be a C-contiguous %s array in "
                         "native byte order, not %s%s"
                         % (_type_string(shape, dtype),
                            _type_string(out.shape, out.dtype),
                            "" if out.flags.c_contiguous else
                            " (not C-contiguous)"))


_DUMMY_BUFFER = ctypes.create_string_buffer(64)
_DUMMY = ctypes.addressof(_DUMMY_BUFFER)


def _type_string(shape, dtype):
    return "x".join([str(d) for d in shape] + [_SHORT.get(np.dtype(dtype).name,
                                                          str(dtype))])


def _explain(equation, shapes, type_code, options):
    ranks, pointers, _keep = _shape_args(shapes)
    results = []
    for as_json in (0, 1):
        text = ctypes.c_void_p()
        error = ctypes.c_void_p()
        _capi.check(_capi.lib.einsumExplain(
            _get_engine(), equation.encode(), len(shapes), ranks, pointers,
            type_code, ctypes.byref(options.struct), as_json,
            ctypes.byref(text), ctypes.byref(error)), error)
        results.append(_capi.take_string(text.value))
    width = {0: 4, 1: 8, 2: 2, 3: 2, 4: 4, 5: 8}[type_code]
    return PathInfo(results[0], _json.loads(results[1]),
                    _canonical(equation), shapes, width)


def _canonical(equation):
    """The equation with its output explicit and no spaces."""
    text = ctypes.c_void_p()
    error = ctypes.c_void_p()
    _capi.check(_capi.lib.einsumCanonicalEquation(
        equation.encode(), ctypes.byref(text), ctypes.byref(error)), error)
    return _capi.take_string(text.value)


_OPTION_NAMES = ("target", "threads", "path", "memory_limit", "minimize",
                 "semiring")


def _options(function, kwargs, optimize=None):
    """_Options from keyword arguments; an unknown keyword is a TypeError
    that names it, as Python's own are."""
    for name in kwargs:
        if name not in _OPTION_NAMES:
            raise TypeError("%s() got an unexpected keyword argument '%s'"
                            % (function, name))
    path = from_optimize(optimize)
    if path is not None:
        if kwargs.get("path") is not None:
            raise TypeError("%s(): give path= or optimize=, not both"
                            % function)
        kwargs = dict(kwargs, path=path)
    return _Options(**kwargs)


def _element_type(arrays, bits):
    """The one element type of `arrays` (None where all are shapes)."""
    dtype = None
    for i, a in enumerate(arrays):
        if a is None:
            continue
        if bits and a.dtype == np.uint16:
            name = "bfloat16"
        else:
            name = _dtype_name(a.dtype)
        if dtype is None:
            dtype = name
        elif name != dtype:
            raise ValueError(
                "einsum: operand %d has element type %s, but operand 0 has "
                "%s; all operands must have one element type"
                % (i, _SHORT[name], _SHORT[dtype]))
    return dtype


def _shapes_or_arrays(operands, allow_shapes):
    """Shapes (tuples of sizes, where allowed) and numpy arrays (None for
    shapes), and the Operands they came from."""
    shapes, arrays, rest = [], [], []
    for i, op in enumerate(operands):
        if allow_shapes and isinstance(op, (tuple, list)) and all(
                isinstance(d, (int, np.integer)) for d in op):
            shapes.append(_check_shape(op, i))
            arrays.append(None)
        else:
            rest.append(op)
            arrays.append(len(rest) - 1)
    converted = Operands(rest)
    for i, a in enumerate(arrays):
        if a is not None:
            arrays[i] = converted.arrays[a]
            shapes.insert(i, arrays[i].shape)
    return shapes, arrays, converted


class _LRU:
    """A dict of at most `capacity` entries that drops the least recently
    used one first."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.entries = collections.OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def setdefault(self, key, value):
        with self.lock:
            value = self.entries.setdefault(key, value)
            self.entries.move_to_end(key)
            while len(self.entries) > self.capacity:
                self.entries.popitem(last=False)
            return value

    def resize(self, capacity):
        with self.lock:
            self.capacity = capacity
            while len(self.entries) > capacity:
                self.entries.popitem(last=False)


# Kernels by (equation, shapes, dtype, options), and the no-options call
# path's kernels by (equation, shapes, dtypes); both as bounded as the
# engine's cache, so that a process that sees many shapes keeps a bounded
# number of compiled kernels alive.
_DEFAULT_CACHE_CAPACITY = 128
_kernels = _LRU(_DEFAULT_CACHE_CAPACITY)


def _kernel(equation, shapes, dtype, options):
    key = (equation, tuple(shapes), dtype, options.key)
    kernel = _kernels.get(key)
    if kernel is None:
        kernel = _kernels.setdefault(
            key, Kernel(equation, shapes, dtype, options))
    return kernel


def _bits_option(dtype):
    # dtype="bfloat16" reads uint16 operands as bfloat16 bit patterns.
    if dtype is not None and dtype != "bfloat16":
        raise ValueError("einsum: dtype= may only be 'bfloat16' (to read "
                         "uint16 arrays as bfloat16 bits)")
    return dtype == "bfloat16"


def _run(function, equation, operands, out, optimize, dtype, kwargs):
    """einsum/contract: compile (or find) the kernel, run it, return the
    result in the operands' kind (numpy or torch)."""
    bits = _bits_option(dtype)
    options = _options(function, kwargs, optimize)
    converted = Operands(operands)
    arrays = converted.arrays
    element = _element_type(arrays, bits or converted.bf16)
    if element is None:
        raise ValueError("einsum: no operands")
    kernel = _kernel(equation, [a.shape for a in arrays], element, options)
    if out is None:
        return converted.result(kernel._run(arrays))
    target = converted.out_array(out)
    _check_out_kind(target, kernel.output_shape, kernel.dtype)
    if target.flags.c_contiguous:
        kernel._run(arrays, target)
    else:
        target[...] = kernel._run(arrays)
    return out


def _check_out_kind(out, shape, dtype):
    """Refuses an `out` that einsum/contract cannot fill: any strides do
    (a strided one gets a copy of the result)."""
    if not out.flags.writeable:
        raise ValueError("einsum: out is read-only")
    if out.shape != tuple(shape) or out.dtype != dtype:
        raise ValueError("einsum: out must be a %s array, not %s"
                         % (_type_string(shape, dtype),
                            _type_string(out.shape, out.dtype)))


def einsum(*args, out=None, optimize=None, dtype=None, **kwargs):
    """torch.einsum (and numpy.einsum) for numpy arrays, torch tensors and
    anything with __dlpack__ or __array__: einsum(equation, *operands) or
    einsum(op0, sublist0, op1, sublist1, ..., [output_sublist]).

    out=: an array of the result's shape and type to write (numpy's out; one
    that overlaps an operand is handled as numpy does). optimize=: numpy's
    (False, True, 'greedy', 'optimal', or a path such as [(1, 2), (0, 1)] or
    ['einsum_path', (1, 2), (0, 1)]). Options: threads, path ('auto',
    'optimal', 'dp', 'greedy', 'left-to-right'), memory_limit (bytes),
    minimize ('flops', 'memory'), target, semiring ('plus_times', 'log',
    'max', 'min', 'max_times', 'bool': what is summed and multiplied with,
    #einsum.semiring), and dtype='bfloat16' to read
    uint16 operands as bfloat16 bit patterns (numpy has no bfloat16; the
    result is then uint16 bits too). torch operands give a torch result."""
    if out is None and optimize is None and dtype is None and not kwargs:
        # The hot path: numpy arrays, no options.
        equation, operands = _split_args(args)
        if all(type(o) is np.ndarray for o in operands):
            key = (equation, tuple(a.shape for a in operands),
                   tuple(a.dtype.name for a in operands))
            kernel = _fast.get(key)
            if kernel is None:
                kernel = _fast.setdefault(key, _kernel(
                    equation, [a.shape for a in operands],
                    _element_type(operands, False), _options("einsum", {})))
            # The key fixes every operand's shape and element type (dtype
            # names do not tell byte orders apart: _run converts).
            return kernel._run(operands)
    equation, operands = _split_args(args)
    return _run("einsum", equation, operands, out, optimize, dtype, kwargs)


_fast = _LRU(_DEFAULT_CACHE_CAPACITY)


def grad(*args, wrt=0, grad_output=None, optimize=None, **kwargs):
    """The vector-Jacobian product of an einsum: the gradient of
    sum(grad_output * einsum(equation, *operands)) with respect to the
    operands `wrt` names (an index, or a tuple of them; default 0), as
    torch.autograd computes it for einsum(...).backward(grad_output).
    grad_output defaults to ones (the gradient of the result's sum). With a
    tuple `wrt`, a tuple of gradients. The same forms and options as
    einsum(), including semiring= (log: softmax-weighted marginals; max and
    min: indicators of the maximal terms; max_times: those times the other
    factors). Each gradient is einsums of the output gradient and the other
    operands (einsum-grad), compiled once per shapes and options. torch
    operands give torch results."""
    equation, operands = _split_args(args)
    options = _options("grad", kwargs, optimize)
    converted = Operands(operands)
    arrays = converted.arrays
    element = _element_type(arrays, converted.bf16)
    if element is None:
        raise ValueError("einsum: no operands")
    single = isinstance(wrt, (int, np.integer))
    indices = (wrt,) if single else tuple(wrt)
    for i in indices:
        if not isinstance(i, (int, np.integer)) or not 0 <= i < len(arrays):
            raise ValueError("einsum: wrt=%r: the einsum has %d operands"
                             % (i, len(arrays)))
    shapes = [a.shape for a in arrays]
    results = []
    for i in indices:
        key = ("grad", int(i), equation, tuple(shapes), element, options.key)
        kernel = _kernels.get(key)
        if kernel is None:
            kernel = _kernels.setdefault(key, Kernel(
                equation, shapes, element, options, wrt=int(i)))
        out_shape = kernel.input_shapes[-1]
        if grad_output is None:
            g = np.ones(out_shape, dtype=kernel.dtype)
        else:
            g = Operands([grad_output]).arrays[0]
            if g.shape != out_shape or g.dtype != kernel.dtype:
                raise ValueError(
                    "einsum: grad_output is a %s array, but the einsum's "
                    "result is %s" % (_type_string(g.shape, g.dtype),
                                      _type_string(out_shape, kernel.dtype)))
        results.append(converted.result(kernel._run(list(arrays) + [g])))
    return results[0] if single else tuple(results)


def compile(*args, dtype=None, optimize=None, **kwargs):
    """A reusable Kernel. Operands are arrays, or shape tuples with dtype=.
    Accepts the same forms and options as einsum(); with dtype='bfloat16' the
    kernel takes and returns uint16 arrays of bfloat16 bits (unless numpy
    knows a bfloat16 dtype)."""
    options = _options("compile", kwargs, optimize)
    equation, operands = _split_args(args)
    shapes, arrays, converted = _shapes_or_arrays(operands, True)
    found = _element_type(arrays, dtype == "bfloat16" or converted.bf16)
    if dtype is not None:
        name = _dtype_name(dtype)
        if found is not None and found != name:
            raise ValueError("einsum: the operands have element type %s, but "
                             "dtype=%s was given" % (_SHORT[found],
                                                     _SHORT[name]))
        found = name
    if found is None:
        raise ValueError("einsum: give dtype= when all operands are shapes")
    return _kernel(equation, shapes, found, options)


def _path_info(function, args, optimize, dtype, kwargs):
    options = _options(function, kwargs, optimize)
    equation, operands = _split_args(args)
    shapes, arrays, converted = _shapes_or_arrays(operands, True)
    found = _element_type(arrays, dtype == "bfloat16" or converted.bf16)
    if dtype is not None and dtype != "bfloat16":
        found = _dtype_name(dtype)
    return _explain(equation, shapes, _TYPES[found or "float32"], options)


def einsum_path(*args, optimize=None, dtype=None, **kwargs):
    """numpy.einsum_path: (path, info), the path in numpy's form
    (['einsum_path', (1, 2), (0, 1)]: positions in the list of remaining
    tensors, each result appended) and a PathInfo that prints the report.
    Operands may be arrays or shape tuples; optimize= as for einsum()."""
    info = _path_info("einsum_path", args, optimize, dtype, kwargs)
    return ["einsum_path"] + info.path, info


def _memory_limit_elements(memory_limit, shapes, itemsize):
    """opt_einsum's memory_limit (None, elements, or 'max_input') in bytes."""
    if memory_limit is None:
        return None
    if isinstance(memory_limit, str):
        if memory_limit != "max_input":
            raise ValueError("einsum: memory_limit=%r (expected None, a "
                             "number of elements or 'max_input')"
                             % memory_limit)
        return max(int(np.prod(s, dtype=np.int64)) for s in shapes) * itemsize
    return _option_int("memory_limit", memory_limit, 0,
                       _UINT64_MAX // 8) * itemsize


def contract(*args, out=None, optimize="auto", memory_limit=None,
             dtype=None, **kwargs):
    """opt_einsum.contract: einsum with opt_einsum's options: optimize
    ('auto', 'greedy', 'optimal', 'dp', True, False or a path) and
    memory_limit (None, a number of elements, or 'max_input')."""
    equation, operands = _split_args(args)
    if memory_limit is not None:
        converted = Operands(operands)
        kwargs = dict(kwargs, memory_limit=_memory_limit_elements(
            memory_limit, [a.shape for a in converted.arrays],
            max(a.itemsize for a in converted.arrays)))
    return _run("contract", equation, operands, out, optimize, dtype, kwargs)


def contract_path(*args, optimize="auto", memory_limit=None, shapes=False,
                  dtype=None, **kwargs):
    """opt_einsum.contract_path: (path, PathInfo), the path as a list of
    position tuples. Operands are arrays, or shape tuples (shapes=True, or
    recognized as tuples of ints)."""
    equation, operands = _split_args(args)
    sizes = [tuple(o) if isinstance(o, (tuple, list)) else np.shape(o)
             for o in operands]
    if memory_limit is not None:
        kwargs = dict(kwargs, memory_limit=_memory_limit_elements(
            memory_limit, sizes, 8 if dtype in ("float64", "int64") else 4))
    info = _path_info("contract_path", args, optimize, dtype, kwargs)
    return info.path, info


class ContractExpression:
    """opt_einsum.contract_expression: an einsum compiled for operand shapes
    (None for a size known only when called), called on operands:
    expr(*operands, out=None). Kernels are compiled once per concrete shape
    and element type, and kept."""

    def __init__(self, equation, shapes, optimize, dtype, kwargs):
        self.equation = equation
        self.shapes = [tuple(s) for s in shapes]
        self._optimize = optimize
        self._kwargs = kwargs
        self._options = _options("contract_expression", dict(kwargs),
                                 optimize)
        for i, shape in enumerate(self.shapes):
            _check_shape(tuple(0 if d is None else d for d in shape), i)
        self.dtype = dtype
        if dtype is not None and all(None not in s for s in self.shapes):
            # Static shapes: compiled now.
            _kernel(equation, self.shapes, _dtype_name(dtype), self._options)

    def __call__(self, *operands, out=None):
        if len(operands) != len(self.shapes):
            raise ValueError("einsum: the expression takes %d operands, but "
                             "%d were given" % (len(self.shapes),
                                                len(operands)))
        converted = Operands(operands)
        for i, (a, shape) in enumerate(zip(converted.arrays, self.shapes)):
            if len(a.shape) != len(shape) or any(
                    d is not None and d != s for d, s in zip(shape, a.shape)):
                raise ValueError(
                    "einsum: operand %d has shape %s, but the expression "
                    "takes %s" % (i, tuple(a.shape), shape))
        return _run("contract_expression", self.equation, operands, out,
                    None, None, dict(self._kwargs, path=self._options.path))

    def __repr__(self):
        return "ContractExpression(%r, %s)" % (self.equation, self.shapes)


def contract_expression(*args, optimize="auto", dtype=None, **kwargs):
    """opt_einsum.contract_expression(equation, *shapes): a reusable,
    compiled expression; shapes may hold None for sizes given only by the
    operands of each call."""
    equation, shapes = _split_args(args)
    for i, shape in enumerate(shapes):
        if not isinstance(shape, (tuple, list)):
            raise TypeError("einsum: contract_expression takes shapes; "
                            "operand %d is %s" % (i, type(shape).__name__))
    return ContractExpression(equation, shapes, optimize, dtype, kwargs)


CacheInfo = collections.namedtuple(
    "CacheInfo", ["kernels", "hits", "evictions", "capacity"])


def cache_info():
    """The process-wide kernel cache: CacheInfo(kernels, hits, evictions,
    capacity): the kernels it holds, the compiles it answered, the kernels
    it dropped (least recently used first) to stay within `capacity`."""
    engine = _get_engine()
    return CacheInfo(_capi.lib.einsumEngineCacheSize(engine),
                     _capi.lib.einsumEngineCacheHits(engine),
                     _capi.lib.einsumEngineCacheEvictions(engine),
                     _capi.lib.einsumEngineCacheCapacity(engine))


def set_cache_capacity(capacity):
    """Keeps at most `capacity` compiled kernels (default 128); a Kernel
    that the caller holds lives on when dropped."""
    capacity = _option_int("capacity", capacity, 0, 1 << 32)
    _capi.lib.einsumEngineSetCacheCapacity(_get_engine(), capacity)
    _kernels.resize(capacity)
    _fast.resize(capacity)

"""einsum-mlir: torch.einsum compiled with MLIR, on numpy arrays.

    import numpy as np, einsum_mlir
    c = einsum_mlir.einsum("bij,bjk->bik", a, b)          # like torch.einsum
    c = einsum_mlir.einsum(a, [0, 1], b, [1, 2], [0, 2])  # sublist form
    k = einsum_mlir.compile("ij,jk->ik", (64, 32), (32, 16), dtype="float32")
    c = k(a, b)                                           # reusable kernel
    print(einsum_mlir.einsum_path("ij,jk,kl->il", a, b, c))

Kernels are compiled once per (equation, shapes, dtype, options) and cached
for the whole process. Errors raise ValueError with the compiler's
diagnostic.
"""

import collections
import ctypes
import json as _json
import os
import threading

import numpy as np

from . import _capi

__all__ = ["einsum", "compile", "einsum_path", "Kernel", "PathInfo",
           "cache_info", "set_cache_capacity", "CacheInfo"]

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
                 "key", "struct")

    def __init__(self, target="cpu", threads=None, path="auto",
                 memory_limit=0, minimize="flops"):
        self.target = _option_str("target", target, "cpu")
        self.threads = _option_int("threads", threads, 0, _max_threads())
        self.path = _option_str("path", path, "auto")
        self.memory_limit = _option_int("memory_limit", memory_limit, 0,
                                        _UINT64_MAX)
        self.minimize = _option_str("minimize", minimize, "flops")
        self.key = (self.target, self.threads, self.path, self.memory_limit,
                    self.minimize)
        s = _capi.Options()
        s.target = self.target.encode()
        s.threads = self.threads
        s.pathStrategy = self.path.encode()
        s.memoryLimit = self.memory_limit
        s.minimize = self.minimize.encode()
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


class PathInfo:
    """The contraction path of an einsum, like numpy.einsum_path's report or
    opt_einsum's PathInfo: `steps` (each with equation, inputs, flops, shape,
    bytes), `naive_flops`, `optimized_flops`, `speedup`,
    `largest_intermediate_bytes`; str() gives the text report."""

    def __init__(self, report, data):
        self.report = report
        self.data = data
        self.steps = data["steps"]
        self.strategy = data["strategy"]
        self.naive_flops = data["naive_flops"]
        self.optimized_flops = data["optimized_flops"]
        self.speedup = data["speedup"]
        self.largest_intermediate_bytes = data["largest_intermediate_bytes"]

    @property
    def path(self):
        """The steps' input tensors, numpy.einsum_path style."""
        return [tuple(s["inputs"]) for s in self.steps]

    def __str__(self):
        return self.report

    __repr__ = __str__


class Kernel:
    """A compiled einsum for fixed shapes and dtype; call it on arrays."""

    def __init__(self, equation, shapes, dtype, options):
        self.equation = equation
        self.input_shapes = tuple(tuple(s) for s in shapes)
        self.dtype = _storage_dtype(dtype)
        self._options = options
        self._type = _TYPES[dtype]
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
        n = len(shapes)
        self._n = n
        self._ptrs = ctypes.c_void_p * max(n, 1)
        self._strides = _capi._I64P * max(n, 1)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _capi is not None and _capi.lib is not None:
            _capi.lib.einsumKernelDestroy(handle)

    def __call__(self, *operands, out=None):
        if len(operands) != self._n:
            raise ValueError("einsum: the kernel takes %d operands, but %d "
                             "were given" % (self._n, len(operands)))
        arrays = [np.asarray(a) for a in operands]
        for i, a in enumerate(arrays):
            if (a.dtype.newbyteorder("=") != self.dtype or
                    a.shape != self.input_shapes[i]):
                raise ValueError(
                    "einsum: operand %d has type %s, but the kernel expects "
                    "%s" % (i, _type_string(a.shape, a.dtype),
                            _type_string(self.input_shapes[i], self.dtype)))
        if out is not None:
            _check_out(out, self.output_shape, self.dtype)
        return self._run(arrays, out)

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
    """Refuses an `out` the kernel cannot write its result to."""
    if not isinstance(out, np.ndarray):
        raise TypeError("einsum: out must be a numpy array, not %s"
                        % type(out).__name__)
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
    return PathInfo(results[0], _json.loads(results[1]))


def _prepare(args, kwargs, allow_shapes):
    kwargs = dict(kwargs)
    # dtype="bfloat16" reads uint16 operands as bfloat16 bit patterns.
    bits = kwargs.pop("dtype", None)
    if bits is not None and bits != "bfloat16":
        raise ValueError("einsum: dtype= may only be 'bfloat16' (to read "
                         "uint16 arrays as bfloat16 bits)")
    options = _Options(**kwargs)
    equation, operands = _split_args(args)
    dtype = None
    shapes = []
    arrays = []
    for i, op in enumerate(operands):
        if allow_shapes and isinstance(op, tuple) and all(
                isinstance(d, (int, np.integer)) for d in op):
            shapes.append(_check_shape(op, i))
            arrays.append(None)
            continue
        a = np.asarray(op)
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
        shapes.append(a.shape)
        arrays.append(a)
    return equation, shapes, arrays, dtype, options


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


def einsum(*args, **kwargs):
    """torch.einsum on numpy arrays (or anything with __array__):
    einsum(equation, *operands) or einsum(op0, sublist0, op1, sublist1, ...,
    [output_sublist]). Keyword options: threads, path ('auto', 'optimal',
    'dp', 'greedy', 'left-to-right'), memory_limit, minimize, target, and
    dtype='bfloat16' to read uint16 operands as bfloat16 bit patterns (numpy
    has no bfloat16; the result is then uint16 bits too)."""
    if kwargs:
        equation, shapes, arrays, dtype, options = _prepare(args, kwargs,
                                                            False)
        return _kernel(equation, shapes, dtype, options)(*arrays)
    # The hot path: no options.
    equation, operands = _split_args(args)
    arrays = [o if type(o) is np.ndarray else np.asarray(o) for o in operands]
    key = (equation, tuple(a.shape for a in arrays),
           tuple(a.dtype.name for a in arrays))
    kernel = _fast.get(key)
    if kernel is None:
        equation, shapes, arrays, dtype, options = _prepare(args, {}, False)
        kernel = _fast.setdefault(key,
                                  _kernel(equation, shapes, dtype, options))
    # The key fixes every operand's shape and element type (dtype names do
    # not tell byte orders apart: _run converts).
    return kernel._run(arrays)


_fast = _LRU(_DEFAULT_CACHE_CAPACITY)


def compile(*args, dtype=None, **kwargs):
    """A reusable Kernel. Operands are arrays, or shape tuples with dtype=.
    Accepts the same forms and options as einsum(); with dtype='bfloat16' the
    kernel takes and returns uint16 arrays of bfloat16 bits (unless numpy
    knows a bfloat16 dtype)."""
    if dtype == "bfloat16":
        kwargs["dtype"] = "bfloat16"
    equation, shapes, arrays, found, options = _prepare(args, kwargs, True)
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


def einsum_path(*args, **kwargs):
    """The contraction path the compiler takes (a PathInfo)."""
    equation, shapes, _arrays, dtype, options = _prepare(args, kwargs, True)
    if dtype is None:
        dtype = "float32"
    return _explain(equation, shapes, _TYPES[dtype], options)


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

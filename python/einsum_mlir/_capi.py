"""ctypes bindings of einsum-mlir's C API (include/einsum-c/Einsum.h).

The library is libEinsumCAPI.so beside this file, or the one named by the
EINSUM_MLIR_LIB environment variable; it is loaded on first use.
"""

import ctypes
import os

_I64P = ctypes.POINTER(ctypes.c_int64)


class Options(ctypes.Structure):
    _fields_ = [
        ("target", ctypes.c_char_p),
        ("threads", ctypes.c_uint),
        ("pathStrategy", ctypes.c_char_p),
        ("memoryLimit", ctypes.c_uint64),
        ("minimize", ctypes.c_char_p),
        ("semiring", ctypes.c_char_p),
    ]


def _load():
    lib = ctypes.CDLL(library_path())
    err = ctypes.POINTER(ctypes.c_char_p)
    shapes = ctypes.POINTER(_I64P)
    ints = ctypes.POINTER(ctypes.c_int)
    sig = {
        "einsumOptionsInit": (None, [ctypes.POINTER(Options)]),
        "einsumFreeString": (None, [ctypes.c_void_p]),
        "einsumVersion": (ctypes.c_char_p, []),
        "einsumCanonicalEquation": (ctypes.c_int, [
            ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
            ctypes.POINTER(ctypes.c_void_p)]),
        "einsumEngineCreate": (ctypes.c_int, [ctypes.POINTER(ctypes.c_void_p),
                                              ctypes.POINTER(ctypes.c_void_p)]),
        "einsumEngineDestroy": (None, [ctypes.c_void_p]),
        "einsumEngineCacheSize": (ctypes.c_size_t, [ctypes.c_void_p]),
        "einsumEngineCacheHits": (ctypes.c_size_t, [ctypes.c_void_p]),
        "einsumEngineCacheEvictions": (ctypes.c_size_t, [ctypes.c_void_p]),
        "einsumEngineCacheCapacity": (ctypes.c_size_t, [ctypes.c_void_p]),
        "einsumEngineSetCacheCapacity": (None, [ctypes.c_void_p,
                                                ctypes.c_size_t]),
        "einsumEngineKeepSharedObjects": (None, [ctypes.c_void_p,
                                                 ctypes.c_int]),
        "einsumSublistsToEquation": (ctypes.c_int, [
            ctypes.c_int, ints, shapes, ctypes.c_int, _I64P,
            ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]),
        "einsumCompile": (ctypes.c_int, [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ints, shapes,
            ctypes.c_int, ctypes.POINTER(Options),
            ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]),
        "einsumCompileGrad": (ctypes.c_int, [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ints, shapes,
            ctypes.c_int, ctypes.POINTER(Options), ctypes.c_int,
            ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]),
        "einsumKernelNumOperands": (ctypes.c_int, [ctypes.c_void_p]),
        "einsumKernelOperandRank": (ctypes.c_int, [ctypes.c_void_p,
                                                   ctypes.c_int]),
        "einsumKernelOperandShape": (_I64P, [ctypes.c_void_p, ctypes.c_int]),
        "einsumKernelDestroy": (None, [ctypes.c_void_p]),
        "einsumKernelOutputRank": (ctypes.c_int, [ctypes.c_void_p]),
        "einsumKernelOutputShape": (_I64P, [ctypes.c_void_p]),
        "einsumKernelFlops": (ctypes.c_double, [ctypes.c_void_p]),
        "einsumKernelCompileSeconds": (ctypes.c_double, [ctypes.c_void_p]),
        "einsumKernelRun": (ctypes.c_int, [
            ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
            shapes, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]),
        "einsumEmitIR": (ctypes.c_int, [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ints, shapes,
            ctypes.c_int, ctypes.POINTER(Options), ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]),
        "einsumExplain": (ctypes.c_int, [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ints, shapes,
            ctypes.c_int, ctypes.POINTER(Options), ctypes.c_int,
            ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]),
    }
    del err
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


# Loaded on first use (`_capi.lib`): loading it loads libMLIR and libLLVM
# (some 80 ms), which a kernel from the disk cache does not need (_light.py).
_lib = None


def loaded():
    """Whether the C API library is loaded."""
    return _lib is not None


def __getattr__(name):
    global _lib
    if name == "lib":
        if _lib is None:
            _lib = _load()
        return _lib
    raise AttributeError(name)


def library_path():
    return os.environ.get("EINSUM_MLIR_LIB") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "libEinsumCAPI.so")


def take_string(ptr):
    """Returns the Python str of a C string from the API and frees it."""
    if not ptr:
        return ""
    text = ctypes.string_at(ptr).decode()
    __getattr__("lib").einsumFreeString(ptr)
    return text


def check(rc, error):
    """Raises ValueError with the C++ diagnostic when a call failed."""
    if rc != 0:
        raise ValueError(take_string(error.value))

"""Kernels from the disk cache without the compiler.

The C API keeps each CPU kernel it compiles for this package also as a
shared library with a JSON descriptor in the on-disk kernel cache
(einsumEngineKeepSharedObjects; DiskCache::storeSharedObject). A new
process finds it here by the call's arguments and loads it with
libEinsumRuntime alone: no libEinsumCAPI, libMLIR or libLLVM (whose loading
alone takes some 80 ms). Anything amiss (no cache, no descriptor, another
key, host or compiler build, a library of another size or CRC-32, one that
does not load) is a miss, and the kernel is compiled as usual.
"""

import ctypes
import json
import os
import zlib

_HERE = os.path.dirname(os.path.abspath(__file__))
_runtime = None


def runtime():
    """libEinsumRuntime, loaded with its symbols global: the cached
    libraries' undefined symbols are its functions."""
    global _runtime
    if _runtime is None:
        lib = ctypes.CDLL(os.path.join(_HERE, "libEinsumRuntime.so"),
                          mode=ctypes.RTLD_GLOBAL)
        for name in ("einsumRuntimeLastError", "einsumRuntimeHostId",
                     "einsumRuntimeVersion"):
            getattr(lib, name).restype = ctypes.c_char_p
        _runtime = lib
    return _runtime


def cache_directory():
    """As DiskCache::fromEnvironment: None where the cache is off."""
    if os.environ.get("EINSUM_MLIR_CACHE") == "0":
        return None
    directory = os.environ.get("EINSUM_MLIR_CACHE_DIR")
    if not directory:
        base = os.environ.get("XDG_CACHE_HOME")
        if not base and os.environ.get("HOME"):
            base = os.path.join(os.environ["HOME"], ".cache")
        if not base:
            return None
        directory = os.path.join(base, "einsum-mlir")
    return directory


def _stamp(path):
    """DiskCache::getBinaryStamp of the C API library."""
    status = os.stat(path)
    seconds, nanoseconds = divmod(status.st_mtime_ns, 10**9)
    return "%d/%d.%d/%d" % (status.st_size, seconds, nanoseconds,
                            status.st_ino)


def _fnv1a(text):
    value = 0xcbf29ce484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % value


def key(equation, element, options, shapes):
    """The C API's getSharedObjectKey (lib/CAPI/Einsum.cpp), from the same
    arguments."""
    parts = ["capi1", equation, element, options.target,
             str(options.threads), options.path, str(options.memory_limit),
             options.minimize, options.semiring]
    parts += ["x".join(str(d) for d in shape) for shape in shapes]
    return "|".join(parts)


class Cached:
    """A kernel's C function from a cached shared library."""

    def __init__(self, library, function, output_shape, flops):
        self.library = library  # Keeps it loaded.
        self.function = function
        self.output_shape = output_shape
        self.flops = flops

    def run(self, pointers):
        """Calls the kernel on row-major buffers (inputs, then the output);
        raises ValueError with the runtime's message when it fails."""
        args = []
        for pointer in pointers:
            args += [ctypes.c_void_p(pointer), None, None]
        if self.function(*args) != 0:
            raise ValueError("einsum: " + runtime().einsumRuntimeLastError()
                             .decode())


def lookup(equation, element, options, shapes, capi_path):
    """The cached kernel of these einsumCompile arguments, or None."""
    directory = cache_directory()
    if directory is None or options.target != "cpu":
        return None
    try:
        text = key(equation, element, options, shapes)
        rt = runtime()
        host = rt.einsumRuntimeHostId().decode()
        stamp = _stamp(capi_path)
        name = _fnv1a(text + "\n" + host + "\n" + stamp)
        descriptor_path = os.path.join(directory, name + ".json")
        with open(descriptor_path) as f:
            descriptor = json.load(f)
        if (descriptor.get("key") != text or descriptor.get("host") != host
                or descriptor.get("stamp") != stamp):
            return None
        library_path = os.path.join(directory, descriptor["library"])
        with open(library_path, "rb") as f:
            data = f.read()
        if (len(data) != descriptor["size"] or
                zlib.crc32(data) != descriptor["crc32"]):
            return None
        library = ctypes.CDLL(library_path, mode=ctypes.RTLD_LOCAL)
        function = getattr(library, descriptor["entry"])
        function.restype = ctypes.c_int
        for path in (descriptor_path, library_path):
            try:
                os.utime(path)  # Recently used (where writable).
            except OSError:
                pass
        return Cached(library, function,
                      tuple(int(d) for d in descriptor["output_shape"]),
                      float(descriptor["flops"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None

# -*- Python -*-
# lit configuration of the einsum-mlir tests.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "EINSUM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.einsum_obj_root, "test")
config.excludes = {"CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs", "downstream"}

# As MLIR does: every FileCheck variable is scoped to its CHECK-LABEL block,
# and a prefix that no line uses is an error.
config.environment["FILECHECK_OPTS"] = (
    "-enable-var-scope --allow-unused-prefixes=false")

# Tests compile their kernels: the on-disk kernel cache is off unless a test
# turns it on (with a cache directory of its own).
config.environment["EINSUM_MLIR_CACHE"] = "0"
for name in ("EINSUM_MLIR_CACHE_DIR", "EINSUM_MLIR_CACHE_SIZE",
             "XDG_CACHE_HOME"):
    config.environment.pop(name, None)

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%PYTHON", config.python_executable))
config.substitutions.append(("%einsum_unit_tests", config.einsum_unit_tests))
config.substitutions.append(("%einsum_src", config.einsum_src_root))
config.substitutions.append(("%einsum_obj", config.einsum_obj_root))
config.substitutions.append(
    ("%einsum_python_packages",
     os.path.join(config.einsum_obj_root, "python_packages")))

tool_dirs = [config.einsum_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("einsum-opt", unresolved="fatal"),
    ToolSubst("einsum-run", unresolved="fatal"),
    ToolSubst("einsum-compile", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# numpy (Debian's python3-numpy) for the comparisons with numpy.einsum, torch
# (python3-torch) as the autograd oracle of the gradient tests.
for module in ("numpy", "torch"):
    try:
        subprocess.check_call([config.python_executable, "-c",
                               "import " + module],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        config.available_features.add(module)
    except (OSError, subprocess.CalledProcessError):
        pass

# ptxas (CUDA toolkit, found at configure time): the emitted PTX must
# assemble for sm_90.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))

# A CUDA driver with a device: the GPU integration tests run; without one
# the no-device path is tested instead.
def has_cuda_device():
    try:
        import ctypes
        cuda = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return (cuda.cuInit(0) == 0 and
                cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and
                count.value > 0)
    except OSError:
        return False


if has_cuda_device():
    config.available_features.add("cuda-driver")

# The libFuzzer targets (tools/fuzzers): the suite runs each for a fixed
# number of runs from its seed corpus.
if config.have_libfuzzer:
    config.available_features.add("libfuzzer")
    for fuzzer in ["einsum-equation-fuzzer", "einsum-npy-fuzzer",
                   "einsum-dialect-fuzzer"]:
        config.substitutions.append(
            ("%" + fuzzer.replace("-", "_"),
             os.path.join(config.einsum_tools_dir, fuzzer)))

# MPI (einsum-run built with it, and mpirun): the distributed tests run 2
# and 4 ranks on this machine over loopback only (shared memory between the
# ranks, TCP on lo for OpenMPI's own wiring), more ranks than cores allowed,
# as root too (CI runs as root).
mpirun = shutil.which("mpirun")
if config.have_mpi and mpirun:
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpirun", "%s --allow-run-as-root --oversubscribe "
         "--mca btl self,vader --mca btl_vader_single_copy_mechanism none "
         "--mca oob_tcp_if_include lo --mca btl_tcp_if_include lo "
         "--bind-to none" % mpirun))

# A C compiler for programs that call kernels compiled ahead of time: LLVM's
# clang, instrumented as the project is (an instrumented libEinsumRuntime
# needs the sanitizer runtime loaded first).
cc = os.path.join(config.llvm_tools_dir, "clang")
if config.sanitizers:
    cc += " -fsanitize=%s -shared-libsan -Wl,-rpath,%s" % (
        config.sanitizers, os.path.dirname(config.asan_runtime))
config.substitutions.append(("%cc", cc))

# A sanitizer build (-DEINSUM_SANITIZE=address,undefined): every error
# fails its test. libMLIR and libLLVM are not instrumented: code of ours
# that inlines their allocators poisons memory they then touch, which ASan
# would report as use-after-poison inside them (allow_user_poisoning=0).
# Python is not instrumented either: it preloads the shared runtime, and its
# own allocations at exit are not leaks of ours.
if config.sanitizers:
    for sanitizer in config.sanitizers.split(","):
        config.available_features.add(
            {"address": "asan", "undefined": "ubsan"}.get(sanitizer,
                                                          sanitizer))
    config.environment["ASAN_OPTIONS"] = (
        "allow_user_poisoning=0:detect_leaks=1:allocator_may_return_null=1")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
    config.substitutions = [
        (name, value) for name, value in config.substitutions
        if name != "%PYTHON"]
    no_leaks = "allow_user_poisoning=0:detect_leaks=0:allocator_may_return_null=1"
    config.substitutions.append(
        ("%PYTHON", "env LD_PRELOAD=%s ASAN_OPTIONS=%s %s" % (
            config.asan_runtime, no_leaks, config.python_executable)))
    # OpenMPI allocates in components it loads and unloads (their frames
    # are an unknown module by exit, so no suppression can name them) and
    # frees little at MPI_Finalize: under mpirun, ASan and UBSan check every
    # access and operation of ours, but leaks are checked by the tests that
    # run the same engine in one process.
    config.substitutions = [
        (name, "env ASAN_OPTIONS=%s %s" % (no_leaks, value))
        if name == "%mpirun" else (name, value)
        for name, value in config.substitutions]

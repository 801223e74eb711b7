#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and its driver (Debian bookworm, as for
# the CPU): sets up and builds einsum-mlir, runs the GPU tests (the kernels
# run on the device and are checked against the reference evaluator), and
# benchmarks the gemm and contraction cases of ../shared/bench/cases.json
# against cuBLAS (when libcublas is found).
#
#   test/Integration/GPU/run-on-gpu.sh [bench/gpu.py options]
#
# On a GPU machine without LLVM (nothing to install from), from a bundle
# that utils/gpu-bundle.py built elsewhere (kernels compiled ahead of time,
# libEinsumRuntime, the runner): the same tests against numpy.einsum and
# the same cuBLAS comparison.
#
#   test/Integration/GPU/run-on-gpu.sh --bundle DIR [run.py options]
#
# Exit status: 2 without a driver or device, 1 when a test fails.
set -euo pipefail

if [[ "${1:-}" == "--bundle" ]]; then
  bundle="${2:?--bundle needs a directory}"
  shift 2
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total \
      --format=csv,noheader
  fi
  # $PYTHON: another interpreter command (the test suite's, say).
  exec ${PYTHON:-python3} "$bundle/run.py" "$@"
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"

if ! /usr/bin/python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' \
    2>/dev/null; then
  echo "run-on-gpu: no CUDA driver or device found (libcuda.so.1)" >&2
  exit 2
fi
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
fi

utils/setup.sh
ninja -C build einsum-opt einsum-run
# The GPU integration tests: with a device, CUDA/run.test runs instead of
# no-device.test.
/usr/lib/llvm-22/bin/lit -sv build/test/Integration/GPU

/usr/bin/python3 bench/gpu.py "$@"

#!/usr/bin/env bash
# Sets up einsum-mlir on Debian bookworm: installs the packages that are
# missing (with apt-get), configures and builds. Quick when all is there.
#
#   utils/setup.sh            install, configure, build (into ./build)
#   BUILD_DIR=out utils/setup.sh
#   BUILD_DIR=build-sanitize EINSUM_SANITIZE=address,undefined utils/setup.sh
#                             the sanitizer build (ASan + UBSan)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"

packages=(
  # LLVM/MLIR 22 (DESIGN.md section 4)
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22
  libomp-22-dev
  # build and test tools; libFuzzer and the sanitizer runtimes
  cmake ninja-build libgtest-dev python3 python3-numpy python3-pytest
  libclang-rt-22-dev libfuzzer-22-dev
  # the GEMM reference of the benchmarks
  libopenblas-dev
  # torch: the oracle of the Python conformance and interop tests
  python3-torch
  # MPI: einsum-run --grid and its tests (mpirun on loopback)
  libopenmpi-dev openmpi-bin
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DEINSUM_PYTHON=/usr/bin/python3 \
    -DEINSUM_SANITIZE="${EINSUM_SANITIZE:-}"
fi
ninja -C "$build"

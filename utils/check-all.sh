#!/usr/bin/env bash
# Sets up and runs every test: the regular build (./build) and the sanitizer
# build (./build-sanitize: ASan + UBSan over the project, the lit suite,
# pytest and the fuzz runs). This is the README's test command and what CI
# runs.
#
#   utils/check-all.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
utils/setup.sh
ninja -C build check-einsum </dev/null
BUILD_DIR="$root/build-sanitize" EINSUM_SANITIZE=address,undefined \
  utils/setup.sh
ninja -C build-sanitize check-einsum </dev/null

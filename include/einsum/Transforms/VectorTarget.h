//===- VectorTarget.h - The vector registers of a CPU schedule --*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// What the CPU schedule passes assume of the target's vector registers:
// their width, how many the register tiles may fill, and whether masked
// stores are cheap. One place derives them from a CPU's name and features,
// for the host (the passes' defaults) and for a CPU compiled for ahead of
// time (einsum-compile).
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_TRANSFORMS_VECTORTARGET_H
#define EINSUM_TRANSFORMS_VECTORTARGET_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/TargetParser/Host.h"

namespace mlir {
namespace einsum {

/// The vector registers a CPU schedule is chosen for.
struct VectorTarget {
  /// Width of the vectors the schedule uses: 128, 256 or 512.
  unsigned bits = 512;
  /// Architectural vector registers the register tiles may fill: 32 on x86
  /// with AVX-512 (at any width: AVX-512VL gives 256-bit vectors all 32),
  /// 16 without.
  unsigned registers = 32;

  /// x86 cores with AVX-512 (32 registers) store under a mask register as
  /// cheaply as without one, at any width; without AVX-512 a masked store
  /// is AVX's microcoded `vmaskmovps`.
  bool hasCheapMaskedStores() const { return registers >= 32; }
};

/// The target of the x86 CPU `cpu` (LLVM's name: znver4, skylake-avx512),
/// whose features `hasFeature` answers (LLVM's names: avx512f, avx2, avx).
/// AVX-512 cores get 512-bit vectors, except AMD's Zen 4 (znver4), which
/// runs each 512-bit operation as two 256-bit halves: 512-bit FMAs there
/// reach the same 117 GFLOP/s per core as 256-bit ones (bench/peak.c), and
/// 16-lane tiles waste more lanes on rows that are not whole vectors
/// (lqc,tlxc->xqlt, rows of 23: 32 lanes, against 24). Zen 4 gets 256-bit
/// schedules with AVX-512's 32 registers and masks (one thread: the
/// contraction suite's 40 cases 1.09x on the geomean, 1.3-1.8x on rows of
/// 13, 23 and 82; 40 other generated ones 1.05x; GEMM 1024^3 0.91x, whose
/// rows waste no lanes at 512 bits).
inline VectorTarget
getCPUVectorTarget(llvm::StringRef cpu,
                   llvm::function_ref<bool(llvm::StringRef)> hasFeature) {
  if (hasFeature("avx512f"))
    return {cpu == "znver4" ? 256u : 512u, 32u};
  if (hasFeature("avx2") || hasFeature("avx"))
    return {256, 16};
  return {128, 16};
}

/// The host's target.
inline VectorTarget getHostVectorTarget() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  return getCPUVectorTarget(llvm::sys::getHostCPUName(),
                            [&](llvm::StringRef name) {
                              return features.lookup(name);
                            });
}

/// The target a pass's `vector-bits` and `vector-registers` options name: 0
/// bits is the host's target (with its registers unless `registers` is
/// given); a width alone has the registers of x86's ISA of that width (32 at
/// 512 bits, 16 below), so that a schedule test does not depend on its host.
inline VectorTarget resolveVectorTarget(unsigned bits, unsigned registers) {
  VectorTarget target =
      bits ? VectorTarget{bits, bits >= 512 ? 32u : 16u}
           : getHostVectorTarget();
  if (registers)
    target.registers = registers;
  return target;
}

} // namespace einsum
} // namespace mlir

#endif // EINSUM_TRANSFORMS_VECTORTARGET_H

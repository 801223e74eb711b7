//===- MPIMemoryEffects.h - memory effects of mpi ops -----------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The mpi dialect's ops on buffers (allreduce, send, recv) declare no memory
// effects, so ownership-based buffer deallocation refuses a function that
// holds one ("ops with unknown memory side effects are not supported").
// These external models say what they do: allreduce reads its send buffer
// and writes its receive buffer, send reads, recv writes. The distributed
// pipeline lowers collectives to mpi ops before bufferization, so that
// their buffers are deallocated with the kernel's.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_TRANSFORMS_MPIMEMORYEFFECTS_H
#define EINSUM_TRANSFORMS_MPIMEMORYEFFECTS_H

namespace mlir {
class DialectRegistry;
namespace einsum {

void registerMPIMemoryEffects(DialectRegistry &registry);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_TRANSFORMS_MPIMEMORYEFFECTS_H

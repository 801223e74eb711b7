//===- MPIMemoryEffects.cpp - memory effects of mpi ops ---------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Transforms/MPIMemoryEffects.h"

#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {
/// Reads the operands `Reads` names and writes those `Writes` names.
template <typename Op, int Read, int Write>
struct BufferEffects
    : public MemoryEffectOpInterface::ExternalModel<BufferEffects<Op, Read, Write>,
                                                    Op> {
  void getEffects(
      Operation *op,
      SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
          &effects) const {
    if (Read >= 0)
      effects.emplace_back(MemoryEffects::Read::get(),
                           &op->getOpOperand(Read),
                           SideEffects::DefaultResource::get());
    if (Write >= 0)
      effects.emplace_back(MemoryEffects::Write::get(),
                           &op->getOpOperand(Write),
                           SideEffects::DefaultResource::get());
  }
};
} // namespace

void mlir::einsum::registerMPIMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<BufferEffects<mpi::AllReduceOp, 0, 1>>(
        *ctx);
    mpi::SendOp::attachInterface<BufferEffects<mpi::SendOp, 0, -1>>(*ctx);
    mpi::RecvOp::attachInterface<BufferEffects<mpi::RecvOp, -1, 0>>(*ctx);
  });
}

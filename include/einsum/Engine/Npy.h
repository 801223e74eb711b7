//===- Npy.h - reading and writing .npy files -------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// NumPy's .npy format, versions 1.0, 2.0 and 3.0, for the six element types:
// '<f4', '<f8', '<f2', '<i4', '<i8', and bf16 as 2-byte void ('<V2' / '|V2',
// which is how ml_dtypes' bfloat16 arrays are saved). Headers are validated
// strictly; Fortran-order arrays are read and converted to C order; 0-d
// arrays are scalars.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_NPY_H
#define EINSUM_ENGINE_NPY_H

#include "einsum/Engine/Tensor.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
namespace einsum {

/// Reads a regular file whole. Anything else (a device such as /dev/zero, a
/// FIFO, a directory) is refused before it is opened: it may never end, or
/// block. Errors name the file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(llvm::StringRef path);

/// Writes what `write` streams to `path` so that a failure leaves no partial
/// file and an existing file untouched: into a temporary file in the same
/// directory, renamed over `path` once every write succeeded. A `path` that
/// exists and is not a regular file (/dev/stdout, a FIFO) is written
/// directly. Every write is checked; errors name the file.
llvm::Error
writeFileAtomically(llvm::StringRef path,
                    llvm::function_ref<void(llvm::raw_ostream &)> write);

/// Reads an .npy file; errors name the file and what is wrong.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);
/// The shape and element type of an .npy file (its header, checked against
/// the file's size).
llvm::Expected<std::pair<llvm::SmallVector<int64_t>, ElementType>>
readNpyType(llvm::StringRef path);
/// Reads the block of `shape` at `offsets` of an .npy file (in bounds): from
/// the mapped file, so that only the block's pages are read (a Fortran-order
/// file is read whole).
llvm::Expected<HostTensor> readNpyBlock(llvm::StringRef path,
                                        llvm::ArrayRef<int64_t> offsets,
                                        llvm::ArrayRef<int64_t> shape);
/// Parses .npy bytes (`name` is used in error messages).
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes,
                                    llvm::StringRef name);
/// Writes a C-order .npy (version 1.0) file (with writeFileAtomically).
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);
/// The bytes of a C-order .npy (version 1.0) file.
std::string serializeNpy(const HostTensor &tensor);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_NPY_H

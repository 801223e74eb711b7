//===- ObjectCode.h - kernels as object code, and loading it ----*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The step from a kernel lowered to the LLVM dialect to machine code, shared
// by the JIT engine, the on-disk kernel cache and einsum-compile: the LLVM
// module gets the kernel's entry points (below), is optimized at O3 for a
// CPU and emitted as a relocatable object. The JIT links that object into
// the process (ORC); einsum-compile writes it out; the cache keeps it.
//
// Entry points of a kernel NAME (the function whose C interface
// _mlir_ciface_NAME the LLVM lowering emitted):
//   - NAME_packed(void **descriptors): calls _mlir_ciface_NAME with one
//     memref descriptor pointer per parameter;
//   - NAME_signature: the int64_t words of einsum-c/Runtime.h's signature;
//   - int CNAME(T *in0, const int64_t *sizes0, const int64_t *strides0, ...,
//     T *out, const int64_t *out_sizes, const int64_t *out_strides): calls
//     einsumRuntimeInvoke(NAME_signature, its arguments, NAME_packed).
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_OBJECTCODE_H
#define EINSUM_ENGINE_OBJECTCODE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace mlir {
namespace einsum {

/// What einsumRuntimeInvoke needs to know of a kernel.
struct KernelSignature {
  /// EINSUM_SIGNATURE_* flags.
  int64_t flags = 0;
  int64_t elementBytes = 0;
  /// Inputs, then the output; -1 where dynamic.
  std::vector<std::vector<int64_t>> shapes;

  /// The words of einsum-c/Runtime.h.
  std::vector<int64_t> encode() const;
};

/// A target machine for the host's triple and `cpu`: "native" (the host's
/// CPU and features) or an LLVM CPU name (x86-64-v3, x86-64-v4,
/// sapphirerapids, ...).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createCPUTargetMachine(llvm::StringRef cpu);

/// The names of the entry points of kernel `name` (see above); the C
/// function's where no other name is given (the JIT's, the disk cache's
/// shared libraries').
std::string getCallName(llvm::StringRef name);
std::string getPackedName(llvm::StringRef name);
std::string getSignatureName(llvm::StringRef name);

/// Adds the entry points of kernel `name` to `module`; the C function is
/// `cName`.
llvm::Error addKernelEntryPoints(llvm::Module &module, llvm::StringRef name,
                                 llvm::StringRef cName,
                                 const KernelSignature &signature);

/// Gives every function and global defined in `module` internal linkage but
/// `exported` ones, so that kernels compiled apart link into one library.
void internalizeExcept(llvm::Module &module,
                       llvm::ArrayRef<std::string> exported);

/// Replaces the global list `listName` of constructors or destructors
/// (llvm.global_ctors, llvm.global_dtors) by an external function
/// `functionName` that calls them in order. False where the list is absent.
bool hoistStructors(llvm::Module &module, llvm::StringRef listName,
                    llvm::StringRef functionName);

/// Optimizes `module` at O3 for `machine` and emits it as an object file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitObject(llvm::Module &module, llvm::TargetMachine &machine);

/// Links `object` into this process: its undefined symbols resolve to
/// `symbols` first, then to the process and the shared `libraries`.
llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
loadObject(std::unique_ptr<llvm::MemoryBuffer> object,
           llvm::ArrayRef<std::pair<llvm::StringRef, void *>> symbols,
           llvm::ArrayRef<std::string> libraries);

/// The runtime's functions that kernels call, by the names they call them.
llvm::ArrayRef<std::pair<llvm::StringRef, void *>> getCPURuntimeSymbols();

} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_OBJECTCODE_H

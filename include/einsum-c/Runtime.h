/*===- einsum-c/Runtime.h - what compiled kernels need at run time --------===*\
|*                                                                            *|
|* Part of the einsum-mlir project.                                           *|
|*                                                                            *|
|* libEinsumRuntime: the functions that kernels compiled by einsum-mlir call  *|
|* (heap, run-time errors, strided copies) and the one that calls a kernel    *|
|* on caller buffers. It depends on the C and C++ libraries only: no MLIR,    *|
|* no LLVM. The JIT engine links it too, so JIT and ahead-of-time kernels     *|
|* run the same code. A kernel compiled for more than one thread also needs   *|
|* an OpenMP runtime (libomp).                                                *|
\*===----------------------------------------------------------------------===*/

#ifndef EINSUM_C_RUNTIME_H
#define EINSUM_C_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define EINSUM_RUNTIME_EXPORTED __attribute__((visibility("default")))
#else
#define EINSUM_RUNTIME_EXPORTED
#endif

/* What a kernel function returns. */
typedef enum {
  EINSUM_STATUS_OK = 0,
  /* A null pointer, a size that does not match the kernel's, a negative
     size or stride. Nothing was written. */
  EINSUM_STATUS_INVALID_ARGUMENT = 1,
  /* A check the kernel makes at run time failed: dynamic sizes that do not
     agree with the equation, an allocation that failed. The output is
     unspecified. */
  EINSUM_STATUS_KERNEL_ERROR = 2,
  /* A buffer for a strided or misaligned operand could not be allocated.
     Nothing was written. */
  EINSUM_STATUS_OUT_OF_MEMORY = 3,
  /* A GPU kernel found no CUDA driver or device. Nothing was written. */
  EINSUM_STATUS_NO_DEVICE = 4,
} EinsumStatus;

/* The message of the calling thread's last failed call ("" if none). Valid
   until the thread's next call. */
EINSUM_RUNTIME_EXPORTED const char *einsumRuntimeLastError(void);

/* Frees the buffers the heap keeps for reuse between calls. */
EINSUM_RUNTIME_EXPORTED void einsumRuntimeTrimWorkspace(void);

/* An identifier of this machine's processor (a hash of its model and
   feature flags): cached kernels compiled for another are not loaded. */
EINSUM_RUNTIME_EXPORTED const char *einsumRuntimeHostId(void);

/* The version of the runtime, "0.8.0". */
EINSUM_RUNTIME_EXPORTED const char *einsumRuntimeVersion(void);

/* The signature of a compiled kernel, as einsum-compile emits it next to the
   kernel: an array of int64_t,
     [kind, flags, element bytes, operands, rank_0, size_0_0, ..., rank_1, ...]
   kind 1; operands counts the inputs and then the output (last); sizes are
   -1 where dynamic. flags: EINSUM_SIGNATURE_RETURNS_RESULT (the kernel
   returns a buffer it allocated, copied into the output and freed),
   EINSUM_SIGNATURE_ALIGN_INPUTS (inputs not 64-byte aligned are copied to
   aligned buffers first: compute-bound kernels), EINSUM_SIGNATURE_DEVICE
   (a GPU kernel: the operands are row-major device buffers, and a returned
   result is copied on the device). */
#define EINSUM_SIGNATURE_KIND 1
#define EINSUM_SIGNATURE_RETURNS_RESULT 1
#define EINSUM_SIGNATURE_ALIGN_INPUTS 2
#define EINSUM_SIGNATURE_DEVICE 4

/* Calls `packed` (a kernel's entry that takes an array of memref descriptor
   pointers: the result's first where it returns one, then one per operand)
   on `arguments`: three pointers per operand, inputs then output, as the
   kernel functions take them: data, sizes (int64_t[rank], may be null where
   the kernel's sizes are all static), strides (int64_t[rank] in elements,
   null for row-major). Operands that are not row-major are copied to
   row-major buffers first (and the output back). The output must not
   overlap an input. Returns an EinsumStatus; its message is
   einsumRuntimeLastError(). */
EINSUM_RUNTIME_EXPORTED int einsumRuntimeInvoke(const int64_t *signature,
                                                void *const *arguments,
                                                void (*packed)(void **));

/* Called by the kernels themselves, under the names MLIR's lowering gives
   them: the heap (buffers of 1 MiB and more are kept for the next call),
   a failed run-time check, a copy between strided memrefs (its arguments
   are unranked memref descriptors). */
EINSUM_RUNTIME_EXPORTED void *_mlir_memref_to_llvm_alloc(uint64_t bytes);
EINSUM_RUNTIME_EXPORTED void _mlir_memref_to_llvm_free(void *pointer);
EINSUM_RUNTIME_EXPORTED void einsum_runtime_error(const char *message);
EINSUM_RUNTIME_EXPORTED void memrefCopy(int64_t elementBytes, void *source,
                                        void *target);

#ifdef __cplusplus
}
#endif

#endif /* EINSUM_C_RUNTIME_H */

/*===- einsum-c/Einsum.h - C API of einsum-mlir ---------------------------===*\
|*                                                                            *|
|* Part of the einsum-mlir project.                                           *|
|*                                                                            *|
|* Compile torch.einsum equations to JIT kernels and run them on caller       *|
|* buffers. Handles are opaque; every function that can fail returns 0 on     *|
|* success and non-zero on failure, with a message in *error (free it with    *|
|* einsumFreeString). No exception, abort or exit crosses this API. Engines   *|
|* and kernels may be used from several threads.                             *|
\*===----------------------------------------------------------------------===*/

#ifndef EINSUM_C_EINSUM_H
#define EINSUM_C_EINSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define EINSUM_CAPI_EXPORTED __attribute__((visibility("default")))
#else
#define EINSUM_CAPI_EXPORTED
#endif

typedef struct EinsumEngineImpl *EinsumEngine;
typedef struct EinsumKernelImpl *EinsumKernel;

typedef enum {
  EINSUM_F32 = 0,
  EINSUM_F64 = 1,
  EINSUM_F16 = 2,
  EINSUM_BF16 = 3,
  EINSUM_I32 = 4,
  EINSUM_I64 = 5,
} EinsumElementType;

/* The value of Python's Ellipsis in a sublist. */
#define EINSUM_SUBLIST_ELLIPSIS (-1)

typedef struct {
  /* "cpu". */
  const char *target;
  /* Threads per kernel; 0: all cores; at most max(256, cores). */
  unsigned threads;
  /* Contraction path for 3+ operands: "auto", "optimal", "dp", "greedy",
     "left-to-right". */
  const char *pathStrategy;
  /* Largest intermediate in bytes; 0: the machine's memory. */
  uint64_t memoryLimit;
  /* "flops" or "memory". */
  const char *minimize;
  /* What the einsum sums and multiplies with (#einsum.semiring):
     "plus_times" (the default), "log", "max", "min", "max_times" or
     "bool". */
  const char *semiring;
} EinsumOptions;

/* Fills *options with the defaults. */
EINSUM_CAPI_EXPORTED void einsumOptionsInit(EinsumOptions *options);

/* Frees a string returned by this API (NULL is fine). */
EINSUM_CAPI_EXPORTED void einsumFreeString(char *string);

/* Bytes per element of `type`, 0 for an invalid type. */
EINSUM_CAPI_EXPORTED size_t einsumElementSize(EinsumElementType type);

/* An engine owns an MLIR context and a kernel cache. */
EINSUM_CAPI_EXPORTED int einsumEngineCreate(EinsumEngine *engine,
                                            char **error);
EINSUM_CAPI_EXPORTED void einsumEngineDestroy(EinsumEngine engine);
/* Kernels in the cache, compiles it answered, and kernels it dropped (least
   recently used first) to stay within its capacity. */
EINSUM_CAPI_EXPORTED size_t einsumEngineCacheSize(EinsumEngine engine);
EINSUM_CAPI_EXPORTED size_t einsumEngineCacheHits(EinsumEngine engine);
EINSUM_CAPI_EXPORTED size_t einsumEngineCacheEvictions(EinsumEngine engine);
/* The most kernels the cache keeps (default 128); kernels a caller still
   holds live on when dropped. */
EINSUM_CAPI_EXPORTED size_t einsumEngineCacheCapacity(EinsumEngine engine);
EINSUM_CAPI_EXPORTED void einsumEngineSetCacheCapacity(EinsumEngine engine,
                                                       size_t capacity);

/* With `enable` non-zero, the CPU kernels this engine compiles are also kept
   in the on-disk kernel cache as shared libraries with a JSON descriptor,
   keyed by einsumCompile's arguments as given (a GNU ld run, some 15 ms per
   kernel compiled): what the Python package loads in a new process without
   this library, libMLIR or libLLVM. Off by default. */
EINSUM_CAPI_EXPORTED void einsumEngineKeepSharedObjects(EinsumEngine engine,
                                                        int enable);

/* The project's version, "MAJOR.MINOR.PATCH" (static storage). */
EINSUM_CAPI_EXPORTED const char *einsumVersion(void);

/* The canonical text of `equation`: explicit output, no spaces
   ("ij,jk" -> "ij,jk->ik"). */
EINSUM_CAPI_EXPORTED int einsumCanonicalEquation(const char *equation,
                                                 char **canonical,
                                                 char **error);

/* Converts torch's sublist form to an equation string: `numOperands`
   sublists of `lengths[i]` integers in [0, 52) or EINSUM_SUBLIST_ELLIPSIS,
   and an output sublist of `outputLength` (-1: implicit output). */
EINSUM_CAPI_EXPORTED int
einsumSublistsToEquation(int numOperands, const int *lengths,
                         const int64_t *const *sublists, int outputLength,
                         const int64_t *output, char **equation, char **error);

/* Compiles `equation` for operands of the given ranks and shapes (row-major,
   contiguous) and element type, or returns the cached kernel. `options` may
   be NULL. Destroy the kernel handle with einsumKernelDestroy. */
EINSUM_CAPI_EXPORTED int
einsumCompile(EinsumEngine engine, const char *equation, int numOperands,
              const int *ranks, const int64_t *const *shapes,
              EinsumElementType type, const EinsumOptions *options,
              EinsumKernel *kernel, char **error);
EINSUM_CAPI_EXPORTED void einsumKernelDestroy(EinsumKernel kernel);

/* Compiles the gradient of `equation` (in options->semiring) with respect to
   operand `wrt`: a kernel of numOperands + 1 operands (the operands, then
   the output gradient, of the einsum's result shape) whose output has
   operand `wrt`'s shape: the vector-Jacobian product (einsum-grad). Float
   element types only. */
EINSUM_CAPI_EXPORTED int
einsumCompileGrad(EinsumEngine engine, const char *equation, int numOperands,
                  const int *ranks, const int64_t *const *shapes,
                  EinsumElementType type, const EinsumOptions *options,
                  int wrt, EinsumKernel *kernel, char **error);

/* The number of operands a kernel takes, and operand i's rank and shape
   (owned by the kernel; -1 and NULL for an i out of range). */
EINSUM_CAPI_EXPORTED int einsumKernelNumOperands(EinsumKernel kernel);
EINSUM_CAPI_EXPORTED int einsumKernelOperandRank(EinsumKernel kernel, int i);
EINSUM_CAPI_EXPORTED const int64_t *einsumKernelOperandShape(EinsumKernel kernel,
                                                             int i);

/* The output's rank and shape (owned by the kernel). */
EINSUM_CAPI_EXPORTED int einsumKernelOutputRank(EinsumKernel kernel);
EINSUM_CAPI_EXPORTED const int64_t *einsumKernelOutputShape(EinsumKernel kernel);
/* FLOPs of one run and the compile time in seconds. */
EINSUM_CAPI_EXPORTED double einsumKernelFlops(EinsumKernel kernel);
EINSUM_CAPI_EXPORTED double einsumKernelCompileSeconds(EinsumKernel kernel);

/* Runs the kernel. `inputs[i]` points to operand i's first element;
   `strides[i]` gives its strides in elements (NULL, or strides[i] NULL, for
   row-major contiguous). The output is written row-major into `output`. */
EINSUM_CAPI_EXPORTED int einsumKernelRun(EinsumKernel kernel, int numOperands,
                                         const void *const *inputs,
                                         const int64_t *const *strides,
                                         void *output, char **error);

/* The IR of `equation`'s kernel after a stage ("einsum", "linalg",
   "llvm-dialect", "llvm-ir"). */
EINSUM_CAPI_EXPORTED int
einsumEmitIR(EinsumEngine engine, const char *equation, int numOperands,
             const int *ranks, const int64_t *const *shapes,
             EinsumElementType type, const EinsumOptions *options,
             const char *stage, char **ir, char **error);

/* The contraction path report, as text or (json != 0) as JSON. */
EINSUM_CAPI_EXPORTED int
einsumExplain(EinsumEngine engine, const char *equation, int numOperands,
              const int *ranks, const int64_t *const *shapes,
              EinsumElementType type, const EinsumOptions *options, int json,
              char **report, char **error);

#ifdef __cplusplus
}
#endif

#endif /* EINSUM_C_EINSUM_H */

//===- Tensor.h - host tensors, element types and conversions ---*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The engine's plain data: the six element types (E13), dense row-major host
// tensors in 64-byte aligned memory, and element conversions to and from
// double / int64 for the reference evaluator and for printing.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_TENSOR_H
#define EINSUM_ENGINE_TENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
class Type;
namespace einsum {

enum class ElementType { F32, F64, F16, BF16, I32, I64 };

/// "f32", "f64", "f16", "bf16", "i32", "i64".
llvm::StringRef getName(ElementType type);
std::optional<ElementType> parseElementType(llvm::StringRef name);
/// Bytes per element.
size_t getByteWidth(ElementType type);
bool isFloat(ElementType type);
/// The MLIR type of `type`.
Type getMLIRType(ElementType type, MLIRContext *ctx);
/// The element type of an MLIR type, if supported.
std::optional<ElementType> fromMLIRType(Type type);

/// IEEE half and bfloat16 conversions (round to nearest even).
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToBF16(float value);

/// "2x3xf32" ("?" for a dynamic size, "f32" for a scalar).
std::string formatTensorType(llvm::ArrayRef<int64_t> shape, ElementType type);

/// Bytes of a dense tensor of `shape` and `type`, or std::nullopt when that
/// does not fit in 63 bits.
std::optional<uint64_t> getDenseByteSize(ElementType type,
                                         llvm::ArrayRef<int64_t> shape);

/// The machine's physical memory in bytes (UINT64_MAX when unknown): the
/// largest tensor, and the default memory limit of a contraction path.
uint64_t physicalMemoryBytes();

/// Row-major strides, in elements, of a dense tensor of `shape`.
llvm::SmallVector<int64_t> getRowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Alignment of every tensor buffer; unaligned buffers measurably slow the
/// vectorized kernels down.
constexpr size_t kBufferAlignment = 64;

/// Buffers of at least this size start on a huge page (2 MiB on x86-64 and
/// AArch64 Linux) and, on Linux, ask for transparent huge pages
/// (madvise(MADV_HUGEPAGE), as numpy does for its arrays): kernels whose
/// stores spread over many 4 KiB pages (large outputs of short contractions)
/// otherwise miss the TLB on most of them.
constexpr size_t kHugePageBytes = size_t(2) << 20;

/// A dense, row-major tensor on the host.
class HostTensor {
public:
  HostTensor() = default;
  /// Allocates (zeroed); aborts when memory is exhausted. Use create() for
  /// sizes that come from user input.
  HostTensor(ElementType type, llvm::ArrayRef<int64_t> shape);
  /// Allocates, or explains why it cannot.
  static llvm::Expected<HostTensor> create(ElementType type,
                                           llvm::ArrayRef<int64_t> shape);

  ElementType getElementType() const { return type; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  int64_t getNumElements() const;
  size_t getNumBytes() const { return getNumElements() * getByteWidth(type); }
  void *data() { return buffer.get(); }
  const void *data() const { return buffer.get(); }
  /// Row-major strides in elements.
  llvm::SmallVector<int64_t> getStrides() const;

  /// Element `index` (row-major) as double / as int64 (integers only).
  double getAsDouble(int64_t index) const;
  int64_t getAsInt(int64_t index) const;
  /// Stores `value`, rounded or wrapped to the element type.
  void setFromDouble(int64_t index, double value);
  void setFromInt(int64_t index, int64_t value);

  /// "2x3xf32".
  std::string getTypeString() const;

private:
  struct Free {
    void operator()(void *p) const;
  };
  ElementType type = ElementType::F32;
  llvm::SmallVector<int64_t> shape;
  std::unique_ptr<void, Free> buffer;
};

/// Parses "3x5x4xf32" (or "f32" for a scalar, "0x3xi64" with a zero-size dim).
std::optional<std::pair<llvm::SmallVector<int64_t>, ElementType>>
parseTensorType(llvm::StringRef spec);

/// Fills `tensor` with deterministic pseudo-random values from `seed`:
/// uniform in [-1, 1) for floats, integers in [-8, 8].
void fillRandom(HostTensor &tensor, uint64_t seed);
/// Fills `tensor` with 0, 1, 2, ... in row-major order.
void fillIota(HostTensor &tensor);

/// Copies between a row-major array of shape `wholeShape` and its block of
/// shape `blockShape` at `offsets` (in bounds), elements of `width` bytes:
/// into the block, or (`intoWhole`) from the block into the array.
void copyBlock(const char *whole, llvm::ArrayRef<int64_t> wholeShape,
               llvm::ArrayRef<int64_t> offsets, char *block,
               llvm::ArrayRef<int64_t> blockShape, size_t width,
               bool intoWhole);
/// The block of `whole` at `offsets` into `block` (of the same type).
void extractBlock(const HostTensor &whole, llvm::ArrayRef<int64_t> offsets,
                  HostTensor &block);
/// `block` into `whole` at `offsets`.
void insertBlock(const HostTensor &block, llvm::ArrayRef<int64_t> offsets,
                 HostTensor &whole);

/// Fills `block`, the block at `offsets` of an array of `wholeShape`, with
/// the values that fillBlockRandom gives that array's elements: a hash of
/// `seed` and each element's row-major index (uniform in [-1, 1) for
/// floats, integers in [-8, 8]), so that every rank of a grid makes its
/// own block and a whole array is the blocks put together.
void fillBlockRandom(HostTensor &block, uint64_t seed,
                     llvm::ArrayRef<int64_t> wholeShape,
                     llvm::ArrayRef<int64_t> offsets);
/// Like fillIota, by each element's row-major index in the whole array.
void fillBlockIota(HostTensor &block, llvm::ArrayRef<int64_t> wholeShape,
                   llvm::ArrayRef<int64_t> offsets);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_TENSOR_H

//===- Tensor.cpp - host tensors, element types and conversions -*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Tensor.h"
#include "einsum/Runtime/Copy.h"

#include "einsum/Dialect/Einsum/Utils/EinsumEquation.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include <sys/mman.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::einsum;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

llvm::StringRef mlir::einsum::getName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  }
  llvm_unreachable("unknown element type");
}

std::optional<ElementType> mlir::einsum::parseElementType(llvm::StringRef name) {
  for (ElementType type :
       {ElementType::F32, ElementType::F64, ElementType::F16, ElementType::BF16,
        ElementType::I32, ElementType::I64})
    if (getName(type) == name)
      return type;
  return std::nullopt;
}

size_t mlir::einsum::getByteWidth(ElementType type) {
  switch (type) {
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::F64:
  case ElementType::I64:
    return 8;
  }
  llvm_unreachable("unknown element type");
}

bool mlir::einsum::isFloat(ElementType type) {
  return type != ElementType::I32 && type != ElementType::I64;
}

Type mlir::einsum::getMLIRType(ElementType type, MLIRContext *ctx) {
  switch (type) {
  case ElementType::F32:
    return Float32Type::get(ctx);
  case ElementType::F64:
    return Float64Type::get(ctx);
  case ElementType::F16:
    return Float16Type::get(ctx);
  case ElementType::BF16:
    return BFloat16Type::get(ctx);
  case ElementType::I32:
    return IntegerType::get(ctx, 32);
  case ElementType::I64:
    return IntegerType::get(ctx, 64);
  }
  llvm_unreachable("unknown element type");
}

std::optional<ElementType> mlir::einsum::fromMLIRType(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF64())
    return ElementType::F64;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isSignlessInteger(32))
    return ElementType::I32;
  if (type.isSignlessInteger(64))
    return ElementType::I64;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Half and bfloat16
//===----------------------------------------------------------------------===//

static uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

static float bitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float mlir::einsum::halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) // Inf or NaN.
    return bitsFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24.
    float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -value : value;
  }
  return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t mlir::einsum::floatToHalf(float f) {
  uint32_t bits = floatBits(f);
  uint16_t sign = (bits >> 16) & 0x8000;
  float a = std::fabs(f);
  if (std::isnan(f))
    return sign | 0x7e00;
  if (a >= 65520.0f) // Rounds to infinity.
    return sign | 0x7c00;
  if (a < 6.103515625e-05f) {
    // Subnormal: round a * 2^24 to an integer, to nearest even.
    float scaled = std::nearbyint(std::ldexp(a, 24));
    return sign | static_cast<uint16_t>(scaled);
  }
  uint32_t abits = floatBits(a);
  // Round the 23-bit mantissa to 10 bits, to nearest even.
  uint32_t rounded = abits + 0xfff + ((abits >> 13) & 1);
  uint32_t exponent = (rounded >> 23) - 112;
  return sign | static_cast<uint16_t>((exponent << 10) |
                                      ((rounded >> 13) & 0x3ff));
}

float mlir::einsum::bf16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

uint16_t mlir::einsum::floatToBF16(float f) {
  uint32_t bits = floatBits(f);
  if (std::isnan(f))
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

void HostTensor::Free::operator()(void *p) const { std::free(p); }

std::optional<uint64_t>
mlir::einsum::getDenseByteSize(ElementType type,
                               llvm::ArrayRef<int64_t> shape) {
  uint64_t bytes = getByteWidth(type);
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d == 0)
      return 0;
    if (bytes > (uint64_t(1) << 62) / static_cast<uint64_t>(d))
      return std::nullopt;
    bytes *= static_cast<uint64_t>(d);
  }
  return bytes;
}

/// A zeroed, aligned buffer of at least `bytes` (never null), or null; on
/// huge pages from kHugePageBytes on.
static void *allocateBuffer(uint64_t bytes) {
  uint64_t alignment =
      bytes >= kHugePageBytes ? kHugePageBytes : kBufferAlignment;
  bytes = std::max<uint64_t>(bytes, alignment);
  bytes = (bytes + alignment - 1) / alignment * alignment;
  void *p = std::aligned_alloc(alignment, bytes);
  if (!p)
    return nullptr;
#ifdef MADV_HUGEPAGE
  // Advice only: where transparent huge pages are off, 4 KiB pages back the
  // buffer as before.
  if (alignment == kHugePageBytes)
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
  std::memset(p, 0, bytes);
  return p;
}

uint64_t mlir::einsum::physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return ~uint64_t(0);
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

HostTensor::HostTensor(ElementType type, llvm::ArrayRef<int64_t> shape)
    : type(type), shape(shape) {
  void *p = allocateBuffer(getDenseByteSize(type, shape).value_or(0));
  if (!p)
    llvm::report_fatal_error("einsum: out of memory allocating a tensor");
  buffer.reset(p);
}

llvm::Expected<HostTensor> HostTensor::create(ElementType type,
                                              llvm::ArrayRef<int64_t> shape) {
  std::string typeText = formatTensorType(shape, type);
  std::optional<uint64_t> bytes = getDenseByteSize(type, shape);
  if (!bytes)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "a " + typeText + " tensor is too large");
  if (*bytes > physicalMemoryBytes())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a " + typeText + " tensor needs " + std::to_string(*bytes) +
            " bytes, more than the machine's " +
            std::to_string(physicalMemoryBytes()) + " bytes of memory");
  HostTensor tensor;
  tensor.type = type;
  tensor.shape.assign(shape.begin(), shape.end());
  void *p = allocateBuffer(*bytes);
  if (!p)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot allocate " + std::to_string(*bytes) + " bytes for a " +
            typeText + " tensor");
  tensor.buffer.reset(p);
  return std::move(tensor);
}

int64_t HostTensor::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

llvm::SmallVector<int64_t>
mlir::einsum::getRowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(shape[i + 1], 1);
  return strides;
}

llvm::SmallVector<int64_t> HostTensor::getStrides() const {
  return getRowMajorStrides(shape);
}

double HostTensor::getAsDouble(int64_t i) const {
  const void *p = data();
  switch (type) {
  case ElementType::F32:
    return static_cast<const float *>(p)[i];
  case ElementType::F64:
    return static_cast<const double *>(p)[i];
  case ElementType::F16:
    return halfToFloat(static_cast<const uint16_t *>(p)[i]);
  case ElementType::BF16:
    return bf16ToFloat(static_cast<const uint16_t *>(p)[i]);
  case ElementType::I32:
    return static_cast<const int32_t *>(p)[i];
  case ElementType::I64:
    return static_cast<double>(static_cast<const int64_t *>(p)[i]);
  }
  llvm_unreachable("unknown element type");
}

int64_t HostTensor::getAsInt(int64_t i) const {
  if (type == ElementType::I32)
    return static_cast<const int32_t *>(data())[i];
  if (type == ElementType::I64)
    return static_cast<const int64_t *>(data())[i];
  return static_cast<int64_t>(getAsDouble(i));
}

void HostTensor::setFromDouble(int64_t i, double value) {
  void *p = data();
  switch (type) {
  case ElementType::F32:
    static_cast<float *>(p)[i] = static_cast<float>(value);
    return;
  case ElementType::F64:
    static_cast<double *>(p)[i] = value;
    return;
  case ElementType::F16:
    static_cast<uint16_t *>(p)[i] = floatToHalf(static_cast<float>(value));
    return;
  case ElementType::BF16:
    static_cast<uint16_t *>(p)[i] = floatToBF16(static_cast<float>(value));
    return;
  case ElementType::I32:
  case ElementType::I64:
    setFromInt(i, static_cast<int64_t>(value));
    return;
  }
}

void HostTensor::setFromInt(int64_t i, int64_t value) {
  if (type == ElementType::I32)
    static_cast<int32_t *>(data())[i] =
        static_cast<int32_t>(static_cast<uint32_t>(value));
  else if (type == ElementType::I64)
    static_cast<int64_t *>(data())[i] = value;
  else
    setFromDouble(i, static_cast<double>(value));
}

std::string mlir::einsum::formatTensorType(llvm::ArrayRef<int64_t> shape,
                                          ElementType type) {
  std::string s;
  for (int64_t d : shape)
    s += (d == kDynamicSize ? std::string("?") : std::to_string(d)) +
         "x";
  return s + getName(type).str();
}

std::string HostTensor::getTypeString() const {
  return formatTensorType(shape, type);
}

std::optional<std::pair<llvm::SmallVector<int64_t>, ElementType>>
mlir::einsum::parseTensorType(llvm::StringRef spec) {
  llvm::SmallVector<llvm::StringRef> parts;
  spec.split(parts, 'x');
  std::optional<ElementType> type = parseElementType(parts.back());
  if (!type)
    return std::nullopt;
  llvm::SmallVector<int64_t> shape;
  for (llvm::StringRef part : llvm::ArrayRef(parts).drop_back()) {
    uint64_t size;
    if (part.empty() || !llvm::all_of(part, llvm::isDigit) ||
        part.getAsInteger(10, size) || size > (uint64_t(1) << 40))
      return std::nullopt;
    shape.push_back(static_cast<int64_t>(size));
  }
  return std::make_pair(shape, *type);
}

void mlir::einsum::fillRandom(HostTensor &tensor, uint64_t seed) {
  std::mt19937_64 rng(seed);
  int64_t n = tensor.getNumElements();
  if (isFloat(tensor.getElementType())) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (int64_t i = 0; i < n; ++i)
      tensor.setFromDouble(i, dist(rng));
  } else {
    std::uniform_int_distribution<int64_t> dist(-8, 8);
    for (int64_t i = 0; i < n; ++i)
      tensor.setFromInt(i, dist(rng));
  }
}

void mlir::einsum::fillIota(HostTensor &tensor) {
  for (int64_t i = 0, n = tensor.getNumElements(); i < n; ++i)
    tensor.setFromInt(i, i);
}

void mlir::einsum::copyBlock(const char *whole,
                             llvm::ArrayRef<int64_t> wholeShape,
                             llvm::ArrayRef<int64_t> offsets, char *block,
                             llvm::ArrayRef<int64_t> blockShape, size_t width,
                             bool intoWhole) {
  // The block is a strided view of the row-major whole.
  llvm::SmallVector<int64_t> wholeStrides = getRowMajorStrides(wholeShape);
  int64_t start = 0;
  for (auto [offset, stride] : llvm::zip_equal(offsets, wholeStrides))
    start += offset * stride;
  runtime::copyStrided(const_cast<char *>(whole) + start * width, block,
                       blockShape.data(), wholeStrides.data(),
                       blockShape.size(), width, /*toDense=*/!intoWhole);
}

void mlir::einsum::extractBlock(const HostTensor &whole,
                                llvm::ArrayRef<int64_t> offsets,
                                HostTensor &block) {
  copyBlock(static_cast<const char *>(whole.data()), whole.getShape(), offsets,
            static_cast<char *>(block.data()), block.getShape(),
            getByteWidth(whole.getElementType()), /*intoWhole=*/false);
}

void mlir::einsum::insertBlock(const HostTensor &block,
                               llvm::ArrayRef<int64_t> offsets,
                               HostTensor &whole) {
  copyBlock(static_cast<const char *>(whole.data()), whole.getShape(), offsets,
            const_cast<char *>(static_cast<const char *>(block.data())),
            block.getShape(), getByteWidth(whole.getElementType()),
            /*intoWhole=*/true);
}

/// Calls `visit(blockIndex, wholeIndex)` for every element of the block at
/// `offsets` of an array of `wholeShape`, both row-major.
static void forEachBlockElement(
    llvm::ArrayRef<int64_t> blockShape, llvm::ArrayRef<int64_t> wholeShape,
    llvm::ArrayRef<int64_t> offsets,
    llvm::function_ref<void(int64_t, uint64_t)> visit) {
  llvm::SmallVector<int64_t> strides = getRowMajorStrides(wholeShape);
  int64_t n = 1;
  for (int64_t size : blockShape)
    n *= size;
  llvm::SmallVector<int64_t> index(blockShape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t global = 0;
    for (unsigned k = 0; k < blockShape.size(); ++k)
      global += (offsets[k] + index[k]) * strides[k];
    visit(i, global);
    for (int k = static_cast<int>(blockShape.size()) - 1; k >= 0; --k) {
      if (++index[k] < blockShape[k])
        break;
      index[k] = 0;
    }
  }
}

void mlir::einsum::fillBlockRandom(HostTensor &block, uint64_t seed,
                                   llvm::ArrayRef<int64_t> wholeShape,
                                   llvm::ArrayRef<int64_t> offsets) {
  bool isFloatType = isFloat(block.getElementType());
  forEachBlockElement(
      block.getShape(), wholeShape, offsets, [&](int64_t i, uint64_t global) {
        // splitmix64 of the seed and the index.
        uint64_t z = seed + 0x9e3779b97f4a7c15ull * (global + 1);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        if (isFloatType)
          block.setFromDouble(i, static_cast<double>(z >> 11) * 0x1.0p-52 -
                                     1.0);
        else
          block.setFromInt(i, static_cast<int64_t>(z % 17) - 8);
      });
}

void mlir::einsum::fillBlockIota(HostTensor &block,
                                 llvm::ArrayRef<int64_t> wholeShape,
                                 llvm::ArrayRef<int64_t> offsets) {
  forEachBlockElement(block.getShape(), wholeShape, offsets,
                      [&](int64_t i, uint64_t global) {
                        block.setFromInt(i, static_cast<int64_t>(global));
                      });
}

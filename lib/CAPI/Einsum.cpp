//===- Einsum.cpp - C API of einsum-mlir ------------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum-c/Einsum.h"

#include "einsum/Engine/Engine.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

using namespace mlir::einsum;

struct EinsumEngineImpl {
  Engine engine;
  bool keepSharedObjects = false;
};

struct EinsumKernelImpl {
  std::shared_ptr<Kernel> kernel;
  /// The operands (and a gradient kernel's output gradient).
  llvm::ArrayRef<llvm::SmallVector<int64_t>> getInputShapes() const {
    return kernel->getInputShapes();
  }
};

namespace {
char *copyString(llvm::StringRef s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (!out)
    return nullptr;
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

int fail(char **error, llvm::StringRef message) {
  if (error)
    *error = copyString(message);
  return 1;
}

std::optional<ElementType> toElementType(EinsumElementType type) {
  switch (type) {
  case EINSUM_F32:
    return ElementType::F32;
  case EINSUM_F64:
    return ElementType::F64;
  case EINSUM_F16:
    return ElementType::F16;
  case EINSUM_BF16:
    return ElementType::BF16;
  case EINSUM_I32:
    return ElementType::I32;
  case EINSUM_I64:
    return ElementType::I64;
  }
  return std::nullopt;
}

/// The common arguments of compile, emit and explain, validated.
struct Request {
  llvm::SmallVector<llvm::SmallVector<int64_t>> shapes;
  ElementType elementType = ElementType::F32;
  CompileOptions options;
};

int prepare(EinsumEngine engine, const char *equation, int numOperands,
            const int *ranks, const int64_t *const *shapes,
            EinsumElementType type, const EinsumOptions *options,
            Request &request, char **error) {
  auto &shapeList = request.shapes;
  ElementType &elementType = request.elementType;
  CompileOptions &compileOptions = request.options;
  if (!engine)
    return fail(error, "einsum: no engine");
  if (!equation)
    return fail(error, "einsum: no equation");
  if (numOperands < 0 || (numOperands > 0 && (!ranks || !shapes)))
    return fail(error, "einsum: invalid operand list");
  for (int i = 0; i < numOperands; ++i) {
    if (ranks[i] < 0 || (ranks[i] > 0 && !shapes[i]))
      return fail(error, "einsum: operand " + std::to_string(i) +
                             ": invalid shape");
    shapeList.emplace_back(shapes[i], shapes[i] + ranks[i]);
  }
  std::optional<ElementType> parsed = toElementType(type);
  if (!parsed)
    return fail(error, "einsum: invalid element type " +
                           std::to_string(static_cast<int>(type)));
  elementType = *parsed;
  EinsumOptions defaults;
  einsumOptionsInit(&defaults);
  if (!options)
    options = &defaults;
  compileOptions.target = options->target ? options->target : "cpu";
  compileOptions.threads =
      options->threads ? options->threads
                       : std::max(1u, std::thread::hardware_concurrency());
  compileOptions.pathStrategy =
      options->pathStrategy ? options->pathStrategy : "auto";
  compileOptions.memoryLimit = options->memoryLimit;
  compileOptions.minimize = options->minimize ? options->minimize : "flops";
  compileOptions.semiring =
      options->semiring ? options->semiring : "plus_times";
  PathOptions pathOptions;
  if (llvm::Error err =
          parsePathOption(compileOptions.pathStrategy, pathOptions))
    return fail(error, "einsum: " + llvm::toString(std::move(err)));
  if (!parsePathObjective(compileOptions.minimize))
    return fail(error, "einsum: unknown minimize '" + compileOptions.minimize +
                           "' (expected flops or memory)");
  return 0;
}

/// Copies a strided array into a contiguous row-major buffer. Strides may be
/// negative (numpy's reversed views): offsets are signed element counts
/// from `source`, which points at element (0, ..., 0).
void packStrided(const char *source, llvm::ArrayRef<int64_t> shape,
                 const int64_t *strides, size_t width, char *dest) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  auto step = static_cast<std::ptrdiff_t>(width);
  llvm::SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    std::ptrdiff_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset += index[d] * strides[d];
    std::memcpy(dest + linear * step, source + offset * step, width);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}
} // namespace

extern "C" {

void einsumOptionsInit(EinsumOptions *options) {
  if (!options)
    return;
  options->target = "cpu";
  options->threads = 0;
  options->pathStrategy = "auto";
  options->memoryLimit = 0;
  options->minimize = "flops";
  options->semiring = "plus_times";
}

void einsumFreeString(char *string) { std::free(string); }

const char *einsumVersion(void) { return EINSUM_MLIR_VERSION; }

int einsumCanonicalEquation(const char *equation, char **canonical,
                            char **error) {
  if (!equation || !canonical)
    return fail(error, "einsum: no equation");
  llvm::Expected<EinsumEquation> parsed = EinsumEquation::parse(equation);
  if (!parsed)
    return fail(error, "einsum: " + llvm::toString(parsed.takeError()));
  *canonical = copyString(parsed->str());
  return 0;
}

size_t einsumElementSize(EinsumElementType type) {
  std::optional<ElementType> parsed = toElementType(type);
  return parsed ? getByteWidth(*parsed) : 0;
}

int einsumEngineCreate(EinsumEngine *engine, char **error) {
  if (!engine)
    return fail(error, "einsum: no engine pointer");
  *engine = new EinsumEngineImpl();
  return 0;
}

void einsumEngineDestroy(EinsumEngine engine) { delete engine; }

void einsumEngineKeepSharedObjects(EinsumEngine engine, int enable) {
  if (engine)
    engine->keepSharedObjects = enable != 0;
}

size_t einsumEngineCacheSize(EinsumEngine engine) {
  return engine ? engine->engine.getCacheSize() : 0;
}

size_t einsumEngineCacheHits(EinsumEngine engine) {
  return engine ? engine->engine.getCacheHits() : 0;
}

size_t einsumEngineCacheEvictions(EinsumEngine engine) {
  return engine ? engine->engine.getCacheEvictions() : 0;
}

size_t einsumEngineCacheCapacity(EinsumEngine engine) {
  return engine ? engine->engine.getCacheCapacity() : 0;
}

void einsumEngineSetCacheCapacity(EinsumEngine engine, size_t capacity) {
  if (engine)
    engine->engine.setCacheCapacity(capacity);
}

int einsumSublistsToEquation(int numOperands, const int *lengths,
                             const int64_t *const *sublists, int outputLength,
                             const int64_t *output, char **equation,
                             char **error) {
  if (!equation || numOperands < 0 ||
      (numOperands > 0 && (!lengths || !sublists)) ||
      (outputLength > 0 && !output))
    return fail(error, "einsum: invalid sublists");
  llvm::SmallVector<llvm::SmallVector<int64_t>> lists;
  for (int i = 0; i < numOperands; ++i) {
    if (lengths[i] < 0 || (lengths[i] > 0 && !sublists[i]))
      return fail(error, "einsum: invalid sublist of operand " +
                             std::to_string(i));
    lists.emplace_back(sublists[i], sublists[i] + lengths[i]);
  }
  std::optional<llvm::ArrayRef<int64_t>> out;
  if (outputLength >= 0)
    out = llvm::ArrayRef<int64_t>(output, outputLength);
  llvm::Expected<EinsumEquation> parsed =
      EinsumEquation::fromSublists(lists, out);
  if (!parsed)
    return fail(error, "einsum: " + llvm::toString(parsed.takeError()));
  std::string text;
  for (int i = 0; i < numOperands; ++i)
    text += (i ? "," : "") + parsed->getInput(i).str();
  if (parsed->hasExplicitOutput())
    text += "->" + parsed->getOutput().str();
  *equation = copyString(text);
  return 0;
}

/// The key under which the disk cache also keeps a kernel as a shared
/// library, which the Python package loads in a new process without this
/// library (and so without libMLIR and libLLVM): einsumCompile's arguments
/// as given. python/einsum_mlir/_light.py builds the same string.
static std::string getSharedObjectKey(const char *equation,
                                      const Request &request,
                                      const EinsumOptions *options) {
  EinsumOptions defaults;
  einsumOptionsInit(&defaults);
  const EinsumOptions &given = options ? *options : defaults;
  std::string key = "capi1|" + std::string(equation) + "|" +
                    getName(request.elementType).str() + "|" +
                    request.options.target + "|" +
                    std::to_string(given.threads) + "|" +
                    request.options.pathStrategy + "|" +
                    std::to_string(given.memoryLimit) + "|" +
                    request.options.minimize + "|" +
                    request.options.semiring;
  for (const llvm::SmallVector<int64_t> &shape : request.shapes) {
    key += "|";
    for (auto [i, size] : llvm::enumerate(shape))
      key += (i ? "x" : "") + std::to_string(size);
  }
  return key;
}

namespace {
/// Compiles a prepared request into a kernel handle.
int compileRequest(EinsumEngine engine, const char *equation,
                   const Request &request, EinsumKernel *kernel,
                   char **error) {
  llvm::Expected<std::shared_ptr<Kernel>> compiled = engine->engine.compile(
      equation, request.shapes, request.elementType, request.options);
  if (!compiled)
    return fail(error, "einsum: " + llvm::toString(compiled.takeError()));
  *kernel = new EinsumKernelImpl{std::move(*compiled)};
  return 0;
}
} // namespace

int einsumCompile(EinsumEngine engine, const char *equation, int numOperands,
                  const int *ranks, const int64_t *const *shapes,
                  EinsumElementType type, const EinsumOptions *options,
                  EinsumKernel *kernel, char **error) {
  if (!kernel)
    return fail(error, "einsum: no kernel pointer");
  Request request;
  if (int rc = prepare(engine, equation, numOperands, ranks, shapes, type,
                       options, request, error))
    return rc;
  if (engine->keepSharedObjects)
    request.options.sharedObjectKey =
        getSharedObjectKey(equation, request, options);
  return compileRequest(engine, equation, request, kernel, error);
}

void einsumKernelDestroy(EinsumKernel kernel) { delete kernel; }

int einsumCompileGrad(EinsumEngine engine, const char *equation,
                      int numOperands, const int *ranks,
                      const int64_t *const *shapes, EinsumElementType type,
                      const EinsumOptions *options, int wrt,
                      EinsumKernel *kernel, char **error) {
  if (!kernel)
    return fail(error, "einsum: no kernel pointer");
  Request request;
  if (int rc = prepare(engine, equation, numOperands, ranks, shapes, type,
                       options, request, error))
    return rc;
  if (wrt < 0)
    return fail(error, "einsum: the operand to differentiate must be 0 or "
                       "more, not " +
                           std::to_string(wrt));
  request.options.gradOperand = wrt;
  return compileRequest(engine, equation, request, kernel, error);
}

int einsumKernelNumOperands(EinsumKernel kernel) {
  return kernel ? static_cast<int>(kernel->getInputShapes().size()) : -1;
}

/// Operand i's shape, or null for an i out of range.
static const llvm::SmallVector<int64_t> *getOperandShape(EinsumKernel kernel,
                                                         int i) {
  if (!kernel || i < 0 ||
      i >= static_cast<int>(kernel->getInputShapes().size()))
    return nullptr;
  return &kernel->getInputShapes()[i];
}

int einsumKernelOperandRank(EinsumKernel kernel, int i) {
  const llvm::SmallVector<int64_t> *shape = getOperandShape(kernel, i);
  return shape ? static_cast<int>(shape->size()) : -1;
}

const int64_t *einsumKernelOperandShape(EinsumKernel kernel, int i) {
  const llvm::SmallVector<int64_t> *shape = getOperandShape(kernel, i);
  return shape ? shape->data() : nullptr;
}

int einsumKernelOutputRank(EinsumKernel kernel) {
  return kernel ? static_cast<int>(kernel->kernel->getOutputShape().size())
                : -1;
}

const int64_t *einsumKernelOutputShape(EinsumKernel kernel) {
  return kernel ? kernel->kernel->getOutputShape().data() : nullptr;
}

double einsumKernelFlops(EinsumKernel kernel) {
  return kernel ? kernel->kernel->getFlops() : 0;
}

double einsumKernelCompileSeconds(EinsumKernel kernel) {
  return kernel ? kernel->kernel->getCompileSeconds() : 0;
}

int einsumKernelRun(EinsumKernel kernel, int numOperands,
                    const void *const *inputs, const int64_t *const *strides,
                    void *output, char **error) {
  if (!kernel)
    return fail(error, "einsum: no kernel");
  if (numOperands != static_cast<int>(kernel->getInputShapes().size()))
    return fail(error, "einsum: the kernel takes " +
                           std::to_string(kernel->getInputShapes().size()) +
                           " operands, but " + std::to_string(numOperands) +
                           " were given");
  if ((numOperands > 0 && !inputs) || !output)
    return fail(error, "einsum: missing buffers");
  llvm::SmallVector<const void *> buffers;
  std::vector<std::unique_ptr<char, void (*)(void *)>> packed;
  size_t elementSize = getByteWidth(kernel->kernel->getElementType());
  for (int i = 0; i < numOperands; ++i) {
    if (!inputs[i])
      return fail(error, "einsum: operand " + std::to_string(i) +
                             " has no buffer");
    if (!strides || !strides[i]) {
      buffers.push_back(inputs[i]);
      continue;
    }
    // The kernel's shapes were compiled, so their byte size fits.
    llvm::ArrayRef<int64_t> shape = kernel->getInputShapes()[i];
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    size_t bytes = std::max<int64_t>(count, 1) * elementSize;
    auto *copy = static_cast<char *>(std::malloc(bytes));
    if (!copy)
      return fail(error, "einsum: cannot allocate " + std::to_string(bytes) +
                             " bytes to copy strided operand " +
                             std::to_string(i));
    packed.emplace_back(copy, std::free);
    packStrided(static_cast<const char *>(inputs[i]), shape, strides[i],
                elementSize, packed.back().get());
    buffers.push_back(packed.back().get());
  }
  if (llvm::Error err = kernel->kernel->runOnBuffers(buffers, output))
    return fail(error, "einsum: " + llvm::toString(std::move(err)));
  return 0;
}

int einsumEmitIR(EinsumEngine engine, const char *equation, int numOperands,
                 const int *ranks, const int64_t *const *shapes,
                 EinsumElementType type, const EinsumOptions *options,
                 const char *stage, char **ir, char **error) {
  Request request;
  if (int rc = prepare(engine, equation, numOperands, ranks, shapes, type,
                       options, request, error))
    return rc;
  std::optional<Stage> parsed = parseStage(stage ? stage : "");
  if (!parsed || !ir)
    return fail(error, std::string("einsum: unknown stage '") +
                           (stage ? stage : "") +
                           "' (expected einsum, linalg, llvm-dialect or "
                           "llvm-ir)");
  llvm::Expected<std::string> text =
      engine->engine.emit(equation, request.shapes, request.elementType,
                          *parsed, request.options);
  if (!text)
    return fail(error, "einsum: " + llvm::toString(text.takeError()));
  *ir = copyString(*text);
  return 0;
}

int einsumExplain(EinsumEngine engine, const char *equation, int numOperands,
                  const int *ranks, const int64_t *const *shapes,
                  EinsumElementType type, const EinsumOptions *options,
                  int json, char **report, char **error) {
  Request request;
  if (int rc = prepare(engine, equation, numOperands, ranks, shapes, type,
                       options, request, error))
    return rc;
  if (!report)
    return fail(error, "einsum: no report pointer");
  llvm::Expected<ContractionPath> path = engine->engine.explain(
      equation, request.shapes, request.elementType, request.options);
  if (!path)
    return fail(error, "einsum: " + llvm::toString(path.takeError()));
  *report = copyString(json ? path->getJSON(equation)
                            : path->getReport(equation));
  return 0;
}

} // extern "C"

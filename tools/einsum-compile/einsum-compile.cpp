//===- einsum-compile.cpp - einsum kernels compiled ahead of time ---------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Compiles einsum equations (or functions of an .mlir file) into a
// relocatable object or a shared library, with a C header that declares one
// function per kernel. What the kernels call at run time is in
// libEinsumRuntime (einsum-c/Runtime.h), which needs neither MLIR nor LLVM:
//
//   einsum-compile --equation='bij,bjk->bik' \
//       --input-types=8x64x32xf32,8x32x48xf32 --name=bmm -o bmm.o \
//       --header=bmm.h
//   cc app.c bmm.o -lEinsumRuntime
//
//===----------------------------------------------------------------------===//

#include "../common/ToolSupport.h"

#include "einsum/Dialect/Einsum/Transforms/ContractionPath.h"
#include "einsum/Engine/Engine.h"
#include "einsum/Engine/Tensor.h"
#include "einsum/Transforms/VectorTarget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::einsum;
namespace cl = llvm::cl;

static cl::OptionCategory category("einsum-compile options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("[kernels.mlir]"),
                                      cl::cat(category));
static cl::list<std::string> equations(
    "equation",
    cl::desc("An einsum equation, verbatim; one kernel per --equation, each "
             "with its --input-types and --name"),
    cl::value_desc("EQUATION"), cl::cat(category));
static cl::list<std::string> inputTypes(
    "input-types",
    cl::desc("The operands of the matching --equation, comma-separated: "
             "8x64x32xf32,8x32x48xf32 (? for a size known only at run time: "
             "?x64xf32). Types: f32, f64, f16, bf16, i32, i64"),
    cl::value_desc("TYPES"), cl::cat(category));
static cl::list<std::string> names(
    "name",
    cl::desc("The C function of the matching --equation or --entry (default: "
             "einsum_N for equations, the function's name for entries)"),
    cl::value_desc("NAME"), cl::cat(category));
static cl::list<std::string>
    entries("entry", cl::desc("A function of the .mlir file to compile"),
            cl::value_desc("FUNCTION"), cl::cat(category));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("The output: FILE.o (a relocatable object) or FILE.so "
                        "(a shared library that records libEinsumRuntime)"),
               cl::value_desc("FILE"), cl::Required, cl::cat(category));
static cl::opt<std::string>
    headerFile("header", cl::desc("Write the C header of the kernels here"),
               cl::value_desc("FILE.h"), cl::cat(category));
static cl::opt<std::string>
    cpuOpt("cpu",
           cl::desc("The CPU the kernels are compiled for: native (this "
                    "machine's), or an LLVM CPU name such as x86-64-v3 (AVX2) "
                    "or x86-64-v4 (AVX-512)"),
           cl::value_desc("CPU"), cl::init("native"), cl::cat(category));
static cl::opt<std::string>
    targetOpt("target",
              cl::desc("Where the kernels run: cpu, or cuda (an NVIDIA GPU: "
                       "host code with the device code embedded, loaded "
                       "through the CUDA driver at run time)"),
              cl::init("cpu"), cl::cat(category));
static cl::opt<std::string>
    chipOpt("chip", cl::desc("The NVIDIA GPU the cuda target compiles for"),
            cl::value_desc("sm_XY"), cl::init("sm_90"), cl::cat(category));
static cl::opt<std::string> gpuFormatOpt(
    "gpu-format",
    cl::desc("What the cuda target's device code is embedded as: isa (PTX, "
             "compiled by the driver), bin (cubin, needs ptxas) or fatbin"),
    cl::value_desc("FORMAT"), cl::init("isa"), cl::cat(category));
static cl::opt<std::string>
    pathOpt("path",
            cl::desc("Contraction path search for three or more operands: "
                     "auto, optimal, dp, greedy, left-to-right, or "
                     "explicit:1,2;0,1"),
            cl::init("auto"), cl::cat(category));
static cl::opt<uint64_t>
    memoryLimitOpt("memory-limit",
                   cl::desc("Largest intermediate of the path in bytes"),
                   cl::init(0), cl::cat(category));
static cl::opt<std::string>
    runtimeDirOpt("runtime-dir",
                  cl::desc("Where libEinsumRuntime.so is, for a shared "
                           "library (default: ../lib next to einsum-compile)"),
                  cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> runtimeRpathOpt(
    "runtime-rpath",
    cl::desc("The run path a shared library records for libEinsumRuntime.so "
             "(default: --runtime-dir; '$ORIGIN' for one shipped beside it)"),
    cl::value_desc("PATH"), cl::cat(category));

/// Files written so far, renamed into place only once all are: a failed
/// run leaves no output (nor a header without its object).
static std::vector<std::string> temporaries;

[[noreturn]] static void fail(const llvm::Twine &message) {
  for (const std::string &path : temporaries)
    llvm::sys::fs::remove(path);
  llvm::errs() << "einsum-compile: error: " << message << "\n";
  std::exit(1);
}

/// A new temporary file beside `path`, removed on failure.
static std::string createTemporary(llvm::StringRef path, int *fd = nullptr) {
  llvm::SmallString<256> temporary;
  std::error_code ec =
      fd ? llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", *fd,
                                           temporary)
         : llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", temporary);
  if (ec)
    fail("cannot write " + path + ": " + ec.message());
  temporaries.push_back(temporary.str().str());
  return temporaries.back();
}

/// "8x64x32xf32" or "?x64xf32": the shape (kDynamicSize for ?) and type.
static std::pair<llvm::SmallVector<int64_t>, ElementType>
parseOperandType(llvm::StringRef spec, unsigned kernel, unsigned operand) {
  llvm::SmallVector<llvm::StringRef> parts;
  spec.split(parts, 'x');
  std::optional<ElementType> type = parseElementType(parts.back());
  auto where = [&]() -> std::string {
    return ("--input-types of kernel " + llvm::Twine(kernel) + ", operand " +
            llvm::Twine(operand) + " ('" + spec + "')")
        .str();
  };
  if (!type)
    fail(where() + ": unknown element type '" + parts.back() +
         "' (expected f32, f64, f16, bf16, i32 or i64)");
  llvm::SmallVector<int64_t> shape;
  for (llvm::StringRef size : llvm::ArrayRef(parts).drop_back()) {
    int64_t value;
    if (size == "?")
      shape.push_back(kDynamicSize);
    else if (!size.getAsInteger(10, value) && value >= 0)
      shape.push_back(value);
    else
      fail(where() + ": '" + size + "' is not a size (a number or ?)");
  }
  return {shape, *type};
}

static llvm::StringRef getCType(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "float";
  case ElementType::F64:
    return "double";
  case ElementType::F16:
  case ElementType::BF16:
    return "uint16_t";
  case ElementType::I32:
    return "int32_t";
  case ElementType::I64:
    return "int64_t";
  }
  return "void";
}

static std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  for (auto [i, size] : llvm::enumerate(shape))
    text += (i ? "x" : "") + (size < 0 ? std::string("?")
                                       : std::to_string(size));
  return text;
}

/// The C header of the kernels of `infos`.
static std::string makeHeader(llvm::ArrayRef<AotKernelInfo> infos,
                              llvm::StringRef cpu, unsigned threads) {
  bool gpu = targetOpt == "cuda";
  std::string guard = "EINSUM_KERNELS_";
  for (char c : llvm::sys::path::filename(headerFile.getValue()))
    guard += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* Generated by einsum-compile " EINSUM_MLIR_VERSION
        ": einsum kernels compiled ahead of time for the CPU '"
     << cpu << "'" << (threads > 1 ? ", " + std::to_string(threads) +
                                         " OpenMP threads each"
                                   : std::string(", one thread each"))
     << ".\n"
     << (gpu ? "\n   Target: cuda, " + chipOpt + " (" + gpuFormatOpt +
                    "): the device code is loaded through the CUDA driver "
                    "(libcuda.so.1) when the program starts."
             : std::string())
     << R"(
   ABI of every function below:
   - Operands: the inputs, then the output, each as three pointers: its
     elements, its sizes (int64_t[rank]) and its strides (int64_t[rank], in
     elements, not bytes). Sizes may be NULL where the kernel's sizes are
     all known (the comment says); they are checked against them. Strides
     NULL: row-major (C order); other strides (any non-negative ones) are
     copied to and from row-major buffers around the call.
   - Element types: float (f32), double (f64), int32_t, int64_t; f16 and
     bf16 elements are their 16 bits in a uint16_t.
   - Alignment: any. Compute-bound kernels copy inputs that are not 64-byte
     aligned to aligned buffers first: align them to skip the copy.
   - Ownership: the caller owns every buffer; nothing is kept after the call.
     The output must not overlap an input. Temporaries come from
     libEinsumRuntime's heap, which keeps blocks of 1 MiB and more for the
     next call (einsumRuntimeTrimWorkspace() frees them).
   - Threads: the functions may be called from several threads at once.)"
     << (threads > 1 && !gpu ? R"(
     Each call runs on the OpenMP runtime: link libomp.)"
                             : "")
     << (gpu ? R"(
   - cuda: every pointer is device memory (cuMemAlloc, cudaMalloc), every
     operand row-major (strides NULL or row-major); the call returns when the
     result is written. EINSUM_STATUS_NO_DEVICE: no driver or device.)"
             : "")
     << R"(
   - Return value: an EinsumStatus of einsum-c/Runtime.h, 0 on success; the
     message of a failure is einsumRuntimeLastError().
   Link: cc app.c KERNELS.o -lEinsumRuntime)"
     << (threads > 1 ? " -lomp" : "") << R"( (no MLIR, no LLVM). */

)";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#include \"einsum-c/Runtime.h\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const AotKernelInfo &info : infos) {
    unsigned numOperands = info.signature.shapes.size();
    os << "\n/* " << info.name << ": " << info.description << ", "
       << getName(info.types.back()) << ". ";
    for (unsigned i = 0; i < numOperands; ++i) {
      os << (i + 1 == numOperands ? "out" : "in" + std::to_string(i)) << " "
         << formatShape(info.signature.shapes[i]) << " "
         << getName(info.types[i]) << (i + 1 == numOperands ? "." : ", ");
    }
    bool dynamic = llvm::any_of(info.signature.shapes, [](const auto &shape) {
      return llvm::any_of(shape, [](int64_t size) { return size < 0; });
    });
    os << (dynamic ? " An operand with a ? size needs its sizes argument "
                     "(the output's must be what the equation makes of the "
                     "inputs'); the others' may be NULL."
                   : " Sizes may be NULL.");
    if (info.flops > 0)
      os << " " << llvm::format("%.0f", info.flops) << " FLOPs a call.";
    os << " */\nint " << info.name << "(";
    for (unsigned i = 0; i < numOperands; ++i) {
      std::string operand =
          i + 1 == numOperands ? "out" : "in" + std::to_string(i);
      os << (i ? ",\n    " : "") << (i + 1 == numOperands ? "" : "const ")
         << getCType(info.types[i]) << " *" << operand
         << ", const int64_t *" << operand << "_sizes, const int64_t *"
         << operand << "_strides";
    }
    os << ");\n";
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return text;
}

/// Writes `contents` to a temporary file for `path`; returns its name.
static std::string writeTemporary(llvm::StringRef path,
                                  llvm::StringRef contents) {
  int fd;
  std::string temporary = createTemporary(path, &fd);
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << contents;
  os.close();
  if (os.has_error()) {
    std::error_code ec = os.error();
    os.clear_error();
    fail("cannot write " + path + ": " + ec.message());
  }
  return temporary;
}

/// Links `object` into a temporary file for the shared library `path` with
/// LLVM's lld (or the system's cc); returns its name. The library records
/// libEinsumRuntime (and libomp for threaded kernels) with their
/// directories as run paths.
static std::string linkSharedLibrary(llvm::StringRef path,
                                     llvm::StringRef object,
                                     llvm::StringRef runtimeDir,
                                     unsigned threads) {
  std::string linker;
  bool isLld = true;
  for (const char *name : {"ld.lld-22", "ld.lld"}) {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(
        name, {EINSUM_LLVM_TOOLS_DIR});
    if (!found)
      found = llvm::sys::findProgramByName(name);
    if (found) {
      linker = *found;
      break;
    }
  }
  if (linker.empty()) {
    llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName("cc");
    if (!cc)
      fail("no linker to make " + path +
           " (ld.lld or cc); write an object (-o FILE.o) instead");
    linker = *cc;
    isLld = false;
  }
  std::string temporary = createTemporary(path);
  std::string runtimeDirText = runtimeDir.str();
  std::vector<std::string> args = {linker, "-shared", "-o", temporary,
                                   object.str(),
                                   "-L" + runtimeDirText, "-lEinsumRuntime"};
  auto rpath = [&](const std::string &dir) {
    if (isLld) {
      args.push_back("-rpath");
      args.push_back(dir);
    } else {
      args.push_back("-Wl,-rpath," + dir);
    }
  };
  rpath(runtimeRpathOpt.empty() ? runtimeDirText : runtimeRpathOpt.getValue());
  if (threads > 1) {
    args.push_back(EINSUM_MLIR_LIB_DIR "/libomp.so");
    rpath(EINSUM_MLIR_LIB_DIR);
  }
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(linker, argRefs, std::nullopt, {}, 0,
                                         0, &message);
  if (status != 0)
    fail("linking " + path + " with " + linker + " failed" +
         (message.empty() ? "" : ": " + message));
  return temporary;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  std::string threadsError;
  unsigned threads = takeThreadsFlag(argc, argv, threadsError);
  if (!threadsError.empty())
    fail(threadsError);
  registerToolOptions();
  describeThreadsFlag(category, "Run each kernel on N OpenMP threads "
                                "(default 1; more needs libomp at run time)");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "einsum-compile: compile einsums ahead of time into an object or a "
      "shared library with a C header; the kernels need libEinsumRuntime "
      "only (no MLIR, no LLVM)\n\n"
      "  einsum-compile --equation='bij,bjk->bik' "
      "--input-types=8x64x32xf32,8x32x48xf32 --name=bmm -o bmm.o "
      "--header=bmm.h\n"
      "  einsum-compile kernels.mlir --entry=f --entry=g -o kernels.so "
      "--header=kernels.h\n\n"
      "Exit status: 0 success; 1 an error (nothing is written).\n");
  if (threads == 0)
    threads = 1;

  bool moduleMode = !inputFile.empty();
  if (moduleMode == !equations.empty())
    fail("give --equation=EQUATION (with --input-types), or an .mlir file "
         "with --entry");
  if (moduleMode && entries.empty())
    fail("an .mlir file needs --entry=FUNCTION (one per kernel)");
  if (!moduleMode && !entries.empty())
    fail("--entry needs an .mlir file");
  if (!moduleMode && inputTypes.size() != equations.size())
    fail("each --equation needs its --input-types (" +
         llvm::Twine(equations.size()) + " equations, " +
         llvm::Twine(inputTypes.size()) + " --input-types)");
  size_t numKernels = moduleMode ? entries.size() : equations.size();
  if (!names.empty() && names.size() != numKernels)
    fail("give a --name for every kernel or none (" +
         llvm::Twine(numKernels) + " kernels, " + llvm::Twine(names.size()) +
         " names)");
  llvm::StringRef extension = llvm::sys::path::extension(outputFile.getValue());
  if (extension != ".o" && extension != ".so")
    fail("-o " + outputFile + ": the output is an object (.o) or a shared "
                              "library (.so)");
  {
    PathOptions pathOptions;
    if (llvm::Error err = parsePathOption(pathOpt, pathOptions))
      fail("--path: " + llvm::toString(std::move(err)));
  }

  std::string source;
  if (moduleMode) {
    auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
    if (!buffer)
      fail("cannot read " + inputFile + ": " + buffer.getError().message());
    source = (*buffer)->getBuffer().str();
  }
  std::vector<AotKernelSpec> specs;
  for (size_t k = 0; k < numKernels; ++k) {
    AotKernelSpec spec;
    if (moduleMode) {
      spec.source = source;
      spec.sourceName = inputFile;
      spec.entry = entries[k];
      spec.name = names.empty() ? entries[k] : names[k];
    } else {
      spec.equation = equations[k];
      spec.name = names.empty() ? "einsum_" + std::to_string(k) : names[k];
      llvm::SmallVector<llvm::StringRef> operands;
      if (!inputTypes[k].empty())
        llvm::StringRef(inputTypes[k]).split(operands, ',');
      std::optional<ElementType> type;
      for (auto [i, operand] : llvm::enumerate(operands)) {
        auto [shape, elementType] = parseOperandType(operand, k, i);
        if (type && *type != elementType)
          fail("--input-types of kernel " + llvm::Twine(k) +
               ": the operands of an einsum have one element type (" +
               getName(*type) + " and " + getName(elementType) + ")");
        type = elementType;
        spec.shapes.push_back(shape);
      }
      if (!type)
        fail("--input-types of kernel " + llvm::Twine(k) +
             " names no operand");
      spec.elementType = *type;
    }
    specs.push_back(std::move(spec));
  }

  CompileOptions options;
  options.target = targetOpt;
  options.chip = chipOpt;
  options.gpuFormat = gpuFormatOpt;
  if (gpuFormatOpt != "isa" && gpuFormatOpt != "bin" &&
      gpuFormatOpt != "fatbin")
    fail("unknown --gpu-format '" + gpuFormatOpt +
         "' (expected isa, bin or fatbin)");
  options.threads = threads;
  options.pathStrategy = pathOpt;
  options.memoryLimit = memoryLimitOpt;
  options.diskCache = false;
  // The schedules are chosen for the vector registers of the CPU compiled
  // for, not this machine's.
  {
    auto machine = createCPUTargetMachine(cpuOpt);
    if (!machine)
      fail(llvm::toString(machine.takeError()));
    const llvm::MCSubtargetInfo *info = (*machine)->getMCSubtargetInfo();
    VectorTarget target = getCPUVectorTarget(
        info->getCPU(), [&](llvm::StringRef feature) {
          return info->checkFeatures(("+" + feature).str());
        });
    options.vectorBits = target.bits;
    options.vectorRegisters = target.registers;
  }
  Engine engine;
  std::vector<AotKernelInfo> infos;
  auto object = engine.compileLibrary(specs, options, cpuOpt, infos);
  if (!object)
    fail(llvm::toString(object.takeError()));

  std::string output;
  if (extension == ".o") {
    output = writeTemporary(outputFile, (*object)->getBuffer());
  } else {
    std::string objectPath = writeTemporary(outputFile + ".o",
                                            (*object)->getBuffer());
    std::string runtimeDir = runtimeDirOpt;
    if (runtimeDir.empty()) {
      std::string self =
          llvm::sys::fs::getMainExecutable(argv[0], (void *)&fail);
      runtimeDir = (llvm::sys::path::parent_path(
                        llvm::sys::path::parent_path(self)) +
                    "/lib")
                       .str();
    }
    output = linkSharedLibrary(outputFile, objectPath, runtimeDir, threads);
  }
  std::string header;
  if (!headerFile.empty())
    header = writeTemporary(headerFile, makeHeader(infos, cpuOpt, threads));
  // Everything is written: into place.
  for (auto [temporary, path] : {std::make_pair(output, outputFile.getValue()),
                                 std::make_pair(header, headerFile.getValue())})
    if (!temporary.empty())
      if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
        llvm::sys::fs::remove(outputFile.getValue());
        fail("cannot write " + path + ": " + ec.message());
      }
  for (const std::string &path : temporaries)
    llvm::sys::fs::remove(path); // The object of a shared library.
  return 0;
}

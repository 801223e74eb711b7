//===- Aot.cpp - libraries of kernels compiled ahead of time --------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Engine::compileLibrary, what einsum-compile runs: each kernel through the
// same pipeline and entry points as the JIT's (EngineImpl.h), the LLVM
// modules linked into one, every symbol internal but the kernels' C
// functions, and one object emitted for the chosen CPU.
//
//===----------------------------------------------------------------------===//

#include "EngineImpl.h"

#include "einsum/Dialect/Einsum/IR/EinsumOps.h"

#include "mlir/IR/SymbolTable.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::einsum;
using namespace mlir::einsum::engine_impl;

/// Whether `name` is a C identifier (and so a function name of the header).
static bool isCIdentifier(llvm::StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
Engine::compileLibrary(llvm::ArrayRef<AotKernelSpec> kernels,
                       const CompileOptions &options, llvm::StringRef cpu,
                       std::vector<AotKernelInfo> &infos) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  if (options.target != "cpu" && options.target != "cuda")
    return makeError("ahead-of-time kernels are compiled for the cpu and "
                     "cuda targets (--target=" +
                     options.target + " runs through einsum-run)");
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (kernels.empty())
    return makeError("no kernel to compile");
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createCPUTargetMachine(cpu);
  if (!machine)
    return machine.takeError();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> library;
  std::vector<std::string> exported;
  infos.clear();
  for (const AotKernelSpec &spec : kernels) {
    if (!isCIdentifier(spec.name))
      return makeError("kernel name '" + spec.name +
                       "' is not a C identifier");
    if (llvm::is_contained(exported, spec.name))
      return makeError("two kernels are named '" + spec.name + "'");
    // The MLIR function is NAME_kernel; NAME is its C function.
    std::string functionName = spec.name + "_kernel";
    Kernel kernel; // What the signature is computed from.
    kernel.onDevice = options.target == "cuda";
    OwningOpRef<ModuleOp> module;
    AotKernelInfo info;
    info.name = spec.name;
    if (spec.source.empty()) {
      llvm::Expected<EinsumResolution> resolution =
          resolveEinsum(spec.equation, spec.shapes);
      if (!resolution)
        return makeError(spec.name + ": " +
                         llvm::toString(resolution.takeError()));
      bool dynamic = llvm::any_of(resolution->dims, [](const auto &dim) {
        return dim.isDynamic();
      });
      llvm::Expected<double> flops = getEquationFlops(
          *resolution, spec.shapes.size(), options, spec.elementType);
      if (!flops)
        return makeError(spec.name + ": " + llvm::toString(flops.takeError()));
      // Static sizes: the result is written in place. Dynamic ones: the
      // kernel checks them at run time and returns its result.
      auto built = impl->buildEquationModule(spec.equation, spec.shapes,
                                             spec.elementType, *resolution,
                                             functionName, dynamic);
      if (!built)
        return built.takeError();
      module = std::move(*built);
      for (const llvm::SmallVector<int64_t> &shape : spec.shapes) {
        kernel.inputShapes.push_back(shape);
        kernel.inputTypes.push_back(spec.elementType);
      }
      kernel.outputShape.assign(resolution->outputShape.begin(),
                                resolution->outputShape.end());
      kernel.elementType = spec.elementType;
      kernel.returnsResult = dynamic;
      kernel.flops = dynamic ? 0 : *flops;
      info.description = "einsum '" + spec.equation + "'";
    } else {
      func::FuncOp function;
      auto parsed = impl->parseModule(spec.source, spec.sourceName,
                                      spec.entry, function);
      if (!parsed)
        return parsed.takeError();
      module = std::move(*parsed);
      if (failed(SymbolTable::replaceAllSymbolUses(
              function, StringAttr::get(&impl->getContext(), functionName),
              *module)))
        return makeError(spec.sourceName + ": cannot rename @" + spec.entry);
      function.setSymName(functionName);
      FunctionType type = function.getFunctionType();
      for (Type argType : type.getInputs()) {
        auto tensorType = cast<RankedTensorType>(argType);
        kernel.inputShapes.emplace_back(tensorType.getShape());
        kernel.inputTypes.push_back(*fromMLIRType(tensorType.getElementType()));
      }
      auto resultType = cast<RankedTensorType>(type.getResult(0));
      kernel.elementType = *fromMLIRType(resultType.getElementType());
      kernel.outputShape.assign(resultType.getShape().begin(),
                                resultType.getShape().end());
      kernel.returnsResult = true;
      info.description =
          "function @" + spec.entry + " of " + spec.sourceName;
    }
    if (llvm::Error err = impl->lower(*module, Stage::LLVMDialect, options))
      return makeError(spec.name + ": " + llvm::toString(std::move(err)));
    info.signature = kernel.getSignature();
    info.types = kernel.inputTypes;
    info.types.push_back(kernel.elementType);
    info.flops = kernel.flops;
    auto translated = impl->translateKernel(
        *module, functionName, info.signature, spec.name, llvmContext,
        /*hoistConstructors=*/false, exported);
    if (!translated)
      return translated.takeError();
    // Internal before linking: the lowering's helpers of two kernels may
    // share names (the linker renames internal ones).
    internalizeExcept(**translated, {spec.name});
    exported.push_back(spec.name);
    if (!library) {
      library = std::move(*translated);
      library->setModuleIdentifier(spec.name);
    } else if (llvm::Linker::linkModules(*library, std::move(*translated))) {
      return makeError(spec.name + ": linking its LLVM module failed");
    }
    infos.push_back(std::move(info));
  }
  internalizeExcept(*library, exported);
  return emitObject(*library, **machine);
}

//===- ObjectCode.cpp - kernels as object code, and loading it ------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/ObjectCode.h"
#include "einsum-c/Runtime.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::einsum;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::vector<int64_t> KernelSignature::encode() const {
  std::vector<int64_t> words = {EINSUM_SIGNATURE_KIND, flags, elementBytes,
                                static_cast<int64_t>(shapes.size())};
  for (const std::vector<int64_t> &shape : shapes) {
    words.push_back(shape.size());
    for (int64_t size : shape)
      words.push_back(size < 0 ? -1 : size);
  }
  return words;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
mlir::einsum::createCPUTargetMachine(llvm::StringRef cpu) {
  static const bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("no LLVM target for " + triple.str() + ": " + error);
  std::string cpuName = cpu.str();
  std::string features;
  if (cpu == "native") {
    cpuName = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures list;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      list.AddFeature(feature.first(), feature.second);
    features = list.getString();
  } else {
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!info || !info->isCPUStringValid(cpuName))
      return makeError("unknown --cpu '" + cpu +
                       "' (expected native or a CPU LLVM knows, such as "
                       "x86-64-v3 or x86-64-v4)");
  }
  llvm::TargetOptions options;
  // Constructors (a GPU kernel's module loads) in .init_array, as clang
  // emits them on Linux: linkers run those.
  options.UseInitArray = true;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuName, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return makeError("cannot create a target machine for " + cpu);
  return machine;
}

std::string mlir::einsum::getCallName(llvm::StringRef name) {
  return (name + "_call").str();
}

std::string mlir::einsum::getPackedName(llvm::StringRef name) {
  return (name + "_packed").str();
}

std::string mlir::einsum::getSignatureName(llvm::StringRef name) {
  return (name + "_signature").str();
}

llvm::Error mlir::einsum::addKernelEntryPoints(
    llvm::Module &module, llvm::StringRef name, llvm::StringRef cName,
    const KernelSignature &signature) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Function *ciface = module.getFunction(("_mlir_ciface_" + name).str());
  if (!ciface || ciface->isDeclaration())
    return makeError("the module defines no _mlir_ciface_" + name);
  if (module.getNamedValue(cName) ||
      module.getNamedValue(getPackedName(name)) ||
      module.getNamedValue(getSignatureName(name)))
    return makeError("the kernel's entry points clash with a symbol of the "
                     "module: " +
                     cName);
  auto *ptr = llvm::PointerType::getUnqual(context);
  auto *i32 = llvm::Type::getInt32Ty(context);
  auto *i64 = llvm::Type::getInt64Ty(context);
  llvm::IRBuilder<> b(context);

  // NAME_packed(void **descriptors).
  auto *packedType =
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr}, false);
  auto *packed =
      llvm::Function::Create(packedType, llvm::GlobalValue::ExternalLinkage,
                             getPackedName(name), module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", packed));
  llvm::SmallVector<llvm::Value *> descriptors;
  for (unsigned i = 0; i < ciface->arg_size(); ++i) {
    if (!ciface->getArg(i)->getType()->isPointerTy())
      return makeError("_mlir_ciface_" + name +
                       " takes a parameter that is not a pointer");
    llvm::Value *slot = b.CreateConstGEP1_64(ptr, packed->getArg(0), i);
    descriptors.push_back(b.CreateLoad(ptr, slot));
  }
  b.CreateCall(ciface, descriptors);
  b.CreateRetVoid();

  // NAME_signature.
  std::vector<int64_t> words = signature.encode();
  auto *wordsType = llvm::ArrayType::get(i64, words.size());
  llvm::SmallVector<llvm::Constant *> constants;
  for (int64_t word : words)
    constants.push_back(llvm::ConstantInt::getSigned(i64, word));
  auto *signatureGlobal = new llvm::GlobalVariable(
      module, wordsType, /*isConstant=*/true,
      llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantArray::get(wordsType, constants), getSignatureName(name));

  // int CNAME(data, sizes, strides, ...) per operand.
  unsigned numOperands = signature.shapes.size();
  llvm::SmallVector<llvm::Type *> params(3 * numOperands, ptr);
  auto *entryType = llvm::FunctionType::get(i32, params, false);
  auto *entry = llvm::Function::Create(
      entryType, llvm::GlobalValue::ExternalLinkage, cName, module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", entry));
  auto *arrayType = llvm::ArrayType::get(ptr, 3 * numOperands);
  llvm::Value *arguments = b.CreateAlloca(arrayType);
  for (unsigned i = 0; i < 3 * numOperands; ++i)
    b.CreateStore(entry->getArg(i),
                  b.CreateConstGEP2_32(arrayType, arguments, 0, i));
  llvm::FunctionCallee invoke = module.getOrInsertFunction(
      "einsumRuntimeInvoke",
      llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false));
  b.CreateRet(b.CreateCall(invoke, {signatureGlobal, arguments, packed}));
  return llvm::Error::success();
}

void mlir::einsum::internalizeExcept(llvm::Module &module,
                                     llvm::ArrayRef<std::string> exported) {
  auto keep = [&](llvm::GlobalValue &value) {
    // (llvm.global_ctors and the like keep their appending linkage.)
    return value.isDeclaration() || value.hasLocalLinkage() ||
           value.getName().starts_with("llvm.") ||
           llvm::is_contained(exported, value.getName().str());
  };
  for (llvm::Function &function : module)
    if (!keep(function))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &global : module.globals())
    if (!keep(global))
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
}

bool mlir::einsum::hoistStructors(llvm::Module &module,
                                  llvm::StringRef listName,
                                  llvm::StringRef functionName) {
  llvm::GlobalVariable *list = module.getGlobalVariable(listName);
  if (!list || !list->hasInitializer())
    return false;
  // Entries {i32 priority, ptr function, ptr data}, run by priority.
  llvm::SmallVector<std::pair<uint64_t, llvm::Function *>> entries;
  if (auto *array =
          llvm::dyn_cast<llvm::ConstantArray>(list->getInitializer()))
    for (llvm::Value *operand : array->operands()) {
      auto *entry = llvm::dyn_cast<llvm::ConstantStruct>(operand);
      if (!entry)
        continue;
      auto *priority = llvm::dyn_cast<llvm::ConstantInt>(entry->getOperand(0));
      auto *function = llvm::dyn_cast<llvm::Function>(entry->getOperand(1));
      if (priority && function)
        entries.emplace_back(priority->getZExtValue(), function);
    }
  llvm::stable_sort(entries, llvm::less_first());
  list->eraseFromParent();
  llvm::LLVMContext &context = module.getContext();
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {}, false);
  auto *caller = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, functionName, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", caller));
  for (auto &entry : entries)
    b.CreateCall(entry.second->getFunctionType(), entry.second);
  b.CreateRetVoid();
  return true;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mlir::einsum::emitObject(llvm::Module &module, llvm::TargetMachine &machine) {
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple());
  // The kernels were lowered for the host's features; the functions carry
  // no target attributes of their own, so the machine's apply.
  auto optimize = makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                            &machine);
  if (llvm::Error err = optimize(&module))
    return std::move(err);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit object files");
  passes.run(module);
  return std::make_unique<llvm::SmallVectorMemoryBuffer>(
      std::move(buffer), module.getModuleIdentifier() + ".o",
      /*RequiresNullTerminator=*/false);
}

llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> mlir::einsum::loadObject(
    std::unique_ptr<llvm::MemoryBuffer> object,
    llvm::ArrayRef<std::pair<llvm::StringRef, void *>> symbols,
    llvm::ArrayRef<std::string> libraries) {
  // LLJIT's default linker for this host: JITLink (ObjectLinkingLayer) in
  // one slab of memory per object, its GOT and PLT stubs beside the code.
  // (RuntimeDyld, with sections mapped apart, left GOT entries unmapped in
  // a process under AddressSanitizer.)
  llvm::orc::LLJITBuilder builder;
  auto jit = builder.create();
  if (!jit)
    return jit.takeError();
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(),
                                      (*jit)->getDataLayout());
  llvm::orc::SymbolMap map;
  for (auto [symbol, address] : symbols)
    map[mangle(symbol)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                           llvm::JITSymbolFlags::Exported};
  if (llvm::Error err = main.define(llvm::orc::absoluteSymbols(map)))
    return std::move(err);
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  for (const std::string &library : libraries) {
    auto generator =
        llvm::orc::DynamicLibrarySearchGenerator::Load(library.c_str(), prefix);
    if (!generator)
      return generator.takeError();
    main.addGenerator(std::move(*generator));
  }
  if (llvm::Error err = (*jit)->addObjectFile(std::move(object)))
    return std::move(err);
  return std::move(*jit);
}

llvm::ArrayRef<std::pair<llvm::StringRef, void *>>
mlir::einsum::getCPURuntimeSymbols() {
  static const std::pair<llvm::StringRef, void *> symbols[] = {
      {"_mlir_memref_to_llvm_alloc",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc)},
      {"_mlir_memref_to_llvm_free",
       reinterpret_cast<void *>(&_mlir_memref_to_llvm_free)},
      {"einsum_runtime_error", reinterpret_cast<void *>(&einsum_runtime_error)},
      {"einsumRuntimeInvoke", reinterpret_cast<void *>(&einsumRuntimeInvoke)},
      {"memrefCopy", reinterpret_cast<void *>(&memrefCopy)},
  };
  return symbols;
}

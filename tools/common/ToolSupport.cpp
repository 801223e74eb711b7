//===- ToolSupport.cpp - what einsum-run and einsum-compile share ---------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "ToolSupport.h"

#include "einsum/Engine/Engine.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

unsigned mlir::einsum::takeThreadsFlag(int &argc, char **argv,
                                       std::string &error) {
  unsigned threads = 0;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    llvm::StringRef value;
    bool isFlag = false;
    for (llvm::StringRef name : {"--threads", "-threads"}) {
      if (arg == name && i + 1 < argc) {
        value = argv[++i];
        isFlag = true;
      } else if (arg.starts_with(name) && arg.drop_front(name.size())
                                              .consume_front("=")) {
        value = arg.drop_front(name.size() + 1);
        isFlag = true;
      }
      if (isFlag)
        break;
    }
    if (!isFlag) {
      argv[out++] = argv[i];
      continue;
    }
    if (value.getAsInteger(10, threads) || threads == 0 ||
        threads > getMaxThreads())
      error = ("--threads needs a number of threads from 1 to " +
               llvm::Twine(getMaxThreads()) + ", not '" + value + "'")
                  .str();
  }
  argc = out;
  argv[argc] = nullptr;
  return threads;
}

void mlir::einsum::describeThreadsFlag(llvm::cl::OptionCategory &category,
                                       llvm::StringRef description) {
  llvm::cl::Option *threads =
      llvm::cl::getRegisteredOptions().lookup("threads");
  if (!threads)
    return;
  // Option keeps a StringRef: the text must outlive parsing.
  static std::string text;
  text = description.str();
  threads->setDescription(text);
  threads->setValueStr("N");
  threads->addCategory(category);
}

void mlir::einsum::registerToolOptions() {
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "einsum-mlir version " EINSUM_MLIR_VERSION "\n";
  });
}

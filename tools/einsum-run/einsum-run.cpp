//===- einsum-run.cpp - compile and run einsums from the command line -----===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
//   einsum-run --equation='bij,bjk->bik' --input=@a.npy --input=3x5x4xf32
//              [--output=c.npy] [--check] [--benchmark=N] [--emit=STAGE]
//   einsum-run kernels.mlir --entry=NAME --input=... (same flags)
//   mpirun -np 4 einsum-run --grid=2x2 --equation=... (one rank each)
//
// An input is @FILE.npy, SHAPExTYPE (deterministic random data from --seed),
// SHAPExTYPE=@FILE.npy (the file must have that type) or SHAPExTYPE=iota
// (0, 1, 2, ... in row-major order). Every error is one line on stderr, with
// an exit status that says what failed (see kExitStatusHelp); no output file
// is written or replaced then.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/CudaRuntime.h"
#include "einsum/Engine/Engine.h"
#include "einsum/Engine/Npy.h"
#include "einsum/Engine/Reference.h"
#include "../common/ToolSupport.h"
#include "Mpi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

using namespace mlir;
using namespace mlir::einsum;
namespace cl = llvm::cl;
using llvm::SmallVector;

static cl::OptionCategory category("einsum-run options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("[kernels.mlir]"),
                                      cl::init(""), cl::cat(category));
static cl::opt<std::string>
    equationOpt("equation",
                cl::desc("The einsum equation, verbatim (may be empty or hold "
                         "spaces)"),
                cl::value_desc("EQUATION"), cl::cat(category));
static cl::list<std::string>
    inputOpts("input",
              cl::desc("An operand, in order: @FILE.npy; SHAPExTYPE, e.g. "
                       "2x3xf32 (random: floats uniform in [-1, 1), integers "
                       "uniform in [-8, 8], the same for the same --seed); "
                       "SHAPExTYPE=@FILE.npy (the file must hold that); or "
                       "SHAPExTYPE=iota (0, 1, 2, ... in row-major order). "
                       "Types: f32, f64, f16, bf16, i32, i64"),
              cl::value_desc("SPEC"), cl::cat(category));
static cl::opt<std::string>
    outputOpt("output",
              cl::desc("Write the result to this .npy file (@FILE.npy, as "
                       "iree-run-module writes it, or FILE.npy); without it, "
                       "the result is printed to stdout as numpy prints "
                       "arrays. A failed run leaves an existing file as it "
                       "was"),
              cl::value_desc("@FILE.npy"), cl::init(""), cl::cat(category));
static cl::opt<std::string>
    entryOpt("entry", cl::desc("Function of the .mlir file to run"),
             cl::value_desc("NAME"), cl::init("main"), cl::cat(category));
static cl::opt<std::string>
    emitOpt("emit",
            cl::desc("Print the IR after a stage and stop: einsum, linalg, "
                     "llvm-dialect, llvm-ir, or ptx (the kernels' PTX, "
                     "--target=cuda)"),
            cl::value_desc("STAGE"), cl::init(""), cl::cat(category));
static cl::opt<int> gradOpt(
    "grad",
    cl::desc("Run the gradient of the einsum with respect to operand N "
             "instead (einsum-grad: the vector-Jacobian product for the "
             "output gradient --grad-output); its result has operand N's "
             "shape"),
    cl::value_desc("N"), cl::init(-1), cl::cat(category));
static cl::opt<std::string> gradOutputOpt(
    "grad-output",
    cl::desc("The output gradient for --grad, as an --input (@FILE.npy, "
             "SHAPExTYPE, ...); default: ones, the gradient of the sum of "
             "the result (torch's einsum(...).sum().backward())"),
    cl::value_desc("SPEC"), cl::init(""), cl::cat(category));
static cl::opt<bool>
    checkOpt("check",
             cl::desc("Compare with the reference evaluator; exit 1 on a "
                      "mismatch"),
             cl::init(false), cl::cat(category));
static cl::opt<unsigned>
    benchmarkOpt("benchmark",
                 cl::desc("Run N timed repetitions and print compile time, "
                          "median and minimum run time and GFLOP/s"),
                 cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<std::string>
    explainOpt("explain",
               cl::desc("Print the contraction path: --explain or "
                        "--explain=text, --explain=json (stdout then holds "
                        "the JSON report only; the other lines go to "
                        "stderr)"),
               cl::value_desc("FORMAT"), cl::ValueOptional, cl::init(""),
               cl::cat(category));
static cl::opt<std::string>
    pathOpt("path",
            cl::desc("Contraction path search for three or more operands: "
                     "auto, optimal, dp, greedy or left-to-right; or an "
                     "explicit path in numpy's convention, "
                     "explicit:1,2;0,1 for [(1, 2), (0, 1)]"),
            cl::value_desc("STRATEGY"), cl::init("auto"), cl::cat(category));
static cl::opt<uint64_t>
    memoryLimitOpt("memory-limit",
                   cl::desc("Largest intermediate of the path in bytes"),
                   cl::value_desc("BYTES"), cl::init(0), cl::cat(category));
static cl::opt<std::string>
    minimizeOpt("minimize",
                cl::desc("What the path search minimizes first: flops or "
                         "memory"),
                cl::init("flops"), cl::cat(category));
static cl::opt<std::string> semiringOpt(
    "semiring",
    cl::desc("What the einsum sums and multiplies with: plus_times "
             "(default), log (log-sum-exp of sums), max or min (of sums), "
             "max_times (max of products), bool (or of ands; integers)"),
    cl::value_desc("SEMIRING"), cl::init("plus_times"), cl::cat(category));
static cl::opt<bool>
    noCacheOpt("no-cache",
               cl::desc("Neither look the kernel up in the on-disk kernel "
                        "cache nor add it (also: EINSUM_MLIR_CACHE=0)"),
               cl::init(false), cl::cat(category));
static cl::opt<bool> cacheInfoOpt(
    "cache-info",
    cl::desc("Print where the on-disk kernel cache is ($EINSUM_MLIR_CACHE_DIR, "
             "else $XDG_CACHE_HOME/einsum-mlir, else ~/.cache/einsum-mlir), "
             "its entries, bytes and capacity, and exit"),
    cl::init(false), cl::cat(category));
static cl::opt<bool>
    clearCacheOpt("clear-cache",
                  cl::desc("Remove every entry of the on-disk kernel cache, "
                           "and exit"),
                  cl::init(false), cl::cat(category));
static cl::opt<bool>
    vectorizeOpt("vectorize",
                 cl::desc("Tile and vectorize the kernel (--vectorize=false: "
                          "plain loop nests)"),
                 cl::init(true), cl::cat(category));
static cl::opt<unsigned>
    vectorBitsOpt("vector-bits",
                  cl::desc("Vector register width the schedule is chosen "
                           "for: 128, 256 or 512 (default: the host's)"),
                  cl::value_desc("BITS"), cl::init(0), cl::cat(category));
static cl::opt<unsigned> vectorRegistersOpt(
    "vector-registers",
    cl::desc("Vector registers the schedule's register tiles may fill: 16 "
             "or 32 (default: the host's; with --vector-bits, 32 at 512 "
             "bits and 16 below)"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<std::string>
    targetOpt("target",
              cl::desc("Where the kernel runs: cpu, cuda (an NVIDIA GPU "
                       "through the CUDA driver), or gpu-schedule-on-cpu "
                       "(the cuda target's schedule run serially on the "
                       "CPU, to check it without a GPU)"),
              cl::value_desc("TARGET"), cl::init("cpu"), cl::cat(category));
static cl::opt<std::string>
    chipOpt("chip", cl::desc("The NVIDIA GPU the cuda target compiles for"),
            cl::value_desc("sm_XY"), cl::init("sm_90"), cl::cat(category));
static cl::opt<std::string>
    gpuFormatOpt("gpu-format",
                 cl::desc("What the cuda target's kernels are serialized "
                          "to: isa (PTX, compiled by the driver), bin (cubin, "
                          "needs ptxas) or fatbin"),
                 cl::value_desc("FORMAT"), cl::init("isa"), cl::cat(category));
static cl::opt<std::string> gridOpt(
    "grid",
    cl::desc("Run the einsum over a grid of MPI ranks of this shape (4, 2x2, "
             "2x2x2), one einsum-run per rank under `mpirun -np RANKS`: "
             "einsum-shard splits the loop dims over the grid, each rank "
             "reads its blocks of the inputs and computes its block of the "
             "result, rank 0 gathers the result (--equation only; 1 thread "
             "per rank unless --threads)"),
    cl::value_desc("SHAPE"), cl::cat(category));
static cl::opt<bool> outputShardedOpt(
    "output-sharded",
    cl::desc("With --grid: each rank writes its block of the result to "
             "OUTPUT.rankN.npy (OUTPUT: --output without .npy) instead of "
             "rank 0 writing the whole result"),
    cl::init(false), cl::cat(category));
static cl::opt<uint64_t> seedOpt("seed",
                                 cl::desc("Seed of the random inputs"),
                                 cl::init(0), cl::cat(category));

namespace {
/// Exit statuses, as --help documents them.
enum ExitStatus : int {
  kExitBadInput = 1,
  kExitNoDevice = 2,
  kExitCheckFailed = 3,
  kExitInternal = 4,
};

constexpr const char *kExitStatusHelp =
    "Exit status: 0 success; 1 bad input (command line, files, equation, "
    "shapes, sizes at run time, memory); 2 --target=cuda found no CUDA "
    "driver or device; 3 --check found a mismatch; 4 internal error (a valid "
    "einsum that failed to compile: please report it).\n";

/// Exits with `status` after flushing stdout: a result that could not be
/// written (a full disk, a closed stdout) is an error of its own.
[[noreturn]] void exitWith(int status) {
  llvm::raw_fd_ostream &out = llvm::outs();
  out.flush();
  if (out.has_error()) {
    std::error_code ec = out.error();
    out.clear_error();
    if (status == 0) {
      llvm::errs() << "einsum-run: error: cannot write to standard output: "
                   << ec.message() << "\n";
      status = kExitBadInput;
    }
  }
  std::exit(status);
}

/// Writes `line` to stderr in one write: under mpirun, a rank's stderr
/// reaches the terminal through mpirun, and a line written piece by piece
/// can come out with mpirun's own messages between its pieces.
void writeErrorLine(const llvm::Twine &line) {
  std::string text = line.str();
  llvm::errs() << text;
  llvm::errs().flush();
}

/// One line on stderr, then exit.
[[noreturn]] void fail(const llvm::Twine &message,
                       int status = kExitBadInput) {
  if (einsum_run::isMPIInitialized() && einsum_run::getNumRanks() > 1) {
    // Every rank stops: none waits for this one in a collective.
    writeErrorLine("einsum-run: error: rank " +
                   llvm::Twine(einsum_run::getRank()) + ": " + message + "\n");
    llvm::outs().flush();
    einsum_run::abortMPI(status);
  }
  writeErrorLine("einsum-run: error: " + message + "\n");
  exitWith(status);
}

/// Fails on `err` with the exit status of its kind: no CUDA driver or
/// device (nothing is wrong with the command line), an internal error, or
/// bad input.
void failOn(llvm::Error err, llvm::StringRef prefix = "") {
  if (!err)
    return;
  int status = cuda::isNoDeviceError(err) ? kExitNoDevice
               : isInternalError(err)     ? kExitInternal
                                          : kExitBadInput;
  fail((status == kExitNoDevice ? "" : prefix) +
           llvm::toString(std::move(err)),
       status);
}

template <typename T>
T check(llvm::Expected<T> value, llvm::StringRef prefix = "") {
  if (!value)
    failOn(value.takeError(), prefix);
  return std::move(*value);
}

/// A parsed --input.
struct InputSpec {
  std::optional<std::pair<llvm::SmallVector<int64_t>, ElementType>> type;
  std::string path;
  bool iota = false;
};

InputSpec parseInputSpec(llvm::StringRef spec, unsigned index) {
  InputSpec result;
  auto bad = [&]() {
    fail(llvm::formatv("input {0}: '{1}' is not an input (expected "
                       "@FILE.npy, SHAPExTYPE, SHAPExTYPE=@FILE.npy or "
                       "SHAPExTYPE=iota, with TYPE one of f32, f64, f16, "
                       "bf16, i32, i64)",
                       index, spec));
  };
  if (spec.consume_front("@")) {
    if (spec.empty())
      bad();
    result.path = spec.str();
    return result;
  }
  auto [typeText, source] = spec.split('=');
  result.type = parseTensorType(typeText);
  if (!result.type)
    bad();
  if (spec.contains('=')) {
    if (source == "iota")
      result.iota = true;
    else if (source.consume_front("@") && !source.empty())
      result.path = source.str();
    else
      bad();
  }
  return result;
}

HostTensor materialize(const InputSpec &spec, unsigned index, uint64_t seed) {
  if (!spec.path.empty()) {
    HostTensor tensor =
        check(readNpy(spec.path), ("input " + llvm::Twine(index) + ": ").str());
    if (spec.type && (tensor.getShape() !=
                          llvm::ArrayRef<int64_t>(spec.type->first) ||
                      tensor.getElementType() != spec.type->second))
      fail(llvm::formatv("input {0}: {1} holds a {2} array, but {3} was "
                         "given",
                         index, spec.path, tensor.getTypeString(),
                         formatTensorType(spec.type->first, spec.type->second)));
    return tensor;
  }
  HostTensor tensor = check(HostTensor::create(spec.type->second, spec.type->first),
                            ("input " + llvm::Twine(index) + ": ").str());
  if (spec.iota)
    fillIota(tensor);
  else
    fillRandom(tensor, seed * 1000003ull + index * 7919ull + 1);
  return tensor;
}

//===----------------------------------------------------------------------===//
// numpy-style printing
//===----------------------------------------------------------------------===//

std::string formatElement(const HostTensor &t, int64_t i) {
  if (!isFloat(t.getElementType()))
    return std::to_string(t.getAsInt(i));
  double v = t.getAsDouble(i);
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  std::string s = llvm::formatv("{0}", llvm::format("%.8g", v)).str();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".";
  return s;
}

void printArray(llvm::raw_ostream &os, const HostTensor &t) {
  llvm::ArrayRef<int64_t> shape = t.getShape();
  if (shape.empty()) {
    os << formatElement(t, 0) << "\n";
    return;
  }
  // Like numpy, an empty array prints as [] whatever its shape (a 2^40 x 0
  // result is not 2^40 lines of []).
  if (t.getNumElements() == 0) {
    os << "[]\n";
    return;
  }
  llvm::SmallVector<int64_t> strides = t.getStrides();
  // Like numpy, summarize large arrays: 3 items at each end of every axis.
  bool summarize = t.getNumElements() > 1000;
  std::function<void(unsigned, int64_t)> print = [&](unsigned dim,
                                                      int64_t base) {
    os << "[";
    int64_t n = shape[dim];
    for (int64_t k = 0; k < n; ++k) {
      if (summarize && n > 6 && k == 3) {
        os << "...";
        k = n - 3;
        if (dim + 1 == shape.size())
          os << ", ";
        else
          os << ",\n" << std::string(dim + 1, ' ');
      }
      if (dim + 1 == shape.size())
        os << formatElement(t, base + k);
      else
        print(dim + 1, base + k * strides[dim]);
      if (k + 1 < n) {
        if (dim + 1 == shape.size()) {
          os << ", ";
        } else {
          os << ",\n";
          for (unsigned blank = dim + 2; blank < shape.size(); ++blank)
            os << "\n";
          os << std::string(dim + 1, ' ');
        }
      }
    }
    os << "]";
  };
  print(0, 0);
  os << "\n";
}

//===----------------------------------------------------------------------===//
// --grid: one rank of an MPI run
//===----------------------------------------------------------------------===//

/// The whole shape and type of an input, from its spec or its file's header.
std::pair<SmallVector<int64_t>, ElementType> getInputType(const InputSpec &spec,
                                                          unsigned index) {
  if (spec.path.empty())
    return *spec.type;
  auto [shape, type] = check(readNpyType(spec.path),
                             ("input " + llvm::Twine(index) + ": ").str());
  if (spec.type && (shape != spec.type->first || type != spec.type->second))
    fail(llvm::formatv("input {0}: {1} holds a {2} array, but {3} was given",
                       index, spec.path, formatTensorType(shape, type),
                       formatTensorType(spec.type->first, spec.type->second)));
  return {shape, type};
}

/// The block of `shape` at `offsets` of input `index` (of `whole` shape):
/// read from its file, or made from --seed (a hash of each element's index,
/// so that blocks put together are the whole random array).
HostTensor materializeBlock(const InputSpec &spec, unsigned index,
                            llvm::ArrayRef<int64_t> whole, ElementType type,
                            llvm::ArrayRef<int64_t> offsets,
                            llvm::ArrayRef<int64_t> shape) {
  std::string prefix = ("input " + llvm::Twine(index) + ": ").str();
  if (!spec.path.empty())
    return check(readNpyBlock(spec.path, offsets, shape), prefix);
  HostTensor block = check(HostTensor::create(type, shape), prefix);
  if (spec.iota)
    fillBlockIota(block, whole, offsets);
  else
    fillBlockRandom(block, seedOpt * 1000003ull + index * 7919ull + 1, whole,
                    offsets);
  return block;
}

/// "c.npy" -> "c.rank3.npy".
std::string getShardPath(llvm::StringRef path, int rank) {
  llvm::StringRef stem = path;
  stem.consume_back(".npy");
  return (stem + ".rank" + llvm::Twine(rank) + ".npy").str();
}

std::string formatBlock(llvm::ArrayRef<int64_t> offsets,
                        llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (unsigned k = 0; k < shape.size(); ++k)
    text += (k ? ", " : "") + std::to_string(offsets[k]) + ":" +
            std::to_string(offsets[k] + shape[k]);
  return text + "]";
}

/// Runs the einsum as one rank of `mpirun -np RANKS einsum-run --grid=...`
/// and exits.
[[noreturn]] void runDistributed(Engine &engine, CompileOptions options,
                                 llvm::ArrayRef<InputSpec> specs,
                                 const std::string &outputPath,
                                 std::optional<Stage> stage, bool explainGiven,
                                 bool explainJson) {
  using namespace einsum_run;
  SmallVector<int64_t> grid = check(parseGrid(gridOpt), "--grid: ");
  int64_t ranks = 1;
  for (int64_t size : grid)
    ranks *= size;
  if (!haveMPI())
    fail("--grid needs MPI, and this einsum-run was built without it "
         "(install libopenmpi-dev and rebuild)");
  if (!inputFile.empty())
    fail("--grid runs --equation einsums, not .mlir files");
  if (options.gradOperand >= 0 || gradOpt.getNumOccurrences())
    fail("--grad and --grid cannot be combined: gradient kernels are not "
         "distributed");
  if (targetOpt != "cpu")
    fail("--grid runs on the cpu target, not " + targetOpt);
  if (explainJson)
    fail("--grid reports its split as text: use --explain");
  if (outputShardedOpt && outputPath.empty())
    fail("--output-sharded needs --output=@FILE.npy (each rank writes "
         "FILE.rankN.npy)");
  initMPI(nullptr, nullptr);
  int rank = getRank();
  // Before any communication: the grid must have as many ranks as the run.
  if (getNumRanks() != ranks) {
    if (rank == 0)
      writeErrorLine(llvm::formatv(
                         "einsum-run: error: --grid={0} needs {1} ranks, but "
                         "this run has {2} (run `mpirun -np {1} einsum-run "
                         "--grid={0} ...`)\n",
                         gridOpt, ranks, getNumRanks())
                         .str());
    abortMPI(kExitBadInput);
  }
  options.grid = grid;
  options.mpiImplementation = getMPIImplementation();

  SmallVector<SmallVector<int64_t>> shapes;
  SmallVector<ElementType> types;
  for (auto [i, spec] : llvm::enumerate(specs)) {
    auto [shape, type] = getInputType(spec, i);
    shapes.push_back(shape);
    types.push_back(type);
  }
  EinsumResolution resolution =
      check(resolveEinsum(equationOpt, shapes), "einsum: ");
  ElementType type = types.front();
  for (auto [i, t] : llvm::enumerate(types))
    if (t != type)
      fail(llvm::formatv("einsum: operand {0} has element type {1}, but "
                         "operand 0 has {2}; all operands must have one "
                         "element type",
                         i, getName(t), getName(type)));
  if (stage) {
    std::string text =
        check(engine.emit(equationOpt, shapes, type, *stage, options));
    if (rank == 0)
      llvm::outs() << text;
    exitWith(finalizeMPI(0));
  }
  std::shared_ptr<Kernel> kernel =
      check(engine.compile(equationOpt, shapes, type, options));
  const Kernel::Distribution &distribution = *kernel->getDistribution();
  if (explainGiven && rank == 0) {
    ContractionPath path =
        check(engine.explain(equationOpt, shapes, type, options), "einsum: ");
    llvm::outs() << path.getReport(equationOpt) << distribution.report;
  }

  // This rank's blocks.
  SmallVector<int64_t> coords = getGridCoordinates(rank, grid);
  SmallVector<HostTensor> blocks;
  for (auto [i, spec] : llvm::enumerate(specs))
    blocks.push_back(materializeBlock(
        spec, i, shapes[i], type,
        getShardOffsets(shapes[i], distribution.inputSplits[i], grid, coords),
        kernel->getInputShapes()[i]));
  SmallVector<const HostTensor *> pointers;
  for (HostTensor &block : blocks)
    pointers.push_back(&block);
  HostTensor output;
  failOn(kernel->run(pointers, output));

  // The whole result on rank 0: every rank's block in its place (blocks
  // replicated over a grid axis are the same numbers).
  bool printResult = outputPath.empty() && !benchmarkOpt;
  bool needWhole =
      checkOpt || printResult || (!outputPath.empty() && !outputShardedOpt);
  HostTensor whole;
  if (needWhole) {
    size_t bytes = output.getNumBytes();
    std::vector<char> gathered(rank == 0 ? bytes * ranks : 0);
    gatherBytes(output.data(), bytes, gathered.data());
    if (rank == 0) {
      whole = check(HostTensor::create(type, distribution.outputShape),
                    "the result: ");
      for (int r = 0; r < ranks; ++r)
        copyBlock(static_cast<const char *>(whole.data()),
                  distribution.outputShape,
                  getShardOffsets(distribution.outputShape,
                                  distribution.outputSplit, grid,
                                  getGridCoordinates(r, grid)),
                  gathered.data() + r * bytes, output.getShape(),
                  getByteWidth(type), /*intoWhole=*/true);
    }
  }

  int status = 0;
  if (checkOpt && rank == 0) {
    constexpr uint64_t kMaxReferencePoints = uint64_t(1) << 33;
    if (resolution.iterationCount().value_or(0) > kMaxReferencePoints)
      fail("--check would walk more than 2^33 points with the reference "
           "evaluator; check smaller shapes");
    SmallVector<HostTensor> inputs;
    for (auto [i, spec] : llvm::enumerate(specs))
      inputs.push_back(materializeBlock(spec, i, shapes[i], type,
                                        SmallVector<int64_t>(shapes[i].size()),
                                        shapes[i]));
    SmallVector<const HostTensor *> operands;
    for (HostTensor &input : inputs)
      operands.push_back(&input);
    ReferenceResult reference = evaluateReference(
        resolution, operands,
        symbolizeSemiring(semiringOpt).value_or(Semiring::PlusTimes));
    Comparison cmp = compareWithReference(whole, reference);
    if (!cmp.ok) {
      writeErrorLine("einsum-run: error: check failed: " + cmp.message +
                     "\n");
      status = kExitCheckFailed;
    } else {
      llvm::outs() << llvm::formatv(
          "check: OK on grid {0} ({1} ranks), max abs error {2:e}, {3:f2} of "
          "the tolerance\n",
          gridOpt, ranks, cmp.maxAbsError, cmp.maxErrorRatio);
    }
  }

  if (benchmarkOpt > 0) {
    // Every run starts together; a rank's time includes waiting for the
    // others in the collectives.
    failOn(kernel->run(pointers, output));
    resetCommStats();
    std::vector<double> times;
    for (unsigned run = 0; run < benchmarkOpt; ++run) {
      barrier();
      auto start = std::chrono::steady_clock::now();
      failOn(kernel->run(pointers, output));
      times.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    }
    double mean = 0;
    for (double t : times)
      mean += t / times.size();
    std::sort(times.begin(), times.end());
    CommStats comm = getCommStats();
    double runs = benchmarkOpt;
    std::vector<double> medians = gatherDoubles(times[times.size() / 2]);
    std::vector<double> means = gatherDoubles(mean);
    std::vector<double> commTimes = gatherDoubles(comm.seconds / runs);
    std::vector<double> payloads = gatherDoubles(comm.payloadBytes / runs);
    std::vector<double> ringBytes = gatherDoubles(comm.ringBytes / runs);
    std::vector<double> operandBytes = gatherDoubles([&] {
      double bytes = 0;
      for (const HostTensor &block : blocks)
        bytes += block.getNumBytes();
      return bytes;
    }());
    if (rank == 0) {
      double slowest = *std::max_element(medians.begin(), medians.end());
      llvm::outs() << llvm::formatv(
          "benchmark: grid {0} ({1} ranks, {2} thread(s) each): compile "
          "{3:f1} ms{4}, median {5:f4} ms (slowest rank), {6:f2} GFLOP/s in "
          "all, {7} runs\n",
          gridOpt, ranks, options.threads, kernel->getCompileSeconds() * 1e3,
          kernel->isFromDiskCache() ? " (from the disk cache)" : "",
          slowest * 1e3, kernel->getFlops() / slowest * 1e-9, benchmarkOpt);
      for (int r = 0; r < ranks; ++r)
        llvm::outs() << llvm::formatv(
            "  rank {0}: median {1:f4} ms, mean {2:f4} ms of which "
            "{3:f4} ms in MPI ({4:f1}%: all-reduces, communicator splits); all-reduced {5:f0} bytes "
            "per run (a ring all-reduce sends and receives {6:f0}); operand "
            "blocks {7:f0} bytes\n",
            r, medians[r] * 1e3, means[r] * 1e3, commTimes[r] * 1e3,
            means[r] > 0 ? 100 * commTimes[r] / means[r] : 0.0, payloads[r],
            ringBytes[r], operandBytes[r]);
    }
  }

  if (!outputPath.empty()) {
    if (outputShardedOpt) {
      std::string path = getShardPath(outputPath, rank);
      failOn(writeNpy(path, output));
      // Every block is written before rank 0 says where they are.
      barrier();
      for (int r = 0; rank == 0 && r < ranks; ++r)
        llvm::outs() << "output: " << getShardPath(outputPath, r)
                     << " holds the block "
                     << formatBlock(getShardOffsets(
                                        distribution.outputShape,
                                        distribution.outputSplit, grid,
                                        getGridCoordinates(r, grid)),
                                    output.getShape())
                     << " of the " << formatTensorType(distribution.outputShape, type)
                     << " result\n";
    } else if (rank == 0) {
      failOn(writeNpy(outputPath, whole));
    }
  } else if (printResult && rank == 0) {
    printArray(llvm::outs(), whole);
  }
  llvm::outs().flush();
  exitWith(finalizeMPI(status));
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  std::string threadsError;
  unsigned threadsFlag = takeThreadsFlag(argc, argv, threadsError);
  if (!threadsError.empty())
    fail(threadsError);
  registerToolOptions();
  // --threads is taken out of the arguments above; libLLVM's option of
  // that name stands in for it in --help.
  describeThreadsFlag(category,
                      "Run the kernel on N threads (default: all cores; at "
                      "most " +
                          std::to_string(getMaxThreads()) + ")");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "einsum-run: compile an einsum with MLIR, run it on the CPU (or an "
      "NVIDIA GPU: --target=cuda) and check it\n\n"
      "  einsum-run --equation='bij,bjk->bik' --input=@a.npy "
      "--input=3x5x4xf32 --output=c.npy\n"
      "  einsum-run kernels.mlir --entry=NAME --input=...\n\n"
      "  The result goes to stdout (printed as numpy prints arrays) or to "
      "--output=@FILE.npy; reports (--check, --benchmark, --explain) go to "
      "stdout, errors to stderr.\n"
      "  An .mlir file may hold einsum ops, linalg contractions, or "
      "torch-mlir's and StableHLO's einsums and TOSA's float matmul in "
      "generic form; all are compiled as einsums.\n"
      "  The MLIR pass manager options of einsum-opt "
          "(--mlir-timing, --mlir-print-ir-after-all, ...) apply to its "
          "pipelines.\n\n" +
          std::string(kExitStatusHelp));

  if (cacheInfoOpt || clearCacheOpt) {
    DiskCache disk = DiskCache::fromEnvironment();
    if (!disk.isEnabled()) {
      llvm::outs() << "kernel cache: off (EINSUM_MLIR_CACHE=0, or no "
                      "EINSUM_MLIR_CACHE_DIR, XDG_CACHE_HOME or HOME)\n";
      exitWith(0);
    }
    DiskCache::Statistics before = disk.getStatistics();
    if (clearCacheOpt) {
      std::string error;
      if (!disk.clear(error))
        fail(error);
      llvm::outs() << llvm::formatv(
          "kernel cache: {0}: removed {1} entries ({2} bytes)\n",
          disk.getDirectory(), before.entries, before.bytes);
    }
    if (cacheInfoOpt) {
      DiskCache::Statistics now = disk.getStatistics();
      llvm::outs() << llvm::formatv(
          "kernel cache: {0}\n  entries: {1}\n  bytes: {2}\n  capacity: "
          "{3} bytes (EINSUM_MLIR_CACHE_SIZE)\n  build: {4}\n",
          disk.getDirectory(), now.entries, now.bytes, disk.getCapacity(),
          DiskCache::getBuildId());
    }
    exitWith(0);
  }

  bool moduleMode = !inputFile.empty();
  if (moduleMode == (equationOpt.getNumOccurrences() > 0))
    fail("give either --equation=EQUATION or an .mlir file (with --entry)");
  {
    PathOptions pathOptions;
    if (llvm::Error err = parsePathOption(pathOpt, pathOptions))
      fail("--path: " + llvm::toString(std::move(err)));
  }
  if (!parsePathObjective(minimizeOpt))
    fail("unknown --minimize '" + minimizeOpt +
         "' (expected flops or memory)");
  bool explainGiven = explainOpt.getNumOccurrences() > 0;
  if (explainGiven && !explainOpt.empty() && explainOpt != "text" &&
      explainOpt != "json")
    fail("unknown --explain format '" + explainOpt +
         "' (expected text or json)");
  if (explainGiven && moduleMode)
    fail("--explain needs --equation");
  // With --explain=json, stdout holds the JSON report only.
  bool explainJson = explainGiven && explainOpt == "json";
  llvm::raw_ostream &out = explainJson ? llvm::errs() : llvm::outs();
  // iree-run-module's --output=@FILE.npy, or a plain FILE.npy.
  std::string outputPath = outputOpt;
  if (llvm::StringRef(outputPath).starts_with("@"))
    outputPath.erase(0, 1);
  if (outputOpt.getNumOccurrences() && outputPath.empty())
    fail("--output needs a file name (--output=@FILE.npy)");
  std::optional<Stage> stage;
  if (!emitOpt.empty()) {
    stage = parseStage(emitOpt);
    if (!stage)
      fail("unknown --emit stage '" + emitOpt +
           "' (expected einsum, linalg, llvm-dialect, llvm-ir or ptx)");
  }

  SmallVector<InputSpec> specs;
  for (auto [i, spec] : llvm::enumerate(inputOpts))
    specs.push_back(parseInputSpec(spec, i));

  Engine engine;
  CompileOptions options;
  options.threads = threadsFlag
                        ? threadsFlag
                        : std::max(1u, std::thread::hardware_concurrency());
  options.pathStrategy = pathOpt;
  options.memoryLimit = memoryLimitOpt;
  options.minimize = minimizeOpt;
  if (vectorBitsOpt != 0 && vectorBitsOpt != 128 && vectorBitsOpt != 256 &&
      vectorBitsOpt != 512)
    fail("--vector-bits must be 128, 256 or 512, not " +
         std::to_string(vectorBitsOpt));
  options.vectorize = vectorizeOpt;
  options.vectorBits = vectorBitsOpt;
  if (vectorRegistersOpt != 0 && vectorRegistersOpt != 16 &&
      vectorRegistersOpt != 32)
    fail("--vector-registers must be 16 or 32, not " +
         std::to_string(vectorRegistersOpt));
  options.vectorRegisters = vectorRegistersOpt;
  options.diskCache = !noCacheOpt;
  options.semiring = semiringOpt;
  if (moduleMode && gradOpt.getNumOccurrences())
    fail("--grad applies to --equation; for an .mlir file, run einsum-opt "
         "-einsum-grad and the entry NAME_grad");
  if (moduleMode && semiringOpt.getNumOccurrences())
    fail("--semiring applies to --equation; an .mlir file's einsums carry "
         "their own (#einsum.semiring)");
  if (targetOpt != "cpu" && targetOpt != "cuda" &&
      targetOpt != "gpu-schedule-on-cpu")
    fail("unknown --target '" + targetOpt +
         "' (expected cpu, cuda or gpu-schedule-on-cpu)");
  if (gpuFormatOpt != "isa" && gpuFormatOpt != "bin" &&
      gpuFormatOpt != "fatbin")
    fail("unknown --gpu-format '" + gpuFormatOpt +
         "' (expected isa, bin or fatbin)");
  if (stage == Stage::PTX && targetOpt != "cuda")
    fail("--emit=ptx needs --target=cuda");
  options.target = targetOpt;
  options.chip = chipOpt;
  options.gpuFormat = gpuFormatOpt;
  if (gridOpt.getNumOccurrences()) {
    // Ranks share the machine's cores: one thread each unless told.
    if (!threadsFlag)
      options.threads = 1;
    runDistributed(engine, options, specs, outputPath, stage, explainGiven,
                   explainJson);
  }
  if (outputShardedOpt)
    fail("--output-sharded needs --grid");
  std::shared_ptr<Kernel> kernel;
  std::optional<EinsumResolution> resolution;
  SmallVector<HostTensor> inputs;

  if (!moduleMode) {
    // Shapes and the element type come from the inputs; validate them with
    // the equation layer before anything is read or compiled.
    for (auto [i, spec] : llvm::enumerate(specs))
      inputs.push_back(materialize(spec, i, seedOpt));
    SmallVector<SmallVector<int64_t>> shapes;
    for (const HostTensor &input : inputs)
      shapes.emplace_back(input.getShape());
    // resolve() refuses an operand count that does not fit (an equation has
    // at least one term), so inputs.front() exists below.
    resolution = check(resolveEinsum(equationOpt, shapes), "einsum: ");
    // The reference walks the whole iteration space of the unsplit einsum.
    constexpr uint64_t kMaxReferencePoints = uint64_t(1) << 33;
    uint64_t points = resolution->iterationCount().value_or(0);
    if (checkOpt && points > kMaxReferencePoints)
      fail(llvm::formatv(
          "--check would walk {0} points with the reference evaluator (at "
          "most {1}); check smaller shapes",
          points == std::numeric_limits<uint64_t>::max()
              ? std::string("more than 2^64")
              : std::to_string(points),
          kMaxReferencePoints));
    ElementType type = inputs.front().getElementType();
    for (auto [i, input] : llvm::enumerate(inputs))
      if (input.getElementType() != type)
        fail(llvm::formatv("einsum: operand {0} has element type {1}, but "
                           "operand 0 has {2}; all operands must have one "
                           "element type",
                           i, getName(input.getElementType()), getName(type)));
    if (explainGiven) {
      ContractionPath path =
          check(engine.explain(equationOpt, shapes, type, options), "einsum: ");
      llvm::outs() << (explainJson ? path.getJSON(equationOpt)
                                   : path.getReport(equationOpt));
    }
    if (gradOpt.getNumOccurrences()) {
      if (gradOpt < 0)
        fail("--grad needs an operand number (0, 1, ...), not " +
             std::to_string(gradOpt));
      if (checkOpt)
        fail("--check compares einsums with the reference evaluator, not "
             "gradients (grad.test compares them with torch.autograd)");
      options.gradOperand = gradOpt;
      // The output gradient: given, or ones.
      HostTensor gradOutput;
      if (!gradOutputOpt.empty()) {
        gradOutput = materialize(parseInputSpec(gradOutputOpt, inputs.size()),
                                 inputs.size(), seedOpt);
        if (gradOutput.getShape() !=
                llvm::ArrayRef<int64_t>(resolution->outputShape) ||
            gradOutput.getElementType() != type)
          fail("--grad-output: the output gradient is a " +
               gradOutput.getTypeString() +
               " array, but the einsum's result is " +
               formatTensorType(resolution->outputShape, type));
      } else {
        gradOutput = check(HostTensor::create(type, resolution->outputShape),
                           "--grad-output: ");
        for (int64_t i = 0, e = gradOutput.getNumElements(); i < e; ++i)
          gradOutput.setFromDouble(i, 1.0);
      }
      inputs.push_back(std::move(gradOutput));
    }
    if (stage) {
      out << check(engine.emit(equationOpt, shapes, type, *stage, options));
      exitWith(0);
    }
    kernel = check(engine.compile(equationOpt, shapes, type, options));
  } else {
    std::unique_ptr<llvm::MemoryBuffer> file =
        check(readRegularFile(inputFile));
    if (stage) {
      out << check(engine.emitModule(file->getBuffer(), inputFile, entryOpt,
                                     *stage, options));
      exitWith(0);
    }
    kernel = check(engine.compileModule(file->getBuffer(), inputFile,
                                        entryOpt, options));
    for (auto [i, spec] : llvm::enumerate(specs))
      inputs.push_back(materialize(spec, i, seedOpt));
    // A function that is one einsum of its arguments can be checked too.
    if (const auto &einsum = kernel->getSingleEinsum()) {
      SmallVector<SmallVector<int64_t>> shapes;
      for (unsigned arg : einsum->arguments) {
        if (arg >= inputs.size())
          break;
        shapes.emplace_back(inputs[arg].getShape());
      }
      if (shapes.size() == einsum->arguments.size()) {
        llvm::Expected<EinsumResolution> res =
            resolveEinsum(einsum->equation, shapes);
        if (res)
          resolution = std::move(*res);
        else
          llvm::consumeError(res.takeError());
      }
    }
  }

  SmallVector<const HostTensor *> inputPointers;
  for (HostTensor &input : inputs)
    inputPointers.push_back(&input);
  HostTensor output;
  failOn(kernel->run(inputPointers, output));
  if (targetOpt == "cuda")
    llvm::errs() << "einsum-run: ran on " << cuda::getDeviceName() << "\n";

  if (checkOpt) {
    if (!resolution)
      fail("--check needs an equation: give --equation, or an entry "
           "function that returns one einsum.contract of its arguments");
    SmallVector<const HostTensor *> operands = inputPointers;
    if (moduleMode) {
      operands.clear();
      for (unsigned arg : kernel->getSingleEinsum()->arguments)
        operands.push_back(&inputs[arg]);
    }
    std::string semiring =
        moduleMode ? kernel->getSingleEinsum()->semiring : semiringOpt;
    ReferenceResult reference = evaluateReference(
        *resolution, operands,
        symbolizeSemiring(semiring).value_or(Semiring::PlusTimes));
    Comparison cmp = compareWithReference(output, reference);
    if (!cmp.ok)
      fail("check failed: " + cmp.message, kExitCheckFailed);
    out << llvm::formatv("check: OK, max abs error {0:e}, "
                                  "{1:f2} of the tolerance\n",
                                  cmp.maxAbsError, cmp.maxErrorRatio);
  }

  if (benchmarkOpt > 0) {
    // One untimed run first: it starts the thread pool and touches the
    // output's pages. CUDA kernels are timed with events, on device buffers.
    failOn(kernel->run(inputPointers, output));
    std::vector<double> times =
        check(kernel->benchmark(inputPointers, output, benchmarkOpt));
    std::sort(times.begin(), times.end());
    double median = times[times.size() / 2];
    double best = times.front();
    out << llvm::formatv(
        "benchmark: compile {0:f1} ms{7}, median {1:f4} ms, min {2:f4} ms, "
        "{3:f2} GFLOP/s (median), {4:f2} GFLOP/s (min), {5} runs{6}\n",
        kernel->getCompileSeconds() * 1e3, median * 1e3, best * 1e3,
        kernel->getFlops() / median * 1e-9, kernel->getFlops() / best * 1e-9,
        times.size(), targetOpt == "cuda" ? " (CUDA events)" : "",
        kernel->isFromDiskCache() ? " (from the disk cache)" : "");
  }

  if (!outputPath.empty())
    failOn(writeNpy(outputPath, output));
  else if (!benchmarkOpt)
    printArray(out, output);
  exitWith(0);
}

//===- Mpi.h - einsum-run's use of MPI --------------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// What einsum-run --grid needs of MPI besides the kernels' own calls: start
// and stop, its rank, stopping every rank on an error, and gathering the
// result blocks and timings to rank 0. Where einsum-run is built without
// MPI, haveMPI() is false and --grid is refused before anything else runs.
//
// The kernels' collectives go through profiling wrappers (the MPI standard's
// PMPI interface): MPI_Allreduce is timed and its bytes counted, and
// MPI_Comm_split, which the shard-to-MPI lowering calls on every run of a
// kernel, answers from a cache after the first call with the same colors
// and keys on every rank (gathered: one rank's color and key alone do not
// say which split it is): no new communicator per run.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_TOOLS_EINSUM_RUN_MPI_H
#define EINSUM_TOOLS_EINSUM_RUN_MPI_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace einsum_run {

bool haveMPI();
/// The ABI of the MPI library einsum-run is linked with: "OpenMPI" or
/// "MPICH" (CompileOptions::mpiImplementation).
const char *getMPIImplementation();
/// MPI_Init_thread (funneled: only the main thread calls MPI).
void initMPI(int *argc, char ***argv);
bool isMPIInitialized();
int getRank();
int getNumRanks();
/// Stops every rank with `status` (MPI_Abort).
[[noreturn]] void abortMPI(int status);
/// The largest `status` of all ranks; then MPI_Finalize.
int finalizeMPI(int status);
void barrier();
/// Rank 0 gets every rank's `bytes` bytes, in rank order, in `out`.
void gatherBytes(const void *data, size_t bytes, void *out);
/// Rank 0 gets every rank's value, in rank order.
std::vector<double> gatherDoubles(double value);

/// What the kernels' collectives did since the last reset.
struct CommStats {
  double seconds = 0;
  uint64_t allReduces = 0;
  /// The all-reduced buffers' bytes.
  double payloadBytes = 0;
  /// What a ring all-reduce sends (and receives) for them: 2 (P - 1) / P
  /// times each buffer, P the ranks that reduce it.
  double ringBytes = 0;
  uint64_t commSplits = 0;
};
CommStats getCommStats();
void resetCommStats();

} // namespace einsum_run

#endif // EINSUM_TOOLS_EINSUM_RUN_MPI_H

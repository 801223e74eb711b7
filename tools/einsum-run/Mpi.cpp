//===- Mpi.cpp - einsum-run's use of MPI ------------------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Mpi.h"

#include <chrono>
#include <algorithm>
#include <cstdlib>
#include <cstring>

#ifdef EINSUM_HAVE_MPI
#include <map>
#include <mpi.h>
#include <tuple>
#endif

using namespace einsum_run;

static CommStats stats;

CommStats einsum_run::getCommStats() { return stats; }
void einsum_run::resetCommStats() { stats = CommStats(); }

#ifdef EINSUM_HAVE_MPI

static double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The profiling wrappers the kernels' calls resolve to (exported from the
// executable; see CMakeLists.txt).
extern "C" int MPI_Allreduce(const void *send, void *receive, int count,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  double start = now();
  int status = PMPI_Allreduce(send, receive, count, type, op, comm);
  stats.seconds += now() - start;
  int width = 0, ranks = 1;
  PMPI_Type_size(type, &width);
  PMPI_Comm_size(comm, &ranks);
  double bytes = static_cast<double>(count) * width;
  ++stats.allReduces;
  stats.payloadBytes += bytes;
  stats.ringBytes += 2.0 * (ranks - 1) / ranks * bytes;
  return status;
}

extern "C" int MPI_Comm_split(MPI_Comm comm, int color, int key,
                              MPI_Comm *result) {
  // A split is known by every rank's color and key (one rank's alone may
  // be the same for different splits): gathered first, 8 bytes a rank.
  static std::map<std::pair<MPI_Comm, std::vector<int>>, MPI_Comm> cache;
  double start = now();
  int ranks = 1;
  PMPI_Comm_size(comm, &ranks);
  int mine[2] = {color, key};
  std::vector<int> all(2 * ranks);
  int status = PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm);
  if (status != MPI_SUCCESS)
    return status;
  auto it = cache.find({comm, all});
  if (it != cache.end()) {
    *result = it->second;
    stats.seconds += now() - start;
    return MPI_SUCCESS;
  }
  status = PMPI_Comm_split(comm, color, key, result);
  stats.seconds += now() - start;
  ++stats.commSplits;
  if (status == MPI_SUCCESS)
    cache[{comm, std::move(all)}] = *result;
  return status;
}

bool einsum_run::haveMPI() { return true; }

const char *einsum_run::getMPIImplementation() {
#ifdef OPEN_MPI
  return "OpenMPI";
#else
  return "MPICH";
#endif
}

void einsum_run::initMPI(int *argc, char ***argv) {
  int provided = 0;
  PMPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}

bool einsum_run::isMPIInitialized() {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized && !finalized;
}

int einsum_run::getRank() {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int einsum_run::getNumRanks() {
  int size = 1;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

void einsum_run::abortMPI(int status) {
  PMPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

int einsum_run::finalizeMPI(int status) {
  int worst = status;
  PMPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  PMPI_Finalize();
  return worst;
}

void einsum_run::barrier() { PMPI_Barrier(MPI_COMM_WORLD); }

void einsum_run::gatherBytes(const void *data, size_t bytes, void *out) {
  // In chunks below 2^31 bytes (MPI counts are ints).
  constexpr size_t kChunk = size_t(1) << 30;
  int ranks = getNumRanks();
  for (size_t offset = 0; offset < bytes; offset += kChunk) {
    size_t length = std::min(kChunk, bytes - offset);
    std::vector<char> staging(getRank() == 0 ? length * ranks : 0);
    PMPI_Gather(static_cast<const char *>(data) + offset, length, MPI_BYTE,
                staging.data(), length, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (getRank() == 0)
      for (int r = 0; r < ranks; ++r)
        std::memcpy(static_cast<char *>(out) + r * bytes + offset,
                    staging.data() + r * length, length);
  }
}

std::vector<double> einsum_run::gatherDoubles(double value) {
  std::vector<double> values(getRank() == 0 ? getNumRanks() : 0);
  PMPI_Gather(&value, 1, MPI_DOUBLE, values.data(), 1, MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  return values;
}

#else // !EINSUM_HAVE_MPI: one process; --grid is refused before these run.

bool einsum_run::haveMPI() { return false; }
const char *einsum_run::getMPIImplementation() { return ""; }
void einsum_run::initMPI(int *, char ***) {}
bool einsum_run::isMPIInitialized() { return false; }
int einsum_run::getRank() { return 0; }
int einsum_run::getNumRanks() { return 1; }
void einsum_run::abortMPI(int status) { std::_Exit(status); }
int einsum_run::finalizeMPI(int status) { return status; }
void einsum_run::barrier() {}
void einsum_run::gatherBytes(const void *data, size_t bytes, void *out) {
  std::memcpy(out, data, bytes);
}
std::vector<double> einsum_run::gatherDoubles(double value) { return {value}; }

#endif

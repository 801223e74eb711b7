//===- Workspace.cpp - reused buffers of CPU kernels ------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Runtime/Workspace.h"
#include "einsum-c/Runtime.h"

#include <cstdlib>
#include <map>
#include <mutex>

using namespace mlir::einsum;

namespace {
/// Buffers of at least this size are kept for reuse.
constexpr uint64_t kMinKept = uint64_t(1) << 20;
/// At most this many bytes are kept.
constexpr uint64_t kMaxKept = uint64_t(1) << 30;
/// Sizes are rounded up to pages, so repeated calls find their buffers.
constexpr uint64_t kGranule = 4096;
/// Each block starts with a header holding its size; the header keeps the
/// payload 16-byte aligned, like malloc's.
constexpr uint64_t kHeader = 16;

struct Cache {
  std::mutex mutex;
  std::multimap<uint64_t, void *> kept;
  uint64_t keptBytes = 0;
  uint64_t reuses = 0;
};

Cache &getCache() {
  static Cache *cache = new Cache(); // Outlives kernels freed at exit.
  return *cache;
}

uint64_t &sizeOf(void *block) { return *static_cast<uint64_t *>(block); }
} // namespace

void *workspace::allocate(uint64_t bytes) {
  uint64_t size = bytes;
  if (size >= kMinKept) {
    size = (size + kGranule - 1) / kGranule * kGranule;
    Cache &cache = getCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.kept.find(size);
    if (it != cache.kept.end()) {
      void *block = it->second;
      cache.kept.erase(it);
      cache.keptBytes -= size;
      ++cache.reuses;
      return static_cast<char *>(block) + kHeader;
    }
  }
  void *block = std::malloc(size + kHeader);
  if (!block)
    return nullptr;
  sizeOf(block) = size;
  return static_cast<char *>(block) + kHeader;
}

void workspace::release(void *pointer) {
  if (!pointer)
    return;
  void *block = static_cast<char *>(pointer) - kHeader;
  uint64_t size = sizeOf(block);
  if (size >= kMinKept) {
    Cache &cache = getCache();
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (cache.keptBytes + size <= kMaxKept) {
      cache.kept.emplace(size, block);
      cache.keptBytes += size;
      return;
    }
  }
  std::free(block);
}

void workspace::trim() {
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  for (auto &entry : cache.kept)
    std::free(entry.second);
  cache.kept.clear();
  cache.keptBytes = 0;
}

workspace::Statistics workspace::getStatistics() {
  Cache &cache = getCache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  return {cache.keptBytes, cache.reuses};
}

void *_mlir_memref_to_llvm_alloc(uint64_t bytes) {
  return workspace::allocate(bytes);
}

void _mlir_memref_to_llvm_free(void *pointer) { workspace::release(pointer); }

void einsumRuntimeTrimWorkspace(void) { workspace::trim(); }

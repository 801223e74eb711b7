//===- DiskCache.h - compiled kernels kept on disk --------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The engine's second cache level: the object code of each kernel it
// compiles, in a directory shared by every process (and thread) of the user,
// so that a new process links a kernel in a few milliseconds instead of
// compiling it for 50-100.
//
// Location: $EINSUM_MLIR_CACHE_DIR, else $XDG_CACHE_HOME/einsum-mlir, else
// ~/.cache/einsum-mlir. EINSUM_MLIR_CACHE=0 turns it off;
// EINSUM_MLIR_CACHE_SIZE caps it (bytes, with an optional K, M or G suffix;
// default 1G), the least recently used entries going first.
//
// One file per kernel, named by a 128-bit hash of its key (everything that
// changes the code, the compiler's build included), holding a header, the
// whole key, metadata and the object, with a checksum. Entries are written
// to a temporary file and renamed into place, so readers see whole entries
// only; an entry that is truncated, corrupt, of another key or version, or
// unreadable is ignored (and removed) and the kernel compiled again. A cache
// that cannot be written (read-only, full) warns once per process and the
// engine goes on compiling in memory.
//
//===----------------------------------------------------------------------===//

#ifndef EINSUM_ENGINE_DISKCACHE_H
#define EINSUM_ENGINE_DISKCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace einsum {

class DiskCache {
public:
  /// Configured from the environment (see above).
  static DiskCache fromEnvironment();
  /// A cache in `directory` holding at most `capacity` bytes.
  DiskCache(std::string directory, uint64_t capacity);

  bool isEnabled() const { return !directory.empty(); }
  llvm::StringRef getDirectory() const { return directory; }
  uint64_t getCapacity() const { return capacity; }

  /// A cached entry: the kernel's object and the metadata stored with it.
  struct Entry {
    std::unique_ptr<llvm::MemoryBuffer> object;
    std::string metadata;
  };
  /// The entry of `key`, or none (absent, or not valid: then removed).
  std::optional<Entry> load(llvm::StringRef key) const;
  /// Stores an entry for `key` and evicts beyond the capacity. On failure,
  /// warns once per process on stderr and returns false.
  bool store(llvm::StringRef key, llvm::StringRef metadata,
             llvm::MemoryBufferRef object) const;

  struct Statistics {
    uint64_t entries = 0;
    uint64_t bytes = 0;
  };
  Statistics getStatistics() const;
  /// Removes every entry; false with `error` set when one could not be.
  bool clear(std::string &error) const;

  /// Keeps `object` also as a shared library with a JSON descriptor, for
  /// loaders without LLVM (the Python package's first call of a kernel in a
  /// new process): files NAME.so and NAME.json, NAME the FNV-1a hash of
  /// `key`, the host's processor (einsumRuntimeHostId) and the binary stamp.
  /// The descriptor holds those three, the library's name, size and CRC-32,
  /// and `fields` (JSON members). The library is linked with GNU ld (or
  /// LLVM's lld);
  /// its undefined symbols are libEinsumRuntime's (and libomp's, which
  /// `libraries` name). False where it could not be written.
  bool storeSharedObject(llvm::StringRef key, llvm::MemoryBufferRef object,
                         llvm::StringRef fields,
                         llvm::ArrayRef<std::string> libraries) const;

  /// Whether a valid shared library of `key` is there (its descriptor's
  /// key, host and stamp are this process's; its size and CRC-32 match).
  bool hasSharedObject(llvm::StringRef key) const;

  /// An identifier of the compiler's build (its version, the LLVM it links,
  /// and the binary that holds it), part of every key.
  static std::string getBuildId();
  /// The binary that holds the compiler: "SIZE/SECONDS.NANOSECONDS/INODE"
  /// of its file (a shared library's, where it is one).
  static std::string getBinaryStamp();

private:
  std::string getPath(llvm::StringRef key) const;
  void evict() const;

  std::string directory; // Empty: disabled.
  uint64_t capacity = 0;
};

/// Parses "1073741824", "512M", "1G" (K, M, G: powers of 1024).
std::optional<uint64_t> parseByteSize(llvm::StringRef text);

} // namespace einsum
} // namespace mlir

#endif // EINSUM_ENGINE_DISKCACHE_H

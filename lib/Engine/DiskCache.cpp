//===- DiskCache.cpp - compiled kernels kept on disk ----------------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/DiskCache.h"

#include "einsum-c/Runtime.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <vector>

using namespace mlir::einsum;

namespace {
constexpr char kMagic[8] = {'E', 'I', 'N', 'S', 'U', 'M', 'K', 'C'};
constexpr uint32_t kFormatVersion = 1;
constexpr llvm::StringLiteral kExtension = ".kernel";
constexpr uint64_t kDefaultCapacity = uint64_t(1) << 30;

/// magic, format, reserved, key/metadata/object lengths, checksum.
struct Header {
  char magic[8];
  uint32_t format;
  uint32_t reserved;
  uint64_t keyLength;
  uint64_t metadataLength;
  uint64_t objectLength;
  uint64_t checksum;
};

uint64_t checksumOf(llvm::StringRef key, llvm::StringRef metadata,
                    llvm::StringRef object) {
  std::string all = (key + metadata + object).str();
  return llvm::xxh3_64bits(all);
}

std::string getEnv(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}
} // namespace

std::optional<uint64_t> mlir::einsum::parseByteSize(llvm::StringRef text) {
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (llvm::toUpper(text.back())) {
    case 'K':
      scale = uint64_t(1) << 10;
      break;
    case 'M':
      scale = uint64_t(1) << 20;
      break;
    case 'G':
      scale = uint64_t(1) << 30;
      break;
    default:
      break;
    }
    if (scale != 1)
      text = text.drop_back();
  }
  uint64_t value;
  if (text.empty() || text.getAsInteger(10, value) ||
      value > UINT64_MAX / scale)
    return std::nullopt;
  return value * scale;
}

DiskCache::DiskCache(std::string directory, uint64_t capacity)
    : directory(std::move(directory)), capacity(capacity) {}

DiskCache DiskCache::fromEnvironment() {
  if (getEnv("EINSUM_MLIR_CACHE") == "0")
    return DiskCache("", 0);
  std::string directory = getEnv("EINSUM_MLIR_CACHE_DIR");
  if (directory.empty()) {
    std::string base = getEnv("XDG_CACHE_HOME");
    if (base.empty() && !getEnv("HOME").empty())
      base = getEnv("HOME") + "/.cache";
    if (!base.empty())
      directory = base + "/einsum-mlir";
  }
  uint64_t capacity = kDefaultCapacity;
  std::string size = getEnv("EINSUM_MLIR_CACHE_SIZE");
  if (!size.empty()) {
    if (std::optional<uint64_t> parsed = parseByteSize(size))
      capacity = *parsed;
    else
      llvm::errs() << "einsum-mlir: warning: ignoring EINSUM_MLIR_CACHE_SIZE='"
                   << size << "' (expected bytes, e.g. 1073741824 or 512M)\n";
  }
  return DiskCache(directory, capacity);
}

std::string DiskCache::getBinaryStamp() {
  static const std::string stamp = [] {
    Dl_info info;
    struct stat status;
    if (!dladdr(reinterpret_cast<void *>(&DiskCache::getBinaryStamp),
                &info) ||
        !info.dli_fname || ::stat(info.dli_fname, &status) != 0)
      return std::string();
    return std::to_string(status.st_size) + "/" +
           std::to_string(status.st_mtim.tv_sec) + "." +
           std::to_string(status.st_mtim.tv_nsec) + "/" +
           std::to_string(status.st_ino);
  }();
  return stamp;
}

std::string DiskCache::getBuildId() {
  // The binary that holds this code too: a rebuilt compiler is another one.
  return "einsum-mlir " EINSUM_MLIR_VERSION " llvm " LLVM_VERSION_STRING " " +
         getBinaryStamp();
}

std::string DiskCache::getPath(llvm::StringRef key) const {
  std::string full = (getBuildId() + "\n" + key).str();
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(full.data()),
                     full.size()));
  return directory + "/" + llvm::utohexstr(hash.high64, true, 16) +
         llvm::utohexstr(hash.low64, true, 16) + kExtension.str();
}

std::optional<DiskCache::Entry> DiskCache::load(llvm::StringRef key) const {
  if (!isEnabled())
    return std::nullopt;
  std::string path = getPath(key);
  // Read, not mapped: a file truncated under a mapping would fault.
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false,
                                          /*IsVolatile=*/true);
  if (!file)
    return std::nullopt;
  llvm::StringRef bytes = (*file)->getBuffer();
  std::string fullKey = (getBuildId() + "\n" + key).str();
  Header header;
  bool valid = bytes.size() >= sizeof(Header);
  if (valid) {
    std::memcpy(&header, bytes.data(), sizeof(Header));
    uint64_t payload = bytes.size() - sizeof(Header);
    valid = std::memcmp(header.magic, kMagic, sizeof(kMagic)) == 0 &&
            header.format == kFormatVersion &&
            header.keyLength <= payload &&
            header.metadataLength <= payload - header.keyLength &&
            header.objectLength ==
                payload - header.keyLength - header.metadataLength;
  }
  llvm::StringRef storedKey, metadata, object;
  if (valid) {
    llvm::StringRef rest = bytes.drop_front(sizeof(Header));
    storedKey = rest.take_front(header.keyLength);
    metadata = rest.drop_front(header.keyLength).take_front(
        header.metadataLength);
    object = rest.drop_front(header.keyLength + header.metadataLength);
    valid = storedKey == fullKey &&
            header.checksum == checksumOf(storedKey, metadata, object);
  }
  if (!valid) {
    // Corrupt, truncated or foreign: compiled again and written anew.
    ::unlink(path.c_str());
    return std::nullopt;
  }
  ::utimes(path.c_str(), nullptr); // Recently used (where writable).
  Entry entry;
  entry.metadata = metadata.str();
  entry.object = llvm::MemoryBuffer::getMemBufferCopy(object, path);
  return entry;
}

bool DiskCache::store(llvm::StringRef key, llvm::StringRef metadata,
                      llvm::MemoryBufferRef object) const {
  if (!isEnabled())
    return false;
  static std::atomic<bool> warned{false};
  auto fail = [&](const llvm::Twine &what, std::error_code error) {
    if (!warned.exchange(true))
      llvm::errs() << "einsum-mlir: warning: cannot write the kernel cache in "
                   << directory << " (" << what << ": " << error.message()
                   << "); kernels are compiled in memory\n";
    return false;
  };
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return fail("creating the directory", error);
  std::string fullKey = (getBuildId() + "\n" + key).str();
  Header header;
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.format = kFormatVersion;
  header.reserved = 0;
  header.keyLength = fullKey.size();
  header.metadataLength = metadata.size();
  header.objectLength = object.getBufferSize();
  header.checksum = checksumOf(fullKey, metadata, object.getBuffer());

  // A unique temporary file in the same directory, renamed into place: a
  // reader sees the old entry, no entry or the new one, never a part.
  int fd;
  llvm::SmallString<256> temporary;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(
          directory + "/%%%%%%%%%%%%.tmp", fd, temporary))
    return fail("creating a file", error);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(&header), sizeof(Header));
    os << fullKey << metadata << object.getBuffer();
    os.close();
    if (os.has_error()) {
      std::error_code error = os.error();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return fail("writing", error);
    }
  }
  if (std::error_code error =
          llvm::sys::fs::rename(temporary, getPath(key))) {
    llvm::sys::fs::remove(temporary);
    return fail("renaming", error);
  }
  evict();
  return true;
}


/// FNV-1a, 64 bits, as hex: a name the Python package computes too.
static std::string fnv1a(llvm::StringRef text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text.bytes()) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return llvm::utohexstr(hash, /*LowerCase=*/true, 16);
}

/// The base path (no extension) of the shared library of `key`.
static std::string getSharedObjectBase(llvm::StringRef directory,
                                       llvm::StringRef key) {
  std::string text = (key + "\n" + einsumRuntimeHostId() + "\n" +
                      DiskCache::getBinaryStamp())
                         .str();
  return (directory + "/" + fnv1a(text)).str();
}

bool DiskCache::hasSharedObject(llvm::StringRef key) const {
  if (!isEnabled())
    return false;
  std::string base = getSharedObjectBase(directory, key);
  auto descriptor = llvm::MemoryBuffer::getFile(base + ".json",
                                                /*IsText=*/true,
                                                /*RequiresNullTerminator=*/false,
                                                /*IsVolatile=*/true);
  if (!descriptor)
    return false;
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*descriptor)->getBuffer());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return false;
  }
  const llvm::json::Object *object = parsed->getAsObject();
  if (!object || object->getString("key") != key ||
      object->getString("host") != llvm::StringRef(einsumRuntimeHostId()) ||
      object->getString("stamp") != getBinaryStamp())
    return false;
  auto library = llvm::MemoryBuffer::getFile(base + ".so", /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false,
                                             /*IsVolatile=*/true);
  return library &&
         object->getInteger("size") ==
             static_cast<int64_t>((*library)->getBufferSize()) &&
         object->getInteger("crc32") ==
             static_cast<int64_t>(llvm::crc32(
                 llvm::arrayRefFromStringRef((*library)->getBuffer())));
}

bool DiskCache::storeSharedObject(llvm::StringRef key,
                                  llvm::MemoryBufferRef object,
                                  llvm::StringRef fields,
                                  llvm::ArrayRef<std::string> libraries) const {
  if (!isEnabled())
    return false;
  std::string host = einsumRuntimeHostId();
  std::string stamp = getBinaryStamp();
  std::string base = getSharedObjectBase(directory, key);
  std::string name = llvm::sys::path::filename(base).str();
  // The object, linked into a temporary library renamed into place.
  llvm::SmallString<256> objectPath, libraryPath;
  int fd;
  if (llvm::sys::fs::createUniqueFile(directory + "/%%%%%%%%%%%%.tmp", fd,
                                      objectPath))
    return false;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object.getBuffer();
  }
  llvm::scope_exit removeObject([&] { llvm::sys::fs::remove(objectPath); });
  if (llvm::sys::fs::createUniqueFile(directory + "/%%%%%%%%%%%%.tmp",
                                      libraryPath))
    return false;
  llvm::scope_exit removeLibrary(
      [&] { llvm::sys::fs::remove(libraryPath); });
  // GNU ld starts in a few milliseconds; LLVM's lld loads libLLVM first
  // (70 ms here).
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("ld");
  if (!linker)
    linker = llvm::sys::findProgramByName("ld.lld", {EINSUM_LLVM_TOOLS_DIR});
  if (!linker)
    return false;
  std::vector<std::string> args = {*linker, "-shared", "-o",
                                   libraryPath.str().str(),
                                   objectPath.str().str()};
  // The libraries by their run paths too: a loader finds them there.
  for (const std::string &library : libraries) {
    args.push_back(library);
    args.push_back("-rpath");
    args.push_back(llvm::sys::path::parent_path(library).str());
  }
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  if (llvm::sys::ExecuteAndWait(*linker, argRefs, std::nullopt,
                                {std::nullopt, std::nullopt, std::nullopt}) !=
      0)
    return false;
  auto linked = llvm::MemoryBuffer::getFile(libraryPath, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!linked)
    return false;
  uint32_t crc = llvm::crc32(llvm::arrayRefFromStringRef(
      (*linked)->getBuffer()));
  if (llvm::sys::fs::rename(libraryPath, base + ".so"))
    return false;
  // The descriptor last: a reader that finds it finds the library.
  std::string json;
  llvm::raw_string_ostream os(json);
  llvm::json::OStream out(os);
  out.object([&] {
    out.attribute("key", key);
    out.attribute("host", host);
    out.attribute("stamp", stamp);
    out.attribute("library", name + ".so");
    out.attribute("size", static_cast<int64_t>((*linked)->getBufferSize()));
    out.attribute("crc32", static_cast<int64_t>(crc));
  });
  // `fields` go in before the closing brace.
  json.pop_back();
  if (!fields.empty())
    json += "," + fields.str();
  json += "}";
  llvm::SmallString<256> descriptorPath;
  if (llvm::sys::fs::createUniqueFile(directory + "/%%%%%%%%%%%%.tmp", fd,
                                      descriptorPath))
    return false;
  {
    llvm::raw_fd_ostream file(fd, /*shouldClose=*/true);
    file << json;
  }
  if (llvm::sys::fs::rename(descriptorPath, base + ".json")) {
    llvm::sys::fs::remove(descriptorPath);
    return false;
  }
  return true;
}

namespace {
struct FileInfo {
  std::string path;
  uint64_t size;
  llvm::sys::TimePoint<> modified;
};

std::vector<FileInfo> listEntries(llvm::StringRef directory,
                                  std::vector<FileInfo> *temporaries) {
  std::vector<FileInfo> files;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(directory, error), end;
       !error && it != end; it.increment(error)) {
    llvm::StringRef path = it->path();
    // Entries, and the shared libraries and descriptors kept beside them.
    bool entry = path.ends_with(kExtension) || path.ends_with(".so") ||
                 path.ends_with(".json");
    if (!entry && !(temporaries && path.ends_with(".tmp")))
      continue;
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(path, status))
      continue; // Removed meanwhile.
    FileInfo info{path.str(), status.getSize(),
                  status.getLastModificationTime()};
    (entry ? files : *temporaries).push_back(std::move(info));
  }
  return files;
}
} // namespace

void DiskCache::evict() const {
  std::vector<FileInfo> temporaries;
  std::vector<FileInfo> files = listEntries(directory, &temporaries);
  // Temporary files of writers that died: gone after an hour.
  auto now = std::chrono::system_clock::now();
  for (const FileInfo &file : temporaries)
    if (now - file.modified > std::chrono::hours(1))
      ::unlink(file.path.c_str());
  uint64_t total = 0;
  for (const FileInfo &file : files)
    total += file.size;
  if (total <= capacity)
    return;
  std::sort(files.begin(), files.end(),
            [](const FileInfo &a, const FileInfo &b) {
              return a.modified < b.modified;
            });
  for (const FileInfo &file : files) {
    if (total <= capacity)
      break;
    if (::unlink(file.path.c_str()) == 0 || errno == ENOENT)
      total -= file.size;
  }
}

DiskCache::Statistics DiskCache::getStatistics() const {
  Statistics statistics;
  if (!isEnabled())
    return statistics;
  for (const FileInfo &file : listEntries(directory, nullptr)) {
    statistics.entries += llvm::StringRef(file.path).ends_with(kExtension);
    statistics.bytes += file.size;
  }
  return statistics;
}

bool DiskCache::clear(std::string &error) const {
  if (!isEnabled())
    return true;
  for (const FileInfo &file : listEntries(directory, nullptr))
    if (::unlink(file.path.c_str()) != 0 && errno != ENOENT) {
      error = "cannot remove " + file.path + ": " + std::strerror(errno);
      return false;
    }
  return true;
}

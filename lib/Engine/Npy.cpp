//===- Npy.cpp - reading and writing .npy files -----------------*- C++ -*-===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace mlir::einsum;
using llvm::StringRef;

static const char kMagic[] = "\x93NUMPY";

namespace {
/// A strict reader of the Python dict literal in an .npy header, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  HeaderParser(StringRef text) : text(text) {}

  llvm::Error parse(std::string &descr, bool &fortranOrder,
                    llvm::SmallVector<int64_t> &shape) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return error("expected '{'");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (llvm::Error err = parseString(key))
        return err;
      skipSpace();
      if (!consume(':'))
        return error("expected ':' after '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (haveDescr)
          return error("duplicate key 'descr'");
        haveDescr = true;
        if (llvm::Error err = parseString(descr))
          return err;
      } else if (key == "fortran_order") {
        if (haveOrder)
          return error("duplicate key 'fortran_order'");
        haveOrder = true;
        if (text.consume_front("True"))
          fortranOrder = true;
        else if (text.consume_front("False"))
          fortranOrder = false;
        else
          return error("'fortran_order' must be True or False");
      } else if (key == "shape") {
        if (haveShape)
          return error("duplicate key 'shape'");
        haveShape = true;
        if (llvm::Error err = parseShape(shape))
          return err;
      } else {
        return error("unexpected key '" + key + "'");
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return error("expected ',' or '}'");
    }
    skipSpace();
    if (!text.empty())
      return error("unexpected text after the header dictionary");
    if (!haveDescr || !haveOrder || !haveShape)
      return error("the header needs the keys 'descr', 'fortran_order' and "
                   "'shape'");
    return llvm::Error::success();
  }

private:
  llvm::Error error(const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "malformed header: " + message);
  }
  void skipSpace() { text = text.ltrim(" \t\n"); }
  bool consume(char c) { return text.consume_front(StringRef(&c, 1)); }

  llvm::Error parseString(std::string &out) {
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return error("expected a quoted string");
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return error("unterminated string");
    out = text.substr(1, end - 1).str();
    text = text.drop_front(end + 1);
    return llvm::Error::success();
  }

  llvm::Error parseShape(llvm::SmallVector<int64_t> &shape) {
    if (!consume('('))
      return error("'shape' must be a tuple");
    bool needComma = false;
    while (true) {
      skipSpace();
      if (consume(')'))
        break;
      if (needComma)
        return error("expected ',' in 'shape'");
      size_t digits = 0;
      while (digits < text.size() && llvm::isDigit(text[digits]))
        ++digits;
      uint64_t value;
      if (digits == 0 || text.take_front(digits).getAsInteger(10, value) ||
          value > (uint64_t(1) << 40))
        return error("'shape' must hold non-negative integers");
      shape.push_back(static_cast<int64_t>(value));
      text = text.drop_front(digits);
      // A trailing 'L' is how Python 2 wrote longs.
      consume('L');
      skipSpace();
      needComma = !consume(',');
    }
    return llvm::Error::success();
  }

  StringRef text;
};
} // namespace

static std::optional<ElementType> elementTypeOfDescr(StringRef descr) {
  if (descr == "<f4")
    return ElementType::F32;
  if (descr == "<f8")
    return ElementType::F64;
  if (descr == "<f2")
    return ElementType::F16;
  if (descr == "<i4")
    return ElementType::I32;
  if (descr == "<i8")
    return ElementType::I64;
  if (descr == "<V2" || descr == "|V2")
    return ElementType::BF16;
  return std::nullopt;
}

static StringRef descrOfElementType(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "<f4";
  case ElementType::F64:
    return "<f8";
  case ElementType::F16:
    return "<f2";
  case ElementType::BF16:
    return "<V2";
  case ElementType::I32:
    return "<i4";
  case ElementType::I64:
    return "<i8";
  }
  llvm_unreachable("unknown element type");
}

namespace {
/// An .npy file's header, checked against the file's size.
struct NpyHeader {
  ElementType type = ElementType::F32;
  llvm::SmallVector<int64_t> shape;
  bool fortranOrder = false;
  size_t dataOffset = 0;
};
} // namespace

static llvm::Expected<NpyHeader> parseNpyHeader(StringRef bytes,
                                                StringRef name) {
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   name + ": " + message);
  };
  if (bytes.size() < 10 || !bytes.starts_with(StringRef(kMagic, 6)))
    return fail("not an .npy file (bad magic string)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  unsigned minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return fail("unsupported .npy version " + llvm::Twine(major) + "." +
                llvm::Twine(minor));
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lengthBytes)
    return fail("truncated header");
  size_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= static_cast<size_t>(static_cast<unsigned char>(
                        bytes[8 + i]))
                    << (8 * i);
  NpyHeader result;
  result.dataOffset = 8 + lengthBytes + headerLength;
  if (bytes.size() < result.dataOffset)
    return fail("truncated header");
  StringRef header = bytes.substr(8 + lengthBytes, headerLength);
  if (!header.ends_with("\n"))
    return fail("malformed header: it must end with a newline");

  std::string descr;
  if (llvm::Error err = HeaderParser(header).parse(descr, result.fortranOrder,
                                                   result.shape))
    return fail(llvm::toString(std::move(err)));

  std::optional<ElementType> type = elementTypeOfDescr(descr);
  if (!type) {
    std::string why = "unsupported element type '" + descr + "'";
    if (StringRef(descr).contains('O'))
      why += " (object arrays cannot be read)";
    else if (StringRef(descr).starts_with(">"))
      why += " (big-endian data is not supported)";
    return fail(why + "; supported: <f4, <f8, <f2, <i4, <i8 and <V2 (bf16)");
  }
  result.type = *type;

  // Check the size against the file before allocating anything.
  std::optional<uint64_t> needed = getDenseByteSize(*type, result.shape);
  size_t available = bytes.size() - result.dataOffset;
  if (!needed || available < *needed)
    return fail("truncated data: " + llvm::Twine(available) +
                " bytes, but shape and type need " +
                (needed ? llvm::Twine(*needed) : llvm::Twine("more")));
  if (available > *needed)
    return fail(llvm::Twine(available - *needed) +
                " unexpected bytes after the data");
  return result;
}

llvm::Expected<HostTensor> mlir::einsum::parseNpy(StringRef bytes,
                                                  StringRef name) {
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   name + ": " + message);
  };
  llvm::Expected<NpyHeader> parsed = parseNpyHeader(bytes, name);
  if (!parsed)
    return parsed.takeError();
  ElementType type = parsed->type;
  llvm::ArrayRef<int64_t> shape = parsed->shape;
  llvm::Expected<HostTensor> created = HostTensor::create(type, shape);
  if (!created)
    return fail(llvm::toString(created.takeError()));
  HostTensor tensor = std::move(*created);
  size_t expected = tensor.getNumBytes();
  const char *data = bytes.data() + parsed->dataOffset;
  if (!parsed->fortranOrder || tensor.getRank() < 2) {
    std::memcpy(tensor.data(), data, expected);
    return std::move(tensor);
  }

  // Fortran order: element (i0, ..., in) is at sum(ik * fstride_k) with the
  // first index varying fastest.
  size_t width = getByteWidth(type);
  unsigned rank = tensor.getRank();
  llvm::SmallVector<int64_t> fortranStrides(rank, 1);
  for (unsigned k = 1; k < rank; ++k)
    fortranStrides[k] = fortranStrides[k - 1] * shape[k - 1];
  llvm::SmallVector<int64_t> index(rank, 0);
  char *out = static_cast<char *>(tensor.data());
  for (int64_t linear = 0, n = tensor.getNumElements(); linear < n;
       ++linear) {
    int64_t source = 0;
    for (unsigned k = 0; k < rank; ++k)
      source += index[k] * fortranStrides[k];
    std::memcpy(out + linear * width, data + source * width, width);
    for (int k = rank - 1; k >= 0; --k) {
      if (++index[k] < shape[k])
        break;
      index[k] = 0;
    }
  }
  return std::move(tensor);
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
mlir::einsum::readRegularFile(StringRef path) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return llvm::createStringError(ec, path + ": cannot read the file: " +
                                           ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        path + ": cannot read the file: not a regular file");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   path + ": cannot read the file: " +
                                       file.getError().message());
  return std::move(*file);
}

llvm::Error mlir::einsum::writeFileAtomically(
    StringRef path, llvm::function_ref<void(llvm::raw_ostream &)> write) {
  auto fail = [&](std::error_code ec) {
    return llvm::createStringError(ec, path + ": cannot write the file: " +
                                           ec.message());
  };
  auto writeAll = [&](int fd) -> std::error_code {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    write(os);
    os.close();
    std::error_code ec = os.error();
    os.clear_error();
    return ec;
  };

  // Devices and pipes cannot be replaced: written directly.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file &&
      status.type() != llvm::sys::fs::file_type::file_not_found) {
    if (status.type() == llvm::sys::fs::file_type::directory_file)
      return fail(std::make_error_code(std::errc::is_a_directory));
    int fd;
    if (std::error_code ec = llvm::sys::fs::openFileForWrite(
            path, fd, llvm::sys::fs::CD_OpenExisting))
      return fail(ec);
    if (std::error_code ec = writeAll(fd))
      return fail(ec);
    return llvm::Error::success();
  }

  llvm::SmallString<256> directory(path);
  llvm::sys::path::remove_filename(directory);
  if (directory.empty())
    directory = ".";
  llvm::SmallString<256> model(directory);
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(path) +
                                     ".tmp-%%%%%%%%");
  llvm::SmallString<256> temporary;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model, fd, temporary))
    return fail(ec);
  if (std::error_code ec = writeAll(fd)) {
    llvm::sys::fs::remove(temporary);
    return fail(ec);
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return fail(ec);
  }
  return llvm::Error::success();
}

llvm::Expected<std::pair<llvm::SmallVector<int64_t>, ElementType>>
mlir::einsum::readNpyType(StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      readRegularFile(path);
  if (!file)
    return file.takeError();
  llvm::Expected<NpyHeader> header = parseNpyHeader((*file)->getBuffer(), path);
  if (!header)
    return header.takeError();
  return std::make_pair(header->shape, header->type);
}

llvm::Expected<HostTensor>
mlir::einsum::readNpyBlock(StringRef path, llvm::ArrayRef<int64_t> offsets,
                           llvm::ArrayRef<int64_t> shape) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      readRegularFile(path);
  if (!file)
    return file.takeError();
  StringRef bytes = (*file)->getBuffer();
  llvm::Expected<NpyHeader> header = parseNpyHeader(bytes, path);
  if (!header)
    return header.takeError();
  if (header->shape.size() != shape.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": the array has rank " +
                                       llvm::Twine(header->shape.size()) +
                                       ", the block " +
                                       llvm::Twine(shape.size()));
  llvm::Expected<HostTensor> block = HostTensor::create(header->type, shape);
  if (!block)
    return block.takeError();
  if (header->fortranOrder && shape.size() >= 2) {
    // Rare: the whole array, reordered, then the block.
    llvm::Expected<HostTensor> whole = parseNpy(bytes, path);
    if (!whole)
      return whole.takeError();
    extractBlock(*whole, offsets, *block);
    return block;
  }
  // The block's rows straight from the (mapped) file: only its pages are
  // read.
  copyBlock(bytes.data() + header->dataOffset, header->shape, offsets,
            static_cast<char *>(block->data()), shape,
            getByteWidth(header->type), /*intoWhole=*/false);
  return block;
}

llvm::Expected<HostTensor> mlir::einsum::readNpy(StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      readRegularFile(path);
  if (!file)
    return file.takeError();
  return parseNpy((*file)->getBuffer(), path);
}

/// The .npy (version 1.0) header of `tensor`: the data follows it.
static std::string npyHeader(const HostTensor &tensor) {
  std::string dict = "{'descr': '" + descrOfElementType(tensor.getElementType()).str() +
                     "', 'fortran_order': False, 'shape': (";
  for (auto [i, d] : llvm::enumerate(tensor.getShape())) {
    if (i)
      dict += ", ";
    dict += std::to_string(d);
  }
  if (tensor.getRank() == 1)
    dict += ",";
  dict += "), }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  return out + dict;
}

std::string mlir::einsum::serializeNpy(const HostTensor &tensor) {
  std::string out = npyHeader(tensor);
  out.append(static_cast<const char *>(tensor.data()), tensor.getNumBytes());
  return out;
}

llvm::Error mlir::einsum::writeNpy(StringRef path, const HostTensor &tensor) {
  return writeFileAtomically(path, [&](llvm::raw_ostream &os) {
    os << npyHeader(tensor);
    os.write(static_cast<const char *>(tensor.data()), tensor.getNumBytes());
  });
}

//===- NpyTest.cpp - unit tests of .npy reading and writing ---------------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//

#include "einsum/Engine/Npy.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace mlir::einsum;

namespace {

std::string header(const std::string &dict, char major = 1) {
  std::string out("\x93NUMPY", 6);
  out += major;
  out += '\0';
  std::string d = dict + "\n";
  if (major == 1) {
    out += static_cast<char>(d.size() & 0xff);
    out += static_cast<char>(d.size() >> 8);
  } else {
    out += static_cast<char>(d.size() & 0xff);
    out += static_cast<char>(d.size() >> 8);
    out += '\0';
    out += '\0';
  }
  return out + d;
}

std::string errorOf(const std::string &bytes) {
  auto t = parseNpy(bytes, "x.npy");
  if (t) {
    ADD_FAILURE() << "parsed, but should not";
    return "";
  }
  return llvm::toString(t.takeError());
}

TEST(Npy, RoundTripEveryType) {
  for (ElementType type : {ElementType::F32, ElementType::F64, ElementType::F16,
                           ElementType::BF16, ElementType::I32,
                           ElementType::I64}) {
    HostTensor t(type, {2, 3});
    fillIota(t);
    std::string bytes = serializeNpy(t);
    EXPECT_EQ((bytes.size() - t.getNumBytes()) % 64, 0u);
    auto back = parseNpy(bytes, "t.npy");
    ASSERT_TRUE(!!back) << llvm::toString(back.takeError());
    EXPECT_EQ(back->getElementType(), type);
    EXPECT_EQ(back->getShape(), t.getShape());
    EXPECT_EQ(std::memcmp(back->data(), t.data(), t.getNumBytes()), 0);
  }
}

TEST(Npy, ScalarAndOneD) {
  HostTensor s(ElementType::F64, {});
  s.setFromDouble(0, 2.5);
  auto back = parseNpy(serializeNpy(s), "s.npy");
  ASSERT_TRUE(!!back);
  EXPECT_EQ(back->getRank(), 0u);
  EXPECT_EQ(back->getAsDouble(0), 2.5);
  EXPECT_NE(serializeNpy(HostTensor(ElementType::I32, {5})).find("(5,)"),
            std::string::npos);
}

TEST(Npy, FortranOrderIsTransposed) {
  std::string bytes =
      header("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }");
  int32_t columnMajor[] = {0, 3, 1, 4, 2, 5};
  bytes.append(reinterpret_cast<char *>(columnMajor), sizeof(columnMajor));
  auto t = parseNpy(bytes, "f.npy");
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(t->getAsInt(i), i);
}

TEST(Npy, Version2Header) {
  std::string bytes =
      header("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 2);
  double one = 1.0;
  bytes.append(reinterpret_cast<char *>(&one), 8);
  auto t = parseNpy(bytes, "v2.npy");
  ASSERT_TRUE(!!t) << llvm::toString(t.takeError());
  EXPECT_EQ(t->getAsDouble(0), 1.0);
}

TEST(Npy, Errors) {
  EXPECT_EQ(errorOf("hello"), "x.npy: not an .npy file (bad magic string)");
  EXPECT_EQ(errorOf(header("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2,), }") +
                    std::string(4, '\0')),
            "x.npy: truncated data: 4 bytes, but shape and type need 8");
  EXPECT_EQ(errorOf(header("{'descr': '|O', 'fortran_order': False, "
                           "'shape': (2,), }")),
            "x.npy: unsupported element type '|O' (object arrays cannot be "
            "read); supported: <f4, <f8, <f2, <i4, <i8 and <V2 (bf16)");
  EXPECT_EQ(errorOf(header("{'descr': '>f4', 'fortran_order': False, "
                           "'shape': (2,), }")),
            "x.npy: unsupported element type '>f4' (big-endian data is not "
            "supported); supported: <f4, <f8, <f2, <i4, <i8 and <V2 (bf16)");
  EXPECT_EQ(errorOf(header("{'descr': '<f4', 'shape': (2,), }")),
            "x.npy: malformed header: the header needs the keys 'descr', "
            "'fortran_order' and 'shape'");
  EXPECT_EQ(errorOf(header("{'descr': '<f4', 'fortran_order': 0, "
                           "'shape': (2,), }")),
            "x.npy: malformed header: 'fortran_order' must be True or False");
  EXPECT_EQ(errorOf(header("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (-2,), }")),
            "x.npy: malformed header: 'shape' must hold non-negative "
            "integers");
  EXPECT_EQ(errorOf(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)),
            "x.npy: truncated header");
}

TEST(HalfFloat, Conversions) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(floatToHalf(5.960464477539063e-08f), 0x0001);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  for (uint32_t bits = 0; bits < 0x7c00; ++bits)
    EXPECT_EQ(floatToHalf(halfToFloat(bits)), bits);
  EXPECT_EQ(floatToBF16(1.0f), 0x3f80);
  EXPECT_EQ(bf16ToFloat(0x4049), 3.140625f);
  // Round to nearest even: 1 + 2^-8 is halfway between bf16 neighbours.
  EXPECT_EQ(floatToBF16(1.00390625f), 0x3f80);
}

TEST(TensorType, Parse) {
  auto t = parseTensorType("3x0x4xbf16");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->first, (llvm::SmallVector<int64_t>{3, 0, 4}));
  EXPECT_EQ(t->second, ElementType::BF16);
  EXPECT_TRUE(parseTensorType("f64")->first.empty());
  EXPECT_FALSE(parseTensorType("3x4").has_value());
  EXPECT_FALSE(parseTensorType("3xx4xf32").has_value());
  EXPECT_FALSE(parseTensorType("-3xf32").has_value());
  EXPECT_FALSE(parseTensorType("3xi8").has_value());
}

} // namespace

//===- EinsumEquationTest.cpp - unit tests of the equation layer ----------===//
//
// Part of the einsum-mlir project.
//
//===----------------------------------------------------------------------===//
//
// One group per rule of docs/Dialect/Einsum.md (E1-E13), positive and
// negative, plus every example of the seed page (torch.einsum's docs).
//
//===----------------------------------------------------------------------===//

#include "einsum/Dialect/Einsum/Utils/EinsumEquation.h"

#include "gtest/gtest.h"

using namespace mlir::einsum;
using llvm::SmallVector;
using Shapes = SmallVector<SmallVector<int64_t>>;
constexpr int64_t D = kDynamicSize;

namespace {

/// Resolves and returns the output shape; fails the test on an error.
SmallVector<int64_t> outputShape(llvm::StringRef equation, Shapes shapes) {
  auto res = resolveEinsum(equation, shapes);
  if (!res) {
    ADD_FAILURE() << equation.str() << ": "
                  << llvm::toString(res.takeError());
    return {};
  }
  return SmallVector<int64_t>(res->outputShape.begin(), res->outputShape.end());
}

/// The error message of a parse or resolution that must fail.
std::string errorOf(llvm::StringRef equation, Shapes shapes) {
  auto res = resolveEinsum(equation, shapes);
  if (res) {
    ADD_FAILURE() << equation.str() << " resolved, but should not";
    return "";
  }
  return llvm::toString(res.takeError());
}

std::string parseError(llvm::StringRef equation) {
  auto eq = EinsumEquation::parse(equation);
  if (eq) {
    ADD_FAILURE() << equation.str() << " parsed, but should not";
    return "";
  }
  return llvm::toString(eq.takeError());
}

std::string canonical(llvm::StringRef equation) {
  auto eq = EinsumEquation::parse(equation);
  if (!eq) {
    ADD_FAILURE() << llvm::toString(eq.takeError());
    return "";
  }
  return eq->str();
}

using Shape = SmallVector<int64_t>;

//===----------------------------------------------------------------------===//
// E1 labels
//===----------------------------------------------------------------------===//

TEST(E1Labels, LettersMapToIds) {
  EXPECT_EQ(charToLabel('A'), 0);
  EXPECT_EQ(charToLabel('Z'), 25);
  EXPECT_EQ(charToLabel('a'), 26);
  EXPECT_EQ(charToLabel('z'), 51);
  EXPECT_EQ(charToLabel('0'), std::nullopt);
  for (int l = 0; l < kNumLabels; ++l)
    EXPECT_EQ(charToLabel(labelToChar(l)), l);
}

TEST(E1Labels, FiftyTwoDistinctLabels) {
  std::string all;
  for (int l = 0; l < kNumLabels; ++l)
    all += labelToChar(l);
  Shape shape(52, 1);
  shape[0] = 2;
  shape[51] = 3;
  EXPECT_EQ(outputShape(all + "->" + all, {shape}), shape);
  // Implicit: ASCII order is the same order.
  EXPECT_EQ(outputShape(all, {shape}), shape);
}

TEST(E1Labels, DigitIsNotALabel) {
  EXPECT_EQ(parseError("i1,jk"),
            "invalid character '1' (column 2); subscripts are letters "
            "[a-zA-Z]");
}

TEST(E1Labels, Sublists) {
  auto eq = EinsumEquation::fromSublists({{0, 1}, {1, 2}}, {{0, 2}});
  ASSERT_TRUE(!!eq);
  EXPECT_EQ(eq->str(), "AB,BC->AC");
  auto lower = EinsumEquation::fromSublists({{26, 27}}, std::nullopt);
  ASSERT_TRUE(!!lower);
  EXPECT_EQ(lower->str(), "ab->ab");
  auto ell = EinsumEquation::fromSublists(
      {{kSublistEllipsis, 0, 1}, {kSublistEllipsis, 1, 2}},
      {{kSublistEllipsis, 0, 2}});
  ASSERT_TRUE(!!ell);
  EXPECT_EQ(ell->str(), "...AB,...BC->...AC");
}

TEST(E1Labels, SublistOutOfRange) {
  auto eq = EinsumEquation::fromSublists({{0, 52}}, std::nullopt);
  ASSERT_FALSE(!!eq);
  EXPECT_EQ(llvm::toString(eq.takeError()),
            "the sublist of operand 0: 52 is not a subscript (position 1); "
            "subscripts are integers in [0, 52) or Ellipsis");
  auto neg = EinsumEquation::fromSublists({{0}}, {{-5}});
  ASSERT_FALSE(!!neg);
  EXPECT_EQ(llvm::toString(neg.takeError()),
            "the output sublist: -5 is not a subscript (position 0); "
            "subscripts are integers in [0, 52) or Ellipsis");
}

TEST(E1Labels, SublistTwoEllipses) {
  auto eq = EinsumEquation::fromSublists(
      {{kSublistEllipsis, 0, kSublistEllipsis}}, std::nullopt);
  ASSERT_FALSE(!!eq);
  EXPECT_EQ(llvm::toString(eq.takeError()),
            "the sublist of operand 0: more than one Ellipsis (position 2)");
}

TEST(E1Labels, SublistOutputErrors) {
  auto missing = EinsumEquation::fromSublists({{0, 1}}, {{2}});
  ASSERT_FALSE(!!missing);
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "output: label 'C' does not occur in any input (position 0)");
}

//===----------------------------------------------------------------------===//
// E2 lexing
//===----------------------------------------------------------------------===//

TEST(E2Lexing, WhitespaceBetweenElements) {
  EXPECT_EQ(canonical(" i j , j k -> i k "), "ij,jk->ik");
  EXPECT_EQ(canonical(" ... i j ->... j i"), "...ij->...ji");
}

TEST(E2Lexing, OnlyTheSpaceCharacter) {
  // torch rejects every white space but U+0020.
  EXPECT_EQ(parseError("i\tj"),
            "invalid character '\\x09' (column 2); subscripts are letters "
            "[a-zA-Z]");
  EXPECT_EQ(parseError("ij\n->j"),
            "invalid character '\\x0a' (column 3); subscripts are letters "
            "[a-zA-Z]");
  EXPECT_EQ(parseError("i\rj"),
            "invalid character '\\x0d' (column 2); subscripts are letters "
            "[a-zA-Z]");
  EXPECT_EQ(parseError("i\vj"),
            "invalid character '\\x0b' (column 2); subscripts are letters "
            "[a-zA-Z]");
}

TEST(E2Lexing, InvalidCharacterColumn) {
  EXPECT_EQ(parseError("ij,j#->i"),
            "invalid character '#' (column 5); subscripts are letters "
            "[a-zA-Z]");
  EXPECT_EQ(parseError(std::string("i\x01")),
            "invalid character '\\x01' (column 2); subscripts are letters "
            "[a-zA-Z]");
}

TEST(E2Lexing, EllipsisMustBeThreeContiguousDots) {
  EXPECT_EQ(parseError("i..j"),
            "'.' is not part of an ellipsis '...' (column 2)");
  EXPECT_EQ(parseError(". ..i"),
            "'.' is not part of an ellipsis '...' (column 1)");
  EXPECT_EQ(parseError("i.."), "'.' is not part of an ellipsis '...' (column 2)");
}

TEST(E2Lexing, Arrow) {
  EXPECT_EQ(parseError("ij-ji"), "'-' is not followed by '>' (column 3)");
  EXPECT_EQ(parseError("ij- >ji"), "'-' is not followed by '>' (column 3)");
  EXPECT_EQ(parseError("ij->j->i"), "more than one '->' (column 6)");
  EXPECT_EQ(parseError("ij->i,j"),
            "',' in the output (column 6); the output is a single term");
}

//===----------------------------------------------------------------------===//
// E3 operands
//===----------------------------------------------------------------------===//

TEST(E3Operands, CountMustMatch) {
  EXPECT_EQ(errorOf("ij,jk->ik", {{2, 3}}),
            "the equation has 2 operand terms, but 1 operand was given");
  EXPECT_EQ(errorOf("ij", {{2, 3}, {3, 4}}),
            "the equation has 1 operand term, but 2 operands were given");
}

TEST(E3Operands, ManyOperands) {
  EXPECT_EQ(outputShape("a,b,c,d,e,f->abcdef",
                        {{1}, {2}, {3}, {4}, {5}, {6}}),
            (Shape{1, 2, 3, 4, 5, 6}));
}

//===----------------------------------------------------------------------===//
// E4 rank
//===----------------------------------------------------------------------===//

TEST(E4Rank, WithoutEllipsis) {
  EXPECT_EQ(errorOf("ij,jk->ik", {{2, 3}, {3, 4, 5}}),
            "operand 1: the term 'jk' has 2 subscripts, but the operand has "
            "rank 3 (column 4)");
  EXPECT_EQ(errorOf("i", {{}}),
            "operand 0: the term 'i' has 1 subscript, but the operand has "
            "rank 0 (column 1)");
}

TEST(E4Rank, WithEllipsis) {
  EXPECT_EQ(outputShape("...ij->...ji", {{2, 3, 4, 5}}),
            (Shape{2, 3, 5, 4}));
  EXPECT_EQ(outputShape("...ij->...ji", {{4, 5}}), (Shape{5, 4}));
  EXPECT_EQ(outputShape("i...j->ij...", {{2, 3, 4, 5}}),
            (Shape{2, 5, 3, 4}));
  EXPECT_EQ(errorOf("...ijk", {{2, 3}}),
            "operand 0: the term '...ijk' has 3 subscripts besides the "
            "ellipsis, more than the operand's rank 2 (column 1)");
}

TEST(E4Rank, AtMost64Dimensions) {
  EXPECT_TRUE(!!resolveEinsum("...->...", {Shape(64, 1)}));
  EXPECT_EQ(errorOf("...->...", {Shape(65, 1)}),
            "operand 0: rank 65 is more than the 64 dimensions an operand "
            "may have");
  EXPECT_EQ(errorOf("i,...", {{2}, Shape(4000, 1)}),
            "operand 1: rank 4000 is more than the 64 dimensions an operand "
            "may have");
}

TEST(E4Rank, OneEllipsisPerOperand) {
  EXPECT_EQ(parseError("...i...->i"),
            "operand 0: more than one ellipsis (column 5)");
  EXPECT_EQ(parseError("i,......"),
            "operand 1: more than one ellipsis (column 6)");
}

//===----------------------------------------------------------------------===//
// E5 diagonal
//===----------------------------------------------------------------------===//

TEST(E5Diagonal, Trace) {
  auto res = resolveEinsum("ii", {{4, 4}});
  ASSERT_TRUE(!!res);
  EXPECT_TRUE(res->outputShape.empty());
  ASSERT_EQ(res->numDims(), 1u);
  EXPECT_TRUE(res->dims[0].isReduction());
  EXPECT_EQ(res->operands[0].dims, (SmallVector<unsigned, 8>{0, 0}));
  auto groups = res->operands[0].diagonalGroups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0], (SmallVector<unsigned, 2>{0, 1}));
}

TEST(E5Diagonal, TripleAndSeveralRepeats) {
  EXPECT_EQ(outputShape("iii->i", {{3, 3, 3}}), (Shape{3}));
  auto res = resolveEinsum("ijij->ij", {{2, 3, 2, 3}});
  ASSERT_TRUE(!!res);
  EXPECT_EQ(res->operands[0].diagonalGroups().size(), 2u);
  EXPECT_EQ(outputShape("iijj,ijij->ji", {{2, 2, 3, 3}, {2, 3, 2, 3}}),
            (Shape{3, 2}));
}

TEST(E5Diagonal, SizesMustBeEqual) {
  EXPECT_EQ(errorOf("ii->i", {{3, 4}}),
            "operand 0: label 'i' is repeated for a diagonal, but its "
            "dimensions have sizes 3 and 4 (column 2)");
  // Size 1 does not broadcast inside a diagonal.
  EXPECT_EQ(errorOf("ii->i", {{1, 4}}),
            "operand 0: label 'i' is repeated for a diagonal, but its "
            "dimensions have sizes 1 and 4 (column 2)");
}

TEST(E5Diagonal, DynamicSizesAreAccepted) {
  EXPECT_EQ(outputShape("ii->i", {{D, 4}}), (Shape{4}));
  EXPECT_EQ(outputShape("ii->i", {{D, D}}), (Shape{D}));
}

//===----------------------------------------------------------------------===//
// E6 broadcast
//===----------------------------------------------------------------------===//

TEST(E6Broadcast, SizeOneBroadcasts) {
  auto res = resolveEinsum("ij,ij->ij", {{1, 3}, {2, 1}});
  ASSERT_TRUE(!!res);
  EXPECT_EQ(res->outputShape, (SmallVector<int64_t, 8>{2, 3}));
  EXPECT_EQ(res->operands[0].broadcast, (SmallVector<bool, 8>{true, false}));
  EXPECT_EQ(res->operands[1].broadcast, (SmallVector<bool, 8>{false, true}));
}

TEST(E6Broadcast, SummedLabelBroadcasts) {
  auto res = resolveEinsum("ij,jk->ik", {{2, 1}, {5, 4}});
  ASSERT_TRUE(!!res);
  EXPECT_EQ(res->outputShape, (SmallVector<int64_t, 8>{2, 4}));
  EXPECT_TRUE(res->operands[0].broadcast[1]);
  EXPECT_EQ(res->dims[2].size, 5);
}

TEST(E6Broadcast, AllOnes) {
  auto res = resolveEinsum("i,i->i", {{1}, {1}});
  ASSERT_TRUE(!!res);
  EXPECT_EQ(res->outputShape, (SmallVector<int64_t, 8>{1}));
  EXPECT_FALSE(res->operands[0].broadcast[0]);
}

TEST(E6Broadcast, Mismatch) {
  EXPECT_EQ(errorOf("ij,jk->ik", {{2, 3}, {4, 5}}),
            "operand 1: label 'j' has size 4, but size 3 was seen before in "
            "operand 0 (column 4)");
  EXPECT_EQ(errorOf("i,i", {{0}, {3}}),
            "operand 1: label 'i' has size 3, but size 0 was seen before in "
            "operand 0 (column 3)");
}

TEST(E6Broadcast, Dynamic) {
  EXPECT_EQ(outputShape("ij,jk->ik", {{D, 3}, {D, D}}), (Shape{D, D}));
  auto res = resolveEinsum("i,i->i", {{1}, {D}});
  ASSERT_TRUE(!!res);
  EXPECT_EQ(res->outputShape, (SmallVector<int64_t, 8>{D}));
  EXPECT_TRUE(res->operands[0].broadcast[0]);
  EXPECT_FALSE(res->operands[1].broadcast[0]);
}

//===----------------------------------------------------------------------===//
// E7 ellipsis broadcast
//===----------------------------------------------------------------------===//

TEST(E7EllipsisBroadcast, RightAligned) {
  EXPECT_EQ(outputShape("...ij,...jk->...ik", {{3, 2, 5}, {7, 1, 5, 4}}),
            (Shape{7, 3, 2, 4}));
  auto res = resolveEinsum("...i,...i", {{2, 1, 4}, {3, 4}});
  ASSERT_TRUE(!!res);
  EXPECT_EQ(res->outputShape, (SmallVector<int64_t, 8>{2, 3}));
  EXPECT_EQ(res->numEllipsisDims, 2u);
}

TEST(E7EllipsisBroadcast, Mismatch) {
  EXPECT_EQ(errorOf("...i,...i->...i", {{2, 4}, {3, 4}}),
            "operand 1: ellipsis dimension 0 has size 3, but size 2 was seen "
            "before in operand 0 (column 6)");
}

TEST(E7EllipsisBroadcast, EmptyEllipsis) {
  EXPECT_EQ(outputShape("...ij->...ji", {{4, 5}}), (Shape{5, 4}));
  EXPECT_EQ(outputShape("ij->...ji", {{4, 5}}), (Shape{5, 4}));
}

//===----------------------------------------------------------------------===//
// E8 implicit output
//===----------------------------------------------------------------------===//

TEST(E8ImplicitOutput, SortedLabelsOccurringOnce) {
  EXPECT_EQ(canonical("ij,jk"), "ij,jk->ik");
  EXPECT_EQ(canonical("ba"), "ba->ab");
  EXPECT_EQ(canonical("ii"), "ii->");
  EXPECT_EQ(canonical("ij,ij"), "ij,ij->");
}

TEST(E8ImplicitOutput, UpperCaseFirst) {
  EXPECT_EQ(canonical("aB"), "aB->Ba");
  EXPECT_EQ(outputShape("aB", {{2, 3}}), (Shape{3, 2}));
}

TEST(E8ImplicitOutput, EllipsisFirst) {
  EXPECT_EQ(canonical("...ij,...jk"), "...ij,...jk->...ik");
  EXPECT_EQ(canonical("i...,j"), "i...,j->...ij");
}

//===----------------------------------------------------------------------===//
// E9 explicit output
//===----------------------------------------------------------------------===//

TEST(E9ExplicitOutput, LabelMustOccurInInput) {
  EXPECT_EQ(parseError("ij->k"),
            "output: label 'k' does not occur in any input (column 5)");
}

TEST(E9ExplicitOutput, LabelAtMostOnce) {
  EXPECT_EQ(parseError("ij->ii"),
            "output: label 'i' occurs more than once (column 6)");
}

TEST(E9ExplicitOutput, OneEllipsis) {
  EXPECT_EQ(parseError("...i->......"),
            "output: more than one ellipsis (column 10)");
}

TEST(E9ExplicitOutput, SummedEllipsis) {
  auto res = resolveEinsum("...ij->ij", {{5, 6, 2, 3}});
  ASSERT_TRUE(!!res);
  EXPECT_EQ(res->outputShape, (SmallVector<int64_t, 8>{2, 3}));
  EXPECT_EQ(res->numReductionDims(), 2u);
  EXPECT_TRUE(res->dims[2].isEllipsis());
  EXPECT_EQ(res->dims[2].size, 5);
}

TEST(E9ExplicitOutput, EmptyOutput) {
  EXPECT_EQ(outputShape("ij->", {{2, 3}}), Shape{});
}

//===----------------------------------------------------------------------===//
// E10 shape / E11 value helpers
//===----------------------------------------------------------------------===//

TEST(E10Shape, OutputTakesBroadcastSizes) {
  EXPECT_EQ(outputShape("ij,j->ij", {{1, 3}, {3}}), (Shape{1, 3}));
  EXPECT_EQ(outputShape("i,j->ij", {{1}, {3}}), (Shape{1, 3}));
}

TEST(E11Value, ZeroSizeDims) {
  auto res = resolveEinsum("ij,jk->ik", {{2, 0}, {0, 3}});
  ASSERT_TRUE(!!res);
  EXPECT_EQ(res->outputShape, (SmallVector<int64_t, 8>{2, 3}));
  EXPECT_EQ(res->iterationCount(), 0u);
  EXPECT_EQ(res->outputElementCount(), 6u);
}

TEST(E11Value, CountsSaturate) {
  // 2^40 x 2^40 overflows 64 bits: the count saturates instead of wrapping,
  // and a zero size makes the count 0 however large the others are.
  int64_t big = int64_t(1) << 40;
  auto huge = resolveEinsum("ij->ij", {{big, big}});
  ASSERT_TRUE(!!huge);
  EXPECT_EQ(huge->iterationCount(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(huge->outputElementCount(), std::numeric_limits<uint64_t>::max());
  auto four = resolveEinsum("i,j,k,l->", {{65536}, {65536}, {65536}, {65537}});
  ASSERT_TRUE(!!four);
  EXPECT_EQ(four->iterationCount(), std::numeric_limits<uint64_t>::max());
  auto empty = resolveEinsum("i,j,ijk->", {{big}, {big}, {big, big, 0}});
  ASSERT_TRUE(!!empty);
  EXPECT_EQ(empty->iterationCount(), 0u);
}

TEST(E11Value, LoopDimsAndRoles) {
  auto res = resolveEinsum("ij,jk->ik", {{2, 3}, {3, 4}});
  ASSERT_TRUE(!!res);
  ASSERT_EQ(res->numDims(), 3u);
  EXPECT_EQ(res->dims[0].name(), "i");
  EXPECT_EQ(res->dims[1].name(), "k");
  EXPECT_EQ(res->dims[2].name(), "j");
  EXPECT_TRUE(res->dims[2].isReduction());
  EXPECT_EQ(res->operands[0].dims, (SmallVector<unsigned, 8>{0, 2}));
  EXPECT_EQ(res->operands[1].dims, (SmallVector<unsigned, 8>{2, 1}));
  EXPECT_EQ(res->iterationCount(), 24u);
}

TEST(E11Value, Identity) {
  EXPECT_TRUE(resolveEinsum("ij->ij", {{2, 3}})->isIdentity());
  EXPECT_TRUE(resolveEinsum("ij", {{2, 3}})->isIdentity());
  EXPECT_TRUE(resolveEinsum("...->...", {{2, 3}})->isIdentity());
  EXPECT_FALSE(resolveEinsum("ji", {{2, 3}})->isIdentity());
  EXPECT_FALSE(resolveEinsum("ii->i", {{3, 3}})->isIdentity());
  EXPECT_FALSE(resolveEinsum("ij->i", {{2, 3}})->isIdentity());
}

//===----------------------------------------------------------------------===//
// E12 scalars
//===----------------------------------------------------------------------===//

TEST(E12Scalars, EmptyEquation) {
  EXPECT_EQ(canonical(""), "->");
  EXPECT_EQ(outputShape("", {{}}), Shape{});
  EXPECT_EQ(outputShape(",->", {{}, {}}), Shape{});
  EXPECT_EQ(outputShape(",i->i", {{}, {3}}), (Shape{3}));
  EXPECT_EQ(errorOf("", {{3}}),
            "operand 0: the term '' has 0 subscripts, but the operand has "
            "rank 1 (column 1)");
}

//===----------------------------------------------------------------------===//
// Seed examples (torch.einsum documentation)
//===----------------------------------------------------------------------===//

TEST(SeedExamples, All) {
  EXPECT_EQ(outputShape("ii", {{4, 4}}), Shape{});                  // trace
  EXPECT_EQ(outputShape("ii->i", {{4, 4}}), (Shape{4}));            // diagonal
  EXPECT_EQ(outputShape("i,j->ij", {{5}, {4}}), (Shape{5, 4}));     // outer
  EXPECT_EQ(outputShape("bij,bjk->bik", {{3, 2, 5}, {3, 5, 4}}),    // bmm
            (Shape{3, 2, 4}));
  auto sub = EinsumEquation::fromSublists(
      {{kSublistEllipsis, 0, 1}, {kSublistEllipsis, 1, 2}},
      {{kSublistEllipsis, 0, 2}});
  ASSERT_TRUE(!!sub);
  auto subRes = sub->resolve({{3, 2, 5}, {3, 5, 4}});
  ASSERT_TRUE(!!subRes);
  EXPECT_EQ(subRes->outputShape, (SmallVector<int64_t, 8>{3, 2, 4}));
  EXPECT_EQ(outputShape("...ij->...ji", {{2, 3, 4, 5}}),           // permute
            (Shape{2, 3, 5, 4}));
  EXPECT_EQ(outputShape("bn,anm,bm->ba", {{2, 5}, {3, 5, 4}, {2, 4}}),
            (Shape{2, 3}));                                         // bilinear
}

} // namespace

//===- ExprTest.cpp - Tests for manifest integer expressions ----*- C++ -*-===//

#include "fuser/Manifest/Expr.h"
#include "ManifestTestUtil.h"

#include <limits>

using namespace fuser;
using fuser::test::expectError;

namespace {

const ShapeList kShapes = {{6, 393216}, {7}};

int64_t eval(const std::string &text, const ShapeList &shapes = kShapes) {
  return parseExpr(text).evaluate(shapes);
}

TEST(ExprTest, Constants) {
  EXPECT_EQ(eval("123"), 123);
  EXPECT_EQ(eval("-5"), -5);
  EXPECT_EQ(eval("  42  "), 42);
  EXPECT_TRUE(parseExpr("7").isConstant());
  EXPECT_EQ(parseExpr("7").constantValue(), 7);
  EXPECT_TRUE(Expr().isConstant());
  EXPECT_EQ(Expr().evaluate({}), 0);
}

TEST(ExprTest, Dims) {
  EXPECT_EQ(eval("dim(0,0)"), 6);
  EXPECT_EQ(eval("dim(0,1)"), 393216);
  EXPECT_EQ(eval("dim( 1 , 0 )"), 7);
  Expr e = parseExpr("dim(1,0)");
  EXPECT_EQ(e.kind(), Expr::Kind::Dim);
  EXPECT_EQ(e.dimArg(), 1);
  EXPECT_EQ(e.dimIndex(), 0);
}

TEST(ExprTest, Operators) {
  EXPECT_EQ(eval("add(dim(0,0),3)"), 9);
  EXPECT_EQ(eval("sub(dim(0,0),10)"), -4);
  EXPECT_EQ(eval("mul(dim(0,0),393216)"), 6 * 393216);
  EXPECT_EQ(eval("min(ceildiv(mul(dim(0,0),393216),1024),1048576)"), 2304);
  EXPECT_EQ(eval("max(dim(0,0),dim(1,0))"), 7);
  EXPECT_EQ(eval("min(dim(0,0),dim(1,0))"), 6);
}

TEST(ExprTest, DivisionRounding) {
  EXPECT_EQ(eval("floordiv(7,2)"), 3);
  EXPECT_EQ(eval("floordiv(-7,2)"), -4);
  EXPECT_EQ(eval("floordiv(7,-2)"), -4);
  EXPECT_EQ(eval("floordiv(-8,2)"), -4);
  EXPECT_EQ(eval("ceildiv(7,2)"), 4);
  EXPECT_EQ(eval("ceildiv(8,2)"), 4);
  EXPECT_EQ(eval("ceildiv(-7,2)"), -3);
  EXPECT_EQ(eval("ceildiv(0,5)"), 0);
  EXPECT_EQ(eval("rem(7,3)"), 1);
  EXPECT_EQ(eval("rem(-7,3)"), 2);
  EXPECT_EQ(eval("rem(7,-3)"), -2);
  EXPECT_EQ(eval("rem(-9223372036854775808,-1)"), 0);
}

TEST(ExprTest, ToStringIsCanonical) {
  EXPECT_EQ(parseExpr(" add( dim(0, 1) ,mul(2,-3))").toString(),
            "add(dim(0,1),mul(2,-3))");
  const char *text = "min(ceildiv(mul(dim(0,0),393216),1024),1048576)";
  EXPECT_EQ(parseExpr(text).toString(), text);
}

TEST(ExprTest, ForEachDimVisitsAll) {
  std::vector<std::pair<int64_t, int64_t>> seen;
  parseExpr("add(dim(0,1),mul(dim(2,3),4))")
      .forEachDim([&](int64_t a, int64_t d) { seen.emplace_back(a, d); });
  ASSERT_EQ(seen.size(), 2u);
  using Ref = std::pair<int64_t, int64_t>;
  EXPECT_EQ(seen[0], Ref(0, 1));
  EXPECT_EQ(seen[1], Ref(2, 3));
}

struct ParseErrorCase {
  const char *text;
  const char *message;
};

class ExprParseErrorTest : public ::testing::TestWithParam<ParseErrorCase> {};

TEST_P(ExprParseErrorTest, Rejects) {
  expectError([&] { parseExpr(GetParam().text); }, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ExprParseErrorTest,
    ::testing::Values(
        ParseErrorCase{"", "empty expression"},
        ParseErrorCase{"foo(1,2)",
                       "unknown operator 'foo' (expected dim, add, sub, mul, "
                       "floordiv, ceildiv, rem, min or max) at column 1 of "
                       "'foo(1,2)'"},
        ParseErrorCase{"add(1)", "expected ',' but found ')' at column 6"},
        ParseErrorCase{"add(1,2", "expected ')' but the expression ended"},
        ParseErrorCase{"add 1,2)", "expected '(' but found '1'"},
        ParseErrorCase{"dim(0)", "expected ','"},
        ParseErrorCase{"dim(a,0)", "expected an integer at column 5"},
        ParseErrorCase{"dim(-1,0)", "dim() indices must be non-negative"},
        ParseErrorCase{"dim(0,add(1,1))", "expected an integer"},
        ParseErrorCase{"add(1,2)x", "unexpected trailing characters"},
        ParseErrorCase{"99999999999999999999", "does not fit in 64 bits"},
        ParseErrorCase{"#", "unexpected character '#'"},
        ParseErrorCase{"add(1,", "expected an expression but the text ended"},
        ParseErrorCase{"?", "unexpected character '?'"}));

TEST(ExprTest, RejectsDeepNesting) {
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += "add(1,";
  text += "1" + std::string(200, ')');
  expectError([&] { parseExpr(text); }, "nested deeper than 128");
}

TEST(ExprTest, DivisionByZero) {
  expectError([] { eval("floordiv(dim(0,0),0)"); },
              "division by zero in floordiv(6,0), evaluating floordiv(dim(0,0),0)");
  expectError([] { eval("ceildiv(1,sub(dim(0,0),6))"); }, "division by zero");
  expectError([] { eval("rem(1,0)"); }, "division by zero in rem(1,0)");
}

TEST(ExprTest, Overflow) {
  expectError([] { eval("add(9223372036854775807,1)"); },
              "64-bit integer overflow in add(9223372036854775807,1)");
  expectError([] { eval("sub(-9223372036854775808,1)"); }, "overflow in sub");
  expectError(
      [] { eval("mul(mul(dim(0,1),dim(0,1)),mul(dim(0,1),dim(0,1)))"); },
      "overflow in mul");
  expectError([] { eval("floordiv(-9223372036854775808,-1)"); },
              "overflow in floordiv");
  expectError([] { eval("ceildiv(-9223372036854775808,-1)"); },
              "overflow in ceildiv");
}

TEST(ExprTest, DimOutOfRange) {
  expectError([] { eval("dim(2,0)"); },
              "dim(2,0) refers to argument 2, but there are 2 arguments");
  expectError([] { eval("add(1,dim(1,1))"); },
              "dim(1,1) refers to dimension 1 of argument 1, which has rank 1");
}

} // namespace

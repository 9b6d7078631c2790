//===- JsonTest.cpp - Tests for the strict JSON reader ----------*- C++ -*-===//

#include "fuser/Manifest/Json.h"
#include "ManifestTestUtil.h"

#include <limits>

using namespace fuser;
using fuser::test::expectError;

namespace {

TEST(JsonTest, ParsesEveryKind) {
  JsonValue v = parseJson(R"( {"a": [1, -2, 3.5, -0.25e1, true, false, null],
                                "b": {"c": "d"}, "e": {} , "f": []} )");
  ASSERT_TRUE(v.isObject());
  ASSERT_EQ(v.getObject().size(), 4u);
  const JsonValue *a = v.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->isArray());
  const auto &arr = a->getArray();
  ASSERT_EQ(arr.size(), 7u);
  EXPECT_TRUE(arr[0].isInt());
  EXPECT_EQ(arr[0].getInt(), 1);
  EXPECT_EQ(arr[1].getInt(), -2);
  EXPECT_EQ(arr[2].kind(), JsonValue::Kind::Double);
  EXPECT_DOUBLE_EQ(arr[2].getNumber(), 3.5);
  EXPECT_DOUBLE_EQ(arr[3].getNumber(), -2.5);
  EXPECT_TRUE(arr[4].isBool() && arr[4].getBool());
  EXPECT_TRUE(arr[5].isBool() && !arr[5].getBool());
  EXPECT_TRUE(arr[6].isNull());
  EXPECT_EQ(v.find("b")->find("c")->getString(), "d");
  EXPECT_TRUE(v.find("e")->isObject());
  EXPECT_TRUE(v.find("f")->getArray().empty());
  EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(JsonTest, KeepsMemberOrder) {
  JsonValue v = parseJson(R"({"z": 1, "a": 2})");
  EXPECT_EQ(v.getObject()[0].first, "z");
  EXPECT_EQ(v.getObject()[1].first, "a");
}

TEST(JsonTest, IntegerLimits) {
  EXPECT_EQ(parseJson("9223372036854775807").getInt(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parseJson("-9223372036854775808").getInt(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(parseJson("0").getInt(), 0);
  EXPECT_EQ(parseJson("1E2").kind(), JsonValue::Kind::Double);
  EXPECT_DOUBLE_EQ(parseJson("1E2").getNumber(), 100.0);
}

TEST(JsonTest, StringEscapes) {
  EXPECT_EQ(parseJson(R"("a\"b\\c\/d\b\f\n\r\t")").getString(),
            "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(parseJson(R"("\u0041\u00e9\u20ac")").getString(),
            "A\xC3\xA9\xE2\x82\xAC");
  // U+1F600 as a surrogate pair becomes 4 UTF-8 bytes.
  EXPECT_EQ(parseJson(R"("\ud83d\ude00")").getString(), "\xF0\x9F\x98\x80");
  // Raw UTF-8 passes through.
  EXPECT_EQ(parseJson("\"\xC3\xA9\"").getString(), "\xC3\xA9");
}

struct MalformedCase {
  const char *text;
  const char *message;
};

class JsonMalformedTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(JsonMalformedTest, ReportsPosition) {
  expectError([&] { parseJson(GetParam().text); }, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, JsonMalformedTest,
    ::testing::Values(
        MalformedCase{"", "line 1, column 1: unexpected end of input"},
        MalformedCase{"   ", "line 1, column 4: unexpected end of input"},
        MalformedCase{"[1,]", "line 1, column 4: unexpected character ']'"},
        MalformedCase{"[1 2]", "line 1, column 4: expected ',' or ']'"},
        MalformedCase{"{\"a\":1,}", "column 8: expected a string key"},
        MalformedCase{"{\"a\" 1}", "column 6: expected ':' after object key"},
        MalformedCase{"{\"a\":1 \"b\":2}", "expected ',' or '}' in object"},
        MalformedCase{"{1:2}", "column 2: expected a string key"},
        MalformedCase{"\"abc", "unterminated string"},
        MalformedCase{"\"a\\x\"", "column 4: invalid escape '\\x'"},
        MalformedCase{"\"a\nb\"", "control character in string"},
        MalformedCase{"\"\\u12g4\"", "invalid hex digit in \\u escape"},
        MalformedCase{"\"\\u12\"", "truncated \\u escape"},
        MalformedCase{"\"\\ud83d\"", "unpaired UTF-16 surrogate"},
        MalformedCase{"\"\\ude00\"", "unpaired UTF-16 surrogate"},
        MalformedCase{"\"\\ud83d\\u0041\"", "invalid UTF-16 low surrogate"},
        MalformedCase{"01", "leading zeros are not allowed"},
        MalformedCase{"-", "expected a digit"},
        MalformedCase{"1.", "expected a digit after the decimal point"},
        MalformedCase{"1e", "expected a digit in the exponent"},
        MalformedCase{"9223372036854775808", "does not fit in 64 bits"},
        MalformedCase{"1e999", "is out of range"},
        MalformedCase{"tru", "invalid literal (expected 'true')"},
        MalformedCase{"nul", "invalid literal (expected 'null')"},
        MalformedCase{"NaN", "unexpected character 'N'"},
        MalformedCase{"1 2", "column 3: unexpected trailing characters"},
        MalformedCase{"{\"a\":1,\"a\":2}", "column 8: duplicate key 'a'"},
        MalformedCase{"{\n  \"a\": ,\n}",
                      "line 2, column 8: unexpected character ','"},
        MalformedCase{"// c\n1", "unexpected character '/'"}));

TEST(JsonTest, RejectsDeepNesting) {
  std::string deep(300, '[');
  expectError([&] { parseJson(deep); }, "nesting deeper than 256 levels");
  // 200 levels are fine.
  std::string ok = std::string(200, '[') + std::string(200, ']');
  EXPECT_TRUE(parseJson(ok).isArray());
}

} // namespace

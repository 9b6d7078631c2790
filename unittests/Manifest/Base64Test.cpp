//===- Base64Test.cpp - Constant data in manifest strings -------*- C++ -*-===//

#include "fuser/Manifest/Base64.h"

#include <gtest/gtest.h>

using namespace fuser;

TEST(Base64Test, RfcVectors) {
  // RFC 4648, section 10.
  const char *cases[][2] = {{"", ""},         {"f", "Zg=="},
                            {"fo", "Zm8="},   {"foo", "Zm9v"},
                            {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                            {"foobar", "Zm9vYmFy"}};
  for (auto &c : cases) {
    EXPECT_EQ(encodeBase64(c[0]), c[1]);
    EXPECT_EQ(decodeBase64(c[1]), std::optional<std::string>(c[0]));
  }
}

TEST(Base64Test, RoundTripsEveryByte) {
  std::string bytes;
  for (int i = 0; i < 256; ++i)
    bytes += static_cast<char>(i);
  for (size_t n = 0; n <= bytes.size(); n += 37)
    EXPECT_EQ(decodeBase64(encodeBase64(bytes.substr(0, n))),
              std::optional<std::string>(bytes.substr(0, n)));
}

TEST(Base64Test, RejectsMalformed) {
  for (const char *bad : {"Zg", "Zg=", "Z===", "Zh==", "Zm9=", "Zm 9v",
                          "Zm9v\n", "=Zm9", "Zg==Zg==", "Zm-v"})
    EXPECT_EQ(decodeBase64(bad), std::nullopt) << bad;
}

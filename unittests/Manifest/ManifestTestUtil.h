//===- ManifestTestUtil.h - Helpers for manifest and runtime tests -*- C++ -*-===//

#ifndef FUSER_UNITTESTS_MANIFEST_MANIFESTTESTUTIL_H
#define FUSER_UNITTESTS_MANIFEST_MANIFESTTESTUTIL_H

#include "fuser/Manifest/Error.h"

#include <gtest/gtest.h>

#include <string>

namespace fuser::test {

/// Asserts that `body` throws fuser::Error whose message contains `expected`
/// and returns the full message for further checks.
template <typename Fn>
std::string expectError(Fn &&body, const std::string &expected) {
  try {
    body();
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find(expected), std::string::npos)
        << "message: " << message << "\nexpected to contain: " << expected;
    return message;
  }
  ADD_FAILURE() << "expected a fuser::Error containing: " << expected;
  return "";
}

/// A manifest with one function `forward(x: f32[?, ?] align 16,
/// w: f32[?, 4])` computing a [dim(x,0), 4] f32 result through an f16
/// intermediate, with a check that w's rows match x's columns. `launches`
/// replaces the launch list when given.
std::string matmulManifest(const std::string &launches = "");

/// `json` with the first occurrence of `from` replaced by `to`; fails the
/// test if `from` is absent (so a stale replacement cannot pass silently).
std::string replaceInManifest(std::string json, const std::string &from,
                              const std::string &to);

} // namespace fuser::test

#endif // FUSER_UNITTESTS_MANIFEST_MANIFESTTESTUTIL_H

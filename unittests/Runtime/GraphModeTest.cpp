//===- GraphModeTest.cpp - The CUDA graph mode's parsing and setting -----===//

#include "TestUtil.h"
#include "fuser/Runtime/GraphMode.h"

using namespace fuser;
using fuser::test::expectError;

namespace {

TEST(GraphModeTest, NamesRoundTrip) {
  for (GraphMode mode : {GraphMode::Off, GraphMode::Auto, GraphMode::On})
    EXPECT_EQ(parseGraphMode(graphModeName(mode)), mode);
}

TEST(GraphModeTest, UnknownNameListsTheChoices) {
  expectError([] { parseGraphMode("always"); },
              "unknown CUDA graph mode 'always' (expected off, auto or on)");
  expectError([] { parseGraphMode(""); }, "unknown CUDA graph mode ''");
}

TEST(GraphModeTest, SetModeIsProcessWide) {
  GraphMode saved = graphMode();
  setGraphMode(GraphMode::Off);
  EXPECT_EQ(graphMode(), GraphMode::Off);
  setGraphMode(GraphMode::On);
  EXPECT_EQ(graphMode(), GraphMode::On);
  setGraphMode(saved);
}

} // namespace
